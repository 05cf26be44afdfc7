//! `sightline stats` and `sightline timeline` on the generated fixture: CSV byte-equal to
//! NVIDIA's output, JSON shapes, event lines, and clear errors.

use std::path::PathBuf;
use std::process::Command;

fn sightline() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sightline"))
}

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/nsys/synth_2k.sqlite")
}

fn stdout_of(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{e}"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn stats_csv_is_byte_compatible_with_nsys() {
    for report in [
        "cuda_gpu_kern_sum",
        "cuda_api_sum",
        "nvtx_sum",
        "cuda_gpu_mem_size_sum",
    ] {
        let got = stdout_of(
            sightline()
                .args(["stats", "--format", "csv", "--report", report])
                .arg(fixture()),
        );
        let golden = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join(format!("fixtures/nsys/golden/{report}.csv"));
        let expected = std::fs::read_to_string(&golden).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(got, expected, "{report}");
    }
}

#[test]
fn stats_json_and_output_files() {
    let got = stdout_of(
        sightline()
            .args([
                "stats",
                "--format",
                "json",
                "--report",
                "cuda_api_sum,osrt_sum",
            ])
            .arg(fixture()),
    );
    let v: serde_json::Value = serde_json::from_str(&got).unwrap_or_else(|e| panic!("{e}: {got}"));
    let reports = v["reports"].as_array().cloned().unwrap_or_default();
    assert_eq!(reports.len(), 2);
    assert_eq!(reports[0]["report"], "cuda_api_sum");
    let first = &reports[0]["rows"][0];
    assert_eq!(first["Name"], "cudaLaunchKernel");
    assert!(first["Num Calls"].is_u64() && first["Avg (ns)"].is_f64());
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let prefix = dir.path().join("r");
    stdout_of(
        sightline()
            .args(["stats", "--report", "cuda_gpu_kern_sum", "--output"])
            .arg(&prefix)
            .arg(fixture()),
    );
    let written = std::fs::read_to_string(dir.path().join("r_cuda_gpu_kern_sum.csv"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(written.starts_with("Time (%),Total Time (ns),Instances,"));
}

#[test]
fn timeline_tree_json_and_events() {
    let text = stdout_of(sightline().arg("timeline").arg(fixture()));
    assert!(
        text.contains("Stream 7 [") && text.contains("CUDA API [") && text.contains("NVTX ["),
        "{text}"
    );
    let json = stdout_of(sightline().args(["timeline", "--json"]).arg(fixture()));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}"));
    let events = v["events"].as_u64().unwrap_or(0);
    assert_eq!(v["counts"]["kernel"], 606);
    assert_eq!(v["tracks"][0]["events"].as_u64(), Some(events));
    let lines = stdout_of(sightline().args(["timeline", "--events"]).arg(fixture()));
    assert_eq!(lines.lines().count() as u64, events);
    let mut kernels = 0;
    for line in lines.lines() {
        let e: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|err| panic!("{err}: {line}"));
        for key in ["track", "kind", "name", "start", "end", "correlation"] {
            assert!(e.get(key).is_some(), "{key} missing in {line}");
        }
        if e["kind"] == "kernel" {
            kernels += 1;
            assert!(e["correlation"].is_u64());
        }
    }
    assert_eq!(kernels, 606);
}

#[test]
fn errors_name_the_file() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let bad = dir.path().join("bad.sqlite");
    std::fs::write(&bad, "not a database at all, just text ".repeat(100))
        .unwrap_or_else(|e| panic!("{e}"));
    for sub in ["stats", "timeline"] {
        let out = sightline()
            .arg(sub)
            .arg(&bad)
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("bad.sqlite") && !err.contains("panicked"),
            "{err}"
        );
    }
    let out = sightline()
        .args(["stats", "--report", "nope"])
        .arg(fixture())
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!out.status.success());
}

/// The version where the export holds it, "unknown" where it does not: an export without
/// `EXPORT_SCHEMA_VERSION` gives the schema from its parts, one without any version table (the
/// oldest layout, as a real pre-2022 export of the corpus) says the version is unknown.
#[test]
fn timeline_text_gives_the_version_or_says_it_is_unknown() {
    let dir = tempfile::tempdir().unwrap();
    let export = dir.path().join("versions.sqlite");
    std::fs::copy(fixture(), &export).unwrap();
    let conn = rusqlite::Connection::open(&export).unwrap();
    let text = || stdout_of(sightline().arg("timeline").arg(&export));
    assert!(
        text().contains("written by Nsight Systems 2024.5.1.113 (schema 3.13.2)"),
        "{}",
        text()
    );
    conn.execute(
        "DELETE FROM META_DATA_EXPORT WHERE name IN ('EXPORT_SCHEMA_VERSION', 'EXPORT_PRODUCT_VERSION')",
        [],
    )
    .unwrap();
    assert!(
        text().contains("written by Nsight Systems of unknown version (schema 3.13.2)"),
        "{}",
        text()
    );
    conn.execute("DROP TABLE META_DATA_EXPORT", []).unwrap();
    let out = text();
    assert!(
        out.contains(
            "written by Nsight Systems of unknown version (the export has no version table)"
        ),
        "{out}"
    );
    let json = stdout_of(sightline().args(["timeline", "--json"]).arg(&export));
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(json["session"]["product_version"].is_null());
    assert!(json["session"]["schema_version"].is_null());
}
