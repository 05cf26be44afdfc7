//! The Gainsight panel driven headless (egui_kittest): opening the committed hand-made log (its
//! figures are worked out by hand in `tests/gainsight_fixtures.rs`), the kernel table and its
//! sorting, selecting a kernel, the what-if sliders, the parameter editor, exporting the four
//! files and opening them again, chart images, Cancel, and a bad file's error.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::common;
use eframe::egui::{self, Color32, ColorImage};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sightline::app::SightlineApp;
use sightline::app::document::{Document, DocumentKind, route};
use sightline::app::gainsight::GainsightDoc;
use sightline::app::gainsight::charts::count_label;
use sightline::gainsight::{Level, Params, Selection};
use sightline_test_support::gainsight::{GenConfig, generate};

fn fixture(name: &str) -> PathBuf {
    common::fixtures().join("gainsight").join(name)
}

fn harness(files: Vec<PathBuf>) -> Harness<'static, SightlineApp> {
    common::app::harness_sized(files, egui::vec2(1500.0, 1000.0))
}

fn doc<'h>(h: &'h Harness<'static, SightlineApp>) -> &'h GainsightDoc {
    h.state()
        .tabs
        .first()
        .and_then(|t| t.as_any().downcast_ref())
        .expect("a Gainsight tab")
}

fn doc_mut<'h>(h: &'h mut Harness<'static, SightlineApp>) -> &'h mut GainsightDoc {
    h.state_mut()
        .tabs
        .first_mut()
        .and_then(|t| t.as_any_mut().downcast_mut())
        .expect("a Gainsight tab")
}

/// Opens `path` and waits until it is loaded and no job runs.
fn opened(path: PathBuf) -> Harness<'static, SightlineApp> {
    let mut h = harness(vec![path]);
    common::app::step_until(
        &mut h,
        "the Gainsight input to load",
        Duration::from_secs(30),
        |h| {
            h.state()
                .tabs
                .first()
                .and_then(|t| t.as_any().downcast_ref::<GainsightDoc>())
                .is_some_and(|d| d.error().is_some() || (d.loaded().is_some() && !d.busy()))
        },
    );
    h.run();
    assert_eq!(doc(&h).error(), None);
    h
}

/// The slider labelled `label`.
fn slider<'h>(h: &'h Harness<'static, SightlineApp>, label: &'h str) -> egui_kittest::Node<'h> {
    h.get_by_role_and_label(egui::accesskit::Role::Slider, label)
}

fn wait_idle(h: &mut Harness<'static, SightlineApp>, what: &str) {
    common::app::step_until(h, what, Duration::from_secs(30), |h| !doc(h).busy());
    h.run();
}

#[test]
fn routes_logs_folders_and_outputs_to_gainsight() {
    let dir = tempfile::tempdir().expect("temp dir");
    assert_eq!(route(dir.path()), DocumentKind::Gainsight);
    for name in [
        "r.sim.csv",
        "r.SIM_L1.csv",
        "r.sim_l2.csv",
        "r.json",
        "k.log",
        "kernel-25.traceg",
    ] {
        assert_eq!(route(Path::new(name)), DocumentKind::Gainsight, "{name}");
    }
    // Any name, by content: the first 64 KiB mention GPGPU-Sim.
    let sniffed = dir.path().join("run.out");
    std::fs::write(&sniffed, b"some header\nGPGPU-Sim uArch: kernel launch 0\n").expect("write");
    assert_eq!(route(&sniffed), DocumentKind::Gainsight);
    let other = dir.path().join("other.bin");
    std::fs::write(&other, b"NVR\0").expect("write");
    assert_ne!(route(&other), DocumentKind::Gainsight);
}

#[test]
fn opens_a_log_lists_its_kernels_and_sorts_them() {
    let mut h = opened(fixture("handmade.log"));
    let d = doc(&h);
    let loaded = d.loaded().expect("loaded");
    let ids: Vec<u64> = loaded.analysis.rows.iter().map(|r| r.kernel_id).collect();
    assert_eq!(ids, [3, 7]);
    // Hand-computed (tests/gainsight_fixtures.rs): 4 L1 lifetimes, 1 L2 lifetime.
    assert_eq!(loaded.report.lifetime_count, [4, 1]);
    let status = h.state().status().expect("status");
    assert!(status.0.starts_with("Opened ") && !status.1, "{status:?}");
    // The table shows every kernel name, and the sortable headers.
    for row in &loaded.analysis.rows {
        h.get_by_label(&row.name);
    }
    // Sorting: by kernel id ascending, then descending, then by total cycles.
    h.get_by_label("Kernel ID").click();
    h.run();
    assert_eq!(doc(&h).table().sort, Some((0, false)));
    assert_eq!(doc(&h).table().order, [0, 1]);
    h.get_by_label("Kernel ID ^").click();
    h.run();
    assert_eq!(doc(&h).table().sort, Some((0, true)));
    assert_eq!(doc(&h).table().order, [1, 0]);
    // Kernel 3's mean L1 lifetime (990 cycles) is shorter than kernel 7's (2300).
    h.get_by_label("L1 Lifetime").click();
    h.run();
    assert_eq!(doc(&h).table().sort, Some((2, false)));
    assert_eq!(doc(&h).table().order, [0, 1]);
    // A warning-free fixture shows the charts' frames.
    h.get_by_label("L1 lifetimes");
    h.get_by_label("Refreshes per cell type");
    h.get_by_label("L2 write frequency per kernel");
}

