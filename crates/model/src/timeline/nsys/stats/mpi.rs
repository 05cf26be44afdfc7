//! The MPI and network reports: `mpi_event_trace`, `network_congestion`.
//!
//! Found on exports made for the purpose (`fixtures/nsys/reports/apis/`):
//! - `mpi_event_trace` lists the rows of the four MPI event tables by start; equal starts in the
//!   order point-to-point, start/wait, other, collectives, then row order. The rank is
//!   `MPI_RANKS.rank` of the row's globalTid; sizes are MB (10⁶ bytes) with three decimals; a
//!   NULL end leaves End and Duration empty.
//! - `network_congestion` is computed in `network.rs` (its rules are there).

use std::collections::HashMap;

use super::super::NsysError;
use super::super::db::{ExportDb, quote_ident};
use super::api_table::{for_each_row, int_at, int_cell, pid_tid, required_int, string_or_empty};
use super::{
    Cell, Report, ReportOption, ReportOutcome, ReportRequest, ReportTable, StatsOption, skipped,
};
use crate::timeline::summary::fmt_ratio;

/// The reports of this module.
pub(super) const REPORTS: &[Report] = &[
    Report {
        name: "mpi_event_trace",
        about: "MPI event trace: every MPI call with its rank, peer and sizes",
        options: &[],
        run: mpi_event_trace,
    },
    Report {
        name: "network_congestion",
        about: "Network congestion: NIC and InfiniBand switch samples with send waits above the threshold",
        options: &[ReportOption {
            option: StatsOption::TicksThreshold,
            default: Some("10000"),
            about: "send-wait ticks above which a sample counts as congested",
        }],
        run: super::network::network_congestion,
    },
];

/// The kinds of MPI event table, in nsys's order for equal starts.
#[derive(Clone, Copy, PartialEq)]
enum MpiKind {
    P2p,
    StartWait,
    Other,
    Collective,
}

const MPI_TABLES: &[(&str, MpiKind)] = &[
    ("MPI_P2P_EVENTS", MpiKind::P2p),
    ("MPI_START_WAIT_EVENTS", MpiKind::StartWait),
    ("MPI_OTHER_EVENTS", MpiKind::Other),
    ("MPI_COLLECTIVES_EVENTS", MpiKind::Collective),
];

const MPI_COLUMNS: &[&str] = &[
    "Start (ns)",
    "End (ns)",
    "Duration (ns)",
    "Event",
    "Pid",
    "Tid",
    "Tag",
    "Rank",
    "PeerRank",
    "RootRank",
    "Size (MB)",
    "CollSendSize (MB)",
    "CollRecvSize (MB)",
];

/// Bytes as MB with three decimals; empty for NULL.
fn mb_cell(bytes: Option<i64>) -> Cell {
    Cell::Number(
        bytes
            .map(|b| fmt_ratio(i128::from(b), 1_000_000, 3))
            .unwrap_or_default()
            .into(),
    )
}

fn mpi_event_trace(db: &ExportDb, req: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    let tables: Vec<(&str, MpiKind)> = MPI_TABLES
        .iter()
        .copied()
        .filter(|(t, _)| db.has_table(t))
        .collect();
    if tables.is_empty() {
        return skipped(db, "MPI event data");
    }
    let strings = db.string_ids()?;
    let mut ranks: HashMap<i64, i64> = HashMap::new();
    if db.has_table("MPI_RANKS") {
        for_each_row(
            db,
            "MPI_RANKS",
            "SELECT rowid, globalTid, rank FROM MPI_RANKS",
            |row| {
                if let (Some(g), Some(r)) = (int_at(row, 1), int_at(row, 2)) {
                    ranks.entry(g).or_insert(r);
                }
                Ok(())
            },
        )?;
    }
    // (start, table order, rowid) → the row's cells.
    let mut rows: Vec<((i64, usize, i64), Vec<Cell>)> = Vec::new();
    for (order, (t, kind)) in tables.into_iter().enumerate() {
        let col = |c| db.col_or_null(t, c);
        let (a, b, c, d) = match kind {
            MpiKind::P2p => (col("tag"), col("remoteRank"), "NULL".into(), col("size")),
            MpiKind::Collective => ("NULL".into(), col("rootRank"), col("size"), col("recvSize")),
            MpiKind::StartWait | MpiKind::Other => {
                ("NULL".into(), "NULL".into(), "NULL".into(), "NULL".into())
            }
        };
        let sql = format!(
            "SELECT rowid, start, end, {}, {}, {a}, {b}, {c}, {d} FROM {}",
            col("textId"),
            col("globalTid"),
            quote_ident(t)
        );
        for_each_row(db, t, &sql, |row| {
            let rowid = int_at(row, 0).unwrap_or(-1);
            let start = required_int(db, t, row, 1, "start")?;
            let end = int_at(row, 2);
            let gtid = int_at(row, 4);
            let (pid, tid) = gtid.map(pid_tid).unzip();
            let rank = gtid.and_then(|g| ranks.get(&g).copied());
            let (tag, peer, root, size, send, recv) = match kind {
                MpiKind::P2p => (
                    int_at(row, 5),
                    int_at(row, 6),
                    None,
                    int_at(row, 8),
                    None,
                    None,
                ),
                MpiKind::Collective => (
                    None,
                    None,
                    int_at(row, 6),
                    None,
                    int_at(row, 7),
                    int_at(row, 8),
                ),
                MpiKind::StartWait | MpiKind::Other => (None, None, None, None, None, None),
            };
            rows.push((
                (start, order, rowid),
                vec![
                    Cell::int(start),
                    int_cell(end),
                    int_cell(end.map(|e| e.saturating_sub(start))),
                    Cell::Text(string_or_empty(&strings, int_at(row, 3)).into()),
                    int_cell(pid),
                    int_cell(tid),
                    int_cell(tag),
                    int_cell(rank),
                    int_cell(peer),
                    int_cell(root),
                    mb_cell(size),
                    mb_cell(send),
                    mb_cell(recv),
                ],
            ));
            Ok(())
        })?;
    }
    rows.sort_by_key(|(key, _)| *key);
    Ok(ReportOutcome::Table(ReportTable::new(
        req.report.name,
        MPI_COLUMNS,
        rows.into_iter().map(|(_, r)| r).collect::<Vec<_>>(),
    )))
}
