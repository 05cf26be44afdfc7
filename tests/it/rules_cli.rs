//! `sightline rules`: output shapes, section binding from folders, bad input.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn sightline(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args(args)
        .env("SIGHTLINE_DISABLE_DEPLOYMENT", "1")
        .output()
        .expect("run sightline")
}

/// Runs `sightline ARGS` (which must succeed) and parses its JSON output.
fn sightline_json(args: &[&str]) -> Value {
    let out = sightline(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

fn sample() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/sample.ncu-rep")
        .display()
        .to_string()
}

const RULE: &str = r#"import NvRules

def get_identifier():
    return "Waves"

def get_name():
    return "Wave Count"

def get_section_identifier():
    return "LaunchStats"

def apply(handle):
    ctx = NvRules.get_context(handle)
    action = ctx.range_by_idx(0).action_by_idx(0)
    fe = ctx.frontend()
    waves = action["launch__waves_per_multiprocessor"].value()
    msg = fe.message(NvRules.MsgType.OPTIMIZATION, "{:.2f} waves".format(waves), "Waves")
    fe.speedup(msg, NvRules.IFrontend.SpeedupType_LOCAL, 12.5)
    fe.focus_metric(msg, "launch__waves_per_multiprocessor", waves, NvRules.IFrontend.Severity_SEVERITY_LOW, "info")
"#;

const FAILING: &str = "import NvRules\n\ndef get_identifier():\n    return 'Fails'\n\ndef apply(handle):\n    raise ValueError('bad value')\n";

#[test]
fn json_has_the_golden_rule_results_shape() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Waves.py"), RULE).unwrap();
    std::fs::write(dir.path().join("Fails.py"), FAILING).unwrap();
    let folder = dir.path().display().to_string();
    let json = sightline_json(&[
        "rules",
        &sample(),
        "--rules-folder",
        &folder,
        "--kernel",
        "1",
        "--json",
    ]);
    let kernels = json["kernels"].as_array().unwrap();
    assert_eq!(kernels.len(), 1);
    let kernel = &kernels[0];
    assert_eq!(kernel["index"], 1);
    assert_eq!(kernel["name"], "matmul_tiled");
    let results = kernel["rule_results"].as_array().unwrap();
    assert_eq!(results.len(), 1);
    let r = &results[0];
    assert_eq!(r["rule_identifier"], "Waves");
    assert_eq!(r["name"], "Wave Count");
    assert_eq!(r["section_identifier"], "LaunchStats");
    assert_eq!(r["rule_message"]["title"], "Waves");
    assert_eq!(r["rule_message"]["type"], 2);
    assert_eq!(r["speedup_estimation"]["type"], 1);
    assert_eq!(r["speedup_estimation"]["speedup"], 12.5);
    assert_eq!(
        r["focus_metrics"][0]["name"],
        "launch__waves_per_multiprocessor"
    );
    assert_eq!(r["focus_metrics"][0]["severity"], 1);
    let errors = kernel["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0]["rule"], "Fails");
    assert!(
        errors[0]["message"]
            .as_str()
            .unwrap()
            .contains("ValueError: bad value")
    );

    let text = sightline(&[
        "rules",
        &sample(),
        "--rules-folder",
        &folder,
        "--kernel",
        "1",
    ]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("[1] matmul_tiled"), "{text}");
    assert!(
        text.contains("Waves (Wave Count) OPTIMIZATION Waves:"),
        "{text}"
    );
    assert!(text.contains("estimated speedup (local): 12.50%"), "{text}");
    assert!(text.contains("error in rule Fails"), "{text}");
}

#[test]
fn section_folders_bind_rules_and_are_the_default_rules_folder() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Waves.py"), RULE).unwrap();
    // A section folder without LaunchStats: the bound rule does not run.
    std::fs::write(
        dir.path().join("Other.section"),
        "Identifier: \"Other\"\nDisplayName: \"Other\"\n",
    )
    .unwrap();
    let folder = dir.path().display().to_string();
    let json = sightline_json(&[
        "rules",
        &sample(),
        "--section-folder",
        &folder,
        "--kernel",
        "0",
        "--json",
    ]);
    assert_eq!(
        json["kernels"][0]["rule_results"].as_array().unwrap().len(),
        0
    );
    std::fs::write(
        dir.path().join("Launch.section"),
        "Identifier: \"LaunchStats\"\nDisplayName: \"Launch Statistics\"\n",
    )
    .unwrap();
    let json = sightline_json(&[
        "rules",
        &sample(),
        "--section-folder",
        &folder,
        "--kernel",
        "0",
        "--json",
    ]);
    assert_eq!(
        json["kernels"][0]["rule_results"].as_array().unwrap().len(),
        1
    );
}

#[test]
fn bad_input_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().display().to_string();
    let out = sightline(&[
        "rules",
        &sample(),
        "--rules-folder",
        &folder,
        "--timeout",
        "0",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--timeout"));
    let out = sightline(&[
        "rules",
        &sample(),
        "--rules-folder",
        &folder,
        "--kernel",
        "9",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("kernel 9 does not exist"));
    let out = sightline(&["rules", "/nonexistent.ncu-rep", "--rules-folder", &folder]);
    assert_eq!(out.status.code(), Some(2));
    let missing = dir.path().join("missing").display().to_string();
    let out = sightline(&["rules", &sample(), "--rules-folder", &missing]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read rules folder"));
}

#[test]
fn without_a_folder_the_bundled_rules_run_from_memory() {
    // Deployment is disabled (see `sightline`): no folder, yet the bundled rules run.
    let json = sightline_json(&["rules", &sample(), "--kernel", "0", "--json"]);
    assert!(json.get("load_errors").is_none(), "{json}");
    let kernel = &json["kernels"][0];
    assert_eq!(kernel["errors"].as_array().unwrap().len(), 0, "{kernel}");
    let ids: Vec<&str> = kernel["rule_results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["rule_identifier"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"SightlineBottleneck"), "{ids:?}");
    assert!(ids.contains(&"SightlineOccupancy"), "{ids:?}");
}

#[test]
fn rule_applies_only_the_named_rules() {
    let json = sightline_json(&[
        "rules",
        &sample(),
        "--kernel",
        "0",
        "--rule",
        "SightlineOccupancy",
        "--rule",
        "NoSuchRule",
        "--json",
    ]);
    let kernel = &json["kernels"][0];
    let results = kernel["rule_results"].as_array().unwrap();
    assert!(!results.is_empty());
    assert!(
        results
            .iter()
            .all(|r| r["rule_identifier"] == "SightlineOccupancy"),
        "{results:?}"
    );
    let errors = kernel["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0]["rule"], "NoSuchRule");
}

#[test]
fn a_named_rule_whose_section_is_absent_says_so() {
    // The sample embeds no Memory Workload Analysis section.
    let json = sightline_json(&[
        "rules",
        &sample(),
        "--kernel",
        "0",
        "--rule",
        "SightlineGlobalCoalescing",
        "--json",
    ]);
    let kernel = &json["kernels"][0];
    assert_eq!(kernel["rule_results"].as_array().unwrap().len(), 0);
    let errors = kernel["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0]["rule"], "SightlineGlobalCoalescing");
    assert_eq!(
        errors[0]["message"],
        "not run: its section MemoryWorkloadAnalysis is not present"
    );
}
