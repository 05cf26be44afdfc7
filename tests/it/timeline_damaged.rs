//! Damaged exports show everything that is readable: a table with a damaged page loads the rows
//! before and after the damage with a warning naming the table and the rows lost; a table that
//! cannot be read at all is skipped with a warning and the rest loads.
//!
//! The damaged copies are made from generated exports by `sightline_test_support::damage`, which
//! finds a table's leaf pages by walking its b-tree, so the rows the damage destroys are known.

use std::path::{Path, PathBuf};

use sightline::problem::Severity;
use sightline::timeline::nsys;
use sightline::timeline::nsys::{DAMAGED, NOT_READ};
use sightline::timeline::{EventKind, Timeline};
use sightline_test_support::damage::{
    damage_schema, damaged_copies, move_rowid_forward, overwrite_page, root_page, table_leaves,
};
use sightline_test_support::nsys::{SynthOptions, write_export};
use sightline_test_support::par::map_all_on_every_core;

use crate::timeline_damaged_stats::damage_leaf;

const KERNEL: &str = "CUPTI_ACTIVITY_KIND_KERNEL";
const RUNTIME: &str = "CUPTI_ACTIVITY_KIND_RUNTIME";

fn synth(dir: &Path) -> PathBuf {
    let path = dir.join("synth.sqlite");
    write_export(
        &path,
        &SynthOptions {
            events: 40_000,
            threads: 2,
            streams: 2,
            seed: 11,
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    path
}

fn count(tl: &Timeline, kind: EventKind) -> usize {
    tl.counts_by_kind()
        .into_iter()
        .find(|(k, _)| *k == kind)
        .map_or(0, |(_, n)| n)
}

fn warnings_about(tl: &Timeline, table: &str) -> Vec<String> {
    tl.warnings
        .iter()
        .filter(|p| p.problem.severity == Severity::Warning && p.to_string().contains(table))
        .map(ToString::to_string)
        .collect()
}

#[test]
fn a_damaged_leaf_page_loses_only_its_rows() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = synth(dir.path());
    let whole = nsys::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let kernels = count(&whole, EventKind::Kernel);
    let calls = count(&whole, EventKind::CudaApi);
    for (table, kind, total) in [
        (KERNEL, EventKind::Kernel, kernels),
        (RUNTIME, EventKind::CudaApi, calls),
    ] {
        for fill in [0x00, 0xA5] {
            let (copy, lost) = damage_leaf(&path, table, 3, fill);
            let tl = nsys::load(&copy).unwrap_or_else(|e| panic!("{}: {e}", copy.display()));
            assert_eq!(
                count(&tl, kind),
                total - lost.len(),
                "{table}, page filled with {fill:#x}: every row but the {} of the page",
                lost.len()
            );
            let warnings = warnings_about(&tl, table);
            assert!(
                warnings
                    .iter()
                    .any(|w| w.contains("damaged") && w.contains(&format!("{} row", lost.len()))),
                "{table}: {warnings:?}"
            );
        }
    }
}

/// A row whose rowid a bit flip moved forward, on a page whose next cell is damaged: a scan
/// returns it after its neighbours and fails; the rows after the damaged page, below the moved
/// rowid, still read (wenscarl_cutlass-benchmark_report1 with 16 bits flipped in a
/// SAMPLING_CALLCHAINS leaf lost 2,026 of them).
#[test]
fn a_rowid_moved_forward_does_not_hide_the_rows_below_it() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = synth(dir.path());
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{e}"));
    let root = root_page(&path, RUNTIME).unwrap_or_else(|e| panic!("{e}"));
    let leaves = table_leaves(&bytes, root).unwrap_or_else(|e| panic!("{e}"));
    let max = *leaves
        .last()
        .and_then(|l| l.rowids.last())
        .unwrap_or_else(|| panic!("{RUNTIME} has no rows"));
    let copy = dir.path().join("moved_rowid.sqlite");
    // A middle leaf whose middle row moves to the first rowid of a leaf three pages on (the
    // same varint length: tried leaf after leaf).
    let moved = (leaves.len() / 2..leaves.len().saturating_sub(3)).find(|&i| {
        let (leaf, to) = (&leaves[i], leaves[i + 3].rowids[0]);
        std::fs::copy(&path, &copy).unwrap_or_else(|e| panic!("{e}"));
        move_rowid_forward(&copy, leaf.page, leaf.rowids.len() / 2, to).is_ok()
    });
    assert!(moved.is_some(), "no leaf of {RUNTIME} to move a rowid in");
    let tl = nsys::load(&copy).unwrap_or_else(|e| panic!("{}: {e}", copy.display()));
    let floor = point_readable(&copy, RUNTIME, max);
    let got = accounted(&tl, RUNTIME);
    assert!(got >= floor, "{got} rows read, SQLite reads {floor}");
    let unaccounted: Vec<String> = tl
        .warnings
        .iter()
        .map(ToString::to_string)
        .filter(|w| w.contains("not accounted for"))
        .collect();
    assert!(unaccounted.is_empty(), "{unaccounted:?}");
}

