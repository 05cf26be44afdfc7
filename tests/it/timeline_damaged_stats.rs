//! `nsys stats` reports on damaged exports: a report over a table with a damaged page is
//! computed from the rows SQLite can still read, with a warning naming the table and the rows
//! lost; a report that needs a table whose root page is damaged fails naming the table while
//! the other reports work; `sightline stats` says so on stderr and in its exit status, its
//! stdout keeping the shape of an intact export's.
//!
//! The damaged copies are made from generated exports by `sightline_test_support::damage`, so
//! the rows a damaged page held are known.

use std::path::{Path, PathBuf};
use std::process::Command;

use sightline::timeline::nsys::ExportDb;
use sightline::timeline::nsys::stats::{self, ReportOutcome, ReportTable};
use sightline::timeline::nsys::trace::Trace;
use sightline::timeline::nsys::{self, NsysError};
use sightline::timeline::{EventKind, Timeline};
use sightline_test_support::damage::{overwrite_page, root_page, table_leaves};
use sightline_test_support::nsys::{SynthOptions, write_export};

const KERNEL: &str = "CUPTI_ACTIVITY_KIND_KERNEL";
const RUNTIME: &str = "CUPTI_ACTIVITY_KIND_RUNTIME";

pub(crate) fn synth(dir: &Path) -> PathBuf {
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

/// A copy of `path` with the `which`-th leaf page of `table` overwritten with `fill`, and the
/// rowids the page held.
pub(crate) fn damage_leaf(path: &Path, table: &str, which: usize, fill: u8) -> (PathBuf, Vec<i64>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{e}"));
    let root = root_page(path, table).unwrap_or_else(|e| panic!("{e}"));
    let leaves = table_leaves(&bytes, root).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        leaves.len() > which + 2,
        "{table} has {} leaves",
        leaves.len()
    );
    let leaf = &leaves[which];
    let copy = path.with_file_name(format!("{table}_{which}_{fill}.sqlite"));
    std::fs::copy(path, &copy).unwrap_or_else(|e| panic!("{e}"));
    overwrite_page(&copy, leaf.page, fill).unwrap_or_else(|e| panic!("{e}"));
    (copy, leaf.rowids.clone())
}

/// A copy of `path` whose `table` has its root page overwritten: no row of it reads.
pub(crate) fn damage_root(path: &Path, table: &str) -> PathBuf {
    let root = root_page(path, table).unwrap_or_else(|e| panic!("{e}"));
    let copy = path.with_file_name(format!("{table}_root.sqlite"));
    std::fs::copy(path, &copy).unwrap_or_else(|e| panic!("{e}"));
    overwrite_page(&copy, root, 0xFF).unwrap_or_else(|e| panic!("{e}"));
    copy
}

fn report(path: &Path, name: &str) -> Result<ReportOutcome, NsysError> {
    let db = ExportDb::open(path).unwrap_or_else(|e| panic!("{e}"));
    stats::run_report(&db, name)
}

fn table(path: &Path, name: &str) -> ReportTable {
    match report(path, name) {
        Ok(ReportOutcome::Table(t)) => t,
        other => panic!("{}: {name}: {other:?}", path.display()),
    }
}

/// The sum of column `header` (the instance counts of a summary).
fn column_sum(t: &ReportTable, header: &str) -> u64 {
    let col = t
        .columns
        .iter()
        .position(|c| c == header)
        .unwrap_or_else(|| panic!("{}: no column {header}: {:?}", t.report, t.columns));
    (0..t.rows.len())
        .map(|r| {
            let cell = t.rows.cell(r, col).unwrap_or_else(|| panic!("row {r}"));
            // An empty cell: none (um_sum's addresses without faults).
            let text = cell.as_str();
            if text.is_empty() {
                return 0;
            }
            text.parse::<u64>()
                .unwrap_or_else(|e| panic!("{}: {header} {text:?}: {e}", t.report))
        })
        .sum()
}

fn count(tl: &Timeline, kind: EventKind) -> u64 {
    tl.counts_by_kind()
        .into_iter()
        .find(|(k, _)| *k == kind)
        .map_or(0, |(_, n)| n as u64)
}

