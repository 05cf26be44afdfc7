//! The `sightline` command line: exit codes, output shapes.

use std::process::{Command, Output};

use crate::common::fixtures;
use serde_json::Value;

fn sightline(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args(args)
        .env("SIGHTLINE_DISABLE_DEPLOYMENT", "1")
        .output()
        .expect("run sightline")
}

fn sample() -> String {
    fixtures().join("sample.ncu-rep").display().to_string()
}

#[test]
fn details_json_has_the_documented_shape() {
    let out = sightline(&["details", &sample(), "--kernel", "1", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let kernels = json["kernels"].as_array().unwrap();
    assert_eq!(kernels.len(), 1);
    assert_eq!(kernels[0]["index"], 1);
    assert_eq!(kernels[0]["name"], "matmul_tiled");
    let sections = kernels[0]["sections"].as_array().unwrap();
    let ids: Vec<&str> = sections
        .iter()
        .map(|s| s["identifier"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        ["SpeedOfLight", "LaunchStats", "Occupancy"],
        "the report's embedded sections"
    );
    let entry = &sections[0]["header"][1];
    for key in ["label", "metric", "value", "unit", "text"] {
        assert!(entry.get(key).is_some(), "entry lacks {key}: {entry}");
    }
    assert_eq!(entry["metric"], "gpu__time_duration.sum");
    assert_eq!(entry["unit"], "ns");
    let body = &sections[2]["body"][0];
    assert_eq!(body["kind"], "table");
    assert!(body["items"].as_array().unwrap().len() == 2);
}

#[test]
fn details_text_and_csv() {
    let out = sightline(&["details", &sample(), "--kernel", "0"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("[0] vector_add\n"), "{text}");
    assert!(text.contains("Section: GPU Speed Of Light Throughput (SpeedOfLight)"));
    let out = sightline(&["details", &sample(), "--format", "sightline-csv"]);
    let csv = String::from_utf8(out.stdout).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("kernel,kernel_name,section,item,label,metric,value,unit,text")
    );
    assert!(lines.any(|l| l.starts_with("3,transpose_naive,Occupancy,")));
}

#[test]
fn details_with_bundled_sections_and_bad_kernel_index() {
    let dir = env!("CARGO_MANIFEST_DIR").to_owned() + "/sections";
    let out = sightline(&[
        "details",
        &sample(),
        "--kernel",
        "0",
        "--section-folder",
        &dir,
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(json["kernels"][0]["sections"].as_array().unwrap().len() >= 10);
    let out = sightline(&["details", &sample(), "--kernel", "9"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no kernel 9"));
}

#[test]
fn sections_lists_and_checks() {
    let out = sightline(&["sections"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("identifier"), "{text}");
    assert!(text.contains("SpeedOfLight"));
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Bad.section"),
        "Identifier: \"Bad\"\nDisplayName: \"Bad\"\nOrder: \"x\"\n",
    )
    .unwrap();
    let folder = dir.path().display().to_string();
    let out = sightline(&["sections", "--section-folder", &folder, "--check"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("Bad.section:3:8: error:"), "{stderr}");
    let out = sightline(&["sections", "--section-folder", &folder]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "without --check a failed file is reported, not fatal"
    );
}

#[test]
fn dump_of_a_fixture_is_the_official_readers_text() {
    let out = sightline(&["dump", &sample()]);
    assert!(out.status.success());
    let golden = std::fs::read_to_string(fixtures().join("golden/sample.ncu-rep.json")).unwrap();
    let ours = String::from_utf8(out.stdout).unwrap();
    let strip = |t: &str| {
        t.lines()
            .filter(|l| !l.trim_start().starts_with("\"unit\": "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&ours), strip(&golden));
}

/// `sightline --version`: the package version, then the commit in parentheses: its short hash
/// (with `-dirty` when built from a changed tree) and date, the same as `git rev-parse` gives
/// here when this is a git work tree, else `unknown` or what `SIGHTLINE_COMMIT` said at build.
#[test]
fn version_names_the_package_version_and_the_commit() {
    let out = sightline(&["--version"]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let prefix = format!("sightline {} (", env!("CARGO_PKG_VERSION"));
    let commit = text
        .strip_prefix(&prefix)
        .and_then(|rest| rest.strip_suffix(")\n"))
        .unwrap_or_else(|| panic!("not `{prefix}COMMIT)`: {text:?}"));
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(env!("CARGO_MANIFEST_DIR"))
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8(o.stdout).unwrap().trim().to_owned())
    };
    let top = git(&["rev-parse", "--show-toplevel"]).map(std::path::PathBuf::from);
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    if top.is_some_and(|t| t.canonicalize().unwrap() == manifest.canonicalize().unwrap()) {
        let (hash, date) = commit.split_once(' ').expect("hash and date");
        let head = git(&["rev-parse", "--short=7", "HEAD"]).unwrap();
        assert_eq!(hash.trim_end_matches("-dirty"), head, "{text:?}");
        assert_eq!(date, git(&["log", "-1", "--format=%cs"]).unwrap());
    } else {
        assert!(!commit.is_empty(), "{text:?}");
    }
}
