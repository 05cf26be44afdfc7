//! The NVTX projection and trace reports and the unified-memory reports of `nsys stats` on small
//! exports made for them, where the corpus has no or too little data: `fixtures/nsys/reports/
//! {nvtx,um}/<name>.sqlite`, written by [`write`] below, with NVIDIA's output for each in
//! `<name>/` (`STATUS.tsv` and `<report>.csv`, see `fixtures/nsys/reports/um/README.md`).
//! Every line of each STATUS.tsv must match: an `ok` report's CSV byte for byte, a `no-rows`
//! report an empty table, a `SKIPPED` report the same message. A second test checks that the
//! committed exports hold exactly the rows the generator writes.
//!
//! Regenerate the exports: `SIGHTLINE_WRITE_FIXTURES=1 cargo test -p sightline-model --test
//! nsys_stats_fixtures_nvtx -- write_fixtures` (then rerun the oracle, README).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, params};
use sightline_model::timeline::nsys::ExportDb;
use sightline_model::timeline::nsys::stats::{self, ReportOutcome};

fn reports_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/nsys/reports")
}

/// Every fixture export: (family folder, name).
fn fixtures() -> Vec<(&'static str, &'static str)> {
    FIXTURES.iter().map(|(f, n, _)| (*f, *n)).collect()
}

type Generator = fn(&mut Export);

const FIXTURES: &[(&str, &str, Generator)] = &[
    ("nvtx", "nvtx_edges", nvtx_edges),
    ("nvtx", "nvtx_only", nvtx_only),
    ("nvtx", "nvtx_runtime", nvtx_runtime),
    ("nvtx", "nvtx_kernel", nvtx_kernel),
    ("um", "um_basic", um_basic),
    ("um", "um_throughput", um_throughput),
    ("um", "um_ties", um_ties),
    ("um", "um_rounding", um_rounding),
    ("um", "um_nulls", um_nulls),
    ("um", "um_no_gpu_faults", um_no_gpu_faults),
    ("um", "um_no_gpu_table", um_no_gpu_table),
    ("um", "um_faults_only", um_faults_only),
];

#[test]
fn every_fixture_report_equals_nsys_stats() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for (family, name) in fixtures() {
        let export = reports_dir().join(family).join(format!("{name}.sqlite"));
        let oracle = reports_dir().join(family).join(name);
        let status = std::fs::read_to_string(oracle.join("STATUS.tsv"))
            .unwrap_or_else(|e| panic!("{}: {e}", oracle.display()));
        let db = ExportDb::open(&export).unwrap_or_else(|e| panic!("{e}"));
        let shown = format!("inputs/{name}.sqlite");
        for line in status.lines().filter(|l| !l.starts_with('#')) {
            let mut cols = line.split('\t');
            let (Some(report), Some(state)) = (cols.next(), cols.next()) else {
                continue;
            };
            let what = format!("{name}: {report}");
            let outcome = stats::run_report(&db, &report.replace('@', ":"))
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            checked += 1;
            match (state, outcome) {
                ("ok", ReportOutcome::Table(t)) => {
                    let expected = std::fs::read_to_string(oracle.join(format!("{report}.csv")))
                        .unwrap_or_else(|e| panic!("{what}.csv: {e}"));
                    let got = stats::to_csv(&t);
                    if got != expected {
                        let line = expected
                            .lines()
                            .zip(got.lines())
                            .position(|(e, g)| e != g)
                            .map_or("line count".to_string(), |i| format!("line {}", i + 1));
                        failures.push(format!("{what}: differs at {line}:\n{got}"));
                    }
                }
                (s, ReportOutcome::Table(t)) if s.starts_with("no-rows") => {
                    if !t.rows.is_empty() {
                        failures.push(format!("{what}: nsys has no rows, got {}", t.rows.len()));
                    }
                }
                (s, ReportOutcome::Skipped(m)) if s.starts_with("SKIPPED: ") => {
                    let expected =
                        s["SKIPPED: ".len()..].replace(&shown, &export.display().to_string());
                    if m != expected {
                        failures.push(format!("{what}: nsys skipped: {expected}, got {m}"));
                    }
                }
                (s, other) => failures.push(format!("{what}: nsys {s}, got {other:?}")),
            }
        }
    }
    assert!(checked > 50, "only {checked} reports checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The rows of every table, as text, to compare exports regardless of SQLite's file layout.
fn dump(path: &Path) -> Vec<String> {
    let conn = Connection::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .unwrap_or_else(|e| panic!("{e}"));
    tables.sort();
    let mut out = Vec::new();
    for t in tables {
        let mut stmt = conn
            .prepare(&format!("SELECT * FROM \"{t}\" ORDER BY rowid"))
            .unwrap_or_else(|e| panic!("{e}"));
        let n = stmt.column_count();
        let rows: Vec<String> = stmt
            .query_map([], |r| {
                let cells: rusqlite::Result<Vec<String>> = (0..n)
                    .map(|i| Ok(format!("{:?}", r.get::<_, rusqlite::types::Value>(i)?)))
                    .collect();
                Ok(cells?.join("|"))
            })
            .and_then(|rows| rows.collect())
            .unwrap_or_else(|e| panic!("{e}"));
        out.push(format!("{t}: {}", rows.join(" / ")));
    }
    out
}

#[test]
fn fixtures_are_what_the_generator_writes() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    for (family, name, make) in FIXTURES {
        let fresh = dir.path().join(format!("{name}.sqlite"));
        write(&fresh, *make);
        let committed = reports_dir().join(family).join(format!("{name}.sqlite"));
        assert_eq!(dump(&committed), dump(&fresh), "{name}: regenerate it");
    }
}

