"""NVIDIA Nsight Compute's Python Report Interface, implemented by Sightline.

A drop-in for NVIDIA's ``ncu_report`` module: ``ncu_report.load_report(path)`` returns an
``IContext`` whose ranges hold the report's results (``IAction``) and their metrics
(``IMetric``), read by Sightline's reader.
"""

from sightline._native import (  # noqa: F401
    IAction,
    IContext,
    IMetric,
    INvtxDomainInfo,
    INvtxRange,
    INvtxState,
    IRange,
    load_report,
)

__all__ = [
    "IAction",
    "IContext",
    "IMetric",
    "INvtxDomainInfo",
    "INvtxRange",
    "INvtxState",
    "IRange",
    "load_report",
]
