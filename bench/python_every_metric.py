"""Reads every metric of every result of a report through the Python Report Interface
(``ncu_report``: whichever module is first on ``sys.path``) and prints how many values it read
and a digest of them, so that two modules' runs can be compared.

Usage: python_every_metric.py REPORT
"""

import hashlib
import sys

import ncu_report


def main():
    digest = hashlib.sha256()
    values = 0
    context = ncu_report.load_report(sys.argv[1])
    for r in range(context.num_ranges()):
        rng = context.range_by_idx(r)
        for a in range(rng.num_actions()):
            action = rng.action_by_idx(a)
            for name in action.metric_names():
                metric = action.metric_by_name(name)
                digest.update(repr((name, metric.kind(), metric.value())).encode())
                values += 1
                for i in range(metric.num_instances()):
                    digest.update(repr(metric.value(i)).encode())
                    values += 1
    print(values, digest.hexdigest())


if __name__ == "__main__":
    main()
