//! Event tables read ahead: while the loader builds from one table, the next ones in load order
//! are already being read, each by SQLite on its own read-only connection and thread
//! ([`pipe::spawn`]), up to one reader per core beyond two ([`Ahead::depth_for_cores`]). A reader
//! started ahead fills its bounded channel and waits, so reading ahead costs at most one
//! channel's batches per reader.
//!
//! The plan ([`plan`]) is made of the same query functions the table loaders use, so a table's
//! reader started ahead is the one its loader asks for ([`Ahead::reader`]); a query asked for
//! that is not the next planned one (a table the loader skipped, or a plan that missed) is read
//! by a new reader, and readers started for tables that were passed over are stopped.

use std::collections::VecDeque;

use super::pipe::{self, Reader};
use super::{GPU_TABLES, SAMPLE_CHAINS};
use super::{api, cpu, gpu_sql, nvtx};
use crate::timeline::model::EventKind;
use crate::timeline::nsys::db::ExportDb;

/// The counted event tables of `db` and the queries their loaders read them with, in load
/// order (`deferred`: the CPU samples' call stacks are read last).
pub(super) fn plan(db: &ExportDb, deferred: bool) -> VecDeque<(&'static str, String)> {
    let mut plan = VecDeque::new();
    let mut add = |table: &'static str, sql: String| {
        if db.has_table(table) {
            plan.push_back((table, sql));
        }
    };
    add("CUPTI_ACTIVITY_KIND_RUNTIME", api::runtime_sql(db));
    for (table, kind) in [
        ("OSRT_API", EventKind::OsRuntime),
        ("CUBLAS_EVENTS", EventKind::Cublas),
        ("CUDNN_EVENTS", EventKind::Cudnn),
    ] {
        add(table, api::host_series_sql(db, table, kind));
    }
    for spec in GPU_TABLES {
        add(spec.table, gpu_sql(db, spec));
    }
    add("NVTX_EVENTS", nvtx::nvtx_sql(db));
    let samples = db.has_table("COMPOSITE_EVENTS");
    if samples && !deferred {
        add(SAMPLE_CHAINS, cpu::callchains_sql(db, SAMPLE_CHAINS));
    }
    add("COMPOSITE_EVENTS", cpu::samples_sql());
    add("SCHED_EVENTS", cpu::sched_sql());
    if samples && deferred {
        add(SAMPLE_CHAINS, cpu::callchains_sql(db, SAMPLE_CHAINS));
    }
    plan
}

