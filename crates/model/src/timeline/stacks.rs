//! Call stacks, interned as a tree: every distinct frame (module, symbol) is stored once, and
//! every stack is a node of a prefix tree from the outermost frame inward, so stacks that share
//! their outer frames share their nodes. A stack is named by its innermost node ([`StackId`]);
//! walking parents gives its frames from the innermost (the sampled instruction, the function
//! that made the call) out to the thread's entry point.

use rustc_hash::FxHashMap;

use super::strings::StrId;
use crate::core::num::index_u32;

/// A stack: the index of its innermost node in [`CallStacks`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StackId(pub u32);

/// A frame's index in `CallStacks::frames`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FrameId(pub u32);

/// One frame of a call stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Frame {
    /// The function (or, when unresolved, the address as the export wrote it).
    pub symbol: StrId,
    /// The module (library or executable) the address belongs to.
    pub module: StrId,
    /// The export could not resolve the address to a symbol.
    pub unresolved: bool,
}

/// A node of the stack tree: a frame called from its parent node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StackNode {
    /// The frame.
    pub frame: FrameId,
    /// The calling node (`None` for an outermost frame).
    pub parent: Option<StackId>,
}

/// Every call stack of a timeline.
#[derive(Debug, Clone, Default)]
pub struct CallStacks {
    /// Distinct frames.
    pub frames: Vec<Frame>,
    /// Nodes of the prefix tree, parents before children.
    pub nodes: Vec<StackNode>,
}

impl CallStacks {
    /// The node of `stack`.
    pub fn node(&self, stack: StackId) -> Option<&StackNode> {
        self.nodes.get(stack.0 as usize)
    }

    /// The frame `id`.
    pub fn frame(&self, id: FrameId) -> Option<&Frame> {
        self.frames.get(id.0 as usize)
    }

    /// The frames of `stack`, innermost first.
    pub fn frames_of(&self, stack: StackId) -> impl Iterator<Item = &Frame> + '_ {
        let mut next = Some(stack);
        std::iter::from_fn(move || {
            let node = self.node(next?)?;
            next = node.parent;
            self.frame(node.frame)
        })
    }

    /// How many frames `stack` has.
    pub fn depth(&self, stack: StackId) -> usize {
        self.frames_of(stack).count()
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.frames.capacity() * std::mem::size_of::<Frame>()
            + self.nodes.capacity() * std::mem::size_of::<StackNode>()
    }
}

/// Builds [`CallStacks`], interning frames and nodes.
#[derive(Debug, Clone, Default)]
pub struct StacksBuilder {
    stacks: CallStacks,
    // Fx: two lookups per frame of every sample's stack (132 M frames at the scale benchmark);
    // the keys are small ids the loader made, not text.
    frame_ids: FxHashMap<Frame, FrameId>,
    node_ids: FxHashMap<(Option<StackId>, FrameId), StackId>,
}

impl StacksBuilder {
    /// The id of `frame`, interned.
    pub fn frame(&mut self, frame: Frame) -> FrameId {
        let next = FrameId(index_u32(self.stacks.frames.len()));
        *self.frame_ids.entry(frame).or_insert_with(|| {
            self.stacks.frames.push(frame);
            next
        })
    }

    /// The stack of `frame` called from `parent`, interned.
    pub fn push(&mut self, parent: Option<StackId>, frame: FrameId) -> StackId {
        let next = StackId(index_u32(self.stacks.nodes.len()));
        *self.node_ids.entry((parent, frame)).or_insert_with(|| {
            self.stacks.nodes.push(StackNode { frame, parent });
            next
        })
    }

    /// The stack of `frames` given outermost first (`None` when there are none).
    pub fn stack(&mut self, frames: impl IntoIterator<Item = Frame>) -> Option<StackId> {
        let mut node = None;
        for frame in frames {
            let id = self.frame(frame);
            node = Some(self.push(node, id));
        }
        node
    }

    /// The symbol of the innermost frame of `stack`.
    pub fn innermost_symbol(&self, stack: StackId) -> Option<StrId> {
        let node = self.stacks.node(stack)?;
        Some(self.stacks.frame(node.frame)?.symbol)
    }

    /// The stacks built.
    pub fn finish(self) -> CallStacks {
        self.stacks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(n: u32) -> Frame {
        Frame {
            symbol: StrId(n),
            module: StrId(100),
            unresolved: false,
        }
    }

    #[test]
    fn stacks_share_their_outer_frames() {
        let mut b = StacksBuilder::default();
        let a = b.stack([frame(1), frame(2), frame(3)]).unwrap();
        let c = b.stack([frame(1), frame(2), frame(4)]).unwrap();
        let same = b.stack([frame(1), frame(2), frame(3)]).unwrap();
        assert_eq!(a, same);
        assert_ne!(a, c);
        assert!(b.stack([]).is_none());
        let stacks = b.finish();
        assert_eq!(stacks.nodes.len(), 4);
        assert_eq!(stacks.frames.len(), 4);
        let inner_first: Vec<u32> = stacks.frames_of(c).map(|f| f.symbol.0).collect();
        assert_eq!(inner_first, vec![4, 2, 1]);
        assert_eq!(stacks.depth(a), 3);
    }
}
