//! Reads a Chrome JSON trace (`{"traceEvents":[...]}` or a bare array) onto a timeline.
//!
//! The events are deserialized one at a time as the array streams by (serde's sequence
//! access: the file is mapped, never turned into a document tree). `pid` → process track,
//! `(pid, tid)` → thread track, both named by `M` metadata (`process_name`, `thread_name`);
//! `X` complete events and `B`/`E` pairs (per thread, innermost first) are slices, `i`/`I`
//! instants, `C` counters (one counter track per process, name and argument), `s`/`t`/`f`
//! flows, bound to the slice that encloses their time on their thread (`f` without
//! `"bp":"e"`: the next slice to begin). Times are µs; they become ns rounded to the nearest,
//! plus `otherData.sightline_origin_ns` when Sightline wrote the file.
//! An event whose `cat` names a Sightline event kind gets that kind. Unknown phases are
//! counted and skipped; malformed JSON is an error at its line and column, except a file cut
//! short after some events (Chrome accepts a missing `]`), which keeps what it read.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use serde::Deserialize;
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::TraceError;
use crate::core::num::{float_to_i64, saturating_u32};
use crate::problem::Location;
use crate::timeline::{
    EventAttrs, EventKind, EventRef, Layout, NewEvent, Payload, Timeline, TimelineBuilder, TrackId,
    TrackKind,
};

/// Reads the trace at `path`.
pub fn load(path: &Path) -> Result<Timeline, TraceError> {
    from_bytes(path, &super::map_file(path)?)
}

/// Reads a trace held in memory (`path` names it in problems).
pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<Timeline, TraceError> {
    let mut state = State {
        b: TimelineBuilder::new(path),
        processes: HashMap::new(),
        threads: HashMap::new(),
        counters: HashMap::new(),
        open: HashMap::new(),
        slices: HashMap::new(),
        flow_points: Vec::new(),
        events: 0,
        skipped: 0,
        unmatched_ends: 0,
        last_time: 0,
        origin: 0,
    };
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let parsed = TraceSeed(&mut state)
        .deserialize(&mut de)
        .and_then(|()| de.end());
    if let Err(e) = parsed {
        if e.is_eof() && state.events > 0 {
            state.b.warn(
                Location::line_column(e.line(), e.column()),
                format!("the trace ends early ({e}); the events before are kept"),
            );
        } else {
            return Err(TraceError::at_line(
                path,
                e.line(),
                e.column(),
                e.to_string(),
            ));
        }
    }
    Ok(state.finish())
}

/// A pid, tid or flow id: a number or a string.
#[derive(Deserialize)]
#[serde(untagged)]
enum Id<'a> {
    Int(i64),
    Float(f64),
    #[serde(borrow)]
    Text(Cow<'a, str>),
}

impl Id<'_> {
    fn value(&self) -> i64 {
        match self {
            Id::Int(v) => *v,
            // Toward zero, saturating (NaN → 0), as before.
            Id::Float(v) => float_to_i64(*v),
            Id::Text(t) => t.trim().parse().unwrap_or_else(|_| {
                let mut h: u64 = 0xcbf2_9ce4_8422_2325;
                for b in t.bytes() {
                    h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
                }
                (h >> 1) as i64
            }),
        }
    }
}

/// One element of `traceEvents` (fields of other phases ignored).
#[derive(Deserialize)]
struct Raw<'a> {
    #[serde(borrow, default)]
    ph: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    cat: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pid: Option<Id<'a>>,
    #[serde(borrow, default)]
    tid: Option<Id<'a>>,
    #[serde(default)]
    ts: Option<f64>,
    #[serde(default)]
    dur: Option<f64>,
    #[serde(borrow, default)]
    id: Option<Id<'a>>,
    #[serde(borrow, default)]
    bp: Option<Cow<'a, str>>,
    #[serde(default)]
    args: Option<serde_json::Map<String, serde_json::Value>>,
}

/// `otherData`: the origin of Sightline's own exports (their `ts` count from it).
#[derive(Deserialize)]
struct OtherData {
    #[serde(rename = "sightline_origin_ns", default)]
    origin: Option<i64>,
}

struct TraceSeed<'s>(&'s mut State);

impl<'de> DeserializeSeed<'de> for TraceSeed<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(TraceVisitor(self.0))
    }
}

struct TraceVisitor<'s>(&'s mut State);

impl<'de> Visitor<'de> for TraceVisitor<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a Chrome trace: an object with \"traceEvents\" or an array of events")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if key == "traceEvents" {
                map.next_value_seed(EventsSeed(&mut *self.0))?;
            } else if key == "otherData" {
                let other = map.next_value::<OtherData>()?;
                if let Some(origin) = other.origin {
                    self.0.origin = origin;
                }
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        EventsVisitor(self.0).visit_seq(seq)
    }
}

