//! The Chrome JSON writer: `{"traceEvents":[...],"displayTimeUnit":"ns"}`, one event per line.
//!
//! Chrome's format knows processes and threads only. A Sightline process keeps its pid; a GPU
//! (and any other tree without a process) becomes a process of its own (pid `0x40000000 +`
//! its track index); every track with events becomes a thread (tids numbered from 1) named by
//! its path under that process, and a track whose rows do not nest gives each row a thread
//! (see [`super::plan`]). Slices are `X` events, zero-length events `i`, counter values `C`,
//! names `M` metadata, flows `s` (on the call) and `f` with `"bp":"e"` (on the work), both
//! bound to the slice that encloses their time. Times are µs written with three decimals from
//! the first event on (`otherData.sightline_origin_ns` holds that origin in ns), so they keep the
//! nanoseconds exactly.

use std::io::{self, Write};

use super::plan::{self, Placement};
use super::{ExportError, ExportSummary};
use crate::core::Ticker;
use crate::pyjson::write_string;
use crate::timeline::{EventId, EventKind, Payload, Timeline, TrackId, TrackKind};

/// The `otherData` key holding the ns that every `ts` counts from (written before the events).
pub const ORIGIN_KEY: &str = "sightline_origin_ns";

/// The pid of a process made for a tree without one (a GPU, a machine's series).
pub const SYNTHETIC_PID_BASE: i64 = 0x4000_0000;

/// Writes `tl` as a Chrome JSON trace.
pub(crate) fn write<W: Write>(
    tl: &Timeline,
    range: Option<(i64, i64)>,
    ticker: &mut Ticker<'_>,
    out: &mut W,
) -> Result<ExportSummary, ExportError> {
    // Times are written from the first event on (µs as doubles keep the ns only up to ~100
    // days); the origin goes first, so a reader can add it back as it streams.
    let origin = tl.time_range().map_or(0, |(start, _)| start);
    writeln!(
        out,
        "{{\"otherData\":{{\"{ORIGIN_KEY}\":{origin}}},\"traceEvents\":["
    )?;
    let mut w = ChromeWriter {
        tl,
        range,
        origin,
        ticker,
        out,
        line: Vec::with_capacity(256),
        first: true,
        summary: ExportSummary::default(),
        next_tid: 1,
        index: plan::FlowIndex::new(tl),
    };
    let mut named_owner = vec![false; tl.tracks.len()];
    for (t, track) in tl.tracks.iter().enumerate() {
        let id = TrackId(crate::core::num::index_u32(t));
        let rows = plan::spans(tl, track, range);
        let placement = plan::placement(tl, track, &rows);
        if placement == Placement::Empty {
            continue;
        }
        let (owner, pid) = owner_of(tl, id);
        if !std::mem::replace(&mut named_owner[owner.0 as usize], true) {
            meta(
                &mut w.line,
                "process_name",
                pid,
                None,
                &tl.tracks[owner.0 as usize].name,
            )?;
            w.emit()?;
        }
        let label = path_under(tl, id, owner);
        if placement == Placement::Counter {
            w.counter_track(&rows, pid, &label)?;
            continue;
        }
        let groups: Vec<Vec<std::ops::Range<u32>>> = match placement {
            Placement::Lanes => rows.iter().map(|r| vec![r.clone()]).collect(),
            _ => vec![rows],
        };
        for (lane, group) in groups.iter().enumerate() {
            let name = if lane == 0 {
                label.clone()
            } else {
                format!("{label} (lane {})", lane + 1)
            };
            w.thread(pid, &name, group)?;
        }
    }
    w.out.write_all(b"\n],\"displayTimeUnit\":\"ns\"}\n")?;
    Ok(w.summary)
}

/// The state of one Chrome JSON write: where events go, what was written, and the flow index.
struct ChromeWriter<'a, 't, W> {
    tl: &'a Timeline,
    range: Option<(i64, i64)>,
    /// The ns every `ts` counts from.
    origin: i64,
    ticker: &'a mut Ticker<'t>,
    out: &'a mut W,
    /// The event being written.
    line: Vec<u8>,
    /// Whether no event was written yet (no `,` before it).
    first: bool,
    summary: ExportSummary,
    /// The tid of the next thread.
    next_tid: i64,
    index: plan::FlowIndex,
}