#[test]
fn selecting_a_kernel_filters_the_charts() {
    let mut h = opened(fixture("handmade.log"));
    assert_eq!(doc(&h).selection(), Selection::All);
    let store = doc(&h)
        .loaded()
        .as_ref()
        .expect("loaded")
        .analysis
        .store
        .clone();
    let all = doc_mut(&mut h)
        .whatif_mut()
        .projection(&store, Selection::All)
        .clone();
    assert_eq!(all.lifetimes, [4, 1]);
    // Kernel 3 is the first row (sorted by id) but the second kernel of the log.
    let name = doc(&h).loaded().expect("loaded").analysis.rows[0]
        .name
        .clone();
    h.get_by_label(&name).click();
    h.run();
    assert_eq!(doc(&h).table().selected, Some(0));
    assert_eq!(doc(&h).selection(), Selection::Kernel(1));
    h.get_by_label("charts: kernel 3");
    // Kernel 3 has one L1 lifetime (990 cycles, 0.443 µs) and none in L2.
    h.get_by_label("1 L1 and 0 L2 lifetimes (selected kernel)");
    h.get_by_label("Show all kernels").click();
    h.run();
    assert_eq!(doc(&h).selection(), Selection::All);
    h.get_by_label("4 L1 and 1 L2 lifetimes (all kernels)");
}

#[test]
fn a_retention_slider_recomputes_the_refreshes_shown() {
    let mut h = opened(fixture("handmade.log"));
    let store = doc(&h)
        .loaded()
        .as_ref()
        .expect("loaded")
        .analysis
        .store
        .clone();
    // At the defaults (5nm Silicon: 1 µs), hand-computed: L1 3 refreshes, L2 10.
    let before = doc_mut(&mut h)
        .whatif_mut()
        .projection(&store, Selection::All)
        .clone();
    assert_eq!(before.refreshes[0][0], 3);
    assert_eq!(before.refreshes[1][0], 10);
    let computations = doc(&h).whatif().computations;
    slider(&h, "5nm Silicon retention").set_value_accesskit(0.25);
    h.run();
    let d = doc(&h);
    assert_eq!(d.whatif().retention_us[0], 0.25);
    assert!(d.whatif().computations > computations);
    let l1 = store
        .level(Level::L1)
        .refreshes(Selection::All, 0.25, Params::default().clock_mhz);
    let l2 = store
        .level(Level::L2)
        .refreshes(Selection::All, 0.25, Params::default().clock_mhz);
    // floor(t / 0.25) of 2.013, 1.029, 0.045, 0.443 µs = 8 + 4 + 0 + 1; of 10.067 µs = 40.
    assert_eq!((l1, l2), (13, 40));
    h.get_by_label(&count_label(13));
    h.get_by_label(&count_label(40));
    // The clock slider: at half the clock every lifetime doubles.
    slider(&h, "5nm Silicon retention").set_value_accesskit(1.0);
    slider(&h, "Clock").set_value_accesskit(1117.5);
    h.run();
    let store = doc(&h)
        .loaded()
        .as_ref()
        .expect("loaded")
        .analysis
        .store
        .clone();
    let p = doc_mut(&mut h)
        .whatif_mut()
        .projection(&store, Selection::All)
        .clone();
    assert_eq!(p.refreshes[0][0], 2 + 4);
    h.get_by_label("Reset sliders").click();
    h.run();
    assert!(!doc(&h).whatif().differs_from(&Params::default()));
}

