"""Held-out script: per-line hot spots from a source-correlated metric, with SASS and PTX.

Written only from the Nsight Compute documentation (Python Report Interface, Source Counters)
and the module's docstrings. Usage: source_view.py REPORT [--sass]
(--sass also prints `sass_by_pc`, which needs NVIDIA's disassembler with Sightline.)
"""

import sys
from collections import defaultdict

import ncu_report


def hot_spots(action, metric, with_sass):
    ids = metric.correlation_ids()
    if ids is None:
        print(f"  {metric.name()}: no correlation ids")
        return
    per_line = defaultdict(int)
    for i in range(metric.num_instances()):
        pc = ids.as_uint64(i)
        info = action.source_info(pc)
        where = f"{info.file_name()}:{info.line()}" if info is not None else "<none>"
        per_line[where] += metric.as_uint64(i)
        ptx = action.ptx_by_pc(pc)
        line = f"  {pc:#x} {where} value={metric.as_uint64(i)} ptx={ptx!r}"
        if with_sass:
            line += f" sass={action.sass_by_pc(pc)!r}"
        print(line)
    for where, total in sorted(per_line.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  line {where}: {total}")


def main(path, with_sass):
    report = ncu_report.load_report(path)
    for current in report:
        for a, action in enumerate(current):
            print(f"[{a}] {action.name()}")
            files = action.source_files()
            for name in sorted(files):
                text = files[name]
                print(f"  file {name!r}: {len(text)} chars, {text.count(chr(10))} newlines")
            print(f"  markers: {len(action.source_markers())}")
            print(f"  source_info(0): {action.source_info(0)}")
            print(f"  ptx_by_pc(0): {action.ptx_by_pc(0)!r}")
            for name in sorted(action.metric_names()):
                metric = action[name]
                if metric.has_correlation_ids() and metric.num_instances() > 0:
                    hot_spots(action, metric, with_sass)


if __name__ == "__main__":
    main(sys.argv[1], "--sass" in sys.argv[2:])
