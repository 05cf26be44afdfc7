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
use crate::core::num::{index_u32, saturating_u16};
use crate::problem::{FileProblem, Location, Problem};

mod staged;

use staged::StagedTrack;

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

/// The name of the spans that stand for the events of a large track in a sketched preview
/// ([`TimelineBuilder::sketch`]).
pub const SKETCH_NAME: &str = "[events being read]";

/// Collects tracks and events, then packs them into a [`Timeline`].
#[derive(Debug, Default, Clone)]
pub struct TimelineBuilder {
    source: PathBuf,
    strings: StringTable,
    tracks: Vec<Track>,
    staged: Vec<StagedTrack>,
    roots: Vec<TrackId>,
    children_by_key: HashMap<(Option<TrackId>, TrackKind, u64), TrackId>,
    flows: Vec<(EventRef, EventRef)>,
    /// Attributes of events, by index in `attr_sets` (identical sets stored once).
    attrs: Vec<(EventRef, u32)>,
    attr_sets: Vec<EventAttrs>,
    attr_index: HashMap<EventAttrs, u32>,
    /// Waiting times (nearly all distinct: kept apart from the attribute sets).
    waits: Vec<(EventRef, i64)>,
    warnings: Vec<FileProblem>,
    clamped: usize,
    /// Session facts, filled in by the loader.
    pub session: SessionInfo,
    /// Call stacks, filled in by the loader.
    pub stacks: super::stacks::CallStacks,
    /// Counter samples held apart from the events, by track ([`TimelineBuilder::series`]).
    series: std::collections::BTreeMap<TrackId, super::series::CounterSeries>,
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
        let id = TrackId(index_u32(self.tracks.len()));
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

    /// The first track of `kind` with key `key` (any parent).
    pub fn find_track(&self, kind: TrackKind, key: u64) -> Option<TrackId> {
        self.tracks
            .iter()
            .position(|t| t.kind == kind && t.key == key)
            .map(|i| TrackId(index_u32(i)))
    }

    /// Number of tracks created so far (the next track's id).
    pub fn track_count(&self) -> usize {
        self.tracks.len()
    }

