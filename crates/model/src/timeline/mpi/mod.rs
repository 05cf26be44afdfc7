//! MPI on the timeline, as an MPI engineer reads a run: which rank each file (and thread) is,
//! every MPI call's own fields (peer, tag, size, communicator), point-to-point messages as flows
//! from the send to its receive across the ranks of a merged timeline ([`link`]), and the
//! collectives grouped across ranks with their last arrival, the straggler ([`collectives`]).
//!
//! An Nsight Systems export records MPI calls in four tables (`MPI_P2P_EVENTS`,
//! `MPI_COLLECTIVES_EVENTS`, `MPI_START_WAIT_EVENTS`, `MPI_OTHER_EVENTS`), each call named by
//! its `textId`, on its thread; `MPI_RANKS` maps threads to ranks and `MPI_COMMUNICATORS`
//! describes the communicators each rank knows (its handle, its rank in it). The loader keeps
//! the calls' fields apart from the events ([`MpiRecords`] on `SessionInfo::mpi`), by table
//! and rowid; an event finds its record through its track's source table and its `source`.
//! Facts relied on and what is unverified: `notes/mpi.md`.

mod collectives;
mod fields;
mod link;
mod ranks;

use std::sync::Arc;

pub use collectives::{CollectiveGroup, CollectiveTiming};
pub(crate) use ranks::file_rank;
pub use ranks::{RANK_VARIABLES, RankFrom, rank_in_text};

use super::model::{EventId, SessionInfo, Timeline, TrackKind};
use super::strings::StrId;

/// Which MPI table a call was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MpiTable {
    /// `MPI_P2P_EVENTS`: sends and receives.
    P2p,
    /// `MPI_COLLECTIVES_EVENTS`.
    Collective,
    /// `MPI_START_WAIT_EVENTS`: `MPI_Start*`, `MPI_Test*`, `MPI_Wait*`.
    StartWait,
    /// `MPI_OTHER_EVENTS`: calls without parameters of their own.
    Other,
}

impl MpiTable {
    /// Every table, in this order.
    pub const ALL: [MpiTable; 4] = [
        MpiTable::P2p,
        MpiTable::Collective,
        MpiTable::StartWait,
        MpiTable::Other,
    ];

    /// The export's table name.
    pub fn table_name(self) -> &'static str {
        match self {
            MpiTable::P2p => "MPI_P2P_EVENTS",
            MpiTable::Collective => "MPI_COLLECTIVES_EVENTS",
            MpiTable::StartWait => "MPI_START_WAIT_EVENTS",
            MpiTable::Other => "MPI_OTHER_EVENTS",
        }
    }

    /// The table of an export's table name.
    pub fn of_table(name: &str) -> Option<MpiTable> {
        MpiTable::ALL.into_iter().find(|t| t.table_name() == name)
    }

    /// The label of the timeline row its calls are drawn on (under their thread).
    pub fn row_label(self) -> &'static str {
        match self {
            MpiTable::P2p => "MPI point-to-point",
            MpiTable::Collective => "MPI collectives",
            MpiTable::StartWait => "MPI requests",
            MpiTable::Other => "MPI",
        }
    }
}

/// One MPI call's own fields (those its table has; `None` for NULL or absent columns).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MpiCall {
    /// The table it was read from.
    pub table: MpiTable,
    /// Its rowid there (the event's `source`).
    pub rowid: u32,
    /// The rank of its thread (`MPI_RANKS`), else `None` (the file's rank then applies).
    pub rank: Option<i64>,
    /// The communicator handle as its rank knows it (`commHandle`).
    pub comm: Option<i64>,
    /// The message tag (point-to-point).
    pub tag: Option<i64>,
    /// The peer (`remoteRank`: destination of a send, source of a receive), a rank of the
    /// communicator.
    pub peer: Option<i64>,
    /// The root of a collective (`rootRank`).
    pub root: Option<i64>,
    /// Bytes (`size`: the message, or what a collective sends).
    pub size: Option<i64>,
    /// Bytes a collective receives (`recvSize`).
    pub recv_size: Option<i64>,
    /// The request of a non-blocking call, or the one a wait completes (`requestHandle`).
    pub request: Option<i64>,
}

/// A communicator as one rank describes it (`MPI_COMMUNICATORS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Communicator {
    /// The rank describing it (`rank`).
    pub rank: i64,
    /// Its handle in that rank (`commHandle`).
    pub handle: i64,
    /// That rank's rank in the communicator (`localRank`).
    pub local_rank: Option<i64>,
    /// How many ranks it has (`size`).
    pub size: Option<i64>,
    /// Its root, a global rank (`groupRoot`).
    pub group_root: Option<i64>,
    /// The root's id of it (`groupRootUid`): with the root, the same in every member.
    pub group_root_uid: Option<i64>,
}

/// The MPI facts of one export.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MpiRecords {
    /// Every call, sorted by (table, rowid).
    pub calls: Vec<MpiCall>,
    /// `MPI_RANKS`: (globalTid, rank), sorted.
    pub thread_ranks: Vec<(i64, i64)>,
    /// `MPI_COMMUNICATORS`, in the export's order.
    pub communicators: Vec<Communicator>,
    /// The file's rank and where it was found (none when unknown or several).
    pub rank: Option<(i64, RankFrom)>,
}

impl MpiRecords {
    /// The call read from `table` at `rowid`.
    pub fn call(&self, table: MpiTable, rowid: u32) -> Option<&MpiCall> {
        self.calls
            .binary_search_by_key(&(table, rowid), |c| (c.table, c.rowid))
            .ok()
            .map(|i| &self.calls[i])
    }

