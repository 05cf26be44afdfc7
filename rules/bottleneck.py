# Sightline bundled rule: first-level bottleneck classification.
#
# Part of Sightline (an independent viewer for Nsight Compute reports). This file is
# Sightline's own work; it uses the NvRules interface but no NVIDIA rule code or text.
#
# Compares how close the SMs and the memory system came to their peak throughput and
# sorts the kernel into one of: compute-bound, memory-bound, balanced (both busy),
# balanced but under-used, or latency-bound (both idle most of the time). Then names the
# section to read next.
import NvRules
from sightline_rule_helpers import (
    value as _value,
    string as _string,
    optimization_type as _optimization_type,
    add_speedup as _add_speedup,
)

# A unit counts as "busy" (a likely limiter) at or above this share of its peak [%].
BUSY_PCT = 60.0
# Below this share of peak for BOTH units the kernel is treated as latency-bound [%].
LATENCY_BOUND_PCT = 40.0
# Two utilizations closer than this many percentage points count as balanced.
BALANCE_MARGIN_PCT = 15.0
# Utilization a well-tuned kernel can realistically sustain on its busiest unit [%].
# The runtime estimate assumes the busiest unit could be driven up to this level.
ATTAINABLE_PCT = 80.0
# Fewer waves than this means the grid cannot fill the GPU even once.
MIN_WAVES = 1.0

SM_PCT = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
MEM_PCT = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
MEM_BREAKDOWN = "breakdown:" + MEM_PCT
WAVES = "launch__waves_per_multiprocessor"

# Prefix of a breakdown counter -> readable memory unit.
_MEMORY_UNITS = (
    ("dram__", "DRAM"),
    ("fbpa__", "DRAM"),
    ("gpu__dram", "DRAM"),
    ("lts__", "L2 cache"),
    ("ltc__", "L2 cache"),
    ("l1tex__", "L1/TEX cache"),
    ("sm__memory", "L1/shared memory"),
)


def get_identifier():
    return "SightlineBottleneck"


def get_name():
    return "Bottleneck"


def get_description():
    return "Classifies the kernel as compute-bound, memory-bound, balanced or latency-bound from the SM and memory throughput."


def get_section_identifier():
    return "SpeedOfLight"


def _busiest_memory_unit(action):
    """Name and utilization of the busiest counter behind the memory throughput, if known."""
    listing = _string(action, MEM_BREAKDOWN)
    if listing is None:
        return None, None
    best_name, best_value = None, None
    for counter in listing.split(","):
        counter = counter.strip()
        if not counter:
            continue
        value = _value(action, counter)
        if value is not None and (best_value is None or value > best_value):
            best_name, best_value = counter, value
    if best_name is None:
        return None, None
    for prefix, unit in _MEMORY_UNITS:
        if best_name.startswith(prefix):
            return unit, best_value
    return None, best_value


def _headroom_pct(peak_pct):
    """Runtime reduction if the busiest unit went from peak_pct to ATTAINABLE_PCT, same work."""
    if peak_pct is None or peak_pct >= ATTAINABLE_PCT:
        return 0.0
    return (1.0 - peak_pct / ATTAINABLE_PCT) * 100.0


