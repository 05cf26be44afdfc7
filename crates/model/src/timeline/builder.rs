//! [`TimelineBuilder`]: the one way events get onto a [`Timeline`].
//!
//! Loaders create tracks, push events in any order, attach attributes and flows by the
//! [`EventRef`] a push returns, then call [`TimelineBuilder::finish`], which sorts each track by
//! start, lays its events out in rows (see [`Layout`]) and packs everything into the columns.

use std::collections::HashMap;
use std::path::PathBuf;

use super::model::{
    Columns, EventAttrs, EventId, EventKind, Flow, Layout, SessionInfo, Timeline, Track, TrackId,
    TrackKind,
};
use super::strings::{StrId, StringTable};
use crate::problem::{FileProblem, Location, Problem};

/// A pushed event, valid until [`TimelineBuilder::finish`] (which maps it to an [`EventId`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventRef {
    track: u32,
    index: u32,
}

/// One event to push.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewEvent {
    /// What it is.
    pub kind: EventKind,
    /// Start (ns from session start).
    pub start: i64,
    /// End (ns); `end == start` for instants; an `end` before `start` is clamped (with a warning).
    pub end: i64,
    /// Interned name ([`TimelineBuilder::intern`]).
    pub name: StrId,
    /// Correlation id (0 = none).
    pub correlation: u32,
    /// Position of the record in the source (SQLite rowid, line number...), for details on demand.
    pub source: u32,
    /// Depth for [`Layout::Explicit`] tracks (ignored otherwise).
    pub depth: u16,
}

