//! Several files on one timeline: the exports of the ranks or nodes of one job (or NVTXT files
//! and CodeXL traces), each under a top-level group of its own, on one clock.
//!
//! [`merge`] concatenates the parts' packed columns: the events of part `k` keep their order
//! and become one contiguous id range ([`TimelinePart::events`]), its tracks sit under a new
//! [`TrackKind::File`] group, its strings and call stacks are renumbered into the merged
//! tables, and its times move by [`TimelinePart::offset_ns`]. No event is staged or laid out
//! again, so merging costs one pass over the columns and the memory of the merged timeline.
//!
//! Alignment: every part's times count from its own session start. Parts whose session start
//! is known in wall-clock time (`TARGET_INFO_SESSION_START_TIME` of an export) are placed by
//! it, the earliest at 0; parts without one start at 0 and say so
//! ([`TimelinePart::clock_known`]). [`Timeline::shift_part`] moves a part by any amount (the
//! user's offset), [`Timeline::align_on`] lines the parts up on the first event of a name.

use std::collections::HashMap;
use std::ops::Range;
use std::path::PathBuf;

use super::model::{Columns, EventKind, NO_STACK, SessionInfo, Track, TrackId, TrackKind};
use super::stacks::{Frame, StackId, StackNode};
use super::{EventId, Layout, StrId, StringTable, Timeline};
use crate::core::num::index_u32;

/// One file of a merged timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelinePart {
    /// The group's name (host or rank, editable); also the name of its group track.
    pub label: String,
    /// The file the part was read from.
    pub source: PathBuf,
    /// Its top-level group track.
    pub group: TrackId,
    /// The ids of its events.
    pub events: Range<u32>,
    /// How far its times were moved from its own clock (ns): the session-start alignment plus
    /// any offset the user gave.
    pub offset_ns: i64,
    /// The part of `offset_ns` that came from the session-start alignment.
    pub clock_ns: i64,
    /// Whether the file gave its session start in wall-clock time (else it was put at 0).
    pub clock_known: bool,
    /// The file's own session facts (versions, GPUs, import statistics).
    pub session: SessionInfo,
}

impl TimelinePart {
    /// The offset the user added on top of the clock alignment (ns).
    pub fn user_offset_ns(&self) -> i64 {
        self.offset_ns - self.clock_ns
    }
}

/// The default label of a file's group: "Rank N" when the file is one MPI rank
/// ([`Timeline::mpi_rank`]; the file's name stays in [`TimelinePart::source`]), else its host
/// name when the file names one, then the file name ("nid001608 · rank0.sqlite").
pub fn default_label(timeline: &Timeline) -> String {
    if let Some((rank, _)) = timeline.mpi_rank(None) {
        return format!("Rank {rank}");
    }
    let file = timeline
        .source
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| timeline.source.display().to_string());
    match &timeline.session.host_name {
        Some(host) => format!("{host} · {file}"),
        None => file,
    }
}

/// Merges `parts` (each with its group label) into one timeline, aligned by their session
/// starts. One part gives a timeline of one group; none gives an empty timeline.
pub fn merge(parts: Vec<(Timeline, String)>) -> Timeline {
    let mut merger = Merger::default();
    for (part, label) in parts {
        merger.push(part, label);
    }
    merger.finish()
}

/// Merges files one at a time, so that only the merged timeline and the file being added are
/// in memory (load a file, push it, load the next).
#[derive(Debug, Default)]
pub struct Merger {
    out: Timeline,
    /// The wall-clock session start of the first file that gave one.
    first_start: Option<i64>,
}

impl Merger {
    /// Adds `part` under a new group named `label`.
    pub fn push(&mut self, part: Timeline, label: String) {
        if self.out.parts.is_empty() {
            self.out.source = part.source.clone();
        }
        let start = part.session.start_utc_ns;
        if self.first_start.is_none() {
            self.first_start = start;
        }
        let clock_ns = match (start, self.first_start) {
            (Some(s), Some(first)) => s.saturating_sub(first),
            _ => 0,
        };
        append(&mut self.out, part, label, clock_ns, start.is_some());
    }

