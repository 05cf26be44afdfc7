"""Sightline's own probe of NVIDIA's report reader (the `ncu_report` module) for the Source
page tests: reads `ACTION PC` lines (decimal) on stdin and prints, per line, tab-separated:
ACTION, PC, file name, line, PTX text, SASS text (empty fields when the reader has none;
tabs and newlines inside texts are escaped as \\t and \\n).

Usage: python source_pcs.py REPORT [--sass] < pcs.txt   (without --sass the SASS field is empty:
NVIDIA's reader disassembles the whole module on each call)
"""
import sys

import ncu_report


def esc(text):
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def main():
    context = ncu_report.load_report(sys.argv[1])
    actions = context.range_by_idx(0)
    out = sys.stdout
    sass = "--sass" in sys.argv[2:]
    for raw in sys.stdin:
        parts = raw.split()
        if len(parts) != 2:
            continue
        index, pc = int(parts[0]), int(parts[1])
        action = actions.action_by_idx(index)
        info = action.source_info(pc)
        name, line = ("", "") if info is None else (info.file_name(), str(info.line()))
        out.write("\t".join([str(index), str(pc), esc(name), line,
                             esc(action.ptx_by_pc(pc)), esc(action.sass_by_pc(pc)) if sass else ""]) + "\n")


if __name__ == "__main__":
    main()
