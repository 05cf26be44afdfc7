//! Details of one event of an `.atp` timeline, read from the trace on demand: a call's
//! arguments, return value and source location; a command's queue, device, times and work
//! sizes; an HSA dispatch's agent and queue. And the key that finds a kernel dispatch's row in
//! the session's counter and occupancy files.

use super::timeline::EventOrigin;
use super::{ApiThread, AtpFile, CommandPayload};
use crate::timeline::{Event, EventId, Timeline};

/// A kernel dispatch, as the session's counter and occupancy files key it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DispatchKey {
    /// The OS thread that enqueued it.
    pub thread_id: u64,
    /// The enqueue call's index within its thread (0-based).
    pub call_index: u64,
    /// The kernel name.
    pub kernel: String,
    /// How many dispatches of the same kernel the thread made before (0-based).
    pub nth: usize,
}

/// The thread block holding call `index`, with the call's index within it.
fn thread_of_call(file: &AtpFile, index: usize) -> Option<(&ApiThread, usize)> {
    let i = u32::try_from(index).ok()?;
    let thread = file.trace.threads.iter().find(|t| t.calls.contains(&i))?;
    Some((thread, (i - thread.calls.start) as usize))
}

/// `(label, value)` rows describing the event, from the trace.
pub fn event_details(file: &AtpFile, timeline: &Timeline, event: EventId) -> Vec<(String, String)> {
    let Some(e) = timeline.event(event) else {
        return Vec::new();
    };
    let mut rows = DetailRows(Vec::new());
    match EventOrigin::of(e.kind, e.source) {
        Some(EventOrigin::Call(index)) => call_rows(&mut rows, file, &e, index),
        Some(EventOrigin::Enqueue(index)) => command_rows(&mut rows, file, &e, index),
        Some(EventOrigin::HsaDispatch(index)) => hsa_dispatch_rows(&mut rows, file, index),
        Some(EventOrigin::HsaCopy(index)) => hsa_copy_rows(&mut rows, file, index),
        Some(EventOrigin::Perfmarker(_)) => perfmarker_rows(&mut rows, timeline, &e),
        None => {}
    }
    rows.0
}

/// The `(label, value)` rows of one event, in order.
struct DetailRows(Vec<(String, String)>);

impl DetailRows {
    /// Appends a row.
    fn push(&mut self, label: &str, value: String) {
        self.0.push((label.to_string(), value));
    }
}

/// An API call: its API, thread, index and source location, then its return value and
/// arguments.
fn call_rows(rows: &mut DetailRows, file: &AtpFile, e: &Event, index: usize) {
    let trace = &file.trace;
    if let Some((thread, within)) = thread_of_call(file, index) {
        rows.push("API", thread.api.label().to_string());
        rows.push("Thread", thread.thread_id.to_string());
        rows.push("Call index", within.to_string());
        if let Some(loc) = trace.source_location(thread, within) {
            rows.push("Function", trace.names.get(loc.function).to_string());
            match loc.file {
                Some(f) => rows.push("Source", format!("{}:{}", trace.names.get(f), loc.line)),
                None => rows.push("Source", "no debug information".to_string()),
            }
        }
    }
    // The line's offset: from the call record, or (records freed) from the event.
    let line = match trace.calls.get(index) {
        Some(call) => file.api_line(call),
        None if e.correlation != 0 => file.api_line_at(u64::from(e.correlation)),
        None => None,
    };
    if let Some(line) = line {
        if let Some(ret) = line.return_value {
            rows.push("Return value", ret);
        }
        for (i, arg) in line.args.into_iter().enumerate() {
            rows.push(&format!("Argument {}", i + 1), arg);
        }
    }
}

