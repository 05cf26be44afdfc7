//! The Events view in the app, driven headless (egui_kittest): opened from the toolbar on the
//! selected NCCL call's track, sorted by duration (longest first: the 20 longest NCCL calls),
//! filtered by typing, a row clicked selects its event on the timeline and brings it into
//! view, the CSV export equals `sightline events --csv`, and "Show in Events View" in a
//! track's menu opens it on that track.

use std::time::Duration;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sightline::app::SightlineApp;
use sightline::app::timeline::TimelineDoc;
use sightline::app::timeline::view::format_duration;
use sightline::timeline::EventsTable;

use crate::common;
use crate::events_view::{CALLS, duration_of, events_cli, track_of, write_calls};

fn doc<'h>(h: &'h Harness<'static, SightlineApp>) -> &'h TimelineDoc {
    h.state()
        .document::<TimelineDoc>(0)
        .expect("a timeline tab")
}

fn doc_mut<'h>(h: &'h mut Harness<'static, SightlineApp>) -> &'h mut TimelineDoc {
    h.state_mut()
        .document_mut::<TimelineDoc>(0)
        .expect("a timeline tab")
}

/// Steps until the view's rows are computed and sorted.
fn settle(h: &mut Harness<'static, SightlineApp>) {
    common::app::step_until(h, "the events view", Duration::from_secs(30), |h| {
        let v = doc(h).events_view();
        v.table().is_some() && !v.is_busy()
    });
}

/// The text box right of the label "Filter events:".
fn type_filter(h: &mut Harness<'static, SightlineApp>, text: &str) {
    let label = h.get_by_label("Filter events:").rect();
    let rect = h
        .query_all_by_role(eframe::egui::accesskit::Role::TextInput)
        .filter(|n| {
            let r = n.rect();
            r.min.x >= label.max.x && r.min.y < label.max.y && r.max.y > label.min.y
        })
        .min_by(|a, b| a.rect().min.x.total_cmp(&b.rect().min.x))
        .map(|n| n.rect())
        .expect("the filter's box");
    let find = |h: &Harness<'static, SightlineApp>| {
        h.query_all_by_role(eframe::egui::accesskit::Role::TextInput)
            .find(|n| n.rect() == rect)
            .is_some()
    };
    assert!(find(h));
    h.query_all_by_role(eframe::egui::accesskit::Role::TextInput)
        .find(|n| n.rect() == rect)
        .unwrap()
        .focus();
    h.run();
    h.query_all_by_role(eframe::egui::accesskit::Role::TextInput)
        .find(|n| n.rect() == rect)
        .unwrap()
        .type_text(text);
    h.run();
}

#[test]
fn the_20_longest_nccl_calls_sorted_filtered_clicked_and_exported() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_calls(dir.path());
    let mut h = common::app::harness_sized(vec![path.clone()], eframe::egui::vec2(1600.0, 1000.0));
    common::app::step_until(&mut h, "the timeline", Duration::from_secs(30), |h| {
        h.state()
            .document::<TimelineDoc>(0)
            .is_some_and(|d| d.timeline().is_some() && d.stats().reports.is_some())
    });
    let tl = doc(&h).timeline().unwrap().clone();
    let track = track_of(&tl, "ncclSend");
    // Select a call, then open the view from the toolbar: the call's track is listed.
    let first = crate::nvtx_payload::event_named(&tl, "ncclAllReduce");
    doc_mut(&mut h).go_to(first);
    h.run();
    h.get_by_label("Events view (E)").click();
    h.run();
    settle(&mut h);
    let (table, rows) = doc(&h).events_view().table().expect("a table");
    assert_eq!(table.track(), track);
    assert_eq!(rows.len(), CALLS);

    // Duration: ascending, then descending.
    let button = eframe::egui::accesskit::Role::Button;
    h.get_by_role_and_label(button, "Duration").click();
    h.run();
    h.get_by_role_and_label(button, "Duration ^").click();
    h.run();
    settle(&mut h);
    h.get_by_role_and_label(button, "Duration v");
    let mut want: Vec<i64> = (0..CALLS).map(duration_of).collect();
    want.sort_unstable_by(|a, b| b.cmp(a));
    let durations = |h: &Harness<'static, SightlineApp>| -> Vec<i64> {
        let v = doc(h).events_view();
        let (table, _) = v.table().unwrap();
        v.shown_rows()
            .iter()
            .map(|&r| {
                let e = tl.event(table.event(r).unwrap()).unwrap();
                e.end - e.start
            })
            .collect()
    };
    assert_eq!(durations(&h)[..20], want[..20]);
    // The longest is on screen, written with its unit.
    h.get_by_label(&format_duration(want[0] as f64));

    // Typing a filter keeps the sends, still longest first.
    type_filter(&mut h, "send");
    settle(&mut h);
    let sends: Vec<i64> = (0..CALLS).filter(|i| i % 2 == 1).map(duration_of).collect();
    let mut want_sends = sends.clone();
    want_sends.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(durations(&h), want_sends);

    // A click on the third row selects its call on the timeline and brings it into view.
    let third = want_sends[2];
    let target = {
        let v = doc(&h).events_view();
        let (table, _) = v.table().unwrap();
        table.event(v.shown_rows()[2]).unwrap()
    };
    assert_ne!(doc(&h).selection().event, Some(target));
    h.get_by_label(&format_duration(third as f64)).click();
    h.run();
    h.run();
    assert_eq!(doc(&h).selection().event, Some(target));
    let e = tl.event(target).unwrap();
    let view = doc(&h).canvas().viewport;
    assert!(
        view.start <= e.start as f64 && view.end() >= e.end as f64,
        "{view:?} shows {}..{}",
        e.start,
        e.end
    );

    // Export CSV writes what `sightline events --csv` prints for the same filter and sort.
    let out = dir.path().join("events.csv");
    doc(&h).events_view().write_csv(&tl, &out).unwrap();
    let exported = std::fs::read_to_string(&out).unwrap();
    let cli = events_cli(&[
        path.to_str().unwrap(),
        &tl.track_path(track),
        "--filter",
        "send",
        "--sort",
        "Duration (ns)",
        "--desc",
        "--csv",
    ]);
    assert_eq!(exported, cli);
    assert_eq!(exported.lines().count(), CALLS / 2 + 1);
}

