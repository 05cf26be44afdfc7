"""Nsight Systems exports as Apache Arrow tables.

``sightline.nsys.open(path)`` opens an export (``.sqlite``), a report (``.nsys-rep``,
``.qdrep``: exported first with the ``nsys`` on the PATH, or the one given) or another timeline
Sightline reads (NVTXT, CodeXL ``.atp``, Perfetto, Chrome JSON: events only). Its tables come
out as ``pyarrow.Table`` objects, handed over through the Arrow C stream interface (no Python
object per value): ``.to_pandas()``, ``polars.from_arrow()`` and DuckDB work on them.

    >>> import sightline.nsys
    >>> export = sightline.nsys.open("run.sqlite")
    >>> export.table("CUPTI_ACTIVITY_KIND_KERNEL").to_pandas()
    >>> export.stats("cuda_gpu_kern_sum")
    >>> export.events().filter(...)

Tables keep SQLite's declared types: INTEGER columns are ``int64``, REAL ``double``, TEXT
``string``, BLOB ``binary``; NULL is null. ``sightline export FILE --format parquet -o DIR``
writes the same tables as Parquet files.
"""

import builtins
import warnings as _warnings

from sightline import _native

__all__ = ["Export", "open"]


def _pyarrow():
    try:
        import pyarrow
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(
            "sightline.nsys returns Apache Arrow tables: install pyarrow (pip install pyarrow)"
        ) from e
    return pyarrow


def _to_table(native):
    """A ``pyarrow.Table`` from a native table (its C stream capsule)."""
    pa = _pyarrow()
    for line in native.warnings:
        _warnings.warn(line, UserWarning, stacklevel=3)
    capsule = native.__arrow_c_stream__()
    reader = pa.RecordBatchReader._import_from_c_capsule(capsule)
    return reader.read_all()


class Export:
    """An opened timeline file: its SQLite tables, timeline events, counter samples and
    ``nsys stats`` reports as ``pyarrow.Table`` objects. Safe to use from threads."""

    def __init__(self, native):
        self._native = native

    @property
    def path(self):
        """The file opened."""
        return self._native.path

    @property
    def export_path(self):
        """The SQLite export read (for a report, its export in Sightline's cache)."""
        return self._native.export_path

    @property
    def warnings(self):
        """What opening found damaged, one line each."""
        return self._native.warnings

    def table_names(self):
        """The export's tables, sorted (empty for a timeline without SQLite tables)."""
        return self._native.table_names()

    def table(self, name):
        """Table ``name`` as a ``pyarrow.Table`` (``KeyError`` when there is none). Rows lost
        to damaged pages are left out, with a ``UserWarning``."""
        return _to_table(self._native.table(name))

    def tables(self):
        """Every table, by name (read now: for big exports, prefer ``table(name)``)."""
        return {name: self.table(name) for name in self.table_names()}

    def events(self):
        """Every event of the timeline as Sightline reads it: ``id``, ``track`` (its path),
        ``row``, ``kind``, ``name``, ``start``, ``end``, ``duration`` (ns), ``correlation_id``,
        ``source_row``, ``color``, ``category``, ``payload_int``/``payload_double``/
        ``payload_text`` and ``queued``."""
        return _to_table(self._native.events())

    def counters(self):
        """Every counter sample (GPU metrics, CPU frequency, PMU...): ``track``, ``time`` (ns),
        ``value``."""
        return _to_table(self._native.counters())

    @staticmethod
    def stats_reports():
        """The names of the ``nsys stats`` reports."""
        return _native._NsysExport.stats_reports()

    def stats(self, report):
        """Report ``report`` (``name[:option[=value]]...``, as ``nsys stats --report`` takes it)
        as a ``pyarrow.Table``: numbers as ``int64``/``double``, text as ``string``, the
        columns named as nsys names them. ``None``, with a ``UserWarning`` giving nsys's
        reason, when the export lacks the report's data."""
        outcome = self._native.stats(report)
        if isinstance(outcome, str):
            _warnings.warn("SKIPPED: " + outcome, UserWarning, stacklevel=2)
            return None
        return _to_table(outcome)

    def __contains__(self, name):
        return name in self.table_names()

    def __getitem__(self, name):
        return self.table(name)

    def __iter__(self):
        return iter(self.table_names())

    def __len__(self):
        return len(self.table_names())

    def __repr__(self):
        return "<sightline.nsys.Export %s>" % (self.path,)

    def __reduce__(self):
        return (open, (builtins.str(self.path),))


def open(path, nsys=None):  # noqa: A001 - the module's verb, as io.open
    """Opens a timeline file (see the module's help) and returns its ``Export``."""
    return Export(_native.open_nsys(path, nsys))