/// An OpenCL command: its kind, device, context and queue, its four times, and its kernel
/// launch or transfer size.
fn command_rows(rows: &mut DetailRows, file: &AtpFile, e: &Event, index: usize) {
    let trace = &file.trace;
    let Some(c) = command_facts(file, e, index) else {
        return;
    };
    if let Some(kind) = trace.command_kinds.get(c.kind as usize) {
        rows.push("Command", format!("{} ({})", kind.name, kind.type_id));
    }
    if let Some(q) = trace.queues.get(c.queue as usize) {
        rows.push("Device", trace.names.get(q.device).replace('_', " "));
        rows.push(
            "Context",
            format!("{} (0x{:x})", q.context_id, q.context_handle),
        );
        rows.push("Queue", format!("{} (0x{:x})", q.queue_id, q.queue_handle));
    }
    rows.push("Queued (ns)", c.queued_ns.to_string());
    rows.push("Submitted (ns)", c.submit_ns.to_string());
    rows.push("Started (ns)", c.start_ns.to_string());
    rows.push("Ended (ns)", c.end_ns.to_string());
    rows.push(
        "Waiting (queued to start)",
        format!("{} ns", c.start_ns.saturating_sub(c.queued_ns)),
    );
    match c.payload {
        CommandPayload::Kernel(launch) => {
            if let Some(l) = trace.launches.get(launch as usize) {
                rows.push("Kernel", trace.names.get(l.kernel).to_string());
                rows.push("Kernel handle", format!("0x{:x}", l.kernel_handle));
                rows.push("Global work size", sizes(l.global.as_slice()));
                rows.push(
                    "Local work size",
                    l.local
                        .as_ref()
                        .map_or("NULL".to_string(), |w| sizes(w.as_slice())),
                );
            }
        }
        CommandPayload::Transfer(size) => {
            if let Some(bytes) = trace.transfer_sizes.get(size as usize) {
                rows.push("Bytes", bytes.to_string());
            }
        }
        CommandPayload::None => {}
    }
}

/// An HSA kernel dispatch: its kernel, agent, queue, packet and line.
fn hsa_dispatch_rows(rows: &mut DetailRows, file: &AtpFile, index: usize) {
    let trace = &file.trace;
    let Some(d) = trace.hsa_dispatches.get(index) else {
        return;
    };
    rows.push("Kernel", trace.names.get(d.kernel).to_string());
    rows.push("Kernel object", format!("0x{:x}", d.kernel_handle));
    rows.push("Agent", trace.names.get(d.agent).to_string());
    if let Some(h) = d.agent_handle {
        rows.push("Agent handle", format!("0x{h:x}"));
    }
    if let Some(i) = d.agent_index {
        rows.push("Agent index", i.to_string());
    }
    if let Some(q) = d.queue_index {
        rows.push("Queue", q.to_string());
    }
    if let Some(h) = d.queue_handle {
        rows.push("Queue handle", format!("0x{h:x}"));
    }
    if let Some(p) = d.packet_id {
        rows.push("Packet id", p.to_string());
    }
    rows.push("Line", d.line.to_string());
}

/// An HSA memory copy: its size.
fn hsa_copy_rows(rows: &mut DetailRows, file: &AtpFile, index: usize) {
    let trace = &file.trace;
    let Some(c) = trace.hsa_copies.get(index) else {
        return;
    };
    if let Some(bytes) = c.bytes {
        rows.push("Bytes", bytes.to_string());
    }
}

/// A performance marker: what the timeline holds (the records are freed once it is built).
fn perfmarker_rows(rows: &mut DetailRows, timeline: &Timeline, e: &Event) {
    // What the timeline holds (the records are freed once it is built): the name
    // (`marker [group]`), the thread of its track and the nesting depth of its row.
    rows.push("Marker", timeline.name(e.name).to_string());
    if let Some((track, depth)) = timeline.locate(e.id) {
        let thread = timeline
            .track(track)
            .and_then(|t| t.parent)
            .and_then(|p| timeline.track(p));
        if let Some(thread) = thread {
            rows.push("Thread", thread.key.to_string());
        }
        rows.push("Depth", depth.to_string());
    }
}

/// An OpenCL command's facts: from its full record, or from its compact record and the event's
/// own start and end (exact: see [`AtpFile::free_timeline_records`]).
struct CommandFacts {
    queued_ns: u64,
    submit_ns: u64,
    start_ns: u64,
    end_ns: u64,
    queue: u32,
    kind: u16,
    payload: CommandPayload,
}

fn command_facts(file: &AtpFile, event: &Event, index: usize) -> Option<CommandFacts> {
    if let Some(c) = file.trace.enqueues.get(index) {
        return Some(CommandFacts {
            queued_ns: c.queued_ns,
            submit_ns: c.submit_ns,
            start_ns: c.start_ns,
            end_ns: c.end_ns,
            queue: c.queue,
            kind: c.kind,
            payload: c.payload(),
        });
    }
    let r = file.commands.get(index)?;
    Some(CommandFacts {
        queued_ns: r.queued_ns,
        submit_ns: r.submit_ns,
        start_ns: u64::try_from(event.start).ok()?,
        end_ns: u64::try_from(event.end).ok()?,
        queue: r.queue,
        kind: r.kind,
        payload: r.payload(),
    })
}

