//! The CPU profile of a set of threads over a time range, from their CPU samples: the samples
//! counted per distinct call stack, then folded into a top-down call tree (callers above
//! callees, what a flame graph draws), a bottom-up tree (each function with the paths that
//! called it) and a flat list (each function's self and total samples).
//!
//! A function is a frame of [`CallStacks`] (symbol and module). Its *self* samples are those
//! whose innermost frame it is; its *total* samples are those whose stack holds it at least
//! once (a recursive function is counted once per sample).

use std::collections::HashMap;

use super::model::{EventKind, NO_STACK, Timeline, TrackId};
use super::query::partition;
use super::stacks::{CallStacks, FrameId, StackId};
use crate::core::num::index_u32;

/// Samples per distinct call stack (`None`: samples without one).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StackCounts {
    /// `(stack, samples)`, in first-seen order.
    pub stacks: Vec<(Option<StackId>, u64)>,
    /// All samples counted.
    pub samples: u64,
}

/// A node of a [`CallTree`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallNode {
    /// The function (`None` for the root, which stands for all samples).
    pub frame: Option<FrameId>,
    /// The parent node (`None` for the root).
    pub parent: Option<u32>,
    /// Child nodes, most samples first.
    pub children: Vec<u32>,
    /// Samples through this node.
    pub total: u64,
    /// Samples that end at this node (top-down: the function was running; bottom-up: the
    /// path is complete here).
    pub self_count: u64,
    /// Depth below the root (the root is 0).
    pub depth: u32,
}

/// A call tree: node 0 is the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallTree {
    /// The nodes, parents before children.
    pub nodes: Vec<CallNode>,
}

/// One function of the flat profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlatRow {
    /// The function.
    pub frame: FrameId,
    /// Samples in which it was the innermost frame.
    pub self_count: u64,
    /// Samples whose stack holds it.
    pub total: u64,
}

impl Timeline {
    /// The CPU samples of `tracks` (every track when empty; a thread stands for its rows)
    /// whose time lies in `[t0, t1]`, counted per call stack.
    pub fn sample_counts(&self, t0: i64, t1: i64, tracks: &[TrackId]) -> StackCounts {
        let mut chosen: Vec<TrackId> = Vec::new();
        if tracks.is_empty() {
            chosen.extend((0..index_u32(self.tracks.len())).map(TrackId));
        } else {
            for &t in tracks {
                self.for_each_descendant(t, &mut |d| chosen.push(d));
            }
            chosen.sort_unstable();
            chosen.dedup();
        }
        let mut index: HashMap<u32, usize> = HashMap::new();
        let mut counts = StackCounts::default();
        for t in chosen {
            let Some(track) = self.track(t) else { continue };
            for row in &track.rows {
                let (lo, hi) = (row.start as usize, row.end as usize);
                if lo >= hi || self.columns.kind[lo] != EventKind::CpuSample {
                    continue;
                }
                let mut i = partition(lo, hi, |k| self.start_of(k) < t0);
                while i < hi && self.start_of(i) <= t1 {
                    if self.columns.kind[i] == EventKind::CpuSample {
                        let stack = self.columns.correlation.at(i);
                        let slot = *index.entry(stack).or_insert_with(|| {
                            let id = (stack != NO_STACK).then_some(StackId(stack));
                            counts.stacks.push((id, 0));
                            counts.stacks.len() - 1
                        });
                        counts.stacks[slot].1 += 1;
                        counts.samples += 1;
                    }
                    i += 1;
                }
            }
        }
        counts
    }
}

impl CallTree {
    fn root() -> CallTree {
        CallTree {
            nodes: vec![CallNode {
                frame: None,
                parent: None,
                children: Vec::new(),
                total: 0,
                self_count: 0,
                depth: 0,
            }],
        }
    }

