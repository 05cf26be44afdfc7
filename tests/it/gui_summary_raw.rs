//! The Summary and Raw pages of the app, headless (egui_kittest): rows computed on the
//! background job, sorting by a header click, a row click opening the result's Details page,
//! the NVTX filter; the Raw page's regex filter, instance toggle and CSV (the CLI's).

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common;
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sightline::app::ncu::report_tab::{Page, ReportTab};
use sightline::app::{Settings, SightlineApp, StartOptions};
use sightline::ncu::{NameBase, Report};
use sightline::section::deploy_bundled_sections;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

/// The app on `files` with a temporary section folder (nothing goes to the user's home).
pub fn app_on(files: Vec<PathBuf>) -> (Harness<'static, SightlineApp>, tempfile::TempDir) {
    let folder = tempfile::tempdir().unwrap();
    deploy_bundled_sections(folder.path()).unwrap();
    let app = SightlineApp::new(
        Settings {
            section_folders: vec![folder.path().to_path_buf()],
            prefer_embedded: true,
            ..Settings::default()
        },
        StartOptions {
            files,
            ..Default::default()
        },
    );
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1500.0, 1000.0))
        .with_max_steps(60)
        .build_ui_state(|ui, app: &mut SightlineApp| app.frame_ui(ui), app);
    common::app::until_report_shown(&mut harness, "the reports to load");
    (harness, folder)
}

pub fn tab<'a>(h: &'a Harness<'static, SightlineApp>) -> &'a ReportTab {
    let app = h.state();
    app.document::<ReportTab>(app.active).unwrap()
}

/// Shows the Summary page and waits for every row.
fn summary_rows(h: &mut Harness<'static, SightlineApp>) {
    h.get_by_label("Summary").click();
    h.run();
    common::app::step_until(h, "the summary rows", Duration::from_secs(30), |h| {
        let t = tab(h);
        !t.summary().computing()
            && t.report()
                .as_ref()
                .is_some_and(|r| t.summary().rows.len() == r.num_actions())
    });
}

#[test]
fn gui_summary_lists_every_result_sorts_and_opens_details() {
    let sample = fixture("sample.ncu-rep");
    let report = Report::open(&sample).unwrap();
    let (mut h, _folder) = app_on(vec![sample]);
    summary_rows(&mut h);
    check_rows_equal_details(tab(&h), &report);
    check_duration_sort(&mut h);
    check_click_opens_details(&mut h, &report);
}

/// One row per result, in report order, with the Speed of Light and Occupancy columns; the
/// values are the full Details page's header values.
fn check_rows_equal_details(t: &ReportTab, report: &Report) {
    assert_eq!(
        t.summary()
            .rows
            .iter()
            .map(|r| r.launch.index)
            .collect::<Vec<_>>(),
        (0..report.num_actions()).collect::<Vec<_>>()
    );
    let labels: Vec<&str> = t
        .summary()
        .columns
        .columns
        .iter()
        .map(|c| c.label.as_str())
        .collect();
    assert!(labels.contains(&"Compute (SM) Throughput"), "{labels:?}");
    assert!(labels.contains(&"Achieved Occupancy"), "{labels:?}");
    for index in 0..report.num_actions() {
        let action = report.action(index).unwrap();
        // The values are the full Details page's header values.
        let page = common::details::page(&action);
        for (column, key) in t.summary().columns.columns.iter().enumerate() {
            let entry = page
                .sections
                .iter()
                .find(|s| s.identifier == key.section)
                .and_then(|s| s.header.iter().find(|e| e.label == key.label))
                .unwrap();
            let cell = t.summary().rows[index].value(column).unwrap();
            assert_eq!(cell.text, entry.text, "{index} {}", key.label);
            assert_eq!(
                Some(cell.value),
                entry.value.as_ref().and_then(|v| v.as_f64())
            );
        }
        let duration = action
            .metric("gpu__time_duration.sum")
            .map(|m| m.value().as_f64().unwrap());
        assert_eq!(t.summary().rows[index].launch.duration_ns, duration);
        assert_eq!(
            t.summary().rows[index].launch.name,
            action.name(NameBase::Function)
        );
    }
}

