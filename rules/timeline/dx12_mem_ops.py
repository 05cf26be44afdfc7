"""DX12 memory operations that cost more than they need to: heaps and committed resources
created with zeroing, reads from upload heaps or write-combine pages, writes to readback heaps or
from write-back pages. Sightline's rule, written from the documented behaviour of nsys analyze's
rule of the same name and checked against its output."""

import timeline

NAME = "dx12_mem_ops"
TITLE = "DX12 Memory Operations"
DESCRIPTION = """
Memory operations the driver has to do more work for. A heap (ID3D12Device::CreateHeap) or a
committed resource (CreateCommittedResource) created without D3D12_HEAP_FLAG_CREATE_NOT_ZEROED is
zeroed first: add the flag when the contents will be written anyway. ReadFromSubresource from an
upload heap or into a write-combine CPU page, and WriteToSubresource to a readback heap or from a
write-back CPU page, go against what those heaps and pages are made for. Each row is one such
operation, longest call first.
"""
OPTIONS = {"rows": 50, "start": None, "end": None}

# D3D12 values as the export stores them (checked with nsys analyze on probe exports).
HEAP_UPLOAD = 1
HEAP_READBACK = 2
PAGE_WRITE_COMBINE = 2
PAGE_WRITE_BACK = 3
NOT_ZEROED = 0x1000

# (call, test on (heap type, heap flags, page property), warning)
CHECKS = [
    ("::CreateHeap", lambda h, f, p: (f or 0) & NOT_ZEROED == 0, "HEAP_CREATED_WITH_ZEROING"),
    (
        "::CreateCommittedResource",
        lambda h, f, p: (f or 0) & NOT_ZEROED == 0,
        "COMMITTED_RESOURCE_CREATED_WITH_ZEROING",
    ),
    ("::ReadFromSubresource", lambda h, f, p: h == HEAP_UPLOAD, "READ_FROM_UPLOAD_HEAP_SUBRESOURCE"),
    (
        "::ReadFromSubresource",
        lambda h, f, p: p == PAGE_WRITE_COMBINE,
        "READ_FROM_SUBRESOURCE_TO_WRITE_COMBINE_PAGE",
    ),
    ("::WriteToSubresource", lambda h, f, p: h == HEAP_READBACK, "WRITE_TO_READBACK_HEAP_SUBRESOURCE"),
    (
        "::WriteToSubresource",
        lambda h, f, p: p == PAGE_WRITE_BACK,
        "WRITE_TO_SUBRESOURCE_FROM_WRITE_BACK_PAGE",
    ),
]


def analyze(trace, options):
    if not (trace.has("DX12_MEMORY_OPERATION") and trace.has("DX12_API")):
        raise timeline.Skipped(
            "%s could not be analyzed because it does not contain the required DX12 data."
            " Does the application use DX12 APIs?" % trace.path
        )
    ops = timeline.window(trace.events("dx12_mem"), options)
    found = []
    for call, test, warning in CHECKS:
        candidates = ops.where("name", "not null").where("name", "contains", call)
        for row, ref in zip(
            candidates.rows(
                "name", "duration", "start", "tid", "device", "heap_type", "heap_flags",
                "page_property",
            ),
            candidates.refs(),
        ):
            name, duration, start, tid, device, heap, flags, page = row
            if name.endswith(call) and test(heap, flags, page):
                found.append((duration, start, tid, device, "D3D12_" + warning, ref))
    found.sort(key=lambda f: (-f[0], f[1]))
    if options["rows"] >= 0:
        found = found[: options["rows"]]
    return timeline.Result(
        ["Duration (ns)", "Start (ns)", "TID", "Device ID", "Warning Type"],
        [f[:5] for f in found],
        events=[f[5] for f in found],
    )
