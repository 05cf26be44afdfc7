//! What the API, marker and MPI reports share: reading rows of a table leniently (errors name
//! the table and rowid), summary tables whose ties keep the caller's order, thread names.

pub(super) use super::table::{for_each_row, int_at};
use std::collections::HashMap;

use rusqlite::types::ValueRef;

use super::super::NsysError;
use super::super::db::{ExportDb, int_of, quote_ident, text_of};
use super::table::summaries_table;
use super::{Cell, ReportTable, Rows};
use crate::timeline::summary::Summary;

/// Column `i` of a row as text (`None` for NULL).
pub(super) fn text_at(row: &rusqlite::Row<'_>, i: usize) -> Option<String> {
    row.get_ref(i).ok().and_then(text_of)
}

/// Column `i` of a row, which must be an integer: an error naming the table, the rowid (column
/// 0 of every query here) and the column otherwise.
pub(super) fn required_int(
    db: &ExportDb,
    table: &str,
    row: &rusqlite::Row<'_>,
    i: usize,
    column: &str,
) -> Result<i64, NsysError> {
    match row.get_ref(i) {
        Ok(ValueRef::Integer(v)) => Ok(v),
        Ok(v) => int_of(v).ok_or_else(|| {
            let rowid = int_at(row, 0).unwrap_or(-1);
            db.query_error(table, format!("rowid {rowid}: {column} is not an integer"))
        }),
        Err(e) => Err(db.query_error(table, e)),
    }
}

/// `SELECT rowid, key, end - start FROM table [WHERE filter]` as key → durations; rows whose
/// start or end is not an integer are an error naming the table and rowid. The key is read
/// from column expression `key` (NULL gives `None`).
pub(super) fn durations_by(
    db: &ExportDb,
    table: &str,
    key: &str,
    filter: &str,
) -> Result<HashMap<Option<i64>, Vec<i64>>, NsysError> {
    let sql = format!(
        "SELECT rowid, {key}, start, end FROM {}{filter}",
        quote_ident(table)
    );
    let mut out: HashMap<Option<i64>, Vec<i64>> = HashMap::new();
    for_each_row(db, table, &sql, |row| {
        let start = required_int(db, table, row, 2, "start")?;
        let end = required_int(db, table, row, 3, "end")?;
        out.entry(int_at(row, 1))
            .or_default()
            .push(end.saturating_sub(start));
        Ok(())
    })?;
    Ok(out)
}

/// Three optional integer columns of a row (a grouping or matching key).
pub(super) type Key3 = (Option<i64>, Option<i64>, Option<i64>);

/// A group of a summary: the text cells that end its row (name, or type and name) and its
/// durations.
pub(super) type Group = (Vec<String>, Vec<i64>);

/// A summary table with nsys's time columns: rows sorted by total time, descending; equal
/// totals keep the order of `groups` (the caller orders them as nsys breaks ties).
pub(super) fn summary_table(
    report: &str,
    count_header: &str,
    trailing_headers: &[&str],
    groups: Vec<Group>,
) -> ReportTable {
    let mut sums: Vec<(Vec<String>, Summary)> = groups
        .into_iter()
        .filter_map(|(names, mut v)| Some((names, Summary::of(&mut v)?)))
        .collect();
    // A stable sort: ties keep the caller's order.
    sums.sort_by_key(|(_, s)| std::cmp::Reverse(s.total));
    let rows = sums
        .into_iter()
        .map(|(names, s)| (s, names.into_iter().map(|n| Cell::Text(n.into())).collect()))
        .collect();
    summaries_table(report, count_header, trailing_headers, rows)
}

/// An empty table with the given columns (nsys's "no rows").
pub(super) fn empty_table(report: &str, columns: &[&str]) -> ReportTable {
    ReportTable::new(report, columns, Rows::default())
}

/// The text of string id `id`: empty for NULL or an id StringIds lacks.
pub(super) fn string_or_empty(strings: &HashMap<i64, String>, id: Option<i64>) -> &str {
    id.and_then(|id| strings.get(&id))
        .map_or("", |s| s.as_str())
}

/// A thread as `ThreadNames` names it.
pub(super) struct ThreadName {
    /// Its priority (`None`: NULL or no `priority` column).
    pub priority: Option<i64>,
    /// Its name, as the report's `name` made it of the row's `nameId`.
    pub name: String,
}

/// Thread names and priorities by globalTid, from `ThreadNames`: the first row of a thread in
/// rowid order wins. `name` turns a row's `nameId` into the text a report prints (reports
/// differ on ids `StringIds` lacks). A missing table or column reads as none.
pub(super) fn thread_names(
    db: &ExportDb,
    name: impl Fn(Option<i64>) -> String,
) -> Result<HashMap<i64, ThreadName>, NsysError> {
    const T: &str = "ThreadNames";
    let mut out = HashMap::new();
    if !db.has_table(T) {
        return Ok(out);
    }
    let sql = format!(
        "SELECT rowid, {} FROM {T} ORDER BY rowid",
        db.cols_or_null(T, &["globalTid", "nameId", "priority"]),
    );
    for_each_row(db, T, &sql, |row| {
        if let Some(tid) = int_at(row, 1) {
            out.entry(tid).or_insert_with(|| ThreadName {
                name: name(int_at(row, 2)),
                priority: int_at(row, 3),
            });
        }
        Ok(())
    })?;
    Ok(out)
}

/// An optional integer as a cell (empty for `None`).
pub(super) fn int_cell(v: Option<i64>) -> Cell {
    Cell::opt_int(v)
}

/// The pid and tid of a serialized globalTid.
pub(super) fn pid_tid(global_tid: i64) -> (i64, i64) {
    ((global_tid >> 24) & 0xFF_FFFF, global_tid & 0xFF_FFFF)
}

/// nsys's message for an export without StringIds (checked before a report's own tables).
pub(super) fn no_string_ids(db: &ExportDb) -> Option<String> {
    no_table(db, "StringIds")
}

/// nsys's message for a missing table it needs besides the event data:
/// `<path> file does not contain <table> table.`
pub(super) fn no_table(db: &ExportDb, table: &str) -> Option<String> {
    (!db.has_table(table))
        .then(|| format!("{} file does not contain {table} table.", db.path.display()))
}
