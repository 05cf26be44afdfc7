"""CUDA synchronous memsets: memsets of pinned host memory or Unified Memory, which run
synchronously. Sightline's rule, written from the documented behaviour of nsys analyze's rule of
the same name."""

import timeline

NAME = "cuda_memset_sync"
TITLE = "CUDA Synchronous Memset"
DESCRIPTION = """
A memset of pinned host memory or of a Unified Memory region is synchronous: the host thread
waits for it. Each row is one such memset on the GPU, longest first. Set device memory, or use
cudaMemsetAsync() on device allocations.
"""
OPTIONS = {"rows": 50, "start": None, "end": None}

MEMSET = "CUPTI_ACTIVITY_KIND_MEMSET"
COLUMNS = [
    "Duration (ns)", "Start (ns)", "Memory Kind", "Bytes (MB)", "PID", "Device ID",
    "Context ID", "Green Context ID", "Stream ID", "API Name",
]


def analyze(trace, options):
    # Without CUDA API calls nsys names the runtime, even where the memset table is missing too.
    if not trace.has("CUPTI_ACTIVITY_KIND_RUNTIME"):
        raise timeline.Skipped(
            "%s could not be analyzed because it does not contain the required CUDA data."
            " Does the application use CUDA runtime APIs?" % trace.path
        )
    if not trace.has(MEMSET):
        raise timeline.Skipped(
            "%s could not be analyzed because it does not contain the required CUDA data."
            " Does the application use CUDA memset APIs?" % trace.path
        )
    sets = trace.events("gpu").where("op", "==", "memset").where("api", "not contains", "Async")
    sets = sets.where("mem_kind", "in", ["Pinned", "Managed"])
    sets = timeline.window(sets, options)
    top = sets.sort("-duration", "rowid").head(options["rows"])
    rows = timeline.format_rows(
        top,
        ("duration", "start", "mem_kind", "bytes", "pid", "device", "context", "green_context",
         "stream", "api"),
        megabytes=("bytes",),
        blank_zero=("green_context",),
    )
    return timeline.Result(COLUMNS, rows, events=top)
