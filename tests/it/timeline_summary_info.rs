//! The Analysis Summary of a generated export with known values (`nsys_summary`): on the
//! loaded timeline's session, in `sightline timeline --json` and in the app's "Analysis
//! summary" tab; odd values reported, not panicked on; and tables replaced by views reported
//! in the problems list (read as the table would be, or why not).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use egui_kittest::kittest::Queryable;
use sightline::app::timeline::TimelineDoc;
use sightline::app::timeline::stats_panel::Pane;
use sightline::timeline::nsys::{self, NOT_READ};
use sightline::timeline::nsys::{AnalysisSummary, EnvSource};
use sightline::timeline::{EventKind, Timeline};
use sightline_test_support::nsys::{SynthCounts, SynthOptions, write_export};
use sightline_test_support::nsys_summary as fx;

use crate::common;

/// A generated export with the summary's tables, in `dir`.
fn export_with_summary(dir: &Path) -> (PathBuf, SynthCounts) {
    let path = dir.join("summary.sqlite");
    let counts = write_export(&path, &SynthOptions::default()).unwrap();
    fx::write_summary_tables(&path).unwrap();
    (path, counts)
}

/// The known values of `nsys_summary`, all of them.
fn check_known_values(s: &AnalysisSummary) {
    let capture: Vec<(&str, &str)> = s
        .capture
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(capture, fx::CAPTURE);
    assert_eq!(s.launches.len(), 1);
    let launch = &s.launches[0];
    assert_eq!(launch.command, fx::COMMAND);
    assert_eq!(
        launch.arguments,
        fx::ARGUMENTS,
        "in argument order, 10 after 9"
    );
    assert_eq!(launch.command_line(), fx::COMMAND_LINE);
    assert_eq!(launch.working_dir.as_deref(), Some(fx::WORKING_DIR));
    assert_eq!(launch.pid.as_deref(), Some("0"));
    assert_eq!(
        launch.settings,
        vec![("COLLECT_CUDA_TRACE".to_owned(), "true".to_owned())]
    );
    let vars = |source: EnvSource| -> Vec<(&str, &str)> {
        s.environment
            .variables
            .iter()
            .filter(|v| v.source == source)
            .map(|v| (v.name.as_str(), v.value.as_str()))
            .collect()
    };
    assert_eq!(vars(EnvSource::Process(0)), fx::PROCESS_ENV);
    assert_eq!(vars(EnvSource::System), fx::DEVICE_VARIABLES);
    let system: Vec<(&str, &str)> = s
        .environment
        .system
        .iter()
        .map(|p| (p.name.as_str(), p.value.as_str()))
        .collect();
    assert_eq!(system, fx::SYSTEM);
    assert!(
        s.environment
            .system
            .iter()
            .all(|p| p.device == "Local (CLI)")
    );
    check_devices(s);
}