/// Writes the exports into the fixture folders (only with `SIGHTLINE_WRITE_FIXTURES=1`).
#[test]
fn write_fixtures() {
    if std::env::var_os("SIGHTLINE_WRITE_FIXTURES").is_none_or(|v| v != "1") {
        return;
    }
    for (family, name, make) in FIXTURES {
        let path = reports_dir().join(family).join(format!("{name}.sqlite"));
        let _ = std::fs::remove_file(&path);
        write(&path, *make);
    }
}

fn write(path: &Path, make: Generator) {
    let conn = Connection::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    conn.execute_batch("PRAGMA page_size = 1024; BEGIN;")
        .unwrap_or_else(|e| panic!("{e}"));
    let mut export = Export {
        conn,
        strings: HashMap::new(),
        correlation: 0,
    };
    make(&mut export);
    export
        .conn
        .execute_batch("COMMIT; VACUUM;")
        .unwrap_or_else(|e| panic!("{e}"));
}

/// The tables, in the columns of the schema reference (the unified-memory tables and
/// `virtualAddress` as nsys 2023.4 exports them).
const SCHEMA: &[(&str, &str)] = &[
    ("StringIds", "id INTEGER PRIMARY KEY, value TEXT NOT NULL"),
    (
        "NVTX_EVENTS",
        "start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER, \
         category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, \
         textId INTEGER, domainId INTEGER",
    ),
    (
        "CUPTI_ACTIVITY_KIND_RUNTIME",
        "start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, \
         globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, \
         returnValue INTEGER NOT NULL, callchainId INTEGER",
    ),
    (
        "CUPTI_ACTIVITY_KIND_KERNEL",
        "start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, \
         contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, \
         globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, \
         gridId INTEGER NOT NULL",
    ),
    (
        "CUPTI_ACTIVITY_KIND_MEMCPY",
        "start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, \
         contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, \
         globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, \
         migrationCause INTEGER, virtualAddress INTEGER",
    ),
    (
        "CUPTI_ACTIVITY_KIND_MEMSET",
        "start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, \
         contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, \
         globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL",
    ),
    (
        "CUDA_UM_CPU_PAGE_FAULT_EVENTS",
        "start INTEGER NOT NULL, globalPid INTEGER NOT NULL, address INTEGER NOT NULL, \
         originalFaultPc INTEGER, CpuInstruction INTEGER NOT NULL, module INTEGER NOT NULL, \
         unresolvedFaultPc INTEGER",
    ),
    (
        "CUDA_UM_GPU_PAGE_FAULT_EVENTS",
        "start INTEGER NOT NULL, end INTEGER NOT NULL, globalPid INTEGER NOT NULL, \
         deviceId INTEGER NOT NULL, address INTEGER NOT NULL, \
         numberOfPageFaults INTEGER NOT NULL, faultAccessType INTEGER NOT NULL",
    ),
];

