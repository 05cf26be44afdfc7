//! `mpi_summary`, Sightline's own report (nsys has no such one): every MPI call name's count,
//! time and bytes, across all ranks and then per rank.
//!
//! - Rows: first one per call name over every rank (Rank "all"), then one per rank and name,
//!   ranks ascending (calls of a thread without a known rank last, Rank empty); within each,
//!   by total time descending, then name.
//! - A call's rank: `MPI_RANKS` of its `globalTid`, else the rank an NVTX mark, range or thread
//!   name "MPI Rank N" of the same thread names (`timeline::rank_in_text`).
//! - Times in ns: total; mean with one decimal, half away from zero; min, max; quartiles Q1,
//!   median, Q3 by linear interpolation between the sorted durations (position (n − 1)·p,
//!   NumPy's default), one decimal.
//! - Bytes: the sum of `size` (a message, or what a collective sends) and of `recvSize` (what
//!   a collective receives). A NULL end is a duration of 0.

use std::collections::{BTreeMap, HashMap};

use super::super::NsysError;
use super::super::db::{ExportDb, quote_ident};
use super::api_table::{for_each_row, int_at, required_int, text_at};
use super::{Cell, Report, ReportOutcome, ReportRequest, ReportTable, skipped};
use crate::timeline::mpi::{MpiTable, rank_in_text};
use crate::timeline::summary::{Summary, fmt_ratio};

/// The reports of this module.
pub(super) const REPORTS: &[Report] = &[Report {
    name: "mpi_summary",
    about: "MPI summary (Sightline): each MPI call's count, time quartiles and bytes, across ranks and per rank",
    options: &[],
    run: mpi_summary,
}];

/// The columns of the report.
const MPI_SUMMARY_COLUMNS: &[&str] = &[
    "Rank",
    "Name",
    "Count",
    "Total Time (ns)",
    "Avg (ns)",
    "Min (ns)",
    "Q1 (ns)",
    "Med (ns)",
    "Q3 (ns)",
    "Max (ns)",
    "Total Bytes",
    "Total Recv Bytes",
];

/// The calls of one name (in one rank, or all).
#[derive(Default)]
struct Calls {
    durations: Vec<i64>,
    bytes: i128,
    recv_bytes: i128,
}

/// `p/4`-th quartile (p = 1 or 3) of sorted `v` by linear interpolation, times 4 (exact).
fn quartile_x4(v: &[i64], p: usize) -> i128 {
    let h4 = (v.len() - 1) * p;
    let (lo, frac) = (h4 / 4, h4 % 4);
    let a = i128::from(v[lo]);
    let b = i128::from(v[(lo + 1).min(v.len() - 1)]);
    4 * a + (b - a) * i128::try_from(frac).unwrap_or(0)
}

/// The ranks of threads: `MPI_RANKS`, then NVTX texts "MPI Rank N" on threads it lacks.
fn thread_ranks(db: &ExportDb) -> Result<HashMap<i64, i64>, NsysError> {
    let mut ranks: HashMap<i64, i64> = HashMap::new();
    if db.has_column("MPI_RANKS", "globalTid") && db.has_column("MPI_RANKS", "rank") {
        let sql = "SELECT rowid, globalTid, rank FROM MPI_RANKS";
        for_each_row(db, "MPI_RANKS", sql, |row| {
            if let (Some(g), Some(r)) = (int_at(row, 1), int_at(row, 2)) {
                ranks.entry(g).or_insert(r);
            }
            Ok(())
        })?;
    }
    if db.has_column("NVTX_EVENTS", "globalTid") {
        let strings = db.string_ids()?;
        let sql = format!(
            "SELECT rowid, globalTid, {}, {} FROM NVTX_EVENTS",
            db.col_or_null("NVTX_EVENTS", "text"),
            db.col_or_null("NVTX_EVENTS", "textId")
        );
        let mut named: HashMap<i64, i64> = HashMap::new();
        for_each_row(db, "NVTX_EVENTS", &sql, |row| {
            let text =
                text_at(row, 2).or_else(|| int_at(row, 3).and_then(|id| strings.get(&id).cloned()));
            if let (Some(g), Some(rank)) = (int_at(row, 1), text.as_deref().and_then(rank_in_text))
            {
                named.entry(g).or_insert(rank);
            }
            Ok(())
        })?;
        for (g, r) in named {
            ranks.entry(g).or_insert(r);
        }
    }
    Ok(ranks)
}