    /// The merged timeline: the earliest session start is time 0.
    pub fn finish(mut self) -> Timeline {
        let earliest = self
            .out
            .parts
            .iter()
            .filter(|p| p.clock_known)
            .map(|p| p.clock_ns)
            .min()
            .unwrap_or(0);
        if earliest < 0 {
            for index in 0..self.out.parts.len() {
                if self.out.parts[index].clock_known {
                    self.out.parts[index].clock_ns -= earliest;
                    shift_events(&mut self.out, index, -earliest);
                }
            }
        }
        self.out.session.start_utc_ns = self.first_start.map(|s| s.saturating_add(earliest));
        self.out.span = self.out.compute_time_range();
        // MPI messages between the files' ranks, collectives across them.
        self.out.link_mpi();
        self.out
    }
}

/// Appends `part` under a new group `label`, its times moved by `clock_ns`.
fn append(out: &mut Timeline, mut part: Timeline, label: String, clock_ns: i64, known: bool) {
    let strings = renumber_strings(&mut out.strings, &part.strings);
    let node_base = append_stacks(out, &part, &strings);
    let event_base = index_u32(out.columns.start.len());
    let group = append_tracks(out, &mut part, label.clone(), (event_base, clock_ns));
    let columns = std::mem::take(&mut part.columns);
    append_columns(
        &mut out.columns,
        &columns,
        &strings,
        clock_ns,
        node_base,
        event_base,
    );
    drop(columns);
    // Flows (sorted by caller; every id of this part is above those before it, so the
    // concatenation stays sorted), attributes and waiting times likewise.
    let shift_event = |e: EventId| EventId(e.0 + event_base);
    out.flows.extend(part.flows.iter().map(|f| super::Flow {
        from: shift_event(f.from),
        to: shift_event(f.to),
    }));
    let set_base = index_u32(out.attr_sets.len());
    out.attr_sets
        .extend(part.attr_sets.iter().cloned().map(|mut a| {
            a.stack = a.stack.map(|s| StackId(s.0 + node_base));
            a
        }));
    out.attrs.extend(
        part.attrs
            .iter()
            .map(|&(e, s)| (shift_event(e), s + set_base)),
    );
    out.wait_ids
        .extend(part.wait_ids.iter().map(|&e| shift_event(e)));
    out.queued_ns
        .extend(part.queued_ns.iter().map(|q| q.saturating_add(clock_ns)));
    out.warnings.append(&mut part.warnings);
    out.session.imports.add(&part.session.imports);
    out.stacks_pending |= part.stacks_pending;
    out.partial |= part.partial;
    if part.sketched_from.is_some() || out.sketched_from.is_some() {
        let before = out.sketched_from.unwrap_or(event_base as usize);
        out.sketched_from = Some(before + part.events_read());
    }
    let events = event_base..index_u32(out.columns.start.len());
    out.parts.push(TimelinePart {
        label,
        source: part.source,
        group,
        events,
        offset_ns: clock_ns,
        clock_ns,
        clock_known: known,
        session: part.session,
    });
}

/// The id a string of the part has in the merged table (`strings` from [`renumber_strings`]).
fn renamed(strings: &[StrId], id: StrId) -> StrId {
    strings.get(id.0 as usize).copied().unwrap_or_default()
}

/// Appends the part's call-stack frames and nodes, their ids shifted; returns the id of its
/// first node.
fn append_stacks(out: &mut Timeline, part: &Timeline, strings: &[StrId]) -> u32 {
    let frame_base = index_u32(out.stacks.frames.len());
    let node_base = index_u32(out.stacks.nodes.len());
    out.stacks
        .frames
        .extend(part.stacks.frames.iter().map(|f| Frame {
            symbol: renamed(strings, f.symbol),
            module: renamed(strings, f.module),
            unresolved: f.unresolved,
        }));
    out.stacks
        .nodes
        .extend(part.stacks.nodes.iter().map(|n| StackNode {
            frame: super::stacks::FrameId(n.frame.0 + frame_base),
            parent: n.parent.map(|p| StackId(p.0 + node_base)),
        }));
    node_base
}

