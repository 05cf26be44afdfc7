//! Collectives across ranks: the n-th call of one name on one communicator in each rank is one
//! collective operation (MPI requires every member to call collectives on a communicator in the
//! same order). Its last arrival — the member that started last — is the straggler: every
//! member waits from its own start until that arrival, and moves data from then to its end.

use std::collections::HashMap;

use super::link::{CommKey, Communicators};
use super::{MpiEvent, MpiTable};
use crate::timeline::model::{EventId, Timeline};
use crate::timeline::strings::StrId;

/// One collective operation: the same call of each rank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectiveGroup {
    /// The call's name.
    pub name: StrId,
    /// Which call of this name on its communicator it is, in each rank (0 = first).
    pub occurrence: u32,
    /// Each member's call, in id order.
    pub members: Vec<EventId>,
}

/// One member's time in a collective, split at the last arrival.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CollectiveTiming {
    /// The call that started last.
    pub straggler: EventId,
    /// Its rank, when known.
    pub straggler_rank: Option<i64>,
    /// When it started (ns): the last arrival.
    pub last_arrival: i64,
    /// The member's time before the last arrival (ns): waiting for the others.
    pub wait_ns: i64,
    /// The member's time from the last arrival to its end (ns): the transfer.
    pub transfer_ns: i64,
}

/// Who a call belongs to: its rank, or its file when the rank is not known.
type Member = (Option<i64>, usize);

/// Calls by start, and the call.
type Starts = Vec<(i64, EventId)>;

/// Who a call belongs to ([`Member`]).
fn member(e: &MpiEvent) -> Member {
    match e.rank {
        Some(r) => (Some(r), 0),
        None => (None, e.part),
    }
}

/// The collectives of `events` with two members or more, and each member's group (sorted by
/// event).
pub(crate) fn group(
    events: &[MpiEvent],
    comms: &Communicators,
) -> (Vec<CollectiveGroup>, Vec<(EventId, u32)>) {
    // (member, communicator, name) → its calls by start.
    let mut calls: HashMap<(Member, CommKey, StrId), Starts> = HashMap::new();
    for e in events
        .iter()
        .filter(|e| e.call.table == MpiTable::Collective)
    {
        let handle = e.call.comm.unwrap_or(0);
        let comm = match e.rank {
            Some(rank) => comms.key(rank, handle),
            None => CommKey::Handle(handle),
        };
        calls
            .entry((member(e), comm, e.name))
            .or_default()
            .push((e.start, e.event));
    }
    let mut by_key: HashMap<(CommKey, StrId, u32), Vec<EventId>> = HashMap::new();
    for ((_, comm, name), mut list) in calls {
        list.sort_unstable();
        for (n, (_, event)) in list.into_iter().enumerate() {
            let n = u32::try_from(n).unwrap_or(u32::MAX);
            by_key.entry((comm, name, n)).or_default().push(event);
        }
    }
    let mut groups: Vec<CollectiveGroup> = by_key
        .into_iter()
        .filter(|(_, members)| members.len() > 1)
        .map(|((_, name, occurrence), mut members)| {
            members.sort_unstable();
            CollectiveGroup {
                name,
                occurrence,
                members,
            }
        })
        .collect();
    groups.sort_by_key(|g| g.members.first().copied());
    let mut group_of: Vec<(EventId, u32)> = groups
        .iter()
        .enumerate()
        .flat_map(|(i, g)| {
            let i = u32::try_from(i).unwrap_or(u32::MAX);
            g.members.iter().map(move |&m| (m, i))
        })
        .collect();
    group_of.sort_unstable();
    (groups, group_of)
}

impl Timeline {
    /// The collective operation `event` is part of (its calls in every rank).
    pub fn mpi_collective(&self, event: EventId) -> Option<&CollectiveGroup> {
        let index = self.mpi.as_ref()?;
        let at = index
            .group_of
            .binary_search_by_key(&event, |&(e, _)| e)
            .ok()?;
        index.groups.get(index.group_of[at].1 as usize)
    }

    /// `event`'s time in its collective, split at the last arrival (with the times as they
    /// are now: after a part was moved, the split follows).
    pub fn mpi_collective_timing(&self, event: EventId) -> Option<CollectiveTiming> {
        let group = self.mpi_collective(event)?;
        let me = self.event(event)?;
        let (straggler, last_arrival) = group
            .members
            .iter()
            .filter_map(|&m| Some((m, self.event(m)?.start)))
            .max_by_key(|&(m, start)| (start, std::cmp::Reverse(m)))?;
        let wait_ns = (last_arrival - me.start).clamp(0, me.end - me.start);
        Some(CollectiveTiming {
            straggler,
            straggler_rank: self.mpi_call(straggler).and_then(|(_, r)| r),
            last_arrival,
            wait_ns,
            transfer_ns: me.end - me.start - wait_ns,
        })
    }

    /// Every collective operation of the timeline, in the order of their first member.
    pub fn mpi_collectives(&self) -> &[CollectiveGroup] {
        self.mpi.as_ref().map_or(&[], |m| &m.groups)
    }
}
