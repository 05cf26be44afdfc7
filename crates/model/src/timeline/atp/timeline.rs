//! An `.atp` trace on the timeline.
//!
//! Rows: `Host` (the header's application) → one thread per OS thread id → `OpenCL API` / `HSA
//! API` (the calls) and `Perfmarkers` (nested ranges at their depth). Devices: one GPU row per
//! device or agent name → `Context N` → `Queue N` (OpenCL commands, execution start–end, with the
//! waiting time queued → start kept as [`EventAttrs::queued_ns`] and drawn lighter), HSA
//! dispatches under their agent → `HSA queue N`, HSA async copies under `HSA async copies`.
//! Kernels are [`EventKind::Kernel`], transfers and copies [`EventKind::Memcpy`], other commands
//! (markers, barriers...) [`EventKind::DeviceCommand`]. Each enqueue call flows to its command
//! and each `hsa_amd_memory_async_copy` to its copy.
//!
//! An event's `source` says where it came from ([`EventOrigin`]), so details (arguments, source
//! location, work sizes, the counters of a dispatch) are read from the trace on demand. An API
//! call's `correlation` holds the byte offset of its trace line (0: none, or a file of 4 GiB or
//! more), so the per-call records can be freed once the timeline is built
//! ([`super::AtpFile::free_timeline_records`]).

use super::{AtpFile, AtpTrace, CommandPayload};
use crate::problem::Location;
use crate::timeline::{
    EventAttrs, EventKind, Layout, NewEvent, Timeline, TimelineBuilder, TrackId, TrackKind,
};

/// Series key of a thread's OpenCL calls.
const SERIES_OPENCL: u64 = 1;
/// Series key of a thread's HSA calls.
const SERIES_HSA: u64 = 2;
/// Series key of a thread's perfmarkers.
const SERIES_PERFMARKERS: u64 = 3;

/// Tag bits (top two of `source`) of device events.
const TAG_SHIFT: u32 = 30;
const INDEX_MASK: u32 = (1 << TAG_SHIFT) - 1;

/// Where a timeline event of an `.atp` trace comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventOrigin {
    /// `AtpTrace::calls[i]`.
    Call(usize),
    /// `AtpTrace::enqueues[i]`.
    Enqueue(usize),
    /// `AtpTrace::hsa_dispatches[i]`.
    HsaDispatch(usize),
    /// `AtpTrace::hsa_copies[i]`.
    HsaCopy(usize),
    /// `AtpTrace::perfmarkers[i]`.
    Perfmarker(usize),
}

impl EventOrigin {
    /// The origin of an event of `kind` whose `source` is `source`.
    pub fn of(kind: EventKind, source: u32) -> Option<EventOrigin> {
        let index = (source & INDEX_MASK) as usize;
        Some(match kind {
            EventKind::HostApi => EventOrigin::Call(source as usize),
            EventKind::Range => EventOrigin::Perfmarker(source as usize),
            EventKind::Kernel | EventKind::Memcpy | EventKind::DeviceCommand => {
                match source >> TAG_SHIFT {
                    0 => EventOrigin::Enqueue(index),
                    1 => EventOrigin::HsaDispatch(index),
                    2 => EventOrigin::HsaCopy(index),
                    _ => return None,
                }
            }
            _ => return None,
        })
    }

    /// The `source` value recording this origin (device indexes beyond 2³⁰ are not
    /// representable and give `None`).
    fn source(self) -> Option<u32> {
        let tagged = |tag: u32, i: usize| {
            u32::try_from(i)
                .ok()
                .filter(|i| *i <= INDEX_MASK)
                .map(|i| (tag << TAG_SHIFT) | i)
        };
        match self {
            EventOrigin::Call(i) | EventOrigin::Perfmarker(i) => u32::try_from(i).ok(),
            EventOrigin::Enqueue(i) => tagged(0, i),
            EventOrigin::HsaDispatch(i) => tagged(1, i),
            EventOrigin::HsaCopy(i) => tagged(2, i),
        }
    }
}

