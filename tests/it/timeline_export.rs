//! Export to Perfetto and Chrome JSON (`sightline export`, `timeline::export`): every fixture
//! timeline (nsys, NVTXT, CodeXL) and every corpus export round-trips through both formats and
//! Sightline's own readers with the same event counts per kind and track, names, times (exact
//! ns) and flows; a range keeps exactly the events that overlap it; Perfetto's published
//! Python bindings (the `perfetto` package on PyPI) decode the protobuf to the same events,
//! names, times and flow ids; damaged traces are errors at a position, never panics.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use sightline::kind::FileKind;
use sightline::timeline::export::{
    ExportFormat, ExportOptions, ExportSummary, export, read_chrome, read_perfetto,
};
use sightline::timeline::nsys::LoadOptions;
use sightline::timeline::{EventKind, Layout, Timeline, TimelineFileKind, TrackId, load_timeline};

use crate::common::fixtures;

fn load(path: &Path) -> Timeline {
    let kind = TimelineFileKind::from_kind(FileKind::of_path(path)).expect("a timeline file");
    load_timeline(path, kind, path, LoadOptions::default(), false)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .timeline
}

fn write(
    tl: &Timeline,
    format: ExportFormat,
    range: Option<(i64, i64)>,
) -> (Vec<u8>, ExportSummary) {
    let mut out = Vec::new();
    let options = ExportOptions {
        range,
        ..ExportOptions::default()
    };
    let summary = export(tl, format, options, &mut out).expect("export");
    assert_eq!(summary.bytes as usize, out.len());
    (out, summary)
}

fn read(bytes: &[u8], format: ExportFormat) -> Timeline {
    let path = Path::new("back");
    match format {
        ExportFormat::Perfetto => read_perfetto::from_bytes(path, bytes).expect("reads back"),
        ExportFormat::ChromeJson => read_chrome::from_bytes(path, bytes).expect("reads back"),
    }
}

/// Whether `track` is a counter (its events are values, not named events in Chrome JSON).
fn is_counter(tl: &Timeline, track: TrackId) -> bool {
    tl.track(track).is_some_and(|t| t.layout == Layout::Counter)
}

