//! Every Nsight Systems export of the corpus loads, with per-kind event counts equal to the
//! source tables' rows after the documented filters, consistent rows, and a flow from its
//! launching API call to every kernel. Skips when ../shared is absent.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};
use sightline::timeline::nsys;
use sightline::timeline::{EventId, EventKind, Timeline};

pub(crate) fn corpus() -> Option<Vec<PathBuf>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/nsys");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        crate::common::skip_shared(format!("{} is absent", dir.display()));
        return None;
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "sqlite"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no exports in {}", dir.display());
    Some(files)
}

/// Rows of `table` matching `filter`, 0 when the table is missing.
fn count(conn: &Connection, table: &str, filter: &str) -> usize {
    let exists: bool = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type='table' AND name=?1",
            [table],
            |r| r.get::<_, i64>(0),
        )
        .map(|n| n > 0)
        .unwrap_or(false);
    if !exists {
        return 0;
    }
    conn.query_row(&format!("SELECT count(*) FROM {table} {filter}"), [], |r| {
        r.get::<_, i64>(0)
    })
    .map(|n| n as usize)
    .unwrap_or_else(|e| panic!("{table}: {e}"))
}

fn counts(tl: &Timeline) -> std::collections::HashMap<EventKind, usize> {
    tl.counts_by_kind().into_iter().collect()
}

#[test]
fn every_export_loads_with_the_source_row_counts() {
    let Some(files) = corpus() else { return };
    for file in files {
        let tl = nsys::load(&file).unwrap_or_else(|e| panic!("{e}"));
        let conn = Connection::open_with_flags(&file, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let has_class = conn
            .prepare("SELECT eventClass FROM CUPTI_ACTIVITY_KIND_RUNTIME LIMIT 1")
            .is_ok();
        let expected = [
            (
                EventKind::CudaApi,
                count(
                    &conn,
                    "CUPTI_ACTIVITY_KIND_RUNTIME",
                    if has_class {
                        "WHERE eventClass != 67"
                    } else {
                        ""
                    },
                ),
            ),
            (
                EventKind::OsRuntime,
                count(&conn, "OSRT_API", "WHERE eventClass = 27"),
            ),
            (
                EventKind::Kernel,
                count(&conn, "CUPTI_ACTIVITY_KIND_KERNEL", ""),
            ),
            (
                EventKind::Memcpy,
                count(&conn, "CUPTI_ACTIVITY_KIND_MEMCPY", ""),
            ),
            (
                EventKind::Memset,
                count(&conn, "CUPTI_ACTIVITY_KIND_MEMSET", ""),
            ),
            (
                EventKind::Synchronization,
                count(&conn, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", ""),
            ),
            (
                EventKind::NvtxPushPop,
                count(&conn, "NVTX_EVENTS", "WHERE eventType IN (59, 70)"),
            ),
            (
                EventKind::NvtxStartEnd,
                count(&conn, "NVTX_EVENTS", "WHERE eventType IN (60, 71)"),
            ),
            (
                // Marks, and the thread naming calls (39, 72; every one of the corpus has
                // its name), shown as marks "Thread name: …".
                EventKind::NvtxMark,
                count(&conn, "NVTX_EVENTS", "WHERE eventType IN (34, 39, 65, 72)"),
            ),
            (EventKind::Cublas, count(&conn, "CUBLAS_EVENTS", "")),
            (EventKind::Cudnn, count(&conn, "CUDNN_EVENTS", "")),
        ];
        let got = counts(&tl);
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        for (kind, n) in expected {
            assert_eq!(got.get(&kind).copied().unwrap_or(0), n, "{name}: {kind:?}");
        }
        let total: usize = got.values().sum();
        assert_eq!(
            total,
            tl.event_count(),
            "{name}: every event has a counted kind"
        );
        check_rows(&tl, &name);
    }
}

/// Rows are sorted by start and never overlap; rows partition the columns.
fn check_rows(tl: &Timeline, name: &str) {
    let mut covered = 0usize;
    for (t, track) in tl.tracks.iter().enumerate() {
        for (r, row) in track.rows.iter().enumerate() {
            covered += row.len();
            let mut prev_end = i64::MIN;
            for i in row.clone() {
                let e = tl
                    .event(EventId(i))
                    .unwrap_or_else(|| panic!("{name}: event {i}"));
                assert!(
                    e.start >= prev_end,
                    "{name}: track {t} row {r}: event {i} overlaps the previous one"
                );
                assert!(e.end >= e.start, "{name}: event {i} ends before it starts");
                prev_end = e.end;
            }
        }
    }
    assert_eq!(
        covered,
        tl.event_count(),
        "{name}: rows cover every event once"
    );
}

#[test]
fn every_kernel_has_its_launching_call_as_a_flow() {
    let Some(files) = corpus() else { return };
    for file in files {
        let tl = nsys::load(&file).unwrap_or_else(|e| panic!("{e}"));
        let name = file.display();
        let mut kernels = 0;
        for e in tl.events().filter(|e| e.kind == EventKind::Kernel) {
            kernels += 1;
            let partners = tl.flow_partners(e.id);
            assert_eq!(
                partners.len(),
                1,
                "{name}: kernel {:?} ({}) has {} launching calls",
                e.id,
                tl.name(e.name),
                partners.len()
            );
            let call = tl
                .event(partners[0])
                .unwrap_or_else(|| panic!("{name}: flow to nowhere"));
            assert_eq!(call.kind, EventKind::CudaApi, "{name}");
            assert_eq!(
                call.correlation, e.correlation,
                "{name}: same correlation id"
            );
            assert!(
                call.start <= e.start,
                "{name}: a kernel starts after its launch"
            );
            // And back: the call's partners include the kernel.
            assert!(
                tl.flow_partners(call.id).contains(&e.id),
                "{name}: flow both ways"
            );
        }
        let conn = Connection::open_with_flags(&file, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            kernels,
            count(&conn, "CUPTI_ACTIVITY_KIND_KERNEL", ""),
            "{name}"
        );
    }
}

/// The MANIFEST's facts of each export: `(file, nsys_version, schema, notes)`.
fn manifest() -> Vec<(String, String, String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/nsys/MANIFEST.tsv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split('\t').collect();
    let column = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("{}: no column {name}", path.display()))
    };
    let (file, version, schema, notes) = (
        column("file"),
        column("nsys_version"),
        column("schema"),
        column("notes"),
    );
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let cells: Vec<&str> = l.split('\t').collect();
            let cell = |i: usize| cells.get(i).copied().unwrap_or_default().to_string();
            (cell(file), cell(version), cell(schema), cell(notes))
        })
        .collect()
}

