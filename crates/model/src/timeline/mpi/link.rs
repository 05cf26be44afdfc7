//! Point-to-point messages: each send matched to its receive, as MPI matches them.
//!
//! A send of rank `s` to peer `d` on communicator `c` with tag `t` is received by a receive of
//! rank `d` on `c` naming source `s` (or any source) and tag `t` (or any tag). Messages of one
//! sender to one receiver on one communicator do not overtake each other (MPI 4.0 §3.5): the
//! receives of a rank, in the order they were posted (their start), each take the earliest
//! unmatched send that fits. A negative peer of a receive is a wildcard (`MPI_ANY_SOURCE` is -2
//! in MPICH, -1 in Open MPI); a negative tag, `MPI_ANY_TAG` (-1 in both). Peers are ranks of
//! the communicator: with `MPI_COMMUNICATORS` they are translated to global ranks (each
//! member's `localRank` there), and a communicator is known in every rank by its root and the
//! root's id of it (`groupRoot`, `groupRootUid`), each rank's handle mapped to it; without, a
//! handle is the same communicator in every rank and its ranks are global.

use std::collections::HashMap;

use super::{MpiEvent, MpiTable};
use crate::timeline::model::{EventId, Flow, Timeline};

/// What a point-to-point call does with a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// Sends one (`MPI_Send`, `MPI_Isend`, `MPI_Ssend`, `MPI_Bsend`, `MPI_Rsend`...).
    Send,
    /// Receives one (`MPI_Recv`, `MPI_Irecv`, `MPI_Mrecv`...).
    Recv,
    /// Both, with the same peer (`MPI_Sendrecv`, `MPI_Sendrecv_replace`).
    SendRecv,
    /// Neither (probes, collectives, waits, the rest).
    Other,
}

impl Role {
    /// The role of a call named `name` read from `table`.
    pub(crate) fn of(table: MpiTable, name: &str) -> Role {
        if table != MpiTable::P2p {
            return Role::Other;
        }
        let lower = name.to_ascii_lowercase();
        if lower.contains("sendrecv") {
            Role::SendRecv
        } else if lower.contains("probe") {
            Role::Other
        } else if lower.contains("send") {
            Role::Send
        } else if lower.contains("recv") {
            Role::Recv
        } else {
            Role::Other
        }
    }

    fn sends(self) -> bool {
        matches!(self, Role::Send | Role::SendRecv)
    }

    fn receives(self) -> bool {
        matches!(self, Role::Recv | Role::SendRecv)
    }
}

/// A communicator as all its ranks know it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum CommKey {
    /// Its root (a global rank) and the root's id of it.
    Group(i64, i64),
    /// A handle that is the same in every rank.
    Handle(i64),
}

/// The communicators of a timeline's files.
#[derive(Debug, Default)]
pub(crate) struct Communicators {
    /// (global rank, handle) → communicator.
    by_handle: HashMap<(i64, i64), CommKey>,
    /// (communicator, local rank) → global rank.
    global: HashMap<(CommKey, i64), i64>,
}

impl Communicators {
    /// The communicators every file of `timeline` describes.
    pub(crate) fn of(timeline: &Timeline) -> Communicators {
        let mut out = Communicators::default();
        let sessions =
            std::iter::once(&timeline.session).chain(timeline.parts.iter().map(|p| &p.session));
        for records in sessions.filter_map(|s| s.mpi.as_ref()) {
            for c in &records.communicators {
                let key = match (c.group_root, c.group_root_uid) {
                    (Some(root), Some(uid)) => CommKey::Group(root, uid),
                    _ => CommKey::Handle(c.handle),
                };
                out.by_handle.insert((c.rank, c.handle), key);
                if let Some(local) = c.local_rank {
                    out.global.insert((key, local), c.rank);
                }
            }
        }
        out
    }

    /// The communicator `handle` is in `rank`.
    pub(crate) fn key(&self, rank: i64, handle: i64) -> CommKey {
        self.by_handle
            .get(&(rank, handle))
            .copied()
            .unwrap_or(CommKey::Handle(handle))
    }

