//! NVTX ranges projected onto the GPU: `nvtx_gpu_proj_trace`, `nvtx_gpu_proj_sum` and
//! `nvtx_kern_sum`.
//!
//! Found against nsys 2023.4's output: a GPU operation (kernel, memcpy, memset; kernels only
//! for `nvtx_kern_sum`) belongs to every range of its launching thread that contains the
//! launching CUDA API call (`range.start <= call.start` and `call.end <= range.end`; push/pop
//! ranges and start/end ranges without an `endGlobalTid`). The call is found by correlationId within the process,
//! and every runtime row with that id counts (old exports store each call twice, once with
//! eventClass 67, so a kernel's time counts twice in `nvtx_kern_sum` while its instances count
//! once). Operations launched outside every range form one row without a name in the trace
//! (all processes together) and rows without a range per thread in `nvtx_kern_sum`.

use super::super::NsysError;
use super::super::db::{ExportDb, int_of};
use super::chunks::{RowidChunks, in_table_order};
use super::gpu_ops::CorrIndex;
use super::nvtx_trace::{
    NVTX, Range, Ranges, by_thread, load_ranges, nest, opt_cell, pid_tid, range_stack, skipped_nvtx,
};
use super::table::{STATS_THREAD, for_each_row, read_both};
use super::{Cell, CellText, Report, ReportOutcome, ReportRequest, ReportTable, Rows, skipped};
use crate::core::threads::join_two;
use crate::timeline::summary::{Summary, fmt_float, fmt_ratio};
use rustc_hash::FxHashMap;

mod kern_sum;
use kern_sum::kern_sum;

/// The reports of this module.
pub(super) const REPORTS: &[Report] = &[
    Report {
        name: "nvtx_gpu_proj_trace",
        about: "NVTX ranges projected onto the GPU operations they launch, one by one",
        options: &[],
        run: proj_trace,
    },
    Report {
        name: "nvtx_gpu_proj_sum",
        about: "NVTX ranges projected onto the GPU operations they launch, by name",
        options: &[],
        run: proj_sum,
    },
    Report {
        name: "nvtx_kern_sum",
        about: "CUDA kernels by the NVTX ranges that launch them",
        options: &[],
        run: kern_sum,
    },
];

const RUNTIME: &str = "CUPTI_ACTIVITY_KIND_RUNTIME";
const KERNEL: &str = "CUPTI_ACTIVITY_KIND_KERNEL";
const GPU_OPS: [&str; 3] = [
    KERNEL,
    "CUPTI_ACTIVITY_KIND_MEMCPY",
    "CUPTI_ACTIVITY_KIND_MEMSET",
];

/// A GPU operation.
struct Op {
    start: i64,
    end: i64,
    /// The process (globalPid >> 24), when known.
    process: Option<i64>,
    /// The kernel's demangledName id (kernels only).
    name: i64,
}

/// A launching API call of an operation: the runtime row's thread and times.
#[derive(Clone, Copy)]
struct Call {
    gtid: i64,
    start: i64,
    end: i64,
    op: u32,
}

/// Reads the operations of `tables` (in table order, each by rowid).
fn load_ops(db: &ExportDb, tables: &[&str]) -> Result<(Vec<Op>, Vec<Option<i64>>), NsysError> {
    let mut ops = Vec::new();
    let mut corr = Vec::new();
    for &table in tables.iter().filter(|t| db.has_table(t)) {
        let name = if table == KERNEL {
            db.col_or_null(table, "demangledName")
        } else {
            "NULL".into()
        };
        let pid = db.col_or_null(table, "globalPid");
        let corr_col = db.col_or_null(table, "correlationId");
        let sql = format!(
            "SELECT rowid, start, end, {pid}, {corr_col}, {name} FROM {table} ORDER BY rowid"
        );
        for_each_row(db, table, &sql, |row| {
            let v = |i| row.get_ref(i).ok().and_then(int_of);
            let (Some(start), Some(end)) = (v(1), v(2)) else {
                let rowid = v(0).unwrap_or(-1);
                return Err(db.query_error(
                    table,
                    format!("rowid {rowid}: start or end is not an integer"),
                ));
            };
            ops.push(Op {
                start,
                end,
                process: v(3).map(|p| p >> 24),
                name: v(5).unwrap_or(-1),
            });
            corr.push(v(4));
            Ok(())
        })?;
    }
    Ok((ops, corr))
}

