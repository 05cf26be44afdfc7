//! NVTXT files and CodeXL traces on the timeline pane, driven headless (egui_kittest): an
//! `.nvtxt` opened alone with its problems listed per file, the `.nvtxt` files beside an export
//! merged onto its timeline, Add NVTXT, live reload when a file changes on disk, and an `.atp`
//! trace with its device queues, summary tables, flows and trace details.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sightline::app::SightlineApp;
use sightline::app::timeline::TimelineDoc;
use sightline::problem::Location;
use sightline::timeline::{EventKind, Timeline};
use sightline_test_support::nsys::{SynthOptions, write_export};

fn doc<'h>(h: &'h Harness<'static, SightlineApp>) -> &'h TimelineDoc {
    h.state()
        .document::<TimelineDoc>(0)
        .expect("a timeline tab")
}

fn timeline(h: &Harness<'static, SightlineApp>) -> std::sync::Arc<Timeline> {
    doc(h).timeline().expect("loaded").clone()
}

/// Opens `files` and waits until the first tab's timeline and summary tables are ready.
fn opened(files: Vec<PathBuf>) -> Harness<'static, SightlineApp> {
    common::app::opened_timeline(files)
}

/// A small export in `dir`, with an NVTXT file beside it on thread 4242/4243.
fn export_with_notes(dir: &Path) -> (PathBuf, PathBuf) {
    let export = dir.join("run.sqlite");
    write_export(
        &export,
        &SynthOptions {
            events: 2000,
            threads: 2,
            streams: 2,
            seed: 3,
        },
    )
    .expect("write the export");
    let tl = sightline::timeline::nsys::load(&export).expect("load");
    let thread = tl
        .tracks
        .iter()
        .find(|t| t.kind == sightline::timeline::TrackKind::Thread)
        .expect("a thread");
    let process = tl.track(thread.parent.expect("parent")).expect("process");
    let (t0, _) = tl.time_range().expect("events");
    let notes = dir.join("notes.nvtxt");
    std::fs::write(
        &notes,
        format!(
            "SetFileDisplayName, \"Notes\"\nTimeBase = Relative\n\
             @RangePush, Time, ProcessId, ThreadId, Message\n@RangePop, Time, ProcessId, ThreadId\n\
             RangePush, {t0}, {pid}, {tid}, \"phase A\"\nRangePop, {end}, {pid}, {tid}\n",
            pid = process.key,
            tid = thread.key,
            end = t0 + 1000,
        ),
    )
    .expect("write nvtxt");
    (export, notes)
}

/// The process and thread ids of the track an event sits on (NVTXT series → thread → process).
fn process_and_thread(tl: &Timeline, event: sightline::timeline::EventId) -> Option<(u64, u64)> {
    let (series, _) = tl.locate(event)?;
    let thread = tl.track(tl.track(series)?.parent?)?;
    let process = tl.track(thread.parent?)?;
    Some((process.key, thread.key))
}

fn names_on(tl: &Timeline, kind: EventKind) -> Vec<String> {
    let mut names: Vec<String> = tl
        .events()
        .filter(|e| e.kind == kind)
        .map(|e| tl.name(e.name).to_string())
        .collect();
    names.sort();
    names
}

#[test]
fn an_nvtxt_file_alone_with_its_problems_listed() {
    let file = common::fixtures().join("nvtxt/colors.nvtxt");
    let mut h = opened(vec![file]);
    let tl = timeline(&h);
    assert_eq!(tl.event_count(), 8);
    assert!(
        tl.tracks
            .iter()
            .any(|t| t.name == "NVTXT: colors.nvtxt — 2 warnings"),
        "{:?}",
        tl.tracks.iter().map(|t| &t.name).collect::<Vec<_>>()
    );
    h.run();
    // The per-file list, open on the file's problems (only warnings: open it).
    h.get_by_label("colors.nvtxt — 0 error(s), 2 warning(s)")
        .click();
    h.run();
    h.get_by_label_contains("8:21: warning: parsing: unknown colour `blue`");
    assert!(
        !doc(&h).accepts_nvtxt(),
        "a file alone takes no other NVTXT"
    );
}

