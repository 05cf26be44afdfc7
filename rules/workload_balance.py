# Sightline bundled rule: uneven work across SMs, L2 slices and DRAM channels.
#
# Part of Sightline (an independent viewer for Nsight Compute reports). This file is
# Sightline's own work; it uses the NvRules interface but no NVIDIA rule code or text.
#
# The kernel ends when its busiest unit instance ends. If the busiest SM (or L2 slice, or
# DRAM channel) was active for many more cycles than the average one, the others sat idle
# for the difference.
import NvRules
from sightline_rule_helpers import (
    value as _value,
    optimization_type as _optimization_type,
    add_speedup as _add_speedup,
)

# Report a unit when its busiest instance is this much above the average [%].
IMBALANCE_THRESHOLD_PCT = 10.0
# Ignore units active for fewer cycles than this on average (too short to judge).
MIN_AVG_CYCLES = 1000.0

# (label, avg metric, max metric, advice)
_UNITS = (
    ("SM", "sm__cycles_active.avg", "sm__cycles_active.max",
     "Blocks differ in how long they run, or there are too few blocks to spread evenly. Give blocks "
     "similar amounts of work, or use more, smaller blocks so the scheduler can even out the load."),
    ("SM sub-partition", "smsp__cycles_active.avg", "smsp__cycles_active.max",
     "Warps within blocks run for different lengths of time, or the warps per block do not spread "
     "evenly over the four schedulers (use a multiple of 4 warps per block)."),
    ("L2 slice", "lts__cycles_active.avg", "lts__cycles_active.max",
     "Memory traffic concentrates on a few L2 slices: many threads hit the same addresses or an "
     "unlucky stride maps to the same slice. Spread hot data or change the access stride."),
    ("DRAM channel", "dram__cycles_active.avg", "dram__cycles_active.max",
     "Memory traffic concentrates on a few DRAM channels, usually because of a large power-of-two "
     "stride. Pad arrays or change the access order."),
)


def get_identifier():
    return "SightlineWorkloadBalance"


def get_name():
    return "Workload Balance"


def get_description():
    return "Busiest vs. average active cycles of SMs, sub-partitions, L2 slices and DRAM channels."


def get_section_identifier():
    return "WorkloadDistribution"


def apply(handle):
    ctx = NvRules.get_context(handle)
    action = ctx.range_by_idx(0).action_by_idx(0)
    fe = ctx.frontend()
    F = NvRules.IFrontend

    measured = []
    flagged = 0
    sm_flagged = False
    for position, (label, avg_name, max_name, advice) in enumerate(_UNITS):
        avg = _value(action, avg_name)
        busiest = _value(action, max_name)
        if avg is None or busiest is None or busiest <= 0.0 or avg < MIN_AVG_CYCLES:
            continue
        excess_pct = (busiest - avg) / avg * 100.0
        measured.append("{} +{:.0f}%".format(label, excess_pct))
        if excess_pct < IMBALANCE_THRESHOLD_PCT:
            continue
        if position == 1 and sm_flagged:
            continue  # the sub-partition spread repeats the SM spread; report the finer one only alone
        # If every instance did the average amount of work, the unit would finish after `avg`
        # cycles instead of `busiest`.
        saving_pct = (busiest - avg) / busiest * 100.0
        msg_id = fe.message(
            _optimization_type(),
            ("The busiest {} was active for {:.0f} cycles, {:.0f}% more than the average of {:.0f}. "
             "Evenly spread, the same work would take about {:.0f}% fewer cycles on this unit. {}").format(
                 label, busiest, excess_pct, avg, saving_pct, advice),
            "Uneven Load Across {}s".format(label))
        # The SM (and sub-partition) span is the kernel's span; for memory units it is local.
        _add_speedup(fe, msg_id, position < 2, saving_pct)
        fe.focus_metric(msg_id, max_name, busiest, F.Severity_SEVERITY_HIGH,
                        "Busiest instance; average is {:.0f}".format(avg))
        flagged += 1
        if position == 0:
            sm_flagged = True

    if flagged == 0 and measured:
        fe.message(F.MsgType_MSG_OK,
                   "Work is spread evenly: the busiest instance is within {:.0f}% of the average ({}).".format(
                       IMBALANCE_THRESHOLD_PCT, ", ".join(measured)),
                   "Workload Balance")
