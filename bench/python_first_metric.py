"""Opens a report through the Python Report Interface and reads the first metric of its first
result: the time to a first answer on a big report (the file is indexed, not decoded). Prints
the seconds to the value and the process's peak resident memory after it.

Usage: python_first_metric.py REPORT
"""

import resource
import sys
import time

import ncu_report


def main():
    started = time.perf_counter()
    context = ncu_report.load_report(sys.argv[1])
    action = context.range_by_idx(0).action_by_idx(0)
    name = action.metric_names()[0]
    value = action.metric_by_name(name).value()
    elapsed = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print("%.3f s to %s = %r, peak RSS %.0f MB" % (elapsed, name, value, peak_mb))


if __name__ == "__main__":
    main()
