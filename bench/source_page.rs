//! Source page benchmark: `cargo bench --bench source_page`.
//!
//! Finds the largest kernel binary (cubin) in the corpus reports and measures, for the kernel
//! that launched it:
//! 1. building its page (cubin, line tables, per-PC metrics, the rows of the three views) on the
//!    calling thread, without nvdisasm, and with nvdisasm (cold and cached) when installed;
//! 2. in the whole app (egui_kittest, no GPU): the frame that switches from the Details page to
//!    the built Source page, and frames while scrolling the SASS view (mouse wheel every frame).
//!
//! Goal (issue 23): page switch ≤ 100 ms, scroll frames ≤ 16 ms. Needs `../shared/corpus/ncu`
//! beside the repository.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Test code: a failed unwrap is a failed test.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use eframe::egui;
use egui_kittest::Harness;
use sightline::app::document::Document;
use sightline::app::ncu::report_tab::{Page, ReportTab};
use sightline::app::ncu::source_page::build::build_page;
use sightline::app::ncu::source_page::data::View;
use sightline::app::{Settings, SightlineApp, StartOptions};
use sightline::ncu::Report;
use sightline::ncu::source::SourceModule;
use sightline::ncu::source::nvdisasm::{self, NvdisasmOptions};
use sightline::section::deploy_bundled_sections;

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

fn median(mut runs: Vec<Duration>) -> Duration {
    runs.sort();
    runs[runs.len() / 2]
}

/// The report, kernel and cubin size of the largest cubin in the corpus.
fn largest_cubin(reports: &Path) -> Option<(PathBuf, usize, usize)> {
    let mut best: Option<(PathBuf, u64, usize)> = None;
    let mut entries: Vec<PathBuf> = std::fs::read_dir(reports)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "ncu-rep"))
        .collect();
    entries.sort();
    for path in entries {
        let Ok(report) = Report::open(&path) else {
            continue;
        };
        for source in report.sources() {
            let Ok(data) = source.decode() else { continue };
            let size = data.binary.as_ref().map_or(0, Vec::len);
            if best.as_ref().is_none_or(|b| size > b.2) {
                best = Some((path.clone(), source.reference, size));
            }
        }
    }
    let (path, reference, size) = best?;
    let report = Report::open(&path).ok()?;
    let kernel = (0..report.num_actions()).find(|&i| {
        report.action(i).ok().is_some_and(|a| {
            SourceModule::for_action(&report, &a).is_ok_and(|m| m.reference() == Some(reference))
        })
    })?;
    Some((path, kernel, size))
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let reports = root.join("../shared/corpus/ncu/reports");
    let Some((path, kernel, size)) = largest_cubin(&reports) else {
        eprintln!("../shared/corpus/ncu/reports not found: nothing to measure");
        return;
    };
    let report = Report::open(&path).unwrap();
    println!(
        "largest cubin: {} bytes, {} kernel {kernel}",
        size,
        path.file_name().unwrap().to_string_lossy()
    );

    let none = NvdisasmOptions {
        explicit: Some(root.join("no-nvdisasm")),
        ..NvdisasmOptions::default()
    };
    let quiet = |_: f32, _: &str| {};
    let page = build_page(&report, kernel, &none, &quiet).unwrap();
    println!(
        "rows: {} SASS, {} source files ({} lines), {} PTX; {} columns",
        page.sass.len(),
        page.files.len(),
        page.files.iter().map(|f| f.rows.len()).sum::<usize>(),
        page.ptx.len(),
        page.columns.len()
    );
    let runs: Vec<Duration> = (0..9)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(build_page(&report, kernel, &none, &quiet).unwrap());
            start.elapsed()
        })
        .collect();
    println!("page build without nvdisasm: median {}", ms(median(runs)));
    if let Some(found) = nvdisasm::find(None) {
        let cache = tempfile::tempdir().unwrap();
        let with = NvdisasmOptions {
            explicit: Some(found),
            cache_dir: Some(cache.path().to_path_buf()),
            ..NvdisasmOptions::default()
        };
        let start = Instant::now();
        let page = build_page(&report, kernel, &with, &quiet).unwrap();
        println!(
            "page build with nvdisasm, cold cache: {} (SASS text: {})",
            ms(start.elapsed()),
            page.has_sass_text
        );
        let runs: Vec<Duration> = (0..5)
            .map(|_| {
                let start = Instant::now();
                std::hint::black_box(build_page(&report, kernel, &with, &quiet).unwrap());
                start.elapsed()
            })
            .collect();
        println!(
            "page build with nvdisasm, cached: median {}",
            ms(median(runs))
        );
    } else {
        println!("nvdisasm not installed: `pip install nvidia-cuda-nvdisasm` to measure it");
    }

    measure_app(root, &path, kernel, View::Sass);

    // A kernel with line info and per-PC metrics (sampled stalls): monte_carlo_pi's kernel 1,
    // 1,896 instructions (its own and its callees'), in the Source view beside SASS.
    let monte = reports.join("ncu2020.2.1_rtx3080_monte_carlo_pi.ncu-rep");
    if monte.is_file() {
        let report = Report::open(&monte).unwrap();
        let runs: Vec<Duration> = (0..9)
            .map(|_| {
                let start = Instant::now();
                std::hint::black_box(build_page(&report, 1, &none, &quiet).unwrap());
                start.elapsed()
            })
            .collect();
        let page = build_page(&report, 1, &none, &quiet).unwrap();
        println!(
            "monte_carlo_pi kernel 1: {} SASS rows, {} source lines, {} columns; page build \
             without nvdisasm: median {}",
            page.sass.len(),
            page.files.iter().map(|f| f.rows.len()).sum::<usize>(),
            page.columns.len(),
            ms(median(runs))
        );
        measure_app(root, &monte, 1, View::Source);
    }
}

