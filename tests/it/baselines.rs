//! Baselines: the model's matching and comparison, `sightline details|summary --baseline`
//! across two corpus reports of different versions and GPUs (expected differences computed by
//! hand from `sightline dump`), a baseline that lacks metrics, and the app's baselines (add
//! from two reports, reorder, hide, remove, clear; the Details page's values; persisted with
//! the session and restored in the background; a missing file's message; baselines files).

use std::path::{Path, PathBuf};

use egui_kittest::kittest::Queryable;
use serde_json::Value;
use sightline::app::ncu::report_tab::ReportTab;
use sightline::ncu::{LaunchRow, Report};
use sightline::section::{Difference, match_by_name};

use crate::common;
use crate::gui_summary_raw::{app_on, tab};

/// `vec_add` (2024.1.1, GTX 1660 SUPER) and its baselines: `matrix_addition2D` (2024.2.1,
/// Tesla T4) and `VecAdd_kernel` (2022.3, RTX 3070, fewer sections).
fn corpus() -> Option<(PathBuf, PathBuf, PathBuf)> {
    let dir = common::corpus_ncu()?.join("reports");
    Some((
        dir.join("ncu2024.1.1_gtx1660s_vec_add_full.ncu-rep"),
        dir.join("ncu2024.2.1_t4_mlp_full.ncu-rep"),
        dir.join("ncu2022.3_rtx3070_CuVectorAddDrv.ncu-rep"),
    ))
}

/// One command's arguments, parsed as the binary parses them.
#[derive(clap::Parser)]
struct One<A: clap::Args> {
    #[command(flatten)]
    args: A,
}

fn parse<A: clap::Args + clap::FromArgMatches>(args: &[&str]) -> A {
    let argv = std::iter::once("sightline").chain(args.iter().copied());
    <One<A> as clap::Parser>::try_parse_from(argv).unwrap().args
}