    /// The parent of a track.
    pub fn parent_of(&self, track: TrackId) -> Option<TrackId> {
        self.tracks.get(track.0 as usize).and_then(|t| t.parent)
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
    pub fn from_timeline(timeline: &Timeline) -> TimelineBuilder {
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
            let id = TrackId(index_u32(t));
            b.children_by_key
                .insert((track.parent, track.kind, track.key), id);
            let mut staged = StagedTrack::default();
            staged.layout = track.layout;
            staged.reserve(track.event_count());
            for (depth, row) in track.rows.iter().enumerate() {
                for i in row.clone() {
                    let Some(e) = timeline.event(EventId(i)) else {
                        continue;
                    };
                    let depth = match track.layout {
                        Layout::Explicit => saturating_u16(depth),
                        _ => 0,
                    };
                    let event = NewEvent {
                        correlation: e.correlation,
                        depth,
                        ..NewEvent::new(e.kind, e.start, e.end, e.name, e.source)
                    };
                    let index = staged.push(&event, e.end);
                    refs[i as usize] = EventRef {
                        track: index_u32(t),
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
                b.set_attrs(r, a.clone());
            }
        }
        for (&e, &queued) in timeline.wait_ids.iter().zip(&timeline.queued_ns) {
            if let Some(r) = get(e) {
                b.waits.push((r, queued));
            }
        }
        b.series = timeline.series.iter().cloned().collect();
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
            s.reserve(additional);
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
        let index = self.staged[track.0 as usize].push(&event, end);
        EventRef {
            track: track.0,
            index,
        }
    }

    /// Attaches attributes to a pushed event (identical sets are stored once).
    pub fn set_attrs(&mut self, event: EventRef, mut attrs: EventAttrs) {
        if let Some(queued) = attrs.queued_ns.take() {
            self.waits.push((event, queued));
        }
        if attrs == EventAttrs::default() {
            return;
        }
        let index = match self.attr_index.get(&attrs) {
            Some(&index) => index,
            None => {
                let index = index_u32(self.attr_sets.len());
                self.attr_sets.push(attrs.clone());
                self.attr_index.insert(attrs, index);
                index
            }
        };
        self.attrs.push((event, index));
    }

    /// Moves the end of a pushed event (an NVTX range whose end is learned after it was
    /// pushed); an end before its start makes it an instant.
    pub fn set_end(&mut self, event: EventRef, end: i64) {
        if let Some(s) = self.staged.get_mut(event.track as usize) {
            s.set_end(event.index, end);
        }
    }

    /// The start, end and reference of each event pushed to `track`, in push order.
    pub fn spans(&self, track: TrackId) -> Vec<(i64, i64, EventRef)> {
        self.staged
            .get(track.0 as usize)
            .map_or_else(Vec::new, |s| {
                s.spans()
                    .enumerate()
                    .map(|(i, (start, end))| {
                        let index = index_u32(i);
                        (
                            start,
                            end,
                            EventRef {
                                track: track.0,
                                index,
                            },
                        )
                    })
                    .collect()
            })
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
        mut calls: Vec<(u64, EventRef)>,
        work: &[(u64, EventRef)],
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

    /// The series of counter track `track` (made a [`Layout::Counter`] track, its series
    /// created with the unit `unit()` gives): push its samples with
    /// [`super::series::CounterSeries::push`]. A track with a series has no events of its own.
    pub fn series(
        &mut self,
        track: TrackId,
        unit: impl FnOnce() -> Option<String>,
    ) -> &mut super::series::CounterSeries {
        if !self.series.contains_key(&track) {
            self.set_layout(track, Layout::Counter);
        }
        self.series
            .entry(track)
            .or_insert_with(|| super::series::CounterSeries::new(unit()))
    }

    /// Number of counter samples pushed so far.
    pub fn sample_count(&self) -> usize {
        self.series.values().map(|s| s.len() + s.staged_len()).sum()
    }

    /// Number of events pushed so far.
    pub fn event_count(&self) -> usize {
        self.staged.iter().map(|s| s.len()).sum()
    }

    /// What was pushed so far, packed into a [`Timeline`] marked [`Timeline::partial`] (the
    /// builder goes on; this costs a copy of what it holds).
    pub fn snapshot(&self) -> Timeline {
        // Never trims the heap (that walks all of it, locked, while the load goes on).
        let mut timeline = self.clone().pack(false);
        timeline.partial = true;
        timeline
    }

    /// What was read so far, reduced for the preview of a large load (packing a copy of every
    /// event would cost their memory again): tracks of at most `2 × buckets` events and counter
    /// tracks as they are, with their attributes and the flows between them; each larger
    /// track as one span per run of busy buckets among `buckets` over the whole extent read so
    /// far, named "[events being read]" (`StagedTrack::sketch`). One pass over the events.
    pub fn sketch(&mut self, buckets: usize) -> Timeline {
        // A copy of everything but the events and what refers to them.
        let staged = std::mem::take(&mut self.staged);
        let flows = std::mem::take(&mut self.flows);
        let attrs = std::mem::take(&mut self.attrs);
        let waits = std::mem::take(&mut self.waits);
        let mut b = self.clone();
        (self.staged, self.flows, self.attrs, self.waits) = (staged, flows, attrs, waits);
        let whole: Vec<bool> = self
            .staged
            .iter()
            .map(|s| s.len() <= 2 * buckets || s.layout == Layout::Counter)
            .collect();
        let kept = |r: &EventRef| whole.get(r.track as usize).copied().unwrap_or(false);
        let extent = self
            .staged
            .iter()
            .filter_map(StagedTrack::extent)
            .reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)));
        let name = b.intern(SKETCH_NAME);
        b.staged = self
            .staged
            .iter()
            .zip(&whole)
            .map(|(s, &whole)| match extent {
                Some((lo, hi)) if !whole => {
                    let width = (hi.saturating_sub(lo) / buckets.max(1) as i64).max(1);
                    s.sketch(lo, width, buckets, name)
                }
                _ => s.clone(),
            })
            .collect();
        b.flows = self
            .flows
            .iter()
            .filter(|(a, c)| kept(a) && kept(c))
            .copied()
            .collect();
        b.attrs = self
            .attrs
            .iter()
            .filter(|(r, _)| kept(r))
            .copied()
            .collect();
        b.waits = self
            .waits
            .iter()
            .filter(|(r, _)| kept(r))
            .copied()
            .collect();
        let mut timeline = b.pack(false);
        timeline.partial = true;
        timeline.sketched_from = Some(self.event_count());
        timeline
    }

    /// Sorts, lays out and packs everything into a [`Timeline`].
    pub fn finish(self) -> Timeline {
        self.pack(true)
    }

