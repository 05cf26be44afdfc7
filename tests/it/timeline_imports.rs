//! Import statistics of every corpus export: every table with rows is listed with its row count
//! (checked against SQLite here), its rows split into events, attached and skipped that add up,
//! the events of all tables equal to the timeline's, and the tables Sightline reads never marked
//! "not read". Skips when ../shared is absent.

use std::collections::HashMap;

use rusqlite::{Connection, OpenFlags};
use sightline::timeline::nsys;
use sightline::timeline::nsys::NOT_READ;
use sightline::timeline::{EventKind, Timeline};

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
    "COMPOSITE_EVENTS",
    "SAMPLING_CALLCHAINS",
    "SCHED_EVENTS",
    "OSRT_CALLCHAINS",
    "CUDA_CALLCHAINS",
    // The Analysis Summary's tables.
    "META_DATA_CAPTURE",
    "TARGET_INFO_SYSTEM_ENV",
    "TARGET_INFO_CUDA_STREAM",
    "TARGET_INFO_CUDA_NULL_STREAM",
    "TARGET_INFO_CUDA_CONTEXT_INFO",
    "TARGET_INFO_NIC_INFO",
    "ANALYSIS_DETAILS",
    "ProcessStreams",
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
        // Every event comes from a row, but a running range is drawn twice: on its thread
        // and on its CPU (under the machine's "CPUs").
        let on_cpu_rows = tl
            .events()
            .filter(|e| {
                tl.locate(e.id)
                    .and_then(|(t, _)| tl.track(t)?.parent)
                    .and_then(|p| tl.track(p))
                    .is_some_and(|p| p.name == "CPUs")
            })
            .count() as u64;
        let (_, events, _, _) = imports.totals();
        assert_eq!(
            events,
            tl.event_count() as u64 - on_cpu_rows,
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

/// The frames of every CPU sample are the export's, innermost first, with unresolved frames
/// flagged; every sample sits on its thread; the running ranges of each thread cover exactly
/// its sched-in to sched-out spans.
/// A frame of a call stack: symbol, module, unresolved.
type Frame = (String, String, bool);

#[test]
fn cpu_samples_call_stacks_and_thread_states_equal_the_export() {
    let Some(files) = crate::timeline_corpus::corpus() else {
        return;
    };
    let mut samples_seen = 0;
    for file in files {
        let name = file.display().to_string();
        let conn = Connection::open_with_flags(&file, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
        let has = |t: &str| {
            conn.query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = ?1",
                [t],
                |r| r.get::<_, i64>(0),
            )
            .unwrap()
                > 0
        };
        if !has("COMPOSITE_EVENTS") || !has("SAMPLING_CALLCHAINS") || !has("SCHED_EVENTS") {
            continue;
        }
        let tl = nsys::load(&file).unwrap_or_else(|e| panic!("{e}"));
        let expected = expected_frames(&conn);
        let walked = walk_events(&name, &tl, &expected);
        let rows: i64 = conn
            .query_row("SELECT count(*) FROM COMPOSITE_EVENTS", [], |r| r.get(0))
            .unwrap();
        assert_eq!(walked.samples, rows as usize, "{name}");
        samples_seen += walked.samples;
        let want = running_time_per_thread(&name, &conn);
        check_running_time(&name, &tl, walked, &want);
    }
    if crate::timeline_corpus::corpus().is_some() {
        assert!(samples_seen > 0, "the corpus has CPU samples");
    }
}

/// The export's frames of each sample (by rowid), innermost first.
fn expected_frames(conn: &Connection) -> HashMap<u32, Vec<Frame>> {
    // rowid of the sample -> frames innermost first: (symbol, module, unresolved)
    let mut stmt = conn
        .prepare(
            "SELECT e.rowid, coalesce(s.value, ''), coalesce(m.value, ''), \
             coalesce(c.unresolved, 0) FROM COMPOSITE_EVENTS e \
             JOIN SAMPLING_CALLCHAINS c ON c.id = e.id \
             LEFT JOIN StringIds s ON s.id = c.symbol \
             LEFT JOIN StringIds m ON m.id = c.module ORDER BY e.rowid, c.stackDepth",
        )
        .unwrap();
    let mut expected: HashMap<u32, Vec<Frame>> = Default::default();
    let rows = stmt
        .query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)? as u32,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, i64>(3)? != 0,
            ))
        })
        .unwrap();
    for row in rows {
        let (rowid, symbol, module, unresolved) = row.unwrap();
        expected
            .entry(rowid)
            .or_default()
            .push((symbol, module, unresolved));
    }
    expected
}