fn details(args: &[&str]) -> String {
    let mut out = Vec::new();
    let args: sightline::cli::details::DetailsArgs = parse(args);
    sightline::cli::details::run(&args, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

fn summary(args: &[&str]) -> String {
    let mut out = Vec::new();
    let args: sightline::cli::summary::SummaryArgs = parse(args);
    sightline::cli::summary::run(&args, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// The JSON entry of `metric` in section `section` of the first kernel.
fn entry<'a>(json: &'a Value, section: &str, metric: &str) -> &'a Value {
    json["kernels"][0]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["section"] == section && e["metric"] == metric)
        .unwrap_or_else(|| panic!("{section} {metric}"))
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{a} != {b}");
}

// Values from `sightline dump` of each report (kernel 0), differences worked out by hand:
//   gpu__time_duration.sum        41696 ns vs 52576 ns: -10880 ns, -10880 / 52576 = -20.6939 %
//   sm__throughput...elapsed      19.499480795379824 vs 27.79842080817464:
//                                 -8.298940012794816, -29.853998 %
//   sm__warps_active...active     89.17667961015593 vs 79.36736665076577:
//                                 +9.809312959390155, +12.359378 %
const EXPECTED: [(&str, &str, f64, f64, f64); 3] = [
    (
        "SpeedOfLight",
        "gpu__time_duration.sum",
        52576.0,
        -10880.0,
        -20.693852708460135,
    ),
    (
        "SpeedOfLight",
        "sm__throughput.avg.pct_of_peak_sustained_elapsed",
        27.79842080817464,
        -8.298940012794816,
        -29.853998074431477,
    ),
    (
        "Occupancy",
        "sm__warps_active.avg.pct_of_peak_sustained_active",
        79.36736665076577,
        9.809312959390155,
        12.35937813402999,
    ),
];

#[test]
fn baselines_details_across_versions_and_gpus() {
    let Some((vec_add, mlp, _)) = corpus() else {
        return;
    };
    let baseline = format!("{}:0", mlp.display());
    let json: Value = serde_json::from_str(&details(&[
        vec_add.to_str().unwrap(),
        "--baseline",
        &baseline,
        "--json",
    ]))
    .unwrap();
    assert_eq!(json["kernels"][0]["baselines"][0]["index"], 0);
    for (section, metric, base, difference, relative) in EXPECTED {
        let e = entry(&json, section, metric);
        let b = &e["baselines"][0];
        close(b["value"].as_f64().unwrap(), base);
        close(b["difference"].as_f64().unwrap(), difference);
        close(b["relative_percent"].as_f64().unwrap(), relative);
    }
    // The text view prints the baseline's value and the relative difference.
    let text = details(&[vec_add.to_str().unwrap(), "--baseline", &baseline]);
    assert!(text.contains("(-20.69%)"), "{text}");
    assert!(text.contains("(-29.85%)"));
    assert!(text.contains("(+12.36%)"));
    // Sightline's CSV: one row per entry and baseline.
    let csv = details(&[
        vec_add.to_str().unwrap(),
        "--baseline",
        &baseline,
        "--format",
        "sightline-csv",
    ]);
    let duration = csv
        .lines()
        .find(|l| l.contains(",SpeedOfLight,header,") && l.contains(",gpu__time_duration.sum,"))
        .unwrap();
    assert!(duration.ends_with(",-10880,-20.6939"), "{duration}");
    // By name and launch order, vec_add has no match in the MLP report: every value N/A.
    let unmatched = details(&[
        vec_add.to_str().unwrap(),
        "--baseline",
        mlp.to_str().unwrap(),
    ]);
    assert!(unmatched.contains("no result named vec_add"), "{unmatched}");
}

#[test]
fn baselines_missing_metrics_are_not_available_never_another_value() {
    let Some((vec_add, _, drv)) = corpus() else {
        return;
    };
    let other = Report::open(&drv).unwrap();
    let action = other.action(0).unwrap();
    assert!(
        action.num_sections() > 0,
        "resolved with its own embedded sections"
    );
    let json: Value = serde_json::from_str(&details(&[
        vec_add.to_str().unwrap(),
        "--baseline",
        &format!("{}:0", drv.display()),
        "--json",
    ]))
    .unwrap();
    let entries = json["kernels"][0]["entries"].as_array().unwrap();
    let mut missing = 0;
    let mut checked = 0;
    for e in entries {
        let b = &e["baselines"][0];
        let metric = e["metric"].as_str().unwrap();
        if b["text"] == "N/A" {
            missing += 1;
            assert!(b["value"].is_null() && b["difference"].is_null());
        } else if let (Some(value), Some(stored)) = (
            b["value"].as_f64(),
            action.metric(metric).and_then(|m| m.value().as_f64()),
        ) {
            // A value shown is the baseline's own value of that very metric.
            close(value, stored);
            checked += 1;
        }
    }
    assert!(
        missing > 0,
        "the 2022.3 report lacks metrics of the 2024.1 full set"
    );
    assert!(checked > 20, "{checked} values checked");
    // The Memory Workload Analysis tables are not in the basic-set report.
    let e = entries
        .iter()
        .find(|e| {
            e["baselines"][0]["text"] == "N/A"
                && action.metric(e["metric"].as_str().unwrap()).is_none()
        })
        .unwrap();
    assert!(e["baselines"][0]["relative_percent"].is_null());
}

#[test]
fn baselines_summary_csv_json_and_text() {
    let Some((vec_add, mlp, _)) = corpus() else {
        return;
    };
    let baseline = format!("{}:0", mlp.display());
    let csv = summary(&[vec_add.to_str().unwrap(), "--baseline", &baseline, "--csv"]);
    let line = csv
        .lines()
        .find(|l| l.contains(",gpu__time_duration.sum,"))
        .unwrap();
    assert!(line.ends_with(",0,52576,-10880,-20.6939"), "{line}");
    let json: Value = serde_json::from_str(&summary(&[
        vec_add.to_str().unwrap(),
        "--baseline",
        &baseline,
        "--json",
    ]))
    .unwrap();
    let values = json["values"].as_array().unwrap();
    for (_, metric, base, difference, relative) in EXPECTED {
        let v = values.iter().find(|v| v["metric"] == metric).unwrap();
        close(v["baselines"][0]["value"].as_f64().unwrap(), base);
        close(
            v["baselines"][0]["difference"].as_f64().unwrap(),
            difference,
        );
        close(
            v["baselines"][0]["relative_percent"].as_f64().unwrap(),
            relative,
        );
    }
    let text = summary(&[vec_add.to_str().unwrap(), "--baseline", &baseline]);
    assert!(text.contains("-20.69%"), "{text}");
}

#[test]
fn baselines_summary_matches_by_name_and_launch_order() {
    // The sample against itself: every result finds itself, every difference is zero.
    let sample = common::fixtures().join("sample.ncu-rep");
    let path = sample.to_str().unwrap();
    let csv = summary(&[path, "--baseline", path, "--csv"]);
    let mut lines = 0;
    for line in csv.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        let n = cells.len();
        assert_eq!(cells[0], cells[n - 4], "{line}: matched itself");
        if !cells[n - 2].is_empty() {
            assert_eq!(cells[n - 2], "0", "{line}");
        }
        lines += 1;
    }
    assert!(lines > 8, "{csv}");
}

