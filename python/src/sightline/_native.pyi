"""Type stubs of Sightline's extension module (the classes ``ncu_report`` and ``sightline``
re-export)."""

from enum import IntEnum
from os import PathLike
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, Union, overload

__version__: str

class FocusSeverity(IntEnum):
    DEFAULT = 0
    LOW = 1
    HIGH = 2

class MarkerKind(IntEnum):
    SASS = 0
    SOURCE = 1
    NONE = 2

class MsgType(IntEnum):
    NONE = 0
    OK = 1
    OPTIMIZATION = 2
    WARNING = 3
    ERROR = 4

class SpeedupType(IntEnum):
    UNKNOWN = 0
    LOCAL = 1
    GLOBAL = 2

class StallReason(IntEnum):
    INVALID = 0
    BARRIER = 1
    BRANCH_RESOLVING = 2
    DISPATCH_STALL = 3
    DRAIN = 4
    IMC_MISS = 5
    LG_THROTTLE = 6
    LONG_SCOREBOARD = 7
    MIO_THROTTLE = 8
    MATH_PIPE_THROTTLE = 9
    MEMBAR = 10
    MISC = 11
    NO_INSTRUCTIONS = 12
    NOT_SELECTED = 13
    SELECTED = 14
    SHORT_SCOREBOARD = 15
    SLEEPING = 16
    TEX_THROTTLE = 17
    WAIT = 18

FocusSeverity_DEFAULT: int
FocusSeverity_LOW: int
FocusSeverity_HIGH: int
MarkerKind_SASS: int
MarkerKind_SOURCE: int
MarkerKind_NONE: int
MsgType_NONE: int
MsgType_OK: int
MsgType_OPTIMIZATION: int
MsgType_WARNING: int
MsgType_ERR: int
SpeedupType_UNKNOWN: int
SpeedupType_LOCAL: int
SpeedupType_GLOBAL: int
StallReason_INVALID: int
StallReason_BARRIER: int
StallReason_BRANCH_RESOLVING: int
StallReason_DISPATCH_STALL: int
StallReason_DRAIN: int
StallReason_IMC_MISS: int
StallReason_LG_THROTTLE: int
StallReason_LONG_SCOREBOARD: int
StallReason_MIO_THROTTLE: int
StallReason_MATH_PIPE_THROTTLE: int
StallReason_MEMBAR: int
StallReason_MISC: int
StallReason_NO_INSTRUCTIONS: int
StallReason_NOT_SELECTED: int
StallReason_SELECTED: int
StallReason_SHORT_SCOREBOARD: int
StallReason_SLEEPING: int
StallReason_TEX_THROTTLE: int
StallReason_WAIT: int
RuleKind_DEFAULT: int
RuleKind_GUIDED: int
TableElementKind_INVALID: int
TableElementKind_DOUBLE: int
TableElementKind_INT: int
TableElementKind_STRING: int
TableElementKind_CUSTOM: int

def load_report(path: Union[str, PathLike[str]]) -> IContext:
    """Opens an Nsight Compute report (``.ncu-rep``/``.ncu-repz``); results are decoded on
    first use. ``FileNotFoundError`` for a missing file, ``ValueError`` (naming the file and
    the byte) for one that is not a report; a partly readable one warns (``UserWarning``)."""

def open_nsys(
    path: Union[str, PathLike[str]], nsys: Optional[Union[str, PathLike[str]]] = None
) -> Any:
    """Opens a timeline file for ``sightline.nsys`` (use ``sightline.nsys.open``, which wraps
    the tables in ``pyarrow.Table`` objects)."""

def recipe_list() -> List[Tuple[str, str]]:
    """The recipes (``sightline.recipe``): ``(name, what it gives)``."""

def recipe_inputs(paths: List[str]) -> List[str]:
    """The exports among ``paths`` and in the folders among them (``DIR:n``: its first n)."""

def recipe_output_dir(
    name: str, output: Optional[str] = None, force: bool = False
) -> Tuple[str, bool, List[str]]:
    """Where recipe ``name`` writes (``output`` a pattern, default ``NAME-%n``): the folder,
    whether it is removed first (``force`` and it exists), and the warnings."""

def recipe_check(name: str, options_json: str) -> None:
    """``ValueError`` when the recipe does not exist or its options (JSON) do not fit it."""

def recipe_partial(name: str, options_json: str, path: Union[str, PathLike[str]]) -> bytes:
    """One file's partial result (what a Dask worker computes for ``sightline.recipe``)."""

def recipe_write(
    name: str,
    options_json: str,
    inputs: List[str],
    output: Union[str, PathLike[str]],
    partials: Optional[List[bytes]] = None,
    threads: Optional[int] = None,
    progress: bool = False,
    remove_first: bool = False,
    mode: str = "concurrent",
    started: Optional[float] = None,
) -> Tuple[List[str], List[str], int]:
    """Writes the recipe's tables over ``inputs`` into ``output``, combined from ``partials``
    (one per input, from ``recipe_partial``) when given, else computed here: the files
    written, the warnings, how many files could be read."""

