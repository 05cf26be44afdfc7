"""GPU time utilization: stretches where a GPU was mostly idle for a process. Sightline's rule,
written from the documented behaviour of nsys analyze's rule of the same name and checked
against its output."""

from fractions import Fraction

import timeline

NAME = "gpu_time_util"
TITLE = "GPU Time Utilization"
DESCRIPTION = """
For each process and GPU (and context), the time from its first GPU operation to the end of its
last is cut into `chunks` equal chunks, and each chunk's in-use share is the time its kernels,
copies and memsets ran (concurrent operations add up, so it may pass 100 %), plus the
profiler's "CUDA profiling overhead" in that process (old captures), which the user cannot
address. Chunks under
`threshold` percent are listed, consecutive ones joined (their share weighted by length), least
used first. Low use means the GPU waits for the host or for dependencies: overlap copies and
kernels on streams, batch small launches, move host work off the critical path.
"""
OPTIONS = {"rows": 50, "start": None, "end": None, "threshold": 50, "chunks": 30}

GPU_TABLES = ["CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"]
# PROFILER_OVERHEAD rows that nsys counts as in-use time (of the process, on each of its GPUs):
# only these; "CUPTI: Buffer flush", "TLS allocation", ... are not counted (checked with nsys
# analyze on the corpus, notes/nsys-analyze.md).
GPU_OVERHEAD = ["CUDA profiling overhead"]


def overhead_by_pid(trace):
    """(start, end) of the counted profiler overhead, per process id."""
    by_pid = {}
    rows = trace.events("profiler_overhead").where("name", "in", GPU_OVERHEAD)
    for start, end, pid in rows.rows("start", "end", "pid"):
        by_pid.setdefault(pid, []).append((start, end))
    return by_pid


def overhead_in(spans, start, end):
    """The time of `spans` inside [start, end)."""
    return sum(max(0, min(e, end) - max(s, start)) for s, e in spans)


def analyze(trace, options):
    if not any(trace.has(t) for t in GPU_TABLES):
        raise timeline.Skipped(
            "%s could not be analyzed because it does not contain the required data."
            " Does the application launch GPU operations?" % trace.path
        )
    chunks = int(options["chunks"])
    if not 1 <= chunks <= 1000:
        raise ValueError("chunks must be an integer between 1 and 1000, not %r" % chunks)
    threshold = options["threshold"]
    if not isinstance(threshold, int):
        raise ValueError("threshold must be a whole percentage, not %r" % (threshold,))
    ops = timeline.window(trace.events("gpu"), options)
    overhead = overhead_by_pid(trace)
    found = []  # [start, active, busy, pid, device, context]
    run = None
    for start, active, busy, *key in ops.utilization(["pid", "device", "context"], chunks):
        busy += overhead_in(overhead.get(key[0], ()), start, start + active)
        low = active > 0 and 100 * busy < threshold * active
        if low and run is not None and run[3:] == key and run[0] + run[1] == start:
            run[1] += active
            run[2] += busy
            continue
        if run is not None:
            found.append(run)
        run = [start, active, busy, *key] if low else None
    if run is not None:
        found.append(run)
    found.sort(key=lambda f: (Fraction(f[2], f[1]), f[1]))
    rows = options["rows"]
    if rows >= 0:
        found = found[:rows]
    return timeline.Result(
        ["Row#", "In-Use (%)", "Duration (ns)", "Start (ns)", "PID", "Device ID", "Context ID"],
        [(i + 1, timeline.fixed(100 * busy, active, 1), active, start, pid, device, context)
         for i, (start, active, busy, pid, device, context) in enumerate(found)],
        ranges=[(f[0], f[0] + f[1]) for f in found],
    )
