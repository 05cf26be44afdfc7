//! Acceptance: NVIDIA's stock rules, unmodified, reproduce the rule results stored in reports
//! of their version (`sightline rules --json` against the golden `rule_results`).
//!
//! Needs `../shared` beside the repository (NVIDIA's rules and the corpus); skipped with a
//! message when it is absent. The rules are loaded from there, never copied.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn shared() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    let ok = dir.join("reference/ncu/rules").is_dir() && dir.join("corpus/ncu/reports").is_dir();
    if ok {
        Some(dir)
    } else {
        crate::common::skip_shared(
            "../shared (NVIDIA's stock rules and the corpus) not found beside the repository",
        );
        None
    }
}

fn run_rules(report: &Path, rules: &Path) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_sightline"))
        .arg("rules")
        .arg(report)
        .arg("--rules-folder")
        .arg(rules)
        .arg("--json")
        .env("SIGHTLINE_DISABLE_DEPLOYMENT", "1")
        .output()
        .expect("run sightline rules");
    assert!(
        out.status.success(),
        "sightline rules failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

fn golden_rule_results(golden: &Path) -> Vec<Value> {
    let json = common::golden_json(golden);
    json["ranges"][0]["actions"]
        .as_array()
        .expect("actions")
        .iter()
        .map(|a| a["rule_results"].clone())
        .collect()
}

/// A stored warning that an optional metric was missing, where the report now holds that
/// metric: NVIDIA's rule created it as a fallback when the report was collected
/// (`IAction.add_metric`), and Nsight Compute saved rule-created metrics with the report. Any
/// engine re-running the rule on the saved report finds the metric (NVIDIA's reader included: the
/// CPython peer `rules_cpython.py` gives the same result), so this one message cannot be
/// reproduced from the file. Returns the metric name when `entry` is such a message.
fn collection_time_fallback(
    entry: &Value,
    report: &sightline::ncu::Report,
    kernel: usize,
) -> Option<String> {
    let message = entry["rule_message"]["message"].as_str()?;
    let rest = message.strip_prefix("The optional metric ")?;
    let (name, tail) = rest.split_once(' ')?;
    if !tail.starts_with("could not be found.") {
        return None;
    }
    let action = report.action(kernel).ok()?;
    // Rule-created metrics are appended after the collected ones.
    let index = action.metric_index(name)?;
    let trailing = action.metrics().len() - index <= 4;
    trailing.then(|| name.to_owned())
}

/// Compares every kernel's `rule_results` with the golden's, entry by entry, field by field.
fn assert_reproduces(report_stem: &str, rules_version: &str) {
    let Some(shared) = shared() else { return };
    let report = shared
        .join("corpus/ncu/reports")
        .join(format!("{report_stem}.ncu-rep"));
    let golden = shared
        .join("corpus/ncu/golden")
        .join(format!("{report_stem}.json"));
    let rules = shared.join("reference/ncu/rules").join(rules_version);
    let ours = run_rules(&report, &rules);
    let opened = sightline::ncu::Report::open(&report).expect("report");
    let expected = golden_rule_results(&golden);
    let kernels = ours["kernels"].as_array().expect("kernels");
    assert_eq!(kernels.len(), expected.len(), "number of kernels");
    for (k, (kernel, want)) in kernels.iter().zip(&expected).enumerate() {
        let got = kernel["rule_results"].as_array().expect("rule_results");
        let mut want: Vec<Value> = want.as_array().expect("golden rule_results").clone();
        // Drop stored messages about fallback metrics the report itself now contains, when we
        // did not produce them (see `collection_time_fallback`).
        want.retain(|w| {
            let produced = got.iter().any(|g| g == w);
            match collection_time_fallback(w, &opened, k) {
                Some(metric) if !produced => {
                    eprintln!(
                        "kernel {k}: stored message of {} about missing metric {metric} is a collection-time artifact: the report contains the rule-created fallback",
                        w["rule_identifier"]
                    );
                    false
                }
                _ => true,
            }
        });
        let ids = |v: &[Value]| -> Vec<String> {
            v.iter()
                .map(|r| {
                    format!(
                        "{}/{}",
                        r["rule_identifier"].as_str().unwrap_or(""),
                        r["rule_message"]["title"].as_str().unwrap_or("")
                    )
                })
                .collect()
        };
        assert_eq!(
            ids(got),
            ids(&want),
            "kernel {}: rule results differ (errors: {})",
            kernel["index"],
            kernel["errors"]
        );
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(
                g, w,
                "kernel {}: rule {} differs",
                kernel["index"], w["rule_identifier"]
            );
        }
    }
}

