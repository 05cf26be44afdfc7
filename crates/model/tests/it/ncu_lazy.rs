//! `Report::open_lazy` against `Report::open`: a report indexed only as far as each question
//! needs gives the answers, orders, warnings and errors of the eagerly indexed one, whatever
//! is asked first (the first result, a later one, the count) and from several threads.

use std::path::{Path, PathBuf};

use prost::Message;

use sightline_model::ncu::{Action, MetricValue, Report};
use sightline_model::proto::nv::profiler::messages as pb;
use sightline_test_support::ncu::synth::{KernelSpec, kernel_message, scalar, session_details};
use sightline_test_support::ncu::writer::ReportWriter;

/// Everything observable of an action, as text.
fn action_text(action: &Action) -> String {
    let names: Vec<&str> = action.metric_names().collect();
    format!(
        "{} {:?} {:?} {names:?} {:?} {:?} {:?} {:?}",
        action.index(),
        action.kind(),
        action.info(),
        action.metrics(),
        action.warnings(),
        action.tool_version(),
        action.process(),
    )
}

/// Everything observable of a report's index, as text.
fn index_text(report: &Report) -> String {
    let sources: Vec<u64> = report.sources().iter().map(|s| s.reference).collect();
    let kinds: Vec<_> = (0..report.num_actions())
        .map(|i| (report.action_kind(i), report.action_size(i)))
        .collect();
    format!(
        "{} {:?} {:?} {:?} {:?} {sources:?} {kinds:?} {:?}",
        report.num_actions(),
        report.warnings(),
        report.strings(),
        report.session(),
        report.processes(),
        report.tool_version(),
    )
}

/// The results of `report` (or why each does not decode), in order.
fn actions_text(report: &Report, count: usize) -> Vec<String> {
    (0..=count)
        .map(|i| match report.action(i) {
            Ok(action) => action_text(&action),
            Err(e) => format!("error {e}"),
        })
        .collect()
}

