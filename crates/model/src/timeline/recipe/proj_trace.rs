//! One file's part of `nvtx_gpu_proj_trace`: the rows of `nsys stats`' `nvtx_gpu_proj_trace`
//! report (the recipe's trace is that report per file, its columns without the ` (ns)` unit, a
//! `File` column added, the files' rows one after another with each file's row numbers as the
//! index). Each column is held typed: integers (`None`: the report's empty cell) or text.

use std::path::Path;

use super::nvtx::Window;
use super::table::{Cells, PandasIndex, Table, TableColumn};
use super::{FileOutcome, Kind, Recipe, RecipeKind, RecipeOption, RecipeOptions};
use crate::timeline::nsys::stats::{ReportOutcome, proj_trace_in};
use crate::timeline::nsys::{ExportDb, NsysError};

/// One column of a file's trace.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum TraceValues {
    /// Integers (`None`: empty).
    Int(Vec<Option<i64>>),
    /// Text (`None`: empty).
    Text(Vec<Option<String>>),
}

impl TraceValues {
    /// How many rows.
    pub fn len(&self) -> usize {
        match self {
            TraceValues::Int(v) => v.len(),
            TraceValues::Text(v) => v.len(),
        }
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One file's trace: its columns (headers as the recipe names them).
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct TracePart {
    /// `(header, values)` in the report's order.
    pub columns: Vec<(String, TraceValues)>,
}

impl TracePart {
    /// How many rows.
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, v)| v.len())
    }
}

/// The text columns of the trace (the others hold integers).
const TEXT_COLUMNS: [&str; 3] = ["Name", "Style", "RangeStack"];

/// One file's part of `nvtx_gpu_proj_trace` (with `--start`/`--end`: projected from the
/// launching calls and operations that overlap the window); `None` when the export has no
/// projection.
pub fn trace_part(db: &ExportDb, window: Window) -> Result<Option<TracePart>, NsysError> {
    let outcome = proj_trace_in(db, "nvtx_gpu_proj_trace", window.bounds())?;
    let ReportOutcome::Table(table) = outcome else {
        return Ok(None);
    };
    if table.rows.is_empty() {
        return Ok(None);
    }
    let mut columns: Vec<(String, TraceValues)> = table
        .columns
        .iter()
        .map(|h| {
            let name = h.trim_end_matches(" (ns)").to_owned();
            let values = if TEXT_COLUMNS.contains(&name.as_str()) {
                TraceValues::Text(Vec::new())
            } else {
                TraceValues::Int(Vec::new())
            };
            (name, values)
        })
        .collect();
    let mut bad = None;
    table
        .rows
        .for_each(|cells| {
            for ((name, values), cell) in columns.iter_mut().zip(cells) {
                let text = cell.as_str();
                match values {
                    TraceValues::Text(v) => v.push((!text.is_empty()).then(|| text.to_owned())),
                    TraceValues::Int(v) if text.is_empty() => v.push(None),
                    TraceValues::Int(v) => match text.parse::<i64>() {
                        Ok(x) => v.push(Some(x)),
                        Err(_) => {
                            bad = Some(format!("column {name}: {text:?} is not an integer"));
                            v.push(None);
                        }
                    },
                }
            }
            Ok::<(), ()>(())
        })
        .ok();
    if let Some(why) = bad {
        return Err(db.query_error("NVTX_EVENTS", why));
    }
    Ok(Some(TracePart { columns }))
}

/// `nvtx_gpu_proj_trace`.
pub const NVTX_GPU_PROJ_TRACE: Recipe = Recipe {
    name: "nvtx_gpu_proj_trace",
    about: "NVTX ranges projected onto the GPU operations they launch, every range of every rank",
    options: &[RecipeOption::Start, RecipeOption::End],
    kind: Kind::ProjTrace(ProjTrace),
};

/// The `nvtx_gpu_proj_trace` recipe: its one table, `trace`.
#[derive(Debug)]
pub struct ProjTrace;

impl RecipeKind for ProjTrace {
    /// The file's trace rows.
    type Partial = TracePart;

    fn file(&self, path: &Path, options: &RecipeOptions) -> FileOutcome<TracePart> {
        let db = match ExportDb::open_salvaging(path) {
            Ok(db) => db,
            Err(e) => return FileOutcome::Failed(e.to_string()),
        };
        let window = Window {
            start: options.start,
            end: options.end,
        };
        match trace_part(&db, window) {
            Ok(Some(part)) => FileOutcome::Data(part),
            Ok(None) => FileOutcome::NoData(format!(
                "{}: no NVTX range projected onto the GPU",
                path.display()
            )),
            Err(e) => FileOutcome::Failed(e.to_string()),
        }
    }

    fn tables(
        &self,
        stems: &[String],
        files: &[Option<TracePart>],
        _: &RecipeOptions,
    ) -> Vec<Table> {
        let parts = super::with_data(stems, files);
        let Some((_, first)) = parts.first() else {
            return Vec::new();
        };
        let mut columns: Vec<TableColumn> = (0..first.columns.len())
            .map(|c| concat_column(&parts, c))
            .collect();
        columns.push(TableColumn::texts(
            "File",
            parts
                .iter()
                .flat_map(|(s, p)| std::iter::repeat_n((*s).clone(), p.rows())),
        ));
        let lengths: Vec<usize> = parts.iter().map(|(_, p)| p.rows()).collect();
        vec![Table {
            stem: "trace",
            columns,
            index: PandasIndex::of_frames(&lengths),
            csv: false,
        }]
    }
}

/// Column `c` of every file's trace, one after another, typed as pandas' concatenation of the
/// files' frames types it: a file's integer column with empty cells is of floats, one with
/// only empty cells of objects (`None`); objects with floats make floats, objects with
/// integers integers (with missing values), only objects Arrow's null type.
fn concat_column(parts: &[(&String, &TracePart)], c: usize) -> TableColumn {
    let name = parts[0].1.columns[c].0.clone();
    let values = || {
        parts
            .iter()
            .filter_map(|(_, p)| p.columns.get(c).map(|(_, v)| v))
    };
    let all_none = |v: &TraceValues| match v {
        TraceValues::Int(x) => x.iter().all(Option::is_none),
        TraceValues::Text(x) => x.iter().all(Option::is_none),
    };
    let cells = if values().all(all_none) {
        Cells::Null(values().map(TraceValues::len).sum())
    } else if let Some(TraceValues::Text(_)) = values().next() {
        Cells::Text(
            values()
                .flat_map(|v| match v {
                    TraceValues::Text(x) => x.clone(),
                    TraceValues::Int(x) => x.iter().map(|i| i.map(|i| i.to_string())).collect(),
                })
                .collect(),
        )
    } else {
        let ints: Vec<Option<i64>> = values()
            .flat_map(|v| match v {
                TraceValues::Int(x) => x.clone(),
                TraceValues::Text(x) => vec![None; x.len()],
            })
            .collect();
        // Files whose column has some but not all cells empty hold floats.
        let some_floats = values().any(|v| {
            !all_none(v) && matches!(v, TraceValues::Int(x) if x.iter().any(Option::is_none))
        });
        if some_floats {
            Cells::Float(ints.into_iter().map(|i| i.map(|i| i as f64)).collect())
        } else {
            Cells::Int(ints)
        }
    };
    TableColumn { name, cells }
}