type Ev = (&'static str, String, i64, i64);

/// What a Perfetto trace adds to every time: a timeline with times before its session's start
/// is shifted so that its earliest event is at 0 (Perfetto counts from 0).
fn perfetto_shift(tl: &Timeline) -> i64 {
    tl.time_range().map_or(0, |(start, _)| (-start).max(0))
}

/// `events` with every time moved by `shift`.
fn shifted(mut events: Vec<Ev>, shift: i64) -> Vec<Ev> {
    for e in &mut events {
        e.2 += shift;
        e.3 += shift;
    }
    events
}

/// Every event as (kind, name, start, end), sorted; counter values without their names when
/// `counter_names` is false.
fn events(tl: &Timeline, counter_names: bool, range: Option<(i64, i64)>) -> Vec<Ev> {
    let mut out: Vec<Ev> = tl
        .events()
        .filter(|e| range.is_none_or(|(a, b)| e.start <= b && e.end >= a))
        .map(|e| {
            let counter = tl.locate(e.id).is_some_and(|(t, _)| is_counter(tl, t));
            let name = if counter && !counter_names {
                String::new()
            } else {
                tl.name(e.name).to_owned()
            };
            (e.kind.as_str(), name, e.start, e.end)
        })
        .collect();
    out.sort();
    out
}

/// Events per (track name, kind), tracks with events only.
fn per_track(tl: &Timeline) -> BTreeMap<(String, &'static str), usize> {
    let mut out = BTreeMap::new();
    for e in tl.events() {
        let (t, _) = tl.locate(e.id).expect("located");
        let name = tl.track(t).expect("track").name.clone();
        *out.entry((name, e.kind.as_str())).or_default() += 1;
    }
    out
}

/// Every flow as its two events, sorted.
fn flows(tl: &Timeline, range: Option<(i64, i64)>) -> Vec<(Ev, Ev)> {
    let ev = |id| {
        let e = tl.event(id).expect("event");
        (e.kind.as_str(), tl.name(e.name).to_owned(), e.start, e.end)
    };
    let inside = |e: &Ev| range.is_none_or(|(a, b)| e.2 <= b && e.3 >= a);
    let mut out: Vec<(Ev, Ev)> = tl
        .flows()
        .iter()
        .map(|f| (ev(f.from), ev(f.to)))
        .filter(|(a, b)| inside(a) && inside(b))
        .collect();
    out.sort();
    out
}

/// Exports `tl` to both formats and reads it back: same counts, names, times, flows.
fn round_trip(what: &str, tl: &Timeline, range: Option<(i64, i64)>) {
    let expected = events(tl, true, range);
    let (bytes, summary) = write(tl, ExportFormat::Perfetto, range);
    assert_eq!(
        summary.events as usize,
        expected.len(),
        "{what}: events written"
    );
    let back = read(&bytes, ExportFormat::Perfetto);
    assert!(back.warnings.is_empty(), "{what}: {:?}", back.warnings);
    let shift = perfetto_shift(tl);
    assert_eq!(
        shifted(events(&back, true, None), -shift),
        expected,
        "{what}: Perfetto events"
    );
    let unshift = |flows: Vec<(Ev, Ev)>| -> Vec<(Ev, Ev)> {
        flows
            .into_iter()
            .map(|(a, b)| {
                let mut both = shifted(vec![a, b], -shift);
                let b = both.pop().expect("two");
                (both.pop().expect("two"), b)
            })
            .collect()
    };
    assert_eq!(
        unshift(flows(&back, None)),
        flows(tl, range),
        "{what}: Perfetto flows"
    );
    assert_eq!(
        summary.flows as usize,
        back.flows().len(),
        "{what}: flows written"
    );
    if range.is_none() {
        assert_eq!(back.counts_by_kind(), tl.counts_by_kind(), "{what}");
        assert_eq!(per_track(&back), per_track(tl), "{what}: Perfetto tracks");
    }

    let (json, summary) = write(tl, ExportFormat::ChromeJson, range);
    assert_eq!(
        summary.events as usize,
        expected.len(),
        "{what}: JSON events"
    );
    let back = read(&json, ExportFormat::ChromeJson);
    assert!(back.warnings.is_empty(), "{what}: {:?}", back.warnings);
    assert_eq!(
        events(&back, false, None),
        events(tl, false, range),
        "{what}: Chrome JSON events"
    );
    assert_eq!(
        flows(&back, None),
        flows(tl, range),
        "{what}: Chrome JSON flows"
    );
}

fn fixture_files() -> Vec<PathBuf> {
    [
        "nsys/synth_2k.sqlite",
        "nvtxt/generated.nvtxt",
        "codexl/session1.atp",
    ]
    .iter()
    .map(|f| fixtures().join(f))
    .collect()
}

#[test]
fn fixtures_round_trip_through_both_formats() {
    for path in fixture_files() {
        let tl = load(&path);
        assert!(tl.event_count() > 0, "{}", path.display());
        round_trip(&path.display().to_string(), &tl, None);
    }
}

#[test]
fn a_range_keeps_the_events_that_overlap_it() {
    for path in fixture_files() {
        let tl = load(&path);
        let (t0, t1) = tl.time_range().expect("events");
        let range = (t0 + (t1 - t0) / 3, t0 + (t1 - t0) / 2);
        round_trip(
            &format!("{} in {range:?}", path.display()),
            &tl,
            Some(range),
        );
    }
}

#[test]
fn corpus_exports_round_trip() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/nsys");
    let Ok(manifest) = std::fs::read_to_string(dir.join("MANIFEST.tsv")) else {
        crate::common::skip_shared(format!("{}/MANIFEST.tsv is absent", dir.display()));
        return;
    };
    let mut seen = 0;
    for line in manifest.lines().skip(1) {
        let Some(file) = line.split('\t').next().filter(|f| !f.is_empty()) else {
            continue;
        };
        let path = dir.join(file);
        let tl = load(&path);
        round_trip(file, &tl, None);
        seen += 1;
    }
    assert!(seen > 0, "no export listed in the manifest");
}

#[test]
fn own_exports_open_as_timelines_by_name_and_content() {
    let tl = load(&fixtures().join("nsys/synth_2k.sqlite"));
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, format) in [
        ("t.perfetto-trace", ExportFormat::Perfetto),
        ("t.pftrace", ExportFormat::Perfetto),
        ("t.json", ExportFormat::ChromeJson),
        ("chrome-trace", ExportFormat::ChromeJson),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, write(&tl, format, None).0).expect("write");
        let kind = FileKind::of_path(&path);
        assert!(kind.is_timeline(), "{name}: {kind:?}");
        assert_eq!(load(&path).event_count(), tl.event_count(), "{name}");
    }
}

