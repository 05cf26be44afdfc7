//! What both writers share: which events of a row a range keeps, whether a track's rows nest
//! (so they can share one output track), the order that opens and closes nested slices, and
//! the flows that start or end at an event.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::ops::Range;

use crate::core::num::index_u32;
use crate::timeline::query::partition;
use crate::timeline::{Layout, Timeline, Track, TrackId, TrackKind};

/// How a track's rows go out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// No event to write.
    Empty,
    /// Every row on the track itself (one row, or rows that nest properly).
    Together,
    /// Row 0 on the track, every other row on a child track of its own (lanes of
    /// overlapping work, or ranges that do not nest).
    Lanes,
    /// A counter: its events are values.
    Counter,
}

/// One step of the walk over properly nested rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The slice at this column index begins.
    Begin(u32),
    /// The innermost open slice (this column index) ends.
    End(u32),
    /// A zero-length event.
    Instant(u32),
}

/// The column indices of `row` whose events overlap `range` (all of them without one). A row
/// is sorted by start and its spans do not overlap, so its ends are sorted too.
pub fn row_span(tl: &Timeline, row: &Range<u32>, range: Option<(i64, i64)>) -> Range<u32> {
    let Some((from, to)) = range else {
        return row.clone();
    };
    let len = row.len();
    let first = partition(0, len, |k| tl.end_of(row.start as usize + k) < from);
    let last = partition(0, len, |k| tl.start_of(row.start as usize + k) <= to);
    let first = first.min(last);
    // first ≤ last ≤ the row's length, a u32.
    (row.start + index_u32(first))..(row.start + index_u32(last))
}

/// The rows of `track` cut to `range`.
pub fn spans(tl: &Timeline, track: &Track, range: Option<(i64, i64)>) -> Vec<Range<u32>> {
    track.rows.iter().map(|r| row_span(tl, r, range)).collect()
}

/// How `track`'s rows (already cut to the range: `rows`) go out.
pub fn placement(tl: &Timeline, track: &Track, rows: &[Range<u32>]) -> Placement {
    let non_empty = rows.iter().filter(|r| !r.is_empty()).count();
    if non_empty == 0 {
        Placement::Empty
    } else if track.layout == Layout::Counter {
        Placement::Counter
    } else if rows.len() == 1 {
        Placement::Together
    } else if track.layout == Layout::Lanes {
        Placement::Lanes
    } else {
        match walk_nested::<()>(tl, rows, |_| Ok(())) {
            Ok(true) => Placement::Together,
            _ => Placement::Lanes,
        }
    }
}

/// Walks the events of `rows` in start order (a shallower row first at equal starts), calling
/// `step` with each slice's begin and end in an order that keeps them nested. Returns
/// `Ok(false)` (and stops) at the first slice that would outlast the one enclosing it.
pub fn walk_nested<E>(
    tl: &Timeline,
    rows: &[Range<u32>],
    mut step: impl FnMut(Step) -> Result<(), E>,
) -> Result<bool, E> {
    let mut heads: BinaryHeap<Reverse<(i64, usize, u32)>> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| !r.is_empty())
        .map(|(d, r)| Reverse((tl.start_of(r.start as usize), d, r.start)))
        .collect();
    let mut open: Vec<(i64, u32)> = Vec::new();
    while let Some(Reverse((start, d, i))) = heads.pop() {
        if i + 1 < rows[d].end {
            heads.push(Reverse((tl.start_of(i as usize + 1), d, i + 1)));
        }
        while let Some(&(end, j)) = open.last() {
            if end > start {
                break;
            }
            step(Step::End(j))?;
            open.pop();
        }
        let end = tl.end_of(i as usize);
        if end == start {
            step(Step::Instant(i))?;
            continue;
        }
        if open.last().is_some_and(|&(outer, _)| end > outer) {
            return Ok(false);
        }
        step(Step::Begin(i))?;
        open.push((end, i));
    }
    while let Some((_, j)) = open.pop() {
        step(Step::End(j))?;
    }
    Ok(true)
}

/// Whether event `i` overlaps `range` (every event without one).
pub fn in_range(tl: &Timeline, i: u32, range: Option<(i64, i64)>) -> bool {
    match range {
        None => true,
        Some((from, to)) => tl.start_of(i as usize) <= to && tl.end_of(i as usize) >= from,
    }
}

/// Where each event's flows are: offsets into [`Timeline::flows`] (sorted by call) and into its
/// order by work, one per event plus one (8 bytes per event, built once in O(events + flows);
/// empty when the timeline has no flows).
pub struct FlowIndex {
    from: Vec<u32>,
    to: Vec<u32>,
    /// Indices into [`Timeline::flows`] sorted by called event (ranges of it: `to`).
    by_to: Vec<u32>,
}

impl FlowIndex {
    /// The index of `tl`'s flows.
    pub fn new(tl: &Timeline) -> FlowIndex {
        if tl.flows.is_empty() {
            return FlowIndex {
                from: Vec::new(),
                to: Vec::new(),
                by_to: Vec::new(),
            };
        }
        let offsets = |ends: &mut dyn Iterator<Item = u32>| {
            let mut v = vec![0u32; tl.event_count() + 1];
            for e in ends {
                if let Some(c) = v.get_mut(e as usize + 1) {
                    *c += 1;
                }
            }
            for i in 1..v.len() {
                v[i] += v[i - 1];
            }
            v
        };
        let from = offsets(&mut tl.flows.iter().map(|f| f.from.0));
        let to = offsets(&mut tl.flows.iter().map(|f| f.to.0));
        // The flows by called event, by a counting sort on the offsets just made.
        let mut next = to.clone();
        let mut by_to = vec![0u32; tl.flows.len()];
        for (k, f) in tl.flows.iter().enumerate() {
            let slot = &mut next[f.to.0 as usize];
            by_to[*slot as usize] = index_u32(k);
            *slot += 1;
        }
        FlowIndex { from, to, by_to }
    }

    /// The ids (index in [`Timeline::flows`] + 1) of the flows that start at event `i` and
    /// whose work is exported too.
    pub fn from(&self, tl: &Timeline, i: u32, range: Option<(i64, i64)>, out: &mut Vec<u64>) {
        out.clear();
        let i = i as usize;
        let (Some(&a), Some(&b)) = (self.from.get(i), self.from.get(i + 1)) else {
            return;
        };
        for k in a..b {
            if in_range(tl, tl.flows[k as usize].to.0, range) {
                out.push(u64::from(k) + 1);
            }
        }
    }

    /// The ids of the flows that end at event `i` and whose call is exported too.
    pub fn to(&self, tl: &Timeline, i: u32, range: Option<(i64, i64)>, out: &mut Vec<u64>) {
        out.clear();
        let i = i as usize;
        let (Some(&a), Some(&b)) = (self.to.get(i), self.to.get(i + 1)) else {
            return;
        };
        for m in a..b {
            let k = self.by_to[m as usize];
            if in_range(tl, tl.flows[k as usize].from.0, range) {
                out.push(u64::from(k) + 1);
            }
        }
    }
}

/// The nearest track at or above `track` of kind `kind`.
pub fn ancestor(tl: &Timeline, track: TrackId, kind: TrackKind) -> Option<TrackId> {
    let mut cur = Some(track);
    while let Some(id) = cur {
        let t = tl.track(id)?;
        if t.kind == kind {
            return Some(id);
        }
        cur = t.parent;
    }
    None
}
