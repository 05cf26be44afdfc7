"""Prints, as JSON, what the calls that belong to the rule system answer for an opened report:
the ``IAction.add_*metric`` calls for its first result (and whether its metrics change),
``IContext.frontend()``, ``backend()``, ``controller()`` and ``handle_exception()``, and which
exception wrong arguments raise (the exception's type only).

Run with Sightline's module or NVIDIA's on ``sys.path``: both must print the same.
Usage: read_only_dump.py REPORT
"""

import json
import sys

import ncu_report


def outcome(call):
    try:
        return repr(call())
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e).__name__


def main():
    context = ncu_report.load_report(sys.argv[1])
    action = context[0][0]
    kinds = ncu_report.IMetric
    before = list(action.metric_names())
    calls = {
        "add_metric": lambda: action.add_metric("added__metric"),
        "add_double_metric": lambda: action.add_double_metric("added__d", kinds.ValueKind_DOUBLE, 1.5),
        "add_double_metric_int": lambda: action.add_double_metric("added__d", kinds.ValueKind_DOUBLE, 2),
        "add_integer_metric": lambda: action.add_integer_metric("added__i", kinds.ValueKind_UINT64, 7),
        "add_string_metric": lambda: action.add_string_metric("added__s", kinds.ValueKind_STRING, "x"),
        "double_of_string": lambda: action.add_double_metric("added__d", kinds.ValueKind_DOUBLE, "s"),
        "integer_of_float": lambda: action.add_integer_metric("added__i", kinds.ValueKind_UINT64, 1.5),
        "integer_negative": lambda: action.add_integer_metric("added__i", kinds.ValueKind_UINT64, -1),
        "integer_too_large": lambda: action.add_integer_metric("added__i", kinds.ValueKind_UINT64, 2**64),
        "string_of_int": lambda: action.add_string_metric("added__s", kinds.ValueKind_STRING, 3),
        "name_of_int": lambda: action.add_metric(3),
        "frontend": context.frontend,
        "backend": context.backend,
        "controller": context.controller,
        "handle_exception": lambda: context.handle_exception("a rule failed"),
        "handle_exception_of_int": lambda: context.handle_exception(3),
        "is_base_context": lambda: isinstance(context, ncu_report.IBaseContext),
    }
    out = {name: outcome(call) for name, call in calls.items()}
    out["metrics_unchanged"] = list(action.metric_names()) == before
    out["added_found"] = action.metric_by_name("added__d") is not None
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
