//! Real reports, truncated and with flipped bytes, and the regressions found on the way.

use super::*;
use sightline_test_support::rng::SplitMix64;

// ---------------------------------------------------------------------------------------------
// Real reports, truncated and with flipped bytes: errors are fine, panics are not.

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/ncu/reports");

/// Whether two decodings of an action hold the same data.
fn same_action(a: &Action, b: &Action) -> bool {
    a.name(NameBase::Function) == b.name(NameBase::Function)
        && a.name(NameBase::Demangled) == b.name(NameBase::Demangled)
        && a.metrics().len() == b.metrics().len()
        && a.metrics()
            .iter()
            .zip(b.metrics())
            .all(|(x, y)| same_metric(x, y))
        && a.section_bytes() == b.section_bytes()
        && a.rule_results() == b.rule_results()
        && a.nvtx() == b.nvtx()
}

/// The offsets at which the blocks of an intact report start, and its end.
fn block_boundaries(data: &[u8]) -> Vec<usize> {
    let frame = |at: usize| -> Option<(usize, usize)> {
        let len = u32::from_le_bytes(data.get(at..at + 4)?.try_into().ok()?) as usize;
        Some((at + 4, at + 4 + len))
    };
    let mut out = Vec::new();
    let Some((_, mut pos)) = frame(4) else {
        return out;
    };
    while let Some((start, end)) = frame(pos) {
        let Some(header) = data
            .get(start..end)
            .and_then(|b| pb::BlockHeader::decode(b).ok())
        else {
            break;
        };
        out.push(pos);
        pos = end + header.payload_size.unwrap_or(0) as usize;
    }
    out.push(pos);
    out
}

/// The same metric, value for value: floating-point values compare by their bits, so that a
/// NaN read twice is the same NaN (`==` says NaN differs from itself; a real H800 report stores
/// ~5,000 NaN values).
fn same_metric(a: &Metric, b: &Metric) -> bool {
    fn same(x: &MetricValue, y: &MetricValue) -> bool {
        match (x, y) {
            (MetricValue::Double(x), MetricValue::Double(y)) => x.to_bits() == y.to_bits(),
            (MetricValue::Float(x), MetricValue::Float(y)) => x.to_bits() == y.to_bits(),
            (x, y) => x == y,
        }
    }
    a.name_id == b.name_id
        && a.category == b.category
        && same(&a.stored, &b.stored)
        && a.instances.len() == b.instances.len()
        && a.instances.iter().zip(&b.instances).all(|(x, y)| {
            same(&x.value, &y.value)
                && match (&x.correlation_id, &y.correlation_id) {
                    (Some(x), Some(y)) => same(x, y),
                    (x, y) => x == y,
                }
        })
}

/// Decodes every action of `report`; each one that decodes to something other than the intact
/// report's action of the same index also goes through its sections and the dump. Errors are
/// fine, panics are not.
fn exercise(report: &Report, intact: &[Action]) {
    for index in 0..report.num_actions() {
        let Ok(action) = report.action(index) else {
            continue;
        };
        if intact.get(index).is_some_and(|a| same_action(a, &action)) {
            continue;
        }
        let _ = action.metrics_by_name().count();
        let _ = action.section_identifiers();
        let _ = action.sections();
        let options = DumpOptions {
            units: true,
            kernel: Some(index),
        };
        if let Err(error) = write_dump(report, &options, std::io::sink()) {
            assert!(error.to_string().contains(": byte "), "{error}");
        }
    }
}

/// Skips a test that needs `../shared`, or fails it under `SIGHTLINE_REQUIRE_SHARED=1` (as the
/// integration tests' `common::skip_shared`; this binary stands alone for its allocator).
fn skip_shared(reason: &str) {
    let required = std::env::var_os("SIGHTLINE_REQUIRE_SHARED").is_some_and(|v| v == "1");
    assert!(
        !required,
        "{reason}: SIGHTLINE_REQUIRE_SHARED=1 requires ../shared beside the repository"
    );
    eprintln!("skipped: {reason}");
}

