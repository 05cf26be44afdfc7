//! The Events view's columns that come from where its events were read, not from the timeline:
//! a kernel's grid and block sizes, registers and shared memory, a copy's bytes and memory
//! kinds, a memset's value (the export's `CUPTI_ACTIVITY_KIND_*` rows), a CodeXL trace's work
//! sizes and arguments. Read once per table, in the background, into compact per-column
//! vectors (8 bytes a cell for numbers), so that sorting and filtering by them costs no query.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use super::model::{EventId, EventKind, Timeline};
use super::nsys::details::table_of;
use super::nsys::{ExportDb, NsysError};
use super::open::DetailSource;
use crate::timeline::nsys::load::{MEM_KIND_LABELS, MEMCPY_LABELS};

/// How a source column's code reads as text.
#[derive(Debug, Clone, Copy)]
enum Labels {
    /// A number, as it is.
    Number,
    /// A memory kind (`ENUM_CUDA_MEM_KIND`).
    MemKind,
    /// A copy kind (`ENUM_CUDA_MEMCPY_OPER`).
    CopyKind,
}

/// One column read from an export table: its column there, its header and how it reads.
struct Spec {
    column: &'static str,
    label: &'static str,
    labels: Labels,
}

const fn n(column: &'static str, label: &'static str) -> Spec {
    Spec {
        column,
        label,
        labels: Labels::Number,
    }
}

/// The columns of a kernel's row the Events view lists.
const KERNEL: &[Spec] = &[
    n("gridX", "Grid X"),
    n("gridY", "Grid Y"),
    n("gridZ", "Grid Z"),
    n("blockX", "Block X"),
    n("blockY", "Block Y"),
    n("blockZ", "Block Z"),
    n("registersPerThread", "Registers per thread"),
    n("staticSharedMemory", "Static shared memory (B)"),
    n("dynamicSharedMemory", "Dynamic shared memory (B)"),
    n("localMemoryPerThread", "Local memory per thread (B)"),
];

/// The columns of a copy's row.
const MEMCPY: &[Spec] = &[
    n("bytes", "Bytes"),
    Spec {
        column: "copyKind",
        label: "Copy kind",
        labels: Labels::CopyKind,
    },
    Spec {
        column: "srcKind",
        label: "Source memory",
        labels: Labels::MemKind,
    },
    Spec {
        column: "dstKind",
        label: "Destination memory",
        labels: Labels::MemKind,
    },
];

/// The columns of a memset's row.
const MEMSET: &[Spec] = &[
    n("bytes", "Bytes"),
    n("value", "Memset value"),
    Spec {
        column: "memKind",
        label: "Memory kind",
        labels: Labels::MemKind,
    },
];

/// The columns an event kind's export rows give.
fn specs_of(kind: EventKind) -> &'static [Spec] {
    match kind {
        EventKind::Kernel => KERNEL,
        EventKind::Memcpy => MEMCPY,
        EventKind::Memset => MEMSET,
        _ => &[],
    }
}

/// The most columns a trace's details make (API calls' arguments differ per call).
const MAX_TEXT_COLUMNS: usize = 32;

/// A missing number.
const NONE: i64 = i64::MIN;

/// The cells of one source column, a cell per table row.
#[derive(Debug, Clone)]
enum Cells {
    /// Numbers ([`NONE`]: the row has none), shown through labels when it has some.
    Codes {
        values: Vec<i64>,
        labels: Option<HashMap<i64, String>>,
    },
    /// Texts.
    Texts(Vec<Option<Box<str>>>),
}

/// One column of [`SourceColumns`].
#[derive(Debug, Clone)]
struct SourceColumn {
    label: String,
    cells: Cells,
}

/// The columns read from the rows' sources; see the module documentation.
#[derive(Debug, Clone, Default)]
pub struct SourceColumns {
    columns: Vec<SourceColumn>,
}

/// A source column's cell, for sorting: a number, or text.
#[derive(Debug, Clone, PartialEq)]
pub enum SourceCell<'a> {
    /// A number (a code shown through a label sorts by the label).
    Number(i64),
    /// Text.
    Text(&'a str),
}

impl SourceColumns {
    /// The headers, in order.
    pub fn labels(&self) -> impl Iterator<Item = &str> {
        self.columns.iter().map(|c| c.label.as_str())
    }

    /// How many columns there are.
    pub fn len(&self) -> usize {
        self.columns.len()
    }

