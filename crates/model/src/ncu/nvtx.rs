//! The NVTX state of one action: domains, the push/pop stack of the launching thread, and the
//! open start/end ranges, as NVIDIA's `INvtxState` / `INvtxDomainInfo` present them.

use std::collections::{HashMap, HashSet};

use crate::proto::nv::nvtx::NvtxState;

/// Name Nsight Compute stores for the default domain.
pub const DEFAULT_DOMAIN_NAME: &str = "<default domain>";

/// A read-only view of an action's NVTX state, indexed once (linear in the state's size).
pub struct NvtxView<'a> {
    domain_ids: Vec<u64>,
    names: HashMap<u64, &'a str>,
    push_pop: HashMap<u64, Vec<&'a str>>,
    start_end: HashMap<u64, Vec<&'a str>>,
}

impl<'a> NvtxView<'a> {
    /// A view for the action launched by `thread_id` (push/pop stacks are per thread).
    pub fn new(state: &'a NvtxState, thread_id: Option<u32>) -> Self {
        let mut seen = HashSet::new();
        let mut domain_ids = Vec::new();
        let mut names = HashMap::new();
        for domain in &state.domains {
            if seen.insert(domain.id) {
                domain_ids.push(domain.id);
            }
            names.entry(domain.id).or_insert(domain.name.as_str());
        }
        let mut push_pop: HashMap<u64, Vec<&str>> = HashMap::new();
        for thread in state
            .threads
            .iter()
            .filter(|t| thread_id.is_none_or(|tid| t.tid == tid))
        {
            for domain in &thread.push_pop_domains {
                push_pop
                    .entry(domain.id)
                    .or_default()
                    .extend(domain.stack.iter().map(|r| r.name.as_str()));
            }
        }
        let mut start_end: HashMap<u64, Vec<&str>> = HashMap::new();
        for domain in &state.start_end_domains {
            start_end
                .entry(domain.id)
                .or_default()
                .extend(domain.ranges.iter().map(|r| r.name.as_str()));
        }
        NvtxView {
            domain_ids,
            names,
            push_pop,
            start_end,
        }
    }

    /// Ids of all known domains, in file order, each once.
    pub fn domain_ids(&self) -> impl Iterator<Item = u64> + '_ {
        self.domain_ids.iter().copied()
    }

    /// The name of domain `id`, as stored (Nsight Compute stores [`DEFAULT_DOMAIN_NAME`] for
    /// the default domain).
    pub fn domain_name(&self, id: u64) -> &'a str {
        self.names.get(&id).copied().unwrap_or("")
    }

    /// The push/pop stack of domain `id` on the launching thread, bottom first.
    pub fn push_pop_ranges(&self, id: u64) -> &[&'a str] {
        self.push_pop.get(&id).map_or(&[], Vec::as_slice)
    }

    /// The open start/end ranges of domain `id`.
    pub fn start_end_ranges(&self, id: u64) -> &[&'a str] {
        self.start_end.get(&id).map_or(&[], Vec::as_slice)
    }
}
