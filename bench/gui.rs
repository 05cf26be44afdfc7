//! GUI frame benchmark: `cargo bench --bench gui`.
//!
//! Drives the whole app headlessly with egui_kittest (layout, widgets and the accessibility
//! tree; no GPU rendering) on the 100-kernel corpus report and measures the frame that shows a
//! newly selected kernel: decoding the kernel, resolving its Details page and laying the page
//! out (target ≤ 16 ms). Also reports the steady frame (nothing changed) for comparison, and the
//! first frame of the app on the bundled sample.
//!
//! Then baselines (issue 24): `vec_add` (2024.1.1, full set) shown with two baselines from
//! another report of another version (`smemTranspose`, 2023.1.0: results 0 and 2, picked by
//! hand), both already decoded and resolved; the frame that shows them (the page's derived data
//! rebuilt with every body table, bar chart and memory widget compared, and laid out; target
//! ≤ 16 ms), measured by hiding and showing both, and the steady frame with them.
//!
//! Needs `../shared/corpus/ncu` beside the repository; without it, measures the bundled sample.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Test code: a failed unwrap is a failed test.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sightline::app::ncu::baselines::Pick;
use sightline::app::ncu::report_tab::ReportTab;
use sightline::app::ncu::state::NcuState;
use sightline::app::{Settings, SightlineApp, StartOptions};
use sightline::section::deploy_bundled_sections;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[index]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

/// `median …, p95 …, max …` of sorted durations.
fn spread(sorted: &[Duration]) -> String {
    format!(
        "median {}, p95 {}, max {}",
        ms(percentile(sorted, 0.5)),
        ms(percentile(sorted, 0.95)),
        ms(*sorted.last().unwrap())
    )
}

fn app(report: &Path, sections: &Path) -> Harness<'static, SightlineApp> {
    app_on(vec![report.to_path_buf()], sections)
}

fn app_on(files: Vec<PathBuf>, sections: &Path) -> Harness<'static, SightlineApp> {
    let settings = Settings {
        section_folders: vec![sections.to_path_buf()],
        prefer_embedded: true,
        ..Settings::default()
    };
    let app = SightlineApp::new(
        settings,
        StartOptions {
            files,
            ..Default::default()
        },
    );
    Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        .build_ui_state(|ui, app: &mut SightlineApp| app.frame_ui(ui), app)
}

fn wait_loaded(harness: &mut Harness<'static, SightlineApp>) {
    wait_page(harness, 0);
}

