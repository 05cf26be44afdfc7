//! A recipe's tables as the Parquet files NVIDIA's recipes write (pandas' `to_parquet` through
//! pyarrow): each column typed as the data frame holds it (int64, float64 — pandas prints
//! float64 values with a decimal point, so a CSV's cells say which —, strings, and Arrow's null
//! type for a column of only `None`), every column optional, and the frame's index as pandas
//! stores it ([`PandasIndex`]): a named key column stored last (the summary recipes' `Name`,
//! `Operation`), an unnamed one stored last as `__index_level_0__`, or a `RangeIndex` described
//! in the metadata only. The `pandas` schema metadata lets `pandas.read_parquet` restore the
//! index.

use std::path::Path;

use super::table::{Cells, PandasIndex, Table, TableColumn};
use crate::columnar::parquet::{ParquetWriteError, write_parquet_with_nulls};
use crate::columnar::{Column, ColumnTable, Strings, Values};

/// The name pyarrow gives a stored unnamed index.
const INDEX_LEVEL_0: &str = "__index_level_0__";

/// Writes `table` to `path`.
pub fn write(table: &Table, path: &Path) -> Result<(), ParquetWriteError> {
    let (columns, nulls) = stored_columns(table);
    let stored = ColumnTable {
        name: table.stem.to_owned(),
        columns,
        rows: table.rows(),
        warnings: Vec::new(),
    };
    let metadata = pandas_metadata(table, &stored, &nulls);
    let null_names: Vec<&str> = nulls.iter().map(String::as_str).collect();
    write_parquet_with_nulls(
        &stored,
        path,
        vec![("pandas".to_owned(), metadata)],
        &null_names,
    )
}

/// The columns in the file's order (the index last, when stored) and the names of those of
/// the null type.
fn stored_columns(table: &Table) -> (Vec<Column>, Vec<String>) {
    let mut order: Vec<&TableColumn> = table.columns.iter().collect();
    if table.index == PandasIndex::Key && !order.is_empty() {
        order.rotate_left(1);
    }
    let mut columns: Vec<Column> = order.iter().map(|c| column(c)).collect();
    if let PandasIndex::Unnamed(values) = &table.index {
        columns.push(Column::full(INDEX_LEVEL_0, Values::Int64(values.clone())));
    }
    let nulls = order
        .iter()
        .filter(|c| matches!(c.cells, Cells::Null(_)))
        .map(|c| c.name.clone())
        .collect();
    (columns, nulls)
}

/// One column as the Parquet writer takes it.
fn column(c: &TableColumn) -> Column {
    fn validity<T>(v: &[Option<T>]) -> Option<Vec<bool>> {
        v.iter()
            .any(Option::is_none)
            .then(|| v.iter().map(Option::is_some).collect())
    }
    let (values, validity) = match &c.cells {
        Cells::Int(v) => (
            Values::Int64(v.iter().map(|x| x.unwrap_or(0)).collect()),
            validity(v),
        ),
        Cells::Float(v) => (
            Values::Float64(v.iter().map(|x| x.unwrap_or(0.0)).collect()),
            validity(v),
        ),
        Cells::Text(v) => {
            let mut s = Strings::new();
            v.iter()
                .for_each(|t| s.push(t.as_deref().unwrap_or_default().as_bytes()));
            (Values::Utf8(s), validity(v))
        }
        Cells::Null(n) => (Values::Int64(vec![0; *n]), Some(vec![false; *n])),
    };
    Column {
        name: c.name.clone(),
        values,
        validity,
    }
}

/// The `pandas` schema metadata of `table` stored as `stored`.
fn pandas_metadata(table: &Table, stored: &ColumnTable, nulls: &[String]) -> String {
    let types = |c: &Column| match c.values {
        _ if nulls.contains(&c.name) => ("empty", "object"),
        Values::Int64(_) => ("int64", "int64"),
        Values::Float64(_) => ("float64", "float64"),
        _ => ("unicode", "object"),
    };
    let columns: Vec<serde_json::Value> = stored
        .columns
        .iter()
        .map(|c| {
            let (pandas, numpy) = types(c);
            // A stored unnamed index has no name, only its field.
            let name = (c.name != INDEX_LEVEL_0).then_some(c.name.as_str());
            serde_json::json!({
                "name": name,
                "field_name": c.name,
                "pandas_type": pandas,
                "numpy_type": numpy,
                "metadata": null,
            })
        })
        .collect();
    let index = match &table.index {
        PandasIndex::Key | PandasIndex::Unnamed(_) => {
            serde_json::json!([stored.columns.last().map(|c| c.name.as_str())])
        }
        PandasIndex::Range => serde_json::json!([{
            "kind": "range",
            "name": null,
            "start": 0,
            "stop": table.rows(),
            "step": 1,
        }]),
        PandasIndex::Dropped => serde_json::json!([]),
    };
    let column_indexes = if table.index == PandasIndex::Dropped {
        serde_json::json!([])
    } else {
        serde_json::json!([{
            "name": null,
            "field_name": null,
            "pandas_type": "unicode",
            "numpy_type": "object",
            "metadata": {"encoding": "UTF-8"},
        }])
    };
    serde_json::json!({
        "index_columns": index,
        "column_indexes": column_indexes,
        "columns": columns,
        "creator": {"library": "sightline", "version": env!("CARGO_PKG_VERSION")},
        "pandas_version": "2.1.4",
    })
    .to_string()
}