/// A MANIFEST version cell that names a version (`2024.5.1.113`, `3.13.2`), not `?` or
/// `unknown (...)`.
fn known_version(cell: &str) -> Option<&str> {
    let mut parts = cell.split('.');
    let numeric = cell.split('.').count() >= 2
        && parts.all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    numeric.then_some(cell)
}

#[test]
fn session_facts_names_and_version_suffixes() {
    let Some(files) = corpus() else { return };
    let manifest = manifest();
    for file in files {
        let tl = nsys::load(&file).unwrap_or_else(|e| panic!("{e}"));
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (_, version, schema, notes) = manifest
            .iter()
            .find(|(f, ..)| *f == name)
            .unwrap_or_else(|| panic!("{name} is not in the MANIFEST"));
        // The version where the export holds it, none ("unknown") where it does not.
        assert_eq!(
            tl.session.product_version.as_deref(),
            known_version(version),
            "{name}: product version"
        );
        assert_eq!(
            tl.session.schema_version.as_deref(),
            known_version(schema),
            "{name}: schema version"
        );
        // No API name keeps a `_vNNNN` (4+ digit) version suffix.
        for e in tl.events().filter(|e| e.kind == EventKind::CudaApi) {
            let n = tl.name(e.name);
            if let Some(pos) = n.rfind("_v") {
                let digits = &n[pos + 2..];
                assert!(
                    !(digits.len() >= 4 && digits.bytes().all(|b| b.is_ascii_digit())),
                    "{name}: {n}"
                );
            }
        }
        // A session start and GPU names wherever the export has the tables for them.
        let conn = Connection::open_with_flags(&file, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        if count(&conn, "TARGET_INFO_SESSION_START_TIME", "") > 0 {
            assert!(
                tl.session
                    .start_utc_ns
                    .is_some_and(|t| t > 1_600_000_000_000_000_000),
                "{name}: session start"
            );
        }
        if count(&conn, "CUPTI_ACTIVITY_KIND_KERNEL", "") > 0 {
            assert!(
                !tl.session.gpus.is_empty() && tl.session.gpus.iter().all(|g| !g.name.is_empty()),
                "{name}: GPU names"
            );
            let utilization = tl.gpu_utilization(None);
            assert!(
                !utilization.is_empty()
                    && utilization
                        .iter()
                        .all(|u| u.fraction > 0.0 && u.fraction <= 1.0),
                "{name}: {utilization:?}"
            );
        }
        if notes.contains("nested NVTX") {
            // Nested NVTX: push/pop depth shows as rows.
            let nvtx = tl
                .tracks
                .iter()
                .filter(|t| t.name.starts_with("NVTX"))
                .map(|t| t.rows.len())
                .max();
            assert!(
                nvtx.is_some_and(|rows| rows >= 3),
                "{name}: nested NVTX rows"
            );
        }
        // Threads and processes are named where the export names them: every track of a
        // thread (process) that `ThreadNames` (`PROCESSES`) names carries the name.
        let named = |sql: &str| -> Vec<i64> {
            conn.prepare(sql)
                .map(|mut stmt| {
                    stmt.query_map([], |r| r.get::<_, i64>(0))
                        .map(|rows| rows.filter_map(Result::ok).collect())
                        .unwrap_or_default()
                })
                .unwrap_or_default()
        };
        let named_tids = named("SELECT globalTid & 16777215 FROM ThreadNames");
        let named_pids = named("SELECT pid FROM PROCESSES WHERE name IS NOT NULL AND name != ''");
        for (prefix, ids) in [("Thread ", &named_tids), ("Process ", &named_pids)] {
            for track in tl.tracks.iter().filter(|t| t.name.starts_with(prefix)) {
                let id: Option<i64> = track.name[prefix.len()..]
                    .split(' ')
                    .next()
                    .and_then(|n| n.parse().ok());
                if id.is_some_and(|id| ids.contains(&id)) {
                    assert!(track.name.contains('('), "{name}: {} is named", track.name);
                }
            }
        }
    }
}

/// One event as `(track, row, start, end, name, kind)`.
pub(crate) type EventFacts = (u32, usize, i64, i64, String, EventKind);

/// Every event of `tl` in id order, the number of flows and the import statistics: what two
/// loads of one file must agree on.
pub(crate) fn contents(tl: &Timeline) -> (Vec<EventFacts>, usize, String) {
    let events = tl
        .events()
        .map(|e| {
            let (track, row) = tl.locate(e.id).expect("every event is on a track");
            (
                track.0,
                row,
                e.start,
                e.end,
                tl.name(e.name).to_owned(),
                e.kind,
            )
        })
        .collect();
    (
        events,
        tl.flows().len(),
        format!("{:?}", tl.session.imports),
    )
}

/// Tables read ahead on their own connections and threads (as on a machine with more cores
/// than this one's two) give the timeline of reading them one after the other: every corpus
/// export and the families fixture.
#[test]
fn tables_read_ahead_give_the_same_timeline() {
    let mut files =
        vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/nsys/families.sqlite")];
    files.extend(corpus().unwrap_or_default());
    for file in files {
        let load = |read_ahead| {
            nsys::load_with(
                &file,
                nsys::LoadOptions {
                    read_ahead: Some(read_ahead),
                    ..Default::default()
                },
            )
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()))
        };
        let (one, ahead) = (load(0), load(8));
        assert!(one.event_count() > 0, "{}", file.display());
        assert!(
            contents(&one) == contents(&ahead),
            "{}: read ahead, the timeline differs",
            file.display()
        );
    }
}
