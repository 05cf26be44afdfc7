//! The NVTX state of one action: domains, the push/pop stack of the launching thread, and the
//! open start/end ranges, as NVIDIA's `INvtxState` / `INvtxDomainInfo` present them.

use crate::proto::nv::nvtx::NvtxState;

/// Name Nsight Compute stores for the default domain.
pub const DEFAULT_DOMAIN_NAME: &str = "<default domain>";

/// A read-only view of an action's NVTX state.
pub struct NvtxView<'a> {
    state: &'a NvtxState,
    thread_id: Option<u32>,
}

impl<'a> NvtxView<'a> {
    /// A view for the action launched by `thread_id` (push/pop stacks are per thread).
    pub fn new(state: &'a NvtxState, thread_id: Option<u32>) -> Self {
        NvtxView { state, thread_id }
    }

    /// Ids of all known domains, in file order, each once.
    pub fn domain_ids(&self) -> impl Iterator<Item = u64> + '_ {
        let mut seen = Vec::new();
        self.state.domains.iter().map(|d| d.id).filter(move |id| {
            let new = !seen.contains(id);
            seen.push(*id);
            new
        })
    }

    /// The name of domain `id`, as stored (Nsight Compute stores [`DEFAULT_DOMAIN_NAME`] for
    /// the default domain).
    pub fn domain_name(&self, id: u64) -> &'a str {
        self.state
            .domains
            .iter()
            .find(|d| d.id == id)
            .map_or("", |d| d.name.as_str())
    }

    /// The push/pop stack of domain `id` on the launching thread, bottom first.
    pub fn push_pop_ranges(&self, id: u64) -> impl Iterator<Item = &'a str> + '_ {
        self.state
            .threads
            .iter()
            .filter(|t| self.thread_id.is_none_or(|tid| t.tid == tid))
            .flat_map(|t| &t.push_pop_domains)
            .filter(move |d| d.id == id)
            .flat_map(|d| &d.stack)
            .map(|r| r.name.as_str())
    }

    /// The open start/end ranges of domain `id`.
    pub fn start_end_ranges(&self, id: u64) -> impl Iterator<Item = &'a str> + '_ {
        self.state
            .start_end_domains
            .iter()
            .filter(move |d| d.id == id)
            .flat_map(|d| &d.ranges)
            .map(|r| r.name.as_str())
    }
}