#[test]
fn damaged_traces_are_errors_at_a_position() {
    let tl = load(&fixtures().join("nvtxt/generated.nvtxt"));
    let (bytes, _) = write(&tl, ExportFormat::Perfetto, None);
    let cut = &bytes[..bytes.len() - 3];
    let error = read_perfetto::from_bytes(Path::new("cut.pftrace"), cut)
        .expect_err("a cut packet")
        .to_string();
    assert!(error.starts_with("cut.pftrace: byte "), "{error}");
    assert!(error.contains("runs past the end"), "{error}");
    let error = read_perfetto::from_bytes(Path::new("x.pftrace"), b"\x00\x01")
        .expect_err("field 0")
        .to_string();
    assert!(error.contains("byte 0"), "{error}");

    let error = read_chrome::from_bytes(Path::new("x.json"), b"{\"traceEvents\": [ {\"ph\": 7} ]}")
        .expect_err("a bad phase")
        .to_string();
    assert!(error.starts_with("x.json: 1:"), "{error}");
    // Cut short after whole events: what was read is kept, with a warning.
    let (json, _) = write(&tl, ExportFormat::ChromeJson, None);
    let text = String::from_utf8(json).expect("utf-8");
    let cut = &text[..text.rfind("},").expect("events") + 2];
    let back = read_chrome::from_bytes(Path::new("cut.json"), cut.as_bytes()).expect("kept");
    assert!(back.event_count() > 0);
    assert!(
        back.warnings
            .iter()
            .any(|w| w.problem.message.contains("ends early"))
    );
}

#[test]
fn other_chrome_traces_read_with_begin_end_pairs_counters_and_flows() {
    let trace = br#"[
        {"ph":"M","name":"process_name","pid":1,"args":{"name":"app"}},
        {"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"main"}},
        {"ph":"B","name":"outer","pid":1,"tid":2,"ts":1.0},
        {"ph":"B","name":"inner","pid":1,"tid":2,"ts":2.5},
        {"ph":"s","name":"f","id":"0x1","pid":1,"tid":2,"ts":2.5},
        {"ph":"E","pid":1,"tid":2,"ts":3.0},
        {"ph":"E","pid":1,"tid":2,"ts":4.0},
        {"ph":"X","name":"work","pid":1,"tid":3,"ts":5,"dur":2},
        {"ph":"f","name":"f","id":"0x1","pid":1,"tid":3,"ts":5,"bp":"e"},
        {"ph":"C","name":"mem","pid":1,"ts":6,"args":{"bytes":10,"pages":2}},
        {"ph":"i","name":"mark","pid":1,"tid":2,"ts":8,"s":"t"}
    ]"#;
    let tl = read_chrome::from_bytes(Path::new("t.json"), trace).expect("reads");
    let names: Vec<(String, i64, i64)> = tl
        .events()
        .map(|e| (tl.name(e.name).to_owned(), e.start, e.end))
        .collect();
    for want in [
        ("outer", 1000, 4000),
        ("inner", 2500, 3000),
        ("work", 5000, 7000),
        ("mark", 8000, 8000),
    ] {
        assert!(
            names.contains(&(want.0.to_owned(), want.1, want.2)),
            "{want:?} in {names:?}"
        );
    }
    assert_eq!(flows(&tl, None).len(), 1);
    let (from, to) = &flows(&tl, None)[0];
    assert_eq!((from.1.as_str(), to.1.as_str()), ("inner", "work"));
    let tracks: Vec<&str> = tl.tracks.iter().map(|t| t.name.as_str()).collect();
    for want in ["app", "main", "mem bytes", "mem pages"] {
        assert!(tracks.contains(&want), "{want} in {tracks:?}");
    }
    assert_eq!(
        tl.counts_by_kind()
            .iter()
            .find(|(k, _)| *k == EventKind::Range)
            .map(|c| c.1),
        Some(3)
    );
}