#[test]
fn stock_rules_2024_1_1_reproduce_vec_add_full() {
    assert_reproduces("ncu2024.1.1_gtx1660s_vec_add_full", "ncu-2024.1.1");
}

#[test]
fn stock_rules_2022_3_reproduce_cu_vector_add_drv() {
    assert_reproduces("ncu2022.3_rtx3070_CuVectorAddDrv", "ncu-2022.3.0");
}

#[test]
fn stock_rules_2022_3_reproduce_manual_nvtx() {
    assert_reproduces("ncu2022.3_rtx3070_manual_nvtx", "ncu-2022.3.0");
}

#[test]
fn stock_rules_2025_3_1_run_without_errors_on_2025_1() {
    let Some(shared) = shared() else { return };
    let report = shared.join("corpus/ncu/reports/ncu2025.1.0_rtx2060s_ps1_100.ncu-rep");
    let rules = shared.join("reference/ncu/rules/ncu-2025.3.1");
    let ours = run_rules(&report, &rules);
    assert!(
        ours.get("load_errors").is_none(),
        "load errors: {}",
        ours["load_errors"]
    );
    let kernels = ours["kernels"].as_array().expect("kernels");
    assert!(!kernels.is_empty());
    let mut produced = 0;
    for kernel in kernels {
        let errors = kernel["errors"].as_array().expect("errors");
        assert!(
            errors.is_empty(),
            "kernel {}: {}",
            kernel["index"],
            serde_json::to_string_pretty(errors).unwrap()
        );
        produced += kernel["rule_results"].as_array().map_or(0, Vec::len);
    }
    assert!(produced > 0, "the 2025.3.1 rules produced no result at all");
}

/// `IRange.actions_by_nvtx` on the real report behind FORMATS.md's vectors (recorded from
/// NVIDIA's reader on `manual_nvtx`): each rule run sees one action and answers `[0]` or `[]`.
#[test]
fn actions_by_nvtx_matches_nvidias_vectors_on_manual_nvtx() {
    let Some(shared) = shared() else { return };
    let report = shared.join("corpus/ncu/reports/ncu2022.3_rtx3070_manual_nvtx.ncu-rep");
    let cases = sightline::rules::nvtx_filter::REFERENCE_VECTORS;
    let py_list = |items: &[&str]| -> String {
        let quoted: Vec<String> = items.iter().map(|s| format!("{s:?}")).collect();
        format!("[{}]", quoted.join(", "))
    };
    let calls: Vec<String> = cases
        .iter()
        .map(|(inc, exc, _)| format!("rng.actions_by_nvtx({}, {})", py_list(inc), py_list(exc)))
        .collect();
    let rule = format!(
        "import NvRules\n\ndef get_identifier():\n    return 'Nvtx'\n\ndef apply(handle):\n    rng = NvRules.get_context(handle).range_by_idx(0)\n    found = [{}]\n    NvRules.get_context(handle).frontend().message(repr([bool(f) for f in found]))\n",
        calls.join(", ")
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Nvtx.py"), rule).unwrap();
    let ours = run_rules(&report, dir.path());
    let kernels = ours["kernels"].as_array().unwrap();
    assert_eq!(kernels.len(), 3);
    for (action, kernel) in kernels.iter().enumerate() {
        assert_eq!(
            kernel["errors"].as_array().unwrap().len(),
            0,
            "{}",
            kernel["errors"]
        );
        let text = kernel["rule_results"][0]["rule_message"]["message"]
            .as_str()
            .unwrap()
            .to_owned();
        let got: Vec<bool> = text
            .trim_matches(|c| c == '[' || c == ']')
            .split(", ")
            .map(|b| b == "True")
            .collect();
        for ((inc, exc, expected), selected) in cases.iter().zip(got) {
            assert_eq!(
                selected,
                expected.contains(&action),
                "action {action}: includes {inc:?} excludes {exc:?}"
            );
        }
    }
}
