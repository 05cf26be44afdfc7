//! CUDA graph node creations (`CUDA_GRAPH_EVENTS`, drawn on their thread's "CUDA graph node
//! creation" row by [`generic`](super::generic)) linked both ways: from the CUDA API call they
//! happened in (the call of the same thread whose span holds the creation's), and to the GPU
//! work of their node (kernels, copies and sets whose `graphNodeId` is the node's: the nodes
//! of an instantiated graph are created as clones, `originalGraphNodeId` naming the node they
//! were cloned from, and its work carries the clone's id).

use std::collections::BTreeMap;

use super::{Loader, SERIES_CUDA_API};
use crate::timeline::builder::EventRef;

/// The table of node creations.
pub(super) const GRAPH_NODES: &str = "CUDA_GRAPH_EVENTS";

/// A node creation drawn on the timeline.
pub(super) struct GraphNode {
    /// Its thread (`None`: not drawn under a thread).
    pub(super) gtid: Option<i64>,
    pub(super) start: i64,
    pub(super) end: i64,
    /// Its `graphNodeId`.
    pub(super) id: Option<i64>,
    pub(super) event: EventRef,
}

impl Loader<'_, '_> {
    /// Links each node creation to its API call and to its node's GPU work.
    pub(super) fn link_graph_nodes(&mut self, nodes: &[GraphNode]) {
        let work = std::mem::take(&mut self.flows.graph_work);
        if !work.is_empty() {
            let creations: Vec<(u64, EventRef)> = nodes
                .iter()
                .filter_map(|n| n.id.map(|id| (id.cast_unsigned(), n.event)))
                .collect();
            self.b.link_by_key(creations, &work);
        }
        let mut by_thread: BTreeMap<i64, Vec<&GraphNode>> = BTreeMap::new();
        for n in nodes {
            if let Some(gtid) = n.gtid {
                by_thread.entry(gtid).or_default().push(n);
            }
        }
        for (gtid, nodes) in by_thread {
            let Some(&track) = self.tracks.series.get(&(gtid, SERIES_CUDA_API)) else {
                continue;
            };
            // Calls of one thread do not overlap: the last call starting no later than the
            // creation is the only one that can hold it.
            let mut calls = self.b.spans(track);
            calls.sort_unstable();
            for n in nodes {
                let at = calls.partition_point(|&(s, _, _)| s <= n.start);
                if let Some(&(_, call_end, call)) = at.checked_sub(1).map(|i| &calls[i])
                    && call_end >= n.end
                {
                    self.b.add_flow(call, n.event);
                }
            }
        }
    }
}
