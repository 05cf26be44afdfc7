//! One fixture per table family of the schema reference (`fixtures/nsys/families.sqlite`,
//! written by `sightline_test_support::nsys_families`): every row becomes the event the
//! generator wrote — its row, its times, its name, where it sits — and the import statistics
//! account for every table.

use std::path::PathBuf;

use sightline::timeline::{EventId, EventKind, Layout, Timeline, TrackKind, nsys};
use sightline_test_support::nsys_families::{FAMILY_ROWS, write_families};

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/nsys/families.sqlite")
}

/// The events of the row(s) that hold `table`'s rows, in time order, with their track.
fn events_of(tl: &Timeline, table: &str) -> Vec<(i64, i64, String, u32)> {
    let mut out = Vec::new();
    for (track, source) in &tl.session.series_sources {
        if source != table {
            continue;
        }
        for row in &tl.tracks[track.0 as usize].rows {
            for i in row.start..row.end {
                let e = tl.event(EventId(i)).expect("event");
                out.push((e.start, e.end, tl.name(e.name).to_owned(), track.0));
            }
        }
    }
    out.sort();
    out
}

/// The kind of the node above a track.
fn parent_kind(tl: &Timeline, track: u32) -> Option<TrackKind> {
    let parent = tl.tracks[track as usize].parent?;
    Some(tl.tracks[parent.0 as usize].kind)
}

#[test]
fn the_fixture_is_what_the_generator_writes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let fresh = dir.path().join("families.sqlite");
    write_families(&fresh).expect("write");
    let committed = std::fs::read(fixture()).expect("fixture");
    assert!(
        committed == std::fs::read(&fresh).expect("written"),
        "fixtures/nsys/families.sqlite differs from the generator's output: regenerate it \
         (fixtures/nsys/README.md)"
    );
}

#[test]
fn every_family_becomes_the_events_it_holds() {
    let tl = nsys::load(&fixture()).expect("load");
    for &(table, rows) in FAMILY_ROWS {
        let events = events_of(&tl, table);
        let times: Vec<(i64, i64)> = events.iter().map(|e| (e.0, e.1)).collect();
        let mut want = rows.to_vec();
        want.sort();
        assert_eq!(times, want, "{table}");
        let stats = &tl.session.imports.sources[table];
        assert_eq!(
            (stats.rows, stats.events),
            (rows.len() as u64, rows.len() as u64),
            "{table}"
        );
    }
    // Names from nameId, ETW's taskName and the diagnostics' text; places by id.
    let name = |table: &str| events_of(&tl, table)[0].2.clone();
    assert_eq!(name("PROFILER_OVERHEAD"), "TLS allocation");
    assert_eq!(name("OPENMP_EVENT_KIND_PARALLEL"), "omp parallel");
    assert_eq!(name("VULKAN_API"), "vkQueueSubmit");
    assert_eq!(
        name("CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH"),
        "acc_enqueue_launch"
    );
    assert_eq!(name("ETW_EVENTS"), "compute");
    assert_eq!(name("DIAGNOSTIC_EVENT"), "Profiling has started.");
    // Generic events: named by their type's JSON description and grouped by its source; a
    // type the export does not describe is named by its id, on the table's own row.
    let generic: Vec<(String, String)> = events_of(&tl, "GENERIC_EVENTS")
        .into_iter()
        .map(|e| (e.2, tl.tracks[e.3 as usize].name.clone()))
        .collect();
    assert_eq!(
        generic,
        [
            (
                "sched_wakeup".to_owned(),
                "Generic events: ftrace".to_owned()
            ),
            (
                "Generic event type 2".to_owned(),
                "Generic events".to_owned()
            ),
        ]
    );
    for (table, rows) in [("GENERIC_EVENT_TYPES", 1), ("GENERIC_EVENT_SOURCES", 2)] {
        let stats = &tl.session.imports.sources[table];
        assert_eq!((stats.rows, stats.attached), (rows, rows), "{table}");
    }
    let place = |table: &str| {
        events_of(&tl, table)
            .iter()
            .map(|e| parent_kind(&tl, e.3))
            .collect::<Vec<_>>()
    };
    assert_eq!(place("PROFILER_OVERHEAD"), vec![Some(TrackKind::Thread); 2]);
    assert_eq!(place("FECS_EVENTS"), vec![Some(TrackKind::Process); 2]);
    // The first diagnostic has no process (a negative globalPid): the group at the top.
    assert_eq!(
        place("DIAGNOSTIC_EVENT"),
        vec![Some(TrackKind::Series), Some(TrackKind::Process)]
    );
    let kind = |table: &str| {
        let (s, _, _, t) = events_of(&tl, table)[0].clone();
        tl.events()
            .find(|e| e.start == s && tl.locate(e.id).is_some_and(|(tr, _)| tr.0 == t))
            .map(|e| e.kind)
    };
    assert_eq!(kind("OPENGL_API"), Some(EventKind::Range));
    assert_eq!(kind("FECS_EVENTS"), Some(EventKind::Marker));
}