class IBaseContext:
    def get_version(self) -> str: ...
    def handle_exception(self, msg: str) -> bool:
        """``False``: an opened report's context handles no rule's exception."""

class IContext(IBaseContext):
    def num_ranges(self) -> int: ...
    def range_by_idx(self, index: int) -> Optional[IRange]: ...
    def frontend(self) -> None:
        """``None``: only the rule system has a frontend (so do ``backend``, ``controller``)."""
    def backend(self) -> None: ...
    def controller(self) -> None: ...
    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, key: int) -> IRange: ...
    @overload
    def __getitem__(self, key: slice) -> Tuple[IRange, ...]: ...
    def __iter__(self) -> Iterator[IRange]: ...

class IRange:
    def num_actions(self) -> int: ...
    def action_by_idx(self, index: int) -> Optional[IAction]: ...
    def actions_by_nvtx(
        self, includes: Sequence[str], excludes: Sequence[str] = ...
    ) -> Tuple[int, ...]: ...
    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, key: int) -> IAction: ...
    @overload
    def __getitem__(self, key: slice) -> Tuple[IAction, ...]: ...
    def __iter__(self) -> Iterator[IAction]: ...

class IAction:
    NameBase_FUNCTION: int
    NameBase_DEMANGLED: int
    NameBase_MANGLED: int
    WorkloadType_KERNEL: int
    WorkloadType_RANGE: int
    WorkloadType_CMDLIST: int
    WorkloadType_GRAPH: int
    WorkloadType_SUBGRID_SCHEDULE: int
    def name(self, name_base: int = ...) -> str: ...
    def workload_type(self) -> int: ...
    def metric_names(self) -> Tuple[str, ...]: ...
    def metric_by_name(self, name: str) -> Optional[IMetric]: ...
    def nvtx_state(self) -> Optional[INvtxState]: ...
    def sections(self) -> Tuple[ISection, ...]: ...
    def rule_results(self) -> Tuple[IRuleResult, ...]: ...
    def rule_results_as_dicts(self) -> List[Dict[str, Any]]: ...
    def source_files(self) -> Dict[str, str]: ...
    def source_info(self, address: int) -> Optional[ISourceInfo]: ...
    def ptx_by_pc(self, address: int) -> str: ...
    def sass_by_pc(self, address: int) -> str:
        """The SASS instruction at ``address`` as NVIDIA's reader writes it, disassembled by
        the user's nvdisasm (``$SIGHTLINE_NVDISASM_PATH``, ``PATH``, ``$CUDA_HOME/bin``, the
        ``nvidia-cuda-nvdisasm`` wheels); empty without one."""
    def source_markers(self) -> Tuple[Dict[str, Any], ...]: ...
    def timelines(self) -> ITimelines:
        """What aligns the result's PM sampling metrics to the workload."""
    def timed_warp_samples(self) -> List[Dict[str, Any]]:
        """The timed warp samples (``timestamp``, ``pc``, ``stall_reason``, ``not_issued``):
        none in the reports Sightline reads."""
    def add_metric(self, value_name: str) -> None:
        """Returns ``None``: the results of a loaded report stay as read (as NVIDIA's)."""
    def add_double_metric(self, value_name: str, value_kind: int, value: float) -> None: ...
    def add_integer_metric(self, value_name: str, value_kind: int, value: int) -> None: ...
    def add_string_metric(self, value_name: str, value_kind: int, value: str) -> None: ...
    def _repr_html_(self) -> str: ...
    def __len__(self) -> int: ...
    def __getitem__(self, name: str) -> IMetric: ...
    def __contains__(self, name: object) -> bool: ...
    def __iter__(self) -> Iterator[str]: ...

MetricValue = Union[str, int, float, None]

class ITimelines:
    def aligned_metric(self, metric: IMetric) -> Optional[IMetric]:
        """``metric``'s samples taken while the profiled context ran, their timestamps shifted
        to start with the first sample of the metric's pass; ``None`` when it cannot be
        aligned (not a sampled metric of this result, or no timestamps)."""