/// The readers started ahead of the loader, and the queries still to start.
#[derive(Default)]
pub(super) struct Ahead {
    /// Queries not started yet, in load order.
    plan: VecDeque<(&'static str, String)>,
    /// Readers started ahead, in load order.
    running: VecDeque<(&'static str, String, Reader)>,
    /// How many readers may run ahead of the one being consumed.
    depth: usize,
}

impl Ahead {
    /// Reading ahead along `plan` with up to `depth` readers (0: none).
    pub fn new(plan: VecDeque<(&'static str, String)>, depth: usize) -> Ahead {
        Ahead {
            plan,
            running: VecDeque::new(),
            depth,
        }
    }

    /// As many threads as cores: the loader's own (building), the reader of the table being
    /// built from, and one reader ahead per further core. (On 2 cores a reader ahead only
    /// takes turns with the other two: 10 M events opened in 3.67–4.30 s with one against
    /// 3.72–3.81 s without.)
    pub fn depth_for_cores() -> usize {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .saturating_sub(2)
    }

    /// The reader of `sql` over `table`: the one started ahead, or a new one (`None` when no
    /// second connection opens). Then starts the next planned queries, up to the depth.
    pub fn reader(&mut self, db: &ExportDb, table: &str, sql: &str) -> Option<Reader> {
        let same = |t: &str, s: &str| t == table && s == sql;
        // Readers of tables planned before this one were passed over: stop them.
        let running = self.running.iter().position(|(t, s, _)| same(t, s));
        let planned = self.plan.iter().position(|(t, s)| same(t, s));
        let passed = match (running, planned) {
            (Some(at), _) => at,
            (None, Some(_)) => self.running.len(),
            (None, None) => 0,
        };
        for (_, _, reader) in self.running.drain(..passed) {
            let _ = reader.finish();
        }
        if let Some(at) = planned {
            self.plan.drain(..=at);
        }
        let reader = match running {
            Some(_) => self.running.pop_front().map(|(_, _, r)| r),
            None => pipe::spawn(db, table, sql),
        };
        while self.running.len() < self.depth {
            let Some((t, s)) = self.plan.pop_front() else {
                break;
            };
            if let Some(r) = pipe::spawn(db, t, &s) {
                self.running.push_back((t, s, r));
            }
        }
        reader
    }

    /// Readers running ahead now (for tests).
    #[cfg(test)]
    pub fn running(&self) -> Vec<&'static str> {
        self.running.iter().map(|(t, _, _)| *t).collect()
    }
}

impl Drop for Ahead {
    /// Stops and joins the readers nobody asked for (a load cancelled or failed).
    fn drop(&mut self) {
        for (_, _, reader) in self.running.drain(..) {
            let _ = reader.finish();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Ahead, plan};
    use crate::timeline::nsys::db::ExportDb;

    /// An export with three of the planned tables, `rows` rows each (removed when dropped).
    struct Export(std::path::PathBuf);

    impl Export {
        fn new(rows: i64) -> Export {
            let path = std::env::temp_dir().join(format!(
                "sightline-ahead-{}-{rows}.sqlite",
                std::process::id()
            ));
            let _ = std::fs::remove_file(&path);
            let conn = rusqlite::Connection::open(&path).expect("create");
            for table in ["CUPTI_ACTIVITY_KIND_RUNTIME", "OSRT_API", "NVTX_EVENTS"] {
                conn.execute_batch(&format!(
                    "CREATE TABLE {table} (start INTEGER, end INTEGER, globalTid INTEGER, \
                     nameId INTEGER, eventType INTEGER);
                     WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {rows})
                     INSERT INTO {table} SELECT i, i + 1, 1, 1, 59 FROM n;"
                ))
                .expect("fill");
            }
            Export(path)
        }
    }

    impl Drop for Export {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    fn rows_of(reader: super::Reader) -> usize {
        let mut n = 0;
        while let Some(batch) = reader.next() {
            n += batch.len();
            reader.recycle(batch);
        }
        reader.finish().expect("scan");
        n
    }

    #[test]
    fn tables_are_read_ahead_in_load_order() {
        let export = Export::new(20_000);
        let db = ExportDb::open(&export.0).expect("open");
        let planned = plan(&db, false);
        let tables: Vec<&str> = planned.iter().map(|(t, _)| *t).collect();
        assert_eq!(
            tables,
            ["CUPTI_ACTIVITY_KIND_RUNTIME", "OSRT_API", "NVTX_EVENTS"]
        );
        let queries: Vec<(&str, String)> = planned.iter().cloned().collect();
        let mut ahead = Ahead::new(planned, 1);
        let (t, sql) = &queries[0];
        let first = ahead.reader(&db, t, sql).expect("reader");
        assert_eq!(ahead.running(), ["OSRT_API"]);
        assert_eq!(rows_of(first), 20_000);
        // OS runtime passed over (as when a loader skips its table): its reader is stopped,
        // and the one asked for is the one started ahead or a new one.
        let (t, sql) = &queries[2];
        let nvtx = ahead.reader(&db, t, sql).expect("reader");
        assert!(ahead.running().is_empty());
        assert_eq!(rows_of(nvtx), 20_000);
        // A query outside the plan is read all the same.
        let other = ahead
            .reader(
                &db,
                "OSRT_API",
                "SELECT rowid, start FROM OSRT_API WHERE start <= 10",
            )
            .expect("reader");
        assert_eq!(rows_of(other), 10);
    }

    #[test]
    fn readers_left_ahead_are_stopped_when_dropped() {
        let export = Export::new(100_000);
        let db = ExportDb::open(&export.0).expect("open");
        let planned = plan(&db, false);
        let (t, sql) = planned[0].clone();
        let mut ahead = Ahead::new(planned, 2);
        let first = ahead.reader(&db, t, &sql).expect("reader");
        assert_eq!(ahead.running(), ["OSRT_API", "NVTX_EVENTS"]);
        // Consumed only in part, then everything is dropped: no thread is left waiting.
        let batch = first.next().expect("a batch");
        assert!(batch.len() > 0);
        drop(ahead);
        let _ = first.finish();
    }
}
