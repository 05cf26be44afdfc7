//! Every corpus report dumps exactly as NVIDIA's official reader reads it (the golden JSONs
//! in `../shared/corpus/ncu/golden`, made with ncu-oracle's `dump.py --units`): every metric
//! value, kind, instance, correlation id, name, NVTX range, section id and stored rule result.
//! Units are compared separately (`units_golden.rs`).

use crate::common::{self, corpus_pairs, dump_text, first_difference, parse_without_units};
use serde_json::Value;
use sightline::ncu::{DumpOptions, Report};

#[test]
fn every_corpus_report_matches_its_golden_dump() {
    for (report_path, golden_path) in corpus_pairs() {
        let report = Report::open(&report_path).expect("corpus report opens");
        assert!(
            report.warnings().is_empty(),
            "{}: {:?}",
            report_path.display(),
            report.warnings()
        );
        let ours = parse_without_units(&dump_text(&report, &DumpOptions::default()));
        let golden = parse_without_units(&std::fs::read_to_string(&golden_path).unwrap());
        if let Some(diff) = first_difference(&ours, &golden, "") {
            panic!("{}: {diff}", report_path.display());
        }
        let actions = golden["ranges"][0]["actions"].as_array().unwrap().len();
        eprintln!("{}: {actions} action(s) equal", report_path.display());
    }
}

#[test]
fn single_kernel_dump_equals_that_action_of_the_golden() {
    for (report_path, golden_path) in corpus_pairs() {
        let report = Report::open(&report_path).unwrap();
        let golden = parse_without_units(&std::fs::read_to_string(&golden_path).unwrap());
        let actions = golden["ranges"][0]["actions"].as_array().unwrap();
        for index in [0, actions.len() - 1] {
            let options = DumpOptions {
                kernel: Some(index),
                ..Default::default()
            };
            let ours = parse_without_units(&dump_text(&report, &options));
            let expected = serde_json::json!({"ranges": [{"actions": [actions[index].clone()]}]});
            assert_eq!(
                first_difference(&ours, &expected, ""),
                None,
                "{} --kernel {index}",
                report_path.display()
            );
        }
        // A kernel index past the end keeps nothing, as dump.py does.
        let options = DumpOptions {
            kernel: Some(actions.len()),
            ..Default::default()
        };
        let ours = parse_without_units(&dump_text(&report, &options));
        assert_eq!(ours["ranges"][0]["actions"], Value::Array(vec![]));
    }
}

#[test]
fn model_accessors_agree_with_the_golden() {
    for (report_path, golden_path) in corpus_pairs() {
        let report = Report::open(&report_path).unwrap();
        let golden = common::golden_json(&golden_path);
        for (index, expected) in golden["ranges"][0]["actions"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
        {
            let action = report.action(index).unwrap();
            let metrics = expected["metrics"].as_object().unwrap();
            assert_eq!(action.metric_names().count(), metrics.len());
            for (name, m) in metrics {
                let metric = action
                    .metric(name)
                    .unwrap_or_else(|| panic!("metric {name} missing"));
                assert_eq!(metric.kind().name(), m["kind"].as_str().unwrap(), "{name}");
            }
            assert!(action.metric("no__such_metric.sum").is_none());
            if let Some(cc) = action.compute_capability() {
                let major = metrics["device__attribute_compute_capability_major"]["value"]
                    .as_u64()
                    .unwrap();
                assert_eq!(u64::from(cc) / 10, major);
            }
        }
    }
}

/// The dump is the official reader's text byte for byte (same layout, escapes and float
/// spellings); only the `"unit"` lines may differ, since units are inferred.
#[test]
fn dump_text_equals_the_golden_text_except_units() {
    for (report_path, golden_path) in corpus_pairs() {
        let report = Report::open(&report_path).unwrap();
        let options = DumpOptions {
            units: true,
            ..Default::default()
        };
        let ours = dump_text(&report, &options);
        let golden = std::fs::read_to_string(&golden_path).unwrap();
        let (ours_lines, golden_lines): (Vec<_>, Vec<_>) =
            (ours.lines().collect(), golden.lines().collect());
        assert_eq!(
            ours_lines.len(),
            golden_lines.len(),
            "{}",
            report_path.display()
        );
        for (n, (a, b)) in ours_lines.iter().zip(&golden_lines).enumerate() {
            let is_unit = |l: &str| l.trim_start().starts_with("\"unit\": ");
            if is_unit(a) && is_unit(b) {
                continue;
            }
            assert_eq!(a, b, "{} line {}", report_path.display(), n + 1);
        }
    }
}

/// NVIDIA's reader writes JSON with Python's `json` module: NaN and the infinities as bare
/// words (a real H800 report stores ~5,000 NaN metrics). The goldens are read with them, words
/// inside strings are left alone, and both sides of a comparison spell them the same.
#[test]
fn goldens_are_read_with_pythons_nan_and_infinities() {
    let text =
        r#"{"a": NaN, "b": [Infinity, -Infinity, -1.5e-3], "c": "NaN \" Infinity", "NaN": 1}"#;
    let value = common::python_json(text).expect("Python's JSON reads");
    assert!(common::json_f64(&value["a"]).is_some_and(f64::is_nan));
    assert_eq!(common::json_f64(&value["b"][0]), Some(f64::INFINITY));
    assert_eq!(common::json_f64(&value["b"][1]), Some(f64::NEG_INFINITY));
    assert_eq!(common::json_f64(&value["b"][2]), Some(-1.5e-3));
    assert_eq!(value["c"], "NaN \" Infinity");
    assert_eq!(value["NaN"], 1);
    assert_eq!(common::json_of_f64(f64::NAN), value["a"]);
    assert_eq!(common::json_of_f64(f64::NEG_INFINITY), value["b"][1]);
    let report = Report::open(common::fixtures().join("sampler_nan.ncu-rep")).unwrap();
    let dumped = parse_without_units(&dump_text(&report, &DumpOptions::default()));
    let golden = common::golden_json(&common::fixtures().join("golden/sampler_nan.ncu-rep.json"));
    let mut golden = golden;
    common::strip_units(&mut golden);
    assert_eq!(first_difference(&dumped, &golden, ""), None);
}