const NVTX: &str = "NVTX_EVENTS";
const RUNTIME: &str = "CUPTI_ACTIVITY_KIND_RUNTIME";
const KERNEL: &str = "CUPTI_ACTIVITY_KIND_KERNEL";
const MEMCPY: &str = "CUPTI_ACTIVITY_KIND_MEMCPY";
const MEMSET: &str = "CUPTI_ACTIVITY_KIND_MEMSET";
const CPU: &str = "CUDA_UM_CPU_PAGE_FAULT_EVENTS";
const GPU: &str = "CUDA_UM_GPU_PAGE_FAULT_EVENTS";

/// An export being written.
struct Export {
    conn: Connection,
    strings: HashMap<String, i64>,
    correlation: i64,
}

/// A serialized globalTid.
fn g(pid: i64, tid: i64) -> i64 {
    (pid << 24) | tid
}

/// What a launch creates on the GPU.
#[derive(Clone, Copy, PartialEq)]
enum Gpu {
    Kernel,
    Memcpy,
    Memset,
}

impl Export {
    fn tables(&mut self, names: &[&str]) {
        for name in std::iter::once(&"StringIds").chain(names) {
            let (_, columns) = SCHEMA
                .iter()
                .find(|(t, _)| t == name)
                .unwrap_or_else(|| panic!("no schema for {name}"));
            self.sql(&format!("CREATE TABLE {name} ({columns})"), &[]);
        }
    }

    fn sql(&self, sql: &str, values: &[&dyn rusqlite::ToSql]) {
        self.conn
            .execute(sql, values)
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }

    fn string(&mut self, text: &str) -> i64 {
        if let Some(&id) = self.strings.get(text) {
            return id;
        }
        let id = self.strings.len() as i64 + 1;
        self.strings.insert(text.to_string(), id);
        self.sql(
            "INSERT INTO StringIds (id, value) VALUES (?1, ?2)",
            params![id, text],
        );
        id
    }

    /// An NVTX row: push/pop 59, start/end 60, domain 75, mark 34.
    fn nvtx(&self, start: i64, end: Option<i64>, kind: i64, gtid: i64, text: &str, domain: i64) {
        self.nvtx_to(start, end, kind, gtid, text, domain, None);
    }

    #[allow(clippy::too_many_arguments)]
    fn nvtx_to(
        &self,
        start: i64,
        end: Option<i64>,
        kind: i64,
        gtid: i64,
        text: &str,
        domain: i64,
        end_gtid: Option<i64>,
    ) {
        self.sql(
            "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, endGlobalTid, domainId) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![start, end, kind, text, gtid, end_gtid, domain],
        );
    }

    /// A CUDA call on thread `gtid` (one runtime row per `(eventClass, start, end)`) and the
    /// GPU operation it launches; returns the correlationId.
    fn launch(
        &mut self,
        gtid: i64,
        calls: &[(i64, i64, i64)],
        gpu: (i64, i64),
        what: Gpu,
        name: &str,
    ) -> i64 {
        self.correlation += 1;
        let corr = self.correlation;
        self.launch_as(corr, gtid, calls, gpu, what, name);
        corr
    }

