//! Reading back a recipe's Parquet table (as pandas' `to_parquet` writes it, NVIDIA's or
//! Sightline's: [`super::parquet`]): its columns typed as the frame holds them and the names of
//! the index columns the `pandas` metadata lists (`Name` of the summary tables). An unnamed
//! stored index (`__index_level_0__`) is left out, as `read_parquet` makes it the index.

use std::path::{Path, PathBuf};

use parquet::basic::Type as PhysicalType;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;

use super::table::{Cells, TableColumn};

/// A Parquet table read back.
#[derive(Debug, Clone, PartialEq)]
pub struct PandasFrame {
    /// The columns in the file's order (the stored index included, except an unnamed one).
    pub columns: Vec<TableColumn>,
    /// The names of the frame's index columns (the `pandas` metadata's `index_columns`).
    pub index: Vec<String>,
}

impl PandasFrame {
    /// The column headed `name`.
    pub fn column(&self, name: &str) -> Option<&TableColumn> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// The number of rows.
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |c| c.cells.len())
    }
}

/// A Parquet table could not be read.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {why}")]
pub struct ReadError {
    /// The file.
    pub path: PathBuf,
    /// What went wrong (and where).
    pub why: String,
}

/// Reads the Parquet file at `path`.
pub fn read(path: &Path) -> Result<PandasFrame, ReadError> {
    let fail = |why: String| ReadError {
        path: path.to_path_buf(),
        why,
    };
    let file = std::fs::File::open(path).map_err(|e| fail(e.to_string()))?;
    let reader = SerializedFileReader::new(file).map_err(|e| fail(e.to_string()))?;
    let meta = reader.metadata().file_metadata();
    let index = meta
        .key_value_metadata()
        .and_then(|kv| kv.iter().find(|k| k.key == "pandas"))
        .and_then(|k| k.value.as_deref())
        .map(index_columns)
        .unwrap_or_default();
    let descr = meta.schema_descr();
    let mut columns: Vec<TableColumn> = descr
        .columns()
        .iter()
        .map(|c| TableColumn {
            name: c.name().to_owned(),
            cells: match c.physical_type() {
                PhysicalType::INT32 | PhysicalType::INT64 => Cells::Int(Vec::new()),
                PhysicalType::FLOAT | PhysicalType::DOUBLE => Cells::Float(Vec::new()),
                _ => Cells::Text(Vec::new()),
            },
        })
        .collect();
    let rows = reader.get_row_iter(None).map_err(|e| fail(e.to_string()))?;
    for (r, row) in rows.enumerate() {
        let row = row.map_err(|e| fail(format!("row {r}: {e}")))?;
        for (i, (_, field)) in row.get_column_iter().enumerate() {
            let Some(column) = columns.get_mut(i) else {
                return Err(fail(format!("row {r}: more fields than columns")));
            };
            push(&mut column.cells, field)
                .map_err(|why| fail(format!("row {r}, column {:?}: {why}", column.name)))?;
        }
    }
    columns.retain(|c| c.name != "__index_level_0__");
    Ok(PandasFrame { columns, index })
}

/// Appends `field` to `cells`.
fn push(cells: &mut Cells, field: &Field) -> Result<(), String> {
    match (cells, field) {
        (Cells::Int(v), Field::Null) => v.push(None),
        (Cells::Float(v), Field::Null) => v.push(None),
        (Cells::Text(v), Field::Null) => v.push(None),
        (Cells::Int(v), Field::Int(x)) => v.push(Some(i64::from(*x))),
        (Cells::Int(v), Field::Long(x)) => v.push(Some(*x)),
        (Cells::Float(v), Field::Float(x)) => v.push(Some(f64::from(*x))),
        (Cells::Float(v), Field::Double(x)) => v.push(Some(*x)),
        (Cells::Text(v), Field::Str(s)) => v.push(Some(s.clone())),
        (_, other) => return Err(format!("unexpected value {other}")),
    }
    Ok(())
}

/// The `index_columns` of pandas' metadata (names only: a `RangeIndex` is described, not named).
fn index_columns(metadata: &str) -> Vec<String> {
    serde_json::from_str::<serde_json::Value>(metadata)
        .ok()
        .and_then(|v| {
            v.get("index_columns")?.as_array().map(|a| {
                a.iter()
                    .filter_map(|c| c.as_str().map(str::to_owned))
                    .collect()
            })
        })
        .unwrap_or_default()
}
