"""Held-out script: a CI gate over a report. Exits 1 when a kernel breaks a threshold.

Written only from the Nsight Compute documentation (Python Report Interface) and the module's
docstrings. Usage: ci_gate.py REPORT
"""

import sys

import ncu_report

MAX_DURATION_NS = 300000
MIN_OCCUPANCY_PCT = 50.0
MAX_SPEEDUP_PCT = 40.0


def check(action):
    problems = []
    duration = action["gpu__time_duration.sum"]
    if duration.as_uint64() > MAX_DURATION_NS:
        problems.append(f"duration {duration.as_uint64()} {duration.unit()} > {MAX_DURATION_NS}")
    occupancy = action.metric_by_name("sm__warps_active.avg.pct_of_peak_sustained_active")
    if occupancy is not None and occupancy.as_double() < MIN_OCCUPANCY_PCT:
        problems.append(f"achieved occupancy {occupancy.as_double():.1f} % < {MIN_OCCUPANCY_PCT}")
    for result in action.rule_results():
        if not result.has_speedup_estimation():
            continue
        estimate = result.speedup_estimation()
        if estimate["speedup"] > MAX_SPEEDUP_PCT:
            problems.append(
                f"rule {result.rule_identifier()} estimates {estimate['speedup']:.2f} % "
                f"({estimate['type']})"
            )
    for data in action.rule_results_as_dicts():
        message = data["rule_message"]
        if message["type"] == ncu_report.MsgType.ERROR:
            problems.append(f"rule {data['rule_identifier']} reports an error: {message['title']}")
    return problems


def main(path):
    failed = 0
    context = ncu_report.load_report(path)
    for r, current in enumerate(context):
        for a, action in enumerate(current):
            problems = check(action)
            status = "FAIL" if problems else "PASS"
            print(f"{status} {r}/{a} {action.name()}")
            for p in problems:
                print(f"    {p}")
            failed += bool(problems)
    print(f"{failed} kernel(s) failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main(sys.argv[1])