#[test]
fn show_in_events_view_from_a_tracks_menu() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_calls(dir.path());
    let mut h = common::app::opened_timeline(vec![path]);
    let tl = doc(&h).timeline().unwrap().clone();
    let track = track_of(&tl, "ncclSend");
    assert!(!doc(&h).events_view().open);
    let name = tl.track(track).unwrap().name.clone();
    h.get_by_label(&name).click_secondary();
    h.run();
    h.get_by_label("Show in Events View").click();
    h.run();
    settle(&mut h);
    let v = doc(&h).events_view();
    assert!(v.open);
    let (table, _) = v.table().unwrap();
    assert_eq!(table.track(), track);
    assert_eq!(table.len(), EventsTable::new(&tl, track, None).len());
    // A range selected on the timeline: only its events are listed.
    let starts: Vec<i64> = (0..table.len())
        .map(|r| tl.event(table.event(r).unwrap()).unwrap().start)
        .collect();
    let range = (starts[10] + 1, starts[15] - 1);
    doc_mut(&mut h).selection_mut().set_range(&tl, Some(range));
    h.run();
    settle(&mut h);
    let (table, rows) = doc(&h).events_view().table().unwrap();
    assert_eq!((table.range(), rows.len()), (Some(range), 5));
    // E closes it (no text box has the keyboard).
    h.key_press(eframe::egui::Key::E);
    h.run();
    assert!(!doc(&h).events_view().open);
}

#[test]
fn a_track_past_100k_events_is_listed_and_sorted_in_the_background() {
    use sightline_test_support::nsys::{SynthOptions, write_export};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.sqlite");
    let options = SynthOptions {
        events: 330_000,
        threads: 1,
        streams: 1,
        seed: 7,
    };
    write_export(&path, &options).unwrap();
    let mut h = common::app::opened_timeline(vec![path]);
    let tl = doc(&h).timeline().unwrap().clone();
    let track = (0..tl.tracks.len() as u32)
        .map(sightline::timeline::TrackId)
        .find(|&t| tl.track(t).unwrap().name == "CUDA API")
        .unwrap();
    let events = tl.track(track).unwrap().event_count();
    assert!(events > 100_000, "{events} calls");
    doc_mut(&mut h).events_view_mut().show_track(track);
    h.step();
    assert!(doc(&h).events_view().is_busy(), "listed on a job");
    settle(&mut h);
    assert_eq!(doc(&h).events_view().table().unwrap().1.len(), events);
    let button = eframe::egui::accesskit::Role::Button;
    h.get_by_role_and_label(button, "Duration").click();
    h.step();
    // Not sorted in the frame: the rows stay in time order until the sort job's order comes.
    let shown = doc(&h).events_view().shown_rows();
    assert!(shown.iter().copied().eq(0..events), "still in time order");
    settle(&mut h);
    h.get_by_role_and_label(button, "Duration ^").click();
    h.step();
    settle(&mut h);
    h.get_by_role_and_label(button, "Duration v");
    let v = doc(&h).events_view();
    let (table, _) = v.table().unwrap();
    let durations: Vec<i64> = v
        .shown_rows()
        .iter()
        .map(|&r| {
            let e = tl.event(table.event(r).unwrap()).unwrap();
            e.end - e.start
        })
        .collect();
    assert_eq!(durations.len(), events);
    assert!(durations.windows(2).all(|w| w[0] >= w[1]), "longest first");
}

/// A stream listed in the app shows its kernels' launch configuration and copies' kinds,
/// read from the export on a job, and shows them in the table's header.
#[test]
fn a_streams_kernels_show_their_grid_and_block() {
    let export = common::fixtures().join("nsys/synth_2k.sqlite");
    let mut h = common::app::opened_timeline(vec![export]);
    let tl = doc(&h).timeline().unwrap().clone();
    let track = (0..tl.tracks.len() as u32)
        .map(sightline::timeline::TrackId)
        .find(|&t| tl.track_path(t).ends_with("/Stream 7"))
        .expect("Stream 7");
    doc_mut(&mut h).events_view_mut().show_track(track);
    h.run();
    settle(&mut h);
    let (table, rows) = doc(&h).events_view().table().unwrap();
    assert_eq!(rows.len(), table.len());
    for label in [
        "Grid X",
        "Block X",
        "Registers per thread",
        "Bytes",
        "Copy kind",
    ] {
        assert!(
            table.column_index(label).is_some(),
            "{label}: {:?}",
            table.labels()
        );
    }
    assert_eq!(table.source_problem(), None);
    h.get_by_label("Grid X");
    h.get_by_label("Copy kind");
}
