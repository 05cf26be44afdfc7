//! The app on reports that real files showed problems with: NaN values are shown as `NaN`, a
//! partly readable report lists its read warnings above the page, and a damaged result is
//! listed as unreadable while the kernels after it load.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common;
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sightline::app::ncu::report_tab::ReportTab;
use sightline::app::{Settings, SightlineApp, StartOptions};
use sightline::proto::nv::profiler::messages as pb;
use sightline_test_support::ncu::writer::ReportWriter;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

/// The app with `file` open, its embedded sections preferred, and an empty search folder (so
/// nothing is deployed to the user's home).
fn open(file: PathBuf, folder: &Path) -> Harness<'static, SightlineApp> {
    let settings = Settings {
        section_folders: vec![folder.to_path_buf()],
        prefer_embedded: true,
        ..Settings::default()
    };
    let app = SightlineApp::new(
        settings,
        StartOptions {
            files: vec![file],
            ..Default::default()
        },
    );
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1400.0, 1000.0))
        .with_max_steps(60)
        .build_ui_state(|ui, app: &mut SightlineApp| app.frame_ui(ui), app);
    common::app::step_until(
        &mut harness,
        "the report to load",
        Duration::from_secs(20),
        |h| h.state().tabs.iter().all(|t| !t.loading()),
    );
    harness.run();
    harness
}

#[test]
fn nan_values_show_as_nan() {
    let folder = tempfile::tempdir().unwrap();
    let harness = open(fixture("sampler_nan.ncu-rep"), folder.path());
    // Compute Throughput (+NaN), Memory Throughput (-NaN), L1 Hit Rate (float NaN).
    assert_eq!(harness.query_all_by_label("NaN %").count(), 3);
}

/// A report whose second kernel names a metric by a string id the file never defines, and
/// whose third result is not a result at all.
fn damaged_report() -> Vec<u8> {
    let mut writer = ReportWriter::new(Vec::new()).unwrap();
    let id = writer.intern("gpu__time_duration.sum");
    let kernel = |name: &str, ids: &[u32]| pb::ProfileResult {
        kernel_function_name: name.to_owned(),
        kernel_demangled_name: format!("{name}()"),
        kernel_mangled_name: name.to_owned(),
        metric_results: ids
            .iter()
            .map(|&name_id| pb::ProfileMetricResult {
                name_id,
                metric_value: Some(pb::ProfileMetricValue {
                    uint64_value: Some(2048),
                    ..Default::default()
                }),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    use prost::Message;
    use sightline::ncu::WorkloadKind;
    writer.add_encoded_result(WorkloadKind::Kernel, kernel("first", &[id]).encode_to_vec());
    writer.add_encoded_result(
        WorkloadKind::Kernel,
        kernel("second", &[id, 4096]).encode_to_vec(),
    );
    // A varint that never ends: the result's framing is damaged.
    writer.add_encoded_result(WorkloadKind::Kernel, vec![0x08, 0xff, 0xff]);
    writer.add_encoded_result(
        WorkloadKind::Kernel,
        kernel("fourth", &[id]).encode_to_vec(),
    );
    writer.finish().unwrap()
}

#[test]
fn read_warnings_and_unreadable_results_are_shown_and_the_rest_loads() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("damaged.ncu-rep");
    std::fs::write(&file, damaged_report()).unwrap();
    let mut harness = open(file, dir.path());
    let tab = harness.state().document::<ReportTab>(0).unwrap();
    assert_eq!(tab.error(), None, "the report opens");
    assert_eq!(tab.list().len(), 4, "every result is listed");
    harness.get_by_label("(unreadable result)");
    harness.get_by_label("fourth");

    // Kernel 1: the metric naming string 4096 is skipped with a warning.
    harness
        .state_mut()
        .document_mut::<ReportTab>(0)
        .unwrap()
        .select(1);
    harness.run();
    let header = harness.get_by_label_contains("1 read warning(s)");
    header.click();
    harness.run();
    harness.get_by_label_contains("metric name id 4096 outside the string table (1 strings)");

    // Kernel 2 is unreadable: its error is shown; kernel 3 opens normally.
    harness
        .state_mut()
        .document_mut::<ReportTab>(0)
        .unwrap()
        .select(2);
    harness.run();
    harness.get_by_label_contains("truncated varint");
    harness
        .state_mut()
        .document_mut::<ReportTab>(0)
        .unwrap()
        .select(3);
    harness.run();
    assert!(
        harness
            .query_by_label_contains("truncated varint")
            .is_none()
    );
    assert!(
        harness
            .state()
            .document::<ReportTab>(0)
            .unwrap()
            .details()
            .is_some()
    );
}
