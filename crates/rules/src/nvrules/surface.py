# The part of Sightline's `NvRules` module written in Python, run in the module's namespace
# after the Rust classes are registered (src/rules/nvrules/mod.rs). It completes the API
# surface of NVIDIA's NvRules.py 2022.3 - 2025.3 with the names that are plain Python there:
# the `IBaseContext` interface, module-level enum integers, the std-container names, the data
# classes of the table backend and the checks of `generate_table` (2025.3), and the
# module-level helpers of 2024.1 (aliases here: the classes have the dunder methods natively).
import abc as _abc
import operator as _operator

# --- enum integers at module level (2025.3 spells them without a class prefix) -------------
MsgType_NONE = MsgType.NONE
MsgType_OK = MsgType.OK
MsgType_OPTIMIZATION = MsgType.OPTIMIZATION
MsgType_WARNING = MsgType.WARNING
MsgType_ERR = MsgType.ERROR
MarkerKind_SASS = MarkerKind.SASS
MarkerKind_SOURCE = MarkerKind.SOURCE
MarkerKind_NONE = MarkerKind.NONE
# Rule kinds and table element kinds (the values of NVIDIA's module).
RuleKind_DEFAULT = 0
RuleKind_GUIDED = 1
TableElementKind_INVALID = 0
TableElementKind_DOUBLE = 1
TableElementKind_INT = 2
TableElementKind_STRING = 3
TableElementKind_CUSTOM = 4

# --- IBaseContext: what IContext and IEvaluator have in common -------------------------------
class IBaseContext(metaclass=_abc.ABCMeta):
    """The interface `IContext` (apply) and `IEvaluator` (evaluate) share: the API version and
    exception handling. Both are registered as its subclasses, so `isinstance` holds."""

    def __init__(self, *args, **kwargs):
        raise AttributeError("No constructor defined - class is abstract")

    def handle_exception(self, msg):
        """Reports `msg` as the rule's error."""
        return _concrete(self, "handle_exception")(self, msg)

    def get_version(self):
        """The version of the rule API."""
        return _concrete(self, "get_version")(self)


def _concrete(obj, name):
    """`type(obj)`'s own implementation of IBaseContext method `name`."""
    method = getattr(type(obj), name)
    if method is getattr(IBaseContext, name):
        raise NotImplementedError("%s.%s" % (type(obj).__name__, name))
    return method


IBaseContext.register(IContext)
IBaseContext.register(IEvaluator)


# --- std containers as the SWIG proxies name them -------------------------------------------
class _Sized:
    """`size()` and `empty()`, the members every std-container proxy has."""

    def size(self):
        return len(self)

    def empty(self):
        return len(self) == 0


class _Vector(_Sized, list):
    """A `std::vector` proxy: a Python list with the C++ member names."""

    def push_back(self, value):
        self.append(value)

    def pop_back(self):
        self.pop()

    def front(self):
        return self[0]

    def back(self):
        return self[-1]


class vector_string(_Vector):
    """`std::vector<std::string>`."""


class vector_ull(_Vector):
    """`std::vector<unsigned long long>`."""


class vector_double(_Vector):
    """`std::vector<double>`."""


class vector_longlong(_Vector):
    """`std::vector<long long>`."""


class vector_table_column(_Vector):
    """`std::vector<TableColumn>`."""


class _Map(_Sized, dict):
    """A `std::map` proxy: a Python dict with the C++ member names."""

    def has_key(self, key):
        return key in self


class map_string_string(_Map):
    """`std::map<std::string, std::string>`."""


class map_string_double(_Map):
    """`std::map<std::string, double>`."""


class _Set(_Sized, set):
    """A `std::set` proxy: a Python set with the C++ member names."""

    def count(self, key):
        return 1 if key in self else 0


class set_string(_Set):
    """`std::set<std::string>`."""


class set_ull(_Set):
    """`std::set<unsigned long long>`."""


# --- data classes of the rule-result and table backend (2025.3) -----------------------------
def _field(name):
    return property(
        lambda self: self._values[name],
        lambda self, value: self._values.__setitem__(name, value),
        doc=name,
    )


class _Record:
    """A plain record: fields with defaults (properties of the class, as in NVIDIA's proxies),
    settable, compared and shown by value."""

    _fields = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name, _ in cls._fields:
            setattr(cls, name, _field(name))

    def __init__(self):
        self._values = {
            name: default() if callable(default) else default for name, default in self._fields
        }

    def __repr__(self):
        inner = ", ".join("%s=%r" % (name, getattr(self, name)) for name, _ in self._fields)
        return "NvRules.%s(%s)" % (type(self).__name__, inner)

    def __eq__(self, other):
        return type(self) is type(other) and all(
            getattr(self, n) == getattr(other, n) for n, _ in self._fields
        )

    __hash__ = None