    /// Adds `count` samples along `path` (frames from the root down).
    fn add(
        &mut self,
        index: &mut HashMap<(u32, FrameId), u32>,
        path: impl Iterator<Item = FrameId>,
        count: u64,
    ) {
        let mut node = 0u32;
        self.nodes[0].total += count;
        for frame in path {
            let next = index_u32(self.nodes.len());
            let child = *index.entry((node, frame)).or_insert(next);
            if child == next {
                let depth = self.nodes[node as usize].depth + 1;
                self.nodes.push(CallNode {
                    frame: Some(frame),
                    parent: Some(node),
                    children: Vec::new(),
                    total: 0,
                    self_count: 0,
                    depth,
                });
                self.nodes[node as usize].children.push(child);
            }
            node = child;
            self.nodes[node as usize].total += count;
        }
        self.nodes[node as usize].self_count += count;
    }

    /// Orders every node's children by samples, most first (ties by frame).
    fn sort(&mut self) {
        for i in 0..self.nodes.len() {
            let mut children = std::mem::take(&mut self.nodes[i].children);
            children.sort_by_key(|&c| {
                let n = &self.nodes[c as usize];
                (std::cmp::Reverse(n.total), n.frame)
            });
            self.nodes[i].children = children;
        }
    }

    /// The top-down tree: from the outermost frames (thread entry points) inward. Samples
    /// without a call stack stay in the root's self count.
    pub fn top_down(stacks: &CallStacks, counts: &StackCounts) -> CallTree {
        let mut tree = CallTree::root();
        let mut index = HashMap::new();
        let mut path: Vec<FrameId> = Vec::new();
        for &(stack, n) in &counts.stacks {
            path.clear();
            if let Some(stack) = stack {
                path.extend(frame_ids(stacks, stack));
                path.reverse();
            }
            tree.add(&mut index, path.iter().copied(), n);
        }
        tree.sort();
        tree
    }

    /// The bottom-up tree: the root's children are the functions samples ended in, each
    /// node's children the functions that called it.
    pub fn bottom_up(stacks: &CallStacks, counts: &StackCounts) -> CallTree {
        let mut tree = CallTree::root();
        let mut index = HashMap::new();
        for &(stack, n) in &counts.stacks {
            match stack {
                Some(stack) => tree.add(&mut index, frame_ids(stacks, stack), n),
                None => tree.add(&mut index, std::iter::empty(), n),
            }
        }
        tree.sort();
        tree
    }

    /// The frames from the root down to `node` (the root itself has none).
    pub fn path(&self, node: u32) -> Vec<FrameId> {
        let mut out = Vec::new();
        let mut at = self.nodes.get(node as usize);
        while let Some(n) = at {
            if let Some(f) = n.frame {
                out.push(f);
            }
            at = n.parent.and_then(|p| self.nodes.get(p as usize));
        }
        out.reverse();
        out
    }
}

/// The frame ids of `stack`, innermost first.
fn frame_ids(stacks: &CallStacks, stack: StackId) -> impl Iterator<Item = FrameId> + '_ {
    let mut next = Some(stack);
    std::iter::from_fn(move || {
        let node = stacks.node(next?)?;
        next = node.parent;
        Some(node.frame)
    })
}

/// The flat profile: every function with its self and total samples, by total then self,
/// most first.
pub fn flat(stacks: &CallStacks, counts: &StackCounts) -> Vec<FlatRow> {
    let mut rows: HashMap<FrameId, (u64, u64)> = HashMap::new();
    let mut seen: Vec<FrameId> = Vec::new();
    for &(stack, n) in &counts.stacks {
        let Some(stack) = stack else { continue };
        seen.clear();
        for (depth, frame) in frame_ids(stacks, stack).enumerate() {
            let entry = rows.entry(frame).or_default();
            if depth == 0 {
                entry.0 += n;
            }
            if !seen.contains(&frame) {
                seen.push(frame);
                entry.1 += n;
            }
        }
    }
    let mut out: Vec<FlatRow> = rows
        .into_iter()
        .map(|(frame, (self_count, total))| FlatRow {
            frame,
            self_count,
            total,
        })
        .collect();
    out.sort_by_key(|r| {
        (
            std::cmp::Reverse(r.total),
            std::cmp::Reverse(r.self_count),
            r.frame,
        )
    });
    out
}