#[test]
fn parameters_apply_and_reset() {
    let mut h = opened(fixture("handmade.log"));
    let params = Params {
        block_size_bytes: 64,
        ..Params::default()
    };
    doc_mut(&mut h).apply_params(params);
    wait_idle(&mut h, "the re-analysis");
    let loaded = doc(&h).loaded().expect("loaded");
    assert_eq!(loaded.params.block_size_bytes, 64);
    // Kernel 7: 2 unique L1 addresses × 64 B / 65536 B.
    assert_eq!(
        loaded.analysis.rows[1].l1_utilization,
        Some(2.0 * 64.0 / 65536.0)
    );
    h.get_by_label("Parameters").click();
    h.run();
    h.get_by_label("Reset to defaults").click_accesskit();
    wait_idle(&mut h, "the re-analysis with the defaults");
    let loaded = doc(&h).loaded().expect("loaded");
    assert_eq!(loaded.params, Params::default());
    assert_eq!(
        loaded.analysis.rows[1].l1_utilization,
        Some(2.0 * 32.0 / 65536.0)
    );
}

#[test]
fn exports_the_outputs_and_opens_them_again() {
    let out = tempfile::tempdir().expect("temp dir");
    let mut h = opened(fixture("handmade.log"));
    {
        let d = doc_mut(&mut h);
        d.export_settings_mut().dir = out.path().display().to_string();
        d.export_settings_mut().name = "demo".into();
    }
    h.get_by_label("Export CSVs and JSON").click();
    h.run();
    wait_idle(&mut h, "the export");
    let last = doc(&h)
        .export_settings()
        .last
        .clone()
        .expect("export result");
    assert!(!last.1, "{last:?}");
    // The lifetime CSV is the one hand-computed in tests/gainsight_fixtures.rs.
    let l1 = std::fs::read_to_string(out.path().join("demo.sim_l1.csv")).expect("L1 CSV");
    assert_eq!(
        l1,
        "kernel_id,address,lifetime_cycles,lifetime_ns\n\
         7,4096.00,4500.00,2013.42\n\
         7,4096.00,2300.00,1029.08\n\
         7,4224.00,100.00,44.74\n\
         3,65408.00,990.00,442.95\n"
    );
    for suffix in [".sim_l2.csv", ".sim.csv", ".json"] {
        assert!(
            out.path().join(format!("demo{suffix}")).is_file(),
            "{suffix}"
        );
    }
    let original = doc(&h).loaded().expect("loaded");
    let (rows, report) = (original.analysis.rows.clone(), original.report.clone());
    // Opening the kernel CSV reads the three others beside it.
    let mut again = opened(out.path().join("demo.sim.csv"));
    let loaded = doc(&again).loaded().expect("loaded");
    assert!(!loaded.inputs.is_logs());
    assert!(loaded.report_from_file && loaded.lifetimes_known);
    assert_eq!(loaded.analysis.rows, rows);
    assert_eq!(loaded.report.write_frequency, report.write_frequency);
    assert_eq!(loaded.report.refreshes, report.refreshes);
    let store = loaded.analysis.store.clone();
    let p = doc_mut(&mut again)
        .whatif_mut()
        .projection(&store, Selection::All)
        .clone();
    assert_eq!((p.refreshes[0][0], p.refreshes[1][0]), (3, 10));
    // A folder holding only outputs opens them too.
    let folder = opened(out.path().to_path_buf());
    let from_folder = doc(&folder).loaded().expect("loaded");
    assert!(!from_folder.inputs.is_logs());
    assert_eq!(from_folder.analysis.rows, rows);
    // The JSON alone: its report, no table, no lifetimes (the panel says what is missing).
    let alone = tempfile::tempdir().expect("temp dir");
    std::fs::copy(out.path().join("demo.json"), alone.path().join("demo.json")).expect("copy");
    let json_only = opened(alone.path().join("demo.json"));
    let loaded = doc(&json_only).loaded().expect("loaded");
    assert!(loaded.report_from_file && !loaded.lifetimes_known);
    assert!(loaded.analysis.rows.is_empty());
    assert_eq!(loaded.report.refreshes, report.refreshes);
    json_only.get_by_label(
        "Open the lifetime CSVs (NAME.sim_l1.csv, NAME.sim_l2.csv) or the log to project refreshes.",
    );
    assert_eq!(json_only.get_all_by_label("No lifetimes loaded").count(), 2);
    // Selecting kernel 3 (the lifetime CSVs list kernel 7 first) filters to its lifetime.
    let name = rows[0].name.clone();
    again.get_by_label(&name).click();
    again.run();
    again.get_by_label("1 L1 and 0 L2 lifetimes (selected kernel)");
}