#[test]
fn a_table_that_cannot_be_read_is_skipped_and_the_rest_loads() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = synth(dir.path());
    let whole = nsys::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let root = root_page(&path, KERNEL).unwrap_or_else(|e| panic!("{e}"));
    let copy = dir.path().join("no_kernels.sqlite");
    std::fs::copy(&path, &copy).unwrap_or_else(|e| panic!("{e}"));
    overwrite_page(&copy, root, 0xFF).unwrap_or_else(|e| panic!("{e}"));
    let tl = nsys::load(&copy).unwrap_or_else(|e| panic!("{}: {e}", copy.display()));
    assert_eq!(count(&tl, EventKind::Kernel), 0);
    assert!(count(&whole, EventKind::Kernel) > 0);
    for kind in [EventKind::CudaApi, EventKind::Memcpy, EventKind::Range] {
        assert_eq!(count(&tl, kind), count(&whole, kind), "{kind:?}");
    }
    let warnings = warnings_about(&tl, KERNEL);
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("could not be read; it is skipped")),
        "{warnings:?}"
    );
}

/// Rows of `table` that SQLite reads one by one by rowid, over rowids 1 to `max`: the floor of
/// what a reader can recover around damage.
fn point_readable(path: &Path, table: &str, max: i64) -> u64 {
    let conn =
        rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap_or_else(|e| panic!("{e}"));
    // One read transaction for all the lookups: alone, each one locks and unlocks the file and
    // looks for a journal (three system calls a row, most of this test's time).
    let tx = conn
        .unchecked_transaction()
        .unwrap_or_else(|e| panic!("{e}"));
    let Ok(mut stmt) = tx.prepare(&format!("SELECT * FROM \"{table}\" WHERE rowid = ?1")) else {
        return 0;
    };
    (1..=max)
        .filter(|&rowid| {
            matches!(
                stmt.query([rowid])
                    .map(|mut r| r.next().map(|r| r.is_some())),
                Ok(Ok(true))
            )
        })
        .count() as u64
}

/// Rows of `table` the load read: its events, attached rows and rows skipped for their values.
fn accounted(tl: &Timeline, table: &str) -> u64 {
    tl.session.imports.sources.get(table).map_or(0, |s| {
        s.events
            + s.attached
            + s.skipped
                .iter()
                .filter(|(reason, _)| *reason != DAMAGED && *reason != NOT_READ)
                .map(|(_, n)| n)
                .sum::<u64>()
    })
}

fn schema_readable(path: &Path) -> bool {
    rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .and_then(|c| {
            c.query_row("SELECT count(*) FROM sqlite_master", [], |r| {
                r.get::<_, i64>(0)
            })
        })
        .is_ok()
}

#[test]
fn damaged_copies_of_the_corpus_show_every_row_sqlite_can_read() {
    let Some(files) = crate::timeline_corpus::corpus() else {
        return;
    };
    // A file per core: alone on one core, this test was the last of the binary to end.
    map_all_on_every_core("damaged", &files, |file| check_damaged_copies(file));
}

