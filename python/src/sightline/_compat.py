"""The rest of the names ``dir(ncu_report)`` shows on NVIDIA's module: its C++ containers
(``vector_*``, ``set_*``, ``map_string_string`` and their ``SwigPyIterator``), the rule
system's value types (``RuleResult*``, ``SourceMarker``, ``Table*``, ``TimedWarpSample``) and
its interfaces (``IFrontend``, ``IController``, ``IEvaluator``, ``IBackend``,
``IMessageVault``), and the ``Path`` class it re-exports.

They behave as NVIDIA's do from Python: a container is a sequence (``len``, indexing,
iteration, ``==``) with the C++ methods (``push_back``, ``size``, ``front``...); a set
iterates in order, a map by its sorted keys; a value type is made with no arguments and has
its fields as attributes, at NVIDIA's defaults. The rule system's interfaces exist only inside
a rule engine: as in NVIDIA's module, making one raises ``RuntimeError``.
"""

import bisect
from pathlib import Path  # noqa: F401  (NVIDIA's module exposes pathlib's Path)


class SwigPyIterator:
    """A C++ iterator over a container: ``value()`` the element at the position,
    ``incr``/``decr``/``advance`` move it, ``next``/``previous`` move and return."""

    def __init__(self, *args):
        raise AttributeError("No constructor defined - class is abstract")

    @classmethod
    def _at(cls, items, position, step=1):
        it = object.__new__(cls)
        it._items, it._pos, it._step = items, position, step
        return it

    def value(self):
        if not 0 <= self._pos < len(self._items):
            raise StopIteration
        return self._items[self._pos]

    def incr(self, n=1):
        self._pos += n * self._step
        return self

    def decr(self, n=1):
        self._pos -= n * self._step
        return self

    def advance(self, n):
        return self.incr(n)

    def distance(self, other):
        return (other._pos - self._pos) * self._step

    def equal(self, other):
        return self._items is other._items and self._pos == other._pos

    def copy(self):
        return SwigPyIterator._at(self._items, self._pos, self._step)

    def next(self):
        value = self.value()
        self.incr()
        return value

    __next__ = next

    def previous(self):
        self.decr()
        return self.value()

    def __iter__(self):
        return self

    def __eq__(self, other):
        return isinstance(other, SwigPyIterator) and self.equal(other)

    def __ne__(self, other):
        return not self == other

    def __add__(self, n):
        return self.copy().incr(n)

    def __sub__(self, other):
        if isinstance(other, SwigPyIterator):
            return other.distance(self)
        return self.copy().decr(other)

    __hash__ = None


class _Container:
    """What NVIDIA's vectors and sets share: their elements in ``_items``, in order."""

    _items = ()

    def __len__(self):
        return len(self._items)

    def __bool__(self):
        return bool(self._items)

    __nonzero__ = __bool__

    def size(self):
        return len(self._items)

    def empty(self):
        return not self._items

    def clear(self):
        self._items.clear()

    def swap(self, other):
        self._items, other._items = other._items, self._items

    def begin(self):
        return SwigPyIterator._at(self._items, 0)

    def end(self):
        return SwigPyIterator._at(self._items, len(self._items))

    def rbegin(self):
        return SwigPyIterator._at(self._items, len(self._items) - 1, -1)

    def rend(self):
        return SwigPyIterator._at(self._items, -1, -1)

    def iterator(self):
        return self.begin()


