//! The items of each drawn row, kept while the view and the timeline stay the same: a still
//! view (the pointer moving, a tooltip, an idle repaint) draws from them without walking the
//! rows again — at 10⁸ events that walk is most of a zoomed-out frame. Rows not drawn in a
//! frame are forgotten at the next.

use std::collections::HashMap;

use sightline_model::timeline::{Timeline, TrackId, VisibleItem};

/// What a row's items were computed for.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Key {
    /// The timeline's address, event count and time range: a timeline replaced (a preview by
    /// more, a merge moved) changes at least one of them.
    timeline: usize,
    events: usize,
    span: Option<(i64, i64)>,
    t0: i64,
    t1: i64,
    ns_per_bucket: u64,
}

/// A row's items and when they were last drawn.
#[derive(Debug, Default)]
struct Entry {
    key: Option<Key>,
    items: Vec<VisibleItem>,
    frame: u64,
}

/// The items of the rows drawn lately (see the module documentation).
#[derive(Debug, Default)]
pub(super) struct RowCache {
    rows: HashMap<(TrackId, usize), Entry>,
    frame: u64,
}

impl RowCache {
    /// Starts a frame: forgets the rows the previous frame did not draw.
    pub fn begin_frame(&mut self) {
        let last = self.frame;
        self.rows.retain(|_, e| e.frame >= last);
        self.frame += 1;
    }

    /// The items of row `row` of `track` in `[t0, t1]` at `ns_per_bucket` ([`Timeline::visible`]),
    /// computed again only when something they depend on changed. Give them back with
    /// [`RowCache::keep`].
    pub fn take(
        &mut self,
        timeline: &Timeline,
        (track, row): (TrackId, usize),
        (t0, t1): (i64, i64),
        ns_per_bucket: f64,
    ) -> Vec<VisibleItem> {
        let key = Key {
            timeline: std::ptr::from_ref(timeline) as usize,
            events: timeline.event_count(),
            span: timeline.time_range(),
            t0,
            t1,
            ns_per_bucket: ns_per_bucket.to_bits(),
        };
        let entry = self.rows.entry((track, row)).or_default();
        entry.frame = self.frame;
        let mut items = std::mem::take(&mut entry.items);
        if entry.key != Some(key) {
            items.clear();
            timeline.visible(track, row, t0, t1, ns_per_bucket, &mut items);
            entry.key = Some(key);
        }
        items
    }

    /// Gives back the items [`RowCache::take`] gave.
    pub fn keep(&mut self, track: TrackId, row: usize, items: Vec<VisibleItem>) {
        if let Some(entry) = self.rows.get_mut(&(track, row)) {
            entry.items = items;
        }
    }
}
