//! The summary panel's Compare tab: this timeline against another run, computed in the
//! background; its rows, verdicts and gate equal `sightline compare`'s (generated ranks with a
//! kernel made slower, and the corpus's reports exported by two nsys versions); "Open run B"
//! opens the other run in a tab.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::common;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sightline::app::SightlineApp;
use sightline::app::document::Document;
use sightline::app::recipes::compare::cell;
use sightline::app::timeline::TimelineDoc;
use sightline::timeline::compare::Comparison;

fn doc<'a>(h: &'a Harness<'static, SightlineApp>) -> &'a TimelineDoc {
    h.state()
        .document::<TimelineDoc>(0)
        .expect("the timeline tab")
}

/// Opens `a`, compares it with `b` in the Compare tab and returns the comparison shown.
fn compared(a: &Path, b: &Path) -> (Harness<'static, SightlineApp>, Arc<Comparison>) {
    let mut h =
        common::app::harness_sized(vec![a.to_path_buf()], eframe::egui::vec2(1400.0, 900.0));
    common::app::step_until(&mut h, "the export to load", Duration::from_secs(60), |h| {
        doc(h).stats().reports.is_some()
    });
    h.get_by_label("Compare").click();
    h.run();
    h.get_by_label("Compare with…");
    let ctx = h.ctx.clone();
    h.state_mut()
        .document_mut::<TimelineDoc>(0)
        .expect("the timeline")
        .stats_mut()
        .compare
        .start(
            vec![a.to_path_buf()],
            b.to_path_buf(),
            None,
            Arc::new(move || ctx.request_repaint()),
        );
    h.step();
    common::app::step_until(&mut h, "the comparison", Duration::from_secs(120), |h| {
        !doc(h).stats().compare.busy()
    });
    let pane = &doc(&h).stats().compare;
    assert_eq!(pane.error, None);
    let result = pane.result.clone().expect("a comparison");
    h.run();
    (h, result)
}

