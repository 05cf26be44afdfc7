//! The timeline's side: one [`TimelineKernel`] per kernel event, its launch facts read from
//! the export's kernel table by the event's source rowid (the timeline keeps only what it
//! draws), its NVTX ranges from the timeline.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use rusqlite::types::ValueRef;

use super::TimelineKernel;
use crate::core::num::index_u32;
use crate::timeline::model::{EventId, EventKind, Timeline, TrackId, TrackKind};
use crate::timeline::nsys::NsysError;
use crate::timeline::nsys::db::{ExportDb, int_of, split_global_id, text_of};

const KERNELS: &str = "CUPTI_ACTIVITY_KIND_KERNEL";

/// The kernels of `timeline`, read from the export at `export` (empty when it has no kernel
/// table), sorted by start.
pub fn timeline_kernels(
    export: &Path,
    timeline: &Timeline,
) -> Result<Vec<TimelineKernel>, NsysError> {
    timeline_kernels_in(export, timeline, 0..index_u32(timeline.event_count()))
}

/// The kernels among the events `ids` of `timeline` (one file of a merged timeline), read from
/// the export at `export`, sorted by start.
pub fn timeline_kernels_in(
    export: &Path,
    timeline: &Timeline,
    ids: std::ops::Range<u32>,
) -> Result<Vec<TimelineKernel>, NsysError> {
    let events: HashMap<u32, EventId> = ids
        .filter_map(|i| timeline.event(EventId(i)))
        .filter(|e| e.kind == EventKind::Kernel)
        .map(|e| (e.source, e.id))
        .collect();
    if events.is_empty() {
        return Ok(Vec::new());
    }
    let db = ExportDb::open(export)?;
    if !db.has_table(KERNELS) {
        return Ok(Vec::new());
    }
    let mut strings = Strings::default();
    let processes = process_names(&db, &mut strings)?;
    let columns = [
        "start",
        "deviceId",
        "contextId",
        "streamId",
        "globalPid",
        "mangledName",
        "demangledName",
        "shortName",
        "gridX",
        "gridY",
        "gridZ",
        "blockX",
        "blockY",
        "blockZ",
    ]
    .map(|c| db.col_or_null(KERNELS, c))
    .join(", ");
    let sql = format!("SELECT rowid, {columns} FROM {KERNELS}");
    let mut out = Vec::new();
    let nvtx = NvtxIndex::new(timeline);
    each_row(&db, KERNELS, &sql, |row| {
        let int = |i: usize| row.get_ref(i).ok().and_then(int_of);
        let Some(event) = int(0)
            .and_then(|r| u32::try_from(r).ok())
            .and_then(|r| events.get(&r).copied())
        else {
            return;
        };
        let dim = |first: usize| -> Option<[u64; 3]> {
            let v = |i| int(i).and_then(|x| u64::try_from(x).ok());
            Some([v(first)?, v(first + 1)?, v(first + 2)?])
        };
        let pid = int(5).map(|g| {
            let (_, pid, _) = split_global_id(g);
            pid
        });
        let mut name = |i: usize| row.get_ref(i).ok().and_then(|v| strings.get(&db, v));
        let (mangled, demangled, function) = (name(6), name(7), name(8));
        out.push(TimelineKernel {
            event,
            start: int(1).unwrap_or(0),
            process: int(5).and_then(|g| processes.get(&(g & !0xFF_FFFF)).cloned()),
            pid,
            device: int(2).unwrap_or(0),
            context: int(3).unwrap_or(0),
            stream: int(4).unwrap_or(0),
            grid: dim(9),
            block: dim(12),
            mangled: mangled.filter(|s| !s.is_empty()),
            demangled: demangled.filter(|s| !s.is_empty()),
            function: function.filter(|s| !s.is_empty()),
            nvtx: nvtx.open_at(timeline, event),
        });
    })?;
    out.sort_by_key(|k| (k.start, k.event.0));
    Ok(out)
}

/// StringIds values looked up once each.
#[derive(Default)]
struct Strings(HashMap<i64, Option<Arc<str>>>);

impl Strings {
    /// The text of a name column: a StringIds id, or the text itself in exports that store it.
    fn get(&mut self, db: &ExportDb, value: ValueRef<'_>) -> Option<Arc<str>> {
        if let ValueRef::Text(_) = value {
            return text_of(value).map(Arc::from);
        }
        let id = int_of(value)?;
        self.0
            .entry(id)
            .or_insert_with(|| {
                db.conn
                    .query_row("SELECT value FROM StringIds WHERE id = ?1", [id], |r| {
                        Ok(r.get_ref(0).ok().and_then(text_of))
                    })
                    .ok()
                    .flatten()
                    .map(Arc::from)
            })
            .clone()
    }
}

