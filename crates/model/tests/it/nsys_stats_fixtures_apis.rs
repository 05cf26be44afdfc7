//! The API, marker, MPI, network and WDDM reports of `nsys stats` on exports made for them equal
//! NVIDIA's output: every line of `fixtures/nsys/reports/apis/<name>/STATUS.tsv` (an `ok`
//! report's CSV byte for byte, `<report>@<option>=<value>` lines run with that option,
//! `no-rows` an empty table, `SKIPPED` the same message) for the exports this file writes
//! (`<name>.sqlite`) and for `fixtures/nsys/families.sqlite` (`families/`).
//!
//! The exports are written by [`write_export`] (`nsys_apis_exports/`) in the tables and columns of an nsys 2023.4
//! export; `cargo test -p sightline-model --test nsys_stats_fixtures_apis -- --ignored` rewrites
//! them (then rerun the oracle as `fixtures/nsys/reports/apis/README.md` says).

use std::path::{Path, PathBuf};

use rusqlite::Connection;
use sightline_model::timeline::nsys::ExportDb;
use sightline_model::timeline::nsys::stats::{self, ReportOutcome};

use crate::nsys_apis_exports::write_export;

/// The reports these fixtures check.
const REPORTS: &[&str] = &[
    "openacc_sum",
    "openmp_sum",
    "mpi_event_trace",
    "network_congestion",
    "dx11_pix_sum",
    "dx12_gpu_marker_sum",
    "dx12_pix_sum",
    "nvvideo_api_sum",
    "opengl_khr_gpu_range_sum",
    "opengl_khr_range_sum",
    "vulkan_api_sum",
    "vulkan_api_trace",
    "vulkan_gpu_marker_sum",
    "vulkan_marker_sum",
    "wddm_queue_sum",
];

/// The exports this file writes.
const EXPORTS: &[&str] = &[
    "graphics",
    "runtimes",
    "wddm",
    "network",
    "network_ib",
    "empty",
];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/nsys")
}

/// Compares Sightline with every line of `<dir>/STATUS.tsv` about [`REPORTS`].
fn check(export: &Path, dir: &Path, failures: &mut Vec<String>) -> usize {
    let status = std::fs::read_to_string(dir.join("STATUS.tsv"))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let db = ExportDb::open(export).unwrap_or_else(|e| panic!("{e}"));
    let shown = format!(
        "inputs/{}",
        export.file_name().unwrap_or_default().to_string_lossy()
    );
    let mut checked = 0;
    for line in status.lines().filter(|l| !l.starts_with('#')) {
        let mut cols = line.split('\t');
        let (Some(name), Some(state)) = (cols.next(), cols.next()) else {
            continue;
        };
        let request = name.replace('@', ":");
        if !REPORTS.contains(&request.split(':').next().unwrap_or_default()) {
            continue;
        }
        let what = format!("{}: {name}", export.display());
        let outcome = match stats::run_report(&db, &request) {
            Ok(o) => o,
            Err(e) => {
                failures.push(format!("{what}: error {e}"));
                continue;
            }
        };
        checked += 1;
        match (state, outcome) {
            ("ok", ReportOutcome::Table(t)) => {
                let expected = std::fs::read_to_string(dir.join(format!("{name}.csv")))
                    .unwrap_or_else(|e| panic!("{what}.csv: {e}"));
                let got = stats::to_csv(&t);
                if got != expected {
                    failures.push(format!("{what}:\nexpected\n{expected}got\n{got}"));
                }
            }
            (s, ReportOutcome::Table(t)) if s.starts_with("no-rows") => {
                if !t.rows.is_empty() {
                    failures.push(format!("{what}: nsys has no rows, got {}", t.rows.len()));
                }
            }
            (s, ReportOutcome::Skipped(m)) if s.starts_with("SKIPPED: ") => {
                let message =
                    s["SKIPPED: ".len()..].replace(&shown, &db.path.display().to_string());
                if m != message {
                    failures.push(format!("{what}: nsys SKIPPED: {message}, got {m}"));
                }
            }
            (s, other) => failures.push(format!("{what}: nsys {s}, got {other:?}")),
        }
    }
    checked
}