/// The tab's rows (totals, then groups by impact) equal the CLI's JSON: names, verdicts, gate.
fn same_as_cli(result: &Comparison, a: &Path, b: &Path) {
    let out = crate::compare::compare([
        a.as_os_str(),
        b.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    let v = crate::compare::json(&out);
    assert_eq!(v["gate"], serde_json::to_value(result.gate).unwrap());
    let cli: Vec<&serde_json::Value> = v["totals"]
        .as_array()
        .into_iter()
        .chain(v["changes"].as_array())
        .flatten()
        .collect();
    let ours: Vec<_> = result.totals.iter().chain(&result.changes).collect();
    assert_eq!(ours.len(), cli.len());
    for (o, c) in ours.iter().zip(&cli) {
        assert_eq!(o.name, c["name"].as_str().unwrap_or_default());
        assert_eq!(
            o.verdict.word(),
            c["verdict"].as_str().unwrap_or_default(),
            "{}",
            o.name
        );
        assert_eq!(
            o.delta_pct.map(|p| format!("{p:.6}")),
            c["delta_pct"].as_f64().map(|p| format!("{p:.6}")),
            "{}",
            o.name
        );
    }
}

#[test]
fn a_slower_kernel_shows_as_slower_and_regressed_and_run_b_opens() {
    let tmp = tempfile::tempdir().unwrap();
    let a = crate::compare::ranks(&tmp.path().join("a"), 1);
    let b_dir = tmp.path().join("b");
    let kernel = crate::compare::changed_run(&a, &b_dir, &[1.3]);
    let b = b_dir.join(a[0].file_name().unwrap());
    let (mut h, result) = compared(&a[0], &b);
    same_as_cli(&result, &a[0], &b);
    let top = &result.changes[0];
    assert_eq!(top.name, kernel);
    assert_eq!(top.verdict.word(), "slower");
    // On screen: the gate, the kernel's row and its change.
    h.get_by_label("regressed");
    h.get_by_label(kernel.as_str());
    assert!(h.query_all_by_label(&cell(top, 5)).next().is_some());
    assert!(cell(top, 5).starts_with("+30."), "{}", cell(top, 5));
    // Open run B: a second tab with the other export.
    h.get_by_label("Open run B").click();
    h.step();
    common::app::step_until(&mut h, "run B's tab", Duration::from_secs(60), |h| {
        h.state().document::<TimelineDoc>(1).is_some()
    });
    assert_eq!(
        h.state()
            .document::<TimelineDoc>(1)
            .map(|d| d.path().to_path_buf()),
        Some(b)
    );
}

#[test]
fn corpus_reports_exported_by_two_nsys_versions_compare_as_the_cli_does() {
    let Some(exports) = common::nsys_manifest_exports() else {
        return;
    };
    let mut pairs = 0;
    for a in &exports {
        let stem = a.file_stem().unwrap_or_default().to_string_lossy();
        let b = a.with_file_name(format!("{stem}_nsys23.sqlite"));
        if !exports.contains(&b) {
            continue;
        }
        let (_, result) = compared(a, &b);
        same_as_cli(&result, a, &b);
        pairs += 1;
    }
    assert!(
        pairs > 0,
        "the corpus has no report exported by two nsys versions"
    );
}

/// The start of instance `nth` (by start time) of the events named `name` in file `part` of
/// `timeline`.
fn nth_start(timeline: &sightline::timeline::Timeline, part: usize, name: &str, nth: usize) -> i64 {
    let events = timeline.parts()[part].events.clone();
    let mut starts: Vec<i64> = events
        .filter_map(|i| timeline.event(sightline::timeline::EventId(i)))
        .filter(|e| timeline.name(e.name) == name)
        .map(|e| e.start)
        .collect();
    starts.sort_unstable();
    starts[nth]
}

/// "Show B on this timeline": run B's file joins the timeline as a group of its own (`B · …`),
/// lined up on the first iteration of the NVTX range both runs have most, then on the third;
/// the comparison stays as it was.
#[test]
fn run_b_shown_beside_run_a_lines_up_on_an_nvtx_iteration() {
    let tmp = tempfile::tempdir().unwrap();
    let a = crate::compare::ranks(&tmp.path().join("a"), 1);
    let b_dir = tmp.path().join("b");
    crate::compare::changed_run(&a, &b_dir, &[1.3]);
    let b = b_dir.join(a[0].file_name().unwrap());
    // Run B's ranges 5 ms later than A's and drifting (0.1 % of their time): only lining them
    // up brings one iteration together, and each iteration needs its own move.
    let db = rusqlite::Connection::open(&b).unwrap();
    let moved = db
        .execute(
            "UPDATE NVTX_EVENTS SET start = start + 5000000 + start / 1000, \
             \"end\" = \"end\" + 5000000 + start / 1000",
            [],
        )
        .unwrap();
    assert!(moved > 0, "the generated run has NVTX ranges");
    drop(db);
    let (mut h, _) = compared(&a[0], &b);
    h.get_by_label("Show B on this timeline").click();
    h.step();
    common::app::step_until(
        &mut h,
        "run B on the timeline",
        Duration::from_secs(60),
        |h| {
            let beside = doc(h).stats().compare.beside.as_ref();
            beside.is_some_and(|b| b.ranges.is_some())
        },
    );
    h.run();
    let timeline = doc(&h).timeline().expect("loaded").clone();
    let labels: Vec<&str> = timeline.parts().iter().map(|p| p.label.as_str()).collect();
    assert_eq!(labels, ["A · rank1", "B · rank1"]);
    let beside = doc(&h).stats().compare.beside.as_ref().unwrap();
    let (name, count) = beside.ranges.as_ref().unwrap()[0].clone();
    assert!(count >= 3, "{name}: {count} instances");
    assert_eq!(
        nth_start(&timeline, 0, &name, 0),
        nth_start(&timeline, 1, &name, 0)
    );
    assert!(
        beside
            .message
            .as_deref()
            .unwrap_or_default()
            .contains("1 file(s) moved")
    );
    // The third iteration.
    h.state_mut()
        .document_mut::<TimelineDoc>(0)
        .unwrap()
        .stats_mut()
        .compare
        .beside
        .as_mut()
        .unwrap()
        .iteration = 2;
    h.run();
    h.get_by_label("Line up").click();
    h.run();
    let timeline = doc(&h).timeline().expect("loaded").clone();
    assert_eq!(
        nth_start(&timeline, 0, &name, 2),
        nth_start(&timeline, 1, &name, 2)
    );
    // Said in the Compare tab and in the Files panel.
    let said = format!("lined up on \"{name}\" (iteration 3): 1 file(s) moved");
    assert_eq!(h.query_all_by_label(&said).count(), 2, "{said}");
    // Run A is still the one compared, and the comparison is still shown.
    h.get_by_label("A: this run (1 file)");
    h.get_by_label("regressed");
}
