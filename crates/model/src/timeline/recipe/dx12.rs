//! The findings of `dx12_mem_ops`: DX12 memory operations with a warning — heaps and committed
//! resources created with zeroing, reads from upload heaps or into write-combine pages, writes
//! to readback heaps or from write-back pages — longest call first.

use super::RecipeOptions;
use super::analysis::{Value, all_rows, window};
use crate::timeline::nsys::trace::ops::OpError;
use crate::timeline::nsys::trace::{NULL, Trace};

/// `D3D12_HEAP_TYPE_UPLOAD`, as the export stores it.
const HEAP_UPLOAD: i64 = 1;
/// `D3D12_HEAP_TYPE_READBACK`.
const HEAP_READBACK: i64 = 2;
/// `D3D12_CPU_PAGE_PROPERTY_WRITE_COMBINE`.
const PAGE_WRITE_COMBINE: i64 = 2;
/// `D3D12_CPU_PAGE_PROPERTY_WRITE_BACK`.
const PAGE_WRITE_BACK: i64 = 3;
/// `D3D12_HEAP_FLAG_CREATE_NOT_ZEROED`.
const NOT_ZEROED: i64 = 0x1000;

/// A memory operation's heap type, heap flags and CPU page property (NULL when missing).
struct Memory {
    heap: i64,
    flags: i64,
    page: i64,
}

/// A test on an operation's memory.
type Check = fn(&Memory) -> bool;

/// Created with zeroing: without `CREATE_NOT_ZEROED` (no flags: zeroed).
fn zeroed(m: &Memory) -> bool {
    m.flags == NULL || m.flags & NOT_ZEROED == 0
}

/// The checks in the order the recipe lists them: the call's name ends with the method, the
/// test holds, the warning.
const CHECKS: [(&str, Check, &str); 6] = [
    ("::CreateHeap", zeroed, "D3D12_HEAP_CREATED_WITH_ZEROING"),
    (
        "::CreateCommittedResource",
        zeroed,
        "D3D12_COMMITTED_RESOURCE_CREATED_WITH_ZEROING",
    ),
    (
        "::ReadFromSubresource",
        |m| m.heap == HEAP_UPLOAD,
        "D3D12_READ_FROM_UPLOAD_HEAP_SUBRESOURCE",
    ),
    (
        "::ReadFromSubresource",
        |m| m.page == PAGE_WRITE_COMBINE,
        "D3D12_READ_FROM_SUBRESOURCE_TO_WRITE_COMBINE_PAGE",
    ),
    (
        "::WriteToSubresource",
        |m| m.heap == HEAP_READBACK,
        "D3D12_WRITE_TO_READBACK_HEAP_SUBRESOURCE",
    ),
    (
        "::WriteToSubresource",
        |m| m.page == PAGE_WRITE_BACK,
        "D3D12_WRITE_TO_SUBRESOURCE_FROM_WRITE_BACK_PAGE",
    ),
];

/// The operations with a warning, longest call first (then earliest; an operation may have two
/// warnings, in the checks' order).
pub(super) fn dx12_mem_ops(
    trace: &Trace,
    options: &RecipeOptions,
) -> Result<Option<Vec<Vec<Value>>>, OpError> {
    let Some(ops) = trace
        .table("dx12_mem")
        .filter(|_| trace.has("DX12_MEMORY_OPERATION", None) && trace.has("DX12_API", None))
    else {
        return Ok(None);
    };
    let rows = window(trace, ops, all_rows(ops), options)?;
    let value = |c: &str, r: u32| ops.value(c, r as usize).map_or(NULL, |v| v.1);
    // (duration, start, tid, device, warning)
    let mut found: Vec<(i64, i64, i64, i64, &str)> = Vec::new();
    for (call, check, warning) in CHECKS {
        for &r in &rows {
            let name = trace.text(value("name", r)).unwrap_or_default();
            let memory = Memory {
                heap: value("heap_type", r),
                flags: value("heap_flags", r),
                page: value("page_property", r),
            };
            if name.ends_with(call) && check(&memory) {
                let start = value("start", r);
                let duration = value("end", r).saturating_sub(start);
                found.push((
                    duration,
                    start,
                    value("tid", r),
                    value("device", r),
                    warning,
                ));
            }
        }
    }
    found.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let int = |v: i64| {
        if v == NULL {
            Value::Null
        } else {
            Value::Int(v)
        }
    };
    Ok(Some(
        found
            .into_iter()
            .map(|(duration, start, tid, device, warning)| {
                vec![
                    int(duration),
                    int(start),
                    int(tid),
                    int(device),
                    Value::Text(warning.to_owned()),
                ]
            })
            .collect(),
    ))
}
