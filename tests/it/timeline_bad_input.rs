//! Bad inputs give a clear error naming the file, never a panic or a hang: not SQLite, SQLite
//! but not an Nsight Systems export, an empty export, a truncated file, text where integers
//! belong, a directory, a report without `nsys`.

use std::path::{Path, PathBuf};

use rusqlite::Connection;
use sightline::timeline::nsys::stats::{self, ReportOutcome};
use sightline::timeline::nsys::{self, NsysError};
use sightline_test_support::nsys::{SynthOptions, write_export};

fn load_error(path: &Path) -> String {
    match nsys::load(path) {
        Ok(tl) => panic!("{}: loaded {} events", path.display(), tl.event_count()),
        Err(e) => {
            let text = e.to_string();
            assert!(
                text.contains(&path.display().to_string()),
                "error does not name the file: {text}"
            );
            text
        }
    }
}

fn synth(dir: &Path, events: u64) -> PathBuf {
    let path = dir.join(format!("synth_{events}.sqlite"));
    write_export(
        &path,
        &SynthOptions {
            events,
            threads: 2,
            streams: 2,
            seed: 7,
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    path
}

#[test]
fn not_sqlite() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("notes.sqlite");
    std::fs::write(&path, "this is a text file, not a database\n".repeat(200))
        .unwrap_or_else(|e| panic!("{e}"));
    let text = load_error(&path);
    assert!(text.contains("not a readable SQLite database"), "{text}");
    let zero = dir.path().join("zero.sqlite");
    std::fs::write(&zero, b"").unwrap_or_else(|e| panic!("{e}"));
    assert!(load_error(&zero).contains("empty"));
    assert!(stats::run_reports(&path, &["cuda_api_sum"]).is_err());
}

#[test]
fn sqlite_but_not_an_export() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("other.sqlite");
    let conn = Connection::open(&path).unwrap_or_else(|e| panic!("{e}"));
    conn.execute_batch(
        "CREATE TABLE recipes (name TEXT, minutes INTEGER); INSERT INTO recipes VALUES ('tea', 5);",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    drop(conn);
    let text = load_error(&path);
    assert!(
        text.contains("not an Nsight Systems export") && text.contains("recipes"),
        "{text}"
    );
}

#[test]
fn empty_export() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = synth(dir.path(), 50);
    let conn = Connection::open(&path).unwrap_or_else(|e| panic!("{e}"));
    conn.execute_batch(
        "DELETE FROM CUPTI_ACTIVITY_KIND_RUNTIME; DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL; DELETE FROM CUPTI_ACTIVITY_KIND_MEMCPY;
         DELETE FROM CUPTI_ACTIVITY_KIND_MEMSET; DELETE FROM NVTX_EVENTS; DELETE FROM OSRT_API;",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    drop(conn);
    let text = load_error(&path);
    assert!(
        matches!(nsys::load(&path), Err(NsysError::Empty { .. })),
        "{text}"
    );
    // An empty table gives a report without rows, as nsys does ("no-rows": Young768_fusion's
    // empty MEMCPY table); a missing one says what is missing.
    let out = stats::run_reports(&path, &["cuda_gpu_kern_sum"]).unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(&out[0].1, ReportOutcome::Table(t) if t.rows.is_empty()));
    let conn = Connection::open(&path).unwrap_or_else(|e| panic!("{e}"));
    conn.execute_batch("DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL;")
        .unwrap_or_else(|e| panic!("{e}"));
    drop(conn);
    let out = stats::run_reports(&path, &["cuda_gpu_kern_sum"]).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        matches!(&out[0].1, ReportOutcome::Skipped(m) if m.contains("does not contain CUDA kernel data"))
    );
}

#[test]
fn truncated_file() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = synth(dir.path(), 3000);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{e}"));
    for keep in [
        100,
        4096,
        bytes.len() / 3,
        bytes.len() / 2,
        bytes.len() - 4096,
    ] {
        let cut = dir.path().join(format!("cut_{keep}.sqlite"));
        std::fs::write(&cut, &bytes[..keep]).unwrap_or_else(|e| panic!("{e}"));
        // Either a clear error naming the file, or the readable part (with warnings).
        match nsys::load(&cut) {
            Ok(tl) => assert!(tl.event_count() > 0),
            Err(e) => assert!(e.to_string().contains(&cut.display().to_string()), "{e}"),
        }
        if let Err(e) = stats::run_reports(&cut, &stats::report_names()) {
            assert!(e.to_string().contains(&cut.display().to_string()), "{e}");
        }
    }
}

