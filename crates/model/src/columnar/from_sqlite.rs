//! An export's SQLite tables as column tables: every column typed by its declared affinity
//! (INTEGER → int64, REAL → double, TEXT → string, BLOB → binary; a column of no declared type
//! by its first value), rows read around damaged pages as the loader reads them.

use rusqlite::types::ValueRef;

use super::{ColumnBuilder, ColumnTable, Kind, Value};
use crate::timeline::nsys::db::quote_ident;
use crate::timeline::nsys::{ExportDb, NsysError};

/// The export's tables (and the views read as tables), sorted by name.
pub fn table_names(db: &ExportDb) -> Vec<String> {
    let mut names: Vec<String> = db.table_names().into_iter().map(str::to_owned).collect();
    names.sort();
    names
}

/// The kind SQLite's affinity rules give a declared type (§3.1 of "Datatypes In SQLite"):
/// `None` for NUMERIC and BLOB/no type, whose values keep their own type.
pub fn declared_kind(declared: &str) -> Option<Kind> {
    let t = declared.to_ascii_uppercase();
    if t.contains("INT") {
        Some(Kind::Int)
    } else if t.contains("CHAR") || t.contains("CLOB") || t.contains("TEXT") {
        Some(Kind::Text)
    } else if t.contains("BLOB") || t.is_empty() {
        None
    } else if t.contains("REAL") || t.contains("FLOA") || t.contains("DOUB") {
        Some(Kind::Float)
    } else {
        None
    }
}

/// Each column's declared type, in order (empty strings when the table's definition does not
/// say).
fn declared_types(db: &ExportDb, table: &str, columns: usize) -> Vec<String> {
    let mut types = vec![String::new(); columns];
    let sql = format!("PRAGMA table_info({})", quote_ident(table));
    if let Ok(mut stmt) = db.conn.prepare(&sql)
        && let Ok(mut rows) = stmt.query([])
    {
        while let Ok(Some(row)) = rows.next() {
            let cid = row.get::<_, i64>(0).unwrap_or(-1);
            let declared = row.get::<_, String>(2).unwrap_or_default();
            if let Some(slot) = usize::try_from(cid).ok().and_then(|c| types.get_mut(c)) {
                *slot = declared;
            }
        }
    }
    types
}

/// Reads table `table` whole. Damaged pages lose their rows, said in the table's warnings;
/// values of another type than the column's widen it, also said.
pub fn read_table(db: &ExportDb, table: &str) -> Result<ColumnTable, NsysError> {
    if !db.has_table(table) {
        return Err(db.query_error(table, "no such table"));
    }
    let names = db.columns(table);
    let types = declared_types(db, table, names.len());
    let mut builders: Vec<ColumnBuilder> = names
        .iter()
        .zip(&types)
        .map(|(name, declared)| ColumnBuilder::new(name.clone(), declared_kind(declared)))
        .collect();
    let quoted = quote_ident(table);
    // Tables WITHOUT ROWID cannot be re-read around damage by rowid: read in one pass.
    let has_rowid = db
        .conn
        .prepare(&format!("SELECT rowid FROM {quoted} LIMIT 0"))
        .is_ok();
    let (sql, skip) = if has_rowid {
        (format!("SELECT rowid, * FROM {quoted}"), 1)
    } else {
        (format!("SELECT * FROM {quoted}"), 0)
    };
    let mut rows = 0usize;
    let lost = db.scan_around_damage(table, &sql, |row| {
        for (i, builder) in builders.iter_mut().enumerate() {
            let value = match row.get_ref(i + skip) {
                Ok(ValueRef::Null) | Err(_) => Value::Null,
                Ok(ValueRef::Integer(v)) => Value::Int(v),
                Ok(ValueRef::Real(v)) => Value::Float(v),
                Ok(ValueRef::Text(b)) => Value::Text(b),
                Ok(ValueRef::Blob(b)) => Value::Blob(b),
            };
            builder.push(value);
        }
        rows += 1;
        Ok(())
    })?;
    let mut warnings: Vec<String> = lost
        .map(|readable| {
            readable
                .describe()
                .into_iter()
                .map(|line| format!("table {table}: {line}"))
                .collect()
        })
        .unwrap_or_default();
    let columns = builders
        .into_iter()
        .map(|b| {
            warnings.extend(builder_warnings(table, &b));
            b.finish()
        })
        .collect();
    Ok(ColumnTable {
        name: table.to_owned(),
        columns,
        rows,
        warnings,
    })
}

/// What a builder met that the user should hear of.
fn builder_warnings(table: &str, b: &ColumnBuilder) -> Vec<String> {
    let mut out = Vec::new();
    if b.mismatched > 0 {
        out.push(format!(
            "table {table}, column {}: {} values are not of the column's declared type; the \
             column holds them all as the widest type met",
            b.name(),
            b.mismatched
        ));
    }
    if b.not_utf8 > 0 {
        out.push(format!(
            "table {table}, column {}: {} text values are not UTF-8 (invalid bytes read as \
             U+FFFD)",
            b.name(),
            b.not_utf8
        ));
    }
    out
}
