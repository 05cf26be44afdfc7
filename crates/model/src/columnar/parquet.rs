//! Column tables as Apache Parquet files (what `nsys export --type parquetdir` writes for an
//! export, one file per table): int64 as INT64, double as DOUBLE, strings (and dictionary
//! columns) as UTF-8 BYTE_ARRAY, bytes as BYTE_ARRAY; every column OPTIONAL; Snappy pages;
//! row groups of at most [`ROW_GROUP_ROWS`] rows.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use parquet::basic::{Compression, LogicalType, Repetition, Type as PhysicalType};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int32Type, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;

use super::{Column, ColumnTable, Strings, Values};

/// The most rows a row group holds.
pub const ROW_GROUP_ROWS: usize = 1 << 20;

/// Why a Parquet file could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ParquetWriteError {
    /// The file could not be created or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The Parquet writer refused the table.
    #[error("{path}: writing Parquet: {detail}")]
    Parquet {
        /// The file.
        path: PathBuf,
        /// The writer's message.
        detail: String,
    },
}

/// Writes `table` to `path` (replacing it).
pub fn write_parquet(table: &ColumnTable, path: &Path) -> Result<(), ParquetWriteError> {
    write_parquet_with(table, path, Vec::new())
}

/// Writes `table` to `path` (replacing it) with `metadata` as the file's key-value metadata
/// (pandas' `pandas` key, for instance).
pub fn write_parquet_with(
    table: &ColumnTable,
    path: &Path,
    metadata: Vec<(String, String)>,
) -> Result<(), ParquetWriteError> {
    write_parquet_with_nulls(table, path, metadata, &[])
}