/// What the timeline's events hold: the CPU samples and the running time of each thread
/// (on its Thread state row) and of each CPU row.
struct Walked {
    samples: usize,
    running_ns: HashMap<u32, i64>,
    cpu_ns: HashMap<u32, i64>,
}

/// Checks every CPU sample's frames and name against the export and sums the running ranges.
fn walk_events(name: &str, tl: &Timeline, expected: &HashMap<u32, Vec<Frame>>) -> Walked {
    let mut samples = 0;
    let mut running_ns: HashMap<u32, i64> = Default::default();
    let mut cpu_ns: HashMap<u32, i64> = Default::default();
    for e in tl.events() {
        match e.kind {
            EventKind::CpuSample => {
                samples += 1;
                let frames: Vec<Frame> = tl
                    .stack_of(e.id)
                    .map(|s| {
                        tl.stacks
                            .frames_of(s)
                            .map(|f| {
                                (
                                    tl.strings.get(f.symbol).to_owned(),
                                    tl.strings.get(f.module).to_owned(),
                                    f.unresolved,
                                )
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                let want = expected.get(&e.source).cloned().unwrap_or_default();
                assert_eq!(frames, want, "{name}: sample at rowid {}", e.source);
                let leaf = want.first().map_or("[no call stack]", |f| f.0.as_str());
                assert_eq!(tl.strings.get(e.name), leaf, "{name}");
            }
            EventKind::ThreadRunning => {
                let (track, _) = tl.locate(e.id).expect("a running range has a track");
                if tl.tracks[track.0 as usize].name != "Thread state" {
                    // The same range on its CPU's row.
                    *cpu_ns.entry(track.0).or_default() += e.end - e.start;
                    continue;
                }
                let thread = tl.tracks[track.0 as usize]
                    .parent
                    .expect("the Thread state row has a thread");
                *running_ns.entry(thread.0).or_default() += e.end - e.start;
            }
            _ => {}
        }
    }
    Walked {
        samples,
        running_ns,
        cpu_ns,
    }
}

/// Per thread: the sum of (sched-out - sched-in) of each in/out pair, in time order, sorted
/// (the threads scheduled in for a negative time left out).
fn running_time_per_thread(name: &str, conn: &Connection) -> Vec<i64> {
    let mut stmt = conn
        .prepare("SELECT globalTid, start, isSchedIn FROM SCHED_EVENTS ORDER BY start, rowid")
        .unwrap();
    let mut open: HashMap<i64, i64> = Default::default();
    let mut total_by_gtid: HashMap<i64, i64> = Default::default();
    let rows = stmt
        .query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, i64>(2)?,
            ))
        })
        .unwrap();
    for row in rows {
        let (gtid, t, sched_in) = row.unwrap();
        if sched_in != 0 {
            if let Some(s) = open.insert(gtid, t) {
                *total_by_gtid.entry(gtid).or_default() += t - s;
            }
        } else if let Some(s) = open.remove(&gtid) {
            *total_by_gtid.entry(gtid).or_default() += t - s;
        }
    }
    assert!(
        open.is_empty(),
        "{name}: the corpus' threads all end scheduled out"
    );
    let mut want: Vec<i64> = total_by_gtid.into_values().filter(|&n| n >= 0).collect();
    want.sort_unstable();
    want
}

