//! The utilization heat maps (`cuda_gpu_time_util_map`, `nccl_gpu_time_util_map`,
//! `mpi_gpu_time_util_map`, `ucx_gpu_time_util_map`): the share of each bin of time during
//! which a process's kernels (on one GPU, or on any for MPI and UCX) ran, as one
//! `analysis.parquet` of every file's bins. Learnt from NVIDIA's outputs (Nsight Systems 2023.4)
//! on generated exports (`fixtures/nsys/recipes/maps/`, notes/nsys-recipes.md):
//!
//! - the files share one time axis: each file's clock starts at its session start
//!   (`TARGET_INFO_SESSION_START_TIME`) less the earliest session start of the files; the axis
//!   spans the latest end (offset + `ANALYSIS_DETAILS.duration`), cut into `--bins` (30) bins of
//!   ⌈span / bins⌉ ns; `Duration` is a bin's start on that axis;
//! - a bin's value is the time covered by the events (joined where they overlap; added up with
//!   `--cumulative`) over the part of the bin inside the file's own span, as a percentage
//!   rounded to one decimal; bins outside the file's span are missing (null); the bin holding
//!   the file's end is kept even when the end is its first nanosecond (0.0);
//! - an event starting exactly on a bin's first nanosecond adds nothing to that bin (NVIDIA's
//!   recipe loses that part; Sightline does the same so the tables are equal);
//! - `--start`/`--end` keep the events overlapping the window on the file's own clock (the bins
//!   stay the whole axis); groups are sorted by PID (then GPU), files by name.
//!
//! NCCL: a kernel is NCCL's when the CUDA call launching it lies inside a range of the `NCCL`
//! NVTX domain on the same thread; `All` is every kernel, `Compute` the others. MPI and UCX: a
//! process's calls (`MPI_*_EVENTS`, `UCP_*_EVENTS`), its kernels on every GPU, and their
//! `Overlap` (the time both ran).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use super::metric_map::{self, MetricPart};
use super::mpi::MPI_TABLES;
use super::nvtx::{Window, read_ranges};
use super::table::{Cells, PandasIndex, Table, TableColumn};
use super::{FileOutcome, Kind, Recipe, RecipeKind, RecipeOption, RecipeOptions};
use crate::timeline::nsys::db::int_of;
use crate::timeline::nsys::{ExportDb, NsysError};

/// The default number of bins.
pub const DEFAULT_BINS: u32 = 30;

/// The kernels' table.
const KERNELS: &str = "CUPTI_ACTIVITY_KIND_KERNEL";
/// The CUDA calls' table.
const RUNTIME: &str = "CUPTI_ACTIVITY_KIND_RUNTIME";
/// UCX's tables.
const UCX_TABLES: [&str; 3] = ["UCP_SUBMIT_EVENTS", "UCP_PROGRESS_EVENTS", "UCP_EVENTS"];

/// What a heat map shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapOf {
    /// Kernels per process and GPU.
    Cuda,
    /// Every kernel, NCCL's and the others per process and GPU.
    Nccl,
    /// Kernels and MPI calls per process.
    Mpi,
    /// Kernels and UCX calls per process.
    Ucx,
    /// The SM Active, SM Issue and Tensor Active GPU metrics per GPU ([`metric_map`]).
    GpuMetric,
    /// The NIC metrics per NIC ([`metric_map`]).
    Nic,
}

/// A heat-map recipe.
#[derive(Debug)]
pub struct HeatMap {
    /// What it shows.
    pub of: MapOf,
}

impl HeatMap {
    /// The unit of its values: `%` (shares of time, GPU metrics), or none (NIC metrics, which
    /// NVIDIA's recipe gives as time-weighted counts).
    pub fn unit(&self) -> &'static str {
        match self.of {
            MapOf::Nic => "",
            _ => "%",
        }
    }

    /// The value columns of its table, in order.
    pub fn values(&self) -> &'static [&'static str] {
        match self.of {
            MapOf::Cuda => &["Kernel"],
            MapOf::Nccl => &["All", "NCCL", "Compute"],
            MapOf::Mpi => &["Kernel", "MPI", "Overlap"],
            MapOf::Ucx => &["Kernel", "UCX", "Overlap"],
            MapOf::GpuMetric => &metric_map::GPU_COLUMNS,
            MapOf::Nic => &metric_map::NIC_COLUMNS,
        }
    }

    /// Whether its groups are per GPU too.
    fn per_device(&self) -> bool {
        matches!(self.of, MapOf::Cuda | MapOf::Nccl)
    }
}

