//! Kernel launch and execution: `cuda_kern_exec_trace` (each kernel with the API call that
//! launched it) and `cuda_kern_exec_sum` (per process, thread, device, API and kernel).
//!
//! A kernel joins every API call of its process with its correlation id (exports that store
//! each call twice give two rows). The queue is the wait from the call's end to the kernel's
//! start, present only when the call ended no later than the kernel started (a queue of 0 ns
//! counts); the total runs from the call's start to the later of the call's and the kernel's
//! ends. The summary sorts by average total time, descending; a
//! group without any queue shows blank queue statistics and a 0.0 deviation.

use std::collections::HashMap;

use rustc_hash::FxHashMap;

use super::super::NsysError;
use super::super::db::ExportDb;
use super::calls_by_corr::ApiCall;
use super::chunks::{RowidChunks, in_table_order};
use super::gpu_ops::{CallsByCorr, Columns, KERNEL, NameKind, Placement, kernels_in, xyz};
use super::table::{STATS_THREAD, read_both};
use super::table::{string_of, strip_stats_suffix};
use super::{Cell, CellText, Report, ReportOutcome, ReportRequest, ReportTable, Rows, skipped};
use crate::core::num::index_u32;
use crate::core::threads::join_two;
use crate::timeline::summary::{Summary, fmt_float, fmt_ratio};

/// The reports of this module.
pub(super) const REPORTS: &[Report] = &[
    Report {
        name: "cuda_kern_exec_sum",
        about: "CUDA kernel launch and execution summary: API, queue and kernel times per kernel",
        options: &[],
        run: kern_exec_sum,
    },
    Report {
        name: "cuda_kern_exec_trace",
        about: "CUDA kernel launch and execution trace: each kernel with its API call and queue",
        options: &[],
        run: kern_exec_trace,
    },
];

/// One kernel with the call that launched it.
struct Launch<'a> {
    kernel: &'a LaunchedKernel,
    call: &'a ApiCall,
}

impl Launch<'_> {
    fn api_start(&self) -> i64 {
        self.call.start
    }

    fn api_dur(&self) -> i64 {
        self.call.end - self.call.start
    }

    fn kernel_dur(&self) -> i64 {
        self.kernel.end - self.kernel.start
    }

    /// From the call's start to the later of the call's and the kernel's ends.
    fn total(&self) -> i64 {
        self.kernel.end.max(self.call.end) - self.call.start
    }

    fn queue(&self) -> Option<(i64, i64)> {
        (self.call.end <= self.kernel.start)
            .then(|| (self.call.end, self.kernel.start - self.call.end))
    }
}

/// What a launch keeps of its kernel.
struct LaunchedKernel {
    start: i64,
    end: i64,
    corr: Option<i64>,
    pid: Option<i64>,
    device: Option<i64>,
    grid: [i64; 3],
    block: [i64; 3],
    name: i64,
}

impl LaunchedKernel {
    fn placement(&self) -> Placement {
        Placement {
            start: self.start,
            end: self.end,
            corr: self.corr,
            pid: self.pid,
            device: self.device,
            context: None,
            green: None,
            stream: None,
        }
    }
}

/// The kernels (in parts, in the kernel table's order) and the API calls by correlation id.
///
/// Two connections at once: one reads the runtime table's calls (and indexes them), and both
/// read the kernel table in chunks, each taking the next as it is free.
fn read_launches(db: &ExportDb) -> Result<(Vec<Vec<LaunchedKernel>>, CallsByCorr), NsysError> {
    let chunks = RowidChunks::of(db, KERNEL);
    let kernels = |db: &ExportDb| match &chunks {
        Some(chunks) => chunks.drain(|range| {
            let mut kernels = Vec::new();
            kernels_in(db, NameKind::Demangled, Columns::Lean, Some(range), |k| {
                kernels.push(LaunchedKernel {
                    start: k.at.start,
                    end: k.at.end,
                    corr: k.at.corr,
                    pid: k.at.pid,
                    device: k.at.device,
                    grid: k.grid,
                    block: k.block,
                    name: k.name,
                })
            })?;
            Ok::<_, NsysError>(kernels)
        }),
        None => Ok(Vec::new()),
    };
    let (here, there) = read_both(db, kernels, |db| {
        let calls = CallsByCorr::read(db)?;
        Ok::<_, NsysError>((calls, kernels(db)?))
    });
    let (calls, more) = there?;
    Ok((in_table_order(here?, more).collect(), calls))
}

/// Calls `each` with every kernel of `parts` joined with each of its launching calls, in the
/// kernel table's order.
fn for_each_launch(
    parts: &[Vec<LaunchedKernel>],
    calls: &CallsByCorr,
    mut each: impl FnMut(Launch<'_>),
) {
    for kernel in parts.iter().flatten() {
        for call in calls.of(&kernel.placement()) {
            each(Launch { kernel, call });
        }
    }
}

/// Names by string id, each built once.
struct Names<'a> {
    strings: &'a HashMap<i64, String>,
    api: HashMap<i64, String>,
    kernel: HashMap<i64, String>,
}

