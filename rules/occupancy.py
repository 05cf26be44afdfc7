# Sightline bundled rule: theoretical and achieved occupancy.
#
# Part of Sightline (an independent viewer for Nsight Compute reports). This file is
# Sightline's own work; it uses the NvRules interface but no NVIDIA rule code or text.
#
# 1. Theoretical occupancy below 100%: names the launch resource that caps the number of
#    resident blocks per SM (registers, shared memory, warps, block slots, barriers) and
#    what occupancy the next limit would allow.
# 2. Achieved occupancy well below theoretical: warps leave SMs idle at run time (tail,
#    small grid, uneven block durations).
import math

import NvRules
from sightline_rule_helpers import (
    value as _value,
    optimization_type as _optimization_type,
    add_speedup as _add_speedup,
)

# Report a limiter when theoretical occupancy is below this [%].
THEORETICAL_TARGET_PCT = 100.0
# Ignore what-if gains smaller than this many points of occupancy.
MIN_LIMITER_GAIN_PCT = 5.0
# Report achieved < theoretical when the relative gap is at least this [%].
ACHIEVED_GAP_PCT = 10.0
# Fewer waves than this: the grid cannot fill every block slot once.
MIN_WAVES = 1.0

THEORETICAL = "sm__maximum_warps_per_active_cycle_pct"
ACHIEVED = "sm__warps_active.avg.pct_of_peak_sustained_active"
THEORETICAL_WARPS = "sm__maximum_warps_avg_per_active_cycle"
MAX_WARPS_PER_SM = "device__attribute_max_warps_per_multiprocessor"
BLOCK_SIZE = "launch__block_size"
WAVES = "launch__waves_per_multiprocessor"
REGISTERS = "launch__registers_per_thread"
SHARED_MEM = "launch__shared_mem_per_block"

# metric -> (short name, advice)
_LIMITS = (
    ("launch__occupancy_limit_registers", "registers",
     "Each thread uses {regs} registers. Fewer registers per thread (__launch_bounds__, "
     "-maxrregcount, less live state, smaller types) let more blocks fit."),
    ("launch__occupancy_limit_shared_mem", "shared memory",
     "Each block uses {smem} of shared memory. Smaller tiles, reusing buffers or a larger "
     "shared-memory carve-out let more blocks fit."),
    ("launch__occupancy_limit_warps", "warps per SM",
     "A block of {block} threads is {wpb} warps; the SM's warp slots are not a multiple of it. "
     "A block size that divides the SM's warp capacity evenly wastes no slots."),
    ("launch__occupancy_limit_blocks", "blocks per SM",
     "Blocks of {block} thread(s) are too small to fill the SM before its block-slot limit is "
     "reached. Use larger blocks (more threads per block)."),
    ("launch__occupancy_limit_barriers", "barriers",
     "The number of named barriers per block limits the resident blocks."),
    ("launch__occupancy_cluster_pct", None, None),  # reported, not a per-SM block limit
)


def get_identifier():
    return "SightlineOccupancy"


def get_name():
    return "Occupancy"


def get_description():
    return "Theoretical vs. achieved occupancy and the launch resource that limits it."


def get_section_identifier():
    return "Occupancy"


def _bytes(value):
    if value is None:
        return "an unknown amount"
    if value >= 1024.0:
        return "{:.1f} KiB".format(value / 1024.0)
    return "{:.0f} bytes".format(value)