impl NewEvent {
    /// An event of `kind` from `start` to `end`, named `name`, from record `source`: without a
    /// correlation id, at depth 0 (set those with `NewEvent { correlation, ..NewEvent::new(..) }`).
    pub fn new(kind: EventKind, start: i64, end: i64, name: StrId, source: u32) -> NewEvent {
        NewEvent {
            kind,
            start,
            end,
            name,
            correlation: 0,
            source,
            depth: 0,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Staged {
    start: i64,
    /// `end − start`; `u32::MAX` for a longer event, whose duration is in
    /// [`StagedTrack::long`] (32 bytes an event staged, not 40).
    duration: u32,
    name: StrId,
    correlation: u32,
    source: u32,
    index: u32,
    depth: u16,
    kind: EventKind,
}

#[derive(Debug, Default)]
struct StagedTrack {
    events: Vec<Staged>,
    layout: Layout,
    /// `(push index, duration)` of the events whose duration does not fit in 32 bits, in push
    /// order.
    long: Vec<(u32, u64)>,
}

impl StagedTrack {
    /// Stages an event (`end ≥ start`); returns its push index.
    fn stage(&mut self, mut event: Staged, end: i64) -> u32 {
        let index = self.events.len() as u32;
        let d = end.wrapping_sub(event.start) as u64;
        if d >= u64::from(u32::MAX) {
            event.duration = u32::MAX;
            self.long.push((index, d));
        } else {
            event.duration = d as u32;
        }
        event.index = index;
        self.events.push(event);
        index
    }
}

/// The duration of a staged event.
fn duration_of(e: &Staged, long: &[(u32, u64)]) -> u64 {
    if e.duration < u32::MAX {
        return u64::from(e.duration);
    }
    long.binary_search_by_key(&e.index, |&(i, _)| i)
        .map_or(u64::from(u32::MAX), |at| long[at].1)
}

/// The end of a staged event.
fn end_of(e: &Staged, long: &[(u32, u64)]) -> i64 {
    e.start
        .saturating_add(duration_of(e, long).min(i64::MAX as u64) as i64)
}

/// Collects tracks and events, then packs them into a [`Timeline`].
#[derive(Debug, Default)]
pub struct TimelineBuilder {
    source: PathBuf,
    strings: StringTable,
    tracks: Vec<Track>,
    staged: Vec<StagedTrack>,
    roots: Vec<TrackId>,
    children_by_key: HashMap<(Option<TrackId>, TrackKind, u64), TrackId>,
    flows: Vec<(EventRef, EventRef)>,
    attrs: Vec<(EventRef, EventAttrs)>,
    warnings: Vec<FileProblem>,
    clamped: usize,
    /// Session facts, filled in by the loader.
    pub session: SessionInfo,
    /// Call stacks, filled in by the loader.
    pub stacks: super::stacks::CallStacks,
}

impl TimelineBuilder {
    /// A builder for a timeline read from `source`.
    pub fn new(source: impl Into<PathBuf>) -> Self {
        TimelineBuilder {
            source: source.into(),
            strings: StringTable::new(),
            ..Default::default()
        }
    }

    /// Interns `text` and returns its id.
    pub fn intern(&mut self, text: &str) -> StrId {
        self.strings.intern(text)
    }

    /// Exchanges the string table with `strings` (to intern more names into a finished
    /// timeline's table).
    pub(crate) fn swap_strings(&mut self, strings: &mut StringTable) {
        std::mem::swap(&mut self.strings, strings);
    }

    /// Takes the problems recorded so far.
    pub(crate) fn take_warnings(&mut self) -> Vec<FileProblem> {
        std::mem::take(&mut self.warnings)
    }

    /// The string table built so far.
    pub fn strings(&self) -> &StringTable {
        &self.strings
    }

    /// The track `(parent, kind, key)`, created with `name` if it does not exist yet (children
    /// keep the order in which they were first asked for).
    pub fn track(
        &mut self,
        parent: Option<TrackId>,
        kind: TrackKind,
        key: u64,
        name: impl FnOnce() -> String,
    ) -> TrackId {
        if let Some(&id) = self.children_by_key.get(&(parent, kind, key)) {
            return id;
        }
        let id = TrackId(self.tracks.len() as u32);
        self.tracks.push(Track {
            name: name(),
            kind,
            key,
            parent,
            children: Vec::new(),
            rows: Vec::new(),
            layout: Layout::default(),
        });
        self.staged.push(StagedTrack::default());
        match parent.and_then(|p| self.tracks.get_mut(p.0 as usize)) {
            Some(p) => p.children.push(id),
            None => self.roots.push(id),
        }
        self.children_by_key.insert((parent, kind, key), id);
        id
    }

    /// Renames a track (e.g. when a thread's name is learned after its events).
    pub fn rename(&mut self, track: TrackId, name: String) {
        if let Some(t) = self.tracks.get_mut(track.0 as usize) {
            t.name = name;
        }
    }

    /// Orders every node's children (and the roots) by kind — series, processes, threads,
    /// GPUs, contexts, streams, queues — then by key (pid, tid, device, stream id...), instead of
    /// the order in which they were first asked for.
    pub fn sort_children_by_key(&mut self) {
        let rank = |k: TrackKind| match k {
            TrackKind::Series => 0,
            TrackKind::Machine => 1,
            TrackKind::Process => 2,
            TrackKind::Thread => 3,
            TrackKind::Gpu => 4,
            TrackKind::Context => 5,
            TrackKind::Stream => 6,
            TrackKind::Queue => 7,
            TrackKind::File => 8,
        };
        let keys: Vec<(u8, u64)> = self.tracks.iter().map(|t| (rank(t.kind), t.key)).collect();
        let by_key = |a: &TrackId| keys.get(a.0 as usize).copied().unwrap_or_default();
        for t in &mut self.tracks {
            t.children.sort_by_key(by_key);
        }
        self.roots.sort_by_key(by_key);
    }

    /// Sets how a track's events are placed in rows (default [`Layout::Nested`]).
    pub fn set_layout(&mut self, track: TrackId, layout: Layout) {
        if let Some(s) = self.staged.get_mut(track.0 as usize) {
            s.layout = layout;
        }
        if let Some(t) = self.tracks.get_mut(track.0 as usize) {
            t.layout = layout;
        }
    }

    /// Reopens a finished timeline to add more (e.g. the NVTXT files beside an export): tracks,
    /// events (re-laid out with each track's layout), flows, attributes, warnings and session
    /// facts carry over; event ids change at the next [`TimelineBuilder::finish`].
    pub fn from_timeline(timeline: Timeline) -> TimelineBuilder {
        let mut b = TimelineBuilder {
            source: timeline.source.clone(),
            strings: timeline.strings.clone(),
            roots: timeline.roots.clone(),
            warnings: timeline.warnings.clone(),
            session: timeline.session.clone(),
            stacks: timeline.stacks.clone(),
            ..Default::default()
        };
        let mut refs: Vec<EventRef> = Vec::with_capacity(timeline.event_count());
        refs.resize(timeline.event_count(), EventRef { track: 0, index: 0 });
        for (t, track) in timeline.tracks.iter().enumerate() {
            let id = TrackId(t as u32);
            b.children_by_key
                .insert((track.parent, track.kind, track.key), id);
            let mut staged = StagedTrack {
                events: Vec::with_capacity(track.event_count()),
                layout: track.layout,
                long: Vec::new(),
            };
            for (depth, row) in track.rows.iter().enumerate() {
                for i in row.clone() {
                    let Some(e) = timeline.event(EventId(i)) else {
                        continue;
                    };
                    let index = staged.stage(
                        Staged {
                            start: e.start,
                            duration: 0,
                            name: e.name,
                            correlation: e.correlation,
                            source: e.source,
                            index: 0,
                            depth: depth.min(u16::MAX as usize) as u16,
                            kind: e.kind,
                        },
                        e.end,
                    );
                    refs[i as usize] = EventRef {
                        track: t as u32,
                        index,
                    };
                }
            }
            b.staged.push(staged);
            let mut track = track.clone();
            track.rows.clear();
            b.tracks.push(track);
        }
        let get = |id: EventId| refs.get(id.0 as usize).copied();
        for f in &timeline.flows {
            if let (Some(a), Some(c)) = (get(f.from), get(f.to)) {
                b.flows.push((a, c));
            }
        }
        for &(e, set) in &timeline.attrs {
            if let (Some(r), Some(a)) = (get(e), timeline.attr_sets.get(set as usize)) {
                b.attrs.push((r, a.clone()));
            }
        }
        for (&e, &queued) in timeline.wait_ids.iter().zip(&timeline.queued_ns) {
            if let Some(r) = get(e) {
                b.attrs.push((
                    r,
                    EventAttrs {
                        queued_ns: Some(queued),
                        ..EventAttrs::default()
                    },
                ));
            }
        }
        b
    }

    /// Records a problem found in another file than the builder's source (e.g. an NVTXT file
    /// merged onto an export's timeline).
    pub fn warn_file(
        &mut self,
        file: impl Into<PathBuf>,
        location: Location,
        message: impl Into<String>,
    ) {
        self.problem_in_file(file, Problem::warning(location, message));
    }

    /// Records a problem (an error: part of that file did not load, or a warning) in another
    /// file than the builder's source.
    pub fn problem_in_file(&mut self, file: impl Into<PathBuf>, problem: Problem) {
        self.warnings.push(FileProblem::new(file, problem));
    }

    /// Pre-allocates room for `additional` events on `track`.
    pub fn reserve(&mut self, track: TrackId, additional: usize) {
        if let Some(s) = self.staged.get_mut(track.0 as usize) {
            s.events.reserve(additional);
        }
    }

    /// Adds an event to `track` (a track id this builder returned).
    pub fn push(&mut self, track: TrackId, event: NewEvent) -> EventRef {
        let end = if event.end < event.start {
            self.clamped += 1;
            event.start
        } else {
            event.end
        };
        let index = self.staged[track.0 as usize].stage(
            Staged {
                start: event.start,
                duration: 0,
                name: event.name,
                correlation: event.correlation,
                source: event.source,
                index: 0,
                depth: event.depth,
                kind: event.kind,
            },
            end,
        );
        EventRef {
            track: track.0,
            index,
        }
    }

    /// Attaches attributes to a pushed event.
    pub fn set_attrs(&mut self, event: EventRef, attrs: EventAttrs) {
        if attrs != EventAttrs::default() {
            self.attrs.push((event, attrs));
        }
    }

    /// Links a call to the work it caused.
    pub fn add_flow(&mut self, from: EventRef, to: EventRef) {
        self.flows.push((from, to));
    }

    /// Links calls to work by key (e.g. `(process, correlation id)` folded into a `u64`):
    /// each work item gets a flow from the call with the same key. Keys with several calls use
    /// the first one pushed. Returns how many work items found no call.
    pub fn link_by_key(
        &mut self,
        mut calls: Vec<(u128, EventRef)>,
        work: &[(u128, EventRef)],
    ) -> usize {
        calls.sort_unstable();
        calls.dedup_by_key(|(k, _)| *k);
        let mut unmatched = 0;
        for &(key, to) in work {
            match calls.binary_search_by_key(&key, |&(k, _)| k) {
                Ok(i) => self.flows.push((calls[i].1, to)),
                Err(_) => unmatched += 1,
            }
        }
        unmatched
    }

    /// Records a problem worked around while loading.
    pub fn warn(&mut self, location: Location, message: impl Into<String>) {
        self.warnings.push(FileProblem::new(
            self.source.clone(),
            Problem::warning(location, message),
        ));
    }

    /// Number of events pushed so far.
    pub fn event_count(&self) -> usize {
        self.staged.iter().map(|s| s.events.len()).sum()
    }

    /// Sorts, lays out and packs everything into a [`Timeline`].
    pub fn finish(mut self) -> Timeline {
        if self.clamped > 0 {
            let n = self.clamped;
            self.warn(
                Location::Part("events".into()),
                format!("{n} events ended before they started; shown as instants"),
            );
        }
        let total = self.event_count();
        let mut columns = Columns {
            start: Vec::with_capacity(total),
            duration: Vec::with_capacity(total),
            name: Vec::with_capacity(total),
            correlation: Vec::with_capacity(total),
            source: Vec::with_capacity(total),
            kind: Vec::with_capacity(total),
            long_durations: Vec::new(),
        };
        // Final position of each staged event, per track, indexed by its push index.
        let mut remap: Vec<Vec<u32>> = Vec::with_capacity(self.staged.len());
        let order = track_order(&self.tracks, &self.roots);
        remap.resize_with(self.staged.len(), Vec::new);
        for &t in &order {
            let staged = std::mem::take(&mut self.staged[t]);
            let mut events = staged.events;
            let long = staged.long;
            events.sort_unstable_by(|a, b| {
                a.start
                    .cmp(&b.start)
                    .then(duration_of(b, &long).cmp(&duration_of(a, &long)))
            });
            let rows = assign_rows(&events, staged.layout, &long);
            let row_count = rows.iter().copied().max().map_or(0, |m| m as usize + 1);
            // Counting sort by row keeps start order within each row.
            let mut row_len = vec![0u32; row_count];
            for &r in &rows {
                row_len[r as usize] += 1;
            }
            let base = columns.start.len() as u32;
            let mut row_start = Vec::with_capacity(row_count);
            let mut acc = base;
            for &n in &row_len {
                row_start.push(acc);
                acc += n;
            }
            self.tracks[t].rows = row_start
                .iter()
                .zip(&row_len)
                .map(|(&s, &n)| s..s + n)
                .collect();
            let mut map = vec![0u32; events.len()];
            let mut cursor = row_start.clone();
            let n = events.len();
            extend_zeroed(&mut columns, n);
            for (e, &r) in events.iter().zip(&rows) {
                let pos = cursor[r as usize];
                cursor[r as usize] += 1;
                map[e.index as usize] = pos;
                let p = pos as usize;
                columns.start[p] = e.start;
                let d = duration_of(e, &long);
                if d >= u64::from(u32::MAX) {
                    columns.duration[p] = u32::MAX;
                    columns.long_durations.push((pos, d));
                } else {
                    columns.duration[p] = d as u32;
                }
                columns.name[p] = e.name;
                columns.correlation[p] = e.correlation;
                columns.source[p] = e.source;
                columns.kind[p] = e.kind;
            }
            remap[t] = map;
        }
        columns.long_durations.sort_unstable();
        columns.long_durations.shrink_to_fit();
        let resolve = |r: EventRef| -> Option<EventId> {
            remap
                .get(r.track as usize)
                .and_then(|m| m.get(r.index as usize))
                .map(|&p| EventId(p))
        };
        let mut flows: Vec<Flow> = self
            .flows
            .iter()
            .filter_map(|&(a, b)| {
                Some(Flow {
                    from: resolve(a)?,
                    to: resolve(b)?,
                })
            })
            .collect();
        flows.sort_unstable();
        flows.dedup();
        flows.shrink_to_fit();
        let mut flows_by_to: Vec<u32> = (0..flows.len() as u32).collect();
        flows_by_to.sort_unstable_by_key(|&i| flows[i as usize].to);
        let mut attr_sets: Vec<EventAttrs> = Vec::new();
        let mut set_index: HashMap<EventAttrs, u32> = HashMap::new();
        let mut attrs: Vec<(EventId, u32)> = Vec::with_capacity(self.attrs.len());
        // Waiting times are nearly all distinct: kept in their own side table (12 bytes each)
        // rather than one attribute set per event.
        let mut waits: Vec<(EventId, i64)> = Vec::new();
        for (r, mut a) in self.attrs {
            let Some(id) = resolve(r) else { continue };
            if let Some(queued) = a.queued_ns.take() {
                waits.push((id, queued));
            }
            if a == EventAttrs::default() {
                continue;
            }
            let index = *set_index.entry(a).or_insert_with_key(|a| {
                attr_sets.push(a.clone());
                (attr_sets.len() - 1) as u32
            });
            attrs.push((id, index));
        }
        drop(set_index);
        attrs.sort_unstable_by_key(|(e, _)| *e);
        attrs.shrink_to_fit();
        attr_sets.shrink_to_fit();
        waits.sort_unstable_by_key(|(e, _)| *e);
        let (wait_ids, queued_ns): (Vec<EventId>, Vec<i64>) = waits.into_iter().unzip();
        // Tracks were packed in display order; renumbering is not needed because ids are kept.
        let mut timeline = Timeline {
            source: self.source,
            strings: self.strings,
            tracks: self.tracks,
            roots: self.roots,
            warnings: self.warnings,
            session: self.session,
            stacks: self.stacks,
            stacks_pending: false,
            columns,
            flows,
            flows_by_to,
            attrs,
            attr_sets,
            wait_ids,
            queued_ns,
            parts: Vec::new(),
            span: None,
        };
        timeline.span = timeline.compute_time_range();
        timeline
    }
}

fn extend_zeroed(c: &mut Columns, n: usize) {
    let len = c.start.len() + n;
    c.start.resize(len, 0);
    c.duration.resize(len, 0);
    c.name.resize(len, StrId(0));
    c.correlation.resize(len, 0);
    c.source.resize(len, 0);
    c.kind.resize(len, EventKind::Marker);
}

/// Tracks in depth-first display order (parents before children).
fn track_order(tracks: &[Track], roots: &[TrackId]) -> Vec<usize> {
    let mut order = Vec::with_capacity(tracks.len());
    let mut stack: Vec<TrackId> = roots.iter().rev().copied().collect();
    while let Some(t) = stack.pop() {
        order.push(t.0 as usize);
        if let Some(track) = tracks.get(t.0 as usize) {
            stack.extend(track.children.iter().rev().copied());
        }
    }
    order
}

/// The row of each event (events sorted by start, then longest first), such that no two spans
/// of one row overlap.
fn assign_rows(events: &[Staged], layout: Layout, long: &[(u32, u64)]) -> Vec<u16> {
    let mut rows = Vec::with_capacity(events.len());
    // End of the last span placed in each row.
    let mut row_end: Vec<i64> = Vec::new();
    match layout {
        Layout::Nested => {
            // Stack of (row, end) of the spans still open.
            let mut open: Vec<i64> = Vec::new();
            for e in events {
                while open.last().is_some_and(|&end| end <= e.start) {
                    open.pop();
                }
                let depth = open.len().min(u16::MAX as usize);
                rows.push(depth as u16);
                open.push(end_of(e, long));
            }
        }
        Layout::Counter => rows.resize(events.len(), 0),
        Layout::Lanes => {
            for e in events {
                let lane = match row_end.iter().position(|&end| end <= e.start) {
                    Some(l) => l,
                    None => {
                        row_end.push(i64::MIN);
                        row_end.len() - 1
                    }
                };
                row_end[lane] = end_of(e, long);
                rows.push(lane.min(u16::MAX as usize) as u16);
            }
        }
        Layout::Explicit => {
            for e in events {
                let mut d = e.depth as usize;
                while d < row_end.len() && row_end[d] > e.start {
                    d += 1;
                }
                if d >= row_end.len() {
                    row_end.resize(d + 1, i64::MIN);
                }
                row_end[d] = end_of(e, long);
                rows.push(d.min(u16::MAX as usize) as u16);
            }
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_staged_event_takes_32_bytes() {
        assert_eq!(std::mem::size_of::<Staged>(), 32);
    }

    fn ev(kind: EventKind, start: i64, end: i64, name: StrId) -> NewEvent {
        NewEvent::new(kind, start, end, name, 0)
    }

    #[test]
    fn nested_layout_gives_depths_and_rows_do_not_overlap() {
        let mut b = TimelineBuilder::new("t");
        let t = b.track(None, TrackKind::Thread, 1, || "T".into());
        let n = b.intern("x");
        // Outer 0..100 holds 10..20 (which holds 12..15) and 30..40; 100..110 follows.
        for (s, e) in [(30, 40), (0, 100), (12, 15), (10, 20), (100, 110)] {
            b.push(t, ev(EventKind::NvtxPushPop, s, e, n));
        }
        let tl = b.finish();
        let rows = &tl.tracks[0].rows;
        assert_eq!(rows.len(), 3);
        let starts = |r: &std::ops::Range<u32>| -> Vec<i64> {
            r.clone().map(|i| tl.start_of(i as usize)).collect()
        };
        assert_eq!(starts(&rows[0]), vec![0, 100]);
        assert_eq!(starts(&rows[1]), vec![10, 30]);
        assert_eq!(starts(&rows[2]), vec![12]);
    }

    #[test]
    fn a_finished_timeline_reopens_for_more_events() {
        let mut b = TimelineBuilder::new("t");
        let api = b.track(None, TrackKind::Thread, 1, || "T".into());
        let gpu = b.track(None, TrackKind::Stream, 7, || "S".into());
        let n = b.intern("k");
        let call = b.push(api, ev(EventKind::CudaApi, 0, 5, n));
        let k = b.push(gpu, ev(EventKind::Kernel, 10, 20, n));
        b.add_flow(call, k);
        b.set_attrs(
            k,
            EventAttrs {
                color: Some(0xFF00_00FF),
                ..Default::default()
            },
        );
        let first = b.finish();
        let mut again = TimelineBuilder::from_timeline(first);
        let file = again.track(None, TrackKind::Series, 99, || "notes.nvtxt".into());
        let m = again.intern("mark");
        again.push(file, ev(EventKind::Marker, 3, 3, m));
        again.push(api, ev(EventKind::CudaApi, 6, 8, n));
        again.warn_file("notes.nvtxt", Location::line(2), "unknown colour");
        let tl = again.finish();
        assert_eq!(tl.event_count(), 4);
        assert_eq!(tl.tracks.len(), 3);
        assert_eq!(tl.flows().len(), 1);
        let kernel = tl
            .events()
            .find(|e| e.kind == EventKind::Kernel)
            .map(|e| e.id);
        assert_eq!(
            kernel.and_then(|k| tl.attrs(k)).and_then(|a| a.color),
            Some(0xFF00_00FF)
        );
        assert_eq!(tl.warnings[0].file, PathBuf::from("notes.nvtxt"));
    }

    #[test]
    fn lanes_and_flows_and_long_durations() {
        let mut b = TimelineBuilder::new("t");
        let api = b.track(None, TrackKind::Thread, 1, || "T".into());
        let gpu = b.track(None, TrackKind::Stream, 7, || "S".into());
        b.set_layout(gpu, Layout::Lanes);
        let n = b.intern("k");
        let call = b.push(api, ev(EventKind::CudaApi, 0, 5, n));
        let k1 = b.push(gpu, ev(EventKind::Kernel, 10, 20, n));
        let k2 = b.push(gpu, ev(EventKind::Kernel, 15, 10_000_000_000, n));
        assert_eq!(b.link_by_key(vec![(1, call)], &[(1, k1), (2, k2)]), 1);
        let tl = b.finish();
        assert_eq!(tl.tracks[1].rows.len(), 2);
        let k2id = EventId(tl.tracks[1].rows[1].start);
        assert_eq!(tl.event(k2id).map(|e| e.end), Some(10_000_000_000));
        let k1id = EventId(tl.tracks[1].rows[0].start);
        assert_eq!(tl.flow_partners(EventId(0)), vec![k1id]);
        assert_eq!(tl.flow_partners(k1id), vec![EventId(0)]);
        assert!(tl.flow_partners(k2id).is_empty());
        assert_eq!(tl.locate(k2id), Some((TrackId(1), 1)));
    }
}
