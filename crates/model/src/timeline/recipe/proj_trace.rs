//! One file's part of `nvtx_gpu_proj_trace`: the rows of `nsys stats`' `nvtx_gpu_proj_trace`
//! report (the recipe's trace is that report per file, its columns without the ` (ns)` unit, a
//! `File` column added, the files' rows one after another with each file's row numbers as the
//! index). Each column is held typed: integers (`None`: the report's empty cell) or text.

use crate::timeline::nsys::stats::{ReportOutcome, run_report};
use crate::timeline::nsys::{ExportDb, NsysError};

/// One column of a file's trace.
#[derive(Debug, Clone, PartialEq)]
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
#[derive(Debug, Clone, PartialEq, Default)]
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

/// One file's part of `nvtx_gpu_proj_trace`; `None` when the export has no projection.
pub fn trace_part(db: &ExportDb) -> Result<Option<TracePart>, NsysError> {
    let ReportOutcome::Table(table) = run_report(db, "nvtx_gpu_proj_trace")? else {
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