/// A heat-map recipe taking `--start`, `--end`, `--bins` and, when `cumulative`, `--cumulative`.
pub(super) const fn map(
    name: &'static str,
    about: &'static str,
    of: MapOf,
    cumulative: bool,
) -> Recipe {
    const WITH: &[RecipeOption] = &[
        RecipeOption::Start,
        RecipeOption::End,
        RecipeOption::Bins,
        RecipeOption::Cumulative,
    ];
    Recipe {
        name,
        about,
        options: if cumulative { WITH } else { WITH.split_at(3).0 },
        kind: Kind::HeatMap(HeatMap { of }),
    }
}

/// `cuda_gpu_time_util_map`.
pub const CUDA_GPU_TIME_UTIL_MAP: Recipe = map(
    "cuda_gpu_time_util_map",
    "Heat map: the share of each bin of time kernels ran, per process and GPU",
    MapOf::Cuda,
    true,
);

/// `nccl_gpu_time_util_map`.
pub const NCCL_GPU_TIME_UTIL_MAP: Recipe = map(
    "nccl_gpu_time_util_map",
    "Heat map: the share of each bin of time NCCL and other kernels ran, per process and GPU",
    MapOf::Nccl,
    true,
);

/// `mpi_gpu_time_util_map`.
pub const MPI_GPU_TIME_UTIL_MAP: Recipe = map(
    "mpi_gpu_time_util_map",
    "Heat map: the share of each bin of time kernels, MPI calls and both ran, per process",
    MapOf::Mpi,
    false,
);

/// `ucx_gpu_time_util_map`.
pub const UCX_GPU_TIME_UTIL_MAP: Recipe = map(
    "ucx_gpu_time_util_map",
    "Heat map: the share of each bin of time kernels, UCX calls and both ran, per process",
    MapOf::Ucx,
    false,
);

/// A time span `[start, end)` (ns).
pub(super) type Span = (i64, i64);

/// One group's series (one per value column), on the file's clock.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Group {
    /// The process.
    pub pid: i64,
    /// The GPU (`None`: every GPU of the process).
    pub device: Option<i64>,
    /// The spans of each value column (joined unless `--cumulative`).
    pub series: Vec<Vec<Span>>,
}

/// What one file gives: its clock and its groups.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct MapPart {
    /// Its session start (UTC ns), when the export has one.
    pub session: Option<i64>,
    /// Its length (ns): `ANALYSIS_DETAILS.duration`, else the latest end of its events.
    pub duration: i64,
    /// Its groups, by process (then GPU).
    pub groups: Vec<Group>,
}

/// What one file gives a heat map: its events (time maps) or its metrics' samples.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum MapPartial {
    /// A time map's part (`cuda`, `nccl`, `mpi`, `ucx`).
    Time(MapPart),
    /// A metric map's part (`gpu_metric_util_map`, `nic_metric_map`).
    Metric(MetricPart),
}

impl RecipeKind for HeatMap {
    type Partial = MapPartial;

    fn file(&self, path: &Path, options: &RecipeOptions) -> FileOutcome<MapPartial> {
        let db = match ExportDb::open_salvaging(path) {
            Ok(db) => db,
            Err(e) => return FileOutcome::Failed(e.to_string()),
        };
        if matches!(self.of, MapOf::GpuMetric | MapOf::Nic) {
            return match metric_map::part(self.of, &db, options) {
                Ok(Some(part)) => FileOutcome::Data(MapPartial::Metric(part)),
                Ok(None) => FileOutcome::NoData(format!(
                    "{}: {}",
                    path.display(),
                    metric_map::nothing(self.of)
                )),
                Err(e) => FileOutcome::Failed(e.to_string()),
            };
        }
        match self.part(&db, options) {
            Ok(Some(part)) => FileOutcome::Data(MapPartial::Time(part)),
            Ok(None) => FileOutcome::NoData(format!(
                "{}: {}",
                path.display(),
                match self.of {
                    MapOf::Cuda | MapOf::Nccl => "no kernels",
                    MapOf::Mpi => "no kernels or MPI calls",
                    MapOf::Ucx => "no kernels or UCX calls",
                    MapOf::GpuMetric | MapOf::Nic => metric_map::nothing(self.of),
                }
            )),
            Err(e) => FileOutcome::Failed(e.to_string()),
        }
    }