    /// [`TimelineBuilder::finish`]; `trim`: give each large track's freed staging back to the
    /// system as it is packed.
    fn pack(mut self, trim: bool) -> Timeline {
        if self.clamped > 0 {
            let n = self.clamped;
            self.warn(
                Location::Part("events".into()),
                format!("{n} events ended before they started; shown as instants"),
            );
        }
        let (columns, remap) = self.pack_tracks(trim);
        let series = self.pack_series();
        let resolve = |r: EventRef| -> Option<EventId> {
            remap
                .get(r.track as usize)
                .and_then(|m| m.position(r.index))
                .map(EventId)
        };
        // Resolved in place (a flow takes 8 bytes, a staged one 16).
        let mut flows: Vec<Flow> = self
            .flows
            .into_iter()
            .filter_map(|(a, b)| {
                Some(Flow {
                    from: resolve(a)?,
                    to: resolve(b)?,
                })
            })
            .collect();
        flows.sort_unstable();
        flows.dedup();
        flows.shrink_to_fit();
        drop(self.attr_index);
        let mut attr_sets = self.attr_sets;
        let mut attrs: Vec<(EventId, u32)> = self
            .attrs
            .into_iter()
            .filter_map(|(r, set)| Some((resolve(r)?, set)))
            .collect();
        attrs.sort_unstable_by_key(|(e, _)| *e);
        attrs.shrink_to_fit();
        attr_sets.shrink_to_fit();
        let mut waits: Vec<(EventId, i64)> = self
            .waits
            .into_iter()
            .filter_map(|(r, queued)| Some((resolve(r)?, queued)))
            .collect();
        waits.sort_unstable_by_key(|(e, _)| *e);
        let (wait_ids, queued_ns): (Vec<EventId>, Vec<i64>) = waits.into_iter().unzip();
        drop(remap);
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
            partial: false,
            sketched_from: None,
            columns,
            flows,
            attrs,
            attr_sets,
            wait_ids,
            queued_ns,
            parts: Vec::new(),
            span: None,
            series,
            mpi: None,
        };
        timeline.span = timeline.compute_time_range();
        timeline
    }

    /// Sorts and packs every counter series; a series track without events gets one empty
    /// row (the line its graph is drawn on).
    fn pack_series(&mut self) -> Vec<(TrackId, super::series::CounterSeries)> {
        let mut out: Vec<(TrackId, super::series::CounterSeries)> =
            std::mem::take(&mut self.series).into_iter().collect();
        for (track, series) in &mut out {
            series.pack();
            if let Some(t) = self.tracks.get_mut(track.0 as usize)
                && t.rows.iter().all(|r| r.is_empty())
            {
                t.rows = std::iter::once(0..0).collect();
            }
        }
        out
    }

    /// Packs each staged track's events into the columns, in display order (laid out in rows
    /// unless they are in order on one row), and returns the columns with where each staged
    /// event went (per track, indexed by its push index). `trim`: see [`Self::pack`].
    fn pack_tracks(&mut self, trim: bool) -> (Columns, Vec<Remap>) {
        let total = self.event_count();
        let mut columns = Columns {
            start: super::blocked::Starts::with_capacity(total),
            duration: Vec::with_capacity(total),
            name: Vec::with_capacity(total),
            correlation: super::blocked::Packed32::with_capacity(total),
            source: super::blocked::Packed32::with_capacity(total),
            kind: Vec::with_capacity(total),
            long_durations: Vec::new(),
        };
        let mut remap: Vec<Remap> = Vec::with_capacity(self.staged.len());
        let order = track_order(&self.tracks, &self.roots);
        remap.resize_with(self.staged.len(), || Remap::Table(Vec::new()));
        for &t in &order {
            let track = std::mem::take(&mut self.staged[t]);
            let big = track.len() >= 1 << 16;
            let first = index_u32(columns.start.len());
            if track.in_order_on_one_row() {
                let len = index_u32(track.len());
                self.tracks[t].rows = vec![track.pack_in_order(&mut columns)];
                remap[t] = Remap::Shifted { first, len };
            } else {
                let laid_out = track.laid_out();
                let (rows, map) = track.pack(&mut columns, laid_out);
                self.tracks[t].rows = rows;
                remap[t] = Remap::of(first, map);
            }
            if big && trim {
                // The track's staging is freed: give its pages back before the next one is
                // packed, so that the load holds about one copy of the events.
                super::release_free_memory();
            }
        }
        columns.long_durations.sort_unstable();
        columns.long_durations.shrink_to_fit();
        (columns, remap)
    }
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

/// Where a packed track's events went, by push index.
enum Remap {
    /// Push index `i` is at position `first + i` (`len` events): a track staged in display
    /// order on one row (most large ones: a stream's kernels, a thread's calls), which needs
    /// no table (4 bytes an event while the rest is packed).
    Shifted { first: u32, len: u32 },
    /// The position of each push index.
    Table(Vec<u32>),
}

impl Remap {
    /// The remap of a track packed from `first` whose positions are `map`.
    fn of(first: u32, map: Vec<u32>) -> Remap {
        let shifted = map
            .iter()
            .enumerate()
            .all(|(i, &p)| u64::from(p) == u64::from(first) + i as u64);
        if shifted {
            Remap::Shifted {
                first,
                len: index_u32(map.len()),
            }
        } else {
            Remap::Table(map)
        }
    }

    /// The position of push index `index`.
    fn position(&self, index: u32) -> Option<u32> {
        match self {
            Remap::Shifted { first, len } => (index < *len).then(|| first + index),
            Remap::Table(map) => map.get(index as usize).copied(),
        }
    }
}

#[cfg(test)]
mod tests;