/// The running time per thread, on the CPU rows and in the utilization equal the export's.
fn check_running_time(name: &str, tl: &Timeline, walked: Walked, want: &[i64]) {
    let mut got: Vec<i64> = walked.running_ns.into_values().collect();
    got.sort_unstable();
    assert_eq!(got, want, "{name}: running time per thread");
    // The CPU rows hold the same ranges.
    assert_eq!(
        walked.cpu_ns.values().sum::<i64>(),
        want.iter().sum::<i64>(),
        "{name}: running time on the CPU rows"
    );
    match tl.thread_utilization(None) {
        Some(cpu) => {
            assert_eq!(
                cpu.running_ns,
                want.iter().sum::<i64>(),
                "{name}: running time"
            );
            assert_eq!(cpu.threads, want.len(), "{name}: threads with states");
        }
        None => assert!(want.is_empty(), "{name}: thread states but no utilization"),
    }
}

/// Backtraces of CUDA API and OS runtime calls are the calls' own: the innermost resolved frame
/// of each call's stack is named like the call (`cudaMalloc` in `cudaMalloc`'s backtrace,
/// `__GI___poll` in `poll`'s), which fails for stacks matched off by one.
#[test]
fn call_backtraces_belong_to_their_calls() {
    let Some(files) = crate::timeline_corpus::corpus() else {
        return;
    };
    let (mut checked, mut cuda) = (0, 0);
    for file in files {
        let tl = nsys::load(&file).unwrap_or_else(|e| panic!("{e}"));
        let (mut with_stack, mut named) = (0, 0);
        for e in tl.events() {
            if !matches!(e.kind, EventKind::CudaApi | EventKind::OsRuntime) {
                continue;
            }
            let Some(stack) = tl.stack_of(e.id) else {
                continue;
            };
            // The innermost resolved frame: the call itself, or the C library's name for it
            // (`__GI___libc_open` for `open`, `_IO_fopen@@GLIBC_2` for `fopen`). Stacks the
            // export could not resolve at all (every frame an address) cannot be checked.
            let Some(innermost) = tl.stacks.frames_of(stack).find(|f| !f.unresolved) else {
                continue;
            };
            with_stack += 1;
            cuda += usize::from(e.kind == EventKind::CudaApi);
            named += usize::from(tl.name(innermost.symbol).contains(tl.name(e.name)));
        }
        // Allow the few whose innermost resolved frame is a caller (the call's own frame lost).
        assert!(
            named * 100 >= with_stack * 95,
            "{}: {named} of {with_stack} backtraces name their call",
            file.display()
        );
        checked += with_stack;
    }
    if crate::timeline_corpus::corpus().is_some() {
        assert!(checked > 0 && cuda > 0, "the corpus has backtraces");
    }
}

/// Tables drawn generically (profiler overhead, OpenACC, diagnostics, CUDA memory
/// allocations, file access...): every row is an event, and an event's details are its own row
/// (read back through the table its row remembers).
#[test]
fn other_timed_tables_are_events_with_their_rows_as_details() {
    let Some(files) = crate::timeline_corpus::corpus() else {
        return;
    };
    let mut tables_seen = std::collections::BTreeSet::new();
    for file in files {
        let name = file.display().to_string();
        let tl = nsys::load(&file).unwrap_or_else(|e| panic!("{e}"));
        for (track, table) in &tl.session.series_sources {
            tables_seen.insert(table.clone());
            let source = &tl.session.imports.sources[table];
            assert_eq!(source.events, source.rows, "{name}: {table}: {source:?}");
            let t = tl.track(*track).expect("the row exists");
            for row in &t.rows {
                for i in (row.start..row.end).take(5) {
                    let e = tl.event(sightline::timeline::EventId(i)).expect("event");
                    let details = sightline::timeline::nsys::event_details(&file, &tl, e.id)
                        .unwrap_or_else(|err| panic!("{name}: {table}: {err}"));
                    let start = details
                        .iter()
                        .find(|(c, _)| matches!(c.as_str(), "start" | "timestamp" | "startedAt"))
                        .map(|(_, v)| v.clone());
                    assert_eq!(
                        start,
                        Some(e.start.to_string()),
                        "{name}: {table}: the details are the event's row"
                    );
                }
            }
        }
    }
    if crate::timeline_corpus::corpus().is_some() {
        for table in [
            "PROFILER_OVERHEAD",
            "DIAGNOSTIC_EVENT",
            "CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH",
        ] {
            assert!(
                tables_seen.contains(table),
                "{table} is drawn: {tables_seen:?}"
            );
        }
    }
}