/// Duration: ascending, then descending (the header shows the arrow).
fn check_duration_sort(h: &mut Harness<'static, SightlineApp>) {
    // The kernel list has a Duration column too: the page's header is the last.
    h.get_all_by_label("Duration").last().unwrap().click();
    h.run();
    h.get_by_label("Duration ^");
    let durations = |h: &Harness<'static, SightlineApp>| -> Vec<f64> {
        let t = tab(h);
        t.summary()
            .table
            .order
            .iter()
            .map(|&i| t.summary().rows[i].launch.duration_ns.unwrap())
            .collect()
    };
    let ascending = durations(h);
    assert!(ascending.windows(2).all(|w| w[0] <= w[1]), "{ascending:?}");
    h.get_by_label("Duration ^").click();
    h.run();
    let descending = durations(h);
    assert!(
        descending.windows(2).all(|w| w[0] >= w[1]),
        "{descending:?}"
    );
    assert_ne!(ascending, descending);
}

/// A click on the longest kernel's row opens its Details page.
fn check_click_opens_details(h: &mut Harness<'static, SightlineApp>, report: &Report) {
    let longest = {
        let t = tab(h);
        t.summary().rows[t.summary().table.order[0]].launch.index
    };
    let name = report
        .action(longest)
        .unwrap()
        .name(NameBase::Function)
        .to_owned();
    let cells: Vec<_> = h.query_all_by_label(&name).collect();
    // The kernel list and the summary both show the name; the summary's cell is the last.
    cells.last().unwrap().click();
    h.run();
    let t = tab(h);
    assert_eq!(t.page(), Page::Details);
    assert_eq!(t.selected(), longest);
    common::app::step_until(
        h,
        "the page of the clicked result",
        Duration::from_secs(10),
        |h| tab(h).details().is_some_and(|d| d.index == longest),
    );
}

#[test]
fn gui_summary_filters_by_nvtx_range() {
    let Some(corpus) = common::corpus_ncu() else {
        return;
    };
    let (mut h, _folder) = app_on(vec![
        corpus.join("reports/ncu2022.3_rtx3070_manual_nvtx.ncu-rep"),
    ]);
    summary_rows(&mut h);
    let (total, needle, expected) = {
        let t = tab(&h);
        let ranges: Vec<&str> = t.summary().rows.iter().map(|r| r.nvtx.as_str()).collect();
        assert!(ranges.iter().all(|r| !r.is_empty()), "{ranges:?}");
        // The last part of the first result's innermost range.
        let needle = ranges[0]
            .rsplit(['/', ':'])
            .next()
            .unwrap()
            .trim()
            .to_owned();
        let expected = ranges
            .iter()
            .filter(|r| r.to_lowercase().contains(&needle.to_lowercase()))
            .count();
        (ranges.len(), needle, expected)
    };
    assert!(expected < total, "{needle}: the filter must leave rows out");
    type_into(&mut h, 1, &needle);
    assert_eq!(tab(&h).summary().table.order.len(), expected);
}

#[test]
fn gui_summary_row_menu_adds_a_baseline() {
    let (mut h, _folder) = app_on(vec![fixture("sample.ncu-rep")]);
    summary_rows(&mut h);
    let name = tab(&h).summary().rows[2].launch.name.clone();
    assert_eq!(
        tab(&h)
            .summary()
            .rows
            .iter()
            .filter(|r| r.launch.name == name)
            .count(),
        1
    );
    h.get_all_by_label(&name).last().unwrap().click_secondary();
    h.run();
    h.get_all_by_label("Add as baseline")
        .last()
        .unwrap()
        .click();
    h.run();
    let baselines = &common::app::ncu_state(&h).baselines.list;
    assert_eq!(baselines.len(), 1);
    assert_eq!(baselines[0].kernel, tab(&h).summary().rows[2].launch.index);
}

