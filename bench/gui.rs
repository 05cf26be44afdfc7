//! GUI frame benchmark: `cargo bench --bench gui`.
//!
//! Drives the whole app headlessly with egui_kittest (layout, widgets and the accessibility
//! tree; no GPU rendering) on the 100-kernel corpus report and measures the frame that shows a
//! newly selected kernel: decoding the kernel, resolving its Details page and laying the page
//! out (target ≤ 16 ms). Also reports the steady frame (nothing changed) for comparison, and the
//! first frame of the app on the bundled sample.
//!
//! Needs `../shared/corpus/ncu` beside the repository; without it, measures the bundled sample.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Test code: a failed unwrap is a failed test.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use eframe::egui;
use egui_kittest::Harness;
use sightline::app::ncu::report_tab::ReportTab;
use sightline::app::{Settings, SightlineApp, StartOptions};
use sightline::section::registry::deploy_bundled_sections;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[index]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

fn app(report: &Path, sections: &Path) -> Harness<'static, SightlineApp> {
    let settings = Settings {
        section_folders: vec![sections.to_path_buf()],
        prefer_embedded: true,
        ..Settings::default()
    };
    let app = SightlineApp::new(
        settings,
        StartOptions {
            files: vec![report.to_path_buf()],
            ..Default::default()
        },
    );
    Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        .build_ui_state(|ui, app: &mut SightlineApp| app.frame_ui(ui), app)
}

fn wait_loaded(harness: &mut Harness<'static, SightlineApp>) {
    let start = Instant::now();
    loop {
        harness.step();
        let app = harness.state();
        if app.tabs.iter().all(|t| !t.loading())
            && app.document::<ReportTab>(0).unwrap().details().is_some()
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
        .report
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
        "kernel switch frame ({} switches over {kernels} kernels): median {}, p95 {}, max {} (target ≤ 16 ms)",
        switches.len(),
        ms(percentile(&switches, 0.5)),
        ms(percentile(&switches, 0.95)),
        ms(*switches.last().unwrap())
    );
    println!(
        "steady frame: median {}, p95 {}",
        ms(percentile(&steady, 0.5)),
        ms(percentile(&steady, 0.95))
    );
}
