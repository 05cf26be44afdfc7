//! Events staged per track while a timeline is built: one column per field, as in the
//! finished [`Timeline`](crate::timeline::Timeline) (25 bytes an event; 27 on a track given
//! explicit depths), sorted, laid out in rows and appended to the timeline's columns track by
//! track when the builder finishes — each track's staging freed as soon as it is packed, so
//! that loading never holds much more than one copy of the events.

use std::ops::Range;

use super::NewEvent;
use crate::core::num::{index_u32, saturating_u16};
use crate::timeline::model::{Columns, EventKind, Layout};
use crate::timeline::strings::StrId;

/// A track's events in display order (push indexes) and the row of each.
pub(super) struct LaidOut {
    order: Vec<u32>,
    rows: Vec<u16>,
}

/// The events of one track, in push order.
#[derive(Debug, Default, Clone)]
pub(super) struct StagedTrack {
    start: Vec<i64>,
    /// `end − start`; `u32::MAX` for a longer event, whose duration is in `long`.
    duration: Vec<u32>,
    name: Vec<StrId>,
    correlation: Vec<u32>,
    source: Vec<u32>,
    kind: Vec<EventKind>,
    /// The depth of each event for [`Layout::Explicit`]; empty while every depth pushed is 0.
    depth: Vec<u16>,
    /// How the events are placed in rows.
    pub(super) layout: Layout,
    /// `(push index, duration)` of the events whose duration does not fit in 32 bits, sorted
    /// by push index.
    long: Vec<(u32, u64)>,
}

impl StagedTrack {
    /// Number of events staged.
    pub(super) fn len(&self) -> usize {
        self.start.len()
    }

    /// Room for `additional` more events.
    pub(super) fn reserve(&mut self, additional: usize) {
        self.start.reserve(additional);
        self.duration.reserve(additional);
        self.name.reserve(additional);
        self.correlation.reserve(additional);
        self.source.reserve(additional);
        self.kind.reserve(additional);
    }

    /// Stages `event` ending at `end` (≥ its start); returns its push index.
    pub(super) fn push(&mut self, event: &NewEvent, end: i64) -> u32 {
        let index = index_u32(self.start.len());
        self.start.push(event.start);
        self.duration.push(0);
        self.set_duration(index, end.wrapping_sub(event.start) as u64);
        self.name.push(event.name);
        self.correlation.push(event.correlation);
        self.source.push(event.source);
        self.kind.push(event.kind);
        if event.depth != 0 && self.depth.is_empty() {
            self.depth.resize(index as usize, 0);
        }
        if !self.depth.is_empty() {
            self.depth.push(event.depth);
        }
        index
    }

    /// Moves the end of event `index` to `end` (kept no earlier than its start).
    pub(super) fn set_end(&mut self, index: u32, end: i64) {
        let Some(&start) = self.start.get(index as usize) else {
            return;
        };
        if let Ok(at) = self.long.binary_search_by_key(&index, |&(i, _)| i) {
            self.long.remove(at);
        }
        self.set_duration(index, end.max(start).wrapping_sub(start) as u64);
    }

    fn set_duration(&mut self, index: u32, d: u64) {
        let i = index as usize;
        // Below `u32::MAX` in the column; `u32::MAX` there says "in `long`".
        if let Some(short) = u32::try_from(d).ok().filter(|&d| d < u32::MAX) {
            self.duration[i] = short;
        } else {
            self.duration[i] = u32::MAX;
            let at = self.long.partition_point(|&(j, _)| j < index);
            self.long.insert(at, (index, d));
        }
    }

    fn duration_of(&self, i: usize) -> u64 {
        let d = self.duration[i];
        if d < u32::MAX {
            return u64::from(d);
        }
        self.long
            .binary_search_by_key(&index_u32(i), |&(j, _)| j)
            .map_or(u64::from(u32::MAX), |at| self.long[at].1)
    }

    fn end_of(&self, i: usize) -> i64 {
        self.start[i].saturating_add(self.duration_of(i).min(i64::MAX as u64) as i64)
    }