#[test]
fn gui_summary_filters_by_kernel_name() {
    let sample = fixture("sample.ncu-rep");
    let report = Report::open(&sample).unwrap();
    let (mut h, _folder) = app_on(vec![sample]);
    summary_rows(&mut h);
    let first = report
        .action(0)
        .unwrap()
        .name(NameBase::Function)
        .to_owned();
    let expected = (0..report.num_actions())
        .filter(|&i| {
            report
                .action(i)
                .unwrap()
                .name(NameBase::Function)
                .to_lowercase()
                .contains(&first.to_lowercase())
        })
        .count();
    assert!(
        expected < report.num_actions(),
        "the filter must leave rows out"
    );
    h.get_by_label("Summary").click();
    h.run();
    // The page's text boxes: the kernel filter, then the NVTX filter.
    type_into(&mut h, 0, &first);
    assert_eq!(tab(&h).summary().table.order.len(), expected);
    h.get_by_label(&format!("{expected} of {} result(s)", report.num_actions()));
}

/// Types `text` into the `nth` text box of the page (right of the kernel list).
fn type_into(h: &mut Harness<'static, SightlineApp>, nth: usize, text: &str) {
    let page_box = |h: &Harness<'static, SightlineApp>| {
        h.query_all_by_role(egui::accesskit::Role::TextInput)
            .filter(|n| n.rect().left() > 400.0)
            .nth(nth)
            .map(|n| n.rect())
            .unwrap()
    };
    let rect = page_box(h);
    let node = h
        .query_all_by_role(egui::accesskit::Role::TextInput)
        .find(|n| n.rect() == rect)
        .unwrap();
    node.focus();
    h.run();
    let node = h
        .query_all_by_role(egui::accesskit::Role::TextInput)
        .find(|n| n.rect() == rect)
        .unwrap();
    node.type_text(text);
    h.run();
}

#[test]
fn gui_raw_filter_instances_and_csv() {
    let sample = fixture("sample.ncu-rep");
    let report = Report::open(&sample).unwrap();
    let (mut h, _folder) = app_on(vec![sample.clone()]);
    h.get_by_label("Raw").click();
    h.run();
    let action = report.action(0).unwrap();
    let metrics = tab(&h).raw().rows.len();
    assert!(metrics > action.metrics().len() / 2, "{metrics} rows");
    // A regular expression: names ending in `.sum` that start with `dram__` or `gpu__`.
    type_into(&mut h, 0, "^(dram|gpu)__.*\\.sum$");
    let shown: Vec<String> = tab(&h)
        .raw()
        .shown_names()
        .into_iter()
        .map(str::to_owned)
        .collect();
    let expected: Vec<String> = tab(&h)
        .raw()
        .rows
        .iter()
        .map(|r| r.name.clone())
        .filter(|n| (n.starts_with("dram__") || n.starts_with("gpu__")) && n.ends_with(".sum"))
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(shown, expected);
    h.get_by_label("gpu__time_duration.sum");

    // Instance values behind the toggle: sm__cycles_elapsed.max has one per SM.
    type_into(&mut h, 0, "|^sm__cycles_elapsed.max$");
    let row = tab(&h)
        .raw()
        .rows
        .iter()
        .find(|r| r.name == "sm__cycles_elapsed.max")
        .unwrap()
        .clone();
    assert!(
        row.with_instances.starts_with(&format!("{} (", row.value)),
        "{row:?}"
    );
    assert!(h.query_by_label(&row.with_instances).is_none());
    h.get_by_label(&row.value);
    h.get_by_label("Instance values").click();
    h.run();
    h.get_by_label(&row.with_instances);
    h.get_by_label("Instance values").click();
    h.run();

    // An invalid expression is said to be one and matched as text.
    type_into(&mut h, 0, "(");
    h.get_by_label_contains("not a regular expression");
    assert!(tab(&h).raw().shown_names().is_empty());

    // The page's CSV is `sightline raw --csv --kernel 0`.
    let mut cli = Vec::new();
    let args = sightline::cli::raw::RawArgs {
        report: sample,
        csv: true,
        print_units: sightline::cli::common::PrintUnits::Auto,
        print_metric_instances: sightline::cli::common::PrintInstances::None,
        kernel: Some(0),
        print_summary: None,
    };
    sightline::cli::raw::run(&args, &mut cli).unwrap();
    assert_eq!(tab(&h).raw().csv(), String::from_utf8(cli).unwrap());
}