    /// The global rank of rank `local` of `comm` (itself when no file describes it).
    pub(crate) fn global(&self, comm: CommKey, local: i64) -> i64 {
        self.global.get(&(comm, local)).copied().unwrap_or(local)
    }
}

/// A send waiting for its receive.
struct Pending {
    start: i64,
    tag: i64,
    event: EventId,
    matched: bool,
}

/// The flows from each send to the receive that matches it.
pub(crate) fn match_messages(events: &[MpiEvent], comms: &Communicators) -> Vec<Flow> {
    // (communicator, source, destination) → its sends by start.
    let mut queues: HashMap<(CommKey, i64, i64), Vec<Pending>> = HashMap::new();
    for e in events.iter().filter(|e| e.role.sends()) {
        let (Some(src), Some(handle), Some(peer), Some(tag)) =
            (e.rank, e.call.comm, e.call.peer, e.call.tag)
        else {
            continue;
        };
        if peer < 0 {
            // MPI_PROC_NULL: nothing is sent.
            continue;
        }
        let comm = comms.key(src, handle);
        let dst = comms.global(comm, peer);
        queues.entry((comm, src, dst)).or_default().push(Pending {
            start: e.start,
            tag,
            event: e.event,
            matched: false,
        });
    }
    for queue in queues.values_mut() {
        queue.sort_by_key(|p| (p.start, p.event));
    }
    // The sources with sends to each (communicator, destination), for wildcard receives.
    let mut sources: HashMap<(CommKey, i64), Vec<i64>> = HashMap::new();
    for &(comm, src, dst) in queues.keys() {
        sources.entry((comm, dst)).or_default().push(src);
    }
    let mut receives: Vec<&MpiEvent> = events.iter().filter(|e| e.role.receives()).collect();
    receives.sort_by_key(|e| (e.start, e.event));
    let mut flows = Vec::new();
    for r in receives {
        let (Some(dst), Some(handle)) = (r.rank, r.call.comm) else {
            continue;
        };
        let comm = comms.key(dst, handle);
        let tag = r.call.tag.filter(|&t| t >= 0);
        let candidates: Vec<i64> = match r.call.peer {
            Some(p) if p >= 0 => vec![comms.global(comm, p)],
            _ => sources.get(&(comm, dst)).cloned().unwrap_or_default(),
        };
        let mut best: Option<(i64, i64, usize)> = None;
        for src in candidates {
            let Some(queue) = queues.get(&(comm, src, dst)) else {
                continue;
            };
            let found = queue
                .iter()
                .position(|p| !p.matched && tag.is_none_or(|t| t == p.tag));
            if let Some(i) = found
                && best.is_none_or(|(s, _, _)| queue[i].start < s)
            {
                best = Some((queue[i].start, src, i));
            }
        }
        if let Some((_, src, i)) = best
            && let Some(p) = queues.get_mut(&(comm, src, dst)).and_then(|q| q.get_mut(i))
        {
            p.matched = true;
            flows.push(Flow {
                from: p.event,
                to: r.event,
            });
        }
    }
    flows
}

/// Flows from each non-blocking call (`MPI_Isend`, `MPI_Irecv`... with a request) to the
/// first wait or test of its rank on the same request that starts after it.
pub(crate) fn request_waits(events: &[MpiEvent]) -> Vec<Flow> {
    // (part, rank, request) → the waits by start.
    type Request = (usize, Option<i64>, i64);
    let mut waits: HashMap<Request, Vec<(i64, EventId)>> = HashMap::new();
    for e in events {
        if e.call.table == MpiTable::StartWait
            && let Some(request) = e.call.request
        {
            waits
                .entry((e.part, e.rank, request))
                .or_default()
                .push((e.start, e.event));
        }
    }
    for list in waits.values_mut() {
        list.sort_unstable();
    }
    let mut flows = Vec::new();
    for e in events {
        if e.call.table != MpiTable::P2p {
            continue;
        }
        let Some(request) = e.call.request else {
            continue;
        };
        let Some(list) = waits.get(&(e.part, e.rank, request)) else {
            continue;
        };
        let at = list.partition_point(|&(s, _)| s < e.start);
        if let Some(&(_, wait)) = list.get(at) {
            flows.push(Flow {
                from: e.event,
                to: wait,
            });
        }
    }
    flows
}
