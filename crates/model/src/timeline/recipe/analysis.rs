//! The analysis recipes (`cuda_api_sync`, `cuda_memcpy_async`, `cuda_memcpy_sync`,
//! `cuda_memset_sync`, `dx12_mem_ops`, `gpu_gaps`, `gpu_time_util`): per file, the findings of
//! the `nsys analyze` rule of the same name, as one `analysis.parquet` of every file's rows
//! (files in name order) with a `File` column, as the recipe writes it. Learnt from the
//! recipe's outputs over the corpus exports and `fixtures/nsys/expert.sqlite`:
//!
//! - the columns are the rule's with their units dropped (`Duration`, `Start`), sizes in bytes
//!   (`Bytes`, the rule's `Bytes (MB)`), `In-Use` a float rounded to one decimal; a green
//!   context of 0 (or NULL) is none, and a column of none is of Arrow's null type;
//! - every finding is listed (`--rows` limits the rows per file, the rule's default of 50 is
//!   not applied); each file's rows keep the rule's order (longest first, equal durations in
//!   the export's order), numbered from 0 in the frame's index: with one file holding rows the
//!   index is a `RangeIndex` (not stored), with several a column `__index_level_0__`;
//! - a file without the tables or the findings gives no rows; no rows at all, no file.
//!
//! The findings are computed from the export's events ([`Trace`]) with the rules' bulk
//! operations ([`ops`]).

use std::cmp::Ordering;
use std::path::Path;

use super::nvtx_window::first_range;
use super::table::{Cells, PandasIndex, Table, TableColumn};
use super::{FileOutcome, Kind, Recipe, RecipeKind, RecipeOption, RecipeOptions};
use crate::timeline::nsys::ExportDb;
use crate::timeline::nsys::trace::ops::{self, OpError, Test};
use crate::timeline::nsys::trace::{ColumnKind, EventTable, NULL, Trace};
use crate::timeline::summary::fmt_ratio;

/// One cell of a finding.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Value {
    /// Missing.
    Null,
    /// An integer.
    Int(i64),
    /// A float (NaN and the infinities kept in partials).
    Float(#[serde(with = "super::partial::any_float")] f64),
    /// Text.
    Text(String),
}

/// A column's type in the recipe's data frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    /// int64 (float64 when a value is missing, as pandas holds it; null when all are).
    Int,
    /// float64.
    Float,
    /// Strings.
    Text,
}

/// One file's findings: rows of cells in the recipe's column order, `None` when the export
/// lacks what the recipe needs.
pub type Finder = fn(&Trace, &RecipeOptions) -> Result<Option<Vec<Vec<Value>>>, OpError>;

/// An analysis recipe: its columns (before `File`) and how it finds its rows in one export.
#[derive(Debug)]
pub struct Analysis {
    /// The columns' headers and types.
    pub columns: &'static [(&'static str, ColumnType)],
    /// The rows of one export, in the recipe's order.
    pub find: Finder,
    /// The [`Trace`] tables it reads (`Trace::read_tables`).
    pub tables: &'static [&'static str],
}

/// The options of every analysis recipe.
const WINDOW: &[RecipeOption] = &[
    RecipeOption::Start,
    RecipeOption::End,
    RecipeOption::Nvtx,
    RecipeOption::Rows,
];

const fn analysis(
    name: &'static str,
    about: &'static str,
    options: &'static [RecipeOption],
    columns: &'static [(&'static str, ColumnType)],
    (find, tables): (Finder, &'static [&'static str]),
) -> Recipe {
    Recipe {
        name,
        about,
        options,
        kind: Kind::Analysis(Analysis {
            columns,
            find,
            tables,
        }),
    }
}

use ColumnType::{Float as F, Int as I, Text as T};