    fn launch_as(
        &mut self,
        corr: i64,
        gtid: i64,
        calls: &[(i64, i64, i64)],
        (start, end): (i64, i64),
        what: Gpu,
        name: &str,
    ) {
        let api = self.string("cudaLaunchKernel_v7000");
        for &(class, a, b) in calls {
            self.sql(
                "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, \
                 correlationId, nameId, returnValue) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0)",
                params![a, b, class, gtid, corr, api],
            );
        }
        let pid = (gtid >> 24) << 24;
        match what {
            Gpu::Kernel => {
                let n = self.string(name);
                self.sql(
                    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, \
                     streamId, correlationId, globalPid, demangledName, shortName, gridId) \
                     VALUES (?1, ?2, 0, 1, 7, ?3, ?4, ?5, ?5, ?3)",
                    params![start, end, corr, pid, n],
                );
            }
            Gpu::Memcpy => self.sql(
                "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, streamId, \
                 correlationId, globalPid, bytes, copyKind) VALUES (?1, ?2, 0, 1, 7, ?3, ?4, 1000, 1)",
                params![start, end, corr, pid],
            ),
            Gpu::Memset => self.sql(
                "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, contextId, streamId, \
                 correlationId, globalPid, value, bytes) VALUES (?1, ?2, 0, 1, 7, ?3, ?4, 0, 1000)",
                params![start, end, corr, pid],
            ),
        }
    }

    /// A kernel launched by one call of eventClass 0.
    fn kernel(&mut self, gtid: i64, call: (i64, i64), gpu: (i64, i64), name: &str) -> i64 {
        self.launch(gtid, &[(0, call.0, call.1)], gpu, Gpu::Kernel, name)
    }

    /// A memcpy row of `kind` (11 HtoD and 12 DtoH migrations) in process 100.
    fn migration(&self, kind: i64, bytes: i64, start: i64, end: i64, address: Option<i64>) {
        self.sql(
            "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, streamId, \
             globalPid, bytes, copyKind, migrationCause, virtualAddress) \
             VALUES (?1, ?2, 0, 1, 7, ?3, ?4, ?5, 2, ?6)",
            params![start, end, g(100, 0), bytes, kind, address],
        );
    }

    fn cpu_fault(&mut self, start: i64, address: i64, pc: i64, function: &str, module: &str) {
        let (f, m) = (self.string(function), self.string(module));
        self.sql(
            &format!("INSERT INTO {CPU} VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0)"),
            params![start, g(100, 0), address, pc, f, m],
        );
    }

    fn gpu_fault(&self, start: i64, address: i64, faults: i64) {
        self.sql(
            &format!("INSERT INTO {GPU} VALUES (?1, ?2, ?3, 0, ?4, ?5, 1)"),
            params![start, start + 50, g(100, 0), address, faults],
        );
    }
}

/// Nesting, domains, start/end ranges, ranges without end, calls across a range's edge,
/// duplicated runtime rows, correlationIds reused across processes, operations outside ranges.
fn nvtx_edges(x: &mut Export) {
    x.tables(&[NVTX, RUNTIME, KERNEL, MEMCPY, MEMSET]);
    per_thread_edges(x);
    parent_choice(x);
    unended_and_projection_order(x);
    outside_ranges_and_trace_order(x);
}