    /// The rank of thread `gtid` (`MPI_RANKS`).
    pub fn rank_of_thread(&self, gtid: i64) -> Option<i64> {
        self.thread_ranks
            .binary_search_by_key(&gtid, |&(g, _)| g)
            .ok()
            .map(|i| self.thread_ranks[i].1)
    }
}

/// What a timeline knows of its MPI calls beyond the events: the collectives grouped across
/// ranks ([`Timeline::link_mpi`] makes it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MpiIndex {
    /// The collectives, each the same call of every rank.
    pub(crate) groups: Vec<CollectiveGroup>,
    /// (event, index in `groups`), sorted by event.
    pub(crate) group_of: Vec<(EventId, u32)>,
    /// Point-to-point messages matched to a receive.
    pub(crate) messages: usize,
}

/// One MPI event of a timeline with its call and rank.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MpiEvent {
    pub event: EventId,
    pub name: StrId,
    pub role: link::Role,
    pub start: i64,
    pub call: MpiCall,
    /// The global rank (the call's, else its file's); `None` when unknown.
    pub rank: Option<i64>,
    /// The part of a merged timeline (0 for one file).
    pub part: usize,
}

impl Timeline {
    /// The MPI facts of the file `event` comes from.
    fn mpi_records_of(&self, event: EventId) -> Option<&Arc<MpiRecords>> {
        match self.part_of(event).and_then(|i| self.parts.get(i)) {
            Some(part) => part.session.mpi.as_ref(),
            None => self.session.mpi.as_ref(),
        }
    }

    /// Whether any file of the timeline has MPI calls.
    pub fn has_mpi(&self) -> bool {
        let some = |s: &SessionInfo| s.mpi.as_ref().is_some_and(|m| !m.calls.is_empty());
        some(&self.session) || self.parts.iter().any(|p| some(&p.session))
    }

    /// The MPI call `event` is, with its rank (the thread's, else the file's).
    pub fn mpi_call(&self, event: EventId) -> Option<(MpiCall, Option<i64>)> {
        let e = self.event(event)?;
        let (track, _) = self.locate(event)?;
        let table = MpiTable::of_table(self.session.series_sources.get(&track)?)?;
        let records = self.mpi_records_of(event)?;
        let call = *records.call(table, e.source)?;
        let rank = call.rank.or(records.rank.map(|(r, _)| r));
        Some((call, rank))
    }

    /// The rank of the file of part `index` of a merged timeline (of the timeline itself for
    /// `None`), and where it was found.
    pub fn mpi_rank(&self, part: Option<usize>) -> Option<(i64, RankFrom)> {
        let session = match part {
            Some(i) => &self.parts.get(i)?.session,
            None => &self.session,
        };
        session.mpi.as_ref()?.rank
    }

    /// Every MPI event of the timeline, in id order.
    pub(crate) fn mpi_events(&self) -> Vec<MpiEvent> {
        let mut out = Vec::new();
        for (&track, source) in &self.session.series_sources {
            let Some(table) = MpiTable::of_table(source) else {
                continue;
            };
            let Some(t) = self.track(track) else { continue };
            for row in &t.rows {
                for i in row.clone() {
                    let id = EventId(i);
                    let Some(e) = self.event(id) else { continue };
                    let part = self.part_of(id);
                    let Some(records) = self.mpi_records_of(id) else {
                        continue;
                    };
                    let Some(&call) = records.call(table, e.source) else {
                        continue;
                    };
                    let rank = call.rank.or(records.rank.map(|(r, _)| r));
                    out.push(MpiEvent {
                        event: id,
                        name: e.name,
                        role: link::Role::of(table, self.name(e.name)),
                        start: e.start,
                        call,
                        rank,
                        part: part.unwrap_or(0),
                    });
                }
            }
        }
        out.sort_by_key(|m| m.event);
        out
    }

    /// Matches point-to-point sends to their receives (flows from the send to the receive),
    /// non-blocking calls to the wait that completes them, and groups the collectives across
    /// ranks. Called once a timeline is loaded or merged; flows it adds stay sorted.
    pub fn link_mpi(&mut self) {
        if !self.has_mpi() {
            return;
        }
        let events = self.mpi_events();
        let communicators = link::Communicators::of(self);
        let mut flows = link::match_messages(&events, &communicators);
        let messages = flows.len();
        flows.extend(link::request_waits(&events));
        self.flows.extend(flows);
        self.flows.sort_unstable();
        self.flows.dedup();
        let (groups, group_of) = collectives::group(&events, &communicators);
        self.mpi = Some(Arc::new(MpiIndex {
            groups,
            group_of,
            messages,
        }));
    }

    /// Adds " · Rank N" to the name of each process whose threads `MPI_RANKS` gives a rank
    /// (one file holding several ranks, or one).
    pub(crate) fn name_rank_processes(&mut self) {
        let Some(records) = self.session.mpi.clone() else {
            return;
        };
        let mut ranks: Vec<(u64, u64, i64)> = records
            .thread_ranks
            .iter()
            .map(|&(gtid, rank)| {
                let (machine, pid, _) = crate::timeline::nsys::db::split_global_id(gtid);
                (machine, pid, rank)
            })
            .collect();
        ranks.sort_unstable();
        ranks.dedup();
        for (machine, pid, rank) in ranks {
            let found = self.tracks.iter().position(|t| {
                t.kind == TrackKind::Process
                    && t.key == pid
                    && t.parent
                        .and_then(|p| self.tracks.get(p.0 as usize))
                        .is_some_and(|m| m.key == machine)
            });
            if let Some(t) = found.and_then(|i| self.tracks.get_mut(i)) {
                t.name = format!("{} · Rank {rank}", t.name);
            }
        }
    }

    /// How many point-to-point messages [`Timeline::link_mpi`] matched.
    pub fn mpi_messages(&self) -> usize {
        self.mpi.as_ref().map_or(0, |m| m.messages)
    }
}
