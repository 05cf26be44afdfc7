//! The Perfetto writer: a `Trace` is `repeated TracePacket packet = 1`, so the file is a run
//! of length-delimited packets, each encoded into one reusable buffer and written at once.
//!
//! First every track's `TrackDescriptor` (uuid = track index + 1; processes and threads with
//! their pid/tid, whose parent Perfetto infers from the pid; other nodes under their parent;
//! counters with a `CounterDescriptor`; lanes split off a track as children with its name),
//! then each track's events: slices as `SLICE_BEGIN`/`SLICE_END` pairs in nesting order,
//! zero-length events as `INSTANT`, counter values as `COUNTER`. Names and the event kind (the
//! category) are interned on one sequence the first time they are used. A flow's id is its
//! index in [`Timeline::flows`] + 1: `flow_ids` on the call, `terminating_flow_ids` on the work.
//! Perfetto's timestamps are unsigned: a timeline with events before its session's start
//! (negative times) is shifted so that its earliest event is at 0.

use std::io::{self, Write};

use prost::Message;

use super::plan::{self, Placement, Step};
use super::proto::{
    CounterDescriptor, InternedData, InternedString, ProcessDescriptor,
    SEQ_INCREMENTAL_STATE_CLEARED, SEQ_NEEDS_INCREMENTAL_STATE, TYPE_COUNTER, TYPE_INSTANT,
    TYPE_SLICE_BEGIN, TYPE_SLICE_END, ThreadDescriptor, TracePacket, TrackDescriptor, TrackEvent,
};
use super::{ExportError, ExportSummary};
use crate::core::Ticker;
use crate::core::num::{index_u32, low_u32};
use crate::timeline::{EventId, EventKind, Payload, Timeline, TrackId, TrackKind};

/// The one sequence every packet is written on.
const SEQUENCE: u32 = 1;

struct Writer<'a, W: Write> {
    tl: &'a Timeline,
    out: &'a mut W,
    buf: Vec<u8>,
    /// Whether each string id was interned already (one bit each).
    named: Vec<u64>,
    categorized: [bool; EventKind::ALL.len()],
    range: Option<(i64, i64)>,
    /// Added to every time (a timeline with negative times starts at 0).
    shift: i64,
    flows: plan::FlowIndex,
    /// The packet of every event, its vectors reused.
    packet: TracePacket,
    summary: ExportSummary,
}

/// Writes `tl` as a Perfetto trace.
pub(crate) fn write<W: Write>(
    tl: &Timeline,
    range: Option<(i64, i64)>,
    ticker: &mut Ticker<'_>,
    out: &mut W,
) -> Result<ExportSummary, ExportError> {
    let shift = tl.time_range().map_or(0, |(start, _)| (-start).max(0));
    let mut w = Writer {
        tl,
        out,
        buf: Vec::with_capacity(256),
        named: vec![0; tl.strings.len().div_ceil(64)],
        categorized: [false; EventKind::ALL.len()],
        range,
        shift,
        flows: plan::FlowIndex::new(tl),
        packet: TracePacket::default(),
        summary: ExportSummary::default(),
    };
    let plans: Vec<(Vec<std::ops::Range<u32>>, Placement)> = tl
        .tracks
        .iter()
        .map(|t| {
            let rows = plan::spans(tl, t, range);
            let placement = plan::placement(tl, t, &rows);
            (rows, placement)
        })
        .collect();
    let mut lane_uuid = tl.tracks.len() as u64 + 1;
    let mut lanes: Vec<u64> = Vec::with_capacity(tl.tracks.len());
    for (t, (rows, placement)) in plans.iter().enumerate() {
        w.describe(TrackId(index_u32(t)), *placement, t == 0)?;
        lanes.push(lane_uuid);
        if *placement == Placement::Lanes {
            for _ in 1..rows.len() {
                w.put(&TracePacket {
                    trusted_packet_sequence_id: Some(SEQUENCE),
                    track_descriptor: Some(TrackDescriptor {
                        uuid: Some(lane_uuid),
                        parent_uuid: Some(t as u64 + 1),
                        name: Some(tl.tracks[t].name.clone()),
                        ..Default::default()
                    }),
                    ..Default::default()
                })?;
                lane_uuid += 1;
                w.summary.tracks += 1;
            }
        }
    }
    for (t, (rows, placement)) in plans.iter().enumerate() {
        let uuid = t as u64 + 1;
        match placement {
            Placement::Empty => {}
            Placement::Together => {
                plan::walk_nested(tl, rows, |step| w.step(step, uuid, ticker))?;
            }
            Placement::Lanes => {
                for (r, row) in rows.iter().enumerate() {
                    let track = if r == 0 {
                        uuid
                    } else {
                        lanes[t] + r as u64 - 1
                    };
                    for i in row.clone() {
                        if tl.start_of(i as usize) == tl.end_of(i as usize) {
                            w.step(Step::Instant(i), track, ticker)?;
                        } else {
                            w.step(Step::Begin(i), track, ticker)?;
                            w.step(Step::End(i), track, ticker)?;
                        }
                    }
                }
            }
            Placement::Counter => {
                for row in rows {
                    for i in row.clone() {
                        w.counter(i, uuid, ticker)?;
                    }
                }
            }
        }
    }
    Ok(w.summary)
}