/// A fixture of the repo.
pub(crate) fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

/// The names of the app's baselines, in order.
pub fn baseline_names(
    h: &egui_kittest::Harness<'static, sightline::app::SightlineApp>,
) -> Vec<String> {
    common::app::ncu_state(h)
        .baselines
        .list
        .iter()
        .map(|b| b.name.clone())
        .collect()
}

/// The app on `multi_block` and `sample` with two baselines added from the Details page: the
/// sample's kernel 0 (the active tab), then the first kernel of `multi_block` (from its tab).
pub(crate) fn app_with_two_baselines() -> (
    egui_kittest::Harness<'static, sightline::app::SightlineApp>,
    tempfile::TempDir,
) {
    let (mut h, _folder) = app_on(vec![
        fixture("multi_block.ncu-rep"),
        fixture("sample.ncu-rep"),
    ]);
    // The sample is the active tab: add its kernel 0 from the Details page.
    h.get_by_label("Add as baseline").click();
    h.run();
    // Then the first kernel of the other report, from that report's tab.
    h.state_mut().active = 0;
    h.run();
    common::app::step_until(
        &mut h,
        "the first tab's page",
        std::time::Duration::from_secs(20),
        |h| {
            h.state()
                .document::<ReportTab>(0)
                .is_some_and(|t| t.details().is_some())
        },
    );
    h.get_by_label("Add as baseline").click();
    h.run();
    (h, _folder)
}

#[test]
fn gui_baselines_add_reorder_hide_remove_clear() {
    let (mut h, _folder) = app_with_two_baselines();
    let names = baseline_names;
    let added = names(&h);
    assert_eq!(added.len(), 2, "{added:?}");
    assert!(added[0].contains("(sample.ncu-rep)"), "{added:?}");
    assert!(added[1].contains("(multi_block.ncu-rep)"), "{added:?}");
    // Each has its own colour; the Details page compares with both.
    let state = common::app::ncu_state(&h);
    assert_ne!(state.baselines.list[0].color, state.baselines.list[1].color);
    assert!(
        h.query_all_by_label_contains(&format!("Δ vs {}", added[0]))
            .count()
            > 0
    );

    check_summary_deltas(&mut h);
    reorder_hide_remove_clear(&mut h, &added);
}

/// The app's harness.
pub(crate) type AppHarness = egui_kittest::Harness<'static, sightline::app::SightlineApp>;