/// Process 100 (and 200): ranges without end, domains, calls across a range's edges, equal
/// starts, start/end ranges, duplicated runtime rows, a reused correlationId, a late mark.
fn per_thread_edges(x: &mut Export) {
    // A push/pop range without end holding a kernel, a memcpy and a memset.
    let t = g(100, 1);
    x.nvtx(100, None, 59, t, "A_unended", 0);
    x.kernel(t, (150, 160), (1000, 1100), "k_T1");
    x.launch(t, &[(0, 170, 180)], (1200, 1300), Gpu::Memcpy, "");
    x.launch(t, &[(0, 190, 195)], (1400, 1410), Gpu::Memset, "");
    // Domains overlapping without nesting; a domain without a name.
    let t = g(100, 2);
    x.nvtx(50, None, 75, t, "D1", 1);
    x.nvtx(100, Some(400), 59, t, "X", 1);
    x.nvtx(200, Some(600), 59, t, "Y", 0);
    x.nvtx(220, Some(380), 59, t, "Z_nodomain", 5);
    x.kernel(t, (250, 260), (2000, 2100), "k_T2_both");
    x.kernel(t, (450, 460), (2200, 2300), "k_T2_Y");
    x.kernel(t, (700, 710), (2400, 2500), "k_T2_loose");
    // Calls across the range's edges, and on them.
    let t = g(100, 3);
    x.nvtx(100, Some(200), 59, t, "R", 0);
    x.kernel(t, (150, 250), (3000, 3100), "k_T3_straddle_end");
    x.kernel(t, (50, 150), (3200, 3300), "k_T3_straddle_start");
    x.kernel(t, (100, 200), (3400, 3500), "k_T3_exact");
    // Equal starts; identical ranges.
    let t = g(100, 4);
    x.nvtx(100, Some(200), 59, t, "tie_inner", 0);
    x.nvtx(100, Some(300), 59, t, "tie_outer", 0);
    x.nvtx(400, Some(500), 59, t, "same_a", 0);
    x.nvtx(400, Some(500), 59, t, "same_b", 0);
    x.kernel(t, (150, 160), (4000, 4100), "k_T4_a");
    x.kernel(t, (450, 460), (4200, 4300), "k_T4_b");
    // Start/end ranges: one on its thread, one ending on another thread.
    let t = g(100, 5);
    x.nvtx(100, Some(300), 60, t, "SE1", 0);
    x.nvtx_to(150, Some(250), 60, t, "SE2_cross", 0, Some(g(100, 6)));
    x.nvtx(120, Some(280), 59, t, "PP_in_SE", 0);
    x.kernel(t, (160, 170), (5000, 5100), "k_T5");
    // A call stored twice (eventClass 0 and 67), once across the range's end.
    let t = g(100, 7);
    x.nvtx(100, Some(200), 59, t, "Q", 0);
    x.launch(
        t,
        &[(0, 150, 160), (67, 140, 210)],
        (7000, 7100),
        Gpu::Kernel,
        "k_T7_dup",
    );
    x.launch(
        t,
        &[(0, 150, 160), (67, 145, 170)],
        (7200, 7300),
        Gpu::Kernel,
        "k_T7_dup_in",
    );
    // Another process reusing correlationId 1.
    let t = g(200, 1);
    x.nvtx(100, Some(200), 59, t, "P200", 0);
    x.launch_as(1, t, &[(0, 150, 160)], (9000, 9100), Gpu::Kernel, "k_P200");
    // A thread without ranges; a late mark.
    x.kernel(g(100, 8), (150, 160), (8000, 8100), "k_T8");
    x.nvtx(6000, None, 34, g(100, 9), "late_mark", 0);
}

/// Process 10: the parent is the shortest container, identical ranges.
fn parent_choice(x: &mut Export) {
    // Parents: the shortest container, not the one ending first or starting last.
    let t = g(10, 1);
    x.nvtx(100, Some(450), 59, t, "a_P1_minend", 0);
    x.nvtx(250, Some(500), 59, t, "a_P2_mindur", 0);
    x.nvtx(300, Some(400), 59, t, "a_C", 0);
    x.kernel(t, (350, 360), (1000, 1100), "k_a");
    let t = g(10, 2);
    x.nvtx(250, Some(600), 59, t, "b_A_maxstart", 0);
    x.nvtx(200, Some(500), 59, t, "b_B_minend", 0);
    x.nvtx(300, Some(400), 59, t, "b_C", 0);
    x.kernel(t, (350, 360), (1000, 1100), "k_b");
    // Three identical ranges inside a big one, one inside them.
    let t = g(10, 3);
    x.nvtx(0, Some(1000), 59, t, "c_big", 0);
    for name in ["c_same1", "c_same2", "c_same3"] {
        x.nvtx(100, Some(200), 59, t, name, 0);
    }
    x.nvtx(120, Some(180), 59, t, "c_inner", 0);
    x.kernel(t, (150, 160), (1000, 1100), "k_c");
}

