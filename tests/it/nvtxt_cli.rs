//! `sightline nvtxt FILE... [--json | --summary]`: output shapes, diagnostics and exit codes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn sightline(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args(args)
        .env("SIGHTLINE_DISABLE_DEPLOYMENT", "1")
        .output()
        .expect("run sightline")
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/nvtxt")
        .join(name)
        .display()
        .to_string()
}

fn write_temp(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn json_has_the_documented_shape() {
    let out = sightline(&["nvtxt", &fixture("static_args.nvtxt"), "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 3);
    assert_eq!(json["display_name"], Value::Null);
    assert_eq!(json["errors"].as_array().unwrap().len(), 1); // the repeated `Time`
    let events = json["events"].as_array().unwrap();
    assert_eq!(events.len(), 12);
    assert_eq!(
        events[0],
        serde_json::json!({"kind": "marker", "time": 2000000100_i64, "pid": 77, "tid": 1,
            "category": 0, "color": "Red", "message": "static message"})
    );
    // The seed's default format: category and payload kept (NVIDIA's importer drops them).
    assert_eq!(
        events[8],
        serde_json::json!({"kind": "range", "start": 2000000000_i64, "end": 2000000900_i64,
            "pid": 5, "tid": 6, "category": 3, "color": "Navy",
            "message": "seed default format", "payload": -1})
    );
    assert_eq!(events[6]["payload"], 42);
    assert_eq!(events[6]["color"], "Orange");
}

#[test]
fn json_push_pop_depth_colors_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_temp(
        &dir,
        "t.nvtxt",
        "SetFileDisplayName, \"My \\\"file\\\"\"\nTimeBase = Manual\n\
         @RangePush, Time, Color, Message\n@RangePop, Time\nRangePush, 1, 0x80FF0000, outer\n\
         RangePush, 2, Nope, \"inner\ttab\"\nRangePop, 3\nMarker, 4\nX = 0009\n",
    );
    let out = sightline(&["nvtxt", path.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(1), "errors give exit code 1");
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["display_name"], "My \\\"file\\\"");
    let events = json["events"].as_array().unwrap();
    assert_eq!(
        events[0],
        serde_json::json!({"kind": "push_pop", "start": 1, "end": 3, "pid": 0, "tid": 0,
            "depth": 0, "category": 0, "color": "0x80FF0000", "message": "outer"})
    );
    assert_eq!(events[1]["depth"], 1);
    assert_eq!(events[1]["color"], "Nope");
    assert_eq!(events[1]["message"], "inner\ttab");
    let errors = json["errors"].as_array().unwrap();
    let got: Vec<(i64, i64, &str, &str)> = errors
        .iter()
        .map(|e| {
            (
                e["line"].as_i64().unwrap(),
                e["column"].as_i64().unwrap(),
                e["severity"].as_str().unwrap(),
                e["class"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (5, 1, "warning", "loading"),  // never popped
            (6, 15, "warning", "parsing"), // unknown colour
            (8, 1, "error", "parsing"),    // Marker has no format
            (9, 5, "error", "lexing"),     // invalid octal
        ]
    );
    assert!(errors[3]["message"].as_str().unwrap().contains("octal"));
}

#[test]
fn text_lists_events_and_diagnostics_go_to_stderr() {
    let out = sightline(&["nvtxt", &fixture("unclosed.nvtxt")]);
    assert!(out.status.success(), "warnings only: exit code 0");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("4 events (1 markers, 3 push/pop ranges, 0 start/end ranges)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("push_pop  4000000010..4000000070 (open) depth 0"),
        "{stdout}"
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("unclosed.nvtxt:6:1: warning: loading: RangePop with no open RangePush"),
        "{stderr}"
    );
    assert!(stderr.contains("unclosed.nvtxt:7:1: warning: loading: RangePush never popped"));
}

#[test]
fn several_files_one_json_line_each() {
    let out = sightline(&[
        "nvtxt",
        &fixture("names.nvtxt"),
        &fixture("relative.nvtxt"),
        "--json",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let docs: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(docs.len(), 2);
    assert_eq!(docs[0]["display_name"], "Worker-Trace");
    assert_eq!(docs[1]["events"].as_array().unwrap().len(), 3);
}

#[test]
fn summary_and_a_missing_file() {
    let out = sightline(&["nvtxt", &fixture("nesting.nvtxt"), "--summary"]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("\"nesting.nvtxt\": 10 events (1 markers, 9 push/pop ranges"),
        "{stdout}"
    );
    let out = sightline(&["nvtxt", "/nonexistent/x.nvtxt"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/x.nvtxt"));
}