    fn tables(
        &self,
        stems: &[String],
        files: &[Option<MapPartial>],
        options: &RecipeOptions,
    ) -> Vec<Table> {
        let parts = super::with_data(stems, files);
        if parts.is_empty() {
            return Vec::new();
        }
        if matches!(self.of, MapOf::GpuMetric | MapOf::Nic) {
            let metric: Vec<(&String, &MetricPart)> = parts
                .iter()
                .filter_map(|&(s, p)| match p {
                    MapPartial::Metric(m) => Some((s, m)),
                    MapPartial::Time(_) => None,
                })
                .collect();
            return metric_map::tables(self.of, &metric, options);
        }
        let parts: Vec<(&String, &MapPart)> = parts
            .iter()
            .filter_map(|&(s, p)| match p {
                MapPartial::Time(t) => Some((s, t)),
                MapPartial::Metric(_) => None,
            })
            .collect();
        let clocks: Vec<(Option<i64>, i64)> =
            parts.iter().map(|(_, p)| (p.session, p.duration)).collect();
        let axes = axes(&clocks, options.bins);
        let mut rows = Rows::new(self.values().len());
        let mut lengths = Vec::new();
        for ((stem, part), axis) in parts.iter().zip(&axes) {
            let before = rows.len();
            for group in &part.groups {
                rows.add(stem, group, axis);
            }
            lengths.push(rows.len() - before);
        }
        vec![rows.table(self.values(), self.per_device(), &lengths)]
    }
}

/// Each file's place on the files' common time axis, from each file's clock (its session
/// start, when known, and its length): each file starts at its session start less the earliest
/// one; the axis spans the latest end, cut into `bins` ([`DEFAULT_BINS`]) bins of
/// ⌈span / bins⌉ ns.
pub(super) fn axes(clocks: &[(Option<i64>, i64)], bins: Option<u32>) -> Vec<Axis> {
    let first = clocks.iter().filter_map(|c| c.0).min();
    let offset = |session: Option<i64>| match (session, first) {
        (Some(s), Some(f)) => s.saturating_sub(f),
        _ => 0,
    };
    let span = clocks
        .iter()
        .map(|&(s, d)| offset(s).saturating_add(d))
        .max()
        .unwrap_or(0);
    let bins = i64::from(bins.unwrap_or(DEFAULT_BINS).max(1));
    let size = ((span + bins - 1) / bins).max(1);
    clocks
        .iter()
        .map(|&(session, duration)| Axis {
            size,
            bins,
            offset: offset(session),
            end: offset(session).saturating_add(duration),
        })
        .collect()
}

impl HeatMap {
    /// One file's part; `None` when it has nothing the map shows.
    fn part(&self, db: &ExportDb, options: &RecipeOptions) -> Result<Option<MapPart>, NsysError> {
        let window = Window {
            start: options.start,
            end: options.end,
        };
        let kernels = read_kernels(db, window)?;
        let calls = match self.of {
            MapOf::Mpi => read_calls(db, &MPI_TABLES, window)?,
            MapOf::Ucx => read_calls(db, &UCX_TABLES, window)?,
            MapOf::Cuda | MapOf::Nccl | MapOf::GpuMetric | MapOf::Nic => Vec::new(),
        };
        if kernels.is_empty() && calls.is_empty() {
            return Ok(None);
        }
        let nccl = if self.of == MapOf::Nccl {
            nccl_launches(db)?
        } else {
            HashMap::new()
        };
        let latest = kernels
            .iter()
            .map(|k| k.span.1)
            .chain(calls.iter().map(|c| c.1.1))
            .max()
            .unwrap_or(0);
        let join = |spans: Vec<Span>| {
            if options.cumulative {
                spans
            } else {
                union(spans)
            }
        };
        let mut groups: BTreeMap<(i64, Option<i64>), Vec<Vec<Span>>> = BTreeMap::new();
        let width = self.values().len();
        for k in &kernels {
            let key = (k.pid, self.per_device().then_some(k.device));
            let series = groups.entry(key).or_insert_with(|| vec![Vec::new(); width]);
            series[0].push(k.span);
            if self.of == MapOf::Nccl {
                let ours = nccl.contains_key(&(k.pid, k.correlation.unwrap_or(i64::MIN)));
                series[if ours { 1 } else { 2 }].push(k.span);
            }
        }
        for &(pid, span) in &calls {
            let series = groups
                .entry((pid, None))
                .or_insert_with(|| vec![Vec::new(); width]);
            series[1].push(span);
        }
        let groups = groups
            .into_iter()
            .map(|((pid, device), series)| {
                let mut series: Vec<Vec<Span>> = series.into_iter().map(&join).collect();
                if matches!(self.of, MapOf::Mpi | MapOf::Ucx) {
                    series[2] = overlap(&union(series[0].clone()), &union(series[1].clone()));
                }
                Group {
                    pid,
                    device,
                    series,
                }
            })
            .collect();
        Ok(Some(MapPart {
            session: session_start(db)?,
            duration: analysis_duration(db)?.unwrap_or(latest),
            groups,
        }))
    }
}