/// The CPU, NICs, streams, span, output and export of `nsys_summary`.
fn check_devices(s: &AnalysisSummary) {
    assert_eq!(s.cpu.cores, Some(4));
    assert_eq!(s.cpu.speed_mhz, Some(2450.0));
    assert_eq!(s.cpu.description.as_deref(), Some("Synthetic EPYC 7763"));
    assert_eq!(s.cpu.architecture.as_deref(), Some("x86_64"));
    assert_eq!(s.cpu.sockets(), vec![0, 1]);
    assert_eq!(s.cpu.logical[2].max_freq_hz, Some(3_500_000_000));
    type NicRow<'a> = (Option<i64>, &'a str, &'a str, &'a str, &'a str, Option<i64>);
    let nics: Vec<NicRow<'_>> = s
        .nics
        .iter()
        .map(|n| {
            (
                n.id,
                n.name.as_str(),
                n.device.as_str(),
                n.vendor.as_str(),
                n.link_layer.as_str(),
                n.guid,
            )
        })
        .collect();
    assert_eq!(
        nics,
        vec![
            (
                Some(0),
                "mlx5_0",
                "ConnectX-4",
                "NVIDIA / Mellanox",
                "InfiniBand NIC",
                Some(fx::NICS[0].2)
            ),
            (
                Some(1),
                "eth0",
                "device 0x37d2",
                "vendor 0x8086",
                "Ethernet NIC",
                Some(fx::NICS[1].2)
            ),
        ]
    );
    type StreamRow<'a> = (Option<i64>, Option<i64>, &'a str, Option<&'a str>);
    let streams: Vec<StreamRow<'_>> = s
        .streams
        .iter()
        .map(|st| {
            (
                st.stream_id,
                st.priority,
                st.kind.as_str(),
                st.name.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        streams,
        vec![
            (Some(13), Some(0), "Non-blocking stream", None),
            (
                Some(14),
                Some(-5),
                "Default stream",
                Some(fx::STREAM_NAME.1)
            ),
            (Some(fx::NULL_STREAM), None, "Null stream", None),
        ]
    );
    assert!(
        s.streams
            .iter()
            .all(|st| st.process_id == Some(4242) && st.context_id == Some(1))
    );
    assert_eq!(s.contexts.len(), 1);
    assert_eq!(s.contexts[0].null_stream_id, Some(fx::NULL_STREAM));
    let (start, stop) = fx::ANALYSIS;
    assert_eq!(s.analysis.len(), 1);
    assert_eq!(
        (s.analysis[0].start, s.analysis[0].stop),
        (Some(start), Some(stop))
    );
    assert_eq!(s.analysis[0].duration, Some(stop - start));
    assert_eq!(s.outputs.len(), 1);
    assert_eq!(
        (s.outputs[0].file.as_str(), s.outputs[0].content.as_str()),
        fx::OUTPUT
    );
    assert_eq!(s.export_table.as_deref(), Some("META_DATA_EXPORT"));
    assert!(s.export.iter().any(|(k, _)| k == "EXPORT_PRODUCT_VERSION"));
    check_cuda_devices_and_files(s);
}

/// The CUDA devices (an empty UUID read as none) and the analysis files with their texts.
fn check_cuda_devices_and_files(s: &AnalysisSummary) {
    let devices: Vec<_> = s
        .cuda_devices
        .iter()
        .map(|d| {
            (
                d.gpu_id,
                d.cuda_id,
                d.pid,
                d.uuid.as_deref(),
                d.multiprocessors,
            )
        })
        .collect();
    let want: Vec<_> = fx::CUDA_DEVICES
        .iter()
        .map(|&(g, c, p, u, n)| {
            (
                Some(g),
                Some(c),
                Some(p),
                (!u.is_empty()).then_some(u),
                Some(n),
            )
        })
        .collect();
    assert_eq!(devices, want);
    let files: Vec<_> = s
        .files
        .iter()
        .map(|f| (f.file.as_str(), f.content.as_str()))
        .collect();
    assert_eq!(files, fx::ANALYSIS_FILES);
    assert!(s.files.iter().all(|f| f.global_pid == Some(4242 << 24)));
}

#[test]
fn a_generated_export_gives_every_known_value_and_its_tables_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = export_with_summary(dir.path());
    let tl = nsys::load(&path).unwrap();
    assert!(tl.warnings.is_empty(), "{:?}", tl.warnings);
    check_known_values(&tl.session.summary);
    for table in fx_tables() {
        let source = &tl.session.imports.sources[table];
        assert!(source.rows > 0, "{table}");
        assert_eq!(source.attached, source.rows, "{table}: every row read");
        assert!(!source.skipped.contains_key(NOT_READ), "{table}");
    }
}

/// The tables `nsys_summary` writes.
fn fx_tables() -> [&'static str; 10] {
    [
        "META_DATA_CAPTURE",
        "TARGET_INFO_SYSTEM_ENV",
        "TARGET_INFO_NIC_INFO",
        "TARGET_INFO_CUDA_CONTEXT_INFO",
        "TARGET_INFO_CUDA_STREAM",
        "TARGET_INFO_CUDA_NULL_STREAM",
        "ANALYSIS_DETAILS",
        "ProcessStreams",
        "TARGET_INFO_CUDA_DEVICE",
        "ANALYSIS_FILE",
    ]
}

#[test]
fn odd_values_are_problems_naming_table_and_column_and_are_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = export_with_summary(dir.path());
    fx::write_odd_values(&path).unwrap();
    let tl = nsys::load(&path).unwrap();
    let s = &tl.session.summary;
    let warnings: Vec<String> = tl.warnings.iter().map(|w| w.to_string()).collect();
    let one = |table: &str, what: &str| {
        let hits: Vec<_> = warnings
            .iter()
            .filter(|w| w.contains(table) && w.contains(what))
            .collect();
        assert_eq!(hits.len(), 1, "{table} {what}: {warnings:#?}");
    };
    one(
        "ANALYSIS_DETAILS",
        "1 rows: duration is not an integer (the first: \"long\")",
    );
    one(
        "TARGET_INFO_CUDA_STREAM",
        "2 rows: streamId is not an integer (the first: \"stream 13\")",
    );
    one(
        "TARGET_INFO_SYSTEM_ENV",
        "value of CpuCores is not an integer (the first: \"many\")",
    );
    one(
        "TARGET_INFO_SYSTEM_ENV",
        "value of CpuInfo is not the JSON of its CPUs",
    );
    assert_eq!(s.analysis[0].duration, None);
    assert_eq!(s.analysis[0].start, Some(fx::ANALYSIS.0));
    assert_eq!(s.streams[0].stream_id, None);
    assert_eq!(
        s.streams[0].kind, "Non-blocking stream",
        "the rest of the row is kept"
    );
    assert_eq!(s.cpu.cores, None);
    assert!(s.cpu.logical.is_empty());
    // The rows are still there, as written.
    assert!(
        s.environment
            .system
            .iter()
            .any(|p| p.name == "CpuCores" && p.value == "many")
    );
}