/// Writes `table` to `path` (replacing it) with `metadata`, the columns named in `null_typed`
/// as columns of Arrow's null type (INT32 with Parquet's `Unknown` logical type, every row
/// null: what pyarrow writes for a pandas column holding only `None`), whatever they hold.
pub fn write_parquet_with_nulls(
    table: &ColumnTable,
    path: &Path,
    metadata: Vec<(String, String)>,
    null_typed: &[&str],
) -> Result<(), ParquetWriteError> {
    let file = std::fs::File::create(path).map_err(|source| ParquetWriteError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let out = std::io::BufWriter::new(file);
    write_table(table, out, metadata, null_typed).map_err(|e| ParquetWriteError::Parquet {
        path: path.to_path_buf(),
        detail: e.to_string(),
    })
}

/// Writes `table` as Parquet to `out`.
pub fn write_to<W: std::io::Write + Send>(
    table: &ColumnTable,
    out: W,
) -> Result<(), parquet::errors::ParquetError> {
    write_to_with(table, out, Vec::new())
}

/// Writes `table` as Parquet to `out`, with `metadata` as key-value metadata.
pub fn write_to_with<W: std::io::Write + Send>(
    table: &ColumnTable,
    out: W,
    metadata: Vec<(String, String)>,
) -> Result<(), parquet::errors::ParquetError> {
    write_table(table, out, metadata, &[])
}

/// [`write_to_with`], the columns named in `null_typed` of Arrow's null type.
fn write_table<W: std::io::Write + Send>(
    table: &ColumnTable,
    out: W,
    metadata: Vec<(String, String)>,
    null_typed: &[&str],
) -> Result<(), parquet::errors::ParquetError> {
    let is_null = |c: &Column| null_typed.contains(&c.name.as_str());
    let fields = table
        .columns
        .iter()
        .map(|c| field(c, is_null(c)).map(Arc::new))
        .collect::<Result<Vec<_>, _>>()?;
    let schema = Type::group_type_builder("schema")
        .with_fields(fields)
        .build()?;
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_created_by(format!("Sightline {}", env!("CARGO_PKG_VERSION")))
        .set_key_value_metadata((!metadata.is_empty()).then(|| {
            metadata
                .into_iter()
                .map(|(k, v)| parquet::file::metadata::KeyValue::new(k, v))
                .collect()
        }))
        .build();
    let mut writer = SerializedFileWriter::new(out, Arc::new(schema), Arc::new(props))?;
    let mut from = 0;
    // A table without rows still gets its schema (and one empty row group).
    loop {
        let to = (from + ROW_GROUP_ROWS).min(table.rows);
        let mut group = writer.next_row_group()?;
        let mut columns = table.columns.iter();
        while let Some(mut chunk) = group.next_column()? {
            let Some(column) = columns.next() else { break };
            if is_null(column) {
                let levels = vec![0i16; to - from];
                chunk
                    .typed::<Int32Type>()
                    .write_batch(&[], Some(&levels), None)?;
            } else {
                write_column(&mut chunk, column, from..to)?;
            }
            chunk.close()?;
        }
        group.close()?;
        from = to;
        if from >= table.rows {
            break;
        }
    }
    writer.close()?;
    Ok(())
}

fn field(column: &Column, null: bool) -> Result<Type, parquet::errors::ParquetError> {
    let (physical, logical) = match column.values {
        _ if null => (PhysicalType::INT32, Some(LogicalType::Unknown)),
        Values::Int64(_) => (PhysicalType::INT64, None),
        Values::Float64(_) => (PhysicalType::DOUBLE, None),
        Values::Utf8(_) | Values::Dictionary { .. } => {
            (PhysicalType::BYTE_ARRAY, Some(LogicalType::String))
        }
        Values::Binary(_) => (PhysicalType::BYTE_ARRAY, None),
    };
    Type::primitive_type_builder(&column.name, physical)
        .with_repetition(Repetition::OPTIONAL)
        .with_logical_type(logical)
        .build()
}

fn write_column(
    chunk: &mut parquet::file::writer::SerializedColumnWriter<'_>,
    column: &Column,
    rows: std::ops::Range<usize>,
) -> Result<(), parquet::errors::ParquetError> {
    let levels: Vec<i16> = rows
        .clone()
        .map(|i| i16::from(column.is_valid(i)))
        .collect();
    let valid = |i: &usize| column.is_valid(*i);
    match &column.values {
        Values::Int64(v) => {
            let values: Vec<i64> = rows.filter(valid).map(|i| v[i]).collect();
            chunk
                .typed::<Int64Type>()
                .write_batch(&values, Some(&levels), None)?;
        }
        Values::Float64(v) => {
            let values: Vec<f64> = rows.filter(valid).map(|i| v[i]).collect();
            chunk
                .typed::<DoubleType>()
                .write_batch(&values, Some(&levels), None)?;
        }
        Values::Utf8(s) | Values::Binary(s) => {
            let values = byte_arrays(s, rows, valid);
            chunk
                .typed::<ByteArrayType>()
                .write_batch(&values, Some(&levels), None)?;
        }
        Values::Dictionary { keys, dictionary } => {
            let words: Vec<ByteArray> = dictionary
                .iter()
                .map(|w| ByteArray::from(w.as_bytes().to_vec()))
                .collect();
            let values: Vec<ByteArray> = rows
                .filter(valid)
                .map(|i| words[keys[i] as usize].clone())
                .collect();
            chunk
                .typed::<ByteArrayType>()
                .write_batch(&values, Some(&levels), None)?;
        }
    }
    Ok(())
}

/// The valid rows of `rows` of `strings` as Parquet byte arrays sharing one copy of their
/// bytes.
fn byte_arrays(
    strings: &Strings,
    rows: std::ops::Range<usize>,
    valid: impl Fn(&usize) -> bool,
) -> Vec<ByteArray> {
    let base = strings.span(rows.start).map_or(0, |s| s.start);
    let end = rows
        .end
        .checked_sub(1)
        .and_then(|last| strings.span(last))
        .map_or(base, |s| s.end)
        .max(base);
    let buffer = bytes::Bytes::copy_from_slice(&strings.bytes[base..end]);
    rows.filter(valid)
        .map(|i| {
            let span = strings.span(i).unwrap_or(base..base);
            ByteArray::from(buffer.slice(span.start - base..span.end - base))
        })
        .collect()
}