/// The enque call and payload of command `index`, from whichever record the file holds.
fn command_call_and_payload(file: &AtpFile, index: usize) -> Option<(u32, CommandPayload)> {
    match file.trace.enqueues.get(index) {
        Some(c) => Some((c.call, c.payload())),
        None => file.commands.get(index).map(|r| (r.call, r.payload())),
    }
}

/// Sizes as `{a, b, c}`.
fn sizes(values: &[u64]) -> String {
    let inner: Vec<String> = values.iter().map(u64::to_string).collect();
    format!("{{{}}}", inner.join(", "))
}

/// The dispatch key of a kernel command (OpenCL), for the session's counters and occupancy.
pub fn dispatch_key(file: &AtpFile, timeline: &Timeline, event: EventId) -> Option<DispatchKey> {
    let trace = &file.trace;
    let e = timeline.event(event)?;
    let Some(EventOrigin::Enqueue(index)) = EventOrigin::of(e.kind, e.source) else {
        return None;
    };
    let (call, payload) = command_call_and_payload(file, index)?;
    let CommandPayload::Kernel(launch) = payload else {
        return None;
    };
    let launch = trace.launches.get(launch as usize)?;
    let (thread, within) = thread_of_call(file, call as usize)?;
    let nth = (0..index)
        .filter_map(|i| command_call_and_payload(file, i))
        .filter(|(earlier_call, earlier_payload)| {
            matches!(earlier_payload, CommandPayload::Kernel(l)
                if trace.launches.get(*l as usize).is_some_and(|l| l.kernel == launch.kernel))
                && thread.calls.contains(earlier_call)
        })
        .count();
    Some(DispatchKey {
        thread_id: thread.thread_id,
        call_index: within as u64,
        kernel: trace.names.get(launch.kernel).to_string(),
        nth,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::EventKind;

    #[test]
    fn session_fixture_on_the_timeline() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/codexl/session1.atp");
        let file = AtpFile::open(&path).unwrap();
        let t = super::super::timeline::timeline_of(&file);
        assert_eq!(t.event_count(), file.trace.event_count());
        let kernels: Vec<_> = t.events().filter(|e| e.kind == EventKind::Kernel).collect();
        assert!(!kernels.is_empty());
        let mut waits = 0;
        // Every OpenCL kernel command has a flow from its enqueue call and a dispatch key.
        for k in &kernels {
            if let Some(EventOrigin::Enqueue(_)) = EventOrigin::of(k.kind, k.source) {
                let partners = t.flow_partners(k.id);
                assert_eq!(partners.len(), 1, "{}", t.name(k.name));
                let call = t.event(partners[0]).unwrap();
                assert_eq!(call.kind, EventKind::HostApi);
                assert!(call.start <= k.start);
                let key = dispatch_key(&file, &t, k.id).unwrap();
                assert_eq!(key.kernel, t.name(k.name));
                let details = event_details(&file, &t, k.id);
                assert!(details.iter().any(|(k, _)| k == "Global work size"));
                // The waiting time is kept for drawing.
                let queued = t.queued_ns(k.id);
                assert!(queued.is_none_or(|q| q < k.start));
                waits += usize::from(queued.is_some());
            }
        }
        assert!(
            waits > 0,
            "the fixture's kernel commands wait in their queue"
        );
        let marker = t.events().find(|e| e.kind == EventKind::Range).unwrap();
        let rows = event_details(&file, &t, marker.id);
        assert!(
            rows.iter().any(|(k, v)| k == "Depth" && !v.is_empty()),
            "{rows:?}"
        );
        let api = t.events().find(|e| e.kind == EventKind::HostApi).unwrap();
        let details = event_details(&file, &t, api.id);
        assert!(details.iter().any(|(k, _)| k == "Thread"), "{details:?}");
        // The same details once the records the timeline holds are freed.
        let mut slim = AtpFile::open(&path).unwrap();
        slim.free_timeline_records();
        assert!(slim.trace.calls.is_empty() && slim.trace.perfmarkers.is_empty());
        assert!(slim.trace.enqueues.is_empty());
        assert_eq!(slim.commands.len(), file.trace.enqueues.len());
        for e in t.events() {
            assert_eq!(
                event_details(&slim, &t, e.id),
                event_details(&file, &t, e.id)
            );
            assert_eq!(dispatch_key(&slim, &t, e.id), dispatch_key(&file, &t, e.id));
        }
        assert!(
            details.iter().any(|(k, _)| k.starts_with("Argument")),
            "{details:?}"
        );
    }
}
