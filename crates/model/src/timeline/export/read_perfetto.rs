//! Reads a Perfetto protobuf trace's track events onto a timeline: Sightline's own exports and
//! other TrackEvent-based traces.
//!
//! Two passes over the file (memory-mapped): the first finds every `TrackDescriptor` (a
//! packet's field 60, read without decoding the rest), so events may come before or after
//! their track's description; the second decodes each packet and follows its sequence's
//! interned names and categories and its default track. Processes and threads become process
//! and thread tracks (a thread under the process of its pid), other tracks series under their
//! parent; a child track named as its parent (how `super::perfetto` writes lanes) puts its
//! events on the parent, laid out in lanes. `SLICE_BEGIN`/`SLICE_END` pair per track,
//! `INSTANT`s are zero-length events, `COUNTER`s values on a counter track. An event whose
//! category names a Sightline event kind gets that kind. Flows link consecutive events of one
//! flow id, `terminating_flow_ids` ending a chain. Packets of other kinds are skipped; bytes
//! that do not frame as packets are an error at their offset.

use std::collections::HashMap;
use std::path::Path;

use prost::Message;

use super::TraceError;
use super::proto::{
    SEQ_INCREMENTAL_STATE_CLEARED, TYPE_COUNTER, TYPE_INSTANT, TYPE_SLICE_BEGIN, TYPE_SLICE_END,
    TracePacket, TrackDescriptor, TrackEvent,
};
use crate::problem::Location;
use crate::timeline::{
    EventAttrs, EventKind, EventRef, Layout, NewEvent, Payload, StrId, Timeline, TimelineBuilder,
    TrackId, TrackKind,
};

/// Reads the trace at `path`.
pub fn load(path: &Path) -> Result<Timeline, TraceError> {
    from_bytes(path, &super::map_file(path)?)
}

/// Reads a trace held in memory (`path` names it in problems).
pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<Timeline, TraceError> {
    let mut r = Reader {
        b: TimelineBuilder::new(path),
        descriptors: HashMap::new(),
        tracks: HashMap::new(),
        lanes: Vec::new(),
        names: HashMap::new(),
        categories: HashMap::new(),
        default_track: HashMap::new(),
        open: HashMap::new(),
        flow_points: Vec::new(),
        last_time: 0,
        unmatched_ends: 0,
        skipped: 0,
    };
    let mut order = Vec::new();
    for_each_packet(path, bytes, |offset, packet| {
        if let Some(desc) = descriptor_of(packet) {
            let desc = TrackDescriptor::decode(desc)
                .map_err(|e| TraceError::at(path, offset, format!("track descriptor: {e}")))?;
            let uuid = desc.uuid.unwrap_or(0);
            if !r.descriptors.contains_key(&uuid) {
                order.push(uuid);
            }
            r.descriptors.insert(uuid, desc);
        }
        Ok(())
    })?;
    for uuid in order {
        r.track_of(uuid, 0);
    }
    let mut ordinal: u32 = 0;
    for_each_packet(path, bytes, |offset, bytes| {
        let packet = TracePacket::decode(bytes)
            .map_err(|e| TraceError::at(path, offset, format!("trace packet: {e}")))?;
        ordinal = ordinal.saturating_add(1);
        r.packet(packet, ordinal);
        Ok(())
    })?;
    Ok(r.finish())
}

/// Calls `f(offset, packet bytes)` for every `packet` (field 1) of a `Trace`; other fields are
/// skipped.
fn for_each_packet(
    path: &Path,
    bytes: &[u8],
    mut f: impl FnMut(u64, &[u8]) -> Result<(), TraceError>,
) -> Result<(), TraceError> {
    let mut pos = 0usize;
    while pos < bytes.len() {
        let at = pos as u64;
        let bad = |what: &str| TraceError::at(path, at, what.to_owned());
        let key = varint(bytes, &mut pos).ok_or_else(|| bad("truncated field key"))?;
        let (field, wire) = (key >> 3, key & 7);
        if field == 0 {
            return Err(bad("field number 0: not a Perfetto trace"));
        }
        if field == 1 && wire == 2 {
            let len = varint(bytes, &mut pos).ok_or_else(|| bad("truncated packet length"))?;
            let end = usize::try_from(len)
                .ok()
                .and_then(|len| pos.checked_add(len))
                .filter(|&end| end <= bytes.len())
                .ok_or_else(|| bad(&format!("packet of {len} bytes runs past the end")))?;
            f(at, &bytes[pos..end])?;
            pos = end;
        } else {
            skip(bytes, &mut pos, wire).ok_or_else(|| bad("malformed field"))?;
        }
    }
    Ok(())
}