def apply(handle):
    ctx = NvRules.get_context(handle)
    action = ctx.range_by_idx(0).action_by_idx(0)
    fe = ctx.frontend()
    F = NvRules.IFrontend
    opt = _optimization_type()

    theoretical = _value(action, THEORETICAL)
    achieved = _value(action, ACHIEVED)
    if theoretical is None and achieved is None:
        return

    block = _value(action, BLOCK_SIZE)
    warps_per_block = math.ceil(block / 32.0) if block else None
    max_warps = _value(action, MAX_WARPS_PER_SM)
    if max_warps is None:
        theo_warps = _value(action, THEORETICAL_WARPS)
        if theo_warps and theoretical:
            max_warps = theo_warps * 100.0 / theoretical

    limits = []
    for name, label, advice in _LIMITS:
        if label is None:
            continue
        value = _value(action, name)
        if value is not None and value >= 0.0:
            limits.append((value, name, label, advice))
    limits.sort(key=lambda item: item[0])

    reported = False

    # 1. Theoretical occupancy and its limiter.
    if theoretical is not None and theoretical < THEORETICAL_TARGET_PCT and limits:
        smallest = limits[0][0]
        binding = [item for item in limits if item[0] == smallest]
        # When the per-SM block-slot cap binds, resources that merely tie with it are capped by it
        # (for example a kernel without shared memory reports the cap as its shared-memory limit).
        capped = [item for item in binding if item[1] == "launch__occupancy_limit_blocks"]
        if capped:
            binding = capped
        others = [item for item in limits if item[0] > smallest]
        names = " and ".join(item[2] for item in binding)
        text = ("Theoretical occupancy is {:.1f}%: at most {:.0f} block(s) per SM fit, limited by {}.").format(
            theoretical, smallest, names)
        relaxed = None
        if others and warps_per_block and max_warps:
            next_blocks = others[0][0]
            relaxed = min(100.0, 100.0 * next_blocks * warps_per_block / max_warps)
            text += (" If that limit were lifted, the next one ({}) would allow {:.0f} blocks, "
                     "{:.1f}% occupancy.").format(others[0][2], next_blocks, relaxed)
        regs = _value(action, REGISTERS)
        smem = _value(action, SHARED_MEM)
        for _, _, _, advice in binding:
            text += " " + advice.format(
                regs="{:.0f}".format(regs) if regs is not None else "an unknown number of",
                smem=_bytes(smem),
                block="{:.0f}".format(block) if block else "?",
                wpb="{:.0f}".format(warps_per_block) if warps_per_block else "?")
        text += (" Higher occupancy helps when warps stall on latency; it does not help a kernel that "
                 "already saturates a pipeline or memory.")
        gain = None
        if relaxed is not None and relaxed - theoretical >= MIN_LIMITER_GAIN_PCT:
            gain = (relaxed - theoretical) / relaxed * 100.0
        titles = {"registers": "Registers", "shared memory": "Shared Memory", "warps per SM": "Warps per SM",
                  "blocks per SM": "Blocks per SM", "barriers": "Barriers"}
        title = "Occupancy Limited by " + " and ".join(titles.get(item[2], item[2]) for item in binding)
        msg_id = fe.message(opt, text, title)
        _add_speedup(fe, msg_id, False, gain)
        fe.focus_metric(msg_id, THEORETICAL, theoretical, F.Severity_SEVERITY_HIGH,
                        "Theoretical occupancy {:.1f}% < {:.0f}%".format(theoretical, THEORETICAL_TARGET_PCT))
        for value, name, label, _ in binding:
            fe.focus_metric(msg_id, name, value, F.Severity_SEVERITY_HIGH,
                            "Limiting resource: {}".format(label))
        reported = True

    # 2. Achieved vs. theoretical.
    if theoretical is not None and achieved is not None and theoretical > 0.0:
        gap = (theoretical - achieved) / theoretical * 100.0
        if gap >= ACHIEVED_GAP_PCT:
            waves = _value(action, WAVES)
            text = ("Achieved occupancy is {:.1f}% against a theoretical {:.1f}%: {:.0f}% of the warp "
                    "slots the launch allows stay empty on average.").format(achieved, theoretical, gap)
            if waves is not None and waves < MIN_WAVES:
                text += (" The grid fills only {:.2f} waves, so it cannot occupy every slot even once; "
                         "launch more blocks. See @section:LaunchStats:Launch Statistics@.").format(waves)
            else:
                text += (" Common causes: blocks of uneven duration (some SMs finish early), a partial "
                         "last wave, or warps within a block exiting at different times. See "
                         "@section:LaunchStats:Launch Statistics@ for the waves and "
                         "@section:WorkloadDistribution:Workload Distribution@ for the spread across SMs.")
            msg_id = fe.message(opt, text, "Achieved Occupancy Below Theoretical")
            _add_speedup(fe, msg_id, False, gap)
            fe.focus_metric(msg_id, ACHIEVED, achieved, F.Severity_SEVERITY_HIGH,
                            "Raise towards theoretical {:.1f}%".format(theoretical))
            fe.focus_metric(msg_id, THEORETICAL, theoretical, F.Severity_SEVERITY_LOW,
                            "Upper bound for achieved occupancy")
            reported = True

    if not reported:
        parts = []
        if theoretical is not None:
            parts.append("theoretical {:.1f}%".format(theoretical))
        if achieved is not None:
            parts.append("achieved {:.1f}%".format(achieved))
        fe.message(F.MsgType_MSG_OK,
                   "Occupancy: {}. No launch limit or run-time gap worth acting on.".format(", ".join(parts)),
                   "Occupancy")
