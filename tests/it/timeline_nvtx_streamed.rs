//! NVTX rows are read once, straight onto the timeline: what only later rows tell — a
//! domain's name, the name of a thread first seen in NVTX, the end of a range never closed
//! (the last NVTX timestamp) — is still applied when it comes after the ranges it concerns.
//! A thread's naming call is a mark of its own.

use rusqlite::{Connection, params};
use sightline::timeline::nsys;
use sightline::timeline::{EventKind, TrackKind};
use sightline_test_support::nsys::{SynthOptions, write_export};

const PID: i64 = 4242;

#[test]
fn names_and_ends_given_after_their_ranges_still_apply() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("late_names.sqlite");
    write_export(&path, &SynthOptions::default()).expect("export written");
    let worker = (PID << 24) | 77;
    {
        let c = Connection::open(&path).expect("open");
        let last: i64 = c
            .query_row(
                "SELECT max(max(start, ifnull(end, 0))) FROM NVTX_EVENTS",
                [],
                |r| r.get(0),
            )
            .expect("last NVTX timestamp");
        let mut insert = c
            .prepare(
                "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .expect("insert");
        // A closed and an open push/pop range on a new thread in a new domain, then (later
        // rows) the domain's and the thread's names, and a mark after everything.
        let rows: [(i64, Option<i64>, i64, &str, i64); 5] = [
            (last + 10, Some(last + 20), 59, "closed", 7),
            (last + 30, None, 59, "open", 7),
            (last + 1, None, 75, "late domain", 7),
            (last + 2, None, 39, "worker", 0),
            (last + 500, None, 34, "mark", 0),
        ];
        for (start, end, event_type, text, domain) in rows {
            insert
                .execute(params![start, end, event_type, text, worker, domain])
                .expect("row");
        }
    }
    let tl = nsys::load(&path).expect("loads");
    let thread = tl
        .tracks
        .iter()
        .position(|t| t.kind == TrackKind::Thread && t.key == 77)
        .expect("the worker thread");
    assert_eq!(tl.tracks[thread].name, "Thread 77 (worker)");
    let series: Vec<&str> = tl.tracks[thread]
        .children
        .iter()
        .map(|c| tl.tracks[c.0 as usize].name.as_str())
        .collect();
    assert!(series.contains(&"NVTX (late domain)"), "{series:?}");
    let open = tl
        .events()
        .find(|e| e.kind == EventKind::NvtxPushPop && tl.strings.get(e.name) == "open")
        .expect("the open range");
    let closed = tl
        .events()
        .find(|e| tl.strings.get(e.name) == "closed")
        .expect("the closed range");
    assert_eq!(closed.end - closed.start, 10);
    let last = open.start - 30 + 500;
    assert_eq!(
        open.end, last,
        "an open range ends at the last NVTX timestamp"
    );
    assert_eq!(tl.attrs(open.id).map(|a| a.open), Some(true));
    assert!(
        tl.warnings
            .iter()
            .any(|w| w.problem.message.contains("1 NVTX ranges never ended")),
        "{:?}",
        tl.warnings
    );
}

/// A thread's naming call (`nvtxNameOsThread`, eventType 39) names the thread and is itself on
/// the timeline: a mark "Thread name: …" on the thread's NVTX row. An export whose only NVTX
/// row is one (DWChiang_JACC_cg_trace of the corpus) shows it.
#[test]
fn a_thread_naming_call_is_a_mark_on_the_named_thread() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("thread_name.sqlite");
    write_export(&path, &SynthOptions::default()).expect("export written");
    let worker = (PID << 24) | 78;
    {
        let c = Connection::open(&path).expect("open");
        c.execute("DELETE FROM NVTX_EVENTS", []).expect("emptied");
        c.execute(
            "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) \
             VALUES (1000, NULL, 39, 'julia thread 2', ?1)",
            params![worker],
        )
        .expect("row");
    }
    let tl = nsys::load(&path).expect("loads");
    let thread = tl
        .tracks
        .iter()
        .position(|t| t.kind == TrackKind::Thread && t.key == 78)
        .expect("the named thread");
    assert_eq!(tl.tracks[thread].name, "Thread 78 (julia thread 2)");
    let marks: Vec<_> = tl
        .events()
        .filter(|e| e.kind == EventKind::NvtxMark)
        .collect();
    assert_eq!(marks.len(), 1);
    assert_eq!(tl.strings.get(marks[0].name), "Thread name: julia thread 2");
    assert_eq!(marks[0].start, marks[0].end, "an instant");
    let source = &tl.session.imports.sources["NVTX_EVENTS"];
    assert_eq!((source.events, source.attached), (1, 0), "{source:?}");
}
