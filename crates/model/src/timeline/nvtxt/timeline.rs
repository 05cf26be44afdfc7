//! NVTXT events on the timeline: a file alone, or the files beside an Nsight Systems export
//! merged onto its timeline.
//!
//! Rows: process (pid) → thread (tid) → one series per file, `NVTXT: <title>` for markers and
//! push/pop ranges (nested: the row is the depth) and `NVTXT ranges: <title>` for start/end ranges
//! (lanes). On an export's timeline the processes and threads are the export's own when their
//! ids match (same machine). Each file stays separate: its series carry its index
//! ([`series_key`]), so details can name the file and line ([`file_of_series`]). A file with
//! problems says so in its row names (`— 2 errors, 1 warning`) and every problem becomes a
//! load warning `LINE:COL` of that file.
//!
//! # Placing times ([`Placement`])
//! The timeline's axis is the export's: nanoseconds from the session start, as the export writes
//! them. `Relative` times are placed as written. `Manual` (absolute) times are aligned when the
//! export gives the session's start in that clock: taken as Unix-epoch nanoseconds, shifted by
//! the export's wall-clock session start, when every `Manual` time of the file is at or after it.
//! Otherwise — and always for `ClockMonotonicRaw`, `CNTVCT` and `Qpc`, which an SQLite export
//! gives no start for — the file's events in that clock are placed from the session start (its
//! earliest such time at 0), with one warning per file and clock saying so. A file opened alone
//! has no session: every time is placed as written.

use std::collections::BTreeSet;

use super::{Event, EventKind, NvtxtDocument, TimeBase};
use crate::problem::{Location, Problem};
use crate::timeline::{
    EventAttrs, Layout, NewEvent, Payload, Timeline, TimelineBuilder, TrackId, TrackKind,
};

/// Keys of NVTXT series tracks start here (far above the keys other loaders use).
const SERIES_KEY_BASE: u64 = 0x4E56_5458_0000_0000;

/// The key of file `index`'s series: markers and push/pop ranges, or start/end ranges (`lanes`).
pub fn series_key(index: usize, lanes: bool) -> u64 {
    SERIES_KEY_BASE + 2 * index as u64 + u64::from(lanes)
}

/// The file index of an NVTXT series key, when `key` is one.
pub fn file_of_series(key: u64) -> Option<usize> {
    key.checked_sub(SERIES_KEY_BASE)
        .filter(|k| *k < u64::from(u32::MAX))
        .map(|k| (k / 2) as usize)
}

/// How a file's times map onto the timeline's axis.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Placement {
    /// Whether the file sits beside an export (else it is shown alone, times as written).
    pub beside_export: bool,
    /// The export's session start, wall-clock Unix-epoch nanoseconds, when known.
    pub session_start_utc_ns: Option<i64>,
}

/// How the times of one clock of a file are moved onto the axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shift {
    /// Aligned (or as written): add this many nanoseconds.
    Aligned(i64),
    /// The export gives no start in this clock: placed from the session start (add this).
    FromSessionStart(i64),
}

impl Shift {
    fn offset(self) -> i64 {
        match self {
            Shift::Aligned(o) | Shift::FromSessionStart(o) => o,
        }
    }
}

impl Placement {
    /// How times written in `base` are moved, given the file's events.
    pub fn shift(&self, base: TimeBase, events: &[Event]) -> Shift {
        if !self.beside_export || base == TimeBase::Relative {
            return Shift::Aligned(0);
        }
        let mut times = events
            .iter()
            .filter(|e| e.time_base == base)
            .map(|e| e.start);
        let earliest = times.clone().min().unwrap_or(0);
        if let (TimeBase::Manual, Some(start)) = (base, self.session_start_utc_ns)
            && times.all(|t| t >= start)
        {
            return Shift::Aligned(0i64.saturating_sub(start));
        }
        Shift::FromSessionStart(0i64.saturating_sub(earliest))
    }
}

/// The timeline of one NVTXT file shown alone.
pub fn timeline_of(doc: &NvtxtDocument) -> Timeline {
    let mut b = TimelineBuilder::new(doc.path.clone());
    add_document(&mut b, doc, 0, &Placement::default());
    b.sort_children_by_key();
    b.finish()
}