/// Steps until every tab loaded and tab `at` shows a Details page.
fn wait_page(harness: &mut Harness<'static, SightlineApp>, at: usize) {
    let start = Instant::now();
    loop {
        harness.step();
        let app = harness.state();
        if app.tabs.iter().all(|t| !t.loading())
            && app.document::<ReportTab>(at).unwrap().details().is_some()
        {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "report did not load"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    harness.step();
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus =
        root.join("../shared/corpus/ncu/reports/ncu2023.2.0_rtx3080_fuzigrad_100kernels.ncu-rep");
    let report: PathBuf = if corpus.is_file() {
        corpus
    } else {
        eprintln!("../shared/corpus is absent: measuring the bundled sample instead");
        root.join("fixtures/sample.ncu-rep")
    };
    let sections = tempfile::tempdir().expect("temp dir");
    deploy_bundled_sections(sections.path()).expect("deploy sections");

    // First frame of the app (sample, nothing loaded yet: the frame that opens the window).
    let sample = root.join("fixtures/sample.ncu-rep");
    let start = Instant::now();
    let mut first = app(&sample, sections.path());
    first.step();
    let first_frame = start.elapsed();
    wait_loaded(&mut first);
    let first_page = start.elapsed();

    let mut harness = app(&report, sections.path());
    wait_loaded(&mut harness);
    let kernels = harness
        .state()
        .document::<ReportTab>(0)
        .unwrap()
        .report()
        .as_ref()
        .map_or(0, |r| r.num_actions());
    let mut switches = Vec::new();
    let mut steady = Vec::new();
    for round in 0..3 {
        for index in (0..kernels).map(|i| (i + 1) % kernels) {
            harness
                .state_mut()
                .document_mut::<ReportTab>(0)
                .unwrap()
                .select(index);
            let start = Instant::now();
            harness.step();
            let switch = start.elapsed();
            assert_eq!(
                harness
                    .state()
                    .document::<ReportTab>(0)
                    .unwrap()
                    .details()
                    .map(|d| d.index),
                Some(index)
            );
            let start = Instant::now();
            harness.step();
            let frame = start.elapsed();
            if round > 0 {
                switches.push(switch);
                steady.push(frame);
            }
        }
    }
    switches.sort();
    steady.sort();
    println!("report: {}", report.display());
    println!(
        "app start → first frame (sample, headless): {}; first Details page: {}",
        ms(first_frame),
        ms(first_page)
    );
    println!(
        "kernel switch frame ({} switches over {kernels} kernels): {} (target ≤ 16 ms)",
        switches.len(),
        spread(&switches)
    );
    println!("steady frame: {}", spread(&steady));
    baselines(&root.join("../shared/corpus/ncu/reports"), sections.path());
}

/// The frame that shows two baselines from another report on the Details page.
fn baselines(reports: &Path, sections: &Path) {
    let other = reports.join("ncu2023.1.0_rtx4090_smemTranspose.ncu-rep");
    let shown = reports.join("ncu2024.1.1_gtx1660s_vec_add_full.ncu-rep");
    if !other.is_file() || !shown.is_file() {
        return;
    }
    let mut h = app_on(vec![other, shown.clone()], sections);
    // Add results 0 and 2 of the other report from its tab (decoded and resolved there).
    h.state_mut().active = 0;
    wait_page(&mut h, 0);
    h.get_by_label("Add as baseline").click();
    h.run();
    h.state_mut()
        .document_mut::<ReportTab>(0)
        .unwrap()
        .select(2);
    wait_page(&mut h, 0);
    h.get_by_label("Add as baseline").click();
    h.run();
    let state = h.state_mut().kind_state_mut::<NcuState>().unwrap();
    for baseline in &mut state.baselines.list {
        baseline.pick = Pick::Result(baseline.kernel);
    }
    h.state_mut().active = 1;
    wait_page(&mut h, 1);
    let set_visible = |h: &mut Harness<'static, SightlineApp>, visible: bool| {
        let state = h.state_mut().kind_state_mut::<NcuState>().unwrap();
        for baseline in &mut state.baselines.list {
            baseline.visible = visible;
        }
    };
    let mut shows = Vec::new();
    let mut steady = Vec::new();
    let mut plain = Vec::new();
    for round in 0..31 {
        set_visible(&mut h, false);
        h.step();
        let start = Instant::now();
        h.step();
        let without = start.elapsed();
        set_visible(&mut h, true);
        let start = Instant::now();
        h.step();
        let show = start.elapsed();
        let start = Instant::now();
        h.step();
        let frame = start.elapsed();
        if round > 0 {
            shows.push(show);
            steady.push(frame);
            plain.push(without);
        }
    }
    let compared = &h
        .state()
        .document::<ReportTab>(1)
        .unwrap()
        .panel()
        .baselines;
    assert_eq!(compared.len(), 2);
    assert!(compared.iter().all(|b| b.result.is_some()));
    for list in [&mut shows, &mut steady, &mut plain] {
        list.sort();
    }
    println!(
        "baselines: {} shown with 2 baselines from {} (results 0 and 2)",
        shown.file_name().unwrap().to_string_lossy(),
        reports
            .join("ncu2023.1.0_rtx4090_smemTranspose.ncu-rep")
            .file_name()
            .unwrap()
            .to_string_lossy()
    );
    println!(
        "frame that shows both baselines ({} runs): {} (target ≤ 16 ms)",
        shows.len(),
        spread(&shows)
    );
    println!(
        "steady frame with both: {}; without: {}",
        spread(&steady),
        spread(&plain)
    );
}