/// The columns of the copy recipes.
const COPY_COLUMNS: &[(&str, ColumnType)] = &[
    ("Duration", I),
    ("Start", I),
    ("Src Kind", T),
    ("Dst Kind", T),
    ("Bytes", I),
    ("PID", I),
    ("Device ID", I),
    ("Context ID", I),
    ("Green Context ID", I),
    ("Stream ID", I),
    ("API Name", T),
];

/// `cuda_api_sync`.
pub const CUDA_API_SYNC: Recipe = analysis(
    "cuda_api_sync",
    "CUDA synchronization APIs (cudaDeviceSynchronize, cudaStreamSynchronize), longest first",
    WINDOW,
    &[
        ("Duration", I),
        ("Start", I),
        ("PID", I),
        ("TID", I),
        ("API Name", T),
    ],
    (cuda_api_sync, &["cuda_api"]),
);

/// `cuda_memcpy_async`.
pub const CUDA_MEMCPY_ASYNC: Recipe = analysis(
    "cuda_memcpy_async",
    "Asynchronous memory copies that run synchronously (pageable memory), longest first",
    WINDOW,
    COPY_COLUMNS,
    (cuda_memcpy_async, &["gpu"]),
);

/// `cuda_memcpy_sync`.
pub const CUDA_MEMCPY_SYNC: Recipe = analysis(
    "cuda_memcpy_sync",
    "Synchronous memory copies, longest first",
    WINDOW,
    COPY_COLUMNS,
    (cuda_memcpy_sync, &["gpu"]),
);

/// `cuda_memset_sync`.
pub const CUDA_MEMSET_SYNC: Recipe = analysis(
    "cuda_memset_sync",
    "Synchronous memsets of pinned host memory or Unified Memory, longest first",
    WINDOW,
    &[
        ("Duration", I),
        ("Start", I),
        ("Memory Kind", T),
        ("Bytes", I),
        ("PID", I),
        ("Device ID", I),
        ("Context ID", I),
        ("Green Context ID", I),
        ("Stream ID", I),
        ("API Name", T),
    ],
    (cuda_memset_sync, &["gpu"]),
);

/// `dx12_mem_ops`.
pub const DX12_MEM_OPS: Recipe = analysis(
    "dx12_mem_ops",
    "DX12 memory operations with warnings (zeroed heaps, reads and writes against the heap)",
    WINDOW,
    &[
        ("Duration", I),
        ("Start", I),
        ("TID", I),
        ("Device ID", I),
        ("Warning Type", T),
    ],
    (super::dx12::dx12_mem_ops, &["dx12_mem"]),
);

/// `gpu_gaps`.
pub const GPU_GAPS: Recipe = analysis(
    "gpu_gaps",
    "Stretches where a GPU is idle for a process (--gap ms, default 500), longest first",
    &[
        RecipeOption::Start,
        RecipeOption::End,
        RecipeOption::Nvtx,
        RecipeOption::Rows,
        RecipeOption::Gap,
    ],
    &[
        ("Row#", I),
        ("Duration", I),
        ("Start", I),
        ("PID", I),
        ("Device ID", I),
        ("Context ID", I),
    ],
    (super::gpu_use::gpu_gaps, &["gpu"]),
);

/// `gpu_time_util`.
pub const GPU_TIME_UTIL: Recipe = analysis(
    "gpu_time_util",
    "Time chunks of low GPU use per process (--threshold %, default 50; --chunks, default 30)",
    &[
        RecipeOption::Start,
        RecipeOption::End,
        RecipeOption::Nvtx,
        RecipeOption::Rows,
        RecipeOption::Threshold,
        RecipeOption::Chunks,
    ],
    &[
        ("Row#", I),
        ("In-Use", F),
        ("Duration", I),
        ("Start", I),
        ("PID", I),
        ("Device ID", I),
        ("Context ID", I),
    ],
    (super::gpu_use::gpu_time_util, &["gpu", "profiler_overhead"]),
);

impl RecipeKind for Analysis {
    /// The file's rows.
    type Partial = Vec<Vec<Value>>;

