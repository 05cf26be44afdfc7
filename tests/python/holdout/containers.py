"""Held-out script: iteration, len, `in`, indexing, slices and the errors they raise.

Written only from the Nsight Compute documentation (Python Report Interface, high-level
interface) and the module's docstrings. Usage: containers.py REPORT
"""

import sys

import ncu_report


def attempt(label, call):
    try:
        result = call()
    except Exception as e:  # the exception type is what is compared
        print(f"{label}: {type(e).__name__}")
        return
    if isinstance(result, tuple):
        result = tuple(str(x) for x in result)
    elif result is not None and not isinstance(result, (int, str, float)):
        result = f"<{type(result).__name__}> {result}"
    print(f"{label}: {result}")


def main(path):
    context = ncu_report.load_report(path)
    print(f"len(context)={len(context)} num_ranges={context.num_ranges()}")
    attempt("context[0]", lambda: context[0] is not None)
    attempt("context[-1] actions", lambda: len(context[-1]))
    attempt("context[0:1]", lambda: len(context[0:1]))
    attempt("context[len]", lambda: context[len(context)])
    attempt("context['x']", lambda: context["x"])
    attempt("range_by_idx(len)", lambda: context.range_by_idx(len(context)))
    for current in context:
        n = len(current)
        print(f"range: len={n} num_actions={current.num_actions()}")
        print(f"  names: {[str(a) for a in current]}")
        attempt("  [1:3]", lambda: current[1:3])
        attempt("  [::-1]", lambda: current[::-1])
        attempt("  [::2]", lambda: current[::2])
        attempt("  [-1]", lambda: current[-1])
        attempt("  [n]", lambda: current[n])
        attempt("  [-n-1]", lambda: current[-n - 1])
        attempt("  ['0']", lambda: current["0"])
        attempt("  action_by_idx(n)", lambda: current.action_by_idx(n))
        for action in current:
            names = list(action)
            print(f"  {action.name()}: len={len(action)} iterated={len(names)} sorted_first={sorted(names)[:3]}")
            print(f"    tuple equal: {tuple(names) == tuple(action.metric_names())}")
            print(f"    'gpu__time_duration.sum' in: {'gpu__time_duration.sum' in action}")
            print(f"    'no__such_metric' in: {'no__such_metric' in action}")
            attempt("    ['no__such_metric']", lambda: action["no__such_metric"])
            attempt("    [0]", lambda: action[0])
            attempt("    metric_by_name(missing)", lambda: action.metric_by_name("no__such_metric"))
            attempt("    str(first metric)", lambda: str(action[names[0]]) if names else None)


if __name__ == "__main__":
    main(sys.argv[1])
