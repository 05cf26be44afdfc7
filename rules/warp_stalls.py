# Sightline bundled rule: the warp states that cost the most time.
#
# Part of Sightline (an independent viewer for Nsight Compute reports). This file is
# Sightline's own work; it uses the NvRules interface but no NVIDIA rule code or text.
#
# Ranks the reasons why warps could not issue, by their share of the time between two
# issued instructions, and gives advice for the top ones. Uses, in this order, whichever
# the report holds:
#   1. smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio (cycles per issue),
#   2. smsp__average_warp_latency_issue_stalled_<reason>.ratio (older name),
#   3. smsp__pcsamp_warps_issue_stalled_<reason> (PC sampling counts).
# Shares are normalized over all reasons, so the three sources are comparable.
import math
import re

import NvRules
from sightline_rule_helpers import (
    value as _value,
    optimization_type as _optimization_type,
    add_speedup as _add_speedup,
)

# Report at most this many stall reasons.
TOP_N = 3
# Report a reason only when it takes at least this share of warp time [%].
MIN_SHARE_PCT = 10.0

CPI = "smsp__average_warp_latency_per_inst_issued.ratio"

_SOURCES = (
    (re.compile(r"^smsp__average_warps_issue_stalled_(\w+?)_per_issue_active\.ratio$"), "cycles per issued instruction"),
    (re.compile(r"^smsp__average_warp_latency_issue_stalled_(\w+?)\.ratio$"), "warp latency"),
    (re.compile(r"^smsp__pcsamp_warps_issue_stalled_(\w+)$"), "PC samples"),
)

# States that are not stalls: the warp issued, or was ready but another warp issued.
_NOT_STALLS = ("selected", "not_selected")

# reason -> (display name, what it means and what to do)
_ADVICE = {
    "long_scoreboard": ("Long Scoreboard",
        "Warps wait for data from the L1/TEX path: global, local, texture or surface memory. Improve "
        "locality and coalescing, keep reused data in shared memory or registers, issue independent "
        "loads early so several are in flight, and make sure registers do not spill to local memory."),
    "short_scoreboard": ("Short Scoreboard",
        "Warps wait for a result from the MIO path: shared memory, special math functions (sin, exp, "
        "rsqrt) or similar. Remove shared-memory bank conflicts and replace special functions with "
        "cheaper arithmetic where precision allows."),
    "mio_throttle": ("MIO Throttle",
        "The queue for shared-memory, special-function and other MIO instructions is full. Issue fewer, "
        "wider shared-memory accesses and fewer special-function or atomic instructions."),
    "lg_throttle": ("LG Throttle",
        "The queue for local and global memory instructions is full. Use wider (vector) loads and "
        "stores so fewer instructions move the same data, and avoid register spills to local memory."),
    "tex_throttle": ("TEX Throttle",
        "The texture unit's queue is full. Issue fewer texture or surface fetches, or spread them out "
        "between arithmetic."),
    "math_pipe_throttle": ("Math Pipe Throttle",
        "A math pipeline is busy with earlier instructions. The kernel is pushing that pipe hard; "
        "spread work across pipes (for example mixing integer and floating-point work), use cheaper "
        "instructions, or accept it as a compute limit."),
    "wait": ("Wait",
        "Warps wait out a fixed instruction latency before a dependent instruction. Give each warp more "
        "independent instructions (unrolling, processing several elements per thread) or run more warps."),
    "barrier": ("Barrier",
        "Warps wait at a block-wide barrier for slower warps of the same block. Even out the work per "
        "warp before barriers, use fewer barriers, or smaller blocks so fewer warps wait together."),
    "membar": ("Memory Barrier",
        "Warps wait at memory fences. Use fewer fences, the narrowest scope that is correct, and avoid "
        "system-scope operations in hot loops."),
    "branch_resolving": ("Branch Resolving",
        "Warps wait for a branch target to be computed. Simplify control flow and reduce divergent "
        "branches."),
    "dispatch_stall": ("Dispatch Stall",
        "The dispatcher could not hand the selected instruction to its pipeline. Usually small; if "
        "large, check for pipeline contention in Compute Workload Analysis."),
    "drain": ("Drain",
        "Warps that have finished wait for their outstanding memory stores before exiting. Large "
        "values point to many stores at the very end of the kernel; spreading stores out or writing "
        "fewer bytes helps."),
    "imc_miss": ("Constant Cache Miss",
        "Warps wait for the immediate constant cache. Read constants uniformly across a warp and keep "
        "the set of constants small."),
    "no_instruction": ("No Instruction",
        "Warps wait for instructions to be fetched (instruction cache misses or just after a branch). "
        "Very large unrolled code or many different kernels in flight cause this; reduce code size in "
        "hot loops."),
    "sleeping": ("Sleeping",
        "Warps are asleep (nanosleep or yielding). Check whether spin-waits or back-off loops are needed."),
    "misc": ("Miscellaneous",
        "Warps stall for a reason outside the usual categories."),
    "not_selected": ("Not Selected",
        "Warps were ready but another warp was issued. This means the schedulers have spare work; it is "
        "not a problem by itself."),
    "selected": ("Selected", "The warp issued an instruction."),
}
_ALIASES = {"no_instructions": "no_instruction"}