/// Nanoseconds as the timeline's signed time (values beyond `i64::MAX` are clamped).
fn ns(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// The timeline of an opened `.atp` file; the reader's warnings become load warnings.
pub fn timeline_of(file: &AtpFile) -> Timeline {
    let trace = &file.trace;
    let mut b = TimelineBuilder::new(file.path.clone());
    let host_name = match trace.header.get("Application") {
        Some(app) if !app.trim().is_empty() => format!("Host ({})", app.trim()),
        _ => "Host".to_string(),
    };
    let host = b.track(None, TrackKind::Machine, 0, || host_name);
    let call_events = add_calls(&mut b, trace, host, file.offsets_fit_u32());
    let mut devices = Devices::default();
    add_enqueues(&mut b, trace, &call_events, &mut devices);
    add_hsa(&mut b, trace, &call_events, &mut devices);
    add_perfmarkers(&mut b, trace, host);
    for w in &trace.warnings {
        // The timeline names the file as a whole `line 0`, as it always has.
        let location = match &w.location {
            Location::None => Location::line(0),
            other => other.clone(),
        };
        b.warn(location, w.message.clone());
    }
    if trace.warnings_dropped > 0 {
        b.warn(
            Location::line(0),
            format!("{} more warning(s) not listed", trace.warnings_dropped),
        );
    }
    b.sort_children_by_key();
    b.finish()
}

/// Device rows numbered 0, 1, 2... in order of first appearance (OpenCL devices and HSA agents
/// by name; the async-copy row last).
#[derive(Default)]
struct Devices {
    by_name: std::collections::HashMap<String, u64>,
}

impl Devices {
    /// The GPU row named `name` (`fallback` when empty).
    fn track(&mut self, b: &mut TimelineBuilder, name: &str, fallback: &str) -> TrackId {
        let label = if name.is_empty() { fallback } else { name };
        let next = self.by_name.len() as u64;
        let key = *self.by_name.entry(label.to_string()).or_insert(next);
        b.track(None, TrackKind::Gpu, key, || label.to_string())
    }
}

/// The thread row of `thread_id` under the host.
fn thread_track(b: &mut TimelineBuilder, host: TrackId, thread_id: u64) -> TrackId {
    b.track(Some(host), TrackKind::Thread, thread_id, || {
        format!("Thread {thread_id}")
    })
}

/// Host API calls, per thread and API; returns each call's pushed event (by call index).
fn add_calls(
    b: &mut TimelineBuilder,
    trace: &AtpTrace,
    host: TrackId,
    offsets_fit: bool,
) -> Vec<Option<crate::timeline::EventRef>> {
    let mut refs = vec![None; trace.calls.len()];
    for thread in &trace.threads {
        let t = thread_track(b, host, thread.thread_id);
        let (key, label) = match thread.api {
            super::Api::OpenCl => (SERIES_OPENCL, "OpenCL API"),
            super::Api::Hsa => (SERIES_HSA, "HSA API"),
        };
        let series = b.track(Some(t), TrackKind::Series, key, || label.to_string());
        let start = thread.calls.start as usize;
        for (offset, call) in trace.thread_calls(thread).iter().enumerate() {
            let index = start + offset;
            let Some(source) = EventOrigin::Call(index).source() else {
                continue;
            };
            let name = b.intern(trace.call_name(call));
            let line_offset = call
                .trace_offset()
                .filter(|_| offsets_fit)
                .and_then(|o| u32::try_from(o).ok())
                .unwrap_or(0);
            let pushed = b.push(
                series,
                NewEvent {
                    correlation: line_offset,
                    ..NewEvent::new(
                        EventKind::HostApi,
                        ns(call.start_ns),
                        ns(call.end_ns),
                        name,
                        source,
                    )
                },
            );
            if let Some(slot) = refs.get_mut(index) {
                *slot = Some(pushed);
            }
        }
    }
    refs
}

/// OpenCL device commands on their device → context → queue rows, with flows from their calls.
fn add_enqueues(
    b: &mut TimelineBuilder,
    trace: &AtpTrace,
    calls: &[Option<crate::timeline::EventRef>],
    devices: &mut Devices,
) {
    for (index, command) in trace.enqueues.iter().enumerate() {
        let Some(source) = EventOrigin::Enqueue(index).source() else {
            continue;
        };
        let Some(queue) = trace.queues.get(command.queue as usize) else {
            continue;
        };
        let device_name = trace.names.get(queue.device).replace('_', " ");
        let gpu = devices.track(b, &device_name, "Device");
        let context = b.track(
            Some(gpu),
            TrackKind::Context,
            u64::from(queue.context_id),
            || format!("Context {}", queue.context_id),
        );
        let row = b.track(
            Some(context),
            TrackKind::Queue,
            u64::from(queue.queue_id),
            || format!("Queue {}", queue.queue_id),
        );
        b.set_layout(row, Layout::Lanes);
        let kind_name = trace
            .command_kinds
            .get(command.kind as usize)
            .map_or("command", |k| k.name.as_str());
        let (kind, name) = match command.payload() {
            CommandPayload::Kernel(_) => (
                EventKind::Kernel,
                trace
                    .launch(command)
                    .map_or(kind_name, |l| trace.names.get(l.kernel)),
            ),
            CommandPayload::Transfer(_) => (EventKind::Memcpy, kind_name),
            CommandPayload::None => (EventKind::DeviceCommand, kind_name),
        };
        let name = b.intern(name);
        let pushed = b.push(
            row,
            NewEvent::new(kind, ns(command.start_ns), ns(command.end_ns), name, source),
        );
        if command.queued_ns > 0 && command.queued_ns < command.start_ns {
            b.set_attrs(
                pushed,
                EventAttrs {
                    queued_ns: Some(ns(command.queued_ns)),
                    ..EventAttrs::default()
                },
            );
        }
        if let Some(Some(call)) = calls.get(command.call as usize) {
            b.add_flow(*call, pushed);
        }
    }
}

/// HSA kernel dispatches per agent and queue, and async copies with flows from their calls.
fn add_hsa(
    b: &mut TimelineBuilder,
    trace: &AtpTrace,
    calls: &[Option<crate::timeline::EventRef>],
    devices: &mut Devices,
) {
    for (index, dispatch) in trace.hsa_dispatches.iter().enumerate() {
        let Some(source) = EventOrigin::HsaDispatch(index).source() else {
            continue;
        };
        let gpu = devices.track(b, trace.names.get(dispatch.agent), "HSA agent");
        let queue = dispatch.queue_index.unwrap_or(0);
        let row = b.track(Some(gpu), TrackKind::Queue, u64::from(queue), || {
            format!("HSA queue {queue}")
        });
        b.set_layout(row, Layout::Lanes);
        let name = b.intern(trace.names.get(dispatch.kernel));
        b.push(
            row,
            NewEvent::new(
                EventKind::Kernel,
                ns(dispatch.start_ns),
                ns(dispatch.end_ns),
                name,
                source,
            ),
        );
    }
    if trace.hsa_copies.is_empty() {
        return;
    }
    let gpu = devices.track(b, "HSA async copies", "HSA async copies");
    let row = b.track(Some(gpu), TrackKind::Queue, 0, || "Copies".to_string());
    b.set_layout(row, Layout::Lanes);
    let name = b.intern("hsa_amd_memory_async_copy");
    for (index, copy) in trace.hsa_copies.iter().enumerate() {
        let Some(source) = EventOrigin::HsaCopy(index).source() else {
            continue;
        };
        let pushed = b.push(
            row,
            NewEvent::new(
                EventKind::Memcpy,
                ns(copy.start_ns),
                ns(copy.end_ns),
                name,
                source,
            ),
        );
        if let Some(Some(call)) = calls.get(copy.call as usize) {
            b.add_flow(*call, pushed);
        }
    }
}

/// Perfmarker ranges, nested per thread; a range never ended is open to the trace's end.
fn add_perfmarkers(b: &mut TimelineBuilder, trace: &AtpTrace, host: TrackId) {
    if trace.perfmarkers.is_empty() {
        return;
    }
    let last = trace
        .calls
        .iter()
        .map(|c| c.end_ns)
        .chain(trace.perfmarkers.iter().filter_map(|p| p.end()))
        .chain(trace.perfmarkers.iter().map(|p| p.start_ns))
        .max()
        .unwrap_or(0);
    for (index, marker) in trace.perfmarkers.iter().enumerate() {
        let Some(source) = EventOrigin::Perfmarker(index).source() else {
            continue;
        };
        let t = thread_track(b, host, marker.thread_id);
        let series = b.track(Some(t), TrackKind::Series, SERIES_PERFMARKERS, || {
            "Perfmarkers".to_string()
        });
        b.set_layout(series, Layout::Explicit);
        let group = trace.names.get(marker.group);
        let label = trace.names.get(marker.name);
        let name = if group.is_empty() {
            b.intern(label)
        } else {
            b.intern(&format!("{label} [{group}]"))
        };
        let pushed = b.push(
            series,
            NewEvent {
                kind: EventKind::Range,
                start: ns(marker.start_ns),
                end: ns(marker.end().unwrap_or(last.max(marker.start_ns))),
                name,
                correlation: 0,
                source,
                depth: u16::try_from(marker.depth).unwrap_or(u16::MAX),
            },
        );
        if marker.end().is_none() {
            b.set_attrs(
                pushed,
                EventAttrs {
                    open: true,
                    ..EventAttrs::default()
                },
            );
        }
    }
}