/// One kernel.
#[derive(Debug, Clone, Copy)]
struct Kernel {
    span: Span,
    device: i64,
    pid: i64,
    correlation: Option<i64>,
}

/// The process of a `globalPid`/`globalTid`.
fn pid_of(global: i64) -> i64 {
    (global >> 24) & 0x00FF_FFFF
}

/// The first integer of `column` in `table`, when there is one.
fn first_int(db: &ExportDb, table: &str, column: &str) -> Result<Option<i64>, NsysError> {
    if !db.has_table(table) || !db.has_column(table, column) {
        return Ok(None);
    }
    let sql = format!("SELECT rowid, {column} FROM {table} ORDER BY rowid LIMIT 1");
    let mut found = None;
    db.scan_around_damage(table, &sql, |row| {
        found = found.or(row.get_ref(1).ok().and_then(int_of));
        Ok(())
    })?;
    Ok(found)
}

/// The session's start (UTC ns).
pub(super) fn session_start(db: &ExportDb) -> Result<Option<i64>, NsysError> {
    first_int(db, "TARGET_INFO_SESSION_START_TIME", "utcEpochNs")
}

/// The capture's length (ns).
pub(super) fn analysis_duration(db: &ExportDb) -> Result<Option<i64>, NsysError> {
    first_int(db, "ANALYSIS_DETAILS", "duration")
}

/// The rows of `table` as `(start, end, [columns…])`, rows without an end left out; an error
/// names a row without a start.
fn scan_spans(
    db: &ExportDb,
    table: &str,
    columns: &[&str],
    mut each: impl FnMut(Span, &[Option<i64>]),
) -> Result<(), NsysError> {
    let cols = db.cols_or_null(table, columns);
    let sql = format!("SELECT rowid, start, end, {cols} FROM {table} ORDER BY rowid");
    let mut cells = vec![None; columns.len()];
    db.scan_around_damage(table, &sql, |row| {
        let v = |i| row.get_ref(i).ok().and_then(int_of);
        let Some(start) = v(1) else {
            let rowid = v(0).unwrap_or(-1);
            return Err(db.query_error(table, format!("rowid {rowid}: no start")));
        };
        if let Some(end) = v(2) {
            for (i, c) in cells.iter_mut().enumerate() {
                *c = v(3 + i);
            }
            each((start, end), &cells);
        }
        Ok(())
    })?;
    Ok(())
}

/// The kernels overlapping the window.
fn read_kernels(db: &ExportDb, window: Window) -> Result<Vec<Kernel>, NsysError> {
    let mut out = Vec::new();
    if !db.has_table(KERNELS) {
        return Ok(out);
    }
    let columns = ["deviceId", "globalPid", "correlationId"];
    scan_spans(db, KERNELS, &columns, |span, c| {
        if window.keeps(span.0, Some(span.1)) {
            out.push(Kernel {
                span,
                device: c[0].unwrap_or(0),
                pid: c[1].map_or(0, pid_of),
                correlation: c[2],
            });
        }
    })?;
    Ok(out)
}

/// The calls of `tables` overlapping the window, with their process.
fn read_calls(
    db: &ExportDb,
    tables: &[&str],
    window: Window,
) -> Result<Vec<(i64, Span)>, NsysError> {
    let mut out = Vec::new();
    for table in tables.iter().filter(|t| db.has_table(t)) {
        scan_spans(db, table, &["globalTid"], |span, c| {
            if window.keeps(span.0, Some(span.1)) {
                out.push((c[0].map_or(0, pid_of), span));
            }
        })?;
    }
    Ok(out)
}