def get_identifier():
    return "SightlineWarpStalls"


def get_name():
    return "Top Warp Stall Reasons"


def get_description():
    return "Ranks warp stall reasons by their share of warp time and gives advice for the largest ones."


def get_section_identifier():
    return "WarpStateStats"


def _collect(action):
    """reason -> (metric name, value) from the first source the report has, and its unit."""
    try:
        names = list(action.metric_names())
    except Exception:
        return {}, None
    for pattern, unit in _SOURCES:
        found = {}
        for name in names:
            match = pattern.match(name)
            if match is None or name.endswith("_not_issued"):
                continue
            reason = _ALIASES.get(match.group(1), match.group(1))
            value = _value(action, name)
            if value is not None and value >= 0.0:
                found[reason] = (name, value)
        if found and sum(v for _, v in found.values()) > 0.0:
            return found, unit
    return {}, None


def _display(reason):
    entry = _ADVICE.get(reason)
    if entry is not None:
        return entry[0]
    return reason.replace("_", " ").title()


def apply(handle):
    ctx = NvRules.get_context(handle)
    action = ctx.range_by_idx(0).action_by_idx(0)
    fe = ctx.frontend()
    F = NvRules.IFrontend
    opt = _optimization_type()

    reasons, unit = _collect(action)
    if not reasons:
        return  # no warp state data in this result
    total = sum(value for _, value in reasons.values())
    cpi = _value(action, CPI)

    ranked = sorted(((value / total * 100.0, reason, name, value)
                     for reason, (name, value) in reasons.items()
                     if reason not in _NOT_STALLS),
                    key=lambda item: -item[0])
    top = [item for item in ranked[:TOP_N] if item[0] >= MIN_SHARE_PCT]

    source_note = "by {}".format(unit)
    if cpi is not None and unit == "cycles per issued instruction":
        source_note = "of the {:.1f} cycles a warp spends per issued instruction".format(cpi)

    if not top:
        listing = ", ".join("{} {:.0f}%".format(_display(r), share) for share, r, _, _ in ranked[:TOP_N])
        fe.message(F.MsgType_MSG_OK,
                   "No single stall reason takes {:.0f}% or more of warp time ({}). Largest: {}.".format(
                       MIN_SHARE_PCT, source_note, listing or "none"),
                   "Warp Stalls")
        return

    ranking = "; ".join("{} {:.1f}%".format(_display(r), share) for share, r, _, _ in ranked[:max(TOP_N, 5)] if share > 0.0)
    for position, (share, reason, name, value) in enumerate(top):
        label = _display(reason)
        advice = _ADVICE.get(reason, (label, "See the Warp State Statistics section for this state."))[1]
        if unit == "cycles per issued instruction":
            amount = "{:.1f} cycles per issued instruction, {:.1f}% of warp time".format(value, share)
        elif unit == "PC samples":
            amount = "{:.0f} PC samples, {:.1f}% of all samples".format(value, share)
        else:
            amount = "{:.1f}% of warp time".format(share)
        text = "Stall reason #{}: {} ({}). {}".format(position + 1, label, amount, advice)
        if position == 0:
            text += " Ranking {}: {}.".format(source_note, ranking)
            if reason in ("long_scoreboard", "lg_throttle", "drain"):
                text += " See @section:MemoryWorkloadAnalysis:Memory Workload Analysis@ for the memory traffic."
            text += " @section:SourceCounters:Source Counters@ shows where in the code warps stall."
        msg_id = fe.message(opt, text, "Warp Stall: {}".format(label))
        _add_speedup(fe, msg_id, False, share)
        fe.focus_metric(msg_id, name, value,
                        F.Severity_SEVERITY_HIGH if position == 0 else F.Severity_SEVERITY_LOW,
                        "{:.1f}% of warp time; reduce it".format(share))