#[test]
fn summaries_over_a_damaged_leaf_count_the_rows_that_read() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = synth(dir.path());
    let kernels = table(&path, "cuda_gpu_kern_sum");
    let calls = table(&path, "cuda_api_sum");
    assert!(kernels.warnings.is_empty() && calls.warnings.is_empty());
    for (damaged, name, header, whole, kind) in [
        (
            KERNEL,
            "cuda_gpu_kern_sum",
            "Instances",
            &kernels,
            EventKind::Kernel,
        ),
        (
            RUNTIME,
            "cuda_api_sum",
            "Num Calls",
            &calls,
            EventKind::CudaApi,
        ),
    ] {
        for fill in [0x00, 0xA5] {
            let (copy, lost) = damage_leaf(&path, damaged, 3, fill);
            let what = format!("{damaged} filled with {fill:#x}");
            let t = table(&copy, name);
            let read = column_sum(&t, header);
            assert_eq!(
                read,
                column_sum(whole, header) - lost.len() as u64,
                "{what}: every row but the {} of the page",
                lost.len()
            );
            let tl = nsys::load(&copy).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(read, count(&tl, kind), "{what}: the loader reads as many");
            assert_eq!(t.columns, whole.columns, "{what}");
            let expected = format!(
                "table {damaged}: damaged pages: rowids {}–{} could not be read ({} rows lost); \
                 the report covers the rows before and after them",
                lost[0],
                lost[lost.len() - 1],
                lost.len()
            );
            assert_eq!(t.warnings, vec![expected], "{what}");
            // The other table's report is whole, and says nothing.
            let other = if name == "cuda_api_sum" {
                "cuda_gpu_kern_sum"
            } else {
                "cuda_api_sum"
            };
            let intact = if name == "cuda_api_sum" {
                &kernels
            } else {
                &calls
            };
            assert_eq!(&table(&copy, other), intact, "{what}: {other}");
        }
    }
}

/// Every report that an intact export computes is computed on copies with a damaged kernel or
/// runtime leaf (JOIN-free readers, aggregates and `ORDER BY` queries alike): those that read
/// the damaged table say so, naming it; the others are exactly the intact export's.
#[test]
fn every_report_is_computed_around_a_damaged_leaf() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = synth(dir.path());
    let kernel_readers = [
        "cuda_api_gpu_sum",
        "cuda_gpu_kern_gb_sum",
        "cuda_gpu_kern_sum",
        "cuda_gpu_sum",
        "cuda_gpu_trace",
        "cuda_kern_exec_sum",
        "cuda_kern_exec_trace",
        "nvtx_gpu_proj_sum",
        "nvtx_gpu_proj_trace",
        "nvtx_kern_sum",
    ];
    let runtime_readers = [
        "cuda_api_gpu_sum",
        "cuda_api_sum",
        "cuda_api_trace",
        "cuda_kern_exec_sum",
        "cuda_kern_exec_trace",
        "nvtx_gpu_proj_sum",
        "nvtx_gpu_proj_trace",
        "nvtx_kern_sum",
    ];
    for (damaged, readers) in [
        (KERNEL, &kernel_readers[..]),
        (RUNTIME, &runtime_readers[..]),
    ] {
        let (copy, _) = damage_leaf(&path, damaged, 3, 0x00);
        let mut warned = Vec::new();
        for name in stats::report_names() {
            let Ok(intact) = report(&path, name) else {
                continue;
            };
            match (intact, report(&copy, name)) {
                (ReportOutcome::Table(whole), Ok(ReportOutcome::Table(t))) => {
                    if t.warnings.is_empty() {
                        assert_eq!(t, whole, "{damaged}: {name}");
                    } else {
                        assert!(
                            t.warnings.iter().all(|w| w.contains(damaged)),
                            "{damaged}: {name}: {:?}",
                            t.warnings
                        );
                        assert!(!t.rows.is_empty(), "{damaged}: {name}");
                        warned.push(name);
                    }
                }
                (ReportOutcome::Skipped(a), Ok(ReportOutcome::Skipped(b))) => {
                    let a = a.replace(&*path.to_string_lossy(), "");
                    assert_eq!(a, b.replace(&*copy.to_string_lossy(), ""), "{name}");
                }
                (_, got) => panic!("{damaged}: {name}: {got:?}"),
            }
        }
        assert_eq!(warned, readers, "{damaged}: the reports that read it");
    }
}

