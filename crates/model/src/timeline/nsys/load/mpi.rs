//! The MPI tables: every call of `MPI_P2P_EVENTS`, `MPI_COLLECTIVES_EVENTS`,
//! `MPI_START_WAIT_EVENTS` and `MPI_OTHER_EVENTS` as a range named by its `textId` ("MPI_Send")
//! on a row of its table under its thread ("MPI point-to-point", "MPI collectives", "MPI
//! requests", "MPI"), its own fields kept by table and rowid ([`MpiRecords`]); `MPI_RANKS` and
//! `MPI_COMMUNICATORS` read whole (attached); the file's rank found from them, the environment
//! or an NVTX "MPI Rank N" (`timeline::mpi`).

use std::collections::HashMap;
use std::sync::Arc;

use super::generic::Place;
use super::{Loader, integer, rowid};
use crate::timeline::builder::NewEvent;
use crate::timeline::model::EventKind;
use crate::timeline::mpi::{Communicator, MpiCall, MpiRecords, MpiTable, file_rank};
use crate::timeline::nsys::NsysError;
use crate::timeline::nsys::db::{int_of, quote_ident};
use crate::timeline::strings::StrId;

const RANKS: &str = "MPI_RANKS";
const COMMUNICATORS: &str = "MPI_COMMUNICATORS";

/// The columns read of an MPI event table after rowid, start, end, globalTid and textId.
const FIELDS: [&str; 7] = [
    "commHandle",
    "tag",
    "remoteRank",
    "rootRank",
    "size",
    "recvSize",
    "requestHandle",
];

impl Loader<'_, '_> {
    /// Reads the MPI tables (after NVTX, whose marks may name the rank).
    pub(super) fn mpi(&mut self) -> Result<(), NsysError> {
        let mut records = MpiRecords::default();
        if self.db.has_column(RANKS, "globalTid") && self.db.has_column(RANKS, "rank") {
            let sql = format!("SELECT rowid, globalTid, rank FROM {RANKS}");
            self.scan(RANKS, &sql, |_, row| {
                let v = |i| row.get_ref(i).ok().and_then(int_of);
                if let (Some(g), Some(r)) = (v(1), v(2)) {
                    records.thread_ranks.push((g, r));
                }
                Ok(())
            })?;
            self.attach_rest(RANKS);
            records.thread_ranks.sort_unstable();
            records.thread_ranks.dedup_by_key(|(g, _)| *g);
        }
        self.mpi_communicators(&mut records)?;
        for table in MpiTable::ALL {
            if self.db.has_table(table.table_name()) {
                self.mpi_table(table, &mut records)?;
            }
        }
        records.calls.sort_unstable_by_key(|c| (c.table, c.rowid));
        let variables: Vec<(&str, &str)> = self
            .b
            .session
            .summary
            .environment
            .variables
            .iter()
            .map(|v| (v.name.as_str(), v.value.as_str()))
            .collect();
        let texts = self
            .b
            .strings()
            .iter()
            .map(|(_, t)| t)
            .chain(self.names.thread_names.values().map(String::as_str));
        records.rank = file_rank(&records.thread_ranks, &variables, texts);
        if records != MpiRecords::default() {
            self.b.session.mpi = Some(Arc::new(records));
        }
        Ok(())
    }

    /// `MPI_COMMUNICATORS`, each row a communicator as one rank knows it.
    fn mpi_communicators(&mut self, records: &mut MpiRecords) -> Result<(), NsysError> {
        if !self.db.has_column(COMMUNICATORS, "commHandle") {
            return Ok(());
        }
        let cols = [
            "rank",
            "commHandle",
            "localRank",
            "size",
            "groupRoot",
            "groupRootUid",
        ]
        .map(|c| self.db.col_or_null(COMMUNICATORS, c))
        .join(", ");
        let sql = format!("SELECT rowid, {cols} FROM {COMMUNICATORS}");
        self.scan(COMMUNICATORS, &sql, |_, row| {
            let v = |i| row.get_ref(i).ok().and_then(int_of);
            if let (Some(rank), Some(handle)) = (v(1), v(2)) {
                records.communicators.push(Communicator {
                    rank,
                    handle,
                    local_rank: v(3),
                    size: v(4),
                    group_root: v(5),
                    group_root_uid: v(6),
                });
            }
            Ok(())
        })?;
        self.attach_rest(COMMUNICATORS);
        Ok(())
    }

    /// One MPI event table onto the timeline, its calls' fields into `records`.
    fn mpi_table(&mut self, table: MpiTable, records: &mut MpiRecords) -> Result<(), NsysError> {
        let name = table.table_name();
        let fields = FIELDS.map(|c| self.db.col_or_null(name, c)).join(", ");
        let sql = format!(
            "SELECT rowid, start, {}, {}, {}, {fields} FROM {}",
            self.db.col_or_null(name, "end"),
            self.db.col_or_null(name, "globalTid"),
            self.db.col_or_null(name, "textId"),
            quote_ident(name)
        );
        let label = table.row_label();
        let key = self.tracks.generic_key(name);
        let fallback = self.b.intern(label);
        let mut names: HashMap<i64, StrId> = HashMap::new();
        let before = self.b.event_count();
        self.scan(name, &sql, |l, row| {
            let v = |i| row.get_ref(i).ok().and_then(int_of);
            let start = integer(v(1), "start")?;
            let end = v(2).filter(|&e| e >= start).unwrap_or(start);
            let gtid = v(3);
            let text = match v(4) {
                Some(id) => *names
                    .entry(id)
                    .or_insert_with(|| l.names.raw_name(&mut l.b, id)),
                None => fallback,
            };
            let track =
                l.tracks
                    .generic(&mut l.b, &l.names, Place::of(gtid, None, None), key, label);
            l.b.session
                .series_sources
                .entry(track)
                .or_insert_with(|| name.to_owned());
            let source = rowid(v(0));
            let rank = gtid.and_then(|g| records.rank_of_thread(g));
            l.b.push(
                track,
                NewEvent::new(EventKind::Range, start, end, text, source),
            );
            records.calls.push(MpiCall {
                table,
                rowid: source,
                rank,
                comm: v(5),
                tag: v(6),
                peer: v(7),
                root: v(8),
                size: v(9),
                recv_size: v(10),
                request: v(11),
            });
            Ok(())
        })?;
        self.events_since(name, before);
        Ok(())
    }
}
