//! A timeline and an Nsight Compute report of the same program open side by side (the
//! generated pair of `sightline_test_support::link_pair`): the profiled kernels get their badge
//! on the canvas, "Open in Nsight Compute result N" switches to the report's tab and selects
//! the result, the report's "Show on timeline" switches back and selects the kernel, and an
//! uncertain match offers its candidates.

use std::path::PathBuf;
use std::time::Duration;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sightline::app::SightlineApp;
use sightline::app::ncu::report_tab::ReportTab;
use sightline::app::timeline::TimelineDoc;
use sightline::timeline::EventId;
use sightline_test_support::link_pair::{LAUNCHES, SCENARIOS, write_report, write_timeline};

use crate::common;

/// The timeline (tab 0) and the report of scenario `scenario` (tab 1), loaded and linked.
fn opened(scenario: usize) -> (tempfile::TempDir, Harness<'static, SightlineApp>) {
    let dir = tempfile::tempdir().unwrap();
    let export = dir.path().join("train.sqlite");
    write_timeline(&export).unwrap();
    let s = &SCENARIOS[scenario];
    let report: PathBuf = dir.path().join(format!("{}.ncu-rep", s.name));
    write_report(s, std::fs::File::create(&report).unwrap()).unwrap();
    let mut h = common::app::harness(vec![export, report]);
    let results = s.results.len();
    common::app::step_until(&mut h, "the link", Duration::from_secs(60), |h| {
        h.state()
            .document::<TimelineDoc>(0)
            .is_some_and(|d| !d.ncu_links().busy() && !d.ncu_links().marked.is_empty())
            && h.state().document::<ReportTab>(1).is_some_and(|r| {
                r.report()
                    .as_ref()
                    .is_some_and(|r| r.num_actions() == results)
            })
    });
    (dir, h)
}

fn timeline_doc<'h>(h: &'h Harness<'static, SightlineApp>) -> &'h TimelineDoc {
    h.state().document::<TimelineDoc>(0).unwrap()
}

/// The timeline event of launch `launch` of the generated program.
fn event_of(h: &Harness<'static, SightlineApp>, launch: usize) -> EventId {
    let timeline = timeline_doc(h).timeline().unwrap().clone();
    let l = LAUNCHES[launch];
    timeline
        .events()
        .find(|e| e.kind == sightline::timeline::EventKind::Kernel && e.start == l.start)
        .unwrap()
        .id
}

#[test]
fn profiled_kernels_are_marked() {
    let (_dir, mut h) = opened(1);
    h.state_mut().active = 0;
    h.step();
    h.step();
    let doc = timeline_doc(&h);
    // Every launch of the program was profiled; the other program's kernel was not.
    assert_eq!(doc.ncu_links().marked.len(), 8);
    assert!(!doc.ncu_links().marked.contains(&event_of(&h, 8)));
    assert!(doc.canvas().linked_drawn > 0, "no badge drawn");
}

#[test]
fn open_in_nsight_compute_switches_tab_and_selects() {
    let (_dir, mut h) = opened(1);
    h.state_mut().active = 0;
    let event = event_of(&h, 3);
    h.state_mut()
        .document_mut::<TimelineDoc>(0)
        .unwrap()
        .go_to(event);
    h.step();
    h.step();
    h.get_by_label("Open in Nsight Compute result 3").click();
    h.step();
    h.step();
    assert_eq!(h.state().active, 1);
    assert_eq!(h.state().document::<ReportTab>(1).unwrap().selected(), 3);
}

#[test]
fn show_on_timeline_selects_the_kernel() {
    let (_dir, mut h) = opened(0);
    // Result 1 of `-k gemm --launch-skip 1` is the timeline's L3.
    h.state_mut().active = 1;
    h.state_mut()
        .document_mut::<ReportTab>(1)
        .unwrap()
        .select(1);
    common::app::step_until(&mut h, "the Details page", Duration::from_secs(30), |h| {
        h.query_by_label("Show on timeline").is_some()
    });
    h.get_by_label("Show on timeline").click();
    h.step();
    h.step();
    assert_eq!(h.state().active, 0);
    let event = event_of(&h, 3);
    let doc = timeline_doc(&h);
    assert_eq!(doc.selection().event, Some(event));
    // Framed: the kernel (4 µs) fills a fifth of the view.
    let view = &doc.canvas().viewport;
    let (t0, t1) = (
        view.start,
        view.start + view.ns_per_px * f64::from(view.width),
    );
    let l = LAUNCHES[3];
    assert!(
        t0 < l.start as f64 && (l.start + 4_000) as f64 <= t1,
        "{t0}..{t1}"
    );
    assert!(t1 - t0 < 30_000.0, "{t0}..{t1}");
}