struct EventsSeed<'s>(&'s mut State);

impl<'de> DeserializeSeed<'de> for EventsSeed<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(EventsVisitor(self.0))
    }
}

struct EventsVisitor<'s>(&'s mut State);

impl<'de> Visitor<'de> for EventsVisitor<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of trace events")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(raw) = seq.next_element::<Raw<'de>>()? {
            self.0.event(&raw);
        }
        Ok(())
    }
}

/// A `B` event waiting for its `E`.
type Open = super::Begun;

struct State {
    b: TimelineBuilder,
    processes: HashMap<i64, TrackId>,
    threads: HashMap<(i64, i64), TrackId>,
    counters: HashMap<(i64, String), TrackId>,
    open: HashMap<(i64, i64), Vec<Open>>,
    /// (start, end, event) per thread, for binding flows.
    slices: HashMap<TrackId, Vec<(i64, i64, EventRef)>>,
    /// (flow id, phase: 0 s, 1 t, 2 f, binds to the enclosing slice, thread, time).
    flow_points: Vec<(u64, u8, bool, TrackId, i64)>,
    events: u32,
    skipped: usize,
    unmatched_ends: usize,
    last_time: i64,
    /// Added to every time (ns).
    origin: i64,
}

/// µs (as written) to ns, rounded to the nearest.
fn ns(us: f64) -> i64 {
    float_to_i64((us * 1000.0).round())
}

impl State {
    fn process(&mut self, pid: i64) -> TrackId {
        let b = &mut self.b;
        *self.processes.entry(pid).or_insert_with(|| {
            b.track(None, TrackKind::Process, pid as u64, || {
                format!("Process {pid}")
            })
        })
    }

    fn thread(&mut self, pid: i64, tid: i64) -> TrackId {
        if let Some(&t) = self.threads.get(&(pid, tid)) {
            return t;
        }
        let p = self.process(pid);
        let t = self.b.track(Some(p), TrackKind::Thread, tid as u64, || {
            format!("Thread {tid}")
        });
        self.threads.insert((pid, tid), t);
        t
    }

    fn event(&mut self, raw: &Raw<'_>) {
        self.events = self.events.saturating_add(1);
        let source = self.events;
        let Some(ph) = raw.ph.as_deref() else {
            self.skipped += 1;
            return;
        };
        let pid = raw.pid.as_ref().map_or(0, Id::value);
        let tid = raw.tid.as_ref().map_or(pid, Id::value);
        let time = raw
            .ts
            .map(|ts| ns(ts).saturating_add(self.origin))
            .unwrap_or(self.last_time);
        let kind = raw
            .cat
            .as_deref()
            .and_then(|c| EventKind::ALL.into_iter().find(|k| k.as_str() == c));
        let correlation = raw
            .args
            .as_ref()
            .and_then(|a| a.get("correlation"))
            .and_then(serde_json::Value::as_u64)
            .map_or(0, saturating_u32);
        let name_text = raw.name.as_deref().unwrap_or("");
        match ph {
            "X" => {
                let end = time.saturating_add(raw.dur.map_or(0, ns).max(0));
                let name = self.b.intern(name_text);
                let open = Open {
                    start: time,
                    name,
                    kind: kind.unwrap_or(EventKind::Range),
                    correlation,
                    source,
                };
                let track = self.thread(pid, tid);
                self.close(track, &open, end, false);
            }
            "B" => {
                let name = self.b.intern(name_text);
                self.open.entry((pid, tid)).or_default().push(Open {
                    start: time,
                    name,
                    kind: kind.unwrap_or(EventKind::Range),
                    correlation,
                    source,
                });
            }
            "E" => match self.open.get_mut(&(pid, tid)).and_then(Vec::pop) {
                Some(open) => {
                    let track = self.thread(pid, tid);
                    self.close(track, &open, time, false);
                }
                None => self.unmatched_ends += 1,
            },
            "i" | "I" => {
                let name = self.b.intern(name_text);
                let open = Open {
                    start: time,
                    name,
                    kind: kind.unwrap_or(EventKind::Marker),
                    correlation,
                    source,
                };
                let track = self.thread(pid, tid);
                self.close(track, &open, time, false);
            }
            "C" => self.counter(pid, name_text, time, raw.args.as_ref(), source),
            "M" => self.metadata(pid, tid, name_text, raw.args.as_ref()),
            "s" | "t" | "f" => {
                let phase = match ph {
                    "s" => 0,
                    "t" => 1,
                    _ => 2,
                };
                let Some(id) = raw.id.as_ref().map(Id::value) else {
                    self.skipped += 1;
                    return;
                };
                let enclosing = phase != 2 || raw.bp.as_deref() == Some("e");
                let track = self.thread(pid, tid);
                self.flow_points
                    .push((id as u64, phase, enclosing, track, time));
            }
            _ => self.skipped += 1,
        }
        self.last_time = self.last_time.max(time);
    }