/// A runtime row with a correlation id, as read.
struct RuntimeRow {
    row: i64,
    corr: i64,
    gtid: Option<i64>,
    start: Option<i64>,
    end: Option<i64>,
}

/// The runtime rows with rowids in `lo..=hi` that have a correlation id, in table order.
fn read_runtime(db: &ExportDb, (lo, hi): (i64, i64)) -> Result<Vec<RuntimeRow>, NsysError> {
    let sql = format!(
        "SELECT rowid, correlationId, globalTid, start, end FROM {RUNTIME} \
         WHERE rowid BETWEEN {lo} AND {hi}"
    );
    let mut out = Vec::new();
    for_each_row(db, RUNTIME, &sql, |row| {
        let v = |i| row.get_ref(i).ok().and_then(int_of);
        if let Some(corr) = v(1) {
            out.push(RuntimeRow {
                row: v(0).unwrap_or(-1),
                corr,
                gtid: v(2),
                start: v(3),
                end: v(4),
            });
        }
        Ok(())
    })?;
    Ok(out)
}

/// What the projection reads: the NVTX ranges with what the report prepared of them while the
/// other tables were read, the operations, and their launching calls (by thread and start).
struct Loaded<P> {
    ranges: Ranges,
    prepared: P,
    ops: Vec<Op>,
    calls: Vec<Call>,
}

/// The operations by correlationId: `(correlation id, operation)` sorted, and where each id's
/// operations are (usually one per process).
struct OpsByCorr {
    by_corr: Vec<(i64, u32)>,
    first: CorrIndex,
}

impl OpsByCorr {
    /// The index of the operations whose correlation ids are `corr`.
    fn of(corr: &[Option<i64>]) -> OpsByCorr {
        let (by_corr, first) = CorrIndex::sorted(corr);
        OpsByCorr { by_corr, first }
    }
}

/// The NVTX ranges, operations and their launching calls, read on two connections at once:
/// the ranges on one (which then runs `prepare` on them), the operations on the other (which
/// also indexes them by correlation id), then the runtime table on both, in chunks that each
/// takes as it is free; the calls are joined to their operations on two threads.
fn load_all<P>(
    db: &ExportDb,
    tables: &[&str],
    prepare: impl FnOnce(&[Range]) -> P,
) -> Result<Loaded<P>, NsysError> {
    let chunks = RowidChunks::of(db, RUNTIME);
    let runtime = |db: &ExportDb| match &chunks {
        Some(chunks) => chunks.drain(|range| read_runtime(db, range)),
        None => Ok(Vec::new()),
    };
    let (here, there) = read_both(
        db,
        |db| {
            let ranges = load_ranges(db, true)?;
            let prepared = prepare(&ranges.ranges);
            Ok::<_, NsysError>((ranges, prepared, runtime(db)?))
        },
        |db| {
            let (ops, corr) = load_ops(db, tables)?;
            let index = OpsByCorr::of(&corr);
            Ok::<_, NsysError>((ops, index, runtime(db)?))
        },
    );
    let (ranges, prepared, mine) = here?;
    let (ops, index, theirs) = there?;
    let runtime: Vec<Vec<RuntimeRow>> = in_table_order(mine, theirs).collect();
    let (first, second) = runtime.split_at(runtime.len() / 2);
    let (calls, more) = join_two(
        STATS_THREAD,
        || load_calls(first, &ops, &index),
        || load_calls(second, &ops, &index),
    );
    // The first bad row in table order.
    let bad_row = |row: i64| {
        db.query_error(
            RUNTIME,
            format!("rowid {row}: globalTid, start or end is not an integer"),
        )
    };
    let mut calls = calls.map_err(bad_row)?;
    calls.extend(more.map_err(bad_row)?);
    // Two sorted runs: a stable sort merges them.
    calls.sort_by_key(|c| (c.gtid, c.start, c.end, c.op));
    Ok(Loaded {
        ranges,
        prepared,
        ops,
        calls,
    })
}