/// Adds the events of `doc` (file `index` of its timeline) to `b`.
pub fn add_document(
    b: &mut TimelineBuilder,
    doc: &NvtxtDocument,
    index: usize,
    placement: &Placement,
) {
    let title = row_title(doc);
    let machine = if placement.beside_export {
        Some(b.track(None, TrackKind::Machine, 0, || "Machine 0".to_string()))
    } else {
        None
    };
    let bases: BTreeSet<&'static str> = doc.events.iter().map(|e| e.time_base.name()).collect();
    let shifts: Vec<(TimeBase, Shift)> = TimeBase::ALL
        .into_iter()
        .filter(|b| bases.contains(b.name()))
        .map(|b| (b, placement.shift(b, &doc.events)))
        .collect();
    let shift_of = |base: TimeBase| {
        shifts
            .iter()
            .find(|(b, _)| *b == base)
            .map_or(0, |(_, s)| s.offset())
    };
    for event in &doc.events {
        let shift = shift_of(event.time_base);
        let series = series_track(b, doc, machine, event, index, &title);
        let name = b.intern(doc.message(event));
        let pushed = b.push(
            series,
            NewEvent {
                kind: match event.kind {
                    EventKind::Marker => crate::timeline::EventKind::Marker,
                    EventKind::PushPop | EventKind::Range => crate::timeline::EventKind::Range,
                },
                start: event.start.saturating_add(shift),
                end: event.end.saturating_add(shift),
                name,
                correlation: 0,
                source: event.line,
                depth: u16::try_from(event.depth).unwrap_or(u16::MAX),
            },
        );
        b.set_attrs(
            pushed,
            EventAttrs {
                color: Some(event.color_argb),
                category: (event.category != 0).then_some(event.category),
                payload: event.payload.map(Payload::I64),
                queued_ns: None,
                open: event.open,
                stack: None,
            },
        );
    }
    for (base, shift) in &shifts {
        if let Shift::FromSessionStart(_) = shift {
            let line = doc
                .events
                .iter()
                .filter(|e| e.time_base == *base)
                .map(|e| e.line)
                .min()
                .unwrap_or(0);
            b.warn_file(
                doc.path.clone(),
                Location::line_column(line as usize, 1),
                format!(
                    "loading: the export gives no session start in the {} clock: \
                     these events are placed from the session start (the file's earliest {} \
                     time at 0), not aligned",
                    base.name(),
                    base.name()
                ),
            );
        }
    }
    for d in &doc.diagnostics {
        b.problem_in_file(
            doc.path.clone(),
            Problem {
                message: format!("{}: {}", d.class, d.message()),
                ..d.problem.clone()
            },
        );
    }
}

/// The series an event goes on, with its process and thread rows.
fn series_track(
    b: &mut TimelineBuilder,
    doc: &NvtxtDocument,
    machine: Option<TrackId>,
    event: &Event,
    index: usize,
    title: &str,
) -> TrackId {
    let (pid, tid) = (event.pid, event.tid);
    let process = b.track(machine, TrackKind::Process, u64::from(pid), || {
        match doc.process_names.get(&pid) {
            Some(name) => format!("Process {pid} ({name})"),
            None => format!("Process {pid}"),
        }
    });
    let thread = b.track(
        Some(process),
        TrackKind::Thread,
        u64::from(tid),
        || match doc.thread_names.get(&(pid, tid)) {
            Some(name) => format!("Thread {tid} ({name})"),
            None => format!("Thread {tid}"),
        },
    );
    let lanes = event.kind == EventKind::Range;
    let series = b.track(
        Some(thread),
        TrackKind::Series,
        series_key(index, lanes),
        || {
            if lanes {
                format!("NVTXT ranges: {title}")
            } else {
                format!("NVTXT: {title}")
            }
        },
    );
    b.set_layout(
        series,
        if lanes {
            Layout::Lanes
        } else {
            Layout::Explicit
        },
    );
    series
}