/// For every node of `stacks`: whether its stack holds `frame` (the samples a function
/// appears in, for highlighting them on the timeline).
pub fn stacks_holding(stacks: &CallStacks, frame: FrameId) -> Vec<bool> {
    let mut out = vec![false; stacks.nodes.len()];
    // Parents come before children, so one pass sees a parent's answer first.
    for (i, node) in stacks.nodes.iter().enumerate() {
        let inherited = node.parent.is_some_and(|p| out[p.0 as usize]);
        out[i] = inherited || node.frame == frame;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::stacks::{Frame, StacksBuilder};
    use crate::timeline::strings::StrId;

    fn f(n: u32) -> Frame {
        Frame {
            symbol: StrId(n),
            module: StrId(0),
            unresolved: false,
        }
    }

    /// main → a → b (3 samples), main → a (1), main → c → a (2), no stack (1).
    fn example() -> (CallStacks, StackCounts, [FrameId; 4]) {
        let mut b = StacksBuilder::default();
        let s1 = b.stack([f(1), f(2), f(3)]);
        let s2 = b.stack([f(1), f(2)]);
        let s3 = b.stack([f(1), f(4), f(2)]);
        let stacks = b.finish();
        let ids = [0, 1, 2, 3].map(FrameId);
        let counts = StackCounts {
            stacks: vec![(s1, 3), (s2, 1), (s3, 2), (None, 1)],
            samples: 7,
        };
        (stacks, counts, ids)
    }

    #[test]
    fn top_down_bottom_up_and_flat() {
        let (stacks, counts, [main, a, b, c]) = example();
        let td = CallTree::top_down(&stacks, &counts);
        let root = &td.nodes[0];
        assert_eq!((root.total, root.self_count), (7, 1));
        let m = &td.nodes[root.children[0] as usize];
        assert_eq!((m.frame, m.total, m.self_count), (Some(main), 6, 0));
        let kids: Vec<(Option<FrameId>, u64)> = m
            .children
            .iter()
            .map(|&k| (td.nodes[k as usize].frame, td.nodes[k as usize].total))
            .collect();
        assert_eq!(kids, vec![(Some(a), 4), (Some(c), 2)]);

        let bu = CallTree::bottom_up(&stacks, &counts);
        let leaves: Vec<(Option<FrameId>, u64)> = bu.nodes[0]
            .children
            .iter()
            .map(|&k| (bu.nodes[k as usize].frame, bu.nodes[k as usize].total))
            .collect();
        // Ties in frame order.
        assert_eq!(leaves, vec![(Some(a), 3), (Some(b), 3)]);
        // a's callers: main (1 sample) and c (2).
        let a_node = bu.nodes[0].children[0];
        assert_eq!(bu.path(a_node), vec![a]);
        let callers: Vec<(Option<FrameId>, u64)> = bu.nodes[a_node as usize]
            .children
            .iter()
            .map(|&k| (bu.nodes[k as usize].frame, bu.nodes[k as usize].total))
            .collect();
        assert_eq!(callers, vec![(Some(c), 2), (Some(main), 1)]);

        let rows = flat(&stacks, &counts);
        let find = |fr| rows.iter().find(|r| r.frame == fr).copied();
        assert_eq!(find(main).map(|r| (r.self_count, r.total)), Some((0, 6)));
        assert_eq!(find(a).map(|r| (r.self_count, r.total)), Some((3, 6)));
        assert_eq!(find(b).map(|r| (r.self_count, r.total)), Some((3, 3)));
        assert_eq!(find(c).map(|r| (r.self_count, r.total)), Some((0, 2)));

        let holding = stacks_holding(&stacks, c);
        let with_c: Vec<usize> = (0..holding.len()).filter(|&i| holding[i]).collect();
        // Nodes main→c and main→c→a.
        assert_eq!(with_c.len(), 2);
    }
}