/// Process names by global pid (the thread bits cleared): `PROCESSES.name`, else (old exports)
/// the name of the thread whose tid is the pid.
fn process_names(
    db: &ExportDb,
    strings: &mut Strings,
) -> Result<HashMap<i64, Arc<str>>, NsysError> {
    let mut out = HashMap::new();
    if db.has_column("PROCESSES", "globalPid") && db.has_column("PROCESSES", "name") {
        each_row(
            db,
            "PROCESSES",
            "SELECT globalPid, name FROM PROCESSES",
            |row| {
                let g = row.get_ref(0).ok().and_then(int_of);
                let name = row.get_ref(1).ok().and_then(text_of);
                if let (Some(g), Some(name)) = (g, name)
                    && !name.is_empty()
                {
                    out.insert(g & !0xFF_FFFF, Arc::from(name));
                }
            },
        )?;
    }
    if db.has_column("ThreadNames", "globalTid") && db.has_column("ThreadNames", "nameId") {
        let sql = "SELECT globalTid, nameId FROM ThreadNames";
        each_row(db, "ThreadNames", sql, |row| {
            let Some(g) = row.get_ref(0).ok().and_then(int_of) else {
                return;
            };
            let (_, pid, tid) = split_global_id(g);
            if pid != tid || out.contains_key(&(g & !0xFF_FFFF)) {
                return;
            }
            if let Some(name) = row.get_ref(1).ok().and_then(|v| strings.get(db, v)) {
                out.insert(g & !0xFF_FFFF, name);
            }
        })?;
    }
    Ok(out)
}

/// Runs `sql` (a query of `table`) and gives each row to `f`; errors name the table.
fn each_row(
    db: &ExportDb,
    table: &str,
    sql: &str,
    mut f: impl FnMut(&rusqlite::Row<'_>),
) -> Result<(), NsysError> {
    let err = |e: rusqlite::Error| db.query_error(table, e);
    let mut stmt = db.conn.prepare(sql).map_err(err)?;
    let mut rows = stmt.query([]).map_err(err)?;
    while let Some(row) = rows.next().map_err(err)? {
        f(row);
    }
    Ok(())
}

/// The NVTX push/pop series of each thread track.
struct NvtxIndex(HashMap<TrackId, Vec<TrackId>>);

impl NvtxIndex {
    fn new(timeline: &Timeline) -> NvtxIndex {
        let mut map = HashMap::new();
        for (i, track) in timeline.tracks.iter().enumerate() {
            if track.kind != TrackKind::Thread {
                continue;
            }
            let series: Vec<TrackId> = track
                .children
                .iter()
                .copied()
                .filter(|&c| {
                    timeline.track(c).is_some_and(|t| {
                        t.rows.iter().any(|r| {
                            timeline
                                .event(EventId(r.start))
                                .is_some_and(|e| e.kind == EventKind::NvtxPushPop)
                        })
                    })
                })
                .collect();
            if !series.is_empty() {
                map.insert(TrackId(index_u32(i)), series);
            }
        }
        NvtxIndex(map)
    }

    /// The push/pop ranges open on the thread that launched `kernel` when it was launched,
    /// bottom first (series in track order).
    fn open_at(&self, timeline: &Timeline, kernel: EventId) -> Vec<String> {
        let Some(call) = timeline
            .flow_partners(kernel)
            .into_iter()
            .filter_map(|p| timeline.event(p))
            .find(|e| !e.kind.is_gpu_work())
        else {
            return Vec::new();
        };
        let Some(thread) = timeline
            .locate(call.id)
            .and_then(|(t, _)| timeline.track(t))
            .and_then(|t| t.parent)
        else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for &series in self.0.get(&thread).map_or(&[][..], Vec::as_slice) {
            let Some(track) = timeline.track(series) else {
                continue;
            };
            for row in &track.rows {
                // The last span of the row starting at or before the call.
                let (lo, mut a, mut b) = (row.start as usize, row.start as usize, row.end as usize);
                while a < b {
                    let m = a + (b - a) / 2;
                    if timeline.start_of(m) <= call.start {
                        a = m + 1;
                    } else {
                        b = m;
                    }
                }
                if a == lo {
                    continue;
                }
                let i = a - 1;
                if timeline.end_of(i) > call.start
                    && let Some(e) = timeline.event(EventId(index_u32(i)))
                    && e.kind == EventKind::NvtxPushPop
                {
                    out.push(timeline.name(e.name).to_owned());
                }
            }
        }
        out
    }
}