/// The name of a file's rows: its display name, with its problem counts when it has any.
pub fn row_title(doc: &NvtxtDocument) -> String {
    let errors = doc.diagnostics.iter().filter(|d| d.is_error()).count();
    let warnings = doc.diagnostics.len() - errors;
    let mut title = doc.title();
    let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    match (errors, warnings) {
        (0, 0) => {}
        (e, 0) => title.push_str(&format!(" — {}", plural(e, "error"))),
        (0, w) => title.push_str(&format!(" — {}", plural(w, "warning"))),
        (e, w) => title.push_str(&format!(
            " — {}, {}",
            plural(e, "error"),
            plural(w, "warning")
        )),
    }
    title
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::EventKind as Kind;

    const FILE: &str = "TimeBase = Relative\n\
        @RangePush, Time, ProcessId, ThreadId, Message\n\
        @RangePop, Time, ProcessId, ThreadId\n\
        @Marker, Time, Message\n\
        @RangeStartEnd, Start, End, Message\n\
        NameProcess, 7, \"app\"\n\
        RangePush, 100, 7, 1, \"outer\"\n\
        RangePush, 150, 7, 1, \"inner\"\n\
        RangePop, 180, 7, 1\n\
        RangePop, 300, 7, 1\n\
        Marker, 200, \"tick\"\n\
        RangeStartEnd, 120, 400, \"span\"\n\
        Bogus, 1\n";

    #[test]
    fn events_land_on_process_thread_series_with_depths() {
        let doc = super::super::parse("a.nvtxt", FILE.as_bytes());
        let t = timeline_of(&doc);
        assert_eq!(t.event_count(), 4);
        let mut by_name: Vec<(String, Kind, i64, i64, String)> = t
            .events()
            .map(|e| {
                let track = t.locate(e.id).map(|(tr, _)| t.track_path(tr)).unwrap();
                (t.name(e.name).to_string(), e.kind, e.start, e.end, track)
            })
            .collect();
        by_name.sort();
        assert_eq!(by_name[0].0, "inner");
        assert_eq!((by_name[0].2, by_name[0].3), (150, 180));
        assert!(by_name[0].4.contains("Process 7 (app)"), "{}", by_name[0].4);
        assert!(by_name[0].4.contains("Thread 1"));
        let span = by_name.iter().find(|r| r.0 == "span").unwrap();
        assert!(span.4.contains("NVTXT ranges: a.nvtxt"), "{}", span.4);
        // The marker took the pid/tid in force (7, 1): values persist across calls.
        let tick = by_name.iter().find(|r| r.0 == "tick").unwrap();
        assert_eq!(tick.1, Kind::Marker);
        assert!(tick.4.contains("Process 7"));
        // The unknown command is a warning with its line and column, and the row says so.
        assert!(
            t.warnings
                .iter()
                .any(|w| w.problem.location == Location::line_column(13, 1)
                    && !w.problem.is_error()
                    && w.problem.message.starts_with("parsing: ")),
            "{:?}",
            t.warnings
        );
        assert!(t.tracks.iter().any(|tr| tr.name.ends_with("— 1 warning")));
    }

    #[test]
    fn placement_beside_an_export() {
        let p = Placement {
            beside_export: true,
            session_start_utc_ns: Some(1_000_000),
        };
        let doc = |text: &str| super::super::parse("p.nvtxt", text.as_bytes());
        let manual = doc("TimeBase = Manual\n@Marker, Time, Message\nMarker, 1000500, \"a\"\n");
        assert_eq!(
            p.shift(TimeBase::Manual, &manual.events),
            Shift::Aligned(-1_000_000)
        );
        // A Manual time before the session's wall-clock start is not epoch time: anchored.
        let early = doc(
            "TimeBase = Manual\n@Marker, Time, Message\nMarker, 700, \"a\"\nMarker, 900, \"b\"\n",
        );
        assert_eq!(
            p.shift(TimeBase::Manual, &early.events),
            Shift::FromSessionStart(-700)
        );
        let raw =
            doc("TimeBase = ClockMonotonicRaw\n@Marker, Time, Message\nMarker, 5000, \"a\"\n");
        assert_eq!(
            p.shift(TimeBase::ClockMonotonicRaw, &raw.events),
            Shift::FromSessionStart(-5000)
        );
        assert_eq!(p.shift(TimeBase::Relative, &raw.events), Shift::Aligned(0));
        assert_eq!(
            Placement::default().shift(TimeBase::Qpc, &raw.events),
            Shift::Aligned(0)
        );
        // On a timeline: the anchored events start at 0, with a warning at the first one's line.
        let mut b = TimelineBuilder::new("export.sqlite");
        add_document(&mut b, &raw, 0, &p);
        let t = b.finish();
        assert_eq!(t.events().next().unwrap().start, 0);
        assert_eq!(t.warnings.len(), 1);
        assert_eq!(t.warnings[0].problem.location, Location::line_column(3, 1));
        assert!(
            t.warnings[0]
                .problem
                .message
                .contains("placed from the session start")
        );
        assert_eq!(file_of_series(series_key(3, true)), Some(3));
        assert_eq!(file_of_series(series_key(3, false)), Some(3));
        assert_eq!(file_of_series(42), None);
    }
}
