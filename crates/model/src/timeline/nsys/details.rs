//! Details of one event read from the export on demand (the timeline holds only what it draws).

use std::path::Path;

use super::NsysError;
use super::db::{ExportDb, int_of, quote_ident, text_of};
use crate::timeline::model::{EventId, EventKind, Timeline};

/// The export table an event of `kind` comes from.
pub fn table_of(kind: EventKind) -> Option<&'static str> {
    Some(match kind {
        EventKind::CudaApi => "CUPTI_ACTIVITY_KIND_RUNTIME",
        EventKind::OsRuntime => "OSRT_API",
        EventKind::Cublas => "CUBLAS_EVENTS",
        EventKind::Cudnn => "CUDNN_EVENTS",
        EventKind::NvtxPushPop | EventKind::NvtxStartEnd | EventKind::NvtxMark => "NVTX_EVENTS",
        EventKind::Kernel => "CUPTI_ACTIVITY_KIND_KERNEL",
        EventKind::Memcpy => "CUPTI_ACTIVITY_KIND_MEMCPY",
        EventKind::Memset => "CUPTI_ACTIVITY_KIND_MEMSET",
        EventKind::Synchronization => "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
        EventKind::GraphLaunch => "CUPTI_ACTIVITY_KIND_GRAPH_TRACE",
        EventKind::CpuSample => "COMPOSITE_EVENTS",
        EventKind::ThreadRunning => "SCHED_EVENTS",
        _ => return None,
    })
}

/// Thread states of `COMPOSITE_EVENTS.threadState` and `SCHED_EVENTS.threadState`, for exports
/// without `ENUM_SAMPLING_THREAD_STATE` (labels of that table in the exports that have it).
const THREAD_STATES: &[&str] = &[
    "Unknown",
    "Running",
    "Interruptible",
    "Uninterruptible",
    "Stopped",
    "Terminated",
    "Unscheduled",
    "Waiting",
    "OS runtime",
    "Initialized",
    "Transition",
];

/// Why a thread was blocked (`SCHED_EVENTS.threadBlock`), for exports without
/// `ENUM_SCHEDULING_THREAD_BLOCK`.
const THREAD_BLOCKS: &[&str] = &[
    "NonBlocked",
    "Unknown",
    "SigSuspend",
    "Stopped",
    "Nanosleep",
];

/// The enum table, and the built-in labels, that decode `column` of the CPU tables.
fn enum_of(column: &str) -> Option<(&'static str, &'static [&'static str])> {
    match column {
        "threadState" => Some(("ENUM_SAMPLING_THREAD_STATE", THREAD_STATES)),
        "threadBlock" => Some(("ENUM_SCHEDULING_THREAD_BLOCK", THREAD_BLOCKS)),
        _ => None,
    }
}

/// Every column of the event's source row as (column, value) text; columns that reference
/// StringIds (`nameId`, `demangledName`, `shortName`, `mangledName`, `textId`) show the string.
pub fn event_details(
    path: &Path,
    timeline: &Timeline,
    event: EventId,
) -> Result<Vec<(String, String)>, NsysError> {
    let Some(e) = timeline.event(event) else {
        return Ok(Vec::new());
    };
    // The kind names the table; a row of a table drawn generically knows its own.
    let table = match table_of(e.kind) {
        Some(t) => t.to_owned(),
        None => match timeline
            .locate(event)
            .and_then(|(track, _)| timeline.session.series_sources.get(&track))
        {
            Some(t) => t.clone(),
            None => return Ok(Vec::new()),
        },
    };
    let table = table.as_str();
    let db = ExportDb::open_salvaging(path)?;
    if !db.has_table(table) {
        return Ok(Vec::new());
    }
    let sql = format!("SELECT * FROM {} WHERE rowid = ?1", quote_ident(table));
    let mut stmt = db
        .conn
        .prepare(&sql)
        .map_err(|err| db.query_error(table, err))?;
    let columns: Vec<String> = db.columns(table).to_vec();
    let mut rows = stmt
        .query([i64::from(e.source)])
        .map_err(|err| db.query_error(table, err))?;
    let mut out = Vec::new();
    if let Some(row) = rows.next().map_err(|err| db.query_error(table, err))? {
        for (i, c) in columns.iter().enumerate() {
            let Ok(v) = row.get_ref(i) else { continue };
            let Some(mut text) = text_of(v) else { continue };
            if matches!(
                c.as_str(),
                "nameId" | "demangledName" | "shortName" | "mangledName" | "textId"
            ) && let Some(id) = int_of(v)
                && let Ok(s) =
                    db.conn
                        .query_row("SELECT value FROM StringIds WHERE id = ?1", [id], |r| {
                            Ok(r.get_ref(0).ok().and_then(text_of))
                        })
                && let Some(s) = s
            {
                text = s;
            }
            if let (Some((table, builtin)), Some(code)) = (enum_of(c), int_of(v)) {
                let label = db
                    .enum_labels(table)
                    .and_then(|labels| labels.get(&code).cloned())
                    .or_else(|| {
                        usize::try_from(code)
                            .ok()
                            .and_then(|i| builtin.get(i))
                            .map(|s| (*s).to_owned())
                    });
                if let Some(label) = label {
                    text = format!("{code} ({label})");
                }
            }
            out.push((c.clone(), text));
        }
    }
    if e.kind == EventKind::CudaApi && e.correlation != 0 {
        out.extend(cuda_events_of(&db, e.correlation)?);
    }
    Ok(out)
}

/// The CUDA event records of a `cudaEventRecord` call (by its correlation id): `CUDA event` →
/// `event N on stream S (sync id K)`.
fn cuda_events_of(db: &ExportDb, correlation: u32) -> Result<Vec<(String, String)>, NsysError> {
    const T: &str = "CUPTI_ACTIVITY_KIND_CUDA_EVENT";
    if !db.has_table(T) {
        return Ok(Vec::new());
    }
    let sql = format!(
        "SELECT {}, {}, {} FROM {T} WHERE correlationId = ?1",
        db.col_or_null(T, "eventId"),
        db.col_or_null(T, "streamId"),
        db.col_or_null(T, "eventSyncId"),
    );
    let mut stmt = db
        .conn
        .prepare(&sql)
        .map_err(|err| db.query_error(T, err))?;
    let mut rows = stmt
        .query([i64::from(correlation)])
        .map_err(|err| db.query_error(T, err))?;
    let mut out = Vec::new();
    while let Some(row) = rows.next().map_err(|err| db.query_error(T, err))? {
        let v = |i| row.get_ref(i).ok().and_then(int_of);
        let mut text = format!(
            "event {} on stream {}",
            v(0).map_or("?".into(), |x| x.to_string()),
            v(1).map_or("?".into(), |x| x.to_string())
        );
        if let Some(sync) = v(2) {
            text.push_str(&format!(" (sync id {sync})"));
        }
        out.push(("CUDA event".to_string(), text));
    }
    Ok(out)
}