impl Names<'_> {
    fn api(&mut self, id: i64) -> &str {
        let strings = self.strings;
        self.api
            .entry(id)
            .or_insert_with(|| strip_stats_suffix(&string_of(strings, id)).to_string())
    }

    fn kernel(&mut self, id: i64) -> &str {
        let strings = self.strings;
        self.kernel
            .entry(id)
            .or_insert_with(|| string_of(strings, id))
    }
}

fn kern_exec_trace(db: &ExportDb, req: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    if !db.has_table(KERNEL) {
        return skipped(db, "CUDA kernel data");
    }
    let strings = db.string_ids()?;
    let mut names = Names {
        strings: &strings,
        api: HashMap::new(),
        kernel: HashMap::new(),
    };
    let (parts, calls) = read_launches(db)?;
    // Each launch as (part, kernel, call) indices, shown by API start: equal starts in the
    // runtime table's order (nsys 2023.4 on a generated 1 M-event export), then by kernel
    // start, then in the kernel table's order.
    let mut launches: Vec<(u32, u32, u32)> = Vec::new();
    let mut order: Vec<((i64, i64, i64), u32)> = Vec::new();
    for (p, part) in parts.iter().enumerate() {
        for (k, kernel) in part.iter().enumerate() {
            for c in calls.indices_of(&kernel.placement()) {
                let call = calls.call(c);
                names.api(call.name);
                names.kernel(kernel.name);
                order.push((
                    (call.start, call.row, kernel.start),
                    index_u32(launches.len()),
                ));
                launches.push((index_u32(p), index_u32(k), index_u32(c)));
            }
        }
    }
    order.sort_unstable();
    let Names { api, kernel, .. } = names;
    let name = |names: &HashMap<i64, String>, id: i64| -> CellText {
        names.get(&id).map_or("", String::as_str).into()
    };
    let rows = Rows::lazy_ordered(launches, order, move |&(p, k, c), row: &mut Vec<Cell>| {
        let l = Launch {
            kernel: &parts[p as usize][k as usize],
            call: calls.call(c as usize),
        };
        let queue = l.queue();
        row.extend([
            Cell::int(l.api_start()),
            Cell::int(l.api_dur()),
            queue.map_or_else(|| Cell::opt_int(None), |q| Cell::int(q.0)),
            queue.map_or_else(|| Cell::opt_int(None), |q| Cell::int(q.1)),
            Cell::int(l.kernel.start),
            Cell::int(l.kernel_dur()),
            Cell::int(l.total()),
            Cell::int(l.call.pid()),
            Cell::int(l.call.tid()),
            Cell::opt_int(l.kernel.device),
            Cell::Text(name(&api, l.call.name)),
            Cell::Text(xyz(l.kernel.grid).into()),
            Cell::Text(xyz(l.kernel.block).into()),
            Cell::Text(name(&kernel, l.kernel.name)),
        ]);
    });
    let columns = [
        "API Start (ns)",
        "API Dur (ns)",
        "Queue Start (ns)",
        "Queue Dur (ns)",
        "Kernel Start (ns)",
        "Kernel Dur (ns)",
        "Total Dur (ns)",
        "PID",
        "TID",
        "DevId",
        "API Function",
        "GridXYZ",
        "BlockXYZ",
        "Kernel Name",
    ];
    Ok(ReportOutcome::Table(ReportTable::new(
        req.report.name,
        columns,
        rows,
    )))
}

/// The launches of one row of the summary: their total, API, queue and kernel times.
#[derive(Default)]
struct Group {
    total: Vec<i64>,
    api: Vec<i64>,
    queue: Vec<i64>,
    kernel: Vec<i64>,
}

impl Group {
    fn extend(&mut self, other: Group) {
        self.total.extend(other.total);
        self.api.extend(other.api);
        self.queue.extend(other.queue);
        self.kernel.extend(other.kernel);
    }
}

/// Avg, Med, Min, Max, StdDev cells; blanks (and a 0.0 deviation) for no values.
fn stat_cells(values: &mut [i64]) -> (Option<Summary>, Vec<Cell>) {
    match Summary::of(values) {
        Some(s) => {
            let cells = vec![
                Cell::Number(fmt_ratio(s.total, i128::from(s.count), 1).into()),
                Cell::Number(fmt_ratio(s.median_x2, 2, 1).into()),
                Cell::int(s.min),
                Cell::int(s.max),
                Cell::Number(fmt_float(s.stddev, 1).into()),
            ];
            (Some(s), cells)
        }
        None => {
            let mut cells: Vec<Cell> = (0..4).map(|_| Cell::Number(String::new().into())).collect();
            cells.push(Cell::Number("0.0".into()));
            (None, cells)
        }
    }
}