#[test]
fn a_table_that_is_a_view_is_reported_and_read_as_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let (path, counts) = export_with_summary(dir.path());
    let plain = nsys::load(&path).unwrap();
    fx::table_as_view(&path, "CUPTI_ACTIVITY_KIND_KERNEL").unwrap();
    fx::broken_view(&path, "CUPTI_ACTIVITY_KIND_MEMSET").unwrap();
    fx::tool_view(&path, "EXTRAP_KERNEL_COUNT").unwrap();
    let tl = nsys::load(&path).unwrap();
    let about = |table: &str| -> Vec<String> {
        tl.warnings
            .iter()
            .filter(|w| w.to_string().contains(table))
            .map(|w| w.to_string())
            .collect()
    };
    let kernel = about("CUPTI_ACTIVITY_KIND_KERNEL is a view");
    assert_eq!(kernel.len(), 1, "{:#?}", tl.warnings);
    assert!(
        kernel[0].contains("read as the table would be"),
        "{}",
        kernel[0]
    );
    let memset = about("CUPTI_ACTIVITY_KIND_MEMSET is a view");
    assert_eq!(memset.len(), 1, "{:#?}", tl.warnings);
    assert!(
        memset[0].contains("does not read (no such table: main.no_such_table): not read"),
        "{}",
        memset[0]
    );
    assert!(
        about("EXTRAP_KERNEL_COUNT").is_empty(),
        "a tool's own view is no problem"
    );
    assert_eq!(
        tl.session.summary.views,
        vec!["EXTRAP_KERNEL_COUNT".to_owned()]
    );
    // The kernels are read through the view, each as before; the memsets are gone.
    let of = |t: &Timeline, kind: EventKind| -> Vec<(i64, i64, String)> {
        t.events()
            .filter(|e| e.kind == kind)
            .map(|e| (e.start, e.end, t.name(e.name).to_owned()))
            .collect()
    };
    assert_eq!(of(&tl, EventKind::Kernel).len(), counts.kernels as usize);
    assert_eq!(of(&tl, EventKind::Kernel), of(&plain, EventKind::Kernel));
    assert!(counts.memset > 0);
    assert!(of(&tl, EventKind::Memset).is_empty());
    assert_eq!(
        tl.session.imports.sources["CUPTI_ACTIVITY_KIND_KERNEL"].events,
        counts.kernels
    );
}

#[test]
fn timeline_json_has_the_analysis_summary() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = export_with_summary(dir.path());
    let args = [
        OsStr::new("timeline"),
        OsStr::new("--json"),
        path.as_os_str(),
    ];
    let json: serde_json::Value = serde_json::from_str(&crate::common::sightline_ok(args)).unwrap();
    let s = &json["analysis_summary"];
    let p = &s["processes"][0];
    assert_eq!(p["command"], fx::COMMAND);
    assert_eq!(p["command_line"], fx::COMMAND_LINE);
    assert_eq!(
        p["arguments"].as_array().unwrap().len(),
        fx::ARGUMENTS.len()
    );
    assert_eq!(p["working_dir"], fx::WORKING_DIR);
    let vars = s["environment"]["variables"].as_array().unwrap();
    assert!(vars.iter().any(|v| v["source"] == "process 0"
        && v["name"] == "CUDA_VISIBLE_DEVICES"
        && v["value"] == "0,1"));
    assert!(
        vars.iter()
            .any(|v| v["source"] == "target system" && v["name"] == "PMI_RANK")
    );
    assert_eq!(
        s["environment"]["system"].as_array().unwrap().len(),
        fx::SYSTEM.len()
    );
    assert_eq!(s["cpu"]["cores"], 4);
    assert_eq!(s["cpu"]["sockets"], 2);
    assert_eq!(s["nics"][0]["device"], "ConnectX-4");
    assert_eq!(s["streams"][1]["priority"], -5);
    assert_eq!(s["streams"][1]["name"], fx::STREAM_NAME.1);
    assert_eq!(
        s["analysis"][0]["duration"],
        fx::ANALYSIS.1 - fx::ANALYSIS.0
    );
    assert_eq!(s["outputs"][0]["content"], fx::OUTPUT.1);
    assert_eq!(s["cuda_devices"][0]["uuid"], fx::CUDA_DEVICES[0].3);
    assert_eq!(s["cuda_devices"][1]["multiprocessors"], 54);
    assert_eq!(s["files"][0]["file"], fx::ANALYSIS_FILES[0].0);
    assert_eq!(s["files"][0]["content"], fx::ANALYSIS_FILES[0].1);
    assert_eq!(s["export"]["table"], "META_DATA_EXPORT");
    assert_eq!(s["gpus"].as_array().unwrap().len(), 1);
    assert_eq!(s["capture"].as_array().unwrap().len(), fx::CAPTURE.len());
    assert_eq!(
        json["sources"]["META_DATA_CAPTURE"]["skipped"],
        serde_json::json!({})
    );
}

