//! A recipe's tables as the Parquet files NVIDIA's recipe writes: pandas writes each data frame
//! with its key column (`Name`, `Operation`) as the index, stored last, the statistics and file
//! columns first; each column's type is the data frame's (int64 when every value is an integer,
//! float64 when one is not — pandas prints float64 values with a decimal point, so the CSV's
//! cells say which); the `pandas` schema metadata lets `pandas.read_parquet` restore the index.

use std::path::Path;

use crate::columnar::parquet::{ParquetWriteError, write_parquet_with};
use crate::columnar::{Column, ColumnTable, Values, column_from_text};

/// Writes the table `name` (`header`, `rows` as the CSV's cells; the first column the key) to
/// `path`.
pub fn write(
    name: &str,
    header: &[&str],
    rows: &[Vec<String>],
    path: &Path,
) -> Result<(), ParquetWriteError> {
    let table = pandas_table(name, header, rows);
    let metadata = pandas_metadata(&table);
    write_parquet_with(&table, path, vec![("pandas".to_owned(), metadata)])
}

/// The table with the key column moved last and every column typed by its cells.
pub fn pandas_table(name: &str, header: &[&str], rows: &[Vec<String>]) -> ColumnTable {
    let order: Vec<usize> = if header.is_empty() {
        Vec::new()
    } else {
        (1..header.len()).chain([0]).collect()
    };
    let columns = order
        .into_iter()
        .map(|c| {
            let cells: Vec<&str> = rows
                .iter()
                .map(|r| r.get(c).map_or("", String::as_str))
                .collect();
            column_from_text(header[c], &cells, c == 0 || is_text_header(header[c]))
        })
        .collect();
    ColumnTable {
        name: name.to_owned(),
        columns,
        rows: rows.len(),
        warnings: Vec::new(),
    }
}

/// The file columns, text whatever they hold.
fn is_text_header(header: &str) -> bool {
    matches!(header, "File" | "Min File" | "Max File")
}

/// The `pandas` schema metadata of a data frame whose index is the table's last column.
pub fn pandas_metadata(table: &ColumnTable) -> String {
    let types = |c: &Column| match c.values {
        Values::Int64(_) => ("int64", "int64"),
        Values::Float64(_) => ("float64", "float64"),
        _ => ("unicode", "object"),
    };
    let columns: Vec<serde_json::Value> = table
        .columns
        .iter()
        .map(|c| {
            let (pandas, numpy) = types(c);
            serde_json::json!({
                "name": c.name,
                "field_name": c.name,
                "pandas_type": pandas,
                "numpy_type": numpy,
                "metadata": null,
            })
        })
        .collect();
    let index: Vec<&str> = table
        .columns
        .last()
        .map(|c| c.name.as_str())
        .into_iter()
        .collect();
    serde_json::json!({
        "index_columns": index,
        "column_indexes": [{
            "name": null,
            "field_name": null,
            "pandas_type": "unicode",
            "numpy_type": "object",
            "metadata": {"encoding": "UTF-8"},
        }],
        "columns": columns,
        "creator": {"library": "sightline", "version": env!("CARGO_PKG_VERSION")},
        "pandas_version": "2.1.4",
    })
    .to_string()
}