#[test]
fn corpus_reports_survive_truncation_and_byte_flips() {
    let Ok(entries) = std::fs::read_dir(CORPUS) else {
        skip_shared(&format!("the shared report corpus ({CORPUS}) is absent"));
        return;
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "ncu-rep"))
        .collect();
    paths.sort();
    if paths.is_empty() {
        skip_shared(&format!(
            "no .ncu-rep in the shared report corpus ({CORPUS})"
        ));
        return;
    }
    // The reports one after the other on each core: files are independent, and one thread left
    // the second core idle for the half minute this test takes.
    map_all_on_every_core("damage", &paths, |p| survive_damage(p));
}

/// Cuts and flips `path` in many places: every readable action equals the intact report's, lost
/// actions come with a warning, and what reads dumps.
fn survive_damage(path: &Path) {
    let data = Bytes::from(std::fs::read(path).expect("read a corpus report"));
    let full = Report::from_bytes(path, data.clone()).expect("corpus reports open");
    let intact: Vec<Action> = (0..full.num_actions())
        .map(|i| full.action(i).expect("corpus actions decode"))
        .collect();
    write_dump(&full, &DumpOptions::default(), std::io::sink()).expect("corpus dumps");
    let len = data.len();
    let mut rng = SplitMix64::new(len as u64);
    let boundaries = block_boundaries(&data);

    // ~50 truncations. The blocks before the cut are intact, so every action that is
    // indexed decodes to the intact report's action; lost actions come with a warning.
    let mut cuts: Vec<usize> = (0..40).map(|i| i * len / 40).collect();
    cuts.extend((0..10).map(|_| rng.below(len)));
    for (round, cut) in cuts.into_iter().enumerate() {
        let report = match Report::from_bytes(path, data.slice(..cut)) {
            Ok(report) => report,
            Err(error) => {
                let text = error.to_string();
                assert!(
                    text.starts_with(&format!("{}: byte ", path.display())),
                    "{text}"
                );
                continue;
            }
        };
        let context = format!("{}: cut at {cut}", path.display());
        assert!(report.num_actions() <= intact.len(), "{context}");
        // A cut inside the first block of results leaves no action but the session
        // details: the report opens, and the check below requires a warning for the
        // lost actions (a report is refused only when not even its first block reads).
        for (index, expected) in intact.iter().enumerate().take(report.num_actions()) {
            let action = report
                .action(index)
                .unwrap_or_else(|e| panic!("{context}: action {index}: {e}"));
            assert!(
                same_action(&action, expected),
                "{context}: action {index} differs"
            );
        }
        if report.num_actions() < intact.len() {
            // A cut exactly between two blocks leaves a well-formed shorter report: nothing
            // tells it from a complete one unless no result is left at all, which is
            // always warned about (a real 2025.2 report cut at byte 18,638).
            let undetectable = boundaries.contains(&cut) && report.num_actions() > 0;
            assert!(
                !report.warnings().is_empty() || undetectable,
                "{context}: lost actions, no warning"
            );
        }
        if round % 10 == 0 {
            write_dump(&report, &DumpOptions::default(), std::io::sink())
                .unwrap_or_else(|e| panic!("{context}: the readable part dumps: {e}"));
        }
    }

    // ~50 flipped bits, one at a time; every fifth round also overwrites 8 random bytes.
    for round in 0..50 {
        let mut bytes = data.to_vec();
        let at = rng.below(len);
        bytes[at] ^= 1 << (rng.next_u64() % 8);
        if round % 5 == 0 {
            for _ in 0..8 {
                let at = rng.below(len);
                bytes[at] = rng.next_u64() as u8;
            }
        }
        match Report::from_bytes(path, Bytes::from(bytes)) {
            Ok(report) => exercise(&report, &intact),
            Err(error) => assert!(error.to_string().contains(": byte "), "{error}"),
        }
    }
}