impl<W: Write> ChromeWriter<'_, '_, W> {
    /// Writes the event in `line` (after a `,` unless it is the first) and clears it.
    fn emit(&mut self) -> io::Result<()> {
        if !std::mem::take(&mut self.first) {
            self.out.write_all(b",\n")?;
        }
        self.out.write_all(&self.line)?;
        self.line.clear();
        Ok(())
    }

    /// A counter track: one `C` event per value, on the process `pid`.
    fn counter_track(
        &mut self,
        rows: &[std::ops::Range<u32>],
        pid: i64,
        label: &str,
    ) -> Result<(), ExportError> {
        for i in rows.iter().flat_map(|r| r.clone()) {
            counter(self.tl, i, self.origin, pid, label, &mut self.line)?;
            self.emit()?;
            self.summary.events += 1;
            self.ticker.tick()?;
        }
        self.summary.tracks += 1;
        Ok(())
    }

    /// A thread `name` of process `pid` (the next tid): its name and sort index, then the
    /// events of `group` with the flows that start and end on them.
    fn thread(
        &mut self,
        pid: i64,
        name: &str,
        group: &[std::ops::Range<u32>],
    ) -> Result<(), ExportError> {
        let (tl, range, origin) = (self.tl, self.range, self.origin);
        let tid = self.next_tid;
        self.next_tid += 1;
        self.summary.tracks += 1;
        meta(&mut self.line, "thread_name", pid, Some(tid), name)?;
        self.emit()?;
        write!(
            self.line,
            "{{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":{pid},\"tid\":{tid},\"args\":{{\"sort_index\":{tid}}}}}"
        )?;
        self.emit()?;
        // What every event of this thread says after its name.
        let at = format!(",\"pid\":{pid},\"tid\":{tid},\"ts\":").into_bytes();
        // The flow ids of the event being written.
        let mut flows = Vec::new();
        for i in group.iter().flat_map(|r| r.clone()) {
            let Some(e) = tl.event(EventId(i)) else {
                continue;
            };
            slice(tl, &e, origin, &at, &mut self.line)?;
            self.emit()?;
            self.summary.events += 1;
            self.index.from(tl, i, range, &mut flows);
            self.summary.flows += flows.len() as u64;
            for &f in &flows {
                flow(&mut self.line, b"s", f, &at, e.start - origin);
                self.emit()?;
            }
            self.index.to(tl, i, range, &mut flows);
            for &f in &flows {
                flow(&mut self.line, b"f", f, &at, e.start - origin);
                self.emit()?;
            }
            self.ticker.tick()?;
        }
        Ok(())
    }
}

/// The track that becomes the process of `track` (its process, else its GPU, else its root)
/// and that process's pid.
fn owner_of(tl: &Timeline, track: TrackId) -> (TrackId, i64) {
    if let Some(p) = plan::ancestor(tl, track, TrackKind::Process) {
        let key = tl.track(p).map_or(0, |t| t.key);
        return (p, key as i64);
    }
    let owner = plan::ancestor(tl, track, TrackKind::Gpu).unwrap_or_else(|| {
        let mut cur = track;
        while let Some(parent) = tl.track(cur).and_then(|t| t.parent) {
            cur = parent;
        }
        cur
    });
    (owner, SYNTHETIC_PID_BASE + i64::from(owner.0))
}

/// The names of the tracks from below `owner` down to `track` (`track`'s own name when it is
/// the owner), joined by " / ".
fn path_under(tl: &Timeline, track: TrackId, owner: TrackId) -> String {
    let mut parts = Vec::new();
    let mut cur = Some(track);
    while let Some(id) = cur {
        if id == owner && !parts.is_empty() {
            break;
        }
        let Some(t) = tl.track(id) else { break };
        parts.push(t.name.as_str());
        if id == owner {
            break;
        }
        cur = t.parent;
    }
    parts.reverse();
    parts.join(" / ")
}

