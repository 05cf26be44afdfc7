"""Prints, for every result of a report, what the timelines interface answers: every instanced
metric's aligned form (`IAction.timelines().aligned_metric`) with its value, kind, unit,
instances and correlation ids, the correlation ids' own name, unit, kind and count, and the
timed warp samples. Run with Sightline's module or NVIDIA's on ``sys.path``: both must print the same.
Usage: timelines_dump.py REPORT
"""

import json
import math
import sys

import ncu_report


def number(v):
    if isinstance(v, float) and math.isnan(v):
        return "nan"
    return v


def values(m):
    return [number(m.value(i)) for i in range(m.num_instances())]


def ids_view(ids, with_values):
    if ids is None:
        return None
    out = {"name": ids.name(), "unit": ids.unit(), "kind": ids.kind(), "count": ids.num_instances()}
    if with_values:
        out["values"] = values(ids)
    return out


def aligned_view(m):
    if m is None:
        return None
    return {
        "name": m.name(),
        "kind": m.kind(),
        "unit": m.unit(),
        "value": number(m.value()),
        "has_value": m.has_value(),
        "instances": values(m),
        "has_correlation_ids": m.has_correlation_ids(),
        "correlation_ids": ids_view(m.correlation_ids(), True),
    }


def action_view(action):
    timelines = action.timelines()
    out = {"timed_warp_samples": action.timed_warp_samples(), "metrics": {}}
    for name in action.metric_names():
        m = action[name]
        if m.num_instances() == 0:
            continue
        out["metrics"][name] = {
            "correlation_ids": ids_view(m.correlation_ids(), False),
            "aligned": aligned_view(timelines.aligned_metric(m)),
        }
    return out


def main():
    context = ncu_report.load_report(sys.argv[1])
    ranges = []
    for r in range(context.num_ranges()):
        rng = context.range_by_idx(r)
        ranges.append([action_view(rng.action_by_idx(a)) for a in range(rng.num_actions())])
    json.dump(ranges, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
