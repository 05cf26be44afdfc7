"""Reads every metric of every result of a report through the Python Report Interface
(``ncu_report``: whichever module is first on ``sys.path``), every instance value included, as
a script that uses the values would: each value is kept (in a list), nothing else is done per
value. Prints how many values it read and a checksum of them (``hash`` of the tuple of values:
run with ``PYTHONHASHSEED=0`` for a checksum that two processes can compare).

Usage: PYTHONHASHSEED=0 python_read_metrics.py REPORT
"""

import sys

import ncu_report


def main():
    values = []
    keep = values.append
    context = ncu_report.load_report(sys.argv[1])
    for r in range(context.num_ranges()):
        rng = context.range_by_idx(r)
        for a in range(rng.num_actions()):
            action = rng.action_by_idx(a)
            for name in action.metric_names():
                metric = action.metric_by_name(name)
                keep(metric.value())
                for i in range(metric.num_instances()):
                    keep(metric.value(i))
    print(len(values), hash(tuple(values)))


if __name__ == "__main__":
    main()