/// Ranges without end, and the projection order by range id.
fn unended_and_projection_order(x: &mut Export) {
    // Ranges without end end at the latest end: of push/pop ranges for the trace, of both
    // kinds for the projection.
    let t = g(30, 1);
    x.nvtx(100, None, 59, t, "unended30", 0);
    x.kernel(t, (150, 160), (1000, 1100), "k_u30");
    x.kernel(t, (4000, 4010), (4100, 4200), "k_u30_late");
    x.nvtx(100, Some(350), 59, g(30, 2), "r30", 0);
    x.nvtx(100, Some(5000), 59, g(10, 4), "pp_until_5000", 0);
    x.nvtx(100, Some(7000), 60, g(40, 1), "se_until_7000", 0);
    // Projection order: by range id.
    x.nvtx(100, Some(200), 59, g(50, 1), "d_first_id_late_proj", 0);
    x.kernel(g(50, 1), (150, 160), (9000, 9100), "k_d1");
    x.nvtx(100, Some(200), 59, g(50, 2), "d_second_id_early_proj", 0);
    x.kernel(g(50, 2), (150, 160), (8000, 8100), "k_d2");
}

/// Operations outside ranges, trace order for equal start and end, start/end ranges with an
/// end thread.
fn outside_ranges_and_trace_order(x: &mut Export) {
    // Operations outside ranges on several threads and processes.
    x.kernel(g(60, 1), (100, 110), (1000, 1100), "k_e1");
    x.kernel(g(60, 2), (50, 60), (2000, 2100), "k_e2");
    x.kernel(g(60, 3), (300, 310), (500, 600), "k_e3");
    x.kernel(g(60, 1), (400, 410), (3000, 3100), "k_e1b");
    x.launch(g(60, 2), &[(0, 420, 430)], (3200, 3300), Gpu::Memcpy, "");
    for _ in 0..3 {
        x.kernel(g(70, 5), (420, 430), (200, 300), "k_f");
    }
    x.kernel(g(70, 4), (420, 430), (200, 300), "k_g");
    // Trace order for equal start and end.
    x.nvtx(100, Some(200), 59, g(80, 1), "g_x", 0);
    x.nvtx(50, Some(300), 59, g(80, 2), "g_big", 0);
    x.nvtx(100, Some(200), 59, g(80, 2), "g_in_big", 0);
    x.nvtx(100, Some(200), 59, g(80, 3), "g_z", 0);
    // Start/end ranges with an end thread (even their own) are left out.
    let t = g(90, 1);
    x.nvtx(50, None, 75, t, "D9", 1);
    x.nvtx_to(100, Some(300), 60, t, "se_endtid_same", 0, Some(t));
    x.kernel(t, (150, 160), (1000, 1100), "k_90_1");
    let t = g(90, 2);
    x.nvtx(100, Some(300), 60, t, "se_dom1_endtid_null", 1);
    x.kernel(t, (150, 160), (1000, 1100), "k_90_2");
}

/// NVTX without CUDA: the projections need the CUDA API, the kernel summary kernels.
fn nvtx_only(x: &mut Export) {
    x.tables(&[NVTX]);
    x.nvtx(100, Some(500), 59, g(1, 1), "outer", 0);
    x.nvtx(200, Some(300), 59, g(1, 1), "inner", 0);
}

/// NVTX and CUDA API calls without GPU operations.
fn nvtx_runtime(x: &mut Export) {
    x.tables(&[NVTX, RUNTIME]);
    x.nvtx(100, Some(500), 59, g(1, 1), "outer", 0);
}