/// A `M` metadata event naming a process or thread.
fn meta(line: &mut Vec<u8>, what: &str, pid: i64, tid: Option<i64>, name: &str) -> io::Result<()> {
    write!(line, "{{\"ph\":\"M\",\"name\":\"{what}\",\"pid\":{pid}")?;
    if let Some(tid) = tid {
        write!(line, ",\"tid\":{tid}")?;
    }
    line.extend_from_slice(b",\"args\":{\"name\":");
    write_string(line, name)?;
    line.extend_from_slice(b"}}");
    Ok(())
}

/// An `X` slice or an `i` instant; `at` is the thread's `,"pid":P,"tid":T,"ts":`.
fn slice(
    tl: &Timeline,
    e: &crate::timeline::Event,
    origin: i64,
    at: &[u8],
    line: &mut Vec<u8>,
) -> io::Result<()> {
    let instant = e.end == e.start;
    line.extend_from_slice(if instant {
        b"{\"ph\":\"i\",\"s\":\"t\",\"cat\":\""
    } else {
        b"{\"ph\":\"X\",\"cat\":\""
    });
    line.extend_from_slice(e.kind.as_str().as_bytes());
    line.extend_from_slice(b"\",\"name\":");
    write_string(line, tl.name(e.name))?;
    line.extend_from_slice(at);
    write_us(line, e.start - origin);
    if !instant {
        line.extend_from_slice(b",\"dur\":");
        write_us(line, e.end - e.start);
    }
    if e.correlation != 0 && e.kind != EventKind::CpuSample {
        line.extend_from_slice(b",\"args\":{\"correlation\":");
        write_u64(line, u64::from(e.correlation));
        line.push(b'}');
    }
    line.push(b'}');
    Ok(())
}

/// A `C` counter value (the event's payload) on the counter `label` of process `pid`.
fn counter(
    tl: &Timeline,
    i: u32,
    origin: i64,
    pid: i64,
    label: &str,
    line: &mut Vec<u8>,
) -> io::Result<()> {
    let id = EventId(i);
    let start = tl.start_of(i as usize) - origin;
    line.extend_from_slice(b"{\"ph\":\"C\",\"name\":");
    write_string(line, label)?;
    write!(line, ",\"pid\":{pid},\"ts\":")?;
    write_us(line, start);
    line.extend_from_slice(b",\"args\":{\"value\":");
    match tl.attrs(id).and_then(|a| a.payload.as_ref()) {
        Some(Payload::I64(v)) => write!(line, "{v}")?,
        Some(Payload::U64(v)) => write!(line, "{v}")?,
        Some(Payload::F64(v)) if v.is_finite() => {
            line.extend_from_slice(ryu::Buffer::new().format_finite(*v).as_bytes())
        }
        Some(Payload::Text(t)) => match t.trim().parse::<f64>() {
            Ok(v) if v.is_finite() => {
                line.extend_from_slice(ryu::Buffer::new().format_finite(v).as_bytes())
            }
            _ => line.push(b'0'),
        },
        _ => line.push(b'0'),
    }
    line.extend_from_slice(b"}}");
    Ok(())
}

/// A flow event (`s` start or `f` finish, bound to the enclosing slice) on the thread of `at`.
fn flow(line: &mut Vec<u8>, ph: &[u8], id: u64, at: &[u8], ts: i64) {
    line.extend_from_slice(b"{\"ph\":\"");
    line.extend_from_slice(ph);
    line.extend_from_slice(b"\",\"bp\":\"e\",\"cat\":\"flow\",\"name\":\"flow\",\"id\":");
    write_u64(line, id);
    line.extend_from_slice(at);
    write_us(line, ts);
    line.push(b'}');
}

/// `ns` as µs with exactly three decimals ("-1.500" for -1500 ns).
pub fn write_us(line: &mut Vec<u8>, ns: i64) {
    if ns < 0 {
        line.push(b'-');
    }
    let abs = ns.unsigned_abs();
    write_u64(line, abs / 1000);
    let frac = abs % 1000;
    line.extend_from_slice(&[
        b'.',
        b'0' + (frac / 100) as u8,
        b'0' + (frac / 10 % 10) as u8,
        b'0' + (frac % 10) as u8,
    ]);
}

/// A decimal integer without the formatting machinery.
fn write_u64(line: &mut Vec<u8>, v: u64) {
    line.extend_from_slice(crate::format::u64_digits(v, &mut [0; 20]));
}