def apply(handle):
    ctx = NvRules.get_context(handle)
    action = ctx.range_by_idx(0).action_by_idx(0)
    fe = ctx.frontend()
    F = NvRules.IFrontend

    sm = _value(action, SM_PCT)
    mem = _value(action, MEM_PCT)
    if sm is None or mem is None:
        return  # no Speed of Light data for this result

    waves = _value(action, WAVES)
    peak = max(sm, mem)
    gap = abs(sm - mem)
    headroom = _headroom_pct(peak)
    figures = "SM throughput is {:.1f}% and memory throughput {:.1f}% of peak.".format(sm, mem)

    compute_link = "@section:ComputeWorkloadAnalysis:Compute Workload Analysis@"
    memory_link = "@section:MemoryWorkloadAnalysis:Memory Workload Analysis@"
    stall_links = ("@section:SchedulerStats:Scheduler Statistics@ and "
                   "@section:WarpStateStats:Warp State Statistics@")

    focus = []  # (name, value, severity, info)
    msg_type = _optimization_type()

    if peak < LATENCY_BOUND_PCT:
        title = "Latency-Bound"
        if waves is not None and waves < MIN_WAVES:
            text = ("{} Both are below {:.0f}%, and the grid covers only {:.2f} of one wave, so part of "
                    "the GPU's block slots never receive work. Launch more blocks or more work per launch first; see "
                    "@section:LaunchStats:Launch Statistics@.").format(figures, LATENCY_BOUND_PCT, waves)
            focus.append((WAVES, waves, F.Severity_SEVERITY_HIGH,
                          "Waves per SM {:.2f}; below {:.0f} the GPU is never full".format(waves, MIN_WAVES)))
        else:
            text = ("{} Both are below {:.0f}%: neither the SMs nor the memory system are kept busy, "
                    "which usually means warps spend most of their time waiting (dependencies, memory "
                    "latency, synchronization) and too few are ready to hide it. Check {} for why warps "
                    "stall, and @section:Occupancy:Occupancy@ for how many warps are resident.").format(
                        figures, LATENCY_BOUND_PCT, stall_links)
        focus.append((SM_PCT, sm, F.Severity_SEVERITY_HIGH, "Raise towards {:.0f}%".format(ATTAINABLE_PCT)))
        focus.append((MEM_PCT, mem, F.Severity_SEVERITY_HIGH, "Raise towards {:.0f}%".format(ATTAINABLE_PCT)))
    elif gap < BALANCE_MARGIN_PCT:
        if peak >= BUSY_PCT:
            title = "Balanced, High Throughput"
            msg_type = F.MsgType_MSG_OK
            text = ("{} Both units are busy and within {:.0f} points of each other. Further gains need "
                    "less work in both: fewer instructions ({}) and fewer bytes moved ({}).").format(
                        figures, BALANCE_MARGIN_PCT, compute_link, memory_link)
            focus.append((SM_PCT, sm, F.Severity_SEVERITY_LOW, "Busy (>= {:.0f}%)".format(BUSY_PCT)))
            focus.append((MEM_PCT, mem, F.Severity_SEVERITY_LOW, "Busy (>= {:.0f}%)".format(BUSY_PCT)))
        else:
            title = "Balanced, Moderate Throughput"
            text = ("{} The two are similar but neither reaches {:.0f}%, so part of the runtime is "
                    "latency that neither unit covers. Look at {} for stall reasons, then at {} and "
                    "{}.").format(figures, BUSY_PCT, stall_links, compute_link, memory_link)
            focus.append((SM_PCT, sm, F.Severity_SEVERITY_LOW, "Below {:.0f}%".format(BUSY_PCT)))
            focus.append((MEM_PCT, mem, F.Severity_SEVERITY_LOW, "Below {:.0f}%".format(BUSY_PCT)))
    elif sm > mem:
        title = "Compute-Bound" if sm >= BUSY_PCT else "Compute-Leaning"
        text = ("{} The SMs are the busier side (by {:.1f} points). Look at {} to see which pipeline "
                "is the busiest, and at @section:InstructionStats:Instruction Statistics@ for the "
                "instruction mix; removing redundant arithmetic or using cheaper instructions (lower "
                "precision, fused operations, look-up tables) shortens the kernel.").format(
                    figures, gap, compute_link)
        if sm < BUSY_PCT:
            text += (" Since the SMs are still below {:.0f}%, latency also matters: see {}.").format(
                BUSY_PCT, stall_links)
        focus.append((SM_PCT, sm, F.Severity_SEVERITY_HIGH if sm >= BUSY_PCT else F.Severity_SEVERITY_LOW,
                      "Dominant unit ({:.1f} points above memory)".format(gap)))
    else:
        unit, unit_pct = _busiest_memory_unit(action)
        title = "Memory-Bound" if mem >= BUSY_PCT else "Memory-Leaning"
        where = ""
        if unit is not None and unit_pct is not None:
            where = " The busiest memory unit is the {} at {:.1f}% of its peak.".format(unit, unit_pct)
        text = ("{} The memory system is the busier side (by {:.1f} points).{} Look at {} for where the "
                "traffic goes. Check that accesses are coalesced and cached well, move less data "
                "(smaller types, reuse through shared memory, fusing kernels), or do more work per "
                "byte loaded.").format(figures, gap, where, memory_link)
        if mem < BUSY_PCT:
            text += (" Since memory is still below {:.0f}%, latency also matters: see {}.").format(
                BUSY_PCT, stall_links)
        focus.append((MEM_PCT, mem, F.Severity_SEVERITY_HIGH if mem >= BUSY_PCT else F.Severity_SEVERITY_LOW,
                      "Dominant unit ({:.1f} points above SM)".format(gap)))

    if headroom > 0.0 and msg_type != F.MsgType_MSG_OK:
        text += (" If the busiest unit reached {:.0f}% with the same work, the kernel would take about "
                 "{:.0f}% less time.").format(ATTAINABLE_PCT, headroom)

    msg_id = fe.message(msg_type, text, title)
    if msg_type != F.MsgType_MSG_OK:
        _add_speedup(fe, msg_id, True, headroom)
    for name, value, severity, info in focus:
        fe.focus_metric(msg_id, name, value, severity, info)