/// NVTX and kernels without CUDA API calls.
fn nvtx_kernel(x: &mut Export) {
    x.tables(&[NVTX, KERNEL]);
    x.nvtx(100, Some(500), 59, g(1, 1), "outer", 0);
}

const VA: i64 = 0x7F00_0000_0000;

/// Migrations both ways, device-to-device and ordinary copies, CPU and GPU faults, more
/// addresses than the default 10 rows.
fn um_basic(x: &mut Export) {
    x.tables(&[MEMCPY, CPU, GPU]);
    x.migration(11, 4096, 1000, 1100, Some(VA));
    x.migration(11, 65536, 1200, 1500, Some(VA));
    x.migration(12, 4096, 2000, 2050, Some(VA));
    x.migration(11, 2_097_152, 3000, 4000, Some(VA + 0x20_0000));
    x.migration(12, 1_048_576, 5000, 5600, Some(VA + 0x20_0000));
    x.migration(13, 8192, 6000, 6100, Some(VA + 0x40_0000));
    x.migration(1, 1_000_000, 7000, 8000, None);
    x.migration(11, 12288, 9000, 9003, Some(VA + 0x60_0000));
    x.migration(12, 333, 9100, 9107, Some(VA + 0x60_0000));
    for i in 0..12 {
        let kind = if i % 3 == 0 { 12 } else { 11 };
        let start = 10_000 + 100 * i;
        x.migration(
            kind,
            4096 * (i + 1),
            start,
            start + 7 * (i + 1),
            Some(VA + 0x100_0000 + 0x1_0000 * i),
        );
    }
    for i in 0..5 {
        x.cpu_fault(500 + i, VA, 0x40_1000, "main", "/app/a.out");
    }
    for i in 0..3 {
        x.cpu_fault(
            600 + i,
            VA + 0x20_0000,
            0x40_1200,
            "fill(float*, int)",
            "/app/a.out",
        );
    }
    x.cpu_fault(700, VA + 0x80_0000, 0x7F_F000, "memset", "libc.so.6");
    x.cpu_fault(701, VA + 0x80_0000, 0x7F_F010, "memset", "libc.so.6");
    x.cpu_fault(702, VA + 0x20_0000, 0x40_1000, "main", "/app/b.out");
    x.gpu_fault(800, VA, 3);
    x.gpu_fault(900, VA + 0x20_0000, 5);
    x.gpu_fault(950, VA + 0x20_0000, 1);
    x.gpu_fault(1000, VA + 0xA0_0000, 2);
}

/// Throughputs: nsys divides 10⁹ by the nanoseconds as integers.
fn um_throughput(x: &mut Export) {
    x.tables(&[MEMCPY, CPU, GPU]);
    let base = 0x1000_0000;
    let mut k = 0;
    let mut next = || {
        k += 1;
        Some(base + k * 0x1000)
    };
    for start in [10, 1000, 100_000, 10_000_000, 1_000_000_000] {
        x.migration(11, 4096, start, start + 7, next());
    }
    for bytes in [1, 10, 409_600, 40_960_000] {
        x.migration(11, bytes, 700, 707, next());
    }
    let durations = (1..=20).chain([
        50, 64, 70, 100, 128, 700, 1000, 1024, 7000, 10_000, 123_456, 1_000_000,
    ]);
    for d in durations {
        x.migration(11, 1_000_000_000_000, 500, 500 + d, next());
    }
}

