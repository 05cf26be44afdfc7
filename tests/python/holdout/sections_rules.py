"""Held-out script: a text report of the sections and rule results of every kernel.

Written only from the Nsight Compute documentation and the module's docstrings.
Usage: sections_rules.py REPORT
"""

import sys

import ncu_report


def values(metrics):
    out = []
    for m in metrics:
        v = m.value()
        if isinstance(v, float):
            v = f"{v:.2f}"
        out.append(f"{m.label() or m.name()}={v}{(' ' + m.unit()) if m.unit() else ''}")
    return ", ".join(out)


def main(path):
    report = ncu_report.load_report(path)
    for current in report:
        for a, action in enumerate(current):
            print(f"=== [{a}] {action.name()}")
            sections = sorted(action.sections(), key=lambda s: (s.order(), s.identifier()))
            for s in sections:
                parent = s.parent_identifier()
                print(f"--- {s.name()} ({s.identifier()}, order {s.order()}, parent {parent!r})")
                print(f"    {s.description()}")
                print(f"    header: {values(s.header_metrics())}")
                print(f"    body: {values(s.body_metrics())}")
                print(f"    rules: {[str(r) for r in s.rules()]}")
            for result in action.rule_results():
                print(f"rule {result.rule_identifier()} '{result.name()}' in {result.section_identifier()}")
                if result.has_rule_message():
                    m = result.rule_message()
                    # The docstring says a MsgType; NVIDIA's module gives its number.
                    print(f"  [{ncu_report.MsgType(m['type']).name}] {m['title']}: {m['message']}")
                if result.has_speedup_estimation():
                    e = result.speedup_estimation()
                    print(f"  speedup {ncu_report.SpeedupType(e['type']).name} {e['speedup']:.3f}")
                for f in result.focus_metrics():
                    severity = ncu_report.FocusSeverity(f["severity"]).name
                    print(f"  focus {f['name']}={f['value']:.3f} {severity} {f['info']!r}")
                for t in result.result_tables():
                    print(f"  table {t['title']!r}: {t['headers']} {len(t['data'])} rows")
            dicts = action.rule_results_as_dicts()
            print(f"as dicts: {len(dicts)}: {[d['rule_identifier'] for d in dicts]}")
            for d in dicts:
                # The docstring lists every key; both modules leave out empty focus metrics.
                print(f"  {d['name']}: {sorted(d)} focus={len(d.get('focus_metrics', []))}")


if __name__ == "__main__":
    main(sys.argv[1])