#[test]
fn a_table_whose_root_is_unreadable_fails_its_reports_by_name() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = synth(dir.path());
    let copy = damage_root(&path, KERNEL);
    match report(&copy, "cuda_gpu_kern_sum") {
        Err(e @ NsysError::DamagedTable { .. }) => {
            let text = e.to_string();
            assert!(text.contains(KERNEL), "{text}");
            assert!(text.contains("cuda_gpu_kern_sum"), "{text}");
        }
        other => panic!("{other:?}"),
    }
    // A report of another table is whole and quiet.
    assert_eq!(table(&copy, "cuda_api_sum"), table(&path, "cuda_api_sum"));
    // A report over the kernels and the memory operations keeps the operations, and says
    // that the kernels could not be read.
    let t = table(&copy, "cuda_gpu_sum");
    assert!(!t.rows.is_empty());
    assert_eq!(
        t.warnings,
        vec![format!(
            "table {KERNEL}: damaged pages: the table could not be read; the report leaves \
             its rows out"
        )]
    );
    // A batch fails as a whole (the CLI); the app runs each with its own outcome: the kernel
    // summary fails by name, the others are what they are alone.
    assert!(stats::run_reports(&copy, stats::DEFAULT_REPORTS).is_err());
    let each = stats::run_each(&copy, stats::DEFAULT_REPORTS).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = each.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, stats::DEFAULT_REPORTS);
    for (name, outcome) in &each {
        match (name.as_str(), outcome) {
            ("cuda_gpu_kern_sum", Err(NsysError::DamagedTable { .. })) => {}
            ("cuda_gpu_kern_sum", other) => panic!("{other:?}"),
            (name, outcome) => {
                let alone = report(&copy, name).map(|o| format!("{o:?}"));
                let here = outcome.as_ref().map(|o| format!("{o:?}"));
                assert_eq!(
                    here.map_err(|e| e.to_string()),
                    alone.map_err(|e| e.to_string()),
                    "{name}"
                );
                assert!(outcome.is_ok(), "{name}: {outcome:?}");
            }
        }
    }
}

/// The unified-memory reports run aggregates and `GROUP BY` in SQL: around a damaged leaf of
/// the CPU page-fault table they are run again over the rows that read.
#[test]
fn aggregates_over_a_damaged_leaf_count_the_rows_that_read() {
    const CPU: &str = "CUDA_UM_CPU_PAGE_FAULT_EVENTS";
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("um.sqlite");
    let fixture =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/nsys/reports/um/um_basic.sqlite");
    std::fs::copy(&fixture, &path).unwrap_or_else(|e| panic!("{e}"));
    {
        // 11 faults doubled 9 times: enough rows for many leaf pages.
        let conn = rusqlite::Connection::open(&path).unwrap_or_else(|e| panic!("{e}"));
        for _ in 0..9 {
            conn.execute(&format!("INSERT INTO {CPU} SELECT * FROM {CPU}"), [])
                .unwrap_or_else(|e| panic!("{e}"));
        }
    }
    let faults = |t: &ReportTable, header: &str| column_sum(t, header);
    let by_instruction = table(&path, "um_cpu_page_faults_sum");
    let total = table(&path, "um_total_sum");
    assert_eq!(faults(&by_instruction, "CPU Page Faults"), 11 << 9);
    assert_eq!(faults(&total, "Total CPU Page Faults"), 11 << 9);
    let (copy, lost) = damage_leaf(&path, CPU, 3, 0xA5);
    let left = (11 << 9) - lost.len() as u64;
    for (name, header) in [
        ("um_cpu_page_faults_sum", "CPU Page Faults"),
        ("um_total_sum", "Total CPU Page Faults"),
        ("um_sum:rows=-1", "CPU Page Faults"),
    ] {
        let t = table(&copy, name);
        assert_eq!(faults(&t, header), left, "{name}");
        assert_eq!(t.warnings.len(), 1, "{name}: {:?}", t.warnings);
        assert!(
            t.warnings[0].starts_with(&format!("table {CPU}: damaged pages: rowids "))
                && t.warnings[0].contains(&format!("({} rows lost)", lost.len())),
            "{name}: {:?}",
            t.warnings
        );
    }
}

