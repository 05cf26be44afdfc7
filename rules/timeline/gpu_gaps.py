"""GPU gaps: stretches where a GPU did nothing for a process. Sightline's rule, written from the
documented behaviour of nsys analyze's rule of the same name and checked against its output."""

import timeline

NAME = "gpu_gaps"
TITLE = "GPU Gaps"
DESCRIPTION = """
For each process and GPU (and context), between the start of its first GPU operation and the
end of its last, the stretches where none of its kernels, copies or memsets ran, of at least
`gap` milliseconds. Each row is one gap, longest first. A gap means the GPU waited for the host:
look at what the host threads did just before it ends (synchronization, I/O, allocation).
"""
OPTIONS = {"rows": 50, "start": None, "end": None, "gap": 500}

GPU_TABLES = ["CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"]


def analyze(trace, options):
    if not any(trace.has(t) for t in GPU_TABLES):
        raise timeline.Skipped(
            "%s could not be analyzed because it does not contain the required data."
            " Does the application launch GPU operations?" % trace.path
        )
    ops = timeline.window(trace.events("gpu"), options)
    gaps = ops.gaps(["pid", "device", "context"], int(options["gap"] * 1000000))
    gaps.sort(key=lambda g: (-(g[1] - g[0]), g[0]))
    rows = options["rows"]
    if rows >= 0:
        gaps = gaps[:rows]
    return timeline.Result(
        ["Row#", "Duration (ns)", "Start (ns)", "PID", "Device ID", "Context ID"],
        [(i + 1, end - start, start, pid, device, context)
         for i, (start, end, pid, device, context) in enumerate(gaps)],
        ranges=[(start, end) for start, end, *_ in gaps],
    )
