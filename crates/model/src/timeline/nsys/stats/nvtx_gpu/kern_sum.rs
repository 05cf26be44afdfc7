//! `nvtx_kern_sum`: the kernels launched inside each NVTX range (and outside every range),
//! by range name, style, thread and kernel name.

use rustc_hash::FxHashMap;

use super::super::super::NsysError;
use super::super::super::db::{ExportDb, split_global_id};
use super::super::nvtx_trace::{NVTX, Range, Ranges, by_thread, pid_tid, skipped_nvtx};
use super::super::{Cell, ReportOutcome, ReportRequest, Rows, skipped};
use super::{Call, KERNEL, Loaded, Op, RUNTIME, load_all, stat_cells, sweep, table};
use crate::core::num::index_u32;
use crate::timeline::summary::Summary;

/// Range name (`u32::MAX`: outside every range), style (2: none), thread, kernel name.
type Key = (u32, u8, i64, i64);

/// The kernels of one key: their durations, and the (deduplicated later) kernels and ranges
/// that make its instance counts.
#[derive(Default)]
struct Group {
    /// Each launch's kernel duration (a kernel counts once per runtime row of its call).
    durations: Vec<i64>,
    /// The kernels (operation indices).
    kernels: Vec<u32>,
    /// The ranges (indices).
    ranges: Vec<u32>,
}

/// The columns of `nvtx_kern_sum`.
const COLUMNS: [&str; 13] = [
    "NVTX Range",
    "Style",
    "PID",
    "TID",
    "NVTX Inst",
    "Kern Inst",
    "Total Time (ns)",
    "Avg (ns)",
    "Med (ns)",
    "Min (ns)",
    "Max (ns)",
    "StdDev (ns)",
    "Kernel Name",
];

/// Runs `nvtx_kern_sum`.
pub(super) fn kern_sum(db: &ExportDb, req: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    if !db.has_table(NVTX) {
        return skipped_nvtx(db);
    }
    if !db.has_table(KERNEL) {
        return skipped(db, "CUDA kernel data");
    }
    if !db.has_table(RUNTIME) {
        return skipped(db, "CUDA API data");
    }
    let Loaded {
        ranges: Ranges { ranges, names, .. },
        prepared: order,
        ops,
        calls,
    } = load_all(db, &[KERNEL], by_thread)?;
    let groups = group_kernels(&ranges, &order, &ops, &calls);
    let strings = db.string_ids()?;
    let kernel_name = |id: i64| strings.get(&id).map_or("", |s| s.as_str());
    let range_name = |n: u32| (n != u32::MAX).then(|| names[n as usize].as_str());
    let mut sums: Vec<(Key, Summary, usize, usize)> = groups
        .into_iter()
        .filter_map(|(key, mut g)| {
            g.kernels.sort_unstable();
            g.kernels.dedup();
            g.ranges.sort_unstable();
            g.ranges.dedup();
            Some((
                key,
                Summary::of(&mut g.durations)?,
                g.ranges.len(),
                g.kernels.len(),
            ))
        })
        .collect();
    sums.sort_by(|(ka, a, ..), (kb, b, ..)| {
        let (_, pa, ta) = split_global_id(ka.2);
        let (_, pb, tb) = split_global_id(kb.2);
        range_name(ka.0)
            .cmp(&range_name(kb.0))
            .then(ka.1.cmp(&kb.1))
            .then((pa, ta).cmp(&(pb, tb)))
            .then(b.total.cmp(&a.total))
            .then_with(|| kernel_name(ka.3).cmp(kernel_name(kb.3)))
    });
    let rows: Rows = sums
        .into_iter()
        .map(
            |((name, style_id, gtid, kernel), s, nvtx_inst, kern_inst)| {
                let [pid, tid] = pid_tid(gtid);
                let mut row = vec![
                    Cell::Text(range_name(name).unwrap_or_default().into()),
                    Cell::Text(style_label(style_id).into()),
                    pid,
                    tid,
                    Cell::int(nvtx_inst),
                    Cell::int(kern_inst),
                    Cell::int(s.total),
                ];
                row.extend(stat_cells(&s));
                row.push(Cell::Text(kernel_name(kernel).into()));
                row
            },
        )
        .collect();
    Ok(table(req.report.name, &COLUMNS, rows))
}

/// The kernels grouped by each range enclosing their launching call (and, outside every
/// range, by thread and kernel alone).
fn group_kernels(
    ranges: &[Range],
    order: &[usize],
    ops: &[Op],
    calls: &[Call],
) -> FxHashMap<Key, Group> {
    let mut groups: FxHashMap<Key, Group> = FxHashMap::default();
    sweep(ranges, order, calls, |call, enclosing| {
        let op = &ops[call.op as usize];
        let duration = op.end - op.start;
        if enclosing.is_empty() {
            let g = groups.entry((u32::MAX, 2, call.gtid, op.name)).or_default();
            g.durations.push(duration);
            g.kernels.push(call.op);
        }
        for &r in enclosing {
            let range = &ranges[r];
            let key = (range.name, u8::from(!range.push_pop), call.gtid, op.name);
            let g = groups.entry(key).or_default();
            g.durations.push(duration);
            g.kernels.push(call.op);
            g.ranges.push(index_u32(r));
        }
    });
    groups
}

/// The style column: `PushPop`, `StartEnd`, or empty outside every range.
fn style_label(style_id: u8) -> String {
    match style_id {
        0 => "PushPop".into(),
        1 => "StartEnd".into(),
        _ => String::new(),
    }
}