#[test]
fn nvtxt_beside_an_export_is_merged_and_reloaded_when_it_changes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (export, notes) = export_with_notes(dir.path());
    let mut h = opened(vec![export]);
    let tl = timeline(&h);
    assert_eq!(names_on(&tl, EventKind::Range), vec!["phase A"]);
    let range = tl
        .events()
        .find(|e| e.kind == EventKind::Range)
        .expect("range");
    let (track, _) = tl.locate(range.id).expect("track");
    let path = tl.track_path(track);
    assert!(path.starts_with("Machine 0/Process"), "{path}");
    assert!(path.ends_with("/NVTXT: Notes"), "{path}");
    assert!(doc(&h).accepts_nvtxt());
    // Selecting it names the file and line.
    h.state_mut()
        .document_mut::<TimelineDoc>(0)
        .expect("tab")
        .go_to(range.id);
    h.run();
    h.get_by_label_contains("notes.nvtxt:5");

    // Save the file with one more line: the watcher reads it again within a second and the
    // timeline follows, keeping the zoom and the selection.
    let viewport = (
        doc(&h).canvas().viewport.start,
        doc(&h).canvas().viewport.ns_per_px,
    );
    let text = std::fs::read_to_string(&notes).expect("read");
    let (pid, tid) = (process_and_thread(&tl, range.id)).expect("ids");
    let added = format!(
        "{text}@Marker, Time, ProcessId, ThreadId, Message\nMarker, {}, {pid}, {tid}, \"saved\"\n",
        range.start + 10
    );
    std::fs::write(&notes, added).expect("rewrite");
    let saved = std::time::Instant::now();
    common::app::step_until(&mut h, "the live reload", Duration::from_secs(20), |h| {
        h.state()
            .document::<TimelineDoc>(0)
            .and_then(|d| d.timeline().cloned())
            .is_some_and(|tl| names_on(&tl, EventKind::Marker) == vec!["saved"])
    });
    eprintln!("live reload took {:?}", saved.elapsed());
    let tl = timeline(&h);
    let kept = doc(&h).selection().event.expect("the selection is kept");
    assert_eq!(tl.name(tl.event(kept).expect("event").name), "phase A");
    assert_eq!(
        (
            doc(&h).canvas().viewport.start,
            doc(&h).canvas().viewport.ns_per_px
        ),
        viewport
    );

    // A rename: the renamed range replaces the old one.
    let text = std::fs::read_to_string(&notes).expect("read");
    std::fs::write(&notes, text.replace("phase A", "phase B")).expect("rewrite");
    common::app::step_until(&mut h, "the second reload", Duration::from_secs(20), |h| {
        h.state()
            .document::<TimelineDoc>(0)
            .and_then(|d| d.timeline().cloned())
            .is_some_and(|tl| names_on(&tl, EventKind::Range) == vec!["phase B"])
    });
    assert!(doc(&h).nvtxt().as_ref().expect("files").reloads >= 2);

    // Add NVTXT: a second file, with a bad line, lands on the same timeline.
    let more = dir.path().join("more/extra.nvtxt");
    std::fs::create_dir_all(more.parent().expect("folder")).expect("mkdir");
    std::fs::write(
        &more,
        "TimeBase = Relative\n@Marker, Time, Message\nMarker, 5, \"tick\"\nMarker, x, \"bad\"\n",
    )
    .expect("write");
    h.state_mut()
        .document_mut::<TimelineDoc>(0)
        .expect("tab")
        .add_nvtxt(more.clone());
    common::app::step_until(&mut h, "the added file", Duration::from_secs(20), |h| {
        h.state()
            .document::<TimelineDoc>(0)
            .and_then(|d| d.timeline().cloned())
            .is_some_and(|tl| names_on(&tl, EventKind::Marker) == vec!["saved", "tick"])
    });
    let tl = timeline(&h);
    assert_eq!(names_on(&tl, EventKind::Range), vec!["phase B"]);
    assert!(
        tl.warnings.iter().any(|w| w.file == more
            && w.problem.location == Location::line_column(4, 9)
            && w.problem.is_error()),
        "{:?}",
        tl.warnings
    );
    h.run();
    h.get_by_label("extra.nvtxt — 1 error(s), 0 warning(s)");
}

