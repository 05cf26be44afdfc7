"""Prints what ``IMetric`` answers beyond its values, for every metric of the first results of
a report, as JSON: ``label()``, ``has_value()`` and ``has_value(kind)`` for every
``ValueKind`` (and one past the last), ``rollup_operation()``, ``metric_subtype()`` and
``metric_type()``. (``description()`` is left out: NVIDIA's module reads it from its metric
library, which reports do not hold. The type is compared apart: NVIDIA's module gives OTHER
for the metrics its library lacks.)

Run with Sightline's module or NVIDIA's on ``sys.path``: both must print the same.
Usage: metric_dump.py REPORT [--max-results N]
"""

import argparse
import json
import sys

import ncu_report


def metric_json(metric):
    return {
        "label": metric.label(),
        "has_value": metric.has_value(),
        "has_value_of_kind": [metric.has_value(kind) for kind in range(8)],
        "rollup_operation": metric.rollup_operation(),
        "metric_subtype": metric.metric_subtype(),
        "metric_type": metric.metric_type(),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("report")
    parser.add_argument("--max-results", type=int, default=3)
    args = parser.parse_args()
    context = ncu_report.load_report(args.report)
    actions = []
    for r in range(context.num_ranges()):
        rng = context.range_by_idx(r)
        for a in range(min(rng.num_actions(), args.max_results)):
            action = rng.action_by_idx(a)
            actions.append({name: metric_json(action[name]) for name in action.metric_names()})
    json.dump({"actions": actions}, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