/// Every (operation, runtime row) pair of the same correlationId and process, by thread and
/// start (what [`sweep`] walks); `Err(rowid)` for a runtime row without thread or times.
fn load_calls(
    runtime: &[Vec<RuntimeRow>],
    ops: &[Op],
    OpsByCorr { by_corr, first }: &OpsByCorr,
) -> Result<Vec<Call>, i64> {
    let mut calls = Vec::with_capacity(runtime.iter().map(Vec::len).sum());
    for r in runtime.iter().flatten() {
        let (lo, hi) = first.range(r.corr);
        if lo >= hi {
            continue;
        }
        let (Some(gtid), Some(start), Some(end)) = (r.gtid, r.start, r.end) else {
            return Err(r.row);
        };
        for &(_, op) in &by_corr[lo..hi] {
            if ops[op as usize].process.is_none_or(|p| p == gtid >> 24) {
                calls.push(Call {
                    gtid,
                    start,
                    end,
                    op,
                });
            }
        }
    }
    calls.sort_unstable_by_key(|c| (c.gtid, c.start, c.end, c.op));
    Ok(calls)
}

/// Calls `visit(call, enclosing)` for every call (from [`load_calls`]: by thread and start)
/// with the ranges (indices, `order` from [`by_thread`]) of its thread that contain it.
fn sweep(
    ranges: &[Range],
    order: &[usize],
    calls: &[Call],
    mut visit: impl FnMut(&Call, &[usize]),
) {
    let mut next = 0;
    let mut active: Vec<usize> = Vec::new();
    let mut enclosing: Vec<usize> = Vec::new();
    let mut thread = None;
    for call in calls.iter() {
        if thread != Some(call.gtid) {
            thread = Some(call.gtid);
            active.clear();
            while next < order.len() && ranges[order[next]].gtid < call.gtid {
                next += 1;
            }
        }
        while next < order.len()
            && ranges[order[next]].gtid == call.gtid
            && ranges[order[next]].start <= call.start
        {
            active.push(order[next]);
            next += 1;
        }
        active.retain(|&a| ranges[a].end.is_some_and(|e| e >= call.start));
        enclosing.clear();
        enclosing.extend(
            active
                .iter()
                .copied()
                .filter(|&a| ranges[a].end.is_some_and(|e| e >= call.end)),
        );
        visit(call, &enclosing);
    }
}

/// What the projection of one range gathers.
#[derive(Clone, Copy)]
struct Projection {
    ops: u64,
    start: i64,
    end: i64,
}

impl Projection {
    fn add(acc: &mut Option<Projection>, op: &Op) {
        match acc {
            Some(p) => {
                p.ops += 1;
                p.start = p.start.min(op.start);
                p.end = p.end.max(op.end);
            }
            None => {
                *acc = Some(Projection {
                    ops: 1,
                    start: op.start,
                    end: op.end,
                })
            }
        }
    }
}

/// One row of the projection trace.
struct ProjRow {
    /// Index of the range; `None` for the operations outside every range.
    range: Option<usize>,
    gtid: i64,
    proj: Projection,
    lvl: Option<u32>,
    children: u64,
}

/// The projection: the ranges, their nesting, and a row per range with GPU operations (the
/// operations outside every range first), by range id.
struct Projected {
    ranges: Ranges,
    nodes: Vec<super::nvtx_trace::Node>,
    rows: Vec<ProjRow>,
}

fn project(db: &ExportDb) -> Result<Result<Projected, ReportOutcome>, NsysError> {
    project_in(db, None)
}

