//! CUDA graph node creations, unified memory (CPU and GPU page faults, migrations) and the
//! NVENC/NVDEC/nvJPEG APIs, from an export written by `sightline_test_support::nsys_rare` with
//! the corpus exports' columns: every row lands on its own track with its fields, node
//! creations are linked to the API call they happened in, migrations leave the streams, NIC
//! and switch counters are counter tracks, and `sightline timeline --json`/`--events` list
//! the tracks and the fields.

use std::path::Path;

use sightline::timeline::{EventId, Timeline, nsys};
use sightline_test_support::nsys_rare::{CALLS, EXPECTED, NETWORK, ORDINARY_COPY, write_rare};

fn load(dir: &Path) -> (std::path::PathBuf, Timeline) {
    let path = dir.join("um.sqlite");
    write_rare(&path).unwrap_or_else(|e| panic!("{e}"));
    let tl = nsys::load(&path).unwrap_or_else(|e| panic!("{e}"));
    (path, tl)
}

/// The event `(track name, parent name, start, end)` of the timeline, if one.
fn find(tl: &Timeline, track: &str, parent: &str, span: (i64, i64)) -> Option<EventId> {
    tl.events().map(|e| e.id).find(|&id| {
        let Some(e) = tl.event(id) else { return false };
        let Some((t, _)) = tl.locate(id) else {
            return false;
        };
        let t = &tl.tracks[t.0 as usize];
        let p = t.parent.map(|p| tl.tracks[p.0 as usize].name.as_str());
        t.name == track && p == Some(parent) && (e.start, e.end) == span
    })
}

#[test]
fn every_row_lands_on_its_track_with_its_fields() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (_, tl) = load(dir.path());
    for &(table, track, parent, span, name, fields) in EXPECTED {
        let id = find(&tl, track, parent, span)
            .unwrap_or_else(|| panic!("{table} {span:?}: no event on {parent}/{track}"));
        let e = tl.event(id).unwrap_or_else(|| panic!("event"));
        assert_eq!(tl.name(e.name), name, "{table} {span:?}");
        let got: Vec<(String, String)> = tl
            .event_fields(id)
            .into_iter()
            .map(|f| (f.name, f.value.to_string()))
            .collect();
        let want: Vec<(String, String)> = fields
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        assert_eq!(got, want, "{table} {span:?}");
    }
    // Nothing else: the calls, the ordinary copy and the expected rows are every event (the
    // network counters are samples).
    assert_eq!(tl.event_count(), EXPECTED.len() + CALLS.len() + 1);
    for (table, stats) in &tl.session.imports.sources {
        assert_eq!(stats.unaccounted(), 0, "{table}");
        assert!(
            !stats.skipped.contains_key(nsys::NOT_READ),
            "{table}: {stats:?}"
        );
    }
}

#[test]
fn node_creations_are_linked_to_their_api_calls_and_migrations_leave_the_streams() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (_, tl) = load(dir.path());
    let partner_starts = |span: (i64, i64)| -> Vec<i64> {
        let id = find(&tl, "CUDA graph node creation", "Thread 4243 (main)", span)
            .unwrap_or_else(|| panic!("node {span:?}"));
        let mut starts: Vec<i64> = tl
            .flow_partners(id)
            .into_iter()
            .filter_map(|p| tl.event(p).map(|e| e.start))
            .collect();
        starts.sort_unstable();
        starts
    };
    assert_eq!(partner_starts((1_200, 1_300)), vec![CALLS[0].0]);
    // The clone made by the instantiation: its call, and its node's GPU work.
    assert_eq!(
        partner_starts((3_100, 3_200)),
        vec![CALLS[1].0, ORDINARY_COPY.0]
    );
    // Outside every call: no link.
    assert!(partner_starts((5_000, 5_100)).is_empty());
    // The ordinary copy stays on its stream; the prefetched migration keeps its call's flow.
    assert!(find(&tl, "Stream 7", "Context 1", ORDINARY_COPY).is_some());
    let stream_events: usize = tl
        .tracks
        .iter()
        .filter(|t| t.name == "Stream 7")
        .flat_map(|t| t.rows.iter().map(|r| r.len()))
        .sum();
    assert_eq!(stream_events, 1);
    let prefetch =
        find(&tl, "Unified memory", "GPU 0", (8_500, 9_500)).unwrap_or_else(|| panic!("migration"));
    let calls: Vec<i64> = tl
        .flow_partners(prefetch)
        .into_iter()
        .filter_map(|p| tl.event(p).map(|e| e.start))
        .collect();
    assert_eq!(calls, vec![CALLS[2].0]);
}