class _Vector(_Container):
    """A ``std::vector`` as NVIDIA's module gives it to Python."""

    _convert = staticmethod(lambda value: value)
    #: The value a sized vector is filled with.
    _zero = None

    def __init__(self, *args):
        if len(args) == 1 and not isinstance(args[0], int):
            self._items = [self._convert(v) for v in args[0]]
        elif len(args) in (1, 2):
            fill = self._convert(args[1]) if len(args) == 2 else self._zero
            self._items = [fill] * args[0]
        elif not args:
            self._items = []
        else:
            raise TypeError("Wrong number or type of arguments for %s" % type(self).__name__)


    def __getitem__(self, index):
        if isinstance(index, slice):
            return type(self)(self._items[index])
        return self._items[index]

    def __setitem__(self, index, value):
        if isinstance(index, slice):
            self._items[index] = [self._convert(v) for v in value]
        else:
            self._items[index] = self._convert(value)

    def __delitem__(self, index):
        del self._items[index]

    def __iter__(self):
        return iter(list(self._items))

    def __reversed__(self):
        return reversed(list(self._items))

    def __contains__(self, value):
        return value in self._items

    def insert(self, position, value, *more):
        """Inserts before iterator ``position`` (``insert(position, count, value)``: ``count``
        copies), as ``std::vector::insert``."""
        if not isinstance(position, SwigPyIterator):
            raise TypeError("in method 'insert', argument 2 of type 'iterator'")
        index = position._pos
        if more:
            self._items[index:index] = [self._convert(more[0])] * value
        else:
            self._items.insert(index, self._convert(value))
        return SwigPyIterator._at(self._items, index)

    def append(self, value):
        self._items.append(self._convert(value))

    def __repr__(self):
        return "<ncu_report.%s %r>" % (type(self).__name__, self._items)


    def front(self):
        return self._items[0]

    def back(self):
        return self._items[-1]

    def push_back(self, value):
        self._items.append(self._convert(value))

    def pop_back(self):
        self._items.pop()

    def pop(self):
        if not self._items:
            raise IndexError("pop from empty container")
        return self._items.pop()

    def assign(self, count, value):
        self._items = [self._convert(value)] * count

    def resize(self, count, value=None):
        fill = self._zero if value is None else self._convert(value)
        del self._items[count:]
        self._items.extend([fill] * (count - len(self._items)))

    def reserve(self, count):
        if count < 0:
            raise ValueError("negative capacity")

    def capacity(self):
        return len(self._items)

    def erase(self, first, last=None):
        start = first._pos if isinstance(first, SwigPyIterator) else first
        if last is None:
            del self._items[start]
            return SwigPyIterator._at(self._items, start)
        stop = last._pos if isinstance(last, SwigPyIterator) else last
        del self._items[start:stop]
        return SwigPyIterator._at(self._items, start)

    def get_allocator(self):
        return None


def _typed(name, convert):
    def check(value):
        try:
            return convert(value)
        except (TypeError, ValueError):
            raise TypeError("in method '%s', wrong type of value %r" % (name, value)) from None

    return check


def _integer(low, high):
    def convert(value):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(value)
        if not low <= value <= high:
            raise ValueError(value)
        return value

    return convert


