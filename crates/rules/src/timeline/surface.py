# The plain-Python part of the `timeline` module (see module.rs for the rest).


class Skipped(Exception):
    """Raised by a rule when the export lacks what it needs; the message says what (as
    `nsys analyze` prints it after `SKIPPED: `)."""


class Result:
    """What a rule found: a table (column names and rows of int, str or None) and, per row,
    what it points at on the timeline.

    `events` is an EventSet (one event per row) or a list of `(table, rowid)` per row;
    `ranges` a list of `(start, end)` per row (for gaps and chunks). Either may be None."""

    def __init__(self, columns, rows, events=None, ranges=None):
        self.columns = [str(c) for c in columns]
        self.rows = [tuple(r) for r in rows]
        for i, r in enumerate(self.rows):
            if len(r) != len(self.columns):
                raise ValueError(
                    "row %d has %d cells for %d columns" % (i, len(r), len(self.columns))
                )
        if events is not None and not isinstance(events, (list, tuple)):
            events = events.refs()
        self.events = None if events is None else [tuple(e) for e in events]
        self.ranges = None if ranges is None else [tuple(r) for r in ranges]


def window(events, options):
    """The events in the options' window, as nsys analyze's rules take it: `start` and `end`
    (ns: events that end at or after `start` and start before `end`), `process` and `thread`
    (ids). Options that are missing or None do not filter."""
    start = options.get("start")
    end = options.get("end")
    if start is not None:
        events = events.where("end", ">=", int(start))
    if end is not None:
        events = events.where("start", "<", int(end))
    process = options.get("process")
    if process is not None:
        events = events.where("pid", "==", int(process))
    thread = options.get("thread")
    if thread is not None:
        events = events.where("tid", "==", int(thread))
    return events


def format_rows(events, columns, megabytes=(), blank_zero=()):
    """The events' rows of `columns` as nsys prints them: the columns named in `megabytes` as
    MB (10^6 bytes) with three decimals, those in `blank_zero` empty when 0 or missing."""
    rows = []
    for row in events.rows(*columns):
        row = list(row)
        for i, column in enumerate(columns):
            if column in megabytes:
                row[i] = fixed(row[i] or 0, 1000000, 3)
            elif column in blank_zero and not row[i]:
                row[i] = None
        rows.append(row)
    return rows
