//! The project's own fixtures (written by `cargo run --example make_fixtures`) dump exactly as
//! NVIDIA's reader read them when they were made (`fixtures/golden/`), and survive a
//! read → write → read round trip unchanged. These tests never need `../shared`.

use crate::common::{self, dump_text, first_difference, fixtures, parse_without_units};
use sightline::ncu::{DumpOptions, MetricValue, NameBase, Report, ValueKind, WorkloadKind};
use sightline_test_support::ncu::writer::write_report;

/// Every fixture the generator writes.
const FIXTURES: &[&str] = sightline_test_support::ncu::fixtures::FIXTURE_NAMES;

#[test]
fn fixtures_match_the_official_readers_dump() {
    for name in FIXTURES {
        let report = Report::open(fixtures().join(name)).unwrap();
        let ours = parse_without_units(&dump_text(&report, &DumpOptions::default()));
        let golden_text =
            std::fs::read_to_string(fixtures().join("golden").join(format!("{name}.json")))
                .unwrap();
        let golden = parse_without_units(&golden_text);
        assert_eq!(first_difference(&ours, &golden, ""), None, "{name}");
    }
}

#[test]
fn round_trip_read_write_read_is_identical() {
    let mut paths: Vec<_> = FIXTURES.iter().map(|n| fixtures().join(n)).collect();
    paths.extend(common::corpus_pairs().into_iter().map(|(report, _)| report));
    for path in paths {
        let first = Report::open(&path).unwrap();
        let mut bytes = Vec::new();
        write_report(&first, &mut bytes).unwrap();
        let second = Report::from_bytes(&path, bytes.into()).unwrap();
        assert_eq!(second.num_actions(), first.num_actions());
        assert_eq!(second.session(), first.session(), "{}", path.display());
        assert_eq!(second.sources().len(), first.sources().len());
        for i in 0..first.num_actions() {
            let (a, b) = (first.action(i).unwrap(), second.action(i).unwrap());
            let names_a: Vec<_> = a.metrics().iter().map(|m| a.metric_name(m)).collect();
            let names_b: Vec<_> = b.metrics().iter().map(|m| b.metric_name(m)).collect();
            assert_eq!(names_a, names_b);
            // Compared through their debug text: NaN values (sampler_nan) are not equal to
            // themselves.
            let strip = |m: &sightline::ncu::Metric| {
                format!("{:?}", (m.stored.clone(), m.instances.clone(), m.category))
            };
            assert!(
                a.metrics()
                    .iter()
                    .map(strip)
                    .eq(b.metrics().iter().map(strip))
            );
            assert_eq!(a.section_bytes(), b.section_bytes());
            assert_eq!(a.rule_results(), b.rule_results());
            assert_eq!(a.nvtx(), b.nvtx());
        }
        let options = DumpOptions::default();
        assert_eq!(
            dump_text(&first, &options),
            dump_text(&second, &options),
            "{}",
            path.display()
        );
    }
}

#[test]
fn value_kinds_fixture_reads_every_kind() {
    let report = Report::open(fixtures().join("value_kinds.ncu-rep")).unwrap();
    let action = report.action(0).unwrap();
    let kind = |n: &str| action.metric(n).unwrap().kind();
    assert_eq!(kind("kind__string"), ValueKind::String);
    assert_eq!(kind("kind__float"), ValueKind::Float);
    assert_eq!(kind("kind__double"), ValueKind::Double);
    assert_eq!(kind("kind__uint32"), ValueKind::Uint32);
    assert_eq!(kind("kind__uint64"), ValueKind::Uint64);
    assert_eq!(kind("empty__metric"), ValueKind::Unknown);
    assert_eq!(
        action.metric("kind__uint64").unwrap().value(),
        MetricValue::Uint64(u64::MAX)
    );
    let list = action.metric("list__float").unwrap();
    assert_eq!(list.value(), MetricValue::Float(0.0));
    assert_eq!(list.num_instances(), 2);
    assert!(list.has_correlation_ids());
    assert!(
        !action
            .metric("list__uint64_nocorr")
            .unwrap()
            .has_correlation_ids()
    );
    assert_eq!(
        action.metric("list__string").unwrap().value(),
        MetricValue::None
    );
    assert_eq!(action.name(NameBase::Function), "kinds");
    assert_eq!(
        action.name(NameBase::Demangled),
        "kinds_c",
        "demangled falls back to mangled"
    );
}

#[test]
fn multi_block_fixture_merges_session_and_strings() {
    let report = Report::open(fixtures().join("multi_block.ncu-rep")).unwrap();
    assert_eq!(report.num_actions(), 4);
    assert_eq!(report.processes().len(), 2);
    let session = report.session();
    assert_eq!(session.process_id, Some(31337));
    assert_eq!(
        session.device_attributes.len(),
        1,
        "device attributes from block 1"
    );
    assert_eq!(session.version_info.len(), 1, "version info from block 2");
    let last = report.action(3).unwrap();
    assert_eq!(last.kind(), WorkloadKind::Kernel);
    assert_eq!(last.process(), Some(1));
    assert!(last.metric("block2__only_metric_1.sum").is_some());
    assert_eq!(last.compute_capability(), Some(86));
    assert_eq!(last.grid_size(), Some([128, 128, 1]));
}

#[test]
fn sample_fixture_carries_sections_rules_and_nvtx() {
    let report = Report::open(fixtures().join("sample.ncu-rep")).unwrap();
    let action = report.action(1).unwrap();
    assert_eq!(
        action.section_identifiers().unwrap(),
        vec!["SpeedOfLight", "LaunchStats", "Occupancy"]
    );
    assert_eq!(
        action.sections().unwrap()[0].display_name,
        "GPU Speed Of Light Throughput"
    );
    assert_eq!(action.rule_results().len(), 3);
    let nvtx = action.nvtx().unwrap();
    assert_eq!(nvtx.domains.len(), 2);
    assert_eq!(action.block_size(), Some([32, 32, 1]));
    assert_eq!(action.stream_id(), Some(7));
}

#[test]
fn committed_fixtures_are_what_the_generator_writes() {
    for name in sightline_test_support::ncu::fixtures::FIXTURE_NAMES {
        let committed = std::fs::read(fixtures().join(name)).unwrap();
        let generated = sightline_test_support::ncu::fixtures::fixture_bytes(name).unwrap();
        assert!(
            committed == generated,
            "fixtures/{name} is stale: run `cargo run --example make_fixtures` and re-verify"
        );
    }
}