/// Every damaged copy of `file` shows every row SQLite can read, or is refused because its
/// schema cannot be read.
fn check_damaged_copies(file: &Path) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let whole = nsys::load(file).unwrap_or_else(|e| panic!("{e}"));
    let conn =
        rusqlite::Connection::open_with_flags(file, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap_or_else(|e| panic!("{e}"));
    let read: Vec<(String, i64)> = whole
        .session
        .imports
        .sources
        .iter()
        .filter(|(_, s)| s.events + s.attached > 0)
        .filter_map(|(table, _)| {
            let max = conn
                .query_row(&format!("SELECT max(rowid) FROM \"{table}\""), [], |r| {
                    r.get(0)
                })
                .ok()?;
            Some((table.clone(), max))
        })
        .collect();
    for copy in damaged_copies(file, dir.path()).unwrap_or_else(|e| panic!("{e}")) {
        let what = format!("{} ({})", file.display(), copy.what);
        match nsys::load(&copy.path) {
            Ok(tl) => {
                // Read with tables ahead (as on more cores): the same rows, the same
                // warnings, in the same order.
                let options = nsys::LoadOptions {
                    read_ahead: Some(3),
                    ..Default::default()
                };
                let ahead = nsys::load_with(&copy.path, options)
                    .unwrap_or_else(|e| panic!("{what}, tables read ahead: {e}"));
                assert!(
                    crate::timeline_corpus::contents(&tl)
                        == crate::timeline_corpus::contents(&ahead),
                    "{what}: read ahead, the timeline differs"
                );
                assert_eq!(
                    format!("{:?}", tl.warnings),
                    format!("{:?}", ahead.warnings),
                    "{what}"
                );
                for (table, max) in &read {
                    let floor = point_readable(&copy.path, table, *max);
                    let got = accounted(&tl, table);
                    assert!(
                        got >= floor,
                        "{what}: {table}: {got} rows read, SQLite reads {floor}"
                    );
                }
            }
            Err(e) => {
                let text = e.to_string();
                assert!(
                    text.contains(&copy.path.display().to_string()),
                    "{what}: {text}"
                );
                assert!(
                    !schema_readable(&copy.path),
                    "{what}: refused although its schema reads: {text}"
                );
            }
        }
        std::fs::remove_file(&copy.path).ok();
    }
}

/// A file whose schema page is damaged (SQLite reads nothing of it) is salvaged page by page:
/// every event of the intact file is there, with a warning saying so.
fn assert_salvaged(file: &Path, dir: &Path) {
    let whole = nsys::load(file).unwrap_or_else(|e| panic!("{e}"));
    let copy = dir.join("schema-damaged.sqlite");
    std::fs::copy(file, &copy).unwrap_or_else(|e| panic!("{e}"));
    damage_schema(&copy).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        !schema_readable(&copy),
        "{}: the schema still reads",
        file.display()
    );
    let tl = nsys::load(&copy).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    assert_eq!(
        tl.counts_by_kind(),
        whole.counts_by_kind(),
        "{}: events of the salvaged copy",
        file.display()
    );
    assert_eq!(tl.flows().len(), whole.flows().len(), "{}", file.display());
    let salvage: Vec<_> = tl
        .warnings
        .iter()
        .filter(|w| w.problem.message.contains("salvaged page by page"))
        .collect();
    assert_eq!(salvage.len(), 1, "{}: {:?}", file.display(), tl.warnings);
    assert_eq!(salvage[0].file, copy, "the warning names the file");
}

#[test]
fn a_damaged_schema_is_salvaged_page_by_page() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = synth(dir.path());
    assert_salvaged(&path, dir.path());
    let Some(files) = crate::timeline_corpus::corpus() else {
        return;
    };
    for file in files {
        assert_salvaged(&file, dir.path());
    }
}

/// A table whose definition in `sqlite_master` no longer parses (SQLite's own shell refuses the
/// whole file): the table is skipped with a warning naming it, everything else loads, and no
/// message says "no such table".
#[test]
fn a_table_whose_definition_is_damaged_is_skipped_by_name() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = synth(dir.path());
    let whole = nsys::load(&path).unwrap_or_else(|e| panic!("{e}"));
    {
        let conn = rusqlite::Connection::open(&path).unwrap_or_else(|e| panic!("{e}"));
        conn.execute_batch(&format!(
            "PRAGMA writable_schema=ON; UPDATE sqlite_master SET sql = \
             'CREATE TABLE {RUNTIME} (start INTEGER, end INTEG %%% (' WHERE name = '{RUNTIME}';"
        ))
        .unwrap_or_else(|e| panic!("{e}"));
    }
    let tl = nsys::load(&path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(count(&tl, EventKind::CudaApi), 0);
    assert_eq!(
        count(&tl, EventKind::Kernel),
        count(&whole, EventKind::Kernel)
    );
    let about = warnings_about(&tl, RUNTIME);
    assert!(
        about
            .iter()
            .any(|w| w.contains("definition in the schema is damaged")),
        "{about:?}"
    );
    let all: Vec<String> = tl.warnings.iter().map(|w| w.to_string()).collect();
    assert!(!all.iter().any(|w| w.contains("no such table")), "{all:?}");
    let reports = nsys::stats::run_reports(&path, nsys::stats::DEFAULT_REPORTS)
        .unwrap_or_else(|e| panic!("{e}"));
    for (name, outcome) in reports {
        if let nsys::stats::ReportOutcome::Skipped(m) = outcome {
            assert!(!m.contains("no such table"), "{name}: {m}");
        }
    }
}
