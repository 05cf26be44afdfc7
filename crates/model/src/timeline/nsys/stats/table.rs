//! What the summary reports share: rows grouped by a key, the time and size tables with nsys's
//! columns, rounding and order, string ids, memcpy labels.

use std::collections::HashMap;

use rustc_hash::FxHashMap;

use super::super::NsysError;
use super::super::db::{ExportDb, int_of};
use super::super::load::MEMCPY_LABELS;
use super::{Cell, ReportTable};
use crate::core::threads::join_two;
use crate::timeline::summary::{Summary, fmt_float, fmt_ratio};

/// nsys's time-summary headers: the statistics, with `count_header` for the count, then
/// `trailing`.
pub(super) fn time_columns(count_header: &str, trailing: &[&str]) -> Vec<String> {
    [
        "Time (%)",
        "Total Time (ns)",
        count_header,
        "Avg (ns)",
        "Med (ns)",
        "Min (ns)",
        "Max (ns)",
        "StdDev (ns)",
    ]
    .iter()
    .chain(trailing)
    .map(|c| c.to_string())
    .collect()
}

/// `SELECT key, value FROM table` grouped by key. Values that are not integers are an error
/// naming the table and rowid (a summary must not silently leave rows out).
pub(super) fn grouped(
    db: &ExportDb,
    table: &str,
    key: &str,
    value: &str,
    filter: &str,
) -> Result<FxHashMap<i64, Vec<i64>>, NsysError> {
    let key_sql = if key == "NULL" {
        "NULL".to_string()
    } else {
        db.col_or_null(table, key)
    };
    let sql = format!(
        "SELECT rowid, {key_sql}, {value}, typeof(start) IN ('integer', 'null') AND typeof(end) IN ('integer', 'null') FROM {table}{filter}"
    );
    let mut out: FxHashMap<i64, Vec<i64>> = FxHashMap::default();
    for_each_row(db, table, &sql, |row| {
        let types_ok = matches!(row.get_ref(3), Ok(rusqlite::types::ValueRef::Integer(1)));
        let v = row
            .get_ref(2)
            .ok()
            .and_then(int_of)
            .filter(|_| types_ok || value == "bytes");
        let Some(v) = v else {
            let rowid = row.get_ref(0).ok().and_then(int_of).unwrap_or(-1);
            return Err(db.query_error(table, format!("rowid {rowid}: {value} is not an integer")));
        };
        let k = row.get_ref(1).ok().and_then(int_of).unwrap_or(-1);
        out.entry(k).or_default().push(v);
        Ok(())
    })?;
    Ok(out)
}

pub(super) fn string_of(strings: &HashMap<i64, String>, id: i64) -> String {
    strings
        .get(&id)
        .cloned()
        .unwrap_or_else(|| format!("<string {id}>"))
}

/// nsys stats cuts a `_v` followed by exactly four digits (`cudaMalloc_v3020`), and keeps
/// longer ones (`cudaStreamIsCapturing_v10000`).
pub fn strip_stats_suffix(name: &str) -> &str {
    let b = name.as_bytes();
    if b.len() > 6
        && &b[b.len() - 6..b.len() - 4] == b"_v"
        && b[b.len() - 4..].iter().all(u8::is_ascii_digit)
    {
        &name[..name.len() - 6]
    } else {
        name
    }
}

pub(super) fn memcpy_label(labels: Option<&HashMap<i64, String>>, kind: i64) -> String {
    match labels {
        Some(l) => format!(
            "[CUDA memcpy {}]",
            l.get(&kind).cloned().unwrap_or_else(|| "Unknown".into())
        ),
        None => {
            // nsys 2022.4's short labels.
            const OLD: &[&str] = &[
                "Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH",
                "PtoP",
            ];
            let label = usize::try_from(kind)
                .ok()
                .and_then(|i| OLD.get(i).or_else(|| MEMCPY_LABELS.get(i)))
                .copied()
                .unwrap_or("Unknown");
            format!("[CUDA memcpy {label}]")
        }
    }
}

pub(crate) fn time_table(
    report: &str,
    count_header: &str,
    name_header: &str,
    groups: Vec<(String, Vec<i64>)>,
    kernel_order: bool,
) -> ReportTable {
    let mut sums: Vec<(String, Summary)> = groups
        .into_iter()
        .filter_map(|(name, mut v)| Some((name, Summary::of(&mut v)?)))
        .collect();
    sort_summaries(&mut sums, kernel_order);
    let rows = sums
        .into_iter()
        .map(|(name, s)| (s, vec![Cell::Text(name.into())]))
        .collect();
    summaries_table(report, count_header, &[name_header], rows)
}