/// Checks the lazily opened report at `path` against the eager one: first result first,
/// then the count first, then from four threads.
fn assert_lazy_matches(path: &Path) {
    let eager = Report::open(path).unwrap();
    let count = eager.num_actions();
    let expected_actions = actions_text(&eager, count);
    let expected_index = index_text(&eager);

    let lazy = Report::open_lazy(path).unwrap();
    if count > 0 {
        assert_eq!(action_text(&lazy.action(0).unwrap()), expected_actions[0]);
    }
    assert_eq!(actions_text(&lazy, count), expected_actions, "{path:?}");
    assert_eq!(index_text(&lazy), expected_index, "{path:?}");

    let lazy = Report::open_lazy(path).unwrap();
    assert_eq!(lazy.num_actions(), count);
    assert!(lazy.is_indexed());
    assert_eq!(lazy.warnings_found(0), eager.warnings());
    assert_eq!(actions_text(&lazy, count), expected_actions, "{path:?}");

    let lazy = Report::open_lazy(path).unwrap();
    std::thread::scope(|scope| {
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let (lazy, expected) = (&lazy, &expected_actions);
                scope.spawn(move || {
                    for i in (0..=count).rev().skip(t).step_by(4) {
                        let text = match lazy.action(i) {
                            Ok(action) => action_text(&action),
                            Err(e) => format!("error {e}"),
                        };
                        assert_eq!(text, expected[i]);
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
    });
    assert_eq!(index_text(&lazy), expected_index);
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

#[test]
fn every_fixture_and_corpus_report_reads_the_same_lazily() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/ncu/reports");
    let mut paths = Vec::new();
    for dir in [fixtures(), corpus] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        paths.extend(entries.map(|e| e.unwrap().path()).filter(|p| {
            p.extension()
                .is_some_and(|e| e == "ncu-rep" || e == "ncu-repz")
        }));
    }
    assert!(paths.len() >= 10, "{paths:?}");
    for path in paths {
        assert_lazy_matches(&path);
    }
}

/// A kernel with metrics named `names` (interned in the block it is written to).
fn kernel(index: u64, names: &[&str]) -> KernelSpec {
    KernelSpec {
        function: format!("kernel_{index}"),
        demangled: format!("kernel_{index}(float *)"),
        mangled: format!("_Z8kernel_{index}Pf"),
        grid: [64, 1, 1],
        block: [128, 1, 1],
        metrics: names
            .iter()
            .enumerate()
            .map(|(i, n)| {
                (
                    (*n).to_owned(),
                    scalar(MetricValue::Uint64(index * 100 + i as u64)),
                )
            })
            .collect(),
        sections: Vec::new(),
        rule_results: Vec::new(),
        nvtx: None,
        stream: 7,
    }
}

fn version_session(version: &str) -> pb::ReportSessionDetails {
    pb::ReportSessionDetails {
        version_info: vec![pb::VersionInfo {
            provider: "Nsight Compute Target".into(),
            version: version.to_owned(),
        }],
        ..Default::default()
    }
}

/// A report of a session block, then `kernels` blocks of one kernel each (kernel `i` adds
/// a metric name of its own); with `late_version`, the tool version comes in a block after
/// the first kernel's, as real reports write it.
fn report_bytes(kernels: u64, late_version: bool) -> Vec<u8> {
    let mut writer = ReportWriter::new(Vec::new()).unwrap();
    let mut session = session_details();
    if !late_version {
        session.version_info = version_session("2023.3.0.0").version_info;
    }
    writer.session(session);
    writer.flush_block().unwrap();
    for i in 0..kernels {
        let own = format!("own__metric_{i}.sum");
        let message = kernel_message(
            &mut writer,
            &kernel(i, &["gpu__time_duration.sum", &own]),
            i,
        );
        writer.add_result(&message);
        writer.flush_block().unwrap();
        if late_version && i == 0 {
            writer.session(version_session("2023.1.0.0"));
            writer.flush_block().unwrap();
        }
    }
    writer.finish().unwrap()
}

fn write_temp(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn the_first_result_walks_only_the_first_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_temp(dir.path(), "ten.ncu-rep", &report_bytes(10, false));
    let lazy = Report::open_lazy(&path).unwrap();
    assert!(!lazy.is_indexed());
    assert!(lazy.has_action(0));
    let action = lazy.action(0).unwrap();
    assert_eq!(
        action.tool_version().map(|v| v.to_string()),
        Some("2023.3".into())
    );
    assert!(
        !lazy.is_indexed(),
        "the first result and its version need the first blocks"
    );
    assert!(lazy.has_action(8) && !lazy.is_indexed());
    // Walking the last block ends the walk.
    assert!(lazy.has_action(9) && lazy.is_indexed());
    assert!(!lazy.has_action(10));
    assert_lazy_matches(&path);
}

#[test]
fn a_version_written_after_the_first_result_is_read_when_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_temp(dir.path(), "late.ncu-rep", &report_bytes(10, true));
    let lazy = Report::open_lazy(&path).unwrap();
    let action = lazy.action(0).unwrap();
    assert!(!lazy.is_indexed(), "decoding does not need the version");
    assert_eq!(
        action.tool_version().map(|v| v.to_string()),
        Some("2023.1".into())
    );
    assert!(lazy.is_indexed());
    assert_lazy_matches(&path);
}

/// The offset where block `n` (0: the session block) of `bytes` starts.
fn block_offset(bytes: &[u8], n: usize) -> usize {
    let prefixed = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let mut pos = 8 + prefixed(4);
    for _ in 0..n {
        let header_len = prefixed(pos);
        let header = pb::BlockHeader::decode(&bytes[pos + 4..pos + 4 + header_len]).unwrap();
        pos += 4 + header_len + header.payload_size.unwrap_or(0) as usize;
    }
    pos
}

#[test]
fn a_damaged_block_after_good_ones_gives_the_same_results_and_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = report_bytes(12, true);
    // Cut inside the payload of the eighth kernel's block (block 9, after the version block).
    let cut = block_offset(&bytes, 9) + 20;
    let truncated = write_temp(dir.path(), "cut.ncu-rep", &bytes[..cut]);
    // A block header that does not decode after seven kernels; good blocks follow it.
    let mut corrupt = bytes.clone();
    let at = block_offset(&bytes, 9);
    corrupt[at + 4..at + 8].copy_from_slice(&[0xff, 0xff, 0xff, 0xff]);
    let corrupt = write_temp(dir.path(), "corrupt.ncu-rep", &corrupt);
    for path in [&truncated, &corrupt] {
        let eager = Report::open(path).unwrap();
        assert_eq!(eager.num_actions(), 7, "{path:?}");
        assert_eq!(eager.warnings().len(), 1, "{path:?}");
        let lazy = Report::open_lazy(path).unwrap();
        lazy.action(0).unwrap();
        assert!(lazy.warnings_found(0).is_empty(), "not walked that far yet");
        assert!(lazy.has_action(6));
        assert!(!lazy.has_action(7));
        assert_eq!(lazy.warnings_found(0), eager.warnings());
        assert_eq!(
            lazy.action(7).unwrap_err().to_string(),
            eager.action(7).unwrap_err().to_string()
        );
        assert_lazy_matches(path);
    }
}

#[test]
fn a_report_whose_first_block_does_not_read_is_refused_alike() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = report_bytes(3, false);
    let cuts = [
        0,
        3,
        6,
        9,
        block_offset(&bytes, 0) + 2,
        block_offset(&bytes, 1) - 1,
    ];
    for cut in cuts {
        let path = write_temp(dir.path(), "cut.ncu-rep", &bytes[..cut]);
        let eager = Report::open(&path).map(|_| ()).map_err(|e| e.to_string());
        let lazy = Report::open_lazy(&path)
            .map(|_| ())
            .map_err(|e| e.to_string());
        assert!(eager.is_err(), "cut {cut}");
        assert_eq!(lazy, eager, "cut {cut}");
    }
    // Cut right after the session block: readable, without results, with the warning.
    let path = write_temp(dir.path(), "cut.ncu-rep", &bytes[..block_offset(&bytes, 1)]);
    assert_lazy_matches(&path);
    let lazy = Report::open_lazy(&path).unwrap();
    assert!(!lazy.has_action(0));
    assert_eq!(lazy.warnings_found(0).len(), 1);
}