fn sightline() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sightline"))
}

/// Runs `sightline stats FILES EXTRA --format csv --report REPORTS`: exit code, stdout, stderr.
pub(crate) fn stats_csv(
    files: &[&Path],
    extra: &[&str],
    reports: &str,
) -> (Option<i32>, String, String) {
    let out = sightline()
        .arg("stats")
        .args(files)
        .args(extra)
        .args(["--format", "csv", "--report", reports])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The CSV of one report in a multi-report output (`# name` to the next blank line).
fn section<'a>(csv: &'a str, name: &str) -> Option<&'a str> {
    let start = csv.find(&format!("# {name}\n"))?;
    let rest = &csv[start..];
    Some(rest.find("\n\n").map_or(rest, |end| &rest[..end]))
}

#[test]
fn the_command_line_warns_on_stderr_and_fails_only_unreadable_reports() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = synth(dir.path());
    let reports = "cuda_gpu_kern_sum,cuda_api_sum";
    let (code, intact, stderr) = stats_csv(&[&path], &[], reports);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stderr, "");

    let (copy, lost) = damage_leaf(&path, KERNEL, 3, 0x00);
    let (code, out, stderr) = stats_csv(&[&copy], &[], reports);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        stderr,
        format!(
            "cuda_gpu_kern_sum: warning: table {KERNEL}: damaged pages: rowids {}–{} could not \
             be read ({} rows lost); the report covers the rows before and after them\n",
            lost[0],
            lost[lost.len() - 1],
            lost.len()
        )
    );
    // Same shape: the same sections and headers; the runtime report unchanged.
    let lines = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| l.starts_with('#') || l.starts_with("Time"))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(lines(&out), lines(&intact));
    assert_eq!(
        section(&out, "cuda_api_sum"),
        section(&intact, "cuda_api_sum")
    );
    assert_ne!(
        section(&out, "cuda_gpu_kern_sum"),
        section(&intact, "cuda_gpu_kern_sum")
    );

    let copy = damage_root(&path, KERNEL);
    let (code, out, stderr) = stats_csv(&[&copy], &[], reports);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.starts_with("cuda_gpu_kern_sum: FAILED: ") && stderr.contains(KERNEL),
        "{stderr}"
    );
    assert_eq!(
        section(&out, "cuda_api_sum"),
        section(&intact, "cuda_api_sum")
    );
    assert_eq!(section(&out, "cuda_gpu_kern_sum"), None, "{out}");
}

/// `sightline analyze`'s view of the export reads around the damage too.
#[test]
fn the_rules_trace_reads_around_a_damaged_leaf() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = synth(dir.path());
    let whole = Trace::open(&path).unwrap_or_else(|e| panic!("{e}"));
    assert!(whole.warnings.is_empty());
    let (copy, lost) = damage_leaf(&path, KERNEL, 3, 0x00);
    let trace = Trace::open(&copy).unwrap_or_else(|e| panic!("{e}"));
    let gpu = |t: &Trace| t.table("gpu").map_or(0, |g| g.len());
    assert_eq!(gpu(&trace), gpu(&whole) - lost.len());
    assert_eq!(trace.warnings.len(), 1, "{:?}", trace.warnings);
    assert!(
        trace.warnings[0].contains(KERNEL)
            && trace.warnings[0].contains(&format!("({} rows lost)", lost.len())),
        "{:?}",
        trace.warnings
    );
}

