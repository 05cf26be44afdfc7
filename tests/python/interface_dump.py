"""Prints a report as JSON through the Python Report Interface alone (``ncu_report``'s
documented calls), in the shape of the corpus goldens: per result its names, workload type,
every metric (kind, value, instances, correlation ids, unit) and NVTX state.

Run with Sightline's module or NVIDIA's on ``sys.path``: both must print the same.
Usage: interface_dump.py REPORT
"""

import json
import sys

import ncu_report

KINDS = {
    ncu_report.IMetric.ValueKind_UNKNOWN: "UNKNOWN",
    ncu_report.IMetric.ValueKind_STRING: "STRING",
    ncu_report.IMetric.ValueKind_FLOAT: "FLOAT",
    ncu_report.IMetric.ValueKind_DOUBLE: "DOUBLE",
    ncu_report.IMetric.ValueKind_UINT32: "UINT32",
    ncu_report.IMetric.ValueKind_UINT64: "UINT64",
}


def metric(m):
    out = {"kind": KINDS.get(m.kind(), str(m.kind())), "unit": m.unit(), "value": m.value()}
    if m.num_instances() > 0:
        out["instances"] = [m.value(i) for i in range(m.num_instances())]
    if m.has_correlation_ids():
        ids = m.correlation_ids()
        out["correlation_ids"] = [ids.value(i) for i in range(ids.num_instances())]
    return out


def nvtx(action):
    state = action.nvtx_state()
    if state is None:
        return {}
    out = {}
    for domain_id in state.domains():
        domain = state.domain_by_id(domain_id)
        out[str(domain_id)] = {
            "name": domain.name(),
            "push_pop": list(domain.push_pop_ranges()),
            "start_end": list(domain.start_end_ranges()),
        }
    return out


def action_json(action):
    return {
        "name": action.name(),
        "demangled": action.name(ncu_report.IAction.NameBase_DEMANGLED),
        "mangled": action.name(ncu_report.IAction.NameBase_MANGLED),
        "workload_type": action.workload_type(),
        "metrics": {name: metric(action[name]) for name in action.metric_names()},
        "nvtx": nvtx(action),
    }


def main():
    context = ncu_report.load_report(sys.argv[1])
    ranges = []
    for r in range(context.num_ranges()):
        rng = context.range_by_idx(r)
        ranges.append({"actions": [action_json(rng.action_by_idx(a)) for a in range(rng.num_actions())]})
    json.dump({"ranges": ranges}, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