/// The records of `cudaEventRecord` calls (no time of their own) are attached to their calls:
/// every row of the corpus's `CUPTI_ACTIVITY_KIND_CUDA_EVENT` tables finds its call, whose
/// details list the event.
#[test]
fn cuda_event_records_belong_to_their_calls() {
    let Some(files) = crate::timeline_corpus::corpus() else {
        return;
    };
    let mut checked = 0;
    for path in files {
        let conn = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let Ok(rows) = conn.query_row(
            "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_CUDA_EVENT",
            [],
            |r| r.get::<_, i64>(0),
        ) else {
            continue;
        };
        if rows == 0 {
            continue;
        }
        let tl = nsys::load(&path).unwrap_or_else(|e| panic!("{e}"));
        let source = &tl.session.imports.sources["CUPTI_ACTIVITY_KIND_CUDA_EVENT"];
        assert_eq!(
            source.attached,
            rows as u64,
            "{}: {source:?}",
            path.display()
        );
        let (corr, event_id): (i64, i64) = conn
            .query_row(
                "SELECT correlationId, eventId FROM CUPTI_ACTIVITY_KIND_CUDA_EVENT LIMIT 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap_or_else(|e| panic!("{e}"));
        let call = tl
            .events()
            .find(|e| e.kind == EventKind::CudaApi && i64::from(e.correlation) == corr)
            .expect("the cudaEventRecord call");
        let details = nsys::event_details(&path, &tl, call.id).unwrap_or_default();
        assert!(
            details
                .iter()
                .any(|(k, v)| k == "CUDA event" && v.starts_with(&format!("event {event_id} "))),
            "{details:?}"
        );
        checked += 1;
    }
    assert!(checked > 0, "no export with CUDA event records");
}

/// The share of an export's event rows (rows of its tables with a time column) that must be on
/// the timeline: as events, or attached to one (a call stack, a record of its call).
const ON_TIMELINE: f64 = 99.5;

/// The tables of `conn` with a time column (`start`, `timestamp` or `rawTimestamp`).
fn timed_tables(conn: &Connection) -> Vec<String> {
    let mut stmt = conn
        .prepare(
            "SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) c \
             WHERE m.type = 'table' AND c.name IN ('start', 'timestamp', 'rawTimestamp') \
             GROUP BY m.name",
        )
        .unwrap();
    stmt.query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn every_corpus_export_has_its_event_rows_on_the_timeline() {
    let Some(files) = crate::timeline_corpus::corpus() else {
        return;
    };
    for file in files {
        let name = file.display().to_string();
        let tl = nsys::load(&file).unwrap_or_else(|e| panic!("{e}"));
        let conn = Connection::open_with_flags(&file, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let (mut rows, mut on, mut off) = (0u64, 0u64, Vec::new());
        for table in timed_tables(&conn) {
            let Some(source) = tl.session.imports.sources.get(&table) else {
                continue;
            };
            rows += source.rows;
            on += source.events + source.attached;
            if !source.skipped.is_empty() {
                off.push(format!("{table}: {:?}", source.skipped));
            }
        }
        if rows == 0 {
            continue;
        }
        let share = 100.0 * on as f64 / rows as f64;
        eprintln!("{name}: {on} of {rows} event rows on the timeline ({share:.3} %)");
        assert!(
            share >= ON_TIMELINE,
            "{name}: {share:.3} % on the timeline; {off:?}"
        );
    }
}
