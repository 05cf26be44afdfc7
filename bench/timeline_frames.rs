//! Timeline frame benchmark: `cargo bench --bench timeline_frames [-- EVENTS [--samples N]
//! [--sched N]]`.
//!
//! Writes an nsys-shaped export with the project's generator (default 1 M events; kept in
//! `target/bench-data/` and reused), opens it in the whole app (loader thread, summary tables),
//! then measures the CPU time of a frame — the app's layout and painting (`Context::run_ui`)
//! plus tessellation into meshes (`Context::tessellate`), headless, no GPU — at four views:
//! zoomed out (the whole session), mid zoom (1/200 of it), zoomed in (20 µs) and while panning
//! (a mid-zoom view moved 12 px every frame). Goal: median ≤ 4 ms and p99 ≤ 8 ms each.
//!
//! With `--sort`, the bench then shows `cuda_gpu_trace` (one row per kernel, copy and set:
//! millions of rows) in the summary panel and sorts it by `Duration (ns)`: a table that long
//! sorts on a background job, so the frames while it sorts stay short; printed are the time
//! until the sorted order is on screen and the frames meanwhile.
//!
//! With `--samples N` (and `--sched N`) the export also holds N CPU samples with call stacks
//! (and N scheduling events) on the same threads (`sightline_test_support::nsys_cpu`); then the
//! bench also opens the CPU profile's flame graph (all threads, whole session): the model's
//! build (samples counted per stack, top-down tree; goal ≤ 1 s), the first frame that shows it
//! (which builds it), and the frames drawing it (goal ≤ 16 ms) with the pointer over its bars.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Test code: a failed unwrap is a failed test.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use eframe::egui;
use sightline::app::document::Document;
use sightline::app::timeline::TimelineDoc;
use sightline::app::timeline::cpu_profile::ProfileView;
use sightline::app::{Settings, SightlineApp, StartOptions};
use sightline::timeline::CallTree;
use sightline::timeline::nsys::ExportDb;
use sightline::timeline::nsys::stats::{self, ReportOutcome};
use sightline_test_support::nsys::{SynthOptions, write_export_with_cpu};
use sightline_test_support::nsys_cpu::CpuOptions;

/// Frames measured per view (after warm-up frames).
const FRAMES: usize = 300;
const WARM_UP: usize = 20;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[index]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

/// The generated export with about `events` events and the CPU rows of `cpu` (written once,
/// then reused).
fn export(events: u64, cpu: &CpuOptions) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    let _ = std::fs::create_dir_all(&dir);
    let name = if *cpu == CpuOptions::default() {
        format!("nsys-{events}.sqlite")
    } else {
        format!("nsys-{events}-{}-{}.sqlite", cpu.samples, cpu.sched)
    };
    let path = dir.join(name);
    if !path.is_file() {
        let partial = path.with_extension("partial");
        let _ = std::fs::remove_file(&partial);
        let start = Instant::now();
        let (counts, cpu_counts) = write_export_with_cpu(
            &partial,
            &SynthOptions {
                events,
                threads: 4,
                streams: 8,
                seed: 1,
            },
            cpu,
        )
        .expect("write the export");
        std::fs::rename(&partial, &path).expect("rename the export");
        eprintln!(
            "generated {} ({} events, {} samples with {} call stack rows, {} scheduling events) in {:.1} s",
            path.display(),
            counts.total(),
            cpu_counts.samples,
            cpu_counts.callchain_rows,
            cpu_counts.sched,
            start.elapsed().as_secs_f64()
        );
    }
    path
}

/// Drives the app with a raw egui context: one frame = layout + tessellation.
struct Driver {
    ctx: egui::Context,
    app: SightlineApp,
    frame: u64,
    pointer: egui::Pos2,
}

impl Driver {
    fn frame(&mut self) -> (Duration, usize) {
        self.frame += 1;
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(1600.0, 1000.0),
            )),
            time: Some(self.frame as f64 / 60.0),
            events: vec![egui::Event::PointerMoved(self.pointer)],
            ..Default::default()
        };
        let start = Instant::now();
        let app = &mut self.app;
        let mut output = self.ctx.run_ui(input, |ui| app.frame_ui(ui));
        let meshes = self.ctx.tessellate(output.shapes, output.pixels_per_point);
        // No renderer takes the font atlas updates: drop them deliberately.
        output.textures_delta.clear();
        (start.elapsed(), meshes.len())
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (events, cpu) = parse_args(&args);
    let path = export(events, &cpu);
    let (mut d, shown, ready) = open(&path);
    let (count, range) = {
        let tl = d
            .app
            .document::<TimelineDoc>(0)
            .and_then(|t| t.timeline())
            .expect("loaded");
        (tl.event_count(), tl.time_range().expect("events"))
    };
    println!("export: {} ({count} events)", path.display());
    if let Some(shown) = shown {
        println!(
            "open → timeline on screen (app, loader thread): {:.2} s",
            shown.as_secs_f64()
        );
    }
    println!(
        "open → timeline and summary tables ready (app, loader thread): {:.2} s",
        ready.as_secs_f64()
    );
    measure_views(&mut d, range);
    if cpu.samples > 0 {
        flame_graph(&mut d);
    }
    if args.iter().any(|a| a == "--sort") {
        sort_long_table(&mut d, &path);
    }
}