/// Appends a group track `label`, then the part's tracks (parents before children) shifted
/// by one more, their rows moved past `event_base`, and their series sources; returns the
/// group.
fn append_tracks(
    out: &mut Timeline,
    part: &mut Timeline,
    label: String,
    (event_base, clock_ns): (u32, i64),
) -> TrackId {
    let group = TrackId(index_u32(out.tracks.len()));
    let track_base = group.0 + 1;
    let shift_track = |t: TrackId| TrackId(t.0 + track_base);
    out.tracks.push(Track {
        name: label,
        kind: TrackKind::File,
        key: out.roots.len() as u64,
        parent: None,
        children: part.roots.iter().map(|&r| shift_track(r)).collect(),
        rows: Vec::new(),
        layout: Layout::Nested,
    });
    out.roots.push(group);
    for track in std::mem::take(&mut part.tracks) {
        out.tracks.push(Track {
            parent: Some(track.parent.map_or(group, shift_track)),
            children: track.children.iter().map(|&c| shift_track(c)).collect(),
            rows: track
                .rows
                .iter()
                .map(|r| r.start + event_base..r.end + event_base)
                .collect(),
            ..track
        });
    }
    for (track, mut series) in std::mem::take(&mut part.series) {
        series.shift(clock_ns);
        out.series.push((shift_track(track), series));
    }
    for (track, source) in std::mem::take(&mut part.session.series_sources) {
        out.session
            .series_sources
            .insert(shift_track(track), source);
    }
    group
}

/// Appends the part's event columns: starts moved by `clock_ns`, names renumbered, a CPU
/// sample's stack shifted past `node_base`, long durations past `event_base`.
fn append_columns(
    c: &mut Columns,
    pc: &Columns,
    strings: &[StrId],
    clock_ns: i64,
    node_base: u32,
    event_base: u32,
) {
    for s in pc.start.iter() {
        c.start.push(s.saturating_add(clock_ns));
    }
    c.duration.extend_from_slice(&pc.duration);
    c.name.extend(pc.name.iter().map(|&n| renamed(strings, n)));
    for (corr, &kind) in pc.correlation.iter().zip(&pc.kind) {
        c.correlation.push(match kind {
            EventKind::CpuSample if corr != NO_STACK => corr + node_base,
            _ => corr,
        });
    }
    for source in pc.source.iter() {
        c.source.push(source);
    }
    c.kind.extend_from_slice(&pc.kind);
    c.long_durations
        .extend(pc.long_durations.iter().map(|&(e, d)| (e + event_base, d)));
}

/// Moves the events of part `index` (which exists) by `delta_ns`, and its offset with them.
fn shift_events(timeline: &mut Timeline, index: usize, delta_ns: i64) {
    let part = &mut timeline.parts[index];
    part.offset_ns = part.offset_ns.saturating_add(delta_ns);
    let range = part.events.start as usize..part.events.end as usize;
    timeline
        .columns
        .start
        .map_range(range.clone(), |s| s.saturating_add(delta_ns));
    let ids = &timeline.wait_ids;
    let lo = ids.partition_point(|e| (e.0 as usize) < range.start);
    let hi = ids.partition_point(|e| (e.0 as usize) < range.end);
    for q in &mut timeline.queued_ns[lo..hi] {
        *q = q.saturating_add(delta_ns);
    }
    let tracks: Vec<TrackId> = timeline
        .series
        .iter()
        .map(|(t, _)| *t)
        .filter(|&t| timeline.part_of_track(t) == Some(index))
        .collect();
    for (t, series) in &mut timeline.series {
        if tracks.contains(t) {
            series.shift(delta_ns);
        }
    }
}

/// Interns every string of `from` into `into`: the new id of each old id.
fn renumber_strings(into: &mut StringTable, from: &StringTable) -> Vec<StrId> {
    from.iter().map(|(_, text)| into.intern(text)).collect()
}

/// A part could not be found or the alignment event is missing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    /// No part of that index.
    #[error("the timeline has no file number {0}")]
    NoPart(usize),
    /// No part has an event of that name.
    #[error("no file of the timeline has an event named \"{0}\"")]
    NoEvent(String),
}

impl Timeline {
    /// The files of a merged timeline, in group order (empty for a timeline of one file that
    /// was not merged).
    pub fn parts(&self) -> &[TimelinePart] {
        &self.parts
    }

    /// The part that holds `event`.
    pub fn part_of(&self, event: EventId) -> Option<usize> {
        let i = self.parts.partition_point(|p| p.events.end <= event.0);
        (i < self.parts.len() && self.parts[i].events.contains(&event.0)).then_some(i)
    }

