"""Held-out script: instance values of instanced metrics, with their correlation ids.

Written only from the Nsight Compute documentation (Python Report Interface) and the module's
docstrings. Usage: instances.py REPORT
"""

import math
import sys

import ncu_report


def fmt(value):
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return f"{value:.6g}"
    return repr(value)


def show_instances(metric):
    n = metric.num_instances()
    print(f"  {metric.name()}: {n} instances, kind {metric.kind()}, value {fmt(metric.value())}")
    print(f"    has_value()={metric.has_value()} has_correlation_ids={metric.has_correlation_ids()}")
    ids = metric.correlation_ids()
    if ids is None:
        print("    correlation ids: None")
    else:
        print(f"    correlation ids: {ids.num_instances()} of kind {ids.kind(0) if ids.num_instances() else None}")
    values = []
    for i in range(n):
        v = metric.value(i)
        values.append(v)
        cid = ids.value(i) if ids is not None else None
        print(
            f"    [{i}] value={fmt(v)} kind={metric.kind(i)} has_value={metric.has_value(i)} "
            f"double={fmt(metric.as_double(i))} uint64={metric.as_uint64(i)} "
            f"string={metric.as_string(i)!r} id={fmt(cid)}"
        )
    numbers = [v for v in values if isinstance(v, (int, float))]
    if numbers:
        print(
            f"    min={fmt(min(numbers))} max={fmt(max(numbers))} "
            f"mean={fmt(sum(numbers) / len(numbers))}"
        )


def main(path):
    report = ncu_report.load_report(path)
    for r, current in enumerate(report):
        for a, action in enumerate(current):
            print(f"[{r}/{a}] {action.name()}")
            for name in sorted(action.metric_names()):
                metric = action[name]
                if metric.num_instances() > 0:
                    show_instances(metric)


if __name__ == "__main__":
    main(sys.argv[1])
