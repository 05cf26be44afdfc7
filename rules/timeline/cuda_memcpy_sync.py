"""CUDA synchronous copies: cudaMemcpy() and friends without the Async suffix, which block the
host thread. Sightline's rule, written from the documented behaviour of nsys analyze's rule of
the same name and checked against its output."""

import timeline

NAME = "cuda_memcpy_sync"
TITLE = "CUDA Synchronous Memcpy"
DESCRIPTION = """
A synchronous copy returns only when the data has arrived: the host thread issues nothing in
the meantime and the copy cannot overlap with kernels. Each row is one such copy on the GPU,
longest first; copies within one device and host-to-device copies of 64 KB or less are left
out (they return early). Use cudaMemcpyAsync() on a stream with pinned host memory.
"""
OPTIONS = {"rows": 50, "start": None, "end": None}

MEMCPY = "CUPTI_ACTIVITY_KIND_MEMCPY"
COLUMNS = [
    "Duration (ns)", "Start (ns)", "Src Kind", "Dst Kind", "Bytes (MB)", "PID", "Device ID",
    "Context ID", "Green Context ID", "Stream ID", "API Name",
]
# Host-to-device copies of this many bytes or fewer return before the copy is done (64 KB;
# nsys counts 64000 bytes, not 65536, as checked with nsys analyze on fixtures/nsys/expert.sqlite).
SMALL_HTOD = 64000


def analyze(trace, options):
    # Without CUDA API calls nsys names the runtime, even where the memcpy table is missing too.
    if not trace.has("CUPTI_ACTIVITY_KIND_RUNTIME"):
        raise timeline.Skipped(
            "%s could not be analyzed because it does not contain the required CUDA data."
            " Does the application use CUDA runtime APIs?" % trace.path
        )
    if not trace.has(MEMCPY):
        raise timeline.Skipped(
            "%s could not be analyzed because it does not contain the required CUDA data."
            " Does the application use CUDA memcpy APIs?" % trace.path
        )
    copies = trace.events("gpu").where("op", "==", "memcpy").where("api", "not contains", "Async")
    # Within one device (source and destination devices named and equal): asynchronous.
    copies = copies.minus(copies.equal("src_device", "dst_device"))
    small_htod = copies.where("copy_kind", "==", "Host-to-Device").where("bytes", "<=", SMALL_HTOD)
    found = timeline.window(copies.minus(small_htod), options)
    # Equal durations keep the export's order (as nsys lists them).
    top = found.sort("-duration").head(options["rows"])
    rows = timeline.format_rows(
        top,
        ("duration", "start", "src_kind", "dst_kind", "bytes", "pid", "device", "context",
         "green_context", "stream", "api"),
        megabytes=("bytes",),
        blank_zero=("green_context",),
    )
    return timeline.Result(COLUMNS, rows, events=top)