    /// The start and end of each event, in push order.
    pub(super) fn spans(&self) -> impl Iterator<Item = (i64, i64)> + '_ {
        (0..self.len()).map(|i| (self.start[i], self.end_of(i)))
    }

    /// The earliest start and the latest end of the track's events (`None` when empty).
    pub(super) fn extent(&self) -> Option<(i64, i64)> {
        let first = *self.start.iter().min()?;
        let last = (0..self.len()).map(|i| self.end_of(i)).max()?;
        Some((first, last))
    }

    /// The track reduced for a preview of a large load: time cut in `buckets` of `width` ns
    /// from `origin`, each event counted in the bucket of its start, and each run of buckets
    /// whose events touch or overlap made one event over their extent — of the kind of its
    /// first event, named `name`. At most `buckets` events, whatever the track holds; the
    /// spans never overlap, so they take one row in any layout.
    pub(super) fn sketch(&self, origin: i64, width: i64, buckets: usize, name: StrId) -> Self {
        let mut spans: Vec<Option<(i64, i64, EventKind)>> = vec![None; buckets.max(1)];
        let last = spans.len() as i128 - 1;
        for i in 0..self.len() {
            let (start, end) = (self.start[i], self.end_of(i));
            let b = ((i128::from(start) - i128::from(origin)) / i128::from(width.max(1)))
                .clamp(0, last) as usize;
            let span = spans[b].get_or_insert((start, end, self.kind[i]));
            span.0 = span.0.min(start);
            span.1 = span.1.max(end);
        }
        let mut out = StagedTrack {
            layout: self.layout,
            ..StagedTrack::default()
        };
        let mut open: Option<(i64, i64, EventKind)> = None;
        for span in spans.into_iter().flatten() {
            open = match open {
                Some(o) if span.0 <= o.1 => Some((o.0, o.1.max(span.1), o.2)),
                Some(o) => {
                    out.push(&NewEvent::new(o.2, o.0, o.1, name, 0), o.1);
                    Some(span)
                }
                None => Some(span),
            };
        }
        if let Some(o) = open {
            out.push(&NewEvent::new(o.2, o.0, o.1, name, 0), o.1);
        }
        out
    }

    /// Push indexes in display order: by start, the longest first among equal starts, then
    /// in push order.
    fn sorted(&self) -> Vec<u32> {
        // Tables are mostly written in time order: then push order is display order, found
        // without sorting (nor 16 bytes an event of sort keys).
        let key = |i: usize| (self.start[i], !self.duration[i]);
        if self.long.is_empty() && (1..self.len()).all(|i| key(i - 1) <= key(i)) {
            return (0..index_u32(self.len())).collect();
        }
        let mut keys: Vec<(i64, u32, u32)> = (0..self.len())
            .map(|i| (self.start[i], !self.duration[i], index_u32(i)))
            .collect();
        keys.sort_unstable();
        if !self.long.is_empty() {
            // Events past 32 bits of duration that start together: by their whole duration.
            let mut from = 0;
            while from < keys.len() {
                let (start, d, _) = keys[from];
                let to = from + keys[from..].partition_point(|k| k.0 == start && k.1 == d);
                if d == 0 && to - from > 1 {
                    keys[from..to].sort_by(|a, b| {
                        let (a, b) = (a.2 as usize, b.2 as usize);
                        self.duration_of(b)
                            .cmp(&self.duration_of(a))
                            .then(a.cmp(&b))
                    });
                }
                from = to;
            }
        }
        // A new, smaller vector (collecting in place would keep the keys' 16 bytes an event).
        let mut order = Vec::with_capacity(keys.len());
        order.extend(keys.iter().map(|&(_, _, i)| i));
        order
    }

    /// The row of each event of `order`, such that no two spans of one row overlap.
    fn assign_rows(&self, order: &[u32]) -> Vec<u16> {
        let mut rows = Vec::with_capacity(order.len());
        // End of the last span placed in each row.
        let mut row_end: Vec<i64> = Vec::new();
        match self.layout {
            Layout::Nested => {
                // Ends of the spans still open, outermost first.
                let mut open: Vec<i64> = Vec::new();
                for &i in order {
                    let i = i as usize;
                    while open.last().is_some_and(|&end| end <= self.start[i]) {
                        open.pop();
                    }
                    rows.push(saturating_u16(open.len()));
                    open.push(self.end_of(i));
                }
            }
            Layout::Counter => rows.resize(order.len(), 0),
            Layout::Lanes => {
                for &i in order {
                    let i = i as usize;
                    let lane = match row_end.iter().position(|&end| end <= self.start[i]) {
                        Some(l) => l,
                        None => {
                            row_end.push(i64::MIN);
                            row_end.len() - 1
                        }
                    };
                    row_end[lane] = self.end_of(i);
                    rows.push(saturating_u16(lane));
                }
            }
            Layout::Explicit => {
                for &i in order {
                    let i = i as usize;
                    let mut d = self.depth.get(i).copied().unwrap_or(0) as usize;
                    while d < row_end.len() && row_end[d] > self.start[i] {
                        d += 1;
                    }
                    if d >= row_end.len() {
                        row_end.resize(d + 1, i64::MIN);
                    }
                    row_end[d] = self.end_of(i);
                    rows.push(saturating_u16(d));
                }
            }
        }
        rows
    }

    /// The events in display order and the row of each ([`StagedTrack::pack`]'s first half,
    /// which needs only to read the staging).
    pub(super) fn laid_out(&self) -> LaidOut {
        let order = self.sorted();
        let rows = self.assign_rows(&order);
        LaidOut { order, rows }
    }

    /// Whether the events are already in display order and all on the first row (a stream's
    /// kernels, a thread's calls: most large tracks), so that [`StagedTrack::pack_in_order`]
    /// can append them as they are.
    pub(super) fn in_order_on_one_row(&self) -> bool {
        if self.len() == 0 || !self.long.is_empty() || self.depth.iter().any(|&d| d != 0) {
            return false;
        }
        let key = |i: usize| (self.start[i], !self.duration[i]);
        let counter = self.layout == Layout::Counter;
        (1..self.len())
            .all(|i| key(i - 1) <= key(i) && (counter || self.end_of(i - 1) <= self.start[i]))
    }

    /// Appends the events of a track [`StagedTrack::in_order_on_one_row`] to `columns` as they
    /// are, freeing each staged column once appended (no order, row or position tables): the
    /// one row, as a range of `columns`. Event `i` is at the range's start + `i`.
    pub(super) fn pack_in_order(mut self, columns: &mut Columns) -> Range<u32> {
        let first = index_u32(columns.start.len());
        let n = index_u32(self.len());
        for &start in &std::mem::take(&mut self.start) {
            columns.start.push(start);
        }
        columns
            .duration
            .extend_from_slice(&std::mem::take(&mut self.duration));
        columns
            .name
            .extend_from_slice(&std::mem::take(&mut self.name));
        for &c in &std::mem::take(&mut self.correlation) {
            columns.correlation.push(c);
        }
        for &s in &std::mem::take(&mut self.source) {
            columns.source.push(s);
        }
        columns.kind.extend_from_slice(&self.kind);
        first..first + n
    }

    /// Appends the events laid out by [`StagedTrack::laid_out`] to `columns`, freeing the
    /// staging: returns the rows (ranges of `columns`, top to bottom) and the final position
    /// of each event by push index.
    pub(super) fn pack(
        self,
        columns: &mut Columns,
        laid_out: LaidOut,
    ) -> (Vec<Range<u32>>, Vec<u32>) {
        let LaidOut { order, rows } = laid_out;
        let row_count = rows.iter().copied().max().map_or(0, |m| m as usize + 1);
        // Counting sort by row keeps start order within each row.
        let mut row_len = vec![0u32; row_count];
        for &r in &rows {
            row_len[r as usize] += 1;
        }
        let mut cursor = Vec::with_capacity(row_count);
        let mut acc = index_u32(columns.start.len());
        for &n in &row_len {
            cursor.push(acc);
            acc += n;
        }
        let ranges = cursor
            .iter()
            .zip(&row_len)
            .map(|(&s, &n)| s..s + n)
            .collect();
        extend_zeroed(columns, order.len());
        let first = columns.start.len();
        let mut map = vec![0u32; order.len()];
        // The staged event at each position, for the columns that are appended in position
        // order (packed in blocks, see `blocked.rs`).
        let mut at = vec![0u32; order.len()];
        for (&i, &r) in order.iter().zip(&rows) {
            let pos = cursor[r as usize];
            cursor[r as usize] += 1;
            at[pos as usize - first] = i;
            let i = i as usize;
            map[i] = pos;
            let p = pos as usize;
            let d = self.duration_of(i);
            if let Some(short) = u32::try_from(d).ok().filter(|&d| d < u32::MAX) {
                columns.duration[p] = short;
            } else {
                columns.duration[p] = u32::MAX;
                columns.long_durations.push((pos, d));
            }
            columns.name[p] = self.name[i];
            columns.kind[p] = self.kind[i];
        }
        for &i in &at {
            let i = i as usize;
            columns.start.push(self.start[i]);
            columns.correlation.push(self.correlation[i]);
            columns.source.push(self.source[i]);
        }
        (ranges, map)
    }
}

/// Extends the columns written by position (all but the blocked ones, which `pack` appends in
/// position order) by `n` zeroes.
fn extend_zeroed(c: &mut Columns, n: usize) {
    let len = c.duration.len() + n;
    c.duration.resize(len, 0);
    c.name.resize(len, StrId(0));
    c.kind.resize(len, EventKind::Marker);
}