/// [`project`], with `window` (`lo..=hi`, ns) keeping only the launching calls and the
/// operations that overlap it (as `nsys recipe`'s `--start`/`--end` do).
fn project_in(
    db: &ExportDb,
    window: Option<(i64, i64)>,
) -> Result<Result<Projected, ReportOutcome>, NsysError> {
    if !db.has_table(NVTX) {
        return skipped_nvtx(db).map(Err);
    }
    if !db.has_table(RUNTIME) {
        return skipped(db, "CUDA API data").map(Err);
    }
    if !GPU_OPS.iter().any(|t| db.has_table(t)) {
        return skipped(db, "GPU operation data").map(Err);
    }
    let Loaded {
        ranges,
        prepared: (order, nodes),
        ops,
        calls,
    } = load_all(db, &GPU_OPS, |ranges| {
        let order = by_thread(ranges);
        let nodes = nest(ranges, &order);
        (order, nodes)
    })?;
    let mut calls = calls;
    if let Some((lo, hi)) = window {
        let op = |c: &Call| &ops[c.op as usize];
        calls.retain(|c| c.end >= lo && c.start <= hi && op(c).end >= lo && op(c).start <= hi);
    }
    let (acc, outside) = project_ops(&ranges.ranges, &order, &ops, &calls);
    let mut rows: Vec<ProjRow> = loose_row(&ops, &outside).into_iter().collect();
    rows.extend(range_rows(&ranges.ranges, &nodes, &acc));
    Ok(Ok(Projected {
        ranges,
        nodes,
        rows,
    }))
}

/// Each range's projection (the operations its calls launched, an operation with several
/// calls counted once per range), and the thread of each operation's first call outside
/// every range.
fn project_ops(
    ranges: &[Range],
    order: &[usize],
    ops: &[Op],
    calls: &[Call],
) -> (Vec<Option<Projection>>, Vec<Option<i64>>) {
    let mut calls_per_op = vec![0u32; ops.len()];
    for c in calls {
        calls_per_op[c.op as usize] = calls_per_op[c.op as usize].saturating_add(1);
    }
    let mut acc: Vec<Option<Projection>> = vec![None; ranges.len()];
    // (range, op) of operations with several calls, counted once per range below.
    let mut shared: Vec<(usize, u32)> = Vec::new();
    // The thread of an operation's first call outside every range.
    let mut outside: Vec<Option<i64>> = vec![None; ops.len()];
    sweep(ranges, order, calls, |call, enclosing| {
        let op = call.op as usize;
        if enclosing.is_empty() {
            outside[op].get_or_insert(call.gtid);
        } else if calls_per_op[op] > 1 {
            shared.extend(enclosing.iter().map(|&r| (r, call.op)));
        } else {
            for &r in enclosing {
                Projection::add(&mut acc[r], &ops[op]);
            }
        }
    });
    shared.sort_unstable();
    shared.dedup();
    for (r, op) in shared {
        Projection::add(&mut acc[r], &ops[op as usize]);
    }
    (acc, outside)
}

/// All operations outside the ranges, in one row: PID and TID are those of the operation
/// that ends last (the first such, tables in order, by rowid); `None` when there are none.
fn loose_row(ops: &[Op], outside: &[Option<i64>]) -> Option<ProjRow> {
    let mut loose: Option<(Projection, i64)> = None;
    for (op, gtid) in ops.iter().zip(outside) {
        let Some(gtid) = *gtid else { continue };
        match &mut loose {
            None => {
                loose = Some((
                    Projection {
                        ops: 1,
                        start: op.start,
                        end: op.end,
                    },
                    gtid,
                ))
            }
            Some((p, who)) => {
                p.ops += 1;
                p.start = p.start.min(op.start);
                if op.end > p.end {
                    p.end = op.end;
                    *who = gtid;
                }
            }
        }
    }
    loose.map(|(proj, gtid)| ProjRow {
        range: None,
        gtid,
        proj,
        lvl: None,
        children: 0,
    })
}

/// A row per range with GPU operations, by range id, with its level and how many of its
/// children have operations.
fn range_rows(
    ranges: &[Range],
    nodes: &[super::nvtx_trace::Node],
    acc: &[Option<Projection>],
) -> Vec<ProjRow> {
    let n = ranges.len();
    let mut children = vec![0u64; n];
    for (k, node) in nodes.iter().enumerate() {
        if let (Some(p), Some(_)) = (node.parent, acc[k]) {
            children[p] += 1;
        }
    }
    let mut order: Vec<usize> = (0..n).filter(|&k| acc[k].is_some()).collect();
    order.sort_unstable_by_key(|&k| ranges[k].id);
    let mut rows = Vec::new();
    for k in order {
        if let Some(proj) = acc[k] {
            rows.push(ProjRow {
                range: Some(k),
                gtid: ranges[k].gtid,
                proj,
                lvl: nodes[k].lvl,
                children: children[k],
            });
        }
    }
    rows
}