/// The CUDA calls made inside a range of the `NCCL` NVTX domain on their thread, by
/// `(process, correlation id)`.
fn nccl_launches(db: &ExportDb) -> Result<HashMap<(i64, i64), ()>, NsysError> {
    let mut found = HashMap::new();
    let Some((ranges, _)) = read_ranges(db)? else {
        return Ok(found);
    };
    // Per thread: the ranges by start, with the latest end so far.
    let mut by_thread: HashMap<i64, Vec<Span>> = HashMap::new();
    for r in ranges {
        if let (Some("NCCL"), Some(end), Some(tid)) = (r.domain.as_deref(), r.end, r.tid) {
            by_thread.entry(tid).or_default().push((r.start, end));
        }
    }
    if by_thread.is_empty() || !db.has_table(RUNTIME) {
        return Ok(found);
    }
    for spans in by_thread.values_mut() {
        spans.sort_unstable();
        let mut latest = i64::MIN;
        for s in spans.iter_mut() {
            latest = latest.max(s.1);
            s.1 = latest;
        }
    }
    scan_spans(
        db,
        RUNTIME,
        &["globalTid", "correlationId"],
        |(start, end), c| {
            let (Some(tid), Some(correlation)) = (c[0], c[1]) else {
                return;
            };
            let Some(spans) = by_thread.get(&tid) else {
                return;
            };
            let opened = spans.partition_point(|s| s.0 <= start);
            if opened > 0 && spans[opened - 1].1 >= end {
                found.insert((pid_of(tid), correlation), ());
            }
        },
    )?;
    Ok(found)
}

