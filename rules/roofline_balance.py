# Sightline bundled rule: compute vs. memory balance on the DRAM roofline.
#
# Part of Sightline (an independent viewer for Nsight Compute reports). This file is
# Sightline's own work; it uses the NvRules interface but no NVIDIA rule code or text.
#
# Computes the kernel's arithmetic intensity (floating-point operations per DRAM byte) from
# the achieved FP32/FP64 operation rates and the achieved DRAM bandwidth, compares it with
# the device's ridge point (peak FLOP/s / peak DRAM bytes/s) and reports how far the kernel
# is below the roof that applies at its intensity.
import NvRules
from sightline_rule_helpers import (
    value as _value,
    optimization_type as _optimization_type,
    add_speedup as _add_speedup,
)

# The kernel counts as sitting on the roof at or above this share of the attainable rate [%].
NEAR_ROOF_PCT = 80.0
# Intensities within this factor of the ridge point are reported as "near the ridge".
RIDGE_BAND = 1.5
# Less than this many FLOP/s is treated as "no floating-point work".
MIN_FLOPS = 1.0

SMSP_CLOCK = "smsp__cycles_elapsed.avg.per_second"
SM_CLOCK = "sm__cycles_elapsed.avg.per_second"
DRAM_BYTES_PER_SECOND = "dram__bytes.sum.per_second"
DRAM_PEAK_BYTES_PER_CYCLE = "dram__bytes.sum.peak_sustained"
DRAM_CLOCK = "dram__cycles_elapsed.avg.per_second"

# precision -> (add, mul, fma) achieved per-cycle counters, and the peak FMA counter.
_PRECISIONS = (
    ("FP32",
     ("smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed",
      "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed",
      "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed"),
     "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained"),
    ("FP64",
     ("smsp__sass_thread_inst_executed_op_dadd_pred_on.sum.per_cycle_elapsed",
      "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum.per_cycle_elapsed",
      "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum.per_cycle_elapsed"),
     "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained"),
)


def get_identifier():
    return "SightlineRooflineBalance"


def get_name():
    return "Compute vs. Memory Balance"


def get_description():
    return "Arithmetic intensity against the device's DRAM roofline ridge point, and the distance to the roof."


def get_section_identifier():
    return "SpeedOfLight"


def _rate(value):
    """Human-readable rate: 1.23 T, 45.6 G, ..."""
    for factor, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= factor:
            return "{:.3g} {}".format(value / factor, prefix)
    return "{:.3g} ".format(value)


def _precision_figures(action, adds_muls_fmas, peak_fma_name, smsp_clock, sm_clock):
    """(achieved FLOP/s, peak FLOP/s) for one precision, or None if the counters are missing."""
    add_name, mul_name, fma_name = adds_muls_fmas
    add = _value(action, add_name)
    mul = _value(action, mul_name)
    fma = _value(action, fma_name)
    peak_fma = _value(action, peak_fma_name)
    if None in (add, mul, fma, peak_fma) or smsp_clock is None or sm_clock is None:
        return None
    achieved = (add + mul + 2.0 * fma) * smsp_clock  # an FMA counts as two operations
    peak = 2.0 * peak_fma * sm_clock
    if peak <= 0.0:
        return None
    return achieved, peak