/// The number of events (the first number that is not an option's value; 1 M by default)
/// and the CPU rows (`--samples N`, `--sched N`) the arguments ask for.
fn parse_args(args: &[String]) -> (u64, CpuOptions) {
    let number = |a: &String| a.replace('_', "").parse::<u64>().ok();
    let option = |name: &str| -> u64 {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(number)
            .unwrap_or(0)
    };
    let cpu = CpuOptions {
        samples: option("--samples"),
        sched: option("--sched"),
    };
    // The first number that is not an option's value.
    let events: u64 = args
        .iter()
        .enumerate()
        .filter(|(i, _)| *i == 0 || !args[i - 1].starts_with("--"))
        .find_map(|(_, a)| number(a))
        .unwrap_or(1_000_000);
    (events, cpu)
}

/// Opens `path` in the app and draws frames until the timeline and its summary tables are
/// ready. Returns the driver, when the timeline first showed (before the CPU samples' call
/// stacks, when there are any) and when it was ready.
fn open(path: &Path) -> (Driver, Option<Duration>, Duration) {
    let app = SightlineApp::new(
        Settings::default(),
        StartOptions {
            files: vec![path.to_path_buf()],
            ..Default::default()
        },
    );
    let mut d = Driver {
        ctx: egui::Context::default(),
        app,
        frame: 0,
        pointer: egui::pos2(900.0, 400.0),
    };
    let start = Instant::now();
    // When the timeline first shows (before the CPU samples' call stacks, when there are any).
    let mut shown: Option<Duration> = None;
    loop {
        d.frame();
        if shown.is_none()
            && d.app
                .document::<TimelineDoc>(0)
                .is_some_and(|t| t.timeline().is_some())
        {
            shown = Some(start.elapsed());
        }
        let ready = d
            .app
            .document::<TimelineDoc>(0)
            .is_some_and(|t| t.timeline().is_some() && t.stats().reports.is_some());
        if ready {
            break;
        }
        if let Some(error) = d
            .app
            .document::<TimelineDoc>(0)
            .and_then(|t| t.error().map(str::to_owned))
        {
            panic!("{error}");
        }
        assert!(start.elapsed() < Duration::from_secs(600), "load timed out");
        std::thread::sleep(Duration::from_millis(20));
    }
    (d, shown, start.elapsed())
}

/// Measures the frames at the four views of `range` (zoomed out, mid zoom, zoomed in,
/// panning) with the pointer wandering, and prints their median, p99 and maximum.
fn measure_views(d: &mut Driver, range: (i64, i64)) {
    let span = (range.1 - range.0) as f64;
    let mid = range.0 as f64 + span / 2.0;
    let views: [(&str, f64, f64); 4] = [
        ("zoomed out", range.0 as f64, range.1 as f64),
        ("mid zoom (1/200)", mid - span / 400.0, mid + span / 400.0),
        ("zoomed in (20 µs)", mid - 10_000.0, mid + 10_000.0),
        (
            "panning (1/200, 12 px/frame)",
            mid - span / 400.0,
            mid + span / 400.0,
        ),
    ];
    println!("frame CPU time (layout + tessellation, 1600×1000, {FRAMES} frames each):");
    for (name, t0, t1) in views {
        if let Some(t) = d.app.document_mut::<TimelineDoc>(0) {
            t.canvas_mut().viewport.fit(t0, t1);
        }
        let mut times = Vec::new();
        let mut max_shapes = 0;
        let mut max_meshes = 0;
        for i in 0..WARM_UP + FRAMES {
            if name.starts_with("panning")
                && let Some(t) = d.app.document_mut::<TimelineDoc>(0)
            {
                t.canvas_mut().viewport.pan_px(12.0);
            }
            // The pointer wanders, as a person's does (hover tooltips, hit tests).
            d.pointer = egui::pos2(
                400.0 + (i % 50) as f32 * 20.0,
                200.0 + (i % 7) as f32 * 60.0,
            );
            let (time, meshes) = d.frame();
            if i >= WARM_UP {
                times.push(time);
                max_meshes = max_meshes.max(meshes);
                let shapes = d
                    .app
                    .document::<TimelineDoc>(0)
                    .map_or(0, |t| t.canvas().shapes_drawn);
                max_shapes = max_shapes.max(shapes);
            }
        }
        times.sort();
        println!(
            "  {name:<30} median {}  p99 {}  max {}  (canvas shapes ≤ {max_shapes}, meshes ≤ {max_meshes})",
            ms(percentile(&times, 0.5)),
            ms(percentile(&times, 0.99)),
            ms(*times.last().expect("frames"))
        );
    }
}