/// The whole app on `path` with `kernel` selected: the first Source page, switches from the
/// Details page, and frames scrolling `view` (beside SASS when it is the Source view).
fn measure_app(root: &Path, path: &Path, kernel: usize, view: View) {
    let (_sections, mut h) = first_source_page(root, path, kernel);
    h.step();
    measure_switches(&mut h);
    measure_scroll(&mut h, view);
}

/// Opens `path` in the whole app (with the bundled sections, kept in the returned folder),
/// selects `kernel`, shows its Source page (without nvdisasm) and prints how long the page
/// took to be on screen.
fn first_source_page(
    root: &Path,
    path: &Path,
    kernel: usize,
) -> (tempfile::TempDir, Harness<'static, SightlineApp>) {
    // The whole app.
    let sections = tempfile::tempdir().unwrap();
    deploy_bundled_sections(sections.path()).unwrap();
    let app = SightlineApp::new(
        Settings {
            section_folders: vec![sections.path().to_path_buf()],
            ..Settings::default()
        },
        StartOptions {
            files: vec![path.to_path_buf()],
            ..Default::default()
        },
    );
    let mut h = Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        .build_ui_state(|ui, app: &mut SightlineApp| app.frame_ui(ui), app);
    let tab = |h: &Harness<'static, SightlineApp>| -> bool {
        h.state()
            .document::<ReportTab>(0)
            .is_some_and(|t| !t.loading() && t.details().is_some())
    };
    let start = Instant::now();
    while !tab(&h) {
        h.step();
        assert!(start.elapsed() < Duration::from_secs(60), "did not load");
        std::thread::sleep(Duration::from_millis(5));
    }
    h.state_mut()
        .document_mut::<ReportTab>(0)
        .unwrap()
        .select(kernel);
    h.step();
    h.step();
    {
        let t = h.state_mut().document_mut::<ReportTab>(0).unwrap();
        t.source_mut().nvdisasm.explicit = Some(root.join("no-nvdisasm"));
        t.source_mut().nvdisasm.cache_dir = None;
        t.set_page(Page::Source);
    }
    let start = Instant::now();
    loop {
        h.step();
        let t = h.state().document::<ReportTab>(0).unwrap();
        if t.source().page().is_some() && !t.source().is_building() {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(120), "no page");
        std::thread::sleep(Duration::from_millis(2));
    }
    println!(
        "first Source page in the app (background build + first frame): {}",
        ms(start.elapsed())
    );
    (sections, h)
}

/// Prints the time of the frame that switches from the Details page to the built Source
/// page (median and maximum of 10).
fn measure_switches(h: &mut Harness<'static, SightlineApp>) {
    // Details → Source and back.
    let mut switches = Vec::new();
    for _ in 0..10 {
        for page in [Page::Details, Page::Source] {
            h.state_mut()
                .document_mut::<ReportTab>(0)
                .unwrap()
                .set_page(page);
            let start = Instant::now();
            h.step();
            if page == Page::Source {
                switches.push(start.elapsed());
            }
        }
    }
    switches.sort();
    println!(
        "switch to the Source page (one frame): median {}, max {}",
        ms(switches[switches.len() / 2]),
        ms(switches[switches.len() - 1])
    );
}

/// Prints the frames scrolling `view` (beside SASS when it is the Source view) with the
/// mouse wheel: median, p99 and maximum of 300.
fn measure_scroll(h: &mut Harness<'static, SightlineApp>, view: View) {
    // Scrolling the SASS view.
    {
        let source = h
            .state_mut()
            .document_mut::<ReportTab>(0)
            .unwrap()
            .source_mut();
        source.set_view(0, view);
        source.side_by_side = view == View::Source;
    }
    h.step();
    h.hover_at(egui::pos2(800.0, 600.0));
    h.step();
    let mut frames = Vec::new();
    for _ in 0..300 {
        h.event(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Point,
            delta: egui::vec2(0.0, -120.0),
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Unknown,
            modifiers: egui::Modifiers::NONE,
        });
        let start = Instant::now();
        h.step();
        frames.push(start.elapsed());
    }
    frames.sort();
    println!(
        "scroll frames ({} view, 300 frames): median {}, p99 {}, max {}",
        view.name(),
        ms(frames[frames.len() / 2]),
        ms(frames[frames.len() * 99 / 100]),
        ms(frames[frames.len() - 1])
    );
}