fn kern_exec_sum(db: &ExportDb, req: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    if !db.has_table(KERNEL) {
        return skipped(db, "CUDA kernel data");
    }
    let strings = db.string_ids()?;
    let groups = launch_groups(db, &strings)?;
    let mut rows: Vec<((i128, u64), ExecKey, Vec<Cell>)> = groups
        .into_iter()
        .map(|(key, g)| exec_row(key, g))
        .collect();
    // Average total time, descending (compared exactly), then the key.
    rows.sort_by(|(a, ak, _), (b, bk, _)| {
        (b.0 * i128::from(a.1))
            .cmp(&(a.0 * i128::from(b.1)))
            .then_with(|| ak.cmp(bk))
    });
    Ok(ReportOutcome::Table(ReportTable::new(
        req.report.name,
        KERN_EXEC_COLUMNS,
        rows.into_iter().map(|r| r.2).collect::<Vec<_>>(),
    )))
}

/// A `cuda_kern_exec_sum` group: pid, tid, device, API name and kernel name.
type ExecKey = (i64, i64, Option<i64>, String, String);

/// A group by ids: pid, tid, device, API name id and kernel name id.
type IdKey = (i64, i64, Option<i64>, i64, i64);

/// The columns of `cuda_kern_exec_sum`.
const KERN_EXEC_COLUMNS: [&str; 27] = [
    "PID",
    "TID",
    "DevId",
    "Count",
    "QCount",
    "TAvg (ns)",
    "TMed (ns)",
    "TMin (ns)",
    "TMax (ns)",
    "TStdDev (ns)",
    "AAvg (ns)",
    "AMed (ns)",
    "AMin (ns)",
    "AMax (ns)",
    "AStdDev (ns)",
    "QAvg (ns)",
    "QMed (ns)",
    "QMin (ns)",
    "QMax (ns)",
    "QStdDev (ns)",
    "KAvg (ns)",
    "KMed (ns)",
    "KMin (ns)",
    "KMax (ns)",
    "KStdDev (ns)",
    "API Name",
    "Kernel Name",
];

/// The launches grouped by ids first, then by names: the two rows of a call in old exports
/// (`cudaLaunchKernel`, `cudaLaunchKernel_v7000`) make one group. Each group sorts its values
/// (`Summary::of`), so the launches need no order: two threads group half of the kernels each.
fn launch_groups(
    db: &ExportDb,
    strings: &HashMap<i64, String>,
) -> Result<HashMap<ExecKey, Group>, NsysError> {
    let (parts, calls) = read_launches(db)?;
    let (first, second) = parts.split_at(parts.len() / 2);
    let (more, mut by_id) = join_two(
        STATS_THREAD,
        || group_by_ids(first, &calls),
        || group_by_ids(second, &calls),
    );
    for (key, g) in more {
        by_id.entry(key).or_default().extend(g);
    }
    let mut names = Names {
        strings,
        api: HashMap::new(),
        kernel: HashMap::new(),
    };
    let mut groups: HashMap<ExecKey, Group> = HashMap::new();
    for ((pid, tid, device, api, kernel), g) in by_id {
        let key = (
            pid,
            tid,
            device,
            names.api(api).to_string(),
            names.kernel(kernel).to_string(),
        );
        groups.entry(key).or_default().extend(g);
    }
    Ok(groups)
}

/// The total, API, queue and kernel times of the launches of `parts`, grouped by ids.
fn group_by_ids(parts: &[Vec<LaunchedKernel>], calls: &CallsByCorr) -> FxHashMap<IdKey, Group> {
    let mut by_id: FxHashMap<IdKey, Group> = FxHashMap::default();
    for_each_launch(parts, calls, |l| {
        let key = (
            l.call.pid(),
            l.call.tid(),
            l.kernel.device,
            l.call.name,
            l.kernel.name,
        );
        let g = by_id.entry(key).or_default();
        g.total.push(l.total());
        g.api.push(l.api_dur());
        if let Some((_, q)) = l.queue() {
            g.queue.push(q);
        }
        g.kernel.push(l.kernel_dur());
    });
    by_id
}

/// One group's row, with its sort order (total time and count of its launches).
fn exec_row(key: ExecKey, mut g: Group) -> ((i128, u64), ExecKey, Vec<Cell>) {
    let (total, t_cells) = stat_cells(&mut g.total);
    let order = total.map_or((0, 1), |s| (s.total, s.count));
    let mut row = vec![
        Cell::int(key.0),
        Cell::int(key.1),
        Cell::Number(key.2.map(|d| d.to_string()).unwrap_or_default().into()),
        Cell::int(g.kernel.len()),
        Cell::int(g.queue.len()),
    ];
    row.extend(t_cells);
    row.extend(stat_cells(&mut g.api).1);
    row.extend(stat_cells(&mut g.queue).1);
    row.extend(stat_cells(&mut g.kernel).1);
    row.push(Cell::Text(key.3.clone().into()));
    row.push(Cell::Text(key.4.clone().into()));
    (order, key, row)
}