/// The timeline document.
fn doc(d: &mut Driver) -> &mut TimelineDoc {
    d.app.document_mut::<TimelineDoc>(0).expect("the timeline")
}

/// Shows `cuda_gpu_trace` in the summary panel and sorts it by duration: the time until the
/// order is on screen, and the frames while the job sorts.
fn sort_long_table(d: &mut Driver, path: &Path) {
    let start = Instant::now();
    let db = ExportDb::open(path).expect("open the export");
    let outcome = stats::run_report(&db, "cuda_gpu_trace").expect("cuda_gpu_trace");
    let (rows, column) = match &outcome {
        ReportOutcome::Table(t) => (
            t.rows.len(),
            t.columns
                .iter()
                .position(|c| c == "Duration (ns)")
                .expect("a duration column"),
        ),
        ReportOutcome::Skipped(why) => panic!("cuda_gpu_trace skipped: {why}"),
    };
    println!(
        "cuda_gpu_trace: {rows} rows computed in {:.2} s",
        start.elapsed().as_secs_f64()
    );
    let stats = doc(d).stats_mut();
    stats.add_report(("cuda_gpu_trace".to_owned(), Ok(outcome)));
    stats.pane = sightline::app::timeline::stats_panel::Pane::Report;
    for _ in 0..WARM_UP {
        d.frame();
    }
    // As a header click does.
    doc(d).stats_mut().table.click_header(column);
    let start = Instant::now();
    let mut times = Vec::new();
    loop {
        let (time, _) = d.frame();
        times.push(time);
        let stats = &doc(d).stats();
        if !stats.sorter.is_sorting() && stats.table.stale_order(rows).is_none() {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(600), "sort timed out");
        std::thread::sleep(Duration::from_millis(5));
    }
    let sorted = start.elapsed();
    times.sort();
    println!(
        "sort of {rows} rows by duration (background job): order on screen after {:.2} s; \
         {} frames meanwhile: median {}  p99 {}  max {}",
        sorted.as_secs_f64(),
        times.len(),
        ms(percentile(&times, 0.5)),
        ms(percentile(&times, 0.99)),
        ms(*times.last().expect("frames"))
    );
}

/// The CPU profile's flame graph of all samples: the model's build, the first frame showing
/// it, then frames with the pointer over its bars.
fn flame_graph(d: &mut Driver) {
    let tl = d
        .app
        .document::<TimelineDoc>(0)
        .and_then(|t| t.timeline().cloned())
        .expect("loaded");
    let range = tl.time_range().expect("events");
    let mut builds = Vec::new();
    let mut nodes = 0;
    let mut samples = 0;
    for _ in 0..3 {
        let start = Instant::now();
        let counts = tl.sample_counts(range.0, range.1, &[]);
        let counted = start.elapsed();
        let tree = CallTree::top_down(&tl.stacks, &counts);
        builds.push((counted, start.elapsed()));
        nodes = tree.nodes.len();
        samples = counts.samples;
    }
    builds.sort();
    let (counted, built) = builds[1];
    println!(
        "flame graph model ({samples} samples, {} call stack nodes, {nodes} tree nodes; median of 3): \
         samples counted per stack {}, + top-down tree {}",
        tl.stacks.nodes.len(),
        ms(counted),
        ms(built)
    );
    if let Some(t) = d.app.document_mut::<TimelineDoc>(0) {
        t.stats_mut().pane = sightline::app::timeline::stats_panel::Pane::Profile;
        t.stats_mut().profile.view = ProfileView::FlameGraph;
    }
    d.pointer = egui::pos2(800.0, 900.0);
    let (first, _) = d.frame();
    println!(
        "first frame showing the flame graph (counts, builds the tree, draws): {}",
        ms(first)
    );
    let mut times = Vec::new();
    for i in 0..WARM_UP + FRAMES {
        // Over the bars, at the bottom panel: hover hit tests and tooltips run.
        d.pointer = egui::pos2(
            100.0 + (i % 70) as f32 * 20.0,
            760.0 + (i % 9) as f32 * 20.0,
        );
        let (time, _) = d.frame();
        if i >= WARM_UP {
            times.push(time);
        }
    }
    times.sort();
    println!(
        "  {:<30} median {}  p99 {}  max {}",
        "flame graph (all samples)",
        ms(percentile(&times, 0.5)),
        ms(percentile(&times, 0.99)),
        ms(*times.last().expect("frames"))
    );
}