#[test]
fn text_where_integers_belong() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = synth(dir.path(), 500);
    let conn = Connection::open(&path).unwrap_or_else(|e| panic!("{e}"));
    conn.execute_batch(
        "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 'soon' WHERE rowid IN (2, 3);
         UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET globalTid = 'main thread' WHERE rowid = 5;
         UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = '12345' WHERE rowid = 4;",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    drop(conn);
    // The timeline keeps the readable rows and says which were skipped, naming file and table.
    let tl = nsys::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let kernel_warning = tl
        .warnings
        .iter()
        .find(|w| w.problem.location.to_string() == "CUPTI_ACTIVITY_KIND_KERNEL")
        .unwrap_or_else(|| panic!("no kernel warning in {:?}", tl.warnings));
    assert_eq!(kernel_warning.file, path);
    assert!(
        kernel_warning.problem.message.contains("2 rows skipped")
            && kernel_warning.problem.message.contains("rowid 2"),
        "{}",
        kernel_warning.problem.message
    );
    assert!(tl.warnings.iter().any(|w| w.problem.location.to_string()
        == "CUPTI_ACTIVITY_KIND_RUNTIME"
        && w.problem.message.contains("rowid 5")));
    // A summary must not silently leave rows out: it is an error naming the file, table and row.
    let err = stats::run_reports(&path, &["cuda_gpu_kern_sum"])
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        err.contains(&path.display().to_string())
            && err.contains("CUPTI_ACTIVITY_KIND_KERNEL")
            && err.contains("rowid 2"),
        "{err}"
    );
}

#[test]
fn a_directory() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let text = load_error(dir.path());
    assert!(text.contains("is a directory"), "{text}");
    let missing = dir.path().join("missing.sqlite");
    assert!(load_error(&missing).contains("cannot read"));
}

#[test]
fn report_without_nsys_names_the_command() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let report = dir.path().join("run.nsys-rep");
    std::fs::write(&report, b"binary").unwrap_or_else(|e| panic!("{e}"));
    let err = nsys::export_report(
        &report,
        Some(&dir.path().join("nowhere/nsys")),
        &dir.path().join("cache"),
        sightline::core::Progress::none(),
    );
    let text = err.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        text.contains("run.nsys-rep") && text.contains("nsys export --type sqlite"),
        "{text}"
    );
}

#[test]
fn unknown_tables_views_and_columns_are_ignored() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = synth(dir.path(), 300);
    let before = nsys::load(&path)
        .unwrap_or_else(|e| panic!("{e}"))
        .event_count();
    let conn = Connection::open(&path).unwrap_or_else(|e| panic!("{e}"));
    conn.execute_batch(
        "ALTER TABLE CUPTI_ACTIVITY_KIND_RUNTIME ADD COLUMN name TEXT;
         CREATE TABLE THIRD_PARTY (x INTEGER);
         CREATE VIEW THIRD_PARTY_VIEW AS SELECT * FROM THIRD_PARTY;
         PRAGMA writable_schema = ON;
         INSERT INTO sqlite_master (type, name, tbl_name, rootpage, sql)
           VALUES ('view', 'BROKEN_VIEW', 'BROKEN_VIEW', 0, 'CREATE VIEW BROKEN_VIEW AS SELECT FROM WHERE ??');
         PRAGMA writable_schema = OFF;",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    drop(conn);
    let tl = nsys::load(&path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(tl.event_count(), before);
}

#[test]
fn fuzz_regressions_do_not_panic() {
    // Inputs the fuzz target (`fuzz/fuzz_targets/nsys_loader.rs`) found; each must load or fail
    // with an error naming the file.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/nsys/regressions");
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty());
    for input in inputs {
        // A column name that is not UTF-8 made rusqlite's `column_names()` panic; in a file
        // whose StringIds pages are damaged, the walk around the damage stepped one rowid a
        // pass (20 s a report) until it restarted where the seeks landed; in one whose kernel
        // pages are garbage every seek found a row, a million passes (40 s) until the walk was
        // bounded by the file's size.
        if let Err(e) = nsys::load(&input) {
            assert!(e.to_string().contains(&input.display().to_string()), "{e}");
        }
        if let Err(e) = stats::run_reports(&input, &stats::report_names()) {
            assert!(e.to_string().contains(&input.display().to_string()), "{e}");
        }
    }
}