/// A range projected onto the GPU, for the recipes (`nsys recipe nvtx_gpu_proj_sum`...).
#[derive(Debug, Clone)]
pub(crate) struct ProjectedRange {
    /// Its domain's name (empty: none).
    pub domain: String,
    /// Its text.
    pub text: String,
    /// Its start (ns).
    pub start: i64,
    /// Its end (ns; a range that never ends: the latest end of the ranges).
    pub end: Option<i64>,
    /// The start of the first GPU operation it launched.
    pub proj_start: i64,
    /// The end of the last.
    pub proj_end: i64,
}

/// The ranges with GPU operations, by range id, as `nvtx_gpu_proj_trace` projects them
/// (with `window`, `lo..=hi` ns: the ranges, launching calls and operations that overlap it);
/// `None` when the export lacks NVTX, CUDA API or GPU operation data.
pub(crate) fn projected_ranges(
    db: &ExportDb,
    window: Option<(i64, i64)>,
) -> Result<Option<Vec<ProjectedRange>>, NsysError> {
    let Ok(p) = project_in(db, window)? else {
        return Ok(None);
    };
    let (lo, hi) = window.unwrap_or((i64::MIN, i64::MAX));
    let ranges = &p.ranges;
    let out = p
        .rows
        .iter()
        .filter_map(|row| {
            let r = &ranges.ranges[row.range?];
            if r.start > hi || r.end.is_some_and(|e| e < lo) {
                return None;
            }
            let (domain, text) = ranges.parts.get(r.name as usize)?.clone();
            Some(ProjectedRange {
                domain,
                text,
                start: r.start,
                end: r.end,
                proj_start: row.proj.start,
                proj_end: row.proj.end,
            })
        })
        .collect();
    Ok(Some(out))
}

/// Avg, Med, Min, Max and StdDev, as nsys prints them.
fn stat_cells(s: &Summary) -> [Cell; 5] {
    [
        Cell::Number(fmt_ratio(s.total, i128::from(s.count), 1).into()),
        Cell::Number(fmt_ratio(s.median_x2, 2, 1).into()),
        Cell::int(s.min),
        Cell::int(s.max),
        Cell::Number(fmt_float(s.stddev, 1).into()),
    ]
}

fn style(push_pop: bool) -> &'static str {
    if push_pop { "PushPop" } else { "StartEnd" }
}

fn table(report: &str, columns: &[&str], rows: impl Into<Rows>) -> ReportOutcome {
    ReportOutcome::Table(ReportTable::new(report, columns, rows))
}

fn proj_trace(db: &ExportDb, req: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    proj_trace_in(db, req.report.name, None)
}

/// `nvtx_gpu_proj_trace`'s table, with `window` (`lo..=hi` ns) keeping only the launching
/// calls and the operations that overlap it (`nsys recipe nvtx_gpu_proj_trace --start/--end`).
pub(crate) fn proj_trace_in(
    db: &ExportDb,
    report: &str,
    window: Option<(i64, i64)>,
) -> Result<ReportOutcome, NsysError> {
    let p = match project_in(db, window)? {
        Ok(p) => p,
        Err(outcome) => return Ok(outcome),
    };
    let Projected {
        ranges: Ranges { ranges, names, .. },
        nodes,
        rows,
    } = p;
    let empty = || Cell::Text(CellText::default());
    let rows = Rows::lazy(rows, move |row: &ProjRow, cells: &mut Vec<Cell>| {
        let [pid, tid] = pid_tid(row.gtid);
        let proj = [
            Cell::int(row.proj.start),
            Cell::int(row.proj.end - row.proj.start),
        ];
        let Some(k) = row.range else {
            cells.push(empty());
            cells.extend(proj);
            cells.extend([empty(), empty(), empty(), pid, tid]);
            cells.push(Cell::int(row.proj.ops));
            cells.extend([empty(), Cell::Number("0".into()), empty(), empty(), empty()]);
            return;
        };
        let r = &ranges[k];
        let reached = row.lvl.is_some();
        cells.push(Cell::Text(
            names.get(r.name as usize).map_or("", String::as_str).into(),
        ));
        cells.extend(proj);
        cells.extend([
            Cell::int(r.start),
            opt_cell(r.duration()),
            Cell::Text(style(r.push_pop).into()),
            pid,
            tid,
            Cell::int(row.proj.ops),
            opt_cell(row.lvl.map(i64::from)),
            Cell::int(row.children),
            Cell::int(r.id),
            opt_cell(nodes[k].parent.filter(|_| reached).map(|q| ranges[q].id)),
            if reached {
                Cell::Text(range_stack(&ranges, &nodes, k).into())
            } else {
                empty()
            },
        ]);
    });
    Ok(table(
        report,
        &[
            "Name",
            "Projected Start (ns)",
            "Projected Duration (ns)",
            "Orig Start (ns)",
            "Orig Duration (ns)",
            "Style",
            "PID",
            "TID",
            "NumGPUOps",
            "Lvl",
            "NumChild",
            "RangeId",
            "ParentId",
            "RangeStack",
        ],
        rows,
    ))
}