#[test]
fn a_report_opened_later_links_and_closing_it_unlinks() {
    let dir = tempfile::tempdir().unwrap();
    let export = dir.path().join("train.sqlite");
    write_timeline(&export).unwrap();
    let s = &SCENARIOS[0];
    let report = dir.path().join(format!("{}.ncu-rep", s.name));
    write_report(s, std::fs::File::create(&report).unwrap()).unwrap();
    let mut h = common::app::harness(vec![export]);
    common::app::step_until(&mut h, "the timeline", Duration::from_secs(60), |h| {
        h.state().document::<TimelineDoc>(0).is_some_and(|d| {
            d.timeline()
                .is_some_and(|t| !t.stacks_pending && !t.partial)
        })
    });
    assert!(timeline_doc(&h).ncu_links().marked.is_empty());
    // As a drop on the window does: the report opens in a tab of its own, and links.
    let ctx = h.ctx.clone();
    h.state_mut().open(&report, &ctx);
    common::app::step_until(&mut h, "the link", Duration::from_secs(60), |h| {
        timeline_doc(h).ncu_links().marked.len() == 3
    });
    assert_eq!(h.state().active, 1);
    h.state_mut().close(1);
    h.step();
    assert!(timeline_doc(&h).ncu_links().marked.is_empty());
}

#[test]
fn uncertain_matches_offer_candidates() {
    let (_dir, mut h) = opened(2);
    // Result 0 may be any gemm launch with grid 8: four candidates, none chosen.
    h.state_mut().active = 1;
    common::app::step_until(&mut h, "the candidates", Duration::from_secs(30), |h| {
        h.query_by_label("candidate 4").is_some()
    });
    h.get_by_label("candidate 1").click();
    h.step();
    h.step();
    assert_eq!(h.state().active, 0);
    let selected = timeline_doc(&h).selection().event.unwrap();
    // The first candidate is one of the two that agree with the result's NVTX state.
    assert!([event_of(&h, 3), event_of(&h, 5)].contains(&selected));
    // On the timeline, the candidate's details say "may be" rather than "Open in".
    h.step();
    assert!(
        h.query_by_label("Open in Nsight Compute result 0")
            .is_none()
    );
    assert!(h.query_by_label("result 0").is_some());
}

/// The status bar shows the active tab's message: the timeline's link result stays with the
/// timeline, the report's and the Gainsight panel's "Opened" with theirs, and switching tabs
/// (by clicking them) switches the message.
#[test]
fn the_status_bar_follows_the_active_tab() {
    let dir = tempfile::tempdir().unwrap();
    let export = dir.path().join("train.sqlite");
    write_timeline(&export).unwrap();
    let s = &SCENARIOS[1];
    let report: PathBuf = dir.path().join(format!("{}.ncu-rep", s.name));
    write_report(s, std::fs::File::create(&report).unwrap()).unwrap();
    let log = common::fixtures().join("gainsight").join("handmade.log");
    let mut h = common::app::harness(vec![export, report.clone(), log.clone()]);
    common::app::step_until(
        &mut h,
        "the link and the loads",
        Duration::from_secs(60),
        |h| {
            h.state().tabs.iter().all(|t| !t.loading())
                && h.state()
                    .document::<TimelineDoc>(0)
                    .is_some_and(|d| !d.ncu_links().busy() && !d.ncu_links().marked.is_empty())
        },
    );
    let status = |h: &Harness<'static, SightlineApp>| h.state().status().expect("a status").0;
    let linked = format!("Linked with {}.ncu-rep: ", s.name);

    h.get_by_label("train.sqlite").click();
    h.run();
    assert_eq!(h.state().active, 0);
    assert!(status(&h).starts_with(&linked), "{}", status(&h));
    h.get_by_label(&status(&h));

    h.get_by_label("handmade.log").click();
    h.run();
    assert_eq!(h.state().active, 2);
    let opened = format!("Opened {}: ", log.display());
    assert!(status(&h).starts_with(&opened), "{}", status(&h));
    assert!(h.query_by_label_contains(&linked).is_none());

    h.get_by_label(&format!("{}.ncu-rep", s.name)).click();
    h.run();
    assert_eq!(h.state().active, 1);
    let opened = format!(
        "Opened {}: {} result(s) in ",
        report.display(),
        s.results.len()
    );
    assert!(status(&h).starts_with(&opened), "{}", status(&h));

    h.get_by_label("train.sqlite").click();
    h.run();
    assert!(status(&h).starts_with(&linked), "{}", status(&h));
}
