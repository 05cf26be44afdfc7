//! Summary page benchmark: `cargo bench --bench summary [-- REPORT]`.
//!
//! On the 2,000-kernel benchmark report (`make_bench_report`, as `bench/reader.sh` makes it;
//! written to `target/bench-data/bench-2000.ncu-rep` when absent): the app opened on the report
//! with the Summary page shown at once, the time until the page shows its first rows and until
//! every row is listed (egui_kittest, no GPU); the model alone (all 2,000 rows); and a sort of
//! the 2,000 rows by each column (header click to a new display order). Targets: the page on
//! screen ≤ 1 s after opening, a sort ≤ 50 ms.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Test code: a failed unwrap is a failed test.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use eframe::egui;
use egui_kittest::Harness;
use sightline::app::ncu::report_tab::{Page, ReportTab};
use sightline::app::{Settings, SightlineApp, StartOptions};
use sightline::ncu::Report;
use sightline::section::{OverviewBuilder, SectionSet, deploy_bundled_sections};

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn bench_report(root: &Path) -> PathBuf {
    if let Some(path) = std::env::args().nth(1).filter(|a| !a.starts_with('-')) {
        return PathBuf::from(path);
    }
    let path = root.join("target/bench-data/bench-2000.ncu-rep");
    if !path.is_file() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let status = std::process::Command::new(env!("CARGO"))
            .args([
                "run",
                "--release",
                "-q",
                "-p",
                "sightline-test-support",
                "--bin",
                "make_bench_report",
                "--",
            ])
            .arg(&path)
            .arg("2000")
            .status()
            .unwrap();
        assert!(status.success(), "make_bench_report failed");
    }
    path
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let report_path = bench_report(root);
    let sections = tempfile::tempdir().unwrap();
    deploy_bundled_sections(sections.path()).unwrap();
    let rows = measure_model(&report_path);
    let mut harness = measure_summary_page(&report_path, sections.path(), rows);
    measure_sorting(&mut harness);
}

/// The model alone: decoding every result, then every row of the report. Returns the number
/// of rows.
fn measure_model(report_path: &Path) -> usize {
    // The model alone: decoding every result, then every row of the report.
    let report = Report::open(report_path).unwrap();
    let start = Instant::now();
    for i in 0..report.num_actions() {
        std::hint::black_box(report.action(i).unwrap());
    }
    println!(
        "model: decoding {} results {}",
        report.num_actions(),
        ms(start.elapsed())
    );
    let start = Instant::now();
    let mut builder = OverviewBuilder::new(&SectionSet::bundled(), true);
    let mut rows = Vec::new();
    for i in 0..report.num_actions() {
        rows.push(builder.row(&report.action(i).unwrap()));
    }
    println!(
        "model: {} rows ({} value columns) in {}",
        rows.len(),
        builder.columns.columns.len(),
        ms(start.elapsed())
    );
    rows.len()
}

/// The app: opens the report and shows the Summary page from the first frame; prints when
/// its first rows and all `rows` rows were on screen.
fn measure_summary_page(
    report_path: &Path,
    sections: &Path,
    rows: usize,
) -> Harness<'static, SightlineApp> {
    // The app: open the report, show the Summary page on the first frame.
    let settings = Settings {
        section_folders: vec![sections.to_path_buf()],
        prefer_embedded: true,
        ..Settings::default()
    };
    let opened = Instant::now();
    let app = SightlineApp::new(
        settings,
        StartOptions {
            files: vec![report_path.to_path_buf()],
            ..Default::default()
        },
    );
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        .build_ui_state(|ui, app: &mut SightlineApp| app.frame_ui(ui), app);
    let mut first_rows = None;
    loop {
        if let Some(tab) = harness.state_mut().document_mut::<ReportTab>(0) {
            tab.set_page(Page::Summary);
        }
        harness.step();
        let tab = harness.state().document::<ReportTab>(0).unwrap();
        if first_rows.is_none() && !tab.summary().rows.is_empty() {
            first_rows = Some((opened.elapsed(), tab.summary().rows.len()));
        }
        if tab
            .report()
            .as_ref()
            .is_some_and(|r| tab.summary().rows.len() == r.num_actions())
        {
            break;
        }
        assert!(
            opened.elapsed() < Duration::from_secs(600),
            "the summary did not finish"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    let all = opened.elapsed();
    let (first, shown) = first_rows.unwrap();
    println!(
        "app: Summary page with its first {shown} rows {} after opening",
        ms(first)
    );
    println!("app: all {rows} rows {} after opening", ms(all));
    harness
}

/// Sorting: a header click, then the new display order, per column; prints the median of 5
/// of the slowest column.
fn measure_sorting(harness: &mut Harness<'static, SightlineApp>) {
    let tab = harness.state_mut().document_mut::<ReportTab>(0).unwrap();
    let columns = 5 + tab.summary().columns.columns.len() + 1;
    let mut worst = Duration::ZERO;
    for column in 0..columns {
        let mut times = Vec::new();
        for _ in 0..5 {
            tab.summary_mut().table.sort = None;
            tab.summary_mut().table.invalidate();
            tab.summary_mut().refresh();
            let start = Instant::now();
            tab.summary_mut().table.click_header(column);
            tab.summary_mut().table.click_header(column);
            tab.summary_mut().refresh();
            times.push(start.elapsed());
        }
        times.sort();
        worst = worst.max(times[2]);
    }
    println!(
        "sort: 2,000 rows descending by any of {columns} columns, median of the slowest column {}",
        ms(worst)
    );
}