class RuleResultMessage(_Record):
    """A message of a rule result: title, text and `MsgType`."""

    _fields = (("title", ""), ("message", ""), ("type", MsgType_NONE))


class TableSortInfo(_Record):
    """Which column a table is sorted by, and in which order."""

    _fields = (("column", 0), ("is_ascending", True))


class TableStyle(_Record):
    """Bold and italic, for a table's cells or a column's header or data."""

    _fields = (("is_bold", False), ("is_italic", False))


class TableColumnConfig(_Record):
    """A column's header tooltip, relative width and styles."""

    _fields = (
        ("tooltip", ""),
        ("relative_width", 0.0),
        ("header_style", TableStyle),
        ("data_style", TableStyle),
    )


class TableConfig(_Record):
    """A table's title, description, sorting and style."""

    _fields = (
        ("title", ""),
        ("description", ""),
        ("use_sorting", False),
        ("sort_by", TableSortInfo),
        ("use_styling", False),
        ("style", TableStyle),
    )


class TableColumn(_Record):
    """One column of a table: name, element kind, values and configuration."""

    _fields = (
        ("name", ""),
        ("kind", TableElementKind_INVALID),
        ("double_values", vector_double),
        ("int_values", vector_longlong),
        ("string_values", vector_string),
        ("has_column_config", False),
        ("column_config", TableColumnConfig),
    )

    def size(self):
        """The number of values in the column (of its kind)."""
        if self.kind == TableElementKind_DOUBLE:
            return len(self.double_values)
        if self.kind == TableElementKind_INT:
            return len(self.int_values)
        return len(self.string_values)


class TableData(_Record):
    """A whole table: its columns and configuration."""

    _fields = (("columns", vector_table_column), ("has_config", False), ("config", TableConfig))


# --- module-level helpers of NvRules 2024.1 -------------------------------------------------
def ncu_report_add_method(cls, name):
    """Decorator: sets the decorated function as method `name` of `cls`."""

    def decorator(func):
        setattr(cls, name, func)
        return func

    return decorator


def _name_of(obj):
    """`obj.name()`: the `__str__` of IAction, IMetric and INvtxDomainInfo."""
    return obj.name()


# The dunder methods of 2024.1 as module functions (the classes have them natively).
IContext__len = IRange__len = IAction__len = INvtxState__len = len
IContext__iter = IRange__iter = IAction__iter = INvtxState__iter = iter
IContext__getitem = IRange__getitem = IAction__getitem = INvtxState__getitem = _operator.getitem
IAction__str = IMetric__str = INvtxDomainInfo__str = _name_of


def IMetric__value(imetric, idx=None):
    return imetric.value() if idx is None else imetric.value(idx)


IMetric_kind_to_value_func = {
    IMetric.ValueKind_ANY: lambda *args: None,
    IMetric.ValueKind_DOUBLE: IMetric.as_double,
    IMetric.ValueKind_FLOAT: IMetric.as_double,
    IMetric.ValueKind_STRING: IMetric.as_string,
    IMetric.ValueKind_UINT32: IMetric.as_uint64,
    IMetric.ValueKind_UINT64: IMetric.as_uint64,
    IMetric.ValueKind_UNKNOWN: lambda *args: None,
}


def IMetric__metric_subtype_using_None(member_func):
    """Wraps `member_func` so that `MetricSubtype_NONE` becomes None."""

    def IMetric__metric_subtype(imetric):
        subtype = member_func(imetric)
        return None if subtype in (None, IMetric.MetricSubtype_NONE) else subtype

    return IMetric__metric_subtype


def IMetric__rollup_operation_using_None(member_func):
    """Wraps `member_func` so that `RollupOperation_NONE` becomes None."""

    def IMetric__rollup_operation(imetric):
        operation = member_func(imetric)
        return None if operation in (None, IMetric.RollupOperation_NONE) else operation

    return IMetric__rollup_operation


# `IMetric.metric_subtype` and `rollup_operation` already answer None for NONE.
wrapped_metric_subtype = IMetric.metric_subtype
wrapped_rollup_operation = IMetric.rollup_operation


# --- IFrontend.generate_table (2025.3): the checks and the configuration ---------------------
# `IFrontend.generate_table` (Rust) calls `_table_data` and hands the TableData to its backend.
def _require_str(value, what):
    if not isinstance(value, str):
        raise TypeError("%s must be a string, not %s" % (what, type(value).__name__))
    return value


def _style_from(config):
    """A TableStyle from {"bold": ..., "italic": ...}, or None when it names neither."""
    if config is None or not ("bold" in config or "italic" in config):
        return None
    style = TableStyle()
    style.is_bold = bool(config.get("bold", False))
    style.is_italic = bool(config.get("italic", False))
    return style


