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
    let mut summary = ExportSummary::default();
    let mut line = Vec::with_capacity(256);
    let mut first = true;
    let mut emit = |line: &mut Vec<u8>, out: &mut W| -> io::Result<()> {
        if !std::mem::take(&mut first) {
            out.write_all(b",\n")?;
        }
        out.write_all(line)?;
        line.clear();
        Ok(())
    };
    // Times are written from the first event on (µs as doubles keep the ns only up to ~100
    // days); the origin goes first, so a reader can add it back as it streams.
    let origin = tl.time_range().map_or(0, |(start, _)| start);
    writeln!(
        out,
        "{{\"otherData\":{{\"{ORIGIN_KEY}\":{origin}}},\"traceEvents\":["
    )?;
    let mut named_owner = vec![false; tl.tracks.len()];
    let mut next_tid: i64 = 1;
    let mut flows = Vec::new();
    let index = plan::FlowIndex::new(tl);
    for (t, track) in tl.tracks.iter().enumerate() {
        let id = TrackId(t as u32);
        let rows = plan::spans(tl, track, range);
        let placement = plan::placement(tl, track, &rows);
        if placement == Placement::Empty {
            continue;
        }
        let (owner, pid) = owner_of(tl, id);
        if !std::mem::replace(&mut named_owner[owner.0 as usize], true) {
            meta(
                &mut line,
                "process_name",
                pid,
                None,
                &tl.tracks[owner.0 as usize].name,
            )?;
            emit(&mut line, out)?;
        }
        let label = path_under(tl, id, owner);
        if placement == Placement::Counter {
            for i in rows.iter().flat_map(|r| r.clone()) {
                counter(tl, i, origin, pid, &label, &mut line)?;
                emit(&mut line, out)?;
                summary.events += 1;
                ticker.tick()?;
            }
            summary.tracks += 1;
            continue;
        }
        let groups: Vec<Vec<std::ops::Range<u32>>> = match placement {
            Placement::Lanes => rows.iter().map(|r| vec![r.clone()]).collect(),
            _ => vec![rows],
        };
        for (lane, group) in groups.iter().enumerate() {
            let tid = next_tid;
            next_tid += 1;
            summary.tracks += 1;
            let name = if lane == 0 {
                label.clone()
            } else {
                format!("{label} (lane {})", lane + 1)
            };
            meta(&mut line, "thread_name", pid, Some(tid), &name)?;
            emit(&mut line, out)?;
            write!(
                line,
                "{{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":{pid},\"tid\":{tid},\"args\":{{\"sort_index\":{tid}}}}}"
            )?;
            emit(&mut line, out)?;
            // What every event of this thread says after its name.
            let at = format!(",\"pid\":{pid},\"tid\":{tid},\"ts\":").into_bytes();
            for i in group.iter().flat_map(|r| r.clone()) {
                let Some(e) = tl.event(EventId(i)) else {
                    continue;
                };
                slice(tl, &e, origin, &at, &mut line)?;
                emit(&mut line, out)?;
                summary.events += 1;
                index.from(tl, i, range, &mut flows);
                summary.flows += flows.len() as u64;
                for &f in &flows {
                    flow(&mut line, b"s", f, &at, e.start - origin);
                    emit(&mut line, out)?;
                }
                index.to(tl, i, range, &mut flows);
                for &f in &flows {
                    flow(&mut line, b"f", f, &at, e.start - origin);
                    emit(&mut line, out)?;
                }
                ticker.tick()?;
            }
        }
    }
    out.write_all(b"\n],\"displayTimeUnit\":\"ns\"}\n")?;
    Ok(summary)
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