def apply(handle):
    ctx = NvRules.get_context(handle)
    action = ctx.range_by_idx(0).action_by_idx(0)
    fe = ctx.frontend()
    F = NvRules.IFrontend

    smsp_clock = _value(action, SMSP_CLOCK)
    sm_clock = _value(action, SM_CLOCK)
    if sm_clock is None:
        sm_clock = smsp_clock
    dram_bw = _value(action, DRAM_BYTES_PER_SECOND)
    dram_peak_per_cycle = _value(action, DRAM_PEAK_BYTES_PER_CYCLE)
    dram_clock = _value(action, DRAM_CLOCK)
    if None in (dram_bw, dram_peak_per_cycle, dram_clock) or dram_peak_per_cycle <= 0.0:
        return  # no roofline counters in this result
    dram_peak = dram_peak_per_cycle * dram_clock
    if dram_peak <= 0.0:
        return

    figures = []
    for label, counters, peak_name in _PRECISIONS:
        result = _precision_figures(action, counters, peak_name, smsp_clock, sm_clock)
        if result is not None:
            figures.append((label, result[0], result[1]))
    if not figures:
        return  # the floating-point counters were not collected

    # Judge the precision that carries most of the floating-point work.
    label, flops, peak_flops = max(figures, key=lambda item: item[1])
    if flops < MIN_FLOPS:
        fe.message(F.MsgType_MSG_NONE,
                   "The kernel executes no FP32 or FP64 add, multiply or FMA instructions, so the "
                   "floating-point roofline does not describe it. Use the SM and memory throughput "
                   "in this section instead.",
                   "No Floating-Point Work")
        return

    ridge = peak_flops / dram_peak  # FLOP per byte where the two roofs meet
    if dram_bw <= 0.0:
        intensity = float("inf")
        attainable = peak_flops
    else:
        intensity = flops / dram_bw
        attainable = min(peak_flops, intensity * dram_peak)
    achieved_pct = 100.0 * flops / attainable if attainable > 0.0 else 0.0
    achieved_pct = min(achieved_pct, 100.0)
    # Same FLOPs and bytes, running at the roof instead of below it.
    headroom = max(0.0, (1.0 - flops / attainable) * 100.0) if attainable > 0.0 else 0.0

    if intensity == float("inf"):
        side = "compute"
        where = "The kernel reads and writes no DRAM data, so only the {} compute roof applies.".format(label)
    elif intensity < ridge / RIDGE_BAND:
        side = "memory"
        where = ("Its arithmetic intensity of {:.3g} {} FLOP/byte is below the ridge point of {:.3g} "
                 "FLOP/byte, so DRAM bandwidth caps its floating-point rate at {}FLOP/s.").format(
                     intensity, label, ridge, _rate(attainable))
    elif intensity > ridge * RIDGE_BAND:
        side = "compute"
        where = ("Its arithmetic intensity of {:.3g} {} FLOP/byte is above the ridge point of {:.3g} "
                 "FLOP/byte, so the {} peak of {}FLOP/s is the roof.").format(
                     intensity, label, ridge, label, _rate(peak_flops))
    else:
        side = "ridge"
        where = ("Its arithmetic intensity of {:.3g} {} FLOP/byte is close to the ridge point of {:.3g} "
                 "FLOP/byte: bandwidth and {} peak limit it about equally.").format(
                     intensity, label, ridge, label)

    text = "The kernel achieves {}FLOP/s {} ({:.1f}% of the {}FLOP/s peak) and {}B/s of DRAM bandwidth ({:.1f}% of {}B/s). ".format(
        _rate(flops), label, 100.0 * flops / peak_flops, _rate(peak_flops),
        _rate(dram_bw), 100.0 * dram_bw / dram_peak, _rate(dram_peak)) + where

    others = [item for item in figures if item[0] != label and item[1] >= MIN_FLOPS]
    for other_label, other_flops, other_peak in others:
        text += " It also runs {}FLOP/s {} ({:.1f}% of that peak).".format(
            _rate(other_flops), other_label, 100.0 * other_flops / other_peak)

    if achieved_pct >= NEAR_ROOF_PCT:
        msg_type = F.MsgType_MSG_OK
        title = "Near the Roofline"
        text += " At {:.0f}% of the attainable rate it is close to the roof; ".format(achieved_pct)
        if side == "memory":
            text += "only raising the intensity (more operations per byte: reuse data in registers or shared memory, fuse kernels, use smaller types) moves it further."
        elif side == "compute":
            text += "only fewer or cheaper operations (or tensor cores) move it further."
        else:
            text += "both fewer bytes and fewer operations are needed to move it further."
    else:
        msg_type = _optimization_type()
        title = "Below the Roofline"
        text += (" It reaches {:.0f}% of the attainable rate; at the roof the same work would take about "
                 "{:.0f}% less time.").format(achieved_pct, headroom)
        if side == "memory":
            text += (" A memory-side kernel this far below the roof is limited by latency or by traffic "
                     "other than DRAM; see @section:MemoryWorkloadAnalysis:Memory Workload Analysis@ "
                     "and @section:WarpStateStats:Warp State Statistics@.")
        else:
            text += (" See @section:ComputeWorkloadAnalysis:Compute Workload Analysis@ for pipeline "
                     "use and @section:WarpStateStats:Warp State Statistics@ for stalls.")

    msg_id = fe.message(msg_type, text, title)
    if msg_type != F.MsgType_MSG_OK:
        _add_speedup(fe, msg_id, True, headroom)
    fe.focus_metric(msg_id, DRAM_BYTES_PER_SECOND, dram_bw,
                    F.Severity_SEVERITY_HIGH if side == "memory" else F.Severity_SEVERITY_LOW,
                    "Achieved DRAM bandwidth; the roof is {}B/s".format(_rate(dram_peak)))