    fn file(&self, path: &Path, options: &RecipeOptions) -> FileOutcome<Vec<Vec<Value>>> {
        let no_data = || {
            FileOutcome::NoData(format!(
                "{}: processed, but no data was found",
                path.display()
            ))
        };
        let trace = match ExportDb::open_salvaging(path)
            .and_then(|db| Ok((Trace::read_tables(&db, self.tables)?, db)))
        {
            Ok(t) => t,
            Err(e) => return FileOutcome::Failed(e.to_string()),
        };
        let (trace, db) = trace;
        let mut options = options.clone();
        if let Some(filter) = &options.nvtx {
            // The first instance of the range is the window (within --start/--end, if given).
            match first_range(&db, filter) {
                Ok(Some((start, end))) => {
                    options.start = Some(options.start.map_or(start, |s| s.max(start)));
                    options.end = Some(options.end.map_or(end, |e| e.min(end)));
                }
                Ok(None) => return no_data(),
                Err(why) => return FileOutcome::Failed(why),
            }
        }
        match (self.find)(&trace, &options) {
            Ok(Some(mut rows)) if !rows.is_empty() => {
                if let Some(n) = options.rows {
                    rows.truncate(n);
                }
                FileOutcome::Data(rows)
            }
            Ok(_) => no_data(),
            Err(e) => FileOutcome::Failed(format!("{}: {e}", path.display())),
        }
    }

    fn tables(
        &self,
        stems: &[String],
        files: &[Option<Vec<Vec<Value>>>],
        _: &RecipeOptions,
    ) -> Vec<Table> {
        let lengths: Vec<usize> = files
            .iter()
            .map(|f| f.as_ref().map_or(0, Vec::len))
            .collect();
        if lengths.iter().all(|&n| n == 0) {
            return Vec::new();
        }
        let rows: Vec<&Vec<Value>> = files.iter().flatten().flatten().collect();
        let mut columns: Vec<TableColumn> = self
            .columns
            .iter()
            .enumerate()
            .map(|(c, &(name, kind))| TableColumn {
                name: name.to_owned(),
                cells: cells(kind, rows.iter().map(|r| r.get(c).unwrap_or(&Value::Null))),
            })
            .collect();
        let file = stems
            .iter()
            .zip(&lengths)
            .flat_map(|(stem, &n)| std::iter::repeat_n(stem.clone(), n));
        columns.push(TableColumn::texts("File", file));
        vec![Table {
            stem: "analysis",
            columns,
            index: PandasIndex::of_frames(&lengths),
            csv: false,
        }]
    }
}

/// A column of `kind` from its values, typed as pandas types it.
fn cells<'a>(kind: ColumnType, values: impl Iterator<Item = &'a Value>) -> Cells {
    let values: Vec<&Value> = values.collect();
    if values.iter().all(|v| **v == Value::Null) && kind != ColumnType::Text {
        return Cells::Null(values.len());
    }
    let float = |v: &Value| match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    };
    match kind {
        ColumnType::Int if values.iter().any(|v| **v == Value::Null) => {
            Cells::Float(values.iter().map(|v| float(v)).collect())
        }
        ColumnType::Int => Cells::Int(
            values
                .iter()
                .map(|v| match v {
                    Value::Int(i) => Some(*i),
                    _ => None,
                })
                .collect(),
        ),
        ColumnType::Float => Cells::Float(values.iter().map(|v| float(v)).collect()),
        ColumnType::Text => Cells::Text(
            values
                .iter()
                .map(|v| match v {
                    Value::Text(t) => Some(t.clone()),
                    _ => None,
                })
                .collect(),
        ),
    }
}

/// The rows of `table` in the options' window: ending at or after `--start`, starting before
/// `--end`.
pub(super) fn window(
    trace: &Trace,
    table: &EventTable,
    rows: Vec<u32>,
    options: &RecipeOptions,
) -> Result<Vec<u32>, OpError> {
    let mut rows = rows;
    if let Some(start) = options.start {
        rows = ops::filter(trace, table, &rows, "end", &Test::Ge(start))?;
    }
    if let Some(end) = options.end {
        rows = ops::filter(trace, table, &rows, "start", &Test::Lt(end))?;
    }
    Ok(rows)
}

