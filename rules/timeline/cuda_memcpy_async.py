"""CUDA asynchronous copies with pageable memory: cudaMemcpyAsync() and friends that run
synchronously because one side is pageable host memory. Sightline's rule, written from the
documented behaviour of nsys analyze's rule of the same name and checked against its output."""

import timeline

NAME = "cuda_memcpy_async"
TITLE = "CUDA Async Memcpy with Pageable Memory"
DESCRIPTION = """
An asynchronous copy from or to pageable host memory is staged through a pinned buffer by the
driver and returns only when the copy is done: the host thread blocks and the copy cannot
overlap with other work. Each row is one such copy on the GPU, longest first. Allocate the host
side with cudaMallocHost() / cudaHostAlloc(), or register it with cudaHostRegister().
"""
OPTIONS = {"rows": 50, "start": None, "end": None}

MEMCPY = "CUPTI_ACTIVITY_KIND_MEMCPY"
COLUMNS = [
    "Duration (ns)", "Start (ns)", "Src Kind", "Dst Kind", "Bytes (MB)", "PID", "Device ID",
    "Context ID", "Green Context ID", "Stream ID", "API Name",
]


COPY_COLUMNS = (
    "duration", "start", "src_kind", "dst_kind", "bytes", "pid", "device", "context",
    "green_context", "stream", "api",
)


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
    # Runtime API calls only (cudaMemcpyAsync, cudaMemcpy2DAsync, ...): nsys does not list the
    # driver's cuMemcpyHtoDAsync_v2 / cuMemcpyDtoHAsync_v2 from or to pageable memory.
    copies = trace.events("gpu").where("op", "==", "memcpy").where("api", "prefix", ["cuda"])
    copies = copies.where("api", "contains", "Async")
    pageable = copies.where("src_kind", "==", "Pageable").union(
        copies.where("dst_kind", "==", "Pageable")
    )
    pageable = timeline.window(pageable, options)
    top = pageable.sort("-duration", "rowid").head(options["rows"])
    rows = timeline.format_rows(top, COPY_COLUMNS, megabytes=("bytes",), blank_zero=("green_context",))
    return timeline.Result(COLUMNS, rows, events=top)