impl<W: Write> Writer<'_, W> {
    /// Writes one packet as field 1 of `Trace`.
    fn put(&mut self, packet: &TracePacket) -> io::Result<()> {
        self.buf.clear();
        packet.encode(&mut self.buf).map_err(io::Error::other)?;
        let mut head = [0u8; 11];
        head[0] = 0x0A; // field 1, length-delimited
        let mut n = 1;
        let mut len = self.buf.len() as u64;
        loop {
            let byte = (len & 0x7F) as u8;
            len >>= 7;
            if len == 0 {
                head[n] = byte;
                n += 1;
                break;
            }
            head[n] = byte | 0x80;
            n += 1;
        }
        self.out.write_all(&head[..n])?;
        self.out.write_all(&self.buf)
    }

    /// The descriptor of track `t`.
    fn describe(&mut self, t: TrackId, placement: Placement, first: bool) -> io::Result<()> {
        let tl = self.tl;
        let track = &tl.tracks[t.0 as usize];
        let uuid = u64::from(t.0) + 1;
        let pid_of = |id: TrackId| {
            plan::ancestor(tl, id, TrackKind::Process)
                .and_then(|p| tl.track(p))
                .map(|p| pid_i32(p.key))
        };
        let mut desc = TrackDescriptor {
            uuid: Some(uuid),
            name: Some(track.name.clone()),
            ..Default::default()
        };
        match track.kind {
            TrackKind::Process => {
                desc.process = Some(ProcessDescriptor {
                    pid: Some(pid_i32(track.key)),
                    process_name: Some(track.name.clone()),
                });
            }
            TrackKind::Thread => {
                desc.thread = Some(ThreadDescriptor {
                    pid: Some(pid_of(t).unwrap_or(0)),
                    tid: Some(track.key as i64),
                    thread_name: Some(track.name.clone()),
                });
            }
            _ => desc.parent_uuid = track.parent.map(|p| u64::from(p.0) + 1),
        }
        if placement == Placement::Counter {
            desc.counter = Some(CounterDescriptor::default());
        }
        self.summary.tracks += 1;
        self.put(&TracePacket {
            trusted_packet_sequence_id: Some(SEQUENCE),
            sequence_flags: first.then_some(SEQ_INCREMENTAL_STATE_CLEARED),
            track_descriptor: Some(desc),
            ..Default::default()
        })
    }

    /// The packet of one step of a track's events.
    fn step(&mut self, step: Step, track: u64, ticker: &mut Ticker<'_>) -> Result<(), ExportError> {
        let tl = self.tl;
        let (i, kind) = match step {
            Step::Begin(i) => (i, TYPE_SLICE_BEGIN),
            Step::Instant(i) => (i, TYPE_INSTANT),
            Step::End(i) => {
                self.reset(tl.end_of(i as usize), track);
                if let Some(te) = self.packet.track_event.as_mut() {
                    te.r#type = Some(TYPE_SLICE_END);
                }
                self.put_packet()?;
                return Ok(());
            }
        };
        let Some(event) = tl.event(EventId(i)) else {
            return Ok(());
        };
        self.reset(event.start, track);
        self.name(event.name.0, event.kind);
        if let Some(te) = self.packet.track_event.as_mut() {
            te.r#type = Some(kind);
            self.flows.from(tl, i, self.range, &mut te.flow_ids);
            self.flows
                .to(tl, i, self.range, &mut te.terminating_flow_ids);
            self.summary.flows += te.flow_ids.len() as u64;
            te.correlation_id = (event.correlation != 0 && event.kind != EventKind::CpuSample)
                .then_some(u64::from(event.correlation));
        }
        self.put_packet()?;
        self.summary.events += 1;
        Ok(ticker.tick()?)
    }

    /// A counter value: the event's payload.
    fn counter(&mut self, i: u32, track: u64, ticker: &mut Ticker<'_>) -> Result<(), ExportError> {
        let tl = self.tl;
        let Some(event) = tl.event(EventId(i)) else {
            return Ok(());
        };
        self.reset(event.start, track);
        self.name(event.name.0, event.kind);
        if let Some(te) = self.packet.track_event.as_mut() {
            te.r#type = Some(TYPE_COUNTER);
            match tl.attrs(event.id).and_then(|a| a.payload.as_ref()) {
                Some(Payload::I64(v)) => te.counter_value = Some(*v),
                Some(Payload::U64(v)) => match i64::try_from(*v) {
                    Ok(v) => te.counter_value = Some(v),
                    Err(_) => te.double_counter_value = Some(*v as f64),
                },
                Some(Payload::F64(v)) => te.double_counter_value = Some(*v),
                Some(Payload::Text(t)) => match t.trim().parse::<f64>() {
                    Ok(v) => te.double_counter_value = Some(v),
                    Err(_) => te.counter_value = Some(0),
                },
                None => te.counter_value = Some(0),
            }
        }
        self.put_packet()?;
        self.summary.events += 1;
        Ok(ticker.tick()?)
    }

    /// Empties the reused packet (keeping its vectors' room) for an event at `time` on `track`.
    fn reset(&mut self, time: i64, track: u64) {
        let timestamp = self.time(time);
        let p = &mut self.packet;
        p.timestamp = Some(timestamp);
        p.trusted_packet_sequence_id = Some(SEQUENCE);
        p.sequence_flags = Some(SEQ_NEEDS_INCREMENTAL_STATE);
        p.interned_data = None;
        let te = p.track_event.get_or_insert_with(TrackEvent::default);
        te.track_uuid = Some(track);
        te.r#type = None;
        te.name_iid = None;
        te.category_iids.clear();
        te.flow_ids.clear();
        te.terminating_flow_ids.clear();
        te.correlation_id = None;
        te.counter_value = None;
        te.double_counter_value = None;
    }

    /// Names the reused packet's event (`name` and `kind` as its category), interning them on
    /// first use.
    fn name(&mut self, name: u32, kind: EventKind) {
        let mut interned = InternedData::default();
        let (word, bit) = (name as usize / 64, 1u64 << (name % 64));
        if self.named.get(word).is_some_and(|w| w & bit == 0) {
            self.named[word] |= bit;
            interned.event_names.push(InternedString {
                iid: Some(u64::from(name) + 1),
                name: Some(self.tl.strings.get(crate::timeline::StrId(name)).to_owned()),
            });
        }
        let k = kind as usize;
        if !self.categorized[k] {
            self.categorized[k] = true;
            interned.event_categories.push(InternedString {
                iid: Some(k as u64 + 1),
                name: Some(kind.as_str().to_owned()),
            });
        }
        if !interned.event_names.is_empty() || !interned.event_categories.is_empty() {
            self.packet.interned_data = Some(interned);
        }
        if let Some(te) = self.packet.track_event.as_mut() {
            te.name_iid = Some(u64::from(name) + 1);
            te.category_iids.push(k as u64 + 1);
        }
    }

    /// Writes the reused packet.
    fn put_packet(&mut self) -> io::Result<()> {
        let packet = std::mem::take(&mut self.packet);
        let written = self.put(&packet);
        self.packet = packet;
        written
    }

    fn time(&self, t: i64) -> u64 {
        t.saturating_add(self.shift).max(0) as u64
    }
}

/// A process track's key as Perfetto's `int32` pid: its low 32 bits, two's complement. A key
/// read from a Perfetto trace is that trace's pid sign-extended, so this gives it back; an
/// nsys or NVTXT pid (below 2²² on Linux, 2³² on Windows) is itself, or its `int32` reading.
fn pid_i32(key: u64) -> i32 {
    i32::from_ne_bytes(low_u32(key).to_ne_bytes())
}