#[test]
fn the_command_writes_both_formats_with_a_range() {
    use clap::Parser;
    #[derive(Parser)]
    struct One {
        #[command(flatten)]
        args: sightline::cli::export::ExportArgs,
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let input = fixtures().join("nsys/synth_2k.sqlite");
    let tl = load(&input);
    let (t0, t1) = tl.time_range().expect("events");
    let mid = t0 + (t1 - t0) / 2;
    for (name, format) in [
        ("a.perfetto-trace", ExportFormat::Perfetto),
        ("a.json", ExportFormat::ChromeJson),
    ] {
        let out = dir.path().join(name);
        let argv = [
            "export",
            input.to_str().expect("utf-8"),
            "-o",
            out.to_str().expect("utf-8"),
            "--from",
            &t0.to_string(),
            "--to",
            &mid.to_string(),
        ];
        let parsed = One::try_parse_from(argv).expect("arguments");
        let mut stdout = Vec::new();
        sightline::cli::export::run(&parsed.args, &mut stdout).expect("runs");
        assert!(stdout.is_empty());
        let back = read(&std::fs::read(&out).expect("written"), format);
        assert_eq!(
            events(&back, false, None),
            events(&tl, false, Some((t0, mid))),
            "{name}"
        );
    }
}

/// The Python script that decodes a trace with the `perfetto` package's published bindings
/// and prints what it saw as JSON.
const DECODE_PY: &str = r#"
import json, sys
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb
trace = pb.Trace()
with open(sys.argv[1], "rb") as f:
    trace.ParseFromString(f.read())
names, events, tracks = {}, [], 0
flows, terminating = [], []
for p in trace.packet:
    if p.HasField("interned_data"):
        for n in p.interned_data.event_names:
            names[n.iid] = n.name
    if p.HasField("track_descriptor"):
        tracks += 1
    if p.HasField("track_event"):
        e = p.track_event
        if e.type in (pb.TrackEvent.TYPE_SLICE_BEGIN, pb.TrackEvent.TYPE_INSTANT, pb.TrackEvent.TYPE_COUNTER):
            events.append([names[e.name_iid], p.timestamp])
        flows.extend(e.flow_ids)
        terminating.extend(e.terminating_flow_ids)
print(json.dumps({"events": events, "tracks": tracks, "flows": sorted(flows), "terminating": sorted(terminating)}))
"#;

#[test]
fn perfettos_python_bindings_decode_the_export() {
    let probe = Command::new("python3")
        .args([
            "-c",
            "import perfetto.protos.perfetto.trace.perfetto_trace_pb2",
        ])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        eprintln!(
            "skipped: python3 with the `perfetto` package (pip install perfetto) is not available"
        );
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    for path in fixture_files() {
        let tl = load(&path);
        let (bytes, summary) = write(&tl, ExportFormat::Perfetto, None);
        let file = dir.path().join("t.perfetto-trace");
        std::fs::write(&file, &bytes).expect("write");
        let out = Command::new("python3")
            .args(["-c", DECODE_PY, file.to_str().expect("utf-8")])
            .output()
            .expect("python3 runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let seen: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let mut theirs: Vec<(String, i64)> = seen["events"]
            .as_array()
            .expect("events")
            .iter()
            .map(|e| {
                (
                    e[0].as_str().expect("name").to_owned(),
                    e[1].as_i64().expect("ts"),
                )
            })
            .collect();
        theirs.sort();
        let mut ours: Vec<(String, i64)> = tl
            .events()
            .map(|e| (tl.name(e.name).to_owned(), e.start))
            .collect();
        ours.sort();
        assert_eq!(theirs, ours, "{}", path.display());
        assert_eq!(seen["tracks"].as_u64(), Some(summary.tracks));
        let ids: Vec<u64> = (1..=summary.flows).collect();
        let as_ids = |v: &serde_json::Value| -> Vec<u64> {
            v.as_array()
                .expect("ids")
                .iter()
                .filter_map(|x| x.as_u64())
                .collect()
        };
        assert_eq!(
            as_ids(&seen["flows"]).len(),
            ids.len(),
            "{}",
            path.display()
        );
        let mut flows = as_ids(&seen["flows"]);
        let mut ends = as_ids(&seen["terminating"]);
        flows.sort_unstable();
        ends.sort_unstable();
        assert_eq!(flows, ends, "every flow ends once");
        assert_eq!(flows.len(), tl.flows().len());
    }
}