    fn counter(
        &mut self,
        pid: i64,
        name: &str,
        time: i64,
        args: Option<&serde_json::Map<String, serde_json::Value>>,
        source: u32,
    ) {
        let Some(args) = args else {
            self.skipped += 1;
            return;
        };
        for (key, value) in args {
            let payload = match (value.as_i64(), value.as_f64()) {
                (Some(v), _) => Payload::I64(v),
                (None, Some(v)) => Payload::F64(v),
                _ => continue,
            };
            let label = if key == "value" || args.len() == 1 {
                name.to_owned()
            } else {
                format!("{name} {key}")
            };
            let track = match self.counters.get(&(pid, label.clone())) {
                Some(&t) => t,
                None => {
                    let p = self.process(pid);
                    let key = self.counters.len() as u64;
                    let shown = label.clone();
                    let t = self.b.track(Some(p), TrackKind::Series, key, || shown);
                    self.b.set_layout(t, Layout::Counter);
                    self.counters.insert((pid, label), t);
                    t
                }
            };
            let text = match &payload {
                Payload::I64(v) => v.to_string(),
                Payload::F64(v) => v.to_string(),
                _ => String::new(),
            };
            let name = self.b.intern(&text);
            let e = self.b.push(
                track,
                NewEvent::new(EventKind::Marker, time, time, name, source),
            );
            self.b.set_attrs(
                e,
                EventAttrs {
                    payload: Some(payload),
                    ..EventAttrs::default()
                },
            );
        }
    }

    fn metadata(
        &mut self,
        pid: i64,
        tid: i64,
        what: &str,
        args: Option<&serde_json::Map<String, serde_json::Value>>,
    ) {
        let Some(name) = args
            .and_then(|a| a.get("name"))
            .and_then(serde_json::Value::as_str)
        else {
            return;
        };
        let track = match what {
            "process_name" => self.process(pid),
            "thread_name" => self.thread(pid, tid),
            _ => return,
        };
        self.b.rename(track, name.to_owned());
    }

    fn close(&mut self, track: TrackId, open: &Open, end: i64, unclosed: bool) {
        let e = open.push(&mut self.b, track, end, unclosed);
        self.slices
            .entry(track)
            .or_default()
            .push((open.start, end.max(open.start), e));
    }

    fn finish(mut self) -> Timeline {
        let mut unclosed = 0;
        for ((pid, tid), stack) in std::mem::take(&mut self.open) {
            let track = self.thread(pid, tid);
            for o in stack.into_iter().rev() {
                unclosed += 1;
                self.close(track, &o, self.last_time, true);
            }
        }
        let warn = |b: &mut TimelineBuilder, n: usize, what: &str| {
            if n > 0 {
                b.warn(Location::Part("events".into()), format!("{n} {what}"));
            }
        };
        warn(
            &mut self.b,
            unclosed,
            "slices never ended; they end at the last timestamp",
        );
        warn(
            &mut self.b,
            self.unmatched_ends,
            "slice ends without a begin were ignored",
        );
        warn(
            &mut self.b,
            self.skipped,
            "events of other phases were skipped",
        );
        for list in self.slices.values_mut() {
            list.sort_unstable_by_key(|&(s, e, r)| (s, std::cmp::Reverse(e), r));
        }
        let mut points = std::mem::take(&mut self.flow_points);
        points.sort_unstable_by_key(|&(id, phase, _, _, time)| (id, phase, time));
        let mut chain: Option<(u64, EventRef)> = None;
        let mut unbound = 0;
        for (id, phase, enclosing, track, time) in points {
            let Some(e) = self.bind(track, time, enclosing) else {
                unbound += 1;
                continue;
            };
            if let Some((prev_id, prev)) = chain
                && prev_id == id
                && prev != e
            {
                self.b.add_flow(prev, e);
            }
            chain = (phase != 2).then_some((id, e));
        }
        warn(
            &mut self.b,
            unbound,
            "flow events found no slice to bind to",
        );
        self.b.finish()
    }

    /// The slice a flow event at `time` on `track` binds to: the innermost enclosing one, or
    /// (`enclosing` false) the next one to begin.
    fn bind(&self, track: TrackId, time: i64, enclosing: bool) -> Option<EventRef> {
        let list = self.slices.get(&track)?;
        let after = list.partition_point(|&(s, _, _)| s <= time);
        if !enclosing {
            let next = list.partition_point(|&(s, _, _)| s < time);
            if let Some(&(_, _, e)) = list.get(next) {
                return Some(e);
            }
        }
        list[..after]
            .iter()
            .rev()
            .take(4096)
            .find(|&&(_, end, _)| end >= time)
            .map(|&(_, _, e)| e)
    }
}