/// `sightline analyze` on a damaged export: the rules run on the rows that read, and stderr
/// says what was lost.
#[test]
fn analyze_runs_on_a_damaged_export_and_says_what_was_lost() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = synth(dir.path());
    let (copy, lost) = damage_leaf(&path, KERNEL, 3, 0x00);
    let out = sightline()
        .arg("analyze")
        .arg(&copy)
        .args(["--format", "csv"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "table {KERNEL}: damaged pages: rowids {}–{} could not be read ({} rows lost)",
            lost[0],
            lost[lost.len() - 1],
            lost.len()
        )),
        "{stderr}"
    );
    assert!(!out.stdout.is_empty());
}

/// The rules' DX12 memory operations are a join of two tables: around a damaged leaf of
/// either, the trace holds the operations whose rows (and API call) read.
#[test]
fn the_rules_trace_joins_around_a_damaged_leaf() {
    const MEMORY: &str = "DX12_MEMORY_OPERATION";
    const API: &str = "DX12_API";
    const ROWS: usize = 5_000;
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = synth(dir.path());
    {
        let conn = rusqlite::Connection::open(&path).unwrap_or_else(|e| panic!("{e}"));
        conn.execute_batch(&format!(
            "CREATE TABLE {API} (id INTEGER NOT NULL PRIMARY KEY, start INTEGER NOT NULL, \
             end INTEGER NOT NULL, globalTid INTEGER, nameId INTEGER);
             CREATE TABLE {MEMORY} (traceEventId INTEGER NOT NULL, gpu INTEGER, \
             heapType INTEGER, heapFlags INTEGER, cpuPageProperty INTEGER, \
             rangeStart INTEGER, rangeEnd INTEGER);
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {ROWS})
             INSERT INTO {API} SELECT i, 1000 * i, 1000 * i + 500, 1, 1 FROM n;
             INSERT INTO {MEMORY} SELECT id, 0, 1, 2, 3, 4096 * id, 4096 * id + 4095 FROM {API};"
        ))
        .unwrap_or_else(|e| panic!("{e}"));
    }
    let dx12 = |t: &Trace| t.table("dx12_mem").map_or(0, |d| d.len());
    let whole = Trace::open(&path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(dx12(&whole), ROWS);
    assert!(whole.warnings.is_empty());
    for table in [MEMORY, API] {
        let (copy, lost) = damage_leaf(&path, table, 3, 0x00);
        let trace = Trace::open(&copy).unwrap_or_else(|e| panic!("{table}: {e}"));
        assert_eq!(dx12(&trace), ROWS - lost.len(), "{table}");
        assert!(
            trace
                .warnings
                .iter()
                .any(|w| w.starts_with(&format!("table {table}: "))
                    && w.contains(&format!("({} rows lost)", lost.len()))),
            "{table}: {:?}",
            trace.warnings
        );
    }
}

/// Every report on damaged copies of the corpus exports (a leaf of the largest table zeroed,
/// overwritten or bit-flipped, its root zeroed, the file cut short): each is computed from the
/// rows that read or fails naming the unreadable table, never with SQLite's "malformed". A row
/// that reads but whose flipped bits made a time text fails its summary as on an intact export
/// (a summary does not leave rows out silently), naming the table and the rowid.
#[test]
fn reports_on_damaged_copies_of_the_corpus_never_fail_on_readable_rows() {
    let Some(files) = crate::timeline_corpus::corpus() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut failures = Vec::new();
    let mut computed = 0;
    for file in files {
        let copies = sightline_test_support::damage::damaged_copies(&file, dir.path())
            .unwrap_or_else(|e| panic!("{e}"));
        for copy in copies {
            let what = format!("{} ({})", file.display(), copy.what);
            // A schema that does not read: only the loader salvages it.
            if let Ok(db) = ExportDb::open(&copy.path) {
                for name in stats::report_names() {
                    match stats::run_report(&db, name) {
                        Ok(_) => computed += 1,
                        Err(NsysError::DamagedTable { .. }) => {}
                        Err(NsysError::Query { table, detail, .. })
                            if !table.is_empty()
                                && detail.starts_with("rowid ")
                                && detail.ends_with(" not an integer") => {}
                        Err(e) => failures.push(format!("{what}: {name}: {e}")),
                    }
                }
            }
            std::fs::remove_file(&copy.path).ok();
        }
    }
    assert!(computed > 1000, "{computed} reports computed");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
