"""CUDA synchronization APIs: the calls that block a host thread until the GPU work issued
before them is done. Sightline's rule, written from the documented behaviour of nsys analyze's
rule of the same name and checked against its output."""

import timeline

NAME = "cuda_api_sync"
TITLE = "CUDA Synchronization APIs"
DESCRIPTION = """
The host thread waits in cudaDeviceSynchronize() or cudaStreamSynchronize() until the CUDA work
issued before the call has completed; while it waits it issues no new work, and the GPU may
run dry behind it. Each row is one call, longest first. Synchronize only where the host needs
the results; use events (cudaEventRecord / cudaStreamWaitEvent) to order work between streams
without blocking the host.
"""
OPTIONS = {"rows": 50, "start": None, "end": None, "process": None, "thread": None}

SYNC_APIS = ["cudaDeviceSynchronize", "cudaStreamSynchronize"]


def analyze(trace, options):
    if not trace.has("CUPTI_ACTIVITY_KIND_RUNTIME"):
        raise timeline.Skipped(
            "%s could not be analyzed because it does not contain the required CUDA data."
            " Does the application use CUDA runtime APIs?" % trace.path
        )
    calls = trace.events("cuda_api").where("name", "prefix", SYNC_APIS)
    calls = timeline.window(calls, options)
    top = calls.sort("-duration", "rowid").head(options["rows"])
    return timeline.Result(
        ["Duration (ns)", "Start (ns)", "PID", "TID", "API Name"],
        top.rows("duration", "start", "pid", "tid", "name"),
        events=top,
    )