class IMetric:
    ValueKind_UNKNOWN: int
    ValueKind_ANY: int
    ValueKind_STRING: int
    ValueKind_FLOAT: int
    ValueKind_DOUBLE: int
    ValueKind_UINT32: int
    ValueKind_UINT64: int
    MetricType_OTHER: int
    MetricType_COUNTER: int
    MetricType_RATIO: int
    MetricType_THROUGHPUT: int
    RollupOperation_NONE: int
    RollupOperation_AVG: int
    RollupOperation_MAX: int
    RollupOperation_MIN: int
    RollupOperation_SUM: int
    MetricSubtype_NONE: int
    MetricSubtype_PEAK_SUSTAINED: int
    MetricSubtype_PEAK_SUSTAINED_ACTIVE: int
    MetricSubtype_PEAK_SUSTAINED_ACTIVE_PER_SECOND: int
    MetricSubtype_PEAK_SUSTAINED_ELAPSED: int
    MetricSubtype_PEAK_SUSTAINED_ELAPSED_PER_SECOND: int
    MetricSubtype_PEAK_SUSTAINED_FRAME: int
    MetricSubtype_PEAK_SUSTAINED_FRAME_PER_SECOND: int
    MetricSubtype_PEAK_SUSTAINED_REGION: int
    MetricSubtype_PEAK_SUSTAINED_REGION_PER_SECOND: int
    MetricSubtype_PER_CYCLE_ACTIVE: int
    MetricSubtype_PER_CYCLE_ELAPSED: int
    MetricSubtype_PER_CYCLE_IN_FRAME: int
    MetricSubtype_PER_CYCLE_IN_REGION: int
    MetricSubtype_PER_SECOND: int
    MetricSubtype_PCT_OF_PEAK_SUSTAINED_ACTIVE: int
    MetricSubtype_PCT_OF_PEAK_SUSTAINED_ELAPSED: int
    MetricSubtype_PCT_OF_PEAK_SUSTAINED_FRAME: int
    MetricSubtype_PCT_OF_PEAK_SUSTAINED_REGION: int
    MetricSubtype_MAX_RATE: int
    MetricSubtype_PCT: int
    MetricSubtype_RATIO: int
    def name(self) -> str: ...
    def kind(self, instance: Optional[int] = None) -> int: ...
    def value(self, instance: Optional[int] = None) -> MetricValue: ...
    def as_double(self, instance: Optional[int] = None) -> float: ...
    def as_uint64(self, instance: Optional[int] = None) -> int: ...
    def as_string(self, instance: Optional[int] = None) -> Optional[str]: ...
    def has_value(self, value_kind: Optional[int] = None) -> bool:
        """Whether the report stores a value of the metric itself; with ``value_kind``,
        whether the metric's kind is that one (``ValueKind_ANY``: any but UNKNOWN)."""
    def num_instances(self) -> int: ...
    def has_correlation_ids(self) -> bool: ...
    def correlation_ids(self) -> Optional[IMetric]:
        """The instances' correlation ids as a metric (``None`` when there are none)."""
    def unit(self) -> str: ...
    def label(self) -> str: ...
    def description(self) -> str: ...
    def metric_type(self) -> int: ...
    def metric_subtype(self) -> Optional[int]: ...
    def rollup_operation(self) -> Optional[int]: ...

class INvtxState:
    def domains(self) -> Tuple[int, ...]: ...
    def domain_by_id(self, id: int) -> Optional[INvtxDomainInfo]: ...
    def __len__(self) -> int: ...
    def __getitem__(self, id: int) -> INvtxDomainInfo: ...
    def __iter__(self) -> Iterator[int]: ...

class INvtxDomainInfo:
    def name(self) -> str: ...
    def push_pop_ranges(self) -> Tuple[str, ...]: ...
    def start_end_ranges(self) -> Tuple[str, ...]: ...
    def push_pop_range(self, index: int) -> Optional[INvtxRange]: ...
    def start_end_range(self, index: int) -> Optional[INvtxRange]: ...

class INvtxRange:
    PayloadType_PAYLOAD_UNKNOWN: int
    PayloadType_PAYLOAD_UINT64: int
    PayloadType_PAYLOAD_INT64: int
    PayloadType_PAYLOAD_DOUBLE: int
    PayloadType_PAYLOAD_UINT32: int
    PayloadType_PAYLOAD_INT32: int
    PayloadType_PAYLOAD_FLOAT: int
    PayloadType_PAYLOAD_JSON: int
    def name(self) -> str: ...
    def has_attributes(self) -> bool: ...
    def category(self) -> int: ...
    def color(self) -> int: ...
    def payload_type(self) -> int: ...
    def payload_as_uint64(self) -> int: ...
    def payload_as_double(self) -> float: ...
    def payload_as_string(self) -> str: ...
    def message(self) -> str: ...

class ISection:
    def identifier(self) -> str: ...
    def name(self) -> str: ...
    def order(self) -> int: ...
    def parent_identifier(self) -> str: ...
    def description(self) -> str: ...
    def header_metrics(self) -> Tuple[IMetric, ...]: ...
    def body_metrics(self) -> Tuple[IMetric, ...]: ...
    def rules(self) -> Tuple[IRuleResult, ...]: ...
    def _repr_html_(self) -> str: ...

class IRuleResult:
    def rule_identifier(self) -> str: ...
    def name(self) -> str: ...
    def section_identifier(self) -> str: ...
    def has_rule_message(self) -> bool: ...
    def rule_message(self) -> Dict[str, Any]: ...
    def focus_metrics(self) -> List[Dict[str, Any]]: ...
    def has_speedup_estimation(self) -> bool: ...
    def speedup_estimation(self) -> Dict[str, Any]: ...
    def result_tables(self) -> List[Dict[str, Any]]: ...

class ISourceInfo:
    def file_name(self) -> str: ...
    def line(self) -> int: ...
