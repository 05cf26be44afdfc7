"""Held-out script: every metric's attributes, counts by type and the documentation's filter.

Written only from the Nsight Compute documentation (Python Report Interface, metric
attributes) and the module's docstrings. Usage: metric_attributes.py REPORT
"""

import sys
from collections import Counter

import ncu_report
from ncu_report import IMetric

TYPES = {
    IMetric.MetricType_OTHER: "OTHER",
    IMetric.MetricType_COUNTER: "COUNTER",
    IMetric.MetricType_RATIO: "RATIO",
    IMetric.MetricType_THROUGHPUT: "THROUGHPUT",
}
ROLLUPS = {
    IMetric.RollupOperation_NONE: "NONE",
    IMetric.RollupOperation_AVG: "AVG",
    IMetric.RollupOperation_MAX: "MAX",
    IMetric.RollupOperation_MIN: "MIN",
    IMetric.RollupOperation_SUM: "SUM",
}
SUBTYPES = {
    getattr(IMetric, name): name[len("MetricSubtype_"):]
    for name in dir(IMetric)
    if name.startswith("MetricSubtype_")
}
KINDS = {
    getattr(IMetric, name): name[len("ValueKind_"):]
    for name in dir(IMetric)
    if name.startswith("ValueKind_")
}


def show(metric):
    subtype = metric.metric_subtype()
    rollup = metric.rollup_operation()
    return (
        f"{metric.name()}: type={TYPES.get(metric.metric_type())} "
        f"subtype={SUBTYPES.get(subtype, subtype)} rollup={ROLLUPS.get(rollup, rollup)} "
        f"unit={metric.unit()!r} kind={KINDS.get(metric.kind())} value={metric.value()!r} "
        f"instances={metric.num_instances()} label={metric.label()!r} "
        f"description={metric.description()!r}"
    )


def main(path):
    report = ncu_report.load_report(path)
    for current in report:
        for idx, action in enumerate(current):
            print(f"== [{idx}] {action.name()}")
            types = Counter()
            for name in sorted(action.metric_names()):
                metric = action.metric_by_name(name)
                types[TYPES.get(metric.metric_type())] += 1
                print(show(metric))
            print(f"types: {sorted(types.items())}")
            # The documentation's example filter.
            for name in action:
                metric = action[name]
                if (
                    metric.metric_type() == IMetric.MetricType_COUNTER
                    and metric.metric_subtype() == IMetric.MetricSubtype_PER_SECOND
                    and metric.rollup_operation() == IMetric.RollupOperation_AVG
                ):
                    print(f"filter: {metric.name()}: {metric.value()} {metric.unit()}")
            percent = [
                n
                for n in action
                if action[n].metric_subtype()
                in (
                    IMetric.MetricSubtype_PCT_OF_PEAK_SUSTAINED_ELAPSED,
                    IMetric.MetricSubtype_PCT_OF_PEAK_SUSTAINED_ACTIVE,
                )
            ]
            print(f"percent of peak: {sorted(percent)}")


if __name__ == "__main__":
    main(sys.argv[1])
