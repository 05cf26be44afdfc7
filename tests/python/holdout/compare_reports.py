"""Held-out script: compares two reports kernel by kernel (a baseline and a new run).

Written only from the Nsight Compute documentation (Python Report Interface) and the module's
docstrings. Usage: compare_reports.py BASELINE CURRENT
"""

import sys

import ncu_report

WATCHED = [
    "gpu__time_duration.sum",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__bytes_read.sum",
    "smsp__inst_executed.sum",
]


def kernels(path):
    """Maps "name #n" (n-th launch of that name) to the action."""
    found = {}
    seen = {}
    for current in ncu_report.load_report(path):
        for action in current:
            name = action.name()
            seen[name] = seen.get(name, 0) + 1
            found[f"{name} #{seen[name]}"] = action
    return found


def main(base_path, new_path):
    base = kernels(base_path)
    new = kernels(new_path)
    for key in sorted(set(base) | set(new)):
        if key not in base:
            print(f"{key}: only in current")
            continue
        if key not in new:
            print(f"{key}: only in baseline")
            continue
        a, b = base[key], new[key]
        for name in WATCHED:
            if name not in a.metric_names() or name not in b.metric_names():
                print(f"{key}: {name}: missing")
                continue
            x, y = a[name].as_double(), b[name].as_double()
            change = (y - x) / x * 100.0 if x else float("nan")
            print(f"{key}: {name}: {x:.4g} -> {y:.4g} ({change:+.2f} %) [{a[name].unit()}]")
        only_a = sorted(set(a.metric_names()) - set(b.metric_names()))
        only_b = sorted(set(b.metric_names()) - set(a.metric_names()))
        print(f"{key}: metrics only in baseline: {only_a}")
        print(f"{key}: metrics only in current: {only_b}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