#[test]
fn the_cli_lists_the_tracks_and_prints_the_fields() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (path, _) = load(dir.path());
    let run = |args: &[&str]| {
        let mut all = vec!["timeline"];
        all.extend_from_slice(args);
        all.push(path.to_str().unwrap());
        crate::common::sightline_ok(all)
    };
    let json = run(&["--json"]);
    for &(_, track, ..) in EXPECTED {
        assert!(json.contains(&format!("\"{track}\"")), "{track}: {json}");
    }
    let events = run(&["--events"]);
    let lines: Vec<serde_json::Value> = events
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let at = |track_end: &str, start: i64| {
        lines
            .iter()
            .find(|l| {
                l["track"].as_str().is_some_and(|t| t.ends_with(track_end)) && l["start"] == start
            })
            .unwrap_or_else(|| panic!("{track_end} at {start}: {events}"))
    };
    let fault = at("GPU 0/Unified memory GPU page faults", 7_000);
    assert_eq!(fault["fields"]["Access type"], "Write");
    assert_eq!(fault["fields"]["Number of page faults"], 3);
    assert_eq!(fault["fields"]["Address"], "0x7f0000001000");
    let cpu = at("Process 4242 (um)/Unified memory CPU page faults", 6_000);
    assert_eq!(cpu["fields"]["Module"], "libapp.so");
    let node = at("Thread 4243 (main)/CUDA graph node creation", 3_100);
    assert_eq!(node["fields"]["Original graph node ID"], 5);
    let migration = at("GPU 0/Unified memory", 8_000);
    assert_eq!(migration["fields"]["Migration cause"], "Page fault");
    let nvenc = at("Thread 4243 (main)/NVENC API", 10_000);
    assert_eq!(nvenc["name"], "nvEncEncodePicture");
    assert!(nvenc.get("fields").is_none());
}

#[test]
fn network_counters_are_counter_tracks_named_as_the_export_names_them() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (_, tl) = load(dir.path());
    for &(table, device, metric, unit, samples) in NETWORK {
        let track = tl
            .tracks
            .iter()
            .enumerate()
            .find(|(_, t)| {
                t.name == metric
                    && t.parent
                        .is_some_and(|p| tl.tracks[p.0 as usize].name == device)
            })
            .map(|(i, _)| sightline::timeline::TrackId(i as u32))
            .unwrap_or_else(|| panic!("{table}: no {device}/{metric}"));
        assert!(
            tl.track_path(track)
                .ends_with(&format!("Network metrics/{device}/{metric}")),
            "{}",
            tl.track_path(track)
        );
        let series = tl
            .counter_series(track)
            .unwrap_or_else(|| panic!("{metric}: no series"));
        assert_eq!(series.unit.as_deref(), Some(unit));
        let got: Vec<(i64, f64)> = series.iter().collect();
        assert_eq!(got, samples.to_vec(), "{device}/{metric}");
    }
    let sources = &tl.session.imports.sources;
    let samples: usize = NETWORK.iter().map(|n| n.4.len()).sum();
    let events: u64 = ["NET_NIC_METRIC", "NET_IB_SWITCH_METRIC"]
        .iter()
        .map(|t| sources[*t].events)
        .sum();
    assert_eq!(events, samples as u64);
}

/// CPU core and uncore PMU counters (tables no corpus export fills, written with the corpus
/// schemas' columns): a counter track per event and CPU (cluster), named by the request's event
/// name or the raw id's metric, with every sample; `timeline --json` lists them, and every
/// row of the PMU tables is accounted for.
#[test]
fn pmu_counters_are_counter_tracks_per_cpu_and_event() {
    use sightline_test_support::nsys_pmu::{CORE, UNCORE, write_pmu};
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("pmu.sqlite");
    write_pmu(&path).unwrap_or_else(|e| panic!("{e}"));
    let tl = nsys::load(&path).unwrap_or_else(|e| panic!("{e}"));
    for &(group, device, metric, unit, samples) in CORE.iter().chain(UNCORE) {
        let want = format!("{group}/{device}/{metric}");
        let track = (0..tl.tracks.len() as u32)
            .map(sightline::timeline::TrackId)
            .find(|&t| tl.track_path(t).ends_with(&want))
            .unwrap_or_else(|| panic!("no track {want}"));
        let series = tl
            .counter_series(track)
            .unwrap_or_else(|| panic!("{want}: no series"));
        assert_eq!(
            series.unit.as_deref(),
            Some(unit).filter(|u| !u.is_empty()),
            "{want}"
        );
        let got: Vec<(i64, f64)> = series.iter().collect();
        assert_eq!(got, samples.to_vec(), "{want}");
    }
    let sources = &tl.session.imports.sources;
    for table in [
        "PMU_EVENTS",
        "PMU_EVENT_COUNTERS",
        "PMU_EVENT_REQUESTS",
        "UNCORE_PMU_EVENTS",
        "UNCORE_PMU_EVENT_VALUES",
        "TARGET_INFO_PERF_METRIC",
    ] {
        let s = &sources[table];
        assert_eq!(s.unaccounted(), 0, "{table}: {s:?}");
        assert!(s.events + s.attached > 0, "{table}: {s:?}");
    }
    assert_eq!(sources["PMU_EVENTS"].events, 5);
    let text = crate::common::sightline_ok(["timeline", path.to_str().unwrap(), "--json"]);
    for name in [
        "CPU core PMU events",
        "Uncore PMU events",
        "L2 cache misses",
        "SCF bus cycles",
    ] {
        assert!(
            text.contains(&format!("\"{name}\"")),
            "{name} not in the JSON"
        );
    }
}
