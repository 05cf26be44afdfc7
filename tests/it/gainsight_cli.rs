//! `sightline gainsight`: the four output files, `--name`, `--json`, `--params`, warnings on
//! stderr with file and line, and clear errors.

use std::path::{Path, PathBuf};
use std::process::Command;

use sightline::gainsight::FrontendReport;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/gainsight")
        .join(name)
}

fn sightline() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_sightline"));
    command.env("SOURCE_DATE_EPOCH", "1741026021");
    command
}

#[test]
fn writes_the_frontends_four_files_and_a_summary() {
    let dir = tempfile::tempdir().unwrap();
    let output = sightline()
        .args(["gainsight", "--out"])
        .arg(dir.path())
        .arg(fixture("handmade.log"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        stdout.starts_with("demo: 2 kernel(s) from 1 file(s)"),
        "{stdout}"
    );
    assert!(stdout.contains("5nm Silicon"));
    let read =
        |suffix: &str| std::fs::read_to_string(dir.path().join(format!("demo{suffix}"))).unwrap();
    assert_eq!(
        read(".sim_l2.csv"),
        "kernel_id,address,lifetime_cycles,lifetime_ns\n7,8192.00,22500.00,10067.11\n"
    );
    assert_eq!(read(".sim_l1.csv").lines().count(), 5);
    let kernels = read(".sim.csv");
    assert!(kernels.starts_with("Kernel ID,Mangled Names,L1 Lifetime,"));
    assert!(kernels.lines().nth(1).unwrap().starts_with("3,_Z5otherPf,"));
    let json = read(".json");
    assert!(json.starts_with(
        "{\n    \"Name\": \"demo\",\n    \"Date\": \"2025-03-03\",\n    \"Time\": \"18-20-21\",\n"
    ));
    assert!(json.ends_with('}'));
    // No temporary files left behind.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 4);
}

#[test]
fn json_name_and_params() {
    let dir = tempfile::tempdir().unwrap();
    let params = dir.path().join("p.toml");
    std::fs::write(
        &params,
        "[[retention]]\nname = \"Tiny\"\nretention_us = 0.5\n",
    )
    .unwrap();
    let output = sightline()
        .args(["gainsight", "--json", "--name", "run1", "--params"])
        .arg(&params)
        .arg("--out")
        .arg(dir.path())
        .arg(fixture("handmade.log"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    let report = FrontendReport::read("stdout", &stdout).unwrap();
    assert_eq!(report.name, "run1");
    // L2's 10.07 µs lifetime needs floor(10.07 / 0.5) = 20 refreshes of the one cell type.
    assert_eq!(report.refreshes[1], [("Tiny".to_string(), 20.0)]);
    assert!(dir.path().join("run1.sim.csv").exists());
}

#[test]
fn warnings_name_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("w.log");
    std::fs::write(
        &log,
        "-kernel id = 1\nGPGPU-Sim Cycle 5: Load instr from L1D cache at SM 0 bank 0 addr 10 status 2\nGPGPU-Sim Cycle 9: Load instr from L1D cac\n",
    )
    .unwrap();
    let output = sightline()
        .args(["gainsight", "--out"])
        .arg(dir.path())
        .arg(&log)
        .output()
        .unwrap();
    assert!(output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains(&format!(
            "{}:3: incomplete or malformed access line",
            log.display()
        )),
        "{stderr}"
    );
    assert!(stderr.contains("no end-of-kernel statistics"), "{stderr}");
}

#[test]
fn bad_inputs_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.log");
    std::fs::write(&empty, "").unwrap();
    let out = dir.path().join("out");
    let output = sightline()
        .args(["gainsight", "--out"])
        .arg(&out)
        .arg(&empty)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("empty.log") && stderr.contains("empty file"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_dir(&out).unwrap().count(),
        0,
        "partial outputs removed"
    );
    let missing = sightline()
        .args(["gainsight", "/nonexistent/x.log"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    let bad_params = dir.path().join("bad.toml");
    std::fs::write(&bad_params, "clock_mhz = -1.0\n").unwrap();
    let output = sightline()
        .args(["gainsight", "--params"])
        .arg(&bad_params)
        .arg(fixture("handmade.log"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("clock_mhz must be a positive number")
    );
}