/// The Summary page gives each result's duration difference to each baseline.
fn check_summary_deltas(h: &mut AppHarness) {
    h.get_by_label("Summary").click();
    h.run();
    common::app::step_until(
        h,
        "the summary rows",
        std::time::Duration::from_secs(20),
        |h| {
            let t = tab(h);
            !t.summary().computing() && !t.summary().rows.is_empty()
        },
    );
    // One column per baseline: each row against the baseline's result of the same kernel name
    // and launch order (here, its own report's added result for the second baseline), "N/A"
    // where none matches.
    h.get_by_label("Δ Duration 1");
    h.get_by_label("Δ Duration 2");
    let launches = |path: &Path| -> Vec<LaunchRow> {
        let report = Report::open(path).expect("open");
        (0..report.num_actions())
            .map(|i| LaunchRow::of(&report.action(i).expect("result")))
            .collect()
    };
    let shown = launches(&fixture("multi_block.ncu-rep"));
    let sample = launches(&fixture("sample.ncu-rep"));
    let names_of = |rows: &[LaunchRow]| rows.iter().map(|r| r.name.clone()).collect::<Vec<_>>();
    let text = |value: Option<f64>, base: Option<f64>| match value.zip(base) {
        Some((v, b)) => Difference::of(v, b).relative_text(),
        None => "N/A".to_owned(),
    };
    let t = tab(h);
    assert_eq!(t.summary().deltas.len(), 2);
    for (i, row) in shown.iter().enumerate() {
        let first = match_by_name(&names_of(&shown), i, &names_of(&sample));
        let expected = first.map(|m| text(row.duration_ns, sample[m].duration_ns));
        let got = t.summary().deltas.get(0, i);
        assert_eq!(got.map(|(m, _)| m), first, "row {i}: the matched result");
        assert_eq!(
            got.map(|(_, d)| d.map_or_else(|| "N/A".to_owned(), |d| d.relative_text())),
            expected,
            "row {i} vs the sample"
        );
        let second = t
            .summary()
            .deltas
            .get(1, i)
            .expect("its own report: the added result");
        assert_eq!(second.0, 0);
        let expected = text(row.duration_ns, shown[0].duration_ns);
        assert_eq!(second.1.map(|d| d.relative_text()), Some(expected.clone()));
        assert!(
            h.query_all_by_label(&expected).count() > 0,
            "{expected} shown"
        );
    }
}

/// Back on Details: move the second baseline left, hide it, remove one, clear them.
fn reorder_hide_remove_clear(h: &mut AppHarness, added: &[String]) {
    let names = baseline_names;
    h.get_by_label("Details").click();
    h.run();

    // Move the second one left: it becomes the one compared with.
    h.get_all_by_label("Left").last().unwrap().click();
    h.run();
    assert_eq!(names(h), vec![added[1].clone(), added[0].clone()]);
    assert!(
        h.query_all_by_label_contains(&format!("Δ vs {}", added[1]))
            .count()
            > 0
    );

    // Hide it: the other one is compared with.
    h.state_mut()
        .kind_state_mut::<sightline::app::ncu::state::NcuState>()
        .unwrap()
        .baselines
        .list[0]
        .visible = false;
    h.run();
    assert!(
        h.query_all_by_label_contains(&format!("Δ vs {}", added[0]))
            .count()
            > 0
    );
    assert!(
        h.query_by_label_contains(&format!("Δ vs {}", added[1]))
            .is_none()
    );

    // Remove one, then clear.
    h.get_all_by_label("Remove").next().unwrap().click();
    h.run();
    assert_eq!(names(h), vec![added[0].clone()]);
    h.get_by_label("Clear baselines").click();
    h.run();
    assert!(names(h).is_empty());
    assert!(h.query_by_label_contains("Δ vs").is_none());
    let _ = tab(h);
}

#[test]
fn gui_baselines_from_the_kernel_list_menu() {
    let (mut h, _folder) = app_on(vec![fixture("sample.ncu-rep")]);
    let report = Report::open(fixture("sample.ncu-rep")).unwrap();
    let name = report
        .action(1)
        .unwrap()
        .name(sightline::ncu::NameBase::Function)
        .to_owned();
    // The kernel list is drawn first: its row is the first label of that name.
    h.get_all_by_label(&name).next().unwrap().click_secondary();
    h.run();
    // The menu's item, beside the list (the Details page has a button of that name too).
    h.get_all_by_label("Add as baseline")
        .find(|n| n.rect().left() < 400.0)
        .unwrap()
        .click();
    h.run();
    let baselines = &common::app::ncu_state(&h).baselines.list;
    assert_eq!(baselines.len(), 1);
    assert_eq!(baselines[0].kernel, 1);
    assert!(baselines[0].name.starts_with(&format!("{name} [1]")));
}
