"""Held-out script: a per-kernel table, as a user would print one.

Written only from the Nsight Compute documentation (Python Report Interface) and the module's
docstrings. Usage: kernel_table.py REPORT
"""

import sys

import ncu_report

COLUMNS = [
    ("gpu__time_duration.sum", "Duration"),
    ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "SM %"),
    ("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "Mem %"),
    ("launch__registers_per_thread", "Regs"),
    ("launch__block_size", "Block"),
    ("launch__grid_size", "Grid"),
]


def cell(action, name):
    metric = action.metric_by_name(name)
    if metric is None:
        return "-"
    value = metric.value()
    if isinstance(value, float):
        text = f"{value:.3f}"
    else:
        text = str(value)
    unit = metric.unit()
    return f"{text} {unit}".strip()


def main(path):
    report = ncu_report.load_report(path)
    print(f"ranges: {report.num_ranges()}")
    for range_idx in range(report.num_ranges()):
        current = report.range_by_idx(range_idx)
        print(f"range {range_idx}: {current.num_actions()} actions")
        header = ["#", "Kernel"] + [label for _, label in COLUMNS]
        print(" | ".join(header))
        for idx in range(current.num_actions()):
            action = current.action_by_idx(idx)
            row = [str(idx), action.name()] + [cell(action, n) for n, _ in COLUMNS]
            print(" | ".join(row))
        for idx in range(current.num_actions()):
            action = current.action_by_idx(idx)
            print(f"[{idx}] str: {action}")
            print(f"[{idx}] function: {action.name(ncu_report.IAction.NameBase_FUNCTION)}")
            print(f"[{idx}] demangled: {action.name(ncu_report.IAction.NameBase_DEMANGLED)}")
            print(f"[{idx}] mangled: {action.name(ncu_report.IAction.NameBase_MANGLED)}")
            print(f"[{idx}] workload type: {action.workload_type()}")
            print(f"[{idx}] metrics: {len(action)}")
            device = action.metric_by_name("device__attribute_display_name")
            if device is not None:
                print(f"[{idx}] device: {device.as_string()} (as_double {device.as_double()})")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(f"usage: {sys.argv[0]} report_file", file=sys.stderr)
        sys.exit(1)
    main(sys.argv[1])
