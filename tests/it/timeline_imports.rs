//! Import statistics of every corpus export: every table with rows is listed with its row count
//! (checked against SQLite here), its rows split into events, attached and skipped that add up,
//! the events of all tables equal to the timeline's, and the tables Sightline reads never marked
//! "not read". Skips when ../shared is absent.

use rusqlite::{Connection, OpenFlags};
use sightline::timeline::nsys;
use sightline::timeline::nsys::schema::NOT_READ;

/// Tables whose rows the loader reads (as events, names or labels) whenever they have rows.
const READ: &[&str] = &[
    "StringIds",
    "ThreadNames",
    "CUPTI_ACTIVITY_KIND_RUNTIME",
    "CUPTI_ACTIVITY_KIND_KERNEL",
    "CUPTI_ACTIVITY_KIND_MEMCPY",
    "CUPTI_ACTIVITY_KIND_MEMSET",
    "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
    "CUPTI_ACTIVITY_KIND_GRAPH_TRACE",
    "OSRT_API",
    "CUBLAS_EVENTS",
    "CUDNN_EVENTS",
    "NVTX_EVENTS",
];

#[test]
fn every_table_is_accounted_for_and_adds_up() {
    let Some(files) = crate::timeline_corpus::corpus() else {
        return;
    };
    for file in files {
        let name = file.display().to_string();
        let tl = nsys::load(&file).unwrap_or_else(|e| panic!("{e}"));
        let imports = &tl.session.imports;
        let conn = Connection::open_with_flags(&file, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut stmt = conn
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
            .unwrap();
        let tables: Vec<String> = stmt
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let mut with_rows = 0;
        for table in &tables {
            let rows: i64 = conn
                .query_row(&format!("SELECT count(*) FROM \"{table}\""), [], |r| {
                    r.get(0)
                })
                .unwrap_or_else(|e| panic!("{name}: {table}: {e}"));
            let Some(source) = imports.sources.get(table) else {
                assert_eq!(rows, 0, "{name}: {table} has rows but no statistics");
                continue;
            };
            with_rows += 1;
            assert_eq!(source.rows, rows as u64, "{name}: {table}");
            assert_eq!(source.unaccounted(), 0, "{name}: {table}: {source:?}");
            assert!(
                source.skipped.values().all(|&n| n > 0),
                "{name}: {table}: {source:?}"
            );
            if READ.contains(&table.as_str()) {
                assert!(
                    !source.skipped.contains_key(NOT_READ),
                    "{name}: {table} is read but marked not read"
                );
                assert!(
                    source.events + source.attached > 0,
                    "{name}: {table}: {source:?}"
                );
            }
        }
        assert_eq!(imports.sources.len(), with_rows, "{name}: unknown sources");
        let (_, events, _, _) = imports.totals();
        assert_eq!(
            events,
            tl.event_count() as u64,
            "{name}: events of all tables"
        );
        assert!(
            !tl.warnings
                .iter()
                .any(|w| w.problem.message.contains("not accounted")),
            "{name}"
        );
    }
}