/// Every row of `table`.
pub(super) fn all_rows(table: &EventTable) -> Vec<u32> {
    (0..u32::try_from(table.len()).unwrap_or(u32::MAX)).collect()
}

/// The cells of `columns` of `rows` of `table` (text decoded, NULL and a green context of 0 as
/// [`Value::Null`]).
pub(super) fn cells_of(
    trace: &Trace,
    table: &EventTable,
    rows: &[u32],
    columns: &[&str],
) -> Vec<Vec<Value>> {
    rows.iter()
        .map(|&r| {
            columns
                .iter()
                .map(|c| match table.value(c, r as usize) {
                    None | Some((_, NULL)) => Value::Null,
                    // Green context 0 is none (the recipe's `None`, as `nsys analyze` leaves it
                    // blank).
                    Some((_, 0)) if *c == "green_context" => Value::Null,
                    Some((ColumnKind::Int, v)) => Value::Int(v),
                    Some((ColumnKind::Text, v)) => trace
                        .text(v)
                        .map_or(Value::Null, |t| Value::Text(t.to_owned())),
                })
                .collect()
        })
        .collect()
}

/// `rows` longest first, equal durations in the export's order.
fn longest_first(trace: &Trace, table: &EventTable, rows: &[u32]) -> Result<Vec<u32>, OpError> {
    let keys = [("duration".to_owned(), true), ("rowid".to_owned(), false)];
    ops::sort(trace, table, rows, &keys)
}

const RUNTIME: &str = "CUPTI_ACTIVITY_KIND_RUNTIME";
const MEMCPY: &str = "CUPTI_ACTIVITY_KIND_MEMCPY";
const MEMSET: &str = "CUPTI_ACTIVITY_KIND_MEMSET";

/// The synchronization calls.
fn cuda_api_sync(
    trace: &Trace,
    options: &RecipeOptions,
) -> Result<Option<Vec<Vec<Value>>>, OpError> {
    let Some(api) = trace.table("cuda_api").filter(|_| trace.has(RUNTIME, None)) else {
        return Ok(None);
    };
    let sync = ["cudaDeviceSynchronize", "cudaStreamSynchronize"].map(str::to_owned);
    let rows = ops::filter(
        trace,
        api,
        &all_rows(api),
        "name",
        &Test::Prefix(sync.to_vec()),
    )?;
    let rows = longest_first(trace, api, &window(trace, api, rows, options)?)?;
    let columns = ["duration", "start", "pid", "tid", "name"];
    Ok(Some(cells_of(trace, api, &rows, &columns)))
}

/// The columns of a copy's row.
const COPY: [&str; 11] = [
    "duration",
    "start",
    "src_kind",
    "dst_kind",
    "bytes",
    "pid",
    "device",
    "context",
    "green_context",
    "stream",
    "api",
];

/// The GPU operations table, when the export has the CUDA API calls and `table`.
fn gpu_ops<'a>(trace: &'a Trace, table: &str) -> Option<&'a EventTable> {
    (trace.has(RUNTIME, None) && trace.has(table, None))
        .then(|| trace.table("gpu"))
        .flatten()
}

/// The GPU operations `op` (memcpy, memset) whose API call is an asynchronous one (a name
/// with `Async`), or is not.
fn ops_by_api(
    trace: &Trace,
    gpu: &EventTable,
    op: &str,
    asynchronous: bool,
) -> Result<Vec<u32>, OpError> {
    let rows = ops::filter(
        trace,
        gpu,
        &all_rows(gpu),
        "op",
        &Test::TextIn(vec![op.into()]),
    )?;
    let test = if asynchronous {
        Test::Contains("Async".into())
    } else {
        Test::NotContains("Async".into())
    };
    ops::filter(trace, gpu, &rows, "api", &test)
}