#[test]
fn an_atp_trace_with_queues_flows_summaries_and_trace_details() {
    let file = common::fixtures().join("codexl/session1.atp");
    let mut h = opened(vec![file]);
    let tl = timeline(&h);
    assert!(tl.tracks.iter().any(|t| t.name == "Queue 1"));
    assert!(tl.tracks.iter().any(|t| t.name == "HSA queue 0"));
    // A kernel command, launched by its enqueue call, with its waiting time kept.
    let kernel = tl
        .events()
        .filter(|e| e.kind == EventKind::Kernel)
        .find(|e| !tl.flow_partners(e.id).is_empty())
        .expect("an OpenCL kernel");
    let call = tl.event(tl.flow_partners(kernel.id)[0]).expect("call");
    assert_eq!(call.kind, EventKind::HostApi);
    assert!(
        tl.name(call.name).starts_with("clEnqueue"),
        "{}",
        tl.name(call.name)
    );
    h.state_mut()
        .document_mut::<TimelineDoc>(0)
        .expect("tab")
        .go_to(kernel.id);
    h.run();
    h.get_by_label("From the trace");
    h.get_by_label("Global work size");
    // The session's counter row and occupancy row of this very dispatch (joined by thread and
    // call index), and the other files of the session offered above the timeline.
    h.get_by_label("Performance counters");
    h.get_by_label_contains("of the counter file");
    assert!(
        h.query_by_label_contains("has no row").is_none(),
        "the selected dispatch has its counter and occupancy rows"
    );
    h.get_by_label_contains("Same session: session1.csv, session1.occupancy");
    // The summary tables are computed from the trace: kernels first.
    let reports = doc(&h).stats().reports.as_ref().expect("reports");
    let names: Vec<&str> = reports.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names[0], "kernel_sum", "{names:?}");
    assert!(names.contains(&"api_sum"));
    h.get_by_label("matmul_tiled");
}

/// Saving a watched NVTXT file wakes an idle window: the watcher's thread requests the repaint
/// (kittest steps frames all the time and would hide a missing one, so the test waits without
/// stepping), for a save in place and a save by rename (what editors do).
#[test]
fn saving_an_nvtxt_file_wakes_an_idle_window() {
    let dir = tempfile::tempdir().expect("temp dir");
    let notes = dir.path().join("idle.nvtxt");
    let text = |name: &str| {
        format!("TimeBase = Relative\n@Marker, Time, Message\nMarker, 5, \"{name}\"\n")
    };
    std::fs::write(&notes, text("one")).expect("write");
    let mut h = opened(vec![notes.clone()]);
    assert_eq!(names_on(&timeline(&h), EventKind::Marker), vec!["one"]);
    for (name, by_rename) in [("two", false), ("three", true)] {
        h.run();
        assert!(!h.ctx.has_requested_repaint(), "the window is idle");
        if by_rename {
            let part = dir.path().join("idle.nvtxt.part");
            std::fs::write(&part, text(name)).expect("write");
            std::fs::rename(&part, &notes).expect("rename");
        } else {
            std::fs::write(&notes, text(name)).expect("write");
        }
        let saved = std::time::Instant::now();
        while !h.ctx.has_requested_repaint() {
            assert!(
                saved.elapsed() < Duration::from_secs(5),
                "saving {name} did not wake the idle window"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        eprintln!("woken {:?} after the save ({name})", saved.elapsed());
        common::app::step_until(&mut h, "the reload", Duration::from_secs(10), |h| {
            h.state()
                .document::<TimelineDoc>(0)
                .and_then(|d| d.timeline().cloned())
                .is_some_and(|tl| names_on(&tl, EventKind::Marker) == vec![name])
        });
    }
}
