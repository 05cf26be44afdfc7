# Helpers shared by Sightline's bundled rules (a module beside them, not a rule: it has no
# get_identifier). Each helper works with every NvRules version from 2022.3 on.
#
# Part of Sightline (an independent viewer for Nsight Compute reports). This file is
# Sightline's own work; it uses the NvRules interface but no NVIDIA rule code or text.
import math

import NvRules


def _read(action, name, read):
    """`read(metric)` for a metric that exists and has a value, else None (also when reading
    raises)."""
    metric = action.metric_by_name(name)
    if metric is None:
        return None
    try:
        if not metric.has_value():
            return None
        return read(metric)
    except Exception:
        return None


def value(action, name):
    """The metric's value as a finite float, or None (missing, no value, NaN, infinite)."""
    number = _read(action, name, lambda metric: float(metric.as_double()))
    if number is None or math.isnan(number) or math.isinf(number):
        return None
    return number


def string(action, name):
    """The metric's string value, or None (missing, no value, empty)."""
    text = _read(action, name, lambda metric: metric.as_string())
    return text if text else None


def first_value(action, names):
    """(name, value) of the first of `names` with a value, or (None, None)."""
    for name in names:
        number = value(action, name)
        if number is not None:
            return name, number
    return None, None


def optimization_type():
    """The message type for advice: OPTIMIZATION where the API has it (2023.1 on), else WARNING."""
    kind = getattr(NvRules.IFrontend, "MsgType_MSG_OPTIMIZATION", None)
    return NvRules.IFrontend.MsgType_MSG_WARNING if kind is None else kind


def add_speedup(fe, msg_id, global_scope, pct):
    """Attaches a speedup estimate (capped at 100%) where the API supports speedups."""
    if pct is None or pct <= 0.0 or not hasattr(fe, "speedup"):
        return
    name = "SpeedupType_GLOBAL" if global_scope else "SpeedupType_LOCAL"
    kind = getattr(NvRules.IFrontend, name, None)
    if kind is not None:
        fe.speedup(msg_id, kind, min(100.0, pct))
