//! Reproductions of format facts that real reports showed (FORMATS.md §1, issue "every real
//! Nsight Compute report opens"): each fixture was written by Sightline's writer
//! (`src/ncu/synth_edge.rs`) and checked once with NVIDIA's reader (`fixtures/verify.sh`,
//! goldens in `fixtures/golden/`). These tests never need `../shared`.

use std::path::Path;
use std::process::Command;

use crate::common::{self, fixtures};
use sightline::ncu::{MetricValue, Report, ToolVersion, ValueKind};
use sightline::section::{
    Entry, Item, KernelDetails, SectionSet, Semantics, evaluate_with, parse_expression,
    resolve_action,
};

fn open(name: &str) -> Report {
    Report::open(fixtures().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

// ---------------------------------------------------------------------------------------------
// Metric names defined by string-only blocks written after the result (a real 2023.3 report).

#[test]
fn names_defined_after_the_result_resolve_against_the_whole_file() {
    let report = open("late_strings.ncu-rep");
    assert!(report.warnings().is_empty(), "{:?}", report.warnings());
    assert_eq!(report.num_actions(), 2);
    for (index, base) in [(0usize, 1000u64), (1, 5000)] {
        let action = report.action(index).expect("decodes");
        assert!(action.warnings().is_empty(), "{:?}", action.warnings());
        // The last three names come from the three string-only blocks after kernel 0.
        for (i, name) in [
            "gpu__time_duration.sum",
            "launch__grid_size",
            "sm__throughput.avg.pct_of_peak_sustained_elapsed",
            "dram__bytes_read.sum",
            "dram__bytes_write.sum",
            "smsp__cycles_active.avg",
        ]
        .iter()
        .enumerate()
        {
            let metric = action
                .metric(name)
                .unwrap_or_else(|| panic!("kernel {index}: {name} is named"));
            assert_eq!(metric.value(), MetricValue::Uint64(base + i as u64 * 111));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Sampler (category 1) metrics and NaN values.

#[test]
fn sampler_metrics_are_doubles_as_nvidias_reader_gives_them() {
    let report = open("sampler_nan.ncu-rep");
    let action = report.action(0).unwrap();
    let metric = |name: &str| {
        action
            .metric(&format!("pmsampling:{name}"))
            .unwrap_or_else(|| panic!("{name}"))
    };
    // (metric, value, instances kept)
    for (name, value, instances) in [
        (
            "dramc__read_throughput.avg.pct_of_peak_sustained_elapsed",
            0.0,
            0,
        ),
        ("gpc__cycles_elapsed.avg.per_second", 0.0, 0),
        ("sm__warps_active.avg.pct_of_peak_sustained_active", 0.0, 3),
        ("smsp__inst_executed.sum", 99.0, 2),
        ("l1tex__throughput.avg.pct_of_peak_sustained_active", 0.0, 0),
        ("lts__throughput.avg.pct_of_peak_sustained_elapsed", 0.0, 0),
        ("sm__cycles_active.avg", 0.0, 0),
        ("gr__cycles_active.sum", 0.0, 0),
    ] {
        let m = metric(name);
        assert_eq!(m.kind(), ValueKind::Double, "{name}");
        assert_eq!(m.value(), MetricValue::Double(value), "{name}");
        assert_eq!(m.num_instances(), instances, "{name}");
    }
    // An empty ordinary metric stays UNKNOWN (value_kinds covers it); a sampler one is 0.0.
    assert_eq!(
        metric("dramc__read_throughput.avg.pct_of_peak_sustained_elapsed").value(),
        MetricValue::Double(0.0)
    );
}

/// The sections embedded in the action's report, as `sightline details` uses them.
fn embedded(action: &sightline::ncu::Action) -> SectionSet {
    SectionSet::from_embedded(action.sections().expect("sections decode"))
}

fn entries(details: &KernelDetails) -> Vec<&Entry> {
    fn walk<'a>(item: &'a Item, out: &mut Vec<&'a Entry>) {
        out.extend(&item.entries);
        item.items.iter().for_each(|i| walk(i, out));
    }
    let mut out = Vec::new();
    for section in &details.sections {
        out.extend(&section.header);
        section.body.iter().for_each(|i| walk(i, &mut out));
    }
    out
}

#[test]
fn nan_values_of_both_signs_read_print_and_sort() {
    let report = open("sampler_nan.ncu-rep");
    let action = report.action(0).unwrap();
    let value = |name: &str| action.metric(name).unwrap().value();
    let bits = |v: MetricValue| match v {
        MetricValue::Double(d) => d,
        other => panic!("{other:?}"),
    };
    let positive = bits(value("sm__throughput.avg.pct_of_peak_sustained_elapsed"));
    let negative = bits(value("dram__throughput.avg.pct_of_peak_sustained_elapsed"));
    assert!(positive.is_nan() && positive.is_sign_positive());
    assert!(
        negative.is_nan() && negative.is_sign_negative(),
        "the sign is read"
    );

    // The dump prints a bare NaN for both signs, as NVIDIA's reader does.
    let text = common::dump_text(&report, &Default::default());
    assert!(text.contains("\"value\": NaN"), "{text}");
    assert!(!text.contains("-NaN") && !text.contains("nan"), "{text}");

    // The Details page shows NaN, formatted.
    let details = resolve_action(&action, &embedded(&action));
    let texts: Vec<(&str, &str)> = entries(&details)
        .iter()
        .map(|e| (e.label.as_str(), e.text.as_str()))
        .collect();
    for label in ["Compute Throughput", "Memory Throughput", "L1 Hit Rate"] {
        let (_, text) = texts
            .iter()
            .find(|(l, _)| *l == label)
            .unwrap_or_else(|| panic!("{label} in {texts:?}"));
        assert_eq!(*text, "NaN %", "{label}");
    }
}

#[test]
fn details_cli_prints_nan_in_every_format() {
    let path = fixtures().join("sampler_nan.ncu-rep");
    for format in [&[][..], &["--json"][..], &["--format", "sightline-csv"][..]] {
        let output = Command::new(env!("CARGO_BIN_EXE_sightline"))
            .arg("details")
            .arg(&path)
            .args(format)
            .output()
            .expect("runs");
        assert!(output.status.success(), "{format:?}: {output:?}");
        let text = String::from_utf8_lossy(&output.stdout);
        assert!(text.contains("NaN %"), "{format:?}: {text}");
    }
    // NVIDIA's CSV prints NaN as C does, unsigned: `nan`.
    let output = Command::new(env!("CARGO_BIN_EXE_sightline"))
        .arg("details")
        .arg(&path)
        .arg("--csv")
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("\"L1 Hit Rate\",\"%\",\"nan\""), "{text}");
}

// ---------------------------------------------------------------------------------------------
// Derived metrics by the rule of the version that wrote the report.

#[test]
fn tool_version_is_read_from_the_session() {
    assert_eq!(
        open("derived_2023_1.ncu-rep").tool_version(),
        Some(ToolVersion {
            year: 2023,
            minor: 1
        })
    );
    let report = open("derived_2023_3.ncu-rep");
    assert_eq!(Semantics::for_report(&report), Semantics::Current);
    assert_eq!(
        Semantics::for_report(&open("derived_2023_1.ncu-rep")),
        Semantics::Legacy
    );
    assert_eq!(
        Semantics::for_action(&report.action(0).unwrap()),
        Semantics::Current
    );
}

/// The value of `name` on the Details page of kernel `index`.
fn details_value(report: &Report, index: usize, name: &str) -> MetricValue {
    let action = report.action(index).unwrap();
    let details = resolve_action(&action, &embedded(&action));
    entries(&details)
        .into_iter()
        .find(|e| e.metric == name)
        .and_then(|e| e.value.clone())
        .unwrap_or_else(|| panic!("{name} on kernel {index}"))
}

#[test]
fn details_derive_metrics_by_the_reports_version() {
    // (fixture, avg threads, n-way conflicts, excessive wavefronts)
    for (name, avg, nway, excessive) in [
        ("derived_2023_1.ncu-rep", 32, 0, 0),
        ("derived_2023_3.ncu-rep", 1504, 3, 1_179_648),
    ] {
        let report = open(name);
        // Kernel 0 stores what Nsight Compute stored; kernel 1 only the operands, so the
        // page evaluates the embedded definitions, and must give the same.
        for kernel in [0, 1] {
            assert_eq!(
                details_value(&report, kernel, "derived__avg_thread_executed"),
                MetricValue::Uint64(avg),
                "{name} kernel {kernel}"
            );
            assert_eq!(
                details_value(&report, kernel, "derived__memory_l1_conflicts_shared_nway"),
                MetricValue::Uint64(nway),
                "{name} kernel {kernel}"
            );
            assert_eq!(
                details_value(
                    &report,
                    kernel,
                    "derived__memory_l1_wavefronts_shared_excessive"
                ),
                MetricValue::Uint64(excessive),
                "{name} kernel {kernel}"
            );
        }
    }
}

#[test]
fn stored_derived_metrics_are_reproduced_with_the_reports_semantics() {
    for name in ["derived_2023_1.ncu-rep", "derived_2023_3.ncu-rep"] {
        let report = open(name);
        let semantics = Semantics::for_report(&report);
        let action = report.action(0).unwrap();
        for section in action.sections().unwrap() {
            for def in section
                .metric_definitions
                .iter()
                .flat_map(|d| &d.metric_definitions)
            {
                let expression = parse_expression(&def.expression).unwrap();
                let ours =
                    evaluate_with(&expression, |n| action.metric(n).cloned(), semantics).unwrap();
                let stored = action.metric(&def.name).unwrap();
                assert_eq!(ours.value(), stored.value(), "{name} {}", def.name);
                assert_eq!(ours.instances, stored.instances, "{name} {}", def.name);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Malformed derived-metric expressions are errors at load, at the expression.

const BAD_EXPRESSION: &str = "Identifier: \"Bad\"\nDisplayName: \"Bad\"\nMetricDefinitions {\n  MetricDefinitions {\n    Name: \"derived__bad\"\n    Expression: \"a * * 2\"\n  }\n}\n";

#[test]
fn a_malformed_expression_fails_the_section_at_its_column() {
    let parsed = sightline::section::parse_section(Path::new("Bad.section"), BAD_EXPRESSION);
    assert!(parsed.value.is_none(), "the file does not load");
    let errors: Vec<String> = parsed.errors().map(ToString::to_string).collect();
    // `Expression: "a * * 2"`: the second `*` is character 5 of the expression, column 22.
    assert_eq!(
        errors,
        [
            "Bad.section:6:22: error: invalid derived-metric expression `a * * 2`: unexpected `*` \
          (expected a metric name, a number or `(`)"
        ]
    );
}

#[test]
fn sections_check_reports_a_malformed_expression() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Bad.section"), BAD_EXPRESSION).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args(["sections", "--check", "--section-folder"])
        .arg(dir.path())
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("Bad.section:6:22: error: invalid derived-metric expression `a * * 2`"),
        "{stderr}"
    );
}
