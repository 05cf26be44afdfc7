//! The Expert tab under the timeline: Apply all runs the expert rules on the export on a
//! background thread; each rule shows its state and its findings; a finding that names an event
//! selects it, one that names a range selects and zooms to it.

use std::path::Path;
use std::time::Duration;

use crate::common;
use egui_kittest::kittest::Queryable;
use sightline::app::timeline::TimelineDoc;
use sightline::app::timeline::expert::Target;
use sightline::timeline::EventKind;

fn doc<'a>(h: &'a egui_kittest::Harness<'static, sightline::app::SightlineApp>) -> &'a TimelineDoc {
    h.state()
        .document::<TimelineDoc>(0)
        .expect("the timeline tab")
}

#[test]
fn apply_all_lists_findings_and_a_click_goes_to_the_event_or_range() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/nsys/expert.sqlite");
    let mut h = common::app::harness_sized(vec![path], eframe::egui::vec2(1400.0, 900.0));
    common::app::step_until(&mut h, "the export to load", Duration::from_secs(60), |h| {
        doc(h).stats().reports.is_some()
    });
    h.get_by_label("Expert").click();
    h.run();
    h.get_by_label("Apply all").click();
    h.step();
    assert!(
        doc(&h).stats().expert.busy(),
        "the rules run in the background"
    );
    common::app::step_until(&mut h, "the rules to run", Duration::from_secs(60), |h| {
        !doc(h).stats().expert.busy() && !doc(h).stats().expert.results.is_empty()
    });
    let expert = &doc(&h).stats().expert;
    assert!(expert.errors.is_empty(), "{:?}", expert.errors);
    assert_eq!(expert.results.len(), expert.rules.len(), "every rule ran");
    // The rule list says what each found (as nsys analyze on this export: see the goldens).
    h.get_by_label("GPU Gaps — 3 finding(s)");
    h.get_by_label("CUDA Async Memcpy with Pageable Memory — 2 finding(s)");
    h.get_by_label("CUDA Synchronous Memset — 2 finding(s)");

    // A finding that names an event: the copy is selected.
    h.get_by_label("CUDA Async Memcpy with Pageable Memory — 2 finding(s)")
        .click();
    h.run();
    h.get_by_label("1030000000").click();
    h.run();
    let d = doc(&h);
    let tl = d.timeline().expect("loaded").clone();
    let selected = d
        .selection()
        .event
        .and_then(|e| tl.event(e))
        .expect("a selected event");
    assert_eq!(selected.kind, EventKind::Memcpy);
    assert_eq!(selected.start, 1_030_000_000);

    // A finding that names a range (a GPU gap): selected and zoomed to.
    h.get_by_label("GPU Gaps — 3 finding(s)").click();
    h.run();
    let gap = match h
        .state_mut()
        .document_mut::<TimelineDoc>(0)
        .expect("the timeline")
        .stats_mut()
        .expert
        .click(&tl, "gpu_gaps", 0)
    {
        Some(Target::Range(s, e)) => (s, e),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        gap,
        (1_629_100_000, 1_629_100_000 + 2_000_900_000),
        "the longest gap first"
    );
    let start = gap.0.to_string();
    h.get_by_label(&start).click();
    h.run();
    let d = doc(&h);
    assert_eq!(d.selection().range, Some(gap));
    let (v0, v1) = (d.canvas().viewport.start, d.canvas().viewport.end());
    assert!(v0 <= gap.0 as f64 && v1 >= gap.1 as f64 && v1 - v0 < 1.5 * (gap.1 - gap.0) as f64);

    // Apply one rule again: its state stays, the others too.
    let before = doc(&h).stats().expert.results.len();
    h.query_all_by_label("Apply")
        .next()
        .expect("an Apply button per rule")
        .click();
    h.step();
    common::app::step_until(&mut h, "one rule to run", Duration::from_secs(60), |h| {
        !doc(h).stats().expert.busy()
    });
    assert_eq!(doc(&h).stats().expert.results.len(), before);
}