/// A table of summaries in their order: nsys's time columns (the percentage of the sum of all
/// rows' totals), then each row's own cells under `trailing`.
pub(super) fn summaries_table(
    report: &str,
    count_header: &str,
    trailing: &[&str],
    sums: Vec<(Summary, Vec<Cell>)>,
) -> ReportTable {
    let grand: i128 = sums.iter().map(|(s, _)| s.total).sum();
    let rows: Vec<_> = sums
        .into_iter()
        .map(|(s, tail)| {
            let mut row = time_cells(&s, grand);
            row.extend(tail);
            row
        })
        .collect();
    ReportTable::new(report, time_columns(count_header, trailing), rows)
}

pub(super) fn time_cells(s: &Summary, grand: i128) -> Vec<Cell> {
    let n = i128::from(s.count);
    vec![
        Cell::Number(fmt_ratio(100 * s.total, grand, 1).into()),
        Cell::int(s.total),
        Cell::int(s.count),
        Cell::Number(fmt_ratio(s.total, n, 1).into()),
        Cell::Number(fmt_ratio(s.median_x2, 2, 1).into()),
        Cell::int(s.min),
        Cell::int(s.max),
        Cell::Number(fmt_float(s.stddev, 1).into()),
    ]
}

pub(super) fn sort_summaries(sums: &mut [(String, Summary)], kernel_order: bool) {
    sums.sort_by(|(an, a), (bn, b)| summary_order(an, a, bn, b, kernel_order));
}

/// The order of `nsys stats`' summary rows: total (descending); with `kernel_order`, then
/// count (descending); then name.
pub(crate) fn summary_order(
    an: &str,
    a: &Summary,
    bn: &str,
    b: &Summary,
    kernel_order: bool,
) -> std::cmp::Ordering {
    let by_total = b.total.cmp(&a.total);
    if kernel_order {
        by_total
            .then(b.count.cmp(&a.count))
            .then_with(|| an.cmp(bn))
    } else {
        // Equal totals: by name (nsys 2022.4 lists `[CUDA memcpy DtoH]` before `HtoD`).
        by_total.then_with(|| an.cmp(bn))
    }
}

pub(super) fn size_table(report: &str, groups: Vec<(String, Vec<i64>)>) -> ReportTable {
    let mut sums: Vec<(String, Summary)> = groups
        .into_iter()
        .filter_map(|(name, mut v)| Some((name, Summary::of(&mut v)?)))
        .collect();
    sort_summaries(&mut sums, false);
    const MB: i128 = 1_000_000;
    let columns = [
        "Total (MB)",
        "Count",
        "Avg (MB)",
        "Med (MB)",
        "Min (MB)",
        "Max (MB)",
        "StdDev (MB)",
        "Operation",
    ];
    let rows: Vec<_> = sums
        .into_iter()
        .map(|(name, s)| {
            let n = i128::from(s.count);
            vec![
                Cell::Number(fmt_ratio(s.total, MB, 3).into()),
                Cell::int(s.count),
                Cell::Number(fmt_ratio(s.total, n * MB, 3).into()),
                Cell::Number(fmt_ratio(s.median_x2, 2 * MB, 3).into()),
                Cell::Number(fmt_ratio(i128::from(s.min), MB, 3).into()),
                Cell::Number(fmt_ratio(i128::from(s.max), MB, 3).into()),
                Cell::Number(fmt_float(s.stddev / 1e6, 3).into()),
                Cell::Text(name.into()),
            ]
        })
        .collect();
    ReportTable::new(report, columns, rows)
}

/// Runs `sql` on `table` (the table named in errors) and calls `each` with every row. Where
/// the table's pages are damaged, the rows that still read are read around the damage
/// ([`ExportDb::scan_around_damage`]: `sql` must then be `SELECT rowid, … FROM table [WHERE …]
/// [ORDER BY …]`), and [`super::run_request`] hears of what was lost.
pub(super) fn for_each_row(
    db: &ExportDb,
    table: &str,
    sql: &str,
    each: impl FnMut(&rusqlite::Row<'_>) -> Result<(), NsysError>,
) -> Result<(), NsysError> {
    db.scan_around_damage(table, sql, each).map(|_| ())
}

/// Runs `here` on `db` and, at the same time, `there` on a second connection to it on a named
/// thread ([`join_two`]): two tables of a report are read at once (SQLite reads one table per
/// connection at a time). Without a second connection, `there` runs after `here`.
pub(super) fn read_both<A, B: Send>(
    db: &ExportDb,
    here: impl FnOnce(&ExportDb) -> A,
    there: impl FnOnce(&ExportDb) -> B + Send,
) -> (A, B) {
    match db.sibling() {
        Some(other) => join_two(STATS_THREAD, || here(db), move || there(&other)),
        None => {
            let a = here(db);
            (a, there(db))
        }
    }
}

/// The name of the second thread of a report.
pub(super) const STATS_THREAD: &str = "sightline-stats";

/// Column `i` of a row as an integer (`None` for NULL or text that is no number).
pub(super) fn int_at(row: &rusqlite::Row<'_>, i: usize) -> Option<i64> {
    row.get_ref(i).ok().and_then(int_of)
}