def _sort_from(config, header):
    """A TableSortInfo from {"column": name or index, "order": ...}, or None when it names
    neither; a missing or unknown column or order is a ValueError."""
    if config is None or not ("column" in config or "order" in config):
        return None
    if "column" not in config:
        raise ValueError('No column specified in "sort_by"')
    column = config["column"]
    if isinstance(column, str):
        if column not in header:
            raise ValueError('Invalid column name in "sort_by": %s' % column)
        column = header.index(column)
    elif not isinstance(column, int):
        raise ValueError('Unsupported type in "sort_by" for "column": %s' % type(column))
    if not 0 <= column < len(header):
        raise ValueError('Invalid column index in "sort_by": %d' % column)
    order = str(config.get("order", "ascending")).lower()
    if order not in ("ascending", "descending"):
        raise ValueError(
            'Invalid order keyword in "sort_by": %s. Allowed values are "ascending" and '
            '"descending".' % config["order"]
        )
    sort = TableSortInfo()
    sort.column = column
    sort.is_ascending = order == "ascending"
    return sort


def _column_config_from(config):
    """A TableColumnConfig from {"tooltip", "relative_width", "style": {"header", "data"}}, or
    None when it names none of them."""
    if config is None or not any(k in config for k in ("tooltip", "relative_width", "style")):
        return None
    column = TableColumnConfig()
    if "tooltip" in config:
        column.tooltip = _require_str(config["tooltip"], "tooltip")
    if "relative_width" in config:
        column.relative_width = float(config["relative_width"])
    style = config.get("style")
    if style is not None:
        header_style = _style_from(style.get("header")) if "header" in style else None
        data_style = _style_from(style.get("data")) if "data" in style else None
        if header_style is not None:
            column.header_style = header_style
        if data_style is not None:
            column.data_style = data_style
    return column


def _table_data(header, data, config):
    """The table of `generate_table` as a TableData. `data` is row-major; rows must be of one
    length, each column of one element type (int, float, str, or objects shown with str()),
    the header as wide as the rows. `config` may give "title", "description", "sort_by"
    {"column": name or index, "order"}, "style" {"bold", "italic"} and "per_column_configs"
    {name or index: {"tooltip", "relative_width", "style": {"header", "data"}}}."""
    rows = [list(row) for row in data]
    if not rows:
        raise ValueError("No rows in data")
    width = len(rows[0])
    if width == 0:
        raise ValueError("No columns in first row of data")
    for index, row in enumerate(rows):
        if len(row) != width:
            raise ValueError(
                "Row %d has different length (%d) than first row (%d)" % (index, len(row), width)
            )
    header = [_require_str(name, "column name") for name in header]
    if not header:
        raise ValueError("No columns in header")
    if len(header) != width:
        raise ValueError(
            "Number of columns in header (%d) does not match number of columns in data (%d)"
            % (len(header), width)
        )
    table = TableData()
    if config is not None and any(
        key in config for key in ("title", "description", "sort_by", "style")
    ):
        table.has_config = True
        if "title" in config:
            table.config.title = _require_str(config["title"], "title")
        if "description" in config:
            table.config.description = _require_str(config["description"], "description")
        sort = _sort_from(config.get("sort_by"), header) if "sort_by" in config else None
        if sort is not None:
            table.config.use_sorting = True
            table.config.sort_by = sort
        style = _style_from(config.get("style")) if "style" in config else None
        if style is not None:
            table.config.use_styling = True
            table.config.style = style
    per_column = config.get("per_column_configs") if config is not None else None
    for index, name in enumerate(header):
        values = [row[index] for row in rows]
        first = type(values[0])
        for row_index, value in enumerate(values):
            if type(value) is not first:
                raise TypeError(
                    "Column %d has mixed types: %s (row %d) and %s (row 0)"
                    % (index, type(value), row_index, first)
                )
        column = TableColumn()
        column.name = name
        if isinstance(values[0], int):
            column.kind = TableElementKind_INT
            column.int_values = vector_longlong(int(v) for v in values)
        elif isinstance(values[0], float):
            column.kind = TableElementKind_DOUBLE
            column.double_values = vector_double(values)
        elif isinstance(values[0], str):
            column.kind = TableElementKind_STRING
            column.string_values = vector_string(values)
        else:
            try:
                column.string_values = vector_string(str(v) for v in values)
                column.kind = TableElementKind_CUSTOM
            except Exception:
                column.string_values = vector_string(["???"] * len(values))
                column.kind = TableElementKind_INVALID
        if per_column is not None:
            settings = per_column.get(name, None) or per_column.get(index, None)
            column_config = _column_config_from(settings)
            if column_config is not None:
                column.has_column_config = True
                column.column_config = column_config
        table.columns.append(column)
    return table