    /// Whether there is no column.
    pub fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }

    /// The cell of column `col` for table row `row` (`None`: the row has no value).
    pub fn cell(&self, col: usize, row: usize) -> Option<SourceCell<'_>> {
        match &self.columns.get(col)?.cells {
            Cells::Codes { values, labels } => {
                let v = *values.get(row).filter(|v| **v != NONE)?;
                match labels.as_ref().and_then(|l| l.get(&v)) {
                    Some(label) => Some(SourceCell::Text(label)),
                    None => Some(SourceCell::Number(v)),
                }
            }
            Cells::Texts(texts) => texts.get(row)?.as_deref().map(SourceCell::Text),
        }
    }

    /// The text of column `col` for table row `row` (empty when the row has no value).
    pub fn text(&self, col: usize, row: usize) -> String {
        match self.cell(col, row) {
            Some(SourceCell::Number(v)) => v.to_string(),
            Some(SourceCell::Text(t)) => t.to_owned(),
            None => String::new(),
        }
    }
}

/// Reading a table's source columns failed.
#[derive(Debug, thiserror::Error)]
pub enum SourceColumnsError {
    /// The export could not be opened or read.
    #[error(transparent)]
    Nsys(#[from] NsysError),
    /// The caller cancelled.
    #[error("cancelled")]
    Cancelled,
}

/// The source columns of `rows` (events, in table order) of `timeline`, read from `source`;
/// `tick(fraction)` now and then, cancelling when it returns `false`. An event whose source
/// gives nothing (an NVTX range, a file without details) has empty cells.
pub fn read_source_columns(
    timeline: &Timeline,
    rows: &[EventId],
    source: &DetailSource,
    tick: &mut dyn FnMut(f32) -> bool,
) -> Result<SourceColumns, SourceColumnsError> {
    let mut out = SourceColumns::default();
    // The rows of each export table, by file: (path, table) → [(rowid, table row)].
    type Wanted = (&'static [Spec], Vec<(u32, usize)>);
    let mut by_table: BTreeMap<(PathBuf, &'static str), Wanted> = BTreeMap::new();
    let mut traced: Vec<usize> = Vec::new();
    for (row, &id) in rows.iter().enumerate() {
        let Some(e) = timeline.event(id) else {
            continue;
        };
        match source.for_event(timeline, id) {
            Some(DetailSource::Export(path)) if !specs_of(e.kind).is_empty() => {
                if let Some(table) = table_of(e.kind) {
                    let key = (path.clone(), table);
                    let entry = by_table
                        .entry(key)
                        .or_insert((specs_of(e.kind), Vec::new()));
                    entry.1.push((e.source, row));
                }
            }
            Some(DetailSource::Atp(_)) => traced.push(row),
            _ => {}
        }
    }
    let tables = by_table.len().max(1) as f32;
    for (done, ((path, table), (specs, wanted))) in by_table.into_iter().enumerate() {
        let mut step = |f: f32| tick((done as f32 + f) / tables);
        read_table(
            &mut out,
            &path,
            table,
            specs,
            &wanted,
            rows.len(),
            &mut step,
        )?;
    }
    if !traced.is_empty() {
        read_traced(&mut out, timeline, rows, &traced, source, tick)?;
    }
    Ok(out)
}

/// Reads `specs` of `table` in the export at `path` for the `wanted` (rowid, table row) pairs
/// into `out` (a column per spec label, shared between tables: a copy's and a memset's
/// "Bytes" are one column).
fn read_table(
    out: &mut SourceColumns,
    path: &std::path::Path,
    table: &str,
    specs: &[Spec],
    wanted: &[(u32, usize)],
    len: usize,
    tick: &mut dyn FnMut(f32) -> bool,
) -> Result<(), SourceColumnsError> {
    let db = ExportDb::open_salvaging(path)?;
    let present: Vec<&Spec> = specs
        .iter()
        .filter(|s| db.has_column(table, s.column))
        .collect();
    if present.is_empty() || !db.has_table(table) {
        return Ok(());
    }
    let at: Vec<usize> = present
        .iter()
        .map(|s| out.column_for(s, &db, len))
        .collect();
    let mut rows_of: HashMap<u32, Vec<usize>> = HashMap::new();
    for &(rowid, row) in wanted {
        rows_of.entry(rowid).or_default().push(row);
    }
    let (lo, hi) = wanted
        .iter()
        .fold((u32::MAX, 0), |(lo, hi), &(r, _)| (lo.min(r), hi.max(r)));
    let columns: Vec<&str> = present.iter().map(|s| s.column).collect();
    let sql = format!(
        "SELECT rowid, {} FROM {} WHERE rowid BETWEEN ?1 AND ?2",
        db.cols_or_null(table, &columns),
        super::nsys::db::quote_ident(table)
    );
    let error = |e: rusqlite::Error| SourceColumnsError::Nsys(db.query_error(table, e));
    let mut stmt = db.conn.prepare(&sql).map_err(error)?;
    let mut cursor = stmt.query([i64::from(lo), i64::from(hi)]).map_err(error)?;
    let mut seen = 0usize;
    while let Some(r) = cursor.next().map_err(error)? {
        seen += 1;
        if seen.is_multiple_of(65_536) && !tick(seen as f32 / wanted.len().max(1) as f32) {
            return Err(SourceColumnsError::Cancelled);
        }
        let Some(targets) = r
            .get_ref(0)
            .ok()
            .and_then(super::nsys::db::int_of)
            .and_then(|id| u32::try_from(id).ok())
            .and_then(|id| rows_of.get(&id))
        else {
            continue;
        };
        for (i, &col) in at.iter().enumerate() {
            let v = r
                .get_ref(i + 1)
                .ok()
                .and_then(super::nsys::db::int_of)
                .unwrap_or(NONE);
            if let Some(Cells::Codes { values, .. }) =
                out.columns.get_mut(col).map(|c| &mut c.cells)
            {
                for &row in targets {
                    if let Some(cell) = values.get_mut(row) {
                        *cell = v;
                    }
                }
            }
        }
    }
    Ok(())
}

impl SourceColumns {
    /// The index of the number column labelled as `spec` says, added (empty, `len` rows,
    /// with its labels read from `db`) when it is not there yet.
    fn column_for(&mut self, spec: &Spec, db: &ExportDb, len: usize) -> usize {
        if let Some(i) = self.columns.iter().position(|c| c.label == spec.label) {
            return i;
        }
        let builtin = |list: &[&str]| {
            list.iter()
                .zip(0i64..)
                .map(|(l, i)| (i, (*l).to_owned()))
                .collect::<HashMap<_, _>>()
        };
        let labels = match spec.labels {
            Labels::Number => None,
            Labels::MemKind => Some(
                db.enum_labels("ENUM_CUDA_MEM_KIND")
                    .unwrap_or_else(|| builtin(MEM_KIND_LABELS)),
            ),
            Labels::CopyKind => Some(
                db.enum_labels("ENUM_CUDA_MEMCPY_OPER")
                    .unwrap_or_else(|| builtin(MEMCPY_LABELS)),
            ),
        };
        self.columns.push(SourceColumn {
            label: spec.label.to_owned(),
            cells: Cells::Codes {
                values: vec![NONE; len],
                labels,
            },
        });
        self.columns.len() - 1
    }

    /// The index of the text column `label`, added when it is not there yet and fewer than
    /// [`MAX_TEXT_COLUMNS`] text columns are; `None` past that.
    fn text_column(&mut self, label: &str, len: usize) -> Option<usize> {
        if let Some(i) = self.columns.iter().position(|c| c.label == label) {
            return Some(i);
        }
        if self.columns.len() >= MAX_TEXT_COLUMNS {
            return None;
        }
        self.columns.push(SourceColumn {
            label: label.to_owned(),
            cells: Cells::Texts(vec![None; len]),
        });
        Some(self.columns.len() - 1)
    }
}

/// Reads the CodeXL trace's details of the `traced` table rows into text columns, in the
/// order their labels are first met.
fn read_traced(
    out: &mut SourceColumns,
    timeline: &Timeline,
    rows: &[EventId],
    traced: &[usize],
    source: &DetailSource,
    tick: &mut dyn FnMut(f32) -> bool,
) -> Result<(), SourceColumnsError> {
    for (done, &row) in traced.iter().enumerate() {
        if done.is_multiple_of(16_384) && !tick(done as f32 / traced.len() as f32) {
            return Err(SourceColumnsError::Cancelled);
        }
        let id = rows[row];
        let Some(DetailSource::Atp(file)) = source.for_event(timeline, id) else {
            continue;
        };
        for (label, value) in super::atp::event_details(file, timeline, id) {
            let Some(col) = out.text_column(&label, rows.len()) else {
                continue;
            };
            if let Some(Cells::Texts(texts)) = out.columns.get_mut(col).map(|c| &mut c.cells)
                && let Some(cell) = texts.get_mut(row)
            {
                *cell = Some(value.into_boxed_str());
            }
        }
    }
    Ok(())
}
