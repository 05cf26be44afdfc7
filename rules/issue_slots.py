# Sightline bundled rule: scheduler issue-slot utilization.
#
# Part of Sightline (an independent viewer for Nsight Compute reports). This file is
# Sightline's own work; it uses the NvRules interface but no NVIDIA rule code or text.
#
# Each SM sub-partition scheduler can issue at most one warp instruction per cycle. The rule
# compares the achieved issue rate with that limit, looks at how many warps were eligible
# and active, and estimates how much of the idle issue capacity could be used before the
# busiest unit of the GPU (SM pipelines or memory) runs out of headroom.
import NvRules
from sightline_rule_helpers import (
    value as _value,
    optimization_type as _optimization_type,
    add_speedup as _add_speedup,
)

# Issue rate (instructions per scheduler per cycle) at or above which schedulers count as busy.
BUSY_ISSUE_RATE = 0.8
# Issue rate below which the rule reports under-used issue slots.
LOW_ISSUE_RATE = 0.6
# Fewer eligible warps per scheduler than this means warps are rarely ready.
MIN_ELIGIBLE_WARPS = 1.0
# Active warps below this share of the theoretical warps point to an occupancy problem [%].
LOW_ACTIVE_SHARE_PCT = 80.0

ISSUED = "smsp__issue_active.avg.per_cycle_active"
ELIGIBLE = "smsp__warps_eligible.avg.per_cycle_active"
ACTIVE = "smsp__warps_active.avg.per_cycle_active"
THEORETICAL = "smsp__maximum_warps_avg_per_active_cycle"
NO_ELIGIBLE_PCT = "smsp__issue_inst0.avg.pct_of_peak_sustained_active"
MAX_IPC = "device__attribute_max_ipc_per_scheduler"
SM_PCT = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
MEM_PCT = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"


def get_identifier():
    return "SightlineIssueSlots"


def get_name():
    return "Issue Slot Utilization"


def get_description():
    return "Issued warps per scheduler per cycle against the limit of one, with eligible and active warps."


def get_section_identifier():
    return "SchedulerStats"


def apply(handle):
    ctx = NvRules.get_context(handle)
    action = ctx.range_by_idx(0).action_by_idx(0)
    fe = ctx.frontend()
    F = NvRules.IFrontend

    issued = _value(action, ISSUED)
    if issued is None:
        return  # no scheduler statistics in this result
    max_ipc = _value(action, MAX_IPC)
    if max_ipc is None or max_ipc <= 0.0:
        max_ipc = 1.0
    eligible = _value(action, ELIGIBLE)
    active = _value(action, ACTIVE)
    theoretical = _value(action, THEORETICAL)
    no_eligible = _value(action, NO_ELIGIBLE_PCT)
    no_eligible_measured = no_eligible is not None
    if no_eligible is None:
        no_eligible = max(0.0, (1.0 - issued / max_ipc) * 100.0)
    utilization = issued / max_ipc

    text = ("Each scheduler issues {:.2f} instructions per cycle out of a possible {:.0f}; in {:.1f}% of "
            "cycles it had no eligible warp.").format(issued, max_ipc, no_eligible)
    if eligible is not None and active is not None:
        text += " On average {:.2f} of {:.2f} active warps per scheduler were eligible".format(eligible, active)
        if theoretical is not None:
            text += " (the launch allows up to {:.2f})".format(theoretical)
        text += "."

    if utilization >= BUSY_ISSUE_RATE:
        text += (" The schedulers are close to their issue limit, so the kernel is bound by instruction "
                 "issue: only fewer instructions (simpler arithmetic, wider memory accesses, less "
                 "redundant work) make it faster.")
        msg_id = fe.message(F.MsgType_MSG_OK, text, "Issue Slots Busy")
        fe.focus_metric(msg_id, ISSUED, issued, F.Severity_SEVERITY_LOW,
                        "{:.2f} of {:.0f} per cycle".format(issued, max_ipc))
        return

    if utilization >= LOW_ISSUE_RATE:
        text += " Issue slots are reasonably well used."
        msg_id = fe.message(F.MsgType_MSG_OK, text, "Issue Slot Utilization")
        fe.focus_metric(msg_id, ISSUED, issued, F.Severity_SEVERITY_DEFAULT,
                        "{:.2f} of {:.0f} per cycle".format(issued, max_ipc))
        return

    # Low issue rate: find out why, and how much could be gained.
    causes = []
    if active is not None and theoretical is not None and theoretical > 0.0 \
            and active / theoretical * 100.0 < LOW_ACTIVE_SHARE_PCT:
        causes.append(("Only {:.0f}% of the warps the launch allows are active; raising achieved "
                       "occupancy gives the schedulers more warps to pick from (see "
                       "@section:Occupancy:Occupancy@).").format(active / theoretical * 100.0))
    if eligible is not None and eligible < MIN_ELIGIBLE_WARPS:
        causes.append("Fewer than one warp is ready per cycle on average: warps are mostly stalled. "
                      "@section:WarpStateStats:Warp State Statistics@ shows on what.")

    sm = _value(action, SM_PCT)
    mem = _value(action, MEM_PCT)
    busiest = max([v for v in (sm, mem) if v is not None] or [0.0])
    # Uniform scaling: issuing faster also drives every other unit proportionally harder, so
    # the issue rate can grow only until the busiest unit reaches 100% or issue reaches its limit.
    if busiest > 0.0:
        reachable = min(max_ipc, issued * 100.0 / busiest)
    else:
        reachable = max_ipc
    reachable = max(reachable, issued)
    gain_pct = (1.0 - issued / reachable) * 100.0 if reachable > 0.0 else 0.0

    if busiest > 0.0 and reachable < max_ipc:
        causes.append(("The busiest unit is already at {:.0f}% of its peak, so issuing faster can help "
                       "only until it saturates, at about {:.2f} instructions per cycle.").format(busiest, reachable))

    if causes:
        text += " " + " ".join(causes)
    if gain_pct > 0.0:
        text += (" Using the issue slots up to that point would cut the time per instruction by about "
                 "{:.0f}%.").format(gain_pct)
    msg_id = fe.message(_optimization_type(), text, "Issue Slots Under-Used")
    _add_speedup(fe, msg_id, False, gain_pct)
    fe.focus_metric(msg_id, ISSUED, issued, F.Severity_SEVERITY_HIGH,
                    "{:.2f} of {:.0f} per cycle".format(issued, max_ipc))
    if eligible is not None:
        fe.focus_metric(msg_id, ELIGIBLE, eligible,
                        F.Severity_SEVERITY_HIGH if eligible < MIN_ELIGIBLE_WARPS else F.Severity_SEVERITY_LOW,
                        "Eligible warps per scheduler per cycle")
    if no_eligible_measured:
        fe.focus_metric(msg_id, NO_ELIGIBLE_PCT, no_eligible, F.Severity_SEVERITY_LOW,
                        "Share of cycles with no eligible warp")