/// A kernel whose metric is NaN, in a report cut inside its second block: the first kernel
/// stays exactly as it was, NaN included (the corpus check compared with `==`, under which NaN
/// differs from itself, and failed on a real H800 report cut at byte 1,044,146).
#[test]
fn a_truncated_report_keeps_a_nan_metric_exactly() {
    let nan_kernel = pb::ProfileResult {
        kernel_function_name: "nan_kernel".to_owned(),
        metric_results: vec![pb::ProfileMetricResult {
            name_id: 0,
            metric_value: Some(pb::ProfileMetricValue {
                double_value: Some(f64::NAN),
                ..Default::default()
            }),
            ..Default::default()
        }],
        ..Default::default()
    };
    let container = Container::new()
        .block(&[METRIC], &[nan_kernel.encode_to_vec()])
        .block(&[], &[kernel("second_kernel", 5678)]);
    let path = Path::new("nan.ncu-rep");
    let full = Report::from_bytes(path, Bytes::from(container.bytes.clone())).unwrap();
    let cut_at = container.payloads[1] + 2;
    let cut = Report::from_bytes(path, Bytes::from(container.bytes[..cut_at].to_vec())).unwrap();
    assert_eq!((full.num_actions(), cut.num_actions()), (2, 1));
    assert!(!cut.warnings().is_empty());
    let (intact, kept) = (full.action(0).unwrap(), cut.action(0).unwrap());
    assert!(matches!(kept.metrics()[0].stored, MetricValue::Double(v) if v.is_nan()));
    assert!(same_action(&kept, &intact));
    // A cut between two blocks that leaves no result at all is warned about: Nsight Compute
    // writes no report without results.
    let late = Container::new()
        .block(&[METRIC], &[])
        .block(&[], &[kernel("late_kernel", 1)]);
    let between = late.blocks[1];
    let cut = Report::from_bytes(path, Bytes::from(late.bytes[..between].to_vec())).unwrap();
    assert_eq!(cut.num_actions(), 0);
    let warning = &cut.warnings()[0];
    assert_eq!(warning.location, Location::Byte(between as u64));
    assert!(
        warning.message.contains("no profile results"),
        "{warning:?}"
    );
    // A different value is still a difference.
    let mut other = kept.metrics()[0].clone();
    other.stored = MetricValue::Double(1.0);
    assert!(!same_metric(&other, &intact.metrics()[0]));
}

// ---------------------------------------------------------------------------------------------
// Regressions: reader bugs found while writing this suite (the fuzzer found none), with their
// inputs in `fuzz/regressions/`. A test of a bug not fixed yet is ignored (the reason says what
// is wrong); remove the `ignore` with the fix.

