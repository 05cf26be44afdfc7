"""Prints the source view of every result of a report as JSON, through the Python Report
Interface alone: ``IAction.source_files()``, ``source_markers()``, and for the addresses the
result's metrics correlate with (their correlation ids, at most ``--max-pcs`` of them, spread
evenly, plus one before the first and one after the last) ``source_info(pc)`` and
``ptx_by_pc(pc)``; with ``--sass``, ``sass_by_pc(pc)`` too (for at most ``--max-sass`` of them).

Run with Sightline's module or NVIDIA's on ``sys.path``: both must print the same.
Usage: source_dump.py REPORT [--sass] [--max-pcs N] [--max-sass N]
"""

import argparse
import json
import sys

import ncu_report


def addresses(action, limit):
    """The correlation ids of the result's metrics (the addresses its source metrics name)."""
    pcs = set()
    for name in action.metric_names():
        metric = action[name]
        if metric.has_correlation_ids():
            ids = metric.correlation_ids()
            for i in range(ids.num_instances()):
                value = ids.value(i)
                if isinstance(value, int):
                    pcs.add(value)
    pcs = sorted(pcs)
    if len(pcs) > limit:
        step = len(pcs) / limit
        pcs = [pcs[int(i * step)] for i in range(limit)]
    if pcs:
        pcs = [max(pcs[0] - 16, 0)] + pcs + [pcs[-1] + 16]
    return pcs


def pc_json(action, pc, sass):
    info = action.source_info(pc)
    out = {
        "pc": pc,
        "source_info": None if info is None else [info.file_name(), info.line()],
        "ptx": action.ptx_by_pc(pc),
    }
    if sass:
        out["sass"] = action.sass_by_pc(pc)
    return out


def action_json(action, args):
    pcs = addresses(action, args.max_pcs)
    return {
        "source_files": {name: text for name, text in action.source_files().items()},
        "source_markers": list(action.source_markers()),
        "pcs": [pc_json(action, pc, args.sass and i < args.max_sass) for i, pc in enumerate(pcs)],
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("report")
    parser.add_argument("--sass", action="store_true")
    parser.add_argument("--max-pcs", type=int, default=64)
    parser.add_argument("--max-sass", type=int, default=8)
    args = parser.parse_args()
    context = ncu_report.load_report(args.report)
    actions = []
    for r in range(context.num_ranges()):
        rng = context.range_by_idx(r)
        actions.extend(action_json(rng.action_by_idx(a), args) for a in range(rng.num_actions()))
    json.dump({"actions": actions}, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
