//! Flows from API calls to the GPU work they caused, linked as the work is read: the calls
//! (read first) are sorted once by flow key — the process and correlation id — and each GPU
//! row looks its call up, so that no list of the millions of work items waits to be linked.
//! A row without a process (exports whose GPU tables lack `globalPid`) is matched on its
//! correlation id alone. Duplicate keys link to the first call read.

use super::{EventRef, Loader};

/// The scope index of a flow key whose scope (process) is not known.
const NO_SCOPE: u32 = u32::MAX;

impl Loader<'_, '_> {
    /// The key that pairs a call with its work: the scope (machine and process, numbered
    /// densely as first seen) in the high 32 bits, the correlation id in the low ones.
    pub(super) fn flow_key(&mut self, scope: Option<u64>, correlation: u32) -> u64 {
        let index = match scope {
            None => NO_SCOPE,
            Some(s) => {
                let next = self.scopes.len() as u32;
                *self.scopes.entry(s).or_insert(next)
            }
        };
        (u64::from(index) << 32) | u64::from(correlation)
    }

    /// Sorts the calls by key, keeping the first of each key, for [`Loader::link_work`] and
    /// [`Loader::has_call`].
    pub(super) fn index_calls(&mut self) {
        self.calls.sort_unstable();
        self.calls.dedup_by_key(|(k, _)| *k);
        self.calls.shrink_to_fit();
    }

    /// Whether a call with this key was read (after [`Loader::index_calls`]).
    pub(super) fn has_call(&self, key: u64) -> bool {
        self.calls.binary_search_by_key(&key, |&(k, _)| k).is_ok()
    }

    /// Links `work` to the call of its scope and correlation id, or counts it as unmatched.
    pub(super) fn link_work(&mut self, scope: Option<u64>, correlation: u32, work: EventRef) {
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
                        self.calls.iter().map(|&(k, r)| (k as u32, r)).collect();
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
            Some(call) => self.b.add_flow(call, work),
            None => self.unmatched_work += 1,
        }
    }

    /// Frees the calls once the GPU tables are read.
    pub(super) fn drop_calls(&mut self) {
        self.calls = Vec::new();
        self.calls_by_id = None;
        self.scopes.shrink_to_fit();
    }
}