fn proj_sum(db: &ExportDb, req: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    let p = match project(db)? {
        Ok(p) => p,
        Err(outcome) => return Ok(outcome),
    };
    struct Group {
        proj: Vec<i64>,
        orig: i128,
        ops: i128,
        lvl_sum: i128,
        lvl_n: i128,
        children: i128,
    }
    let mut groups: FxHashMap<(u32, bool), Group> = FxHashMap::default();
    for row in &p.rows {
        let Some(k) = row.range else { continue };
        let r = &p.ranges.ranges[k];
        let g = groups.entry((r.name, r.push_pop)).or_insert(Group {
            proj: Vec::new(),
            orig: 0,
            ops: 0,
            lvl_sum: 0,
            lvl_n: 0,
            children: 0,
        });
        g.proj.push(row.proj.end - row.proj.start);
        g.orig += i128::from(r.duration().unwrap_or(0));
        g.ops += i128::from(row.proj.ops);
        if let Some(l) = row.lvl {
            g.lvl_sum += i128::from(l);
            g.lvl_n += 1;
        }
        g.children += i128::from(row.children);
    }
    let names = &p.ranges.names;
    let mut sums: Vec<((u32, bool), Summary, Group)> = groups
        .into_iter()
        .filter_map(|(key, mut g)| Some((key, Summary::of(&mut g.proj)?, g)))
        .collect();
    sums.sort_by(|(ka, a, _), (kb, b, _)| {
        b.total
            .cmp(&a.total)
            .then_with(|| names[ka.0 as usize].cmp(&names[kb.0 as usize]))
            .then(kb.1.cmp(&ka.1))
    });
    let rows: Rows = sums
        .into_iter()
        .map(|((name, push_pop), s, g)| {
            let n = i128::from(s.count);
            let mut row = vec![
                Cell::Text(names[name as usize].clone().into()),
                Cell::Text(style(push_pop).into()),
                Cell::int(s.total),
                Cell::int(g.orig),
                Cell::int(s.count),
            ];
            row.extend(stat_cells(&s));
            row.extend([
                Cell::int(g.ops),
                Cell::Number(fmt_ratio(g.ops, n, 1).into()),
                if g.lvl_n > 0 {
                    Cell::Number(fmt_ratio(g.lvl_sum, g.lvl_n, 1).into())
                } else {
                    Cell::Text(String::new().into())
                },
                Cell::Number(fmt_ratio(g.children, n, 1).into()),
            ]);
            row
        })
        .collect();
    Ok(table(
        req.report.name,
        &[
            "Range",
            "Style",
            "Total Proj Time (ns)",
            "Total Range Time (ns)",
            "Range Instances",
            "Proj Avg (ns)",
            "Proj Med (ns)",
            "Proj Min (ns)",
            "Proj Max (ns)",
            "Proj StdDev (ns)",
            "Total GPU Ops",
            "Avg GPU Ops",
            "Avg Range Lvl",
            "Avg Num Child",
        ],
        rows,
    ))
}
