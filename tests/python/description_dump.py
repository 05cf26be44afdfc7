"""Prints the description of every metric of every result of a report as JSON (one object per
result: metric name to ``IMetric.description()``), through the Python Report Interface alone.

Run with Sightline's module or NVIDIA's on ``sys.path``. NVIDIA's answers from its metric
library; Sightline's from the user's own Nsight Compute (``ncu``), or "" without it.
Usage: description_dump.py REPORT
"""

import json
import sys

import ncu_report

report = ncu_report.load_report(sys.argv[1])
actions = []
for current in report:
    for action in current:
        actions.append({name: action[name].description() for name in action.metric_names()})
json.dump({"actions": actions}, sys.stdout, indent=1, sort_keys=True)