#[test]
fn every_expected_csv_equals_sightline() {
    let root = fixtures();
    let apis = root.join("reports/apis");
    let mut failures = Vec::new();
    let mut checked = check(
        &root.join("families.sqlite"),
        &apis.join("families"),
        &mut failures,
    );
    for name in EXPORTS {
        checked += check(
            &apis.join(format!("{name}.sqlite")),
            &apis.join(name),
            &mut failures,
        );
    }
    // Every report has data on some fixture, and all the exports' lines were read.
    assert!(
        checked >= REPORTS.len() * (EXPORTS.len() + 1),
        "{checked} checked"
    );
    assert!(
        failures.is_empty(),
        "{} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The committed exports hold what [`write_export`] writes (compared table by table).
#[test]
fn committed_exports_are_what_the_generator_writes() {
    let apis = fixtures().join("reports/apis");
    let tmp = tempfile::tempdir().expect("temp dir");
    for name in EXPORTS {
        let fresh = tmp.path().join(format!("{name}.sqlite"));
        write_export(name, &fresh);
        assert_eq!(
            dump(&apis.join(format!("{name}.sqlite"))),
            dump(&fresh),
            "{name}.sqlite differs from what the generator writes; regenerate (see the README)"
        );
    }
}

/// Every table's schema and rows, as text.
fn dump(path: &Path) -> Vec<String> {
    dump_tables(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn dump_tables(path: &Path) -> rusqlite::Result<Vec<String>> {
    let conn = Connection::open(path)?;
    let mut out = Vec::new();
    let mut stmt =
        conn.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name")?;
    let tables: Vec<(String, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    for (name, sql) in tables {
        out.push(sql);
        let mut stmt = conn.prepare(&format!("SELECT * FROM {name}"))?;
        let cols = stmt.column_count();
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let cells = (0..cols)
                .map(|i| Ok(format!("{:?}", row.get_ref(i)?)))
                .collect::<rusqlite::Result<Vec<String>>>()?;
            out.push(format!("{name}: {}", cells.join(", ")));
        }
    }
    Ok(out)
}

/// Rewrites the committed exports (then rerun the oracle: see the README).
#[test]
#[ignore = "rewrites fixtures/nsys/reports/apis/*.sqlite"]
fn regenerate_exports() {
    let apis = fixtures().join("reports/apis");
    std::fs::create_dir_all(&apis).expect("fixture folder");
    for name in EXPORTS {
        let path = apis.join(format!("{name}.sqlite"));
        let _ = std::fs::remove_file(&path);
        write_export(name, &path);
    }
}

/// `network_congestion` on a sample whose value is text, or a NIC whose GUID is text: an error
/// naming the table and the rowid, not a panic nor a guessed row; text in a sample of another
/// metric is not read.
#[test]
fn network_congestion_names_rows_it_cannot_read() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let path = tmp.path().join("bad.sqlite");
    write_export("network", &path);
    let conn = Connection::open(&path).expect("open");
    // Text in a sample of another metric (`IB: Bytes sent`) is not read.
    conn.execute_batch("UPDATE NET_NIC_METRIC SET value = 'lots' WHERE rowid = 6;")
        .expect("update");
    let db = ExportDb::open(&path).unwrap_or_else(|e| panic!("{e}"));
    match stats::run_report(&db, "network_congestion") {
        Ok(ReportOutcome::Table(t)) => assert_eq!(t.rows.len(), 14),
        other => panic!("{other:?}"),
    }
    drop(db);
    conn.execute_batch(
        "UPDATE NET_IB_SWITCH_METRIC SET value = 'many' WHERE rowid = 2;
         UPDATE TARGET_INFO_NIC_INFO SET GUID = 'x' WHERE rowid = 1;",
    )
    .expect("update");
    drop(conn);
    let db = ExportDb::open(&path).unwrap_or_else(|e| panic!("{e}"));
    let e = stats::run_report(&db, "network_congestion").expect_err("text GUID");
    assert!(
        e.to_string()
            .contains("table TARGET_INFO_NIC_INFO: rowid 1: GUID is not an integer"),
        "{e}"
    );
    let conn = Connection::open(&path).expect("open");
    conn.execute_batch("UPDATE TARGET_INFO_NIC_INFO SET GUID = 1 WHERE rowid = 1;")
        .expect("update");
    drop(conn);
    let db = ExportDb::open(&path).unwrap_or_else(|e| panic!("{e}"));
    let e = stats::run_report(&db, "network_congestion").expect_err("text value");
    assert!(
        e.to_string()
            .contains("table NET_IB_SWITCH_METRIC: rowid 2: value is not a number"),
        "{e}"
    );
    // An option nsys would refuse (`invalid int value`) is an error too.
    let e = stats::run_report(&db, "network_congestion:ticks_threshold=abc").expect_err("option");
    assert!(e.to_string().contains("ticks_threshold"), "{e}");
}