/// Any report with its options runs on demand and becomes a tab equal to nsys's output; a trace
/// report's row goes to its event; a summary row outlines its instances.
#[test]
fn any_report_runs_on_demand_and_its_rows_lead_to_events() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut h = common::app::harness_sized(
        vec![root.join("fixtures/nsys/synth_2k.sqlite")],
        eframe::egui::vec2(1400.0, 900.0),
    );
    common::app::step_until(&mut h, "the export to load", Duration::from_secs(60), |h| {
        doc(h).stats().reports.is_some()
    });
    let run = |h: &mut egui_kittest::Harness<'static, sightline::app::SightlineApp>,
               report: &str,
               options: &str| {
        {
            let d = h
                .state_mut()
                .document_mut::<TimelineDoc>(0)
                .expect("the timeline");
            d.stats_mut().runner.report = report.to_string();
            d.stats_mut().runner.options = options.to_string();
        }
        h.run();
        h.get_by_label("Run").click();
        h.step();
        common::app::step_until(h, "the report", Duration::from_secs(60), |h| {
            !doc(h).stats().runner.busy()
        });
        h.run();
    };
    run(&mut h, "cuda_gpu_kern_sum", "base");
    let d = doc(&h);
    let table = d.stats().shown_table().expect("the report's table");
    assert_eq!(table.report, "cuda_gpu_kern_sum");
    let golden =
        std::fs::read_to_string(root.join("fixtures/nsys/golden/cuda_gpu_kern_sum@base.csv"))
            .expect("golden");
    assert_eq!(sightline::timeline::nsys::stats::to_csv(table), golden);
    h.get_by_label("cuda_gpu_kern_sum:base");

    // A trace: its first row is the first API call.
    run(&mut h, "cuda_api_trace", "");
    let first_start: i64 = doc(&h)
        .stats()
        .shown_table()
        .expect("table")
        .rows
        .cell(0, 0)
        .expect("a cell")
        .as_str()
        .parse()
        .expect("a start");
    h.get_by_label(&first_start.to_string()).click();
    h.run();
    let d = doc(&h);
    let tl = d.timeline().expect("loaded");
    let e = d
        .selection()
        .event
        .and_then(|e| tl.event(e))
        .expect("selected");
    assert_eq!((e.kind, e.start), (EventKind::CudaApi, first_start));

    // A bad option is said, naming the report.
    run(&mut h, "um_sum", "rows=x");
    let d = doc(&h);
    let shown = d
        .stats()
        .reports
        .as_ref()
        .and_then(|r| r.get(d.stats().shown));
    assert!(
        matches!(shown, Some((n, Err(e))) if n == "um_sum:rows=x" && e.to_string().contains("um_sum")),
        "{:?}",
        shown.map(|(n, r)| (n, r.as_ref().map(|_| ()).map_err(|e| e.to_string())))
    );
}

const USER_RULE: &str = r#"
import timeline
NAME = "longest_kernels"
TITLE = "Longest kernels"
DESCRIPTION = "The longest kernels."
OPTIONS = {"rows": 3}
def analyze(trace, options):
    k = trace.events("gpu").where("op", "==", "kernel").sort("-duration").head(options["rows"])
    return timeline.Result(["Duration (ns)", "Name"], k.rows("duration", "name"), events=k)
"#;

fn rows_of(
    h: &egui_kittest::Harness<'static, sightline::app::SightlineApp>,
    rule: &str,
) -> Option<usize> {
    match &doc(h).stats().expert.results.get(rule)?.outcome {
        sightline::rules::TimelineOutcome::Table { table, .. } => Some(table.rows.len()),
        _ => None,
    }
}

/// A rule in the user's folder runs beside Sightline's; saving it applies the rules again; a
/// broken one is reported by file name while the others still run.
#[test]
fn user_rules_run_beside_and_reload_on_save() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("longest.py");
    std::fs::write(&file, USER_RULE).expect("write");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut h = common::app::harness_sized(
        vec![root.join("fixtures/nsys/expert.sqlite")],
        eframe::egui::vec2(1400.0, 900.0),
    );
    common::app::step_until(&mut h, "the export to load", Duration::from_secs(60), |h| {
        doc(h).stats().reports.is_some()
    });
    h.state_mut()
        .document_mut::<TimelineDoc>(0)
        .expect("the timeline")
        .set_rules_folder(Some(dir.path().to_path_buf()));
    h.get_by_label("Expert").click();
    h.run();
    h.get_by_label("Apply all").click();
    h.step();
    common::app::step_until(&mut h, "the rules to run", Duration::from_secs(60), |h| {
        rows_of(h, "longest_kernels").is_some()
    });
    assert_eq!(rows_of(&h, "longest_kernels"), Some(3));
    assert!(
        rows_of(&h, "gpu_gaps").is_some(),
        "Sightline's rules ran too"
    );
    h.get_by_label("Longest kernels — 3 finding(s)");

    // Saved with 5 rows: applied again without a click.
    std::fs::write(&file, USER_RULE.replace("\"rows\": 3", "\"rows\": 5")).expect("write");
    common::app::step_until(&mut h, "the edited rule", Duration::from_secs(30), |h| {
        rows_of(h, "longest_kernels") == Some(5)
    });

    // Broken: reported by file name; the bundled rules still answer.
    std::fs::write(&file, "def analyze(trace, options:\n").expect("write");
    common::app::step_until(&mut h, "the broken rule", Duration::from_secs(30), |h| {
        doc(h)
            .stats()
            .expert
            .errors
            .iter()
            .any(|e| e.contains("longest.py"))
    });
    assert!(rows_of(&h, "gpu_gaps").is_some());
}
