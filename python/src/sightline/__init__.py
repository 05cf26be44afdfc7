"""Sightline from Python.

``sightline.load_report(path)`` opens an Nsight Compute report (``.ncu-rep``/``.ncu-repz``) and
returns its ``IContext``: the interface of NVIDIA's Python Report Interface (``ncu_report``),
backed by Sightline's reader. ``import ncu_report`` gives the same objects under NVIDIA's name.
"""

from sightline._native import (  # noqa: F401
    IAction,
    IContext,
    IMetric,
    INvtxDomainInfo,
    INvtxRange,
    INvtxState,
    IRange,
    __version__,
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
