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
use super::gpu_ops::{
    CallsByCorr, Columns, KERNEL, NameKind, Placement, kernel_split, kernels_in, xyz,
};
use super::table::read_both;
use super::table::{string_of, strip_stats_suffix};
use super::{Cell, CellText, Report, ReportOutcome, ReportRequest, ReportTable, Rows, skipped};
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
struct Launch {
    api_start: i64,
    /// The call's rowid (calls of equal start are listed in table order, as nsys does).
    api_row: i64,
    api_end: i64,
    api_name: i64,
    pid: i64,
    tid: i64,
    device: Option<i64>,
    kernel_start: i64,
    kernel_end: i64,
    grid: [i64; 3],
    block: [i64; 3],
    kernel_name: i64,
    /// Its place in the kernel table's order (what settles equal keys).
    seq: u32,
}

impl Launch {
    /// From the call's start to the later of the call's and the kernel's ends.
    fn total(&self) -> i64 {
        self.kernel_end.max(self.api_end) - self.api_start
    }

    fn queue(&self) -> Option<(i64, i64)> {
        (self.api_end <= self.kernel_start)
            .then(|| (self.api_end, self.kernel_start - self.api_end))
    }
}

/// Every kernel joined with its launching calls (in the kernel table's order) and their order
/// by API start: equal starts in the runtime table's order (nsys 2023.4 on a generated 1 M-event
/// export), then as read. The launches stay where they are (150 bytes each); their keys sort.
type LaunchOrder = Vec<((i64, i64, i64), u32)>;

fn launches(db: &ExportDb) -> Result<(Vec<Launch>, LaunchOrder), NsysError> {
    let mut out = Vec::new();
    for_each_launch(db, |l| out.push(l))?;
    let mut order: LaunchOrder = out
        .iter()
        .map(|l| ((l.api_start, l.api_row, l.kernel_start), l.seq))
        .collect();
    order.sort_unstable();
    Ok((out, order))
}

/// Calls `each` with every kernel joined with each of its launching calls, in the kernel
/// table's order (what a summary needs: it sorts each group's values itself).
fn for_each_launch(db: &ExportDb, mut each: impl FnMut(Launch)) -> Result<(), NsysError> {
    // Two connections at once: one reads the first half of the kernel table, the other the
    // runtime table (and indexes it) and then the second half.
    let split = kernel_split(db, 0);
    let kernels = |db: &ExportDb, range: Option<(i64, i64)>| {
        let mut kernels = Vec::new();
        kernels_in(db, NameKind::Demangled, Columns::Lean, range, |k| {
            kernels.push(LaunchedKernel {
                at: k.at,
                grid: k.grid,
                block: k.block,
                name: k.name,
            })
        })?;
        Ok::<_, NsysError>(kernels)
    };
    let (first, rest) = read_both(
        db,
        |db| kernels(db, split.map(|(first, _)| first)),
        |db| {
            let calls = CallsByCorr::read(db)?;
            let second = match split {
                Some((_, second)) => kernels(db, Some(second))?,
                None => Vec::new(),
            };
            Ok::<_, NsysError>((calls, second))
        },
    );
    let (calls, second) = rest?;
    let kernels = first?.into_iter().chain(second);
    let mut seq = 0u32;
    for k in kernels {
        for c in calls.of(&k.at) {
            each(Launch {
                api_start: c.start,
                api_row: c.row,
                api_end: c.end,
                api_name: c.name,
                pid: c.pid(),
                tid: c.tid(),
                device: k.at.device,
                kernel_start: k.at.start,
                kernel_end: k.at.end,
                grid: k.grid,
                block: k.block,
                kernel_name: k.name,
                seq,
            });
            seq += 1;
        }
    }
    Ok(())
}

/// What a launch keeps of its kernel while the calls are read.
struct LaunchedKernel {
    at: Placement,
    grid: [i64; 3],
    block: [i64; 3],
    name: i64,
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
    let (launches, order) = launches(db)?;
    for l in &launches {
        names.api(l.api_name);
        names.kernel(l.kernel_name);
    }
    let Names { api, kernel, .. } = names;
    let name = |names: &HashMap<i64, String>, id: i64| -> CellText {
        names.get(&id).map_or("", String::as_str).into()
    };
    let rows = Rows::lazy_ordered(launches, order, move |l: &Launch, row: &mut Vec<Cell>| {
        let queue = l.queue();
        row.extend([
            Cell::int(l.api_start),
            Cell::int(l.api_end - l.api_start),
            queue.map_or_else(|| Cell::opt_int(None), |q| Cell::int(q.0)),
            queue.map_or_else(|| Cell::opt_int(None), |q| Cell::int(q.1)),
            Cell::int(l.kernel_start),
            Cell::int(l.kernel_end - l.kernel_start),
            Cell::int(l.total()),
            Cell::int(l.pid),
            Cell::int(l.tid),
            Cell::opt_int(l.device),
            Cell::Text(name(&api, l.api_name)),
            Cell::Text(xyz(l.grid).into()),
            Cell::Text(xyz(l.block).into()),
            Cell::Text(name(&kernel, l.kernel_name)),
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
    Ok(ReportOutcome::Table(ReportTable {
        warnings: Vec::new(),
        report: req.report.name.to_string(),
        columns: columns.iter().map(|c| c.to_string()).collect(),
        rows,
    }))
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
    type Key = (i64, i64, Option<i64>, String, String);
    #[derive(Default)]
    struct Group {
        total: Vec<i64>,
        api: Vec<i64>,
        queue: Vec<i64>,
        kernel: Vec<i64>,
    }
    // By ids first, then by names: the two rows of a call in old exports (`cudaLaunchKernel`,
    // `cudaLaunchKernel_v7000`) make one group.
    let mut by_id: FxHashMap<(i64, i64, Option<i64>, i64, i64), Group> = FxHashMap::default();
    // Each group sorts its values (`Summary::of`): the launches need no order.
    for_each_launch(db, |l| {
        let key = (l.pid, l.tid, l.device, l.api_name, l.kernel_name);
        let g = by_id.entry(key).or_default();
        g.total.push(l.total());
        g.api.push(l.api_end - l.api_start);
        if let Some((_, q)) = l.queue() {
            g.queue.push(q);
        }
        g.kernel.push(l.kernel_end - l.kernel_start);
    })?;
    let mut names = Names {
        strings: &strings,
        api: HashMap::new(),
        kernel: HashMap::new(),
    };
    let mut groups: HashMap<Key, Group> = HashMap::new();
    for ((pid, tid, device, api, kernel), g) in by_id {
        let key = (
            pid,
            tid,
            device,
            names.api(api).to_string(),
            names.kernel(kernel).to_string(),
        );
        let into = groups.entry(key).or_default();
        into.total.extend(g.total);
        into.api.extend(g.api);
        into.queue.extend(g.queue);
        into.kernel.extend(g.kernel);
    }
    let mut rows: Vec<((i128, u64), Key, Vec<Cell>)> = groups
        .into_iter()
        .map(|(key, mut g)| {
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
        })
        .collect();
    // Average total time, descending (compared exactly), then the key.
    rows.sort_by(|(a, ak, _), (b, bk, _)| {
        (b.0 * i128::from(a.1))
            .cmp(&(a.0 * i128::from(b.1)))
            .then_with(|| ak.cmp(bk))
    });
    let columns = [
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
    Ok(ReportOutcome::Table(ReportTable {
        warnings: Vec::new(),
        report: req.report.name.to_string(),
        columns: columns.iter().map(|c| c.to_string()).collect(),
        rows: rows.into_iter().map(|r| r.2).collect(),
    }))
}