fn mpi_summary(db: &ExportDb, req: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    let tables: Vec<MpiTable> = MpiTable::ALL
        .into_iter()
        .filter(|t| db.has_table(t.table_name()))
        .collect();
    if tables.is_empty() {
        return skipped(db, "MPI event data");
    }
    let strings = db.string_ids()?;
    let ranks = thread_ranks(db)?;
    // (rank, name) → calls; the rank `None` is "unknown".
    let mut by_rank: BTreeMap<(Option<i64>, String), Calls> = BTreeMap::new();
    for table in tables {
        let t = table.table_name();
        let col = |c| db.col_or_null(t, c);
        let sql = format!(
            "SELECT rowid, start, {}, {}, {}, {}, {} FROM {}",
            col("end"),
            col("globalTid"),
            col("textId"),
            col("size"),
            col("recvSize"),
            quote_ident(t)
        );
        for_each_row(db, t, &sql, |row| {
            let start = required_int(db, t, row, 1, "start")?;
            let end = int_at(row, 2).unwrap_or(start);
            let rank = int_at(row, 3).and_then(|g| ranks.get(&g).copied());
            let name = int_at(row, 4)
                .and_then(|id| strings.get(&id).cloned())
                .unwrap_or_else(|| table.row_label().to_owned());
            let calls = by_rank.entry((rank, name)).or_default();
            calls.durations.push(end.saturating_sub(start).max(0));
            calls.bytes += i128::from(int_at(row, 5).unwrap_or(0));
            calls.recv_bytes += i128::from(int_at(row, 6).unwrap_or(0));
            Ok(())
        })?;
    }
    let mut all: BTreeMap<String, Calls> = BTreeMap::new();
    for ((_, name), calls) in &by_rank {
        let a = all.entry(name.clone()).or_default();
        a.durations.extend_from_slice(&calls.durations);
        a.bytes += calls.bytes;
        a.recv_bytes += calls.recv_bytes;
    }
    let mut rows = rows_of("all", all.into_iter().collect());
    // Known ranks ascending, the unknown last.
    let mut per_rank: BTreeMap<(bool, i64), Vec<(String, Calls)>> = BTreeMap::new();
    for ((rank, name), calls) in by_rank {
        per_rank
            .entry((rank.is_none(), rank.unwrap_or(0)))
            .or_default()
            .push((name, calls));
    }
    for ((unknown, rank), groups) in per_rank {
        let label = if unknown {
            String::new()
        } else {
            rank.to_string()
        };
        rows.extend(rows_of(&label, groups));
    }
    Ok(ReportOutcome::Table(ReportTable::new(
        req.report.name,
        MPI_SUMMARY_COLUMNS,
        rows,
    )))
}

/// The rows of one rank (or "all"): by total time descending, then name.
fn rows_of(rank: &str, groups: Vec<(String, Calls)>) -> Vec<Vec<Cell>> {
    let mut sums: Vec<(String, Summary, Calls)> = groups
        .into_iter()
        .filter_map(|(name, mut calls)| {
            let s = Summary::of(&mut calls.durations)?;
            Some((name, s, calls))
        })
        .collect();
    sums.sort_by(|a, b| b.1.total.cmp(&a.1.total).then_with(|| a.0.cmp(&b.0)));
    sums.into_iter()
        .map(|(name, s, calls)| {
            let v = &calls.durations;
            let n = i128::from(s.count);
            vec![
                Cell::Text(rank.into()),
                Cell::Text(name.into()),
                Cell::int(s.count),
                Cell::Number(s.total.to_string().into()),
                Cell::Number(fmt_ratio(s.total, n, 1).into()),
                Cell::int(s.min),
                Cell::Number(fmt_ratio(quartile_x4(v, 1), 4, 1).into()),
                Cell::Number(fmt_ratio(s.median_x2, 2, 1).into()),
                Cell::Number(fmt_ratio(quartile_x4(v, 3), 4, 1).into()),
                Cell::int(s.max),
                Cell::Number(calls.bytes.to_string().into()),
                Cell::Number(calls.recv_bytes.to_string().into()),
            ]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::quartile_x4;

    #[test]
    fn quartiles_interpolate() {
        // NumPy: percentile([1, 2, 3, 4], 25) = 1.75, 75 → 3.25.
        assert_eq!(quartile_x4(&[1, 2, 3, 4], 1), 7);
        assert_eq!(quartile_x4(&[1, 2, 3, 4], 3), 13);
        assert_eq!(quartile_x4(&[5], 1), 20);
        // [10, 20, 30, 40, 50]: 20 and 40 exactly.
        assert_eq!(quartile_x4(&[10, 20, 30, 40, 50], 1), 80);
        assert_eq!(quartile_x4(&[10, 20, 30, 40, 50], 3), 160);
    }
}
