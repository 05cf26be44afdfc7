"""Checks ``sightline.nsys`` against SQLite and nsys: every table of every export given, as a
``pyarrow.Table``, equals the rows Python's ``sqlite3`` reads (column names, order, values and
their Python types; text decoded with U+FFFD for invalid bytes, as Sightline decodes it); and
every ``nsys stats`` report the oracle folder holds a CSV of equals that CSV (numbers compared
as numbers, text exactly, an empty cell as null).

Usage: arrow_check.py EXPORT ORACLE_DIR [EXPORT ORACLE_DIR ...]
Prints one line per difference (at most 5 per table), then a count line, then ``ok`` when
there is none.
"""

import csv
import os
import sqlite3
import sys
import warnings

import sightline.nsys


def sqlite_rows(path, table):
    conn = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    conn.text_factory = lambda b: b.decode("utf-8", "replace")
    try:
        cur = conn.execute('SELECT * FROM "%s"' % table.replace('"', '""'))
        names = [d[0] for d in cur.description]
        return names, cur.fetchall()
    finally:
        conn.close()


def check_tables(path, problems, counts):
    export = sightline.nsys.open(path)
    for name in export.table_names():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table = export.table(name)
        names, rows = sqlite_rows(path, name)
        counts["tables"] += 1
        counts["rows"] += len(rows)
        if table.column_names != names:
            problems.append("%s %s: columns %s, sqlite3 %s" % (path, name, table.column_names, names))
            continue
        ours = [tuple(r.values()) for r in table.to_pylist()]
        if len(ours) != len(rows):
            problems.append("%s %s: %d rows, sqlite3 %d" % (path, name, len(ours), len(rows)))
            continue
        shown = 0
        for i, (a, b) in enumerate(zip(ours, rows)):
            same = all(x == y and type(x) is type(y) for x, y in zip(a, b))
            if not same and shown < 5:
                problems.append("%s %s row %d: %r, sqlite3 %r" % (path, name, i, a, b))
                shown += 1
        counts["values"] += len(rows) * len(names)


def same_cell(value, cell):
    if value is None:
        return cell == ""
    if isinstance(value, str):
        return value == cell
    try:
        return float(cell) == float(value)
    except ValueError:
        return False


def check_stats(path, oracle, problems, counts):
    export = sightline.nsys.open(path)
    for file in sorted(os.listdir(oracle)):
        if not file.endswith(".csv") or "@" in file:
            continue
        report = file[: -len(".csv")]
        with open(os.path.join(oracle, file), newline="", encoding="utf-8") as f:
            expected = list(csv.reader(f))
        if not expected:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table = export.stats(report)
        if table is None:
            problems.append("%s %s: skipped, nsys has a table" % (path, report))
            continue
        counts["reports"] += 1
        if table.column_names != expected[0]:
            problems.append("%s %s: columns %s, nsys %s" % (path, report, table.column_names, expected[0]))
            continue
        ours = [list(r.values()) for r in table.to_pylist()]
        if len(ours) != len(expected) - 1:
            problems.append("%s %s: %d rows, nsys %d" % (path, report, len(ours), len(expected) - 1))
            continue
        shown = 0
        for i, (a, b) in enumerate(zip(ours, expected[1:])):
            if not all(same_cell(x, y) for x, y in zip(a, b)) and shown < 5:
                problems.append("%s %s row %d: %r, nsys %r" % (path, report, i, a, b))
                shown += 1
        counts["cells"] += len(ours) * len(expected[0])


def main():
    problems = []
    counts = {"tables": 0, "rows": 0, "values": 0, "reports": 0, "cells": 0}
    args = sys.argv[1:]
    for path, oracle in zip(args[::2], args[1::2]):
        check_tables(path, problems, counts)
        if os.path.isdir(oracle):
            check_stats(path, oracle, problems, counts)
    for p in problems:
        print(p)
    print(" ".join("%s=%d" % kv for kv in counts.items()))
    if not problems:
        print("ok")


if __name__ == "__main__":
    main()