#[test]
fn the_app_shows_the_analysis_summary_tab_and_filters_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = export_with_summary(dir.path());
    let mut h = common::app::harness_sized(vec![path], eframe::egui::vec2(1400.0, 1000.0));
    common::app::step_until(
        &mut h,
        "the timeline to load",
        Duration::from_secs(30),
        |h| {
            h.state()
                .document::<TimelineDoc>(0)
                .is_some_and(|d| d.timeline().is_some() && d.stats().reports.is_some())
        },
    );
    h.run();
    h.get_by_label("Analysis summary").click();
    h.run();
    let doc = |h: &egui_kittest::Harness<'static, sightline::app::SightlineApp>| {
        h.state().document::<TimelineDoc>(0).unwrap().stats().pane
    };
    assert_eq!(doc(&h), Pane::Analysis);
    h.get_by_label(&format!("Process 0: {}", fx::COMMAND_LINE));
    h.get_by_label(fx::COMMAND_LINE);
    h.get_by_label(fx::WORKING_DIR);
    // The CPU's description: in the CPU section and among the system's properties.
    assert_eq!(h.get_all_by_label("Synthetic EPYC 7763").count(), 2);
    let hosts = h.get_all_by_label("synth-node-07").count();
    assert!(hosts >= 1);
    h.get_by_label("CUDA_VISIBLE_DEVICES");
    h.get_by_label("PMI_RANK");
    // The CUDA devices under the GPUs, named by their GPU, and the analysis files.
    h.get_by_label("CUDA devices (2)");
    h.get_by_label(fx::CUDA_DEVICES[0].3);
    h.get_by_label("0: Synthetic GPU 80GB");
    h.get_by_label("Analysis files (2)");
    // The filter keeps the names and values holding its text.
    let filter_box = |h: &egui_kittest::Harness<'static, sightline::app::SightlineApp>| {
        let label = h.get_by_label("Filter").rect();
        h.query_all_by_role(eframe::egui::accesskit::Role::TextInput)
            .filter(|n| {
                let r = n.rect();
                r.min.x >= label.max.x && r.min.y < label.max.y && r.max.y > label.min.y
            })
            .min_by(|a, b| a.rect().min.x.total_cmp(&b.rect().min.x))
            .map(|n| n.rect())
            .expect("the filter's box")
    };
    let rect = filter_box(&h);
    h.query_all_by_role(eframe::egui::accesskit::Role::TextInput)
        .find(|n| n.rect() == rect)
        .unwrap()
        .focus();
    h.run();
    h.query_all_by_role(eframe::egui::accesskit::Role::TextInput)
        .find(|n| n.rect() == rect)
        .unwrap()
        .type_text("visible");
    h.run();
    assert_eq!(
        h.state()
            .document::<TimelineDoc>(0)
            .unwrap()
            .stats()
            .analysis
            .filter,
        "visible"
    );
    h.get_by_label("CUDA_VISIBLE_DEVICES");
    assert!(h.query_by_label("PMI_RANK").is_none());
    assert_eq!(h.query_all_by_label("synth-node-07").count(), hosts - 1);
    assert_eq!(
        h.get_all_by_label("Synthetic EPYC 7763").count(),
        1,
        "only the CPU section"
    );
    assert!(h.query_by_label("Variables of the process 0 (1)").is_some());
}
