//! The findings of `gpu_gaps` and `gpu_time_util`: per process, GPU and context, the idle
//! stretches and the chunks of low use of its kernels, copies and memsets.

use super::RecipeOptions;
use super::analysis::{Value, all_rows, cmp_ratio, ratio1, window};
use crate::core::num::float_to_i64;
use crate::timeline::nsys::trace::ops::{self, OpError, Test};
use crate::timeline::nsys::trace::{EventTable, Trace};

/// The tables of GPU operations: an export with none of them gives no rows.
const GPU_TABLES: [&str; 3] = [
    "CUPTI_ACTIVITY_KIND_KERNEL",
    "CUPTI_ACTIVITY_KIND_MEMCPY",
    "CUPTI_ACTIVITY_KIND_MEMSET",
];

/// The default shortest gap (ms).
const DEFAULT_GAP_MS: f64 = 500.0;
/// The default highest use listed (percent).
const DEFAULT_THRESHOLD: i64 = 50;
/// The default number of chunks.
const DEFAULT_CHUNKS: u32 = 30;

/// The grouping of GPU operations.
fn by() -> Vec<String> {
    ["pid", "device", "context"].map(str::to_owned).to_vec()
}

/// The GPU operations in the window, when the export has any table of them.
fn gpu_rows<'a>(
    trace: &'a Trace,
    options: &RecipeOptions,
) -> Result<Option<(&'a EventTable, Vec<u32>)>, OpError> {
    if !GPU_TABLES.iter().any(|t| trace.has(t, None)) {
        return Ok(None);
    }
    let Some(gpu) = trace.table("gpu") else {
        return Ok(None);
    };
    Ok(Some((gpu, window(trace, gpu, all_rows(gpu), options)?)))
}

/// The idle stretches of at least `--gap` ms, longest first (then earliest), numbered.
pub(super) fn gpu_gaps(
    trace: &Trace,
    options: &RecipeOptions,
) -> Result<Option<Vec<Vec<Value>>>, OpError> {
    let Some((gpu, rows)) = gpu_rows(trace, options)? else {
        return Ok(None);
    };
    let gap_ms = options.gap.unwrap_or(DEFAULT_GAP_MS);
    // Whole ns (the fraction dropped); a negative or non-finite threshold lists every gap.
    let min = if gap_ms.is_finite() && gap_ms > 0.0 {
        float_to_i64(gap_ms * 1e6)
    } else {
        0
    };
    let mut gaps = ops::gaps(gpu, &rows, &by(), min)?;
    gaps.sort_by(|a, b| {
        (b.end - b.start)
            .cmp(&(a.end - a.start))
            .then(a.start.cmp(&b.start))
    });
    let key = |g: &ops::Gap, i: usize| g.key.get(i).copied().map_or(Value::Null, Value::Int);
    Ok(Some(
        gaps.iter()
            .zip(1..)
            .map(|(g, n)| {
                vec![
                    Value::Int(n),
                    Value::Int(g.end - g.start),
                    Value::Int(g.start),
                    key(g, 0),
                    key(g, 1),
                    key(g, 2),
                ]
            })
            .collect(),
    ))
}

/// A run of low-use chunks: start, length, busy time, group key.
#[derive(Debug, Clone, PartialEq)]
struct Low {
    start: i64,
    active: i64,
    busy: i128,
    key: Vec<i64>,
}

/// The profiler's "CUDA profiling overhead" (old captures), counted as GPU time of its process:
/// `(pid, start, end)`.
fn overhead(trace: &Trace) -> Result<Vec<(i64, i64, i64)>, OpError> {
    let Some(t) = trace.table("profiler_overhead") else {
        return Ok(Vec::new());
    };
    let names = Test::TextIn(vec!["CUDA profiling overhead".into()]);
    let rows = ops::filter(trace, t, &all_rows(t), "name", &names)?;
    let value = |c: &str, r: u32| t.value(c, r as usize).map_or(0, |v| v.1);
    Ok(rows
        .iter()
        .map(|&r| (value("pid", r), value("start", r), value("end", r)))
        .collect())
}

/// The chunks used less than `--threshold` percent, consecutive ones of a group joined, least
/// used first (then shortest), numbered.
pub(super) fn gpu_time_util(
    trace: &Trace,
    options: &RecipeOptions,
) -> Result<Option<Vec<Vec<Value>>>, OpError> {
    let Some((gpu, rows)) = gpu_rows(trace, options)? else {
        return Ok(None);
    };
    let chunks = i64::from(options.chunks.unwrap_or(DEFAULT_CHUNKS).clamp(1, 10_000));
    let threshold = options.threshold.unwrap_or(DEFAULT_THRESHOLD);
    let spans = overhead(trace)?;
    let low = |busy: i128, active: i64| active > 0 && below(busy, active, threshold);
    let mut found: Vec<Low> = Vec::new();
    let mut run: Option<Low> = None;
    for c in ops::utilization(gpu, &rows, &by(), chunks)? {
        let pid = c.key.first().copied().unwrap_or_default();
        let end = c.start.saturating_add(c.active);
        let extra: i128 = spans
            .iter()
            .filter(|s| s.0 == pid)
            .map(|&(_, s, e)| (i128::from(e.min(end)) - i128::from(s.max(c.start))).max(0))
            .sum();
        let busy = i128::from(c.busy) + extra;
        if !low(busy, c.active) {
            found.extend(run.take());
            continue;
        }
        let joins = run
            .as_ref()
            .is_some_and(|r| r.key == c.key && r.start.saturating_add(r.active) == c.start);
        if joins && let Some(r) = run.as_mut() {
            r.active += c.active;
            r.busy += busy;
        } else {
            found.extend(run.take());
            run = Some(Low {
                start: c.start,
                active: c.active,
                busy,
                key: c.key,
            });
        }
    }
    found.extend(run);
    found.sort_by(|a, b| {
        cmp_ratio(a.busy, a.active.into(), b.busy, b.active.into()).then(a.active.cmp(&b.active))
    });
    let key = |l: &Low, i: usize| l.key.get(i).copied().map_or(Value::Null, Value::Int);
    Ok(Some(
        found
            .iter()
            .zip(1..)
            .map(|(l, n)| {
                vec![
                    Value::Int(n),
                    Value::Float(ratio1(100 * l.busy, l.active.into())),
                    Value::Int(l.active),
                    Value::Int(l.start),
                    key(l, 0),
                    key(l, 1),
                    key(l, 2),
                ]
            })
            .collect(),
    ))
}

/// Whether `busy` is less than `threshold` percent of `active` (exactly).
fn below(busy: i128, active: i64, threshold: i64) -> bool {
    100 * busy < i128::from(threshold) * i128::from(active)
}