/// Asynchronous runtime copies from or to pageable memory.
fn cuda_memcpy_async(
    trace: &Trace,
    options: &RecipeOptions,
) -> Result<Option<Vec<Vec<Value>>>, OpError> {
    let Some(gpu) = gpu_ops(trace, MEMCPY) else {
        return Ok(None);
    };
    let copies = ops_by_api(trace, gpu, "memcpy", true)?;
    let copies = ops::filter(
        trace,
        gpu,
        &copies,
        "api",
        &Test::Prefix(vec!["cuda".into()]),
    )?;
    let pageable = Test::TextIn(vec!["Pageable".into()]);
    let src = ops::filter(trace, gpu, &copies, "src_kind", &pageable)?;
    let dst = ops::filter(trace, gpu, &copies, "dst_kind", &pageable)?;
    let found: Vec<u32> = copies
        .into_iter()
        .filter(|r| src.binary_search(r).is_ok() || dst.binary_search(r).is_ok())
        .collect();
    let rows = longest_first(trace, gpu, &window(trace, gpu, found, options)?)?;
    Ok(Some(cells_of(trace, gpu, &rows, &COPY)))
}

/// Host-to-device copies of this many bytes or fewer return before the copy is done.
const SMALL_HTOD: i64 = 64_000;

/// Synchronous copies, but those within one device and small host-to-device ones.
fn cuda_memcpy_sync(
    trace: &Trace,
    options: &RecipeOptions,
) -> Result<Option<Vec<Vec<Value>>>, OpError> {
    let Some(gpu) = gpu_ops(trace, MEMCPY) else {
        return Ok(None);
    };
    let copies = ops_by_api(trace, gpu, "memcpy", false)?;
    let same = ops::equal(gpu, &copies, "src_device", "dst_device")?;
    let htod = Test::TextIn(vec!["Host-to-Device".into()]);
    let small = ops::filter(trace, gpu, &copies, "copy_kind", &htod)?;
    let small = ops::filter(trace, gpu, &small, "bytes", &Test::Le(SMALL_HTOD))?;
    let found: Vec<u32> = copies
        .into_iter()
        .filter(|r| same.binary_search(r).is_err() && small.binary_search(r).is_err())
        .collect();
    let rows = longest_first(trace, gpu, &window(trace, gpu, found, options)?)?;
    Ok(Some(cells_of(trace, gpu, &rows, &COPY)))
}

/// Synchronous memsets of pinned or managed memory.
fn cuda_memset_sync(
    trace: &Trace,
    options: &RecipeOptions,
) -> Result<Option<Vec<Vec<Value>>>, OpError> {
    let Some(gpu) = gpu_ops(trace, MEMSET) else {
        return Ok(None);
    };
    let sets = ops_by_api(trace, gpu, "memset", false)?;
    let kinds = Test::TextIn(vec!["Pinned".into(), "Managed".into()]);
    let sets = ops::filter(trace, gpu, &sets, "mem_kind", &kinds)?;
    let rows = longest_first(trace, gpu, &window(trace, gpu, sets, options)?)?;
    let columns = [
        "duration",
        "start",
        "mem_kind",
        "bytes",
        "pid",
        "device",
        "context",
        "green_context",
        "stream",
        "api",
    ];
    Ok(Some(cells_of(trace, gpu, &rows, &columns)))
}

/// `num / den` rounded to one decimal (half away from zero, exactly) as a float.
pub(super) fn ratio1(num: i128, den: i128) -> f64 {
    fmt_ratio(num, den, 1).parse().unwrap_or(f64::NAN)
}

/// Compares `a / b` with `c / d` (positive denominators).
pub(super) fn cmp_ratio(a: i128, b: i128, c: i128, d: i128) -> Ordering {
    (a * d).cmp(&(c * b))
}