/// An input of `fuzz/regressions/`.
fn regression(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/regressions")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A report whose only kernel carries `nvtx` and `rule_results`.
fn with_nvtx_and_rules(nvtx: Option<NvtxState>, rule_results: Vec<RuleResult>) -> Container {
    let mut message = kernel_message("k", 0, 1);
    message.nvtx = nvtx;
    message.rule_results = rule_results;
    with_result(message.encode_to_vec())
}

/// A writer that counts bytes and fails past `limit` (so an output explosion fails fast).
struct Bounded {
    written: usize,
    limit: usize,
}

impl std::io::Write for Bounded {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.written += buf.len();
        if self.written > self.limit {
            return Err(std::io::Error::other("output limit exceeded"));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn nvtx_and_rule_builders_dump_as_expected() {
    let nvtx = NvtxState {
        domains: vec![NvtxDomainInfo {
            id: 3,
            name: "mine".to_owned(),
            ..Default::default()
        }],
        ..Default::default()
    };
    let report = open_bytes(&with_nvtx_and_rules(Some(nvtx), vec![rule(1, 1)]).bytes);
    let mut out = Vec::new();
    write_dump(&report, &DumpOptions::default(), &mut out).expect("dump");
    let json: serde_json::Value = serde_json::from_slice(&out).expect("JSON");
    let action = &json["ranges"][0]["actions"][0];
    assert_eq!(action["nvtx"]["3"]["name"], "mine");
    assert_eq!(
        action["rule_results"][0]["rule_message"]["message"],
        "message"
    );
    // The focus metric is stored in an item of its own: NVIDIA's reader lists it on that
    // item's empty-message entry (fixtures/rule_markers.ncu-rep).
    assert_eq!(action["rule_results"][1]["rule_message"]["message"], "");
    assert_eq!(
        action["rule_results"][1]["focus_metrics"][0]["name"],
        METRIC
    );
}

/// A rule result with `messages` messages and `focus` focus metrics, all with message id 0.
fn rule(messages: usize, focus: usize) -> RuleResult {
    let message = RuleResultBodyItem {
        message: Some(RuleResultMessage {
            message: "message".to_owned(),
            id: Some(0),
            ..Default::default()
        }),
        ..Default::default()
    };
    let focus_metric = RuleResultBodyItem {
        focus_metrics: vec![RuleResultFocusMetric {
            message_id: Some(0),
            metric_name: Some(METRIC.to_owned()),
            ..Default::default()
        }],
        ..Default::default()
    };
    let mut items = vec![message; messages];
    items.extend(std::iter::repeat_n(focus_metric, focus));
    RuleResult {
        identifier: "Rule".to_owned(),
        display_name: "A rule".to_owned(),
        body: Some(RuleResultBody { items }),
        ..Default::default()
    }
}

/// Was: `Report::from_bytes` decompressed nested zstd frames recursively, so 90 KB of nested
/// frames overflowed the stack (fixed: one level of compression only).
#[test]
fn nested_zstd_frames_are_not_decompressed_recursively() {
    // A zstd frame holding a zstd frame holding a report: only one level is a .ncu-repz.
    let mut bytes = one_kernel().bytes;
    for _ in 0..3 {
        bytes = zstd::encode_all(&bytes[..], 1).expect("compress");
    }
    let (offset, message) = bytes_error(&bytes);
    assert_eq!(offset, 0);
    assert!(message.contains("NVR"), "{message}");
    // 10,000 nested frames (raw blocks): must fail, not overflow the stack.
    let bytes = regression("nested-zstd-stack-overflow.ncu-repz");
    let (offset, _) = std::thread::Builder::new()
        .stack_size(8 * MIB)
        .spawn(move || bytes_error(&bytes))
        .expect("spawn")
        .join()
        .expect("no panic");
    assert_eq!(offset, 0);
}

#[test]
fn nested_zstd_file_is_refused_like_nested_zstd_bytes() {
    let twice = zstd::encode_all(
        &zstd::encode_all(&one_kernel().bytes[..], 1).expect("compress")[..],
        1,
    )
    .expect("compress");
    let (offset, message) = bytes_error(&twice);
    assert_eq!(offset, 0);
    assert_eq!(file_error("twice.ncu-repz", &twice), (offset, message));
}

/// Was: `.ncu-repz` decompression was unbounded, so 33 KB allocated 2 GiB (fixed: ratio limit).
#[test]
fn ncu_repz_decompression_is_bounded() {
    // 33 KB of zstd that expand to 1 GiB (a report header and zeros): a decompression bomb.
    let bytes = regression("zstd-bomb-1gib.ncu-repz");
    let (result, largest) = largest_allocation_of(|| {
        Report::from_bytes("bomb.ncu-repz", Bytes::from(bytes)).map(|r| r.num_actions())
    });
    let (offset, message) = format_error(
        &result.expect_err("a 30,000x expansion is refused"),
        "bomb.ncu-repz".as_ref(),
    );
    assert_eq!(offset, 0);
    assert!(message.contains("zstd"), "{message}");
    assert!(largest < 1 << 30, "largest allocation {largest} bytes");
}

#[test]
fn many_nvtx_domains_dump_in_linear_time() {
    const DOMAINS: u64 = 40_000;
    let nvtx = NvtxState {
        domains: (0..DOMAINS)
            .map(|id| NvtxDomainInfo {
                id,
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    let report = open_bytes(&with_nvtx_and_rules(Some(nvtx), Vec::new()).bytes);
    let mut out = Vec::new();
    write_dump(&report, &DumpOptions::default(), &mut out).expect("dump");
    let json: serde_json::Value = serde_json::from_slice(&out).expect("JSON");
    let domains = json["ranges"][0]["actions"][0]["nvtx"]
        .as_object()
        .expect("nvtx object");
    assert_eq!(domains.len() as u64, DOMAINS);
    // The saved input dumps too.
    let report = open_bytes(&regression("nvtx-quadratic-domains.ncu-rep"));
    write_dump(&report, &DumpOptions::default(), std::io::sink()).expect("dump");
}

#[test]
fn focus_metrics_shared_by_message_ids_do_not_multiply() {
    const N: usize = 3_000;
    let report = open_bytes(&with_nvtx_and_rules(None, vec![rule(N, N)]).bytes);
    let action = report.action(0).expect("action");
    let messages = sightline::ncu::rule_messages(action.rule_results());
    // One entry per body item, as NVIDIA's reader lists them (fixtures/rule_markers.ncu-rep):
    // the N messages and the N items that hold only a focus metric.
    assert_eq!(messages.len(), 2 * N);
    let focus: usize = messages.iter().map(|m| m.message.focus_metrics.len()).sum();
    assert_eq!(focus, N, "each focus metric is listed once");
    let mut out = Bounded {
        written: 0,
        limit: 64 * MIB,
    };
    write_dump(&report, &DumpOptions::default(), &mut out).expect("the dump stays small");
    let report = open_bytes(&regression("rule-focus-metrics-amplification.ncu-rep"));
    let mut out = Bounded {
        written: 0,
        limit: 64 * MIB,
    };
    write_dump(&report, &DumpOptions::default(), &mut out).expect("the dump stays small");
}

/// Regression (fixed): `Action::decode` sorted metrics by comparing their full name strings,
/// O(n log n) comparisons of up to 120 KB each for these 60,000 metrics named by two 120 KB
/// strings sharing a prefix. Names are now ranked once per string id; the test pins the order.
#[test]
fn metrics_with_long_shared_names_sort_by_name() {
    let report = open_bytes(&regression("metric-name-sort-long-names.ncu-rep"));
    let action = report.action(0).expect("action");
    assert_eq!(action.metrics().len(), 60_000);
    let names: Vec<&str> = action.metric_names().collect();
    assert_eq!(names.len(), 2);
    assert_eq!(names[0], "m".repeat(120_000));
    assert_eq!(names[1], format!("{}x", "m".repeat(120_000)));
    // For a name given several times, the last metric in file order wins.
    let last = action
        .metrics()
        .iter()
        .rposition(|m| m.name_id == 1)
        .expect("a metric of name 1");
    assert!(std::ptr::eq(
        action.metric(names[1]).expect("metric"),
        &action.metrics()[last]
    ));
}

/// Was: the CLI printed an io error twice (`PATH: is a directory...: is a directory...`), as
/// `{:#}` appended the `source` that `ReadError::Io` already displays (fixed).
#[test]
fn cli_prints_io_errors_once() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let output = sightline_dump(dir.path());
    assert_cli_error(
        &output,
        &format!(
            "{}: is a directory, not a report file",
            dir.path().display()
        ),
    );
    let missing = dir.path().join("missing.ncu-rep");
    let output = sightline_dump(&missing);
    let expected = Report::open(&missing).expect_err("missing").to_string();
    assert!(expected.starts_with(&format!("{}: ", missing.display())));
    assert_cli_error(&output, &expected);
}