/// An event's start, end, name and frames.
type Summary = (i64, i64, String, Vec<String>);

#[test]
fn cpu_samples_thread_states_backtraces_and_counters() {
    let tl = nsys::load(&fixture()).expect("load");
    check_samples_states_and_backtraces(&tl);
    check_memory_counter(&tl);
    check_tables_accounted(&tl);
}

/// The frames of an event's call stack, innermost first, unresolved ones marked `?`.
fn frames(tl: &Timeline, e: EventId) -> Vec<String> {
    tl.stack_of(e)
        .map(|s| {
            tl.stacks
                .frames_of(s)
                .map(|f| {
                    let name = tl.name(f.symbol).to_owned();
                    if f.unresolved {
                        format!("{name}?")
                    } else {
                        name
                    }
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The events of `kind`, sorted.
fn of_kind(tl: &Timeline, kind: EventKind) -> Vec<Summary> {
    let mut v: Vec<_> = tl
        .events()
        .filter(|e| e.kind == kind)
        .map(|e| (e.start, e.end, tl.name(e.name).to_owned(), frames(tl, e.id)))
        .collect();
    v.sort();
    v
}

/// CPU samples with their call stacks, running ranges on the thread and CPU rows, and the
/// backtraces of an OS runtime and a CUDA API call.
fn check_samples_states_and_backtraces(tl: &Timeline) {
    let of_kind = |kind| of_kind(tl, kind);
    assert_eq!(
        of_kind(EventKind::CpuSample),
        vec![
            (
                3000,
                3000,
                "compute".into(),
                vec!["compute".into(), "main".into()]
            ),
            (
                4000,
                4000,
                "0x7f0000001234".into(),
                vec!["0x7f0000001234?".into()]
            ),
            (4500, 4500, "[no call stack]".into(), vec![]),
        ]
    );
    let running: Vec<(i64, i64, String)> = of_kind(EventKind::ThreadRunning)
        .into_iter()
        .map(|(s, e, n, _)| (s, e, n))
        .collect();
    assert_eq!(
        running,
        vec![
            (2500, 4800, "Running on CPU 2".into()),
            (2500, 4800, "Thread 778 (worker) of process 777".into()),
            (7000, 8000, "Running on CPU 3".into()),
            (7000, 8000, "Thread 778 (worker) of process 777".into()),
        ]
    );
    assert_eq!(
        of_kind(EventKind::OsRuntime),
        vec![(
            6000,
            6400,
            "read".into(),
            vec!["__GI___libc_read".into(), "main".into()]
        )]
    );
    assert_eq!(
        of_kind(EventKind::CudaApi),
        vec![(
            8200,
            8600,
            "cudaMalloc".into(),
            vec!["cudaMalloc".into(), "main".into()]
        )]
    );
}

/// The memory counter: a step chart of its three samples.
fn check_memory_counter(tl: &Timeline) {
    let counter = tl
        .tracks
        .iter()
        .position(|t| t.layout == Layout::Counter)
        .expect("a counter row");
    let track = sightline::timeline::TrackId(counter as u32);
    assert_eq!(tl.tracks[counter].name, "GPU 0 memory usage (local)");
    assert_eq!(tl.counter_range(track), Some((0.0, f64::from(1u32 << 20))));
    let mut buckets = Vec::new();
    tl.counter_buckets(track, 0, 0, 10_000, 1.0, &mut buckets);
    let values: Vec<(i64, f64)> = buckets.iter().map(|b| (b.start, b.last)).collect();
    assert_eq!(
        values,
        vec![(1000, 0.0), (5000, 1_048_576.0), (9000, 524_288.0)]
    );
}

/// Every table is accounted for, and none is left unread.
fn check_tables_accounted(tl: &Timeline) {
    for (table, stats) in &tl.session.imports.sources {
        assert_eq!(stats.unaccounted(), 0, "{table}");
        assert!(
            !stats.skipped.contains_key(nsys::NOT_READ),
            "{table}: {stats:?}"
        );
    }
}

/// An OpenMP task's parts (task switching splits a task) come from the task creation of their
/// correlation id: flows from the creation to each part, as for an API call and its GPU work.
#[test]
fn openmp_task_creation_leads_to_the_task_parts() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("omp.sqlite");
    let conn = rusqlite::Connection::open(&path).unwrap_or_else(|e| panic!("{e}"));
    let gtid: i64 = (900 << 24) | 901;
    conn.execute_batch(&format!(
        "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
         INSERT INTO StringIds VALUES (1, 'omp task'), (2, 'read');
         CREATE TABLE OSRT_API (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
           globalTid INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, nestingLevel INTEGER,
           callchainId INTEGER NOT NULL);
         INSERT INTO OSRT_API VALUES (10, 20, 27, {gtid}, 2, 0, 0, 0);
         CREATE TABLE OPENMP_EVENT_KIND_TASK_CREATE (start INTEGER NOT NULL, end INTEGER NOT NULL,
           eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,
           eventKind INTEGER, parentTaskId INTEGER, newTaskId INTEGER);
         INSERT INTO OPENMP_EVENT_KIND_TASK_CREATE VALUES (100, 110, 78, {gtid}, 5, 1, 0, 1, 2);
         CREATE TABLE OPENMP_EVENT_KIND_TASK (start INTEGER NOT NULL, end INTEGER NOT NULL,
           eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,
           eventKind INTEGER, parallelId INTEGER, taskId INTEGER, kind INTEGER);
         INSERT INTO OPENMP_EVENT_KIND_TASK VALUES (200, 300, 78, {gtid}, 5, 1, 0, 1, 2, 0);
         INSERT INTO OPENMP_EVENT_KIND_TASK VALUES (400, 450, 78, {gtid}, 5, 1, 0, 1, 2, 0);
         INSERT INTO OPENMP_EVENT_KIND_TASK VALUES (500, 550, 78, {gtid}, 0, 1, 0, 1, 1, 0);"
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    drop(conn);
    let tl = nsys::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let create = events_of(&tl, "OPENMP_EVENT_KIND_TASK_CREATE");
    assert_eq!(create.len(), 1);
    let create_id = tl
        .events()
        .find(|e| e.start == 100)
        .map(|e| e.id)
        .expect("the creation");
    let mut parts: Vec<i64> = tl
        .flow_partners(create_id)
        .into_iter()
        .filter_map(|id| tl.event(id).map(|e| e.start))
        .collect();
    parts.sort_unstable();
    assert_eq!(
        parts,
        vec![200, 400],
        "both parts of task 2, not the implicit task"
    );
    assert!(tl.warnings.is_empty(), "{:?}", tl.warnings);
}

/// Threads still running when the capture ends get their rows in the order their last ranges
/// began, the same at every load (they used to come in a hash map's order).
#[test]
fn threads_running_at_the_end_are_numbered_in_the_order_they_began() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("running.sqlite");
    let conn = rusqlite::Connection::open(&path).unwrap_or_else(|e| panic!("{e}"));
    conn.execute_batch(
        "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);\
         CREATE TABLE SCHED_EVENTS (start INTEGER NOT NULL, cpu INTEGER NOT NULL, \
         isSchedIn INTEGER NOT NULL, globalTid INTEGER NOT NULL, threadState INTEGER, \
         threadBlock INTEGER);",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // 24 threads scheduled in one after the other (thread ids out of order), none out.
    for i in 0..24i64 {
        let tid = 1000 + (i * 7) % 24;
        conn.execute(
            "INSERT INTO SCHED_EVENTS VALUES (?1, ?2, 1, ?3, NULL, NULL)",
            [100 + i * 10, i % 4, (42 << 24) | tid],
        )
        .unwrap_or_else(|e| panic!("{e}"));
    }
    drop(conn);
    let starts_by_track = || {
        let tl = nsys::load(&path).unwrap_or_else(|e| panic!("{e}"));
        let mut firsts: Vec<(u32, i64)> = tl
            .events()
            .filter(|e| e.kind == EventKind::ThreadRunning)
            .filter_map(|e| {
                let (track, _) = tl.locate(e.id)?;
                (tl.tracks[track.0 as usize].name == "Thread state").then_some((track.0, e.start))
            })
            .collect();
        firsts.sort();
        firsts
    };
    let first = starts_by_track();
    assert_eq!(first.len(), 24);
    assert!(
        first.windows(2).all(|w| w[0].1 < w[1].1),
        "rows in the order the threads began: {first:?}"
    );
    for _ in 0..3 {
        assert_eq!(starts_by_track(), first);
    }
}
