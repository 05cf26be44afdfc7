"""Sightline from Python.

``sightline.load_report(path)`` opens an Nsight Compute report (``.ncu-rep``/``.ncu-repz``) and
returns its ``IContext``: the interface of NVIDIA's Python Report Interface (``ncu_report``),
backed by Sightline's reader. ``import ncu_report`` gives the same objects under NVIDIA's name.
"""

from sightline import _native
from sightline._native import (  # noqa: F401
    IAction,
    IBaseContext,
    IContext,
    IMetric,
    INvtxDomainInfo,
    INvtxRange,
    INvtxState,
    IRange,
    IRuleResult,
    ISection,
    ISourceInfo,
    ITimelines,
    __version__,
    load_report,
)

__all__ = [
    "IAction",
    "IBaseContext",
    "IContext",
    "IMetric",
    "INvtxDomainInfo",
    "INvtxRange",
    "INvtxState",
    "IRange",
    "IRuleResult",
    "ISection",
    "ISourceInfo",
    "ITimelines",
    "load_report",
]

# The rest of what NVIDIA's module shows: its C++ containers, the rule system's value types and
# interfaces, and pathlib's Path (``sightline._compat``).
from sightline import _compat  # noqa: E402

for _name in _compat.NAMES:
    globals()[_name] = getattr(_compat, _name)
__all__ += list(_compat.NAMES)

# NVIDIA's enums (``MsgType``, ``MarkerKind``, ``StallReason``... as ``IntEnum`` classes) and
# module-level constants (``MsgType_OK``, ``StallReason_WAIT``...), made by the native module.
for _name in _native._CONSTANTS:
    globals()[_name] = getattr(_native, _name)
__all__ += list(_native._CONSTANTS)
del _name