/// Equal throughputs keep nsys's order: CPU-fault, GPU-fault, DtoH, HtoD addresses.
fn um_ties(x: &mut Export) {
    x.tables(&[MEMCPY, CPU, GPU]);
    let plan = [
        (12, "H"),
        (3, "HD"),
        (9, "cpu"),
        (1, "H"),
        (14, "cpu"),
        (5, "D"),
        (10, "gpu"),
        (7, "H+cpu"),
        (2, "D"),
        (13, "D"),
        (15, "gpu"),
        (6, "HD"),
        (11, "cpu+gpu"),
        (4, "H"),
        (8, "D+gpu"),
    ];
    for (k, what) in plan {
        let va = 0x1000_0000 + k * 0x1000;
        if what.starts_with("HD") {
            x.migration(11, 500_000, 100, 600, Some(va));
            x.migration(12, 500_000, 700, 1200, Some(va));
        } else if what.starts_with('H') {
            x.migration(11, 1_000_000, 100, 1100, Some(va));
        } else if what.starts_with('D') {
            x.migration(12, 1_000_000, 100, 1100, Some(va));
        }
        if what.contains("cpu") {
            x.cpu_fault(10, va, 1, "f", "m");
        }
        if what.contains("gpu") {
            x.gpu_fault(10, va, 1);
        }
    }
}

/// Sizes round on the binary value; no time, no throughput; equal fault counts keep the
/// instructions' string id order.
fn um_rounding(x: &mut Export) {
    x.tables(&[MEMCPY, CPU, GPU]);
    x.string("zeta");
    x.string("alpha");
    let base = 0x1000_0000;
    let sizes = [
        500, 1500, 2500, 3500, 4500, 5500, 6500, 7500, 8500, 9500, 1_234_500, 1000,
    ];
    for (k, bytes) in (1..).zip(sizes) {
        x.migration(11, bytes, 100, 100 + 7 * k, Some(base + k * 0x1000));
    }
    x.migration(12, 4096, 100, 100, Some(base + 13 * 0x1000));
    x.migration(13, 4096, 100, 200, Some(base - 0x1000));
    x.migration(1, 4096, 100, 200, Some(base - 0x2000));
    x.migration(1, 4096, 100, 200, None);
    for f in ["zeta", "alpha"] {
        x.cpu_fault(10, base - 0x3000, 1, f, "mod");
    }
    for f in ["zeta", "alpha"] {
        x.cpu_fault(10, base + 0x10_0000, 1, f, "mod");
    }
    x.cpu_fault(10, base + 0x1000, 1, "beta", "mod");
    x.gpu_fault(10, base + 0x20_0000, 4);
}

/// Migrations without address: DtoH and HtoD stay apart; one direction without any address
/// empties the address range.
fn um_nulls(x: &mut Export) {
    x.tables(&[MEMCPY, CPU, GPU]);
    for f in ["m_first_id", "c_second_id", "x_third_id"] {
        x.string(f);
    }
    let base = 0x1000_0000;
    x.migration(1, 4096, 100, 200, Some(0x1000));
    x.migration(13, 4096, 100, 200, Some(0x7FFF_FFFF_0000));
    x.migration(11, 4096, 100, 200, Some(base));
    x.migration(11, 8192, 100, 300, None);
    x.migration(12, 8192, 100, 300, None);
    for f in ["x_third_id", "c_second_id", "m_first_id"] {
        x.cpu_fault(10, base, 1, f, "mod");
    }
    x.gpu_fault(10, base + 0x1000, 2);
}

/// All tables, no GPU fault.
fn um_no_gpu_faults(x: &mut Export) {
    x.tables(&[MEMCPY, CPU, GPU]);
    x.migration(11, 4096, 100, 200, Some(0x1000_1000));
    x.migration(12, 4096, 100, 200, Some(0x1000_2000));
    x.cpu_fault(10, 0x1000_3000, 1, "f", "m");
}

/// No GPU fault table.
fn um_no_gpu_table(x: &mut Export) {
    x.tables(&[MEMCPY, CPU]);
    x.migration(11, 4096, 100, 200, Some(0x1000_1000));
    x.cpu_fault(10, 0x1000_3000, 1, "f", "m");
}

/// Faults without a memcpy table.
fn um_faults_only(x: &mut Export) {
    x.tables(&[CPU, GPU]);
    x.cpu_fault(10, 0x1000_3000, 1, "f", "m");
    x.gpu_fault(10, 0x1000_4000, 1);
}