#[test]
fn chart_images_are_cut_from_a_screenshot() {
    let out = tempfile::tempdir().expect("temp dir");
    let mut h = opened(fixture("handmade.log"));
    doc_mut(&mut h).export_settings_mut().dir = out.path().display().to_string();
    h.get_by_label("Save chart images").click();
    h.step();
    assert!(doc(&h).screenshot_pending());
    // No renderer here: answer the screenshot request with a window-sized image.
    let callbacks: Vec<egui::ScreenshotCallback> = h
        .output()
        .viewport_output
        .values()
        .flat_map(|v| v.commands.iter())
        .filter_map(|c| match c {
            egui::ViewportCommand::Screenshot(callback) => Some(callback.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(callbacks.len(), 1);
    let image = Arc::new(ColorImage::filled([1500, 1000], Color32::DARK_BLUE));
    for callback in callbacks {
        callback.complete(image.clone());
    }
    h.step();
    wait_idle(&mut h, "the chart images");
    let rects = doc(&h).chart_rects().to_vec();
    assert_eq!(rects.len(), 6);
    for (suffix, rect) in rects {
        let path = out.path().join(format!("demo.{suffix}.png"));
        let png = image::open(&path).expect("a PNG").to_rgba8();
        assert_eq!(
            (png.width(), png.height()),
            (
                (rect.max.x.round() - rect.min.x.round()) as u32,
                (rect.max.y.round() - rect.min.y.round()) as u32
            ),
            "{suffix}"
        );
        assert_eq!(png.get_pixel(1, 1).0, [0, 0, 139, 255]);
    }
}

#[test]
fn cancel_stops_a_long_load() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("big.log");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
    let config = GenConfig {
        kernels: 40,
        l1_objects: 2000,
        l2_objects: 2000,
        keep_expected: false,
        ..GenConfig::default()
    };
    generate(&config, &mut out).expect("generate");
    drop(out);
    let mut h = harness(vec![path.clone()]);
    h.step();
    assert!(doc(&h).busy());
    h.get_by_label("Cancel").click();
    h.step();
    h.step();
    let d = doc(&h);
    assert!(!d.busy());
    assert!(d.loaded().is_none());
    let error = d.error().map(str::to_owned).expect("an error");
    assert!(
        error.contains("cancelled") && error.contains("big.log"),
        "{error}"
    );
}

#[test]
fn a_bad_file_shows_an_error_naming_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let empty = dir.path().join("empty.log");
    std::fs::write(&empty, b"").expect("write");
    let mut h = harness(vec![empty.clone()]);
    common::app::step_until(&mut h, "the error", Duration::from_secs(30), |h| {
        doc(h).error().is_some()
    });
    h.run();
    let error = doc(&h).error().map(str::to_owned).expect("error");
    assert!(error.contains(&empty.display().to_string()), "{error}");
    assert!(h.get_all_by_label(&error).count() >= 1);
    let status = h.state().status().expect("status");
    assert!(status.1 && status.0.contains("empty.log"), "{status:?}");
    // A kernel CSV with a broken row names the file and the line.
    let bad = dir.path().join("bad.sim.csv");
    std::fs::write(
        &bad,
        format!("{}\n1,k,x\n", sightline::gainsight::KERNEL_HEADER.join(",")),
    )
    .expect("write");
    let mut h = harness(vec![bad.clone()]);
    common::app::step_until(&mut h, "the error", Duration::from_secs(30), |h| {
        doc(h).error().is_some()
    });
    let error = doc(&h).error().map(str::to_owned).expect("error");
    assert!(error.contains(&format!("{}:2", bad.display())), "{error}");
}

#[test]
fn opens_a_folder_of_logs_one_per_kernel() {
    let dir = tempfile::tempdir().expect("temp dir");
    let traces = dir.path().join("traces");
    std::fs::create_dir_all(&traces).expect("mkdir");
    let mut expected = Vec::new();
    // Named so that only a natural sort puts kernel 2 before kernel 10.
    for id in [10u64, 2] {
        let config = GenConfig {
            kernels: 1,
            first_kernel_id: id,
            seed: id,
            l1_objects: 30,
            l2_objects: 30,
            ..GenConfig::default()
        };
        let mut bytes = Vec::new();
        expected.extend(generate(&config, &mut bytes).expect("generate"));
        std::fs::write(traces.join(format!("kernel-{id}.traceg")), bytes).expect("write");
    }
    let h = opened(traces.clone());
    let loaded = doc(&h).loaded().expect("loaded");
    assert!(loaded.inputs.is_logs());
    assert_eq!(loaded.analysis.files.len(), 2);
    assert!(loaded.analysis.files[0].ends_with("kernel-2.traceg"));
    let ids: Vec<u64> = loaded.analysis.rows.iter().map(|r| r.kernel_id).collect();
    assert_eq!(ids, [2, 10]);
    for (level, count) in loaded.report.lifetime_count.iter().enumerate() {
        let want: u64 = expected.iter().map(|k| k.lifetime_count[level]).sum();
        assert_eq!(*count, want, "L{}", level + 1);
    }
    // The store keeps the input order (kernel 2's file first).
    assert_eq!(loaded.analysis.store.kernel_ids, [2, 10]);
}