def _real(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(value)
    return float(value)


def _string(value):
    if not isinstance(value, str):
        raise TypeError(value)
    return value


def _vector(name, convert=None, zero=None):
    namespace = {"__doc__": "A ``std::vector`` of NVIDIA's module.", "_zero": zero}
    if convert is not None:
        namespace["_convert"] = staticmethod(_typed(name, convert))
    return type(name, (_Vector,), namespace)


_ULL = _integer(0, 2**64 - 1)
_LONGLONG = _integer(-(2**63), 2**63 - 1)

vector_double = _vector("vector_double", _real, 0.0)
vector_longlong = _vector("vector_longlong", _LONGLONG, 0)
vector_ull = _vector("vector_ull", _ULL, 0)
vector_string = _vector("vector_string", _string, "")
vector_imetric = _vector("vector_imetric")
vector_iruleresult = _vector("vector_iruleresult")
vector_isection = _vector("vector_isection")
vector_focus_metric = _vector("vector_focus_metric")
vector_rule_result_table = _vector("vector_rule_result_table")
vector_rule_result_table_columns = _vector("vector_rule_result_table_columns")
vector_source_marker = _vector("vector_source_marker")
vector_warp_timed_sample = _vector("vector_warp_timed_sample")


class _Set(_Container):
    """A ``std::set``: unique elements, iterated in order."""

    _convert = staticmethod(lambda value: value)

    def __init__(self, items=()):
        self._items = sorted({self._convert(v) for v in items})


    def __iter__(self):
        return iter(list(self._items))

    def __contains__(self, value):
        i = bisect.bisect_left(self._items, value)
        return i < len(self._items) and self._items[i] == value

    def __repr__(self):
        return "<ncu_report.%s %r>" % (type(self).__name__, self._items)


    def add(self, value):
        value = self._convert(value)
        if value not in self:
            bisect.insort(self._items, value)

    append = add
    insert = add

    def discard(self, value):
        if value in self:
            self._items.remove(value)

    def erase(self, value):
        if isinstance(value, SwigPyIterator):
            value = value.value()
        if value in self:
            self._items.remove(value)
            return 1
        return 0

    def count(self, value):
        return int(value in self)

    def find(self, value):
        i = bisect.bisect_left(self._items, value)
        if i < len(self._items) and self._items[i] == value:
            return SwigPyIterator._at(self._items, i)
        return self.end()

    def lower_bound(self, value):
        return SwigPyIterator._at(self._items, bisect.bisect_left(self._items, value))

    def upper_bound(self, value):
        return SwigPyIterator._at(self._items, bisect.bisect_right(self._items, value))

    def equal_range(self, value):
        return self.lower_bound(value), self.upper_bound(value)


set_string = type("set_string", (_Set,), {"_convert": staticmethod(_typed("set_string", _string))})
set_ull = type("set_ull", (_Set,), {"_convert": staticmethod(_typed("set_ull", _ULL))})


class map_string_string:
    """A ``std::map<std::string, std::string>``: iterated by its sorted keys."""

    def __init__(self, items=()):
        self._items = {}
        for key, value in dict(items).items():
            self[key] = value

    def __getitem__(self, key):
        return self._items[key]

    def __setitem__(self, key, value):
        self._items[_typed("map_string_string", _string)(key)] = _typed(
            "map_string_string", _string
        )(value)

    def __delitem__(self, key):
        del self._items[key]

    def __iter__(self):
        return iter(sorted(self._items))

    def __len__(self):
        return len(self._items)

    def __contains__(self, key):
        return key in self._items

    def __repr__(self):
        return "<ncu_report.map_string_string %r>" % dict(self.items())

    def clear(self):
        self._items.clear()

    def __bool__(self):
        return bool(self._items)

    __nonzero__ = __bool__

    def keys(self):
        return sorted(self._items)

    def values(self):
        return [self._items[k] for k in self.keys()]

    def items(self):
        return [(k, self._items[k]) for k in self.keys()]

    def asdict(self):
        return dict(self.items())

    def has_key(self, key):
        return key in self._items

    def iterkeys(self):
        return iter(self.keys())

    def itervalues(self):
        return iter(self.values())

    def iteritems(self):
        return iter(self.items())

    def key_iterator(self):
        return SwigPyIterator._at(self.keys(), 0)

    def value_iterator(self):
        return SwigPyIterator._at(self.values(), 0)

    def count(self, key):
        return int(key in self._items)

    def erase(self, key):
        return int(self._items.pop(key, None) is not None)

    def find(self, key):
        keys = self.keys()
        return SwigPyIterator._at(keys, keys.index(key) if key in self._items else len(keys))

    def lower_bound(self, key):
        keys = self.keys()
        return SwigPyIterator._at(keys, bisect.bisect_left(keys, key))

    def upper_bound(self, key):
        keys = self.keys()
        return SwigPyIterator._at(keys, bisect.bisect_right(keys, key))

    def size(self):
        return len(self._items)

    def empty(self):
        return not self._items

    def swap(self, other):
        self._items, other._items = other._items, self._items

    def begin(self):
        return SwigPyIterator._at(self.keys(), 0)

    def end(self):
        keys = self.keys()
        return SwigPyIterator._at(keys, len(keys))

    def rbegin(self):
        keys = self.keys()
        return SwigPyIterator._at(keys, len(keys) - 1, -1)

    def rend(self):
        return SwigPyIterator._at(self.keys(), -1, -1)

    def iterator(self):
        return self.begin()

    def get_allocator(self):
        return None


class _Value:
    """A value type of the rule system: made with no arguments, its fields (properties, as
    NVIDIA's) at their defaults."""

    _fields = ()

    def __init__(self):
        self._values = {}
        for name, default in self._fields:
            self._values[name] = default() if callable(default) else default

    def __repr__(self):
        fields = ", ".join("%s=%r" % (n, self._values[n]) for n, _ in self._fields)
        return "<ncu_report.%s %s>" % (type(self).__name__, fields)


def _field(name):
    def get(self):
        return self._values[name]

    def put(self, value):
        self._values[name] = value

    return property(get, put)


def _value(name, fields, doc):
    namespace = {n: _field(n) for n, _ in fields}
    namespace.update({"_fields": tuple(fields), "__doc__": doc})
    return type(name, (_Value,), namespace)


RuleResultFocusMetric = _value(
    "RuleResultFocusMetric",
    [("name", ""), ("value", 0.0), ("severity", 0), ("info", "")],
    "A focus metric of a rule result (as ``IRuleResult.focus_metrics()`` lists them).",
)
RuleResultMessage = _value(
    "RuleResultMessage",
    [("title", ""), ("message", ""), ("type", 0)],
    "A rule result's message: title, text and ``MsgType``.",
)
RuleResultSpeedup = _value(
    "RuleResultSpeedup",
    [("type", 0), ("speedup", 0.0)],
    "A rule result's speedup estimate: its ``SpeedupType`` and value.",
)
RuleResultTableColumn = _value(
    "RuleResultTableColumn",
    [
        ("header", ""),
        ("double_values", vector_double),
        ("int_values", vector_longlong),
        ("string_values", vector_string),
    ],
    "A column of a rule result's table: its header and its values of one type.",
)
RuleResultTable = _value(
    "RuleResultTable",
    [("title", ""), ("description", ""), ("columns", vector_rule_result_table_columns)],
    "A table a rule result carries.",
)
SourceMarker = _value(
    "SourceMarker",
    [
        ("rule_identifier", ""),
        ("section_identifier", ""),
        ("kind", 2),
        ("message_type", 0),
        ("message", ""),
        ("source_address", 0),
        ("source_location", None),
    ],
    "A rule's marker on a source line or SASS address (as ``IAction.source_markers()``).",
)
TableStyle = _value(
    "TableStyle", [("is_bold", False), ("is_italic", False)], "A table cell style."
)
TableSortInfo = _value(
    "TableSortInfo", [("column", 0), ("is_ascending", True)], "How a table is sorted."
)
TableColumnConfig = _value(
    "TableColumnConfig",
    [("header_style", TableStyle), ("data_style", TableStyle), ("relative_width", 0.0),
     ("tooltip", "")],
    "How a table column is drawn.",
)
TableConfig = _value(
    "TableConfig",
    [("title", ""), ("description", ""), ("use_sorting", False), ("sort_by", TableSortInfo),
     ("use_styling", False), ("style", TableStyle)],
    "How a table is drawn.",
)
TimedWarpSample = _value(
    "TimedWarpSample",
    [("timestamp", 0), ("pc", 0), ("stall_reason", 0), ("not_issued", False)],
    "A timed warp sample (``IAction.timed_warp_samples()`` gives them as dictionaries).",
)


class TableColumn(_value(
    "TableColumn",
    [("name", ""), ("kind", 0), ("has_column_config", False), ("column_config", TableColumnConfig),
     ("double_values", vector_double), ("int_values", vector_longlong),
     ("string_values", vector_string)],
    "A column of a table a rule makes: its values of one kind.",
)):
    def size(self):
        """How many values the column holds."""
        return max(len(self.double_values), len(self.int_values), len(self.string_values))


TableData = _value(
    "TableData",
    [("columns", list), ("has_config", False), ("config", TableConfig)],
    "A table a rule makes: columns and, optionally, how it is drawn.",
)


class _RuleSystemInterface:
    """An interface of NVIDIA's rule system, implemented inside a rule engine (Sightline's
    runs rules in its own embedded interpreter); a loaded report has none to give."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("accessing abstract class or protected constructor")


def _interface(name, methods, constants=None, doc=""):
    def method(method_name):
        def call(self, *args):
            raise RuntimeError("%s.%s is only available inside a rule" % (name, method_name))

        call.__name__ = method_name
        return call

    namespace = {m: method(m) for m in methods}
    namespace.update(constants or {})
    namespace["__doc__"] = doc
    return type(name, (_RuleSystemInterface,), namespace)


IBackend = _interface("IBackend", ["get_opcodes"], doc="The rule system's backend.")
IController = _interface(
    "IController", ["get_message_vault", "propose_rule"], doc="The rule system's controller."
)
IEvaluator = _interface(
    "IEvaluator",
    ["get_version", "handle_exception", "require_metric", "require_rule"],
    doc="What a rule asks of the rule system before it runs.",
)
IFrontend = _interface(
    "IFrontend",
    ["_generate_table", "focus_metric", "load_chart_from_file", "message",
     "receive_dict_from_parent", "send_dict_to_children", "source_marker", "speedup"],
    {"Severity_SEVERITY_DEFAULT": 0, "Severity_SEVERITY_LOW": 1, "Severity_SEVERITY_HIGH": 2,
     "SpeedupType_LOCAL": 0, "SpeedupType_GLOBAL": 1},
    doc="What a rule reports through: messages, speedups, focus metrics, markers, tables.",
)
IMessageVault = _interface(
    "IMessageVault", ["Get", "Put"], doc="Messages rules pass to one another."
)

NAMES = [
    "Path",
    "SwigPyIterator",
    "vector_double",
    "vector_longlong",
    "vector_ull",
    "vector_string",
    "vector_imetric",
    "vector_iruleresult",
    "vector_isection",
    "vector_focus_metric",
    "vector_rule_result_table",
    "vector_rule_result_table_columns",
    "vector_source_marker",
    "vector_warp_timed_sample",
    "set_string",
    "set_ull",
    "map_string_string",
    "RuleResultFocusMetric",
    "RuleResultMessage",
    "RuleResultSpeedup",
    "RuleResultTable",
    "RuleResultTableColumn",
    "SourceMarker",
    "TableColumn",
    "TableColumnConfig",
    "TableConfig",
    "TableData",
    "TableSortInfo",
    "TableStyle",
    "TimedWarpSample",
    "IBackend",
    "IController",
    "IEvaluator",
    "IFrontend",
    "IMessageVault",
]
