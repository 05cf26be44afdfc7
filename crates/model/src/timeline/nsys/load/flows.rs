//! Flows from API calls to the GPU work they caused, linked as the work is read: the calls
//! (read first) are sorted once by flow key — the process and correlation id — and each GPU
//! row looks its call up, so that no list of the millions of work items waits to be linked.
//! A row without a process (exports whose GPU tables lack `globalPid`) is matched on its
//! correlation id alone. Duplicate keys link to the first call read. OpenMP task creations
//! are linked to their task parts at the end ([`Flows::link_tasks`]).

use std::collections::HashMap;

use super::EventRef;
use crate::core::num::{index_u32, low_u32};
use crate::problem::Location;
use crate::timeline::builder::TimelineBuilder;

/// The scope index of a flow key whose scope (process) is not known.
const NO_SCOPE: u32 = u32::MAX;

/// The correlation bookkeeping of a load.
#[derive(Default)]
pub(super) struct Flows {
    /// API calls with a correlation id, by flow key ([`Flows::flow_key`]).
    pub(super) calls: Vec<(u64, EventRef)>,
    /// The calls by correlation id alone, made when a GPU row without a process is read.
    calls_by_id: Option<Vec<(u32, EventRef)>>,
    /// GPU work with a correlation id and no call.
    unmatched_work: u64,
    /// The scopes of flow keys, numbered densely.
    scopes: HashMap<u64, u32>,
    /// OpenMP task creations and task parts, by process and correlation id (their flows).
    pub(super) task_creates: Vec<(u64, EventRef)>,
    pub(super) tasks: Vec<(u64, EventRef)>,
    /// GPU work of CUDA graph nodes, by `graphNodeId` (linked to the nodes' creations).
    pub(super) graph_work: Vec<(u64, EventRef)>,
}

impl Flows {
    /// The key that pairs a call with its work: the scope (machine and process, numbered
    /// densely as first seen) in the high 32 bits, the correlation id in the low ones.
    pub(super) fn flow_key(&mut self, scope: Option<u64>, correlation: u32) -> u64 {
        let index = match scope {
            None => NO_SCOPE,
            Some(s) => {
                let next = index_u32(self.scopes.len());
                *self.scopes.entry(s).or_insert(next)
            }
        };
        (u64::from(index) << 32) | u64::from(correlation)
    }

    /// Sorts the calls by key, keeping the first of each key, for [`Flows::link_work`] and
    /// [`Flows::has_call`].
    pub(super) fn index_calls(&mut self) {
        self.calls.sort_unstable();
        self.calls.dedup_by_key(|(k, _)| *k);
        self.calls.shrink_to_fit();
    }

    /// Whether a call with this key was read (after [`Flows::index_calls`]).
    pub(super) fn has_call(&self, key: u64) -> bool {
        self.calls.binary_search_by_key(&key, |&(k, _)| k).is_ok()
    }

    /// Links `work` to the call of its scope and correlation id, or counts it as unmatched.
    pub(super) fn link_work(
        &mut self,
        b: &mut TimelineBuilder,
        scope: Option<u64>,
        correlation: u32,
        work: EventRef,
    ) {
        let call = match scope {
            Some(_) => {
                let key = self.flow_key(scope, correlation);
                self.calls
                    .binary_search_by_key(&key, |&(k, _)| k)
                    .ok()
                    .map(|at| self.calls[at].1)
            }
            None => {
                let by_id = self.calls_by_id.get_or_insert_with(|| {
                    let mut by_id: Vec<(u32, EventRef)> =
                        // A key's low 32 bits are its correlation id (`flow_key`).
                        self.calls.iter().map(|&(k, r)| (low_u32(k), r)).collect();
                    by_id.sort_unstable();
                    by_id.dedup_by_key(|(c, _)| *c);
                    by_id
                });
                by_id
                    .binary_search_by_key(&correlation, |&(c, _)| c)
                    .ok()
                    .map(|at| by_id[at].1)
            }
        };
        match call {
            Some(call) => b.add_flow(call, work),
            None => self.unmatched_work += 1,
        }
    }

    /// Frees the calls once the GPU tables are read.
    pub(super) fn drop_calls(&mut self) {
        self.calls = Vec::new();
        self.calls_by_id = None;
        self.scopes.shrink_to_fit();
    }

    /// Links each OpenMP task part to the creation of its correlation id (implicit tasks
    /// have none: no warning).
    pub(super) fn link_tasks(&mut self, b: &mut TimelineBuilder) {
        let creates = std::mem::take(&mut self.task_creates);
        let tasks = std::mem::take(&mut self.tasks);
        b.link_by_key(creates, &tasks);
    }

    /// Warns of the GPU work that found no API call.
    pub(super) fn warn_unmatched(&self, b: &mut TimelineBuilder) {
        let unmatched = self.unmatched_work;
        if unmatched > 0 {
            b.warn(
                Location::Part("flows".into()),
                format!("{unmatched} GPU activities have no API call with their correlation id"),
            );
        }
    }

    /// Frees the scopes once the events are read.
    pub(super) fn free(&mut self) {
        self.scopes = HashMap::new();
    }
}
