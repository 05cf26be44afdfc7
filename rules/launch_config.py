# Sightline bundled rule: launch configuration (grid and block shape).
#
# Part of Sightline (an independent viewer for Nsight Compute reports). This file is
# Sightline's own work; it uses the NvRules interface but no NVIDIA rule code or text.
#
# Checks three things that depend only on how the kernel was launched:
#   - block size not a multiple of the warp size (idle lanes in every block),
#   - grid smaller than one wave (fewer blocks than SMs, or than block slots),
#   - a partial last wave (tail effect).
import math

import NvRules
from sightline_rule_helpers import (
    value as _value,
    first_value as _first_value,
    optimization_type as _optimization_type,
    add_speedup as _add_speedup,
)

WARP_SIZE = 32
# Report a tail effect when the partial last wave costs at least this share of runtime [%].
TAIL_MIN_LOSS_PCT = 5.0
# Report a sub-wave grid when at least this share of block slots stays empty [%].
PARTIAL_WAVE_MIN_IDLE_PCT = 10.0

GRID = "launch__grid_size"
BLOCK = "launch__block_size"
WAVES = "launch__waves_per_multiprocessor"
SM_COUNT_NAMES = ("launch__sm_count", "device__attribute_multiprocessor_count")
LIMIT_NAMES = ("launch__occupancy_limit_registers", "launch__occupancy_limit_shared_mem",
               "launch__occupancy_limit_warps", "launch__occupancy_limit_blocks",
               "launch__occupancy_limit_barriers")


def get_identifier():
    return "SightlineLaunchConfig"


def get_name():
    return "Launch Configuration"


def get_description():
    return "Block size vs. warp size, grids smaller than the GPU, and partial last waves (tail effect)."


def get_section_identifier():
    return "LaunchStats"


def apply(handle):
    ctx = NvRules.get_context(handle)
    action = ctx.range_by_idx(0).action_by_idx(0)
    fe = ctx.frontend()
    F = NvRules.IFrontend
    opt = _optimization_type()

    grid = _value(action, GRID)
    block = _value(action, BLOCK)
    waves = _value(action, WAVES)
    sm_name, sms = _first_value(action, SM_COUNT_NAMES)
    if grid is None and block is None:
        return  # not a kernel launch with launch statistics

    limits = [v for v in (_value(action, n) for n in LIMIT_NAMES) if v is not None and v > 0.0]
    blocks_per_sm = min(limits) if limits else None

    findings = 0

    # Block size vs. warp size.
    if block is not None and block > 0.0:
        warps = math.ceil(block / WARP_SIZE)
        lanes = warps * WARP_SIZE
        idle = lanes - block
        if idle > 0:
            idle_pct = 100.0 * idle / lanes
            msg_id = fe.message(
                opt,
                ("The block size of {:.0f} threads is not a multiple of the warp size ({}). Each block "
                 "occupies {:.0f} warps, and {:.0f} of its {:.0f} lanes never run, so {:.1f}% of the "
                 "lanes the kernel occupies do no work. Round the block size up or down to a multiple "
                 "of {} and adjust the grid.").format(block, WARP_SIZE, warps, idle, lanes, idle_pct, WARP_SIZE),
                "Block Size Not a Multiple of {}".format(WARP_SIZE))
            _add_speedup(fe, msg_id, False, idle_pct)
            fe.focus_metric(msg_id, BLOCK, block, F.Severity_SEVERITY_HIGH,
                            "{:.0f} is not a multiple of {}".format(block, WARP_SIZE))
            findings += 1

    # Grid smaller than the GPU, partial wave, tail.
    if grid is not None and grid > 0.0 and sms is not None and sms > 0.0 and grid < sms:
        idle_pct = 100.0 * (1.0 - grid / sms)
        msg_id = fe.message(
            opt,
            ("The grid has {:.0f} block(s) for {:.0f} SMs, so {:.0f} SMs ({:.0f}%) get no work at all. "
             "Split the work into at least as many blocks as there are SMs (ideally several per SM), "
             "or run independent kernels concurrently in separate streams.").format(
                 grid, sms, sms - grid, idle_pct),
            "Grid Smaller Than the GPU")
        _add_speedup(fe, msg_id, True, idle_pct)
        fe.focus_metric(msg_id, GRID, grid, F.Severity_SEVERITY_HIGH,
                        "{:.0f} blocks < {:.0f} SMs".format(grid, sms))
        findings += 1
    elif waves is not None and 0.0 < waves < 1.0:
        idle_pct = 100.0 * (1.0 - waves)
        if idle_pct >= PARTIAL_WAVE_MIN_IDLE_PCT:
            slots = ""
            if blocks_per_sm is not None and sms is not None:
                slots = " ({:.0f} SMs x {:.0f} blocks each = {:.0f} slots)".format(
                    sms, blocks_per_sm, sms * blocks_per_sm)
            msg_id = fe.message(
                opt,
                ("The grid fills only {:.2f} of one wave: {:.0f}% of the GPU's block slots{} stay empty "
                 "for the whole kernel, which caps achieved occupancy. More, smaller blocks or more "
                 "work per launch use the GPU fully.").format(waves, idle_pct, slots),
                "Grid Smaller Than One Wave")
            _add_speedup(fe, msg_id, False, idle_pct)
            fe.focus_metric(msg_id, WAVES, waves, F.Severity_SEVERITY_HIGH,
                            "{:.2f} waves < 1".format(waves))
            findings += 1
    elif waves is not None and waves >= 1.0:
        full = math.floor(waves)
        partial = waves - full
        total = math.ceil(waves)
        if partial > 1e-6 and total > 0:
            loss_pct = 100.0 * (total - waves) / total
            if loss_pct >= TAIL_MIN_LOSS_PCT:
                msg_id = fe.message(
                    opt,
                    ("The grid runs as {:.2f} waves: {:d} full wave(s) and a last wave that is only "
                     "{:.0f}% full. If blocks take similar time, the kernel needs {:d} wave durations "
                     "for {:.2f} waves of work, so the empty part of the last wave costs about {:.1f}% "
                     "of the runtime. Choose the grid (or the work per block) so that the number of "
                     "waves is close to a whole number, or much larger so the tail matters less.").format(
                         waves, int(full), 100.0 * partial, int(total), waves, loss_pct),
                    "Tail Effect")
                _add_speedup(fe, msg_id, True, loss_pct)
                fe.focus_metric(msg_id, WAVES, waves, F.Severity_SEVERITY_LOW,
                                "Last wave {:.0f}% full".format(100.0 * partial))
                findings += 1

    if findings == 0:
        parts = []
        if grid is not None:
            parts.append("{:.0f} blocks".format(grid))
        if block is not None:
            parts.append("{:.0f} threads per block".format(block))
        if waves is not None:
            parts.append("{:.2f} waves per SM".format(waves))
        fe.message(F.MsgType_MSG_OK,
                   "Launch configuration: {}. No idle lanes, no idle SMs and no costly tail.".format(
                       ", ".join(parts)),
                   "Launch Configuration")