/// The bytes of a packet's `track_descriptor` (field 60), found without decoding the rest.
fn descriptor_of(packet: &[u8]) -> Option<&[u8]> {
    let mut pos = 0usize;
    while pos < packet.len() {
        let key = varint(packet, &mut pos)?;
        let (field, wire) = (key >> 3, key & 7);
        if field == 60 && wire == 2 {
            let len = usize::try_from(varint(packet, &mut pos)?).ok()?;
            return packet.get(pos..pos.checked_add(len)?);
        }
        skip(packet, &mut pos, wire)?;
    }
    None
}

/// A base-128 varint at `pos` (moved past it).
fn varint(bytes: &[u8], pos: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..70).step_by(7) {
        let byte = *bytes.get(*pos)?;
        *pos += 1;
        value |= u64::from(byte & 0x7F).checked_shl(shift).unwrap_or(0);
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

/// Moves `pos` past a field's value of wire type `wire`.
fn skip(bytes: &[u8], pos: &mut usize, wire: u64) -> Option<()> {
    let len = match wire {
        0 => {
            varint(bytes, pos)?;
            0
        }
        1 => 8,
        2 => usize::try_from(varint(bytes, pos)?).ok()?,
        5 => 4,
        _ => return None,
    };
    let end = pos.checked_add(len)?;
    (end <= bytes.len()).then(|| *pos = end)
}

/// A slice begun and not ended yet.
struct Open {
    slice: super::Begun,
    flows: Vec<u64>,
    terminating: Vec<u64>,
}

struct Reader {
    b: TimelineBuilder,
    descriptors: HashMap<u64, TrackDescriptor>,
    /// Output track of each uuid.
    tracks: HashMap<u64, TrackId>,
    /// Tracks that received lanes (laid out in lanes at the end).
    lanes: Vec<TrackId>,
    names: HashMap<(u32, u64), StrId>,
    categories: HashMap<(u32, u64), String>,
    default_track: HashMap<u32, u64>,
    /// Open slices per track uuid (lanes keep their own stacks).
    open: HashMap<u64, Vec<Open>>,
    /// (flow id, terminating, time, event).
    flow_points: Vec<(u64, bool, i64, EventRef)>,
    last_time: i64,
    unmatched_ends: usize,
    skipped: usize,
}

impl Reader {
    /// The output track of `uuid`, made (with its parents) on first use.
    fn track_of(&mut self, uuid: u64, depth: usize) -> TrackId {
        if let Some(&t) = self.tracks.get(&uuid) {
            return t;
        }
        let desc = self.descriptors.get(&uuid).cloned().unwrap_or_default();
        let name = desc
            .name
            .clone()
            .or_else(|| desc.static_name.clone())
            .filter(|n| !n.is_empty());
        let id = if let Some(process) = &desc.process {
            let pid = process.pid.unwrap_or(0);
            let name = process.process_name.clone().or(name);
            self.process(pid, name)
        } else if let Some(thread) = &desc.thread {
            let pid = thread.pid.unwrap_or(0);
            let tid = thread.tid.unwrap_or(0);
            let parent = self.process(pid, None);
            let name = thread
                .thread_name
                .clone()
                .or(name)
                .unwrap_or_else(|| format!("Thread {tid}"));
            self.b
                .track(Some(parent), TrackKind::Thread, tid as u64, || name)
        } else {
            let parent_uuid = desc.parent_uuid.filter(|p| *p != uuid && depth < 64);
            let parent = parent_uuid.map(|p| self.track_of(p, depth + 1));
            let parent_name = parent_uuid
                .and_then(|p| self.descriptors.get(&p))
                .and_then(|d| d.name.clone());
            match parent {
                Some(p) if desc.counter.is_none() && name.is_some() && name == parent_name => {
                    self.lanes.push(p);
                    p
                }
                _ => {
                    let name = name.unwrap_or_else(|| format!("Track {uuid}"));
                    let t = self.b.track(parent, TrackKind::Series, uuid, || name);
                    if desc.counter.is_some() {
                        self.b.set_layout(t, Layout::Counter);
                    }
                    t
                }
            }
        };
        self.tracks.insert(uuid, id);
        id
    }

    /// The process track of `pid` (named `name`, else "Process PID").
    fn process(&mut self, pid: i32, name: Option<String>) -> TrackId {
        let t = self.b.track(None, TrackKind::Process, pid as u64, || {
            format!("Process {pid}")
        });
        if let Some(name) = name.filter(|n| !n.is_empty()) {
            self.b.rename(t, name);
        }
        t
    }

    /// Follows one packet: its sequence state, then its track event (if any) on its track.
    fn packet(&mut self, mut packet: TracePacket, ordinal: u32) {
        let seq = packet.trusted_packet_sequence_id.unwrap_or(0);
        self.sequence_state(seq, &mut packet);
        let Some(te) = packet.track_event else {
            return;
        };
        let time = packet
            .timestamp
            .map_or(self.last_time, |t| t.min(i64::MAX as u64) as i64);
        self.last_time = self.last_time.max(time);
        let uuid = te
            .track_uuid
            .or_else(|| self.default_track.get(&seq).copied())
            .unwrap_or(0);
        let track = self.track_of(uuid, 0);
        let ty = te.r#type.unwrap_or(0);
        if ty == TYPE_SLICE_END {
            match self.open.get_mut(&uuid).and_then(|s| s.pop()) {
                Some(open) => self.close(track, open, time, false),
                None => self.unmatched_ends += 1,
            }
            return;
        }
        let name = self.event_name(seq, &te);
        let category = self.event_category(seq, &te);
        match ty {
            TYPE_SLICE_BEGIN | TYPE_INSTANT => {
                let instant = ty == TYPE_INSTANT;
                let default = if instant {
                    EventKind::Marker
                } else {
                    EventKind::Range
                };
                let slice = super::Begun {
                    start: time,
                    name,
                    kind: category.unwrap_or(default),
                    correlation: te
                        .correlation_id
                        .map_or(0, crate::core::num::saturating_u32),
                    source: ordinal,
                };
                self.begin(track, uuid, slice, te, instant);
            }
            TYPE_COUNTER => {
                let kind = category.unwrap_or(EventKind::Marker);
                self.counter(track, &te, name, kind, time, ordinal);
            }
            _ => self.skipped += 1,
        }
    }

    /// Follows the packet's sequence state: clears its interned names and categories when the
    /// packet says so, takes its default track and its newly interned names and categories.
    fn sequence_state(&mut self, seq: u32, packet: &mut TracePacket) {
        if packet
            .sequence_flags
            .is_some_and(|f| f & SEQ_INCREMENTAL_STATE_CLEARED != 0)
        {
            self.names.retain(|(s, _), _| *s != seq);
            self.categories.retain(|(s, _), _| *s != seq);
        }
        if let Some(defaults) = packet
            .trace_packet_defaults
            .take()
            .and_then(|d| d.track_event_defaults)
            .and_then(|d| d.track_uuid)
        {
            self.default_track.insert(seq, defaults);
        }
        if let Some(interned) = packet.interned_data.take() {
            for n in interned.event_names {
                let id = self.b.intern(n.name.as_deref().unwrap_or(""));
                self.names.insert((seq, n.iid.unwrap_or(0)), id);
            }
            for c in interned.event_categories {
                self.categories
                    .insert((seq, c.iid.unwrap_or(0)), c.name.unwrap_or_default());
            }
        }
    }

    /// The event's name: its own, else its sequence's interned name (`name #iid` when the
    /// sequence never interned it), else empty.
    fn event_name(&mut self, seq: u32, te: &TrackEvent) -> StrId {
        match (&te.name, te.name_iid) {
            (Some(n), _) => self.b.intern(n),
            (None, Some(iid)) => match self.names.get(&(seq, iid)) {
                Some(&id) => id,
                None => self.b.intern(&format!("name #{iid}")),
            },
            (None, None) => self.b.intern(""),
        }
    }

    /// The Sightline event kind the event's first category (own or interned) names, if any.
    fn event_category(&self, seq: u32, te: &TrackEvent) -> Option<EventKind> {
        te.categories
            .first()
            .map(String::as_str)
            .or_else(|| {
                te.category_iids
                    .first()
                    .and_then(|iid| self.categories.get(&(seq, *iid)))
                    .map(String::as_str)
            })
            .and_then(|c| EventKind::ALL.into_iter().find(|k| k.as_str() == c))
    }

    /// Begins a slice with the event's flows (kept open on its track until its end), or puts an
    /// instant on its track.
    fn begin(
        &mut self,
        track: TrackId,
        uuid: u64,
        slice: super::Begun,
        te: TrackEvent,
        instant: bool,
    ) {
        let mut flows = te.flow_ids;
        flows.extend(te.flow_ids_old);
        let mut terminating = te.terminating_flow_ids;
        terminating.extend(te.terminating_flow_ids_old);
        let open = Open {
            slice,
            flows,
            terminating,
        };
        if !instant {
            self.open.entry(uuid).or_default().push(open);
            return;
        }
        // An instant ends where it starts.
        let end = open.slice.start;
        self.close(track, open, end, false);
    }

    /// Puts a counter value (integer, else double, else 0) on its track, laid out as a
    /// counter; an unnamed value is named by its value.
    fn counter(
        &mut self,
        track: TrackId,
        te: &TrackEvent,
        name: StrId,
        kind: EventKind,
        time: i64,
        ordinal: u32,
    ) {
        let payload = match (te.counter_value, te.double_counter_value) {
            (Some(v), _) => Payload::I64(v),
            (None, Some(v)) => Payload::F64(v),
            (None, None) => Payload::I64(0),
        };
        let name = if te.name.is_none() && te.name_iid.is_none() {
            let text = match &payload {
                Payload::F64(v) => v.to_string(),
                Payload::I64(v) => v.to_string(),
                _ => String::new(),
            };
            self.b.intern(&text)
        } else {
            name
        };
        self.b.set_layout(track, Layout::Counter);
        let e = self
            .b
            .push(track, NewEvent::new(kind, time, time, name, ordinal));
        self.b.set_attrs(
            e,
            EventAttrs {
                payload: Some(payload),
                ..EventAttrs::default()
            },
        );
    }

    /// Puts a finished slice (or an instant) on its track.
    fn close(&mut self, track: TrackId, open: Open, end: i64, unclosed: bool) {
        let e = open.slice.push(&mut self.b, track, end, unclosed);
        let start = open.slice.start;
        for id in open.flows {
            self.flow_points.push((id, false, start, e));
        }
        for id in open.terminating {
            self.flow_points.push((id, true, start, e));
        }
    }

    fn finish(mut self) -> Timeline {
        // By track uuid: a map's order would number the tracks made here differently each load.
        let mut open: Vec<(u64, Vec<Open>)> = std::mem::take(&mut self.open).into_iter().collect();
        open.sort_unstable_by_key(|(uuid, _)| *uuid);
        let mut unclosed = 0;
        for (uuid, stack) in open {
            let track = self.track_of(uuid, 0);
            for o in stack.into_iter().rev() {
                unclosed += 1;
                self.close(track, o, self.last_time, true);
            }
        }
        if unclosed > 0 {
            self.b.warn(
                Location::Part("events".into()),
                format!("{unclosed} slices never ended; they end at the last timestamp"),
            );
        }
        if self.unmatched_ends > 0 {
            self.b.warn(
                Location::Part("events".into()),
                format!(
                    "{} slice ends without a begin were ignored",
                    self.unmatched_ends
                ),
            );
        }
        if self.skipped > 0 {
            self.b.warn(
                Location::Part("events".into()),
                format!("{} track events of unknown type were skipped", self.skipped),
            );
        }
        for t in std::mem::take(&mut self.lanes) {
            self.b.set_layout(t, Layout::Lanes);
        }
        let mut points = std::mem::take(&mut self.flow_points);
        points.sort_unstable_by_key(|&(id, terminating, time, e)| (id, terminating, time, e));
        let mut chain: Option<(u64, EventRef)> = None;
        for (id, terminating, _, e) in points {
            if let Some((prev_id, prev)) = chain
                && prev_id == id
            {
                self.b.add_flow(prev, e);
            }
            chain = (!terminating).then_some((id, e));
        }
        self.b.finish()
    }
}