    /// The part whose group holds `track` (walking up to the root).
    pub fn part_of_track(&self, track: TrackId) -> Option<usize> {
        let mut cur = track;
        while let Some(parent) = self.track(cur)?.parent {
            cur = parent;
        }
        self.parts.iter().position(|p| p.group == cur)
    }

    /// Moves every event of part `index` by `delta_ns` (the user's offset, or an alignment).
    pub fn shift_part(&mut self, index: usize, delta_ns: i64) -> Result<(), MergeError> {
        if index >= self.parts.len() {
            return Err(MergeError::NoPart(index));
        }
        shift_events(self, index, delta_ns);
        self.span = self.compute_time_range();
        Ok(())
    }

    /// Sets the user's offset of part `index` (on top of its clock alignment).
    pub fn set_user_offset(&mut self, index: usize, offset_ns: i64) -> Result<(), MergeError> {
        let part = self.parts.get(index).ok_or(MergeError::NoPart(index))?;
        let delta = offset_ns.saturating_sub(part.user_offset_ns());
        self.shift_part(index, delta)
    }

    /// Lines the parts up on the first event named `name` of each: every part that has one is
    /// moved so that its first such event starts when the first part's with one does. Returns
    /// the parts moved and by how much; parts without the event stay where they are.
    pub fn align_on(&mut self, name: &str) -> Result<Vec<(usize, i64)>, MergeError> {
        self.align_on_nth(name, 0)
    }

    /// Lines the parts up on instance `nth` (0: the first, by start time) of the events named
    /// `name` — an iteration's NVTX range in two runs, say: every part with that many is moved
    /// so that its instance starts when the first such part's does. Returns the parts moved
    /// and by how much; parts with fewer instances stay where they are.
    pub fn align_on_nth(
        &mut self,
        name: &str,
        nth: usize,
    ) -> Result<Vec<(usize, i64)>, MergeError> {
        let id = self
            .strings
            .lookup(name)
            .ok_or_else(|| MergeError::NoEvent(name.to_owned()))?;
        let starts: Vec<Option<i64>> = self
            .parts
            .iter()
            .map(|p| {
                let range = p.events.start as usize..p.events.end as usize;
                let mut starts: Vec<i64> = range
                    .filter(|&i| self.columns.name[i] == id)
                    .map(|i| self.columns.start.at(i))
                    .collect();
                if nth >= starts.len() {
                    return None;
                }
                Some(*starts.select_nth_unstable(nth).1)
            })
            .collect();
        let Some(reference) = starts.iter().flatten().next().copied() else {
            return Err(MergeError::NoEvent(name.to_owned()));
        };
        let mut moved = Vec::new();
        for (index, first) in starts.into_iter().enumerate() {
            if let Some(first) = first
                && first != reference
            {
                let delta = reference - first;
                self.shift_part(index, delta)?;
                moved.push((index, delta));
            }
        }
        Ok(moved)
    }

    /// The NVTX ranges every part has (what the runs or ranks of a merged timeline can be lined
    /// up on), each with the fewest instances a part has; most instances first, then by name.
    pub fn common_ranges(&self) -> Vec<(String, usize)> {
        let mut common: Option<HashMap<StrId, usize>> = None;
        for part in &self.parts {
            let mut counts: HashMap<StrId, usize> = HashMap::new();
            for i in part.events.start as usize..part.events.end as usize {
                if matches!(
                    self.columns.kind[i],
                    EventKind::NvtxPushPop | EventKind::NvtxStartEnd
                ) {
                    *counts.entry(self.columns.name[i]).or_default() += 1;
                }
            }
            common = Some(match common {
                None => counts,
                Some(mut so_far) => {
                    so_far.retain(|id, n| {
                        counts.get(id).is_some_and(|&m| {
                            *n = (*n).min(m);
                            true
                        })
                    });
                    so_far
                }
            });
        }
        let mut out: Vec<(String, usize)> = common
            .unwrap_or_default()
            .into_iter()
            .map(|(id, n)| (self.strings.get(id).to_owned(), n))
            .collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        out
    }

    /// Renames part `index` (its group track too).
    pub fn rename_part(&mut self, index: usize, label: String) -> Result<(), MergeError> {
        let part = self.parts.get_mut(index).ok_or(MergeError::NoPart(index))?;
        part.label = label.clone();
        let group = part.group;
        if let Some(track) = self.tracks.get_mut(group.0 as usize) {
            track.name = label;
        }
        Ok(())
    }
}