/// The spans joined where they overlap or touch, by start.
pub fn union(mut spans: Vec<Span>) -> Vec<Span> {
    spans.sort_unstable();
    let mut out: Vec<Span> = Vec::with_capacity(spans.len());
    for (s, e) in spans {
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

/// The time covered by both of two joined span lists.
pub fn overlap(a: &[Span], b: &[Span]) -> Vec<Span> {
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < a.len() && j < b.len() {
        let (s, e) = (a[i].0.max(b[j].0), a[i].1.min(b[j].1));
        if s < e {
            out.push((s, e));
        }
        if a[i].1 < b[j].1 { i += 1 } else { j += 1 }
    }
    out
}

/// The common time axis and one file's place on it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Axis {
    /// A bin's length (ns).
    pub(super) size: i64,
    /// How many bins.
    pub(super) bins: i64,
    /// The file's start on the axis.
    pub(super) offset: i64,
    /// The file's end on the axis.
    pub(super) end: i64,
}

impl Axis {
    /// The time each bin is covered by `spans` (on the file's clock), NVIDIA's way: the part of a
    /// span in the bin it starts in is left out when it starts on the bin's first nanosecond.
    fn busy(&self, spans: &[Span]) -> Vec<i128> {
        let n = usize::try_from(self.bins).unwrap_or(0);
        let mut busy = vec![0i128; n];
        for &span in spans {
            self.split(span, |b, t| busy[b] += i128::from(t));
        }
        busy
    }

    /// The parts `(bin, ns)` of `span` (on the file's clock) in the axis's bins, NVIDIA's way
    /// ([`Axis::busy`]).
    pub(super) fn split(&self, (s, e): Span, mut add: impl FnMut(usize, i64)) {
        let n = usize::try_from(self.bins).unwrap_or(0);
        let mut add = |bin: i64, t: i64| {
            if let Ok(b) = usize::try_from(bin)
                && b < n
            {
                add(b, t);
            }
        };
        let (s, e) = (s.saturating_add(self.offset), e.saturating_add(self.offset));
        if e < s {
            return;
        }
        let (first, last) = (s.div_euclid(self.size), e.div_euclid(self.size));
        let head = (-s).rem_euclid(self.size);
        if first == last {
            add(first, head.min(e - s));
            return;
        }
        add(first, head);
        for bin in first + 1..last.min(self.bins) {
            add(bin, self.size);
        }
        add(last, e - last * self.size);
    }

    /// The percentage of bin `bin` covered by `busy` ns, over the part of the bin inside the
    /// file's span (`None`: the bin is outside it).
    fn percent(&self, bin: i64, busy: i128) -> Option<f64> {
        self.share(bin, busy as f64)
    }

    /// `busy` (ns, or ns × value) over the part of bin `bin` inside the file's span, × 100,
    /// rounded to one decimal (`None`: the bin is outside the file's span).
    pub(super) fn share(&self, bin: i64, busy: f64) -> Option<f64> {
        let (lo, hi) = (bin * self.size, (bin + 1) * self.size);
        if bin < self.offset / self.size || bin > self.end / self.size {
            return None;
        }
        let covered = hi.min(self.end) - lo.max(self.offset);
        if covered <= 0 {
            return Some(0.0);
        }
        Some(round1(busy / covered as f64 * 100.0))
    }
}

/// `x` rounded to one decimal as numpy rounds (half to even on `x × 10`).
pub(super) fn round1(x: f64) -> f64 {
    (x * 10.0).round_ties_even() / 10.0
}

/// The table's rows as they are made.
struct Rows {
    duration: Vec<i64>,
    values: Vec<Vec<Option<f64>>>,
    pid: Vec<i64>,
    device: Vec<i64>,
    file: Vec<String>,
}

impl Rows {
    fn new(width: usize) -> Rows {
        Rows {
            duration: Vec::new(),
            values: vec![Vec::new(); width],
            pid: Vec::new(),
            device: Vec::new(),
            file: Vec::new(),
        }
    }

    fn len(&self) -> usize {
        self.duration.len()
    }

    /// One row per bin of `group`.
    fn add(&mut self, stem: &str, group: &Group, axis: &Axis) {
        let busy: Vec<Vec<i128>> = group.series.iter().map(|s| axis.busy(s)).collect();
        for bin in 0..axis.bins {
            self.duration.push(bin * axis.size);
            for (column, b) in self.values.iter_mut().zip(&busy) {
                let t = usize::try_from(bin).ok().and_then(|i| b.get(i)).copied();
                column.push(axis.percent(bin, t.unwrap_or(0)));
            }
            self.pid.push(group.pid);
            self.device.push(group.device.unwrap_or(0));
            self.file.push(stem.to_owned());
        }
    }

    /// The `analysis` table.
    fn table(self, names: &[&str], per_device: bool, lengths: &[usize]) -> Table {
        let mut columns = vec![TableColumn::ints("Duration", self.duration)];
        for (name, values) in names.iter().zip(self.values) {
            columns.push(TableColumn {
                name: (*name).to_owned(),
                cells: Cells::Float(values),
            });
        }
        columns.push(TableColumn::ints("PID", self.pid));
        if per_device {
            columns.push(TableColumn::ints("Device ID", self.device));
        }
        columns.push(TableColumn::texts("File", self.file));
        Table {
            stem: "analysis",
            columns,
            index: PandasIndex::of_frames(lengths),
            csv: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axis(size: i64, bins: i64, offset: i64, end: i64) -> Axis {
        Axis {
            size,
            bins,
            offset,
            end,
        }
    }

    #[test]
    fn a_span_fills_its_bins_and_loses_its_start_bin_on_an_edge() {
        let a = axis(100, 5, 0, 500);
        assert_eq!(a.busy(&[(150, 350)]), [0, 50, 100, 50, 0]);
        assert_eq!(a.busy(&[(100, 350)]), [0, 0, 100, 50, 0]);
        assert_eq!(a.busy(&[(110, 120)]), [0, 10, 0, 0, 0]);
        assert_eq!(a.busy(&[(100, 150)]), [0, 0, 0, 0, 0]);
        assert_eq!(a.busy(&[(450, 500)]), [0, 0, 0, 0, 50]);
    }

    #[test]
    fn a_late_file_is_measured_over_its_own_part_of_a_bin() {
        let a = axis(100, 10, 250, 770);
        assert_eq!(a.percent(1, 0), None);
        assert_eq!(a.percent(2, 20), Some(40.0));
        assert_eq!(a.percent(7, 35), Some(50.0));
        assert_eq!(a.percent(8, 0), None);
        assert_eq!(axis(100, 10, 250, 800).percent(8, 0), Some(0.0));
    }

    #[test]
    fn spans_join_and_overlap() {
        assert_eq!(union(vec![(5, 9), (0, 2), (1, 3)]), [(0, 3), (5, 9)]);
        assert_eq!(
            overlap(&[(0, 10), (20, 30)], &[(5, 25)]),
            [(5, 10), (20, 25)]
        );
    }
}
