"""Prints the sections and rule results of every result of a report as JSON, through the
Python Report Interface alone (``IAction.sections()``, ``ISection``, ``IAction.rule_results()``,
``IRuleResult``, ``IAction.rule_results_as_dicts()``).

Run with Sightline's module or NVIDIA's on ``sys.path``: both must print the same.
Usage: sections_dump.py REPORT
"""

import json
import sys

import ncu_report


def metric_names(metrics):
    return [m.name() for m in metrics]


def section_json(section):
    return {
        "identifier": section.identifier(),
        "name": section.name(),
        "order": section.order(),
        "parent_identifier": section.parent_identifier(),
        "description": section.description(),
        "header_metrics": metric_names(section.header_metrics()),
        "body_metrics": metric_names(section.body_metrics()),
        "rules": [r.rule_identifier() for r in section.rules()],
    }


def rule_json(rule):
    return {
        "rule_identifier": rule.rule_identifier(),
        "name": rule.name(),
        "section_identifier": rule.section_identifier(),
        "has_rule_message": rule.has_rule_message(),
        "rule_message": rule.rule_message(),
        "has_speedup_estimation": rule.has_speedup_estimation(),
        "speedup_estimation": rule.speedup_estimation(),
        "focus_metrics": rule.focus_metrics(),
        "result_tables": rule.result_tables(),
    }


def action_json(action):
    return {
        "sections": [section_json(s) for s in action.sections()],
        "rule_results": [rule_json(r) for r in action.rule_results()],
        "rule_results_as_dicts": action.rule_results_as_dicts(),
    }


def main():
    context = ncu_report.load_report(sys.argv[1])
    actions = []
    for r in range(context.num_ranges()):
        rng = context.range_by_idx(r)
        actions.extend(action_json(rng.action_by_idx(a)) for a in range(rng.num_actions()))
    json.dump({"actions": actions}, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
