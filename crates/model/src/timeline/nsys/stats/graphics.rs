//! The graphics API and debug marker reports: `vulkan_api_sum`, `vulkan_api_trace`,
//! `vulkan_marker_sum`, `vulkan_gpu_marker_sum`, `dx11_pix_sum`, `dx12_pix_sum`,
//! `dx12_gpu_marker_sum`, `opengl_khr_range_sum`, `opengl_khr_gpu_range_sum`.
//!
//! Found on exports made for the purpose (`fixtures/nsys/reports/apis/`):
//! - `vulkan_api_sum` counts `VULKAN_API` rows of eventClass 53 (Vulkan API) by name id, cuts
//!   `_vNNNN`; `vulkan_api_trace` lists every row by start, then id, names uncut.
//! - CPU markers (PIX, Vulkan debug labels) are a begin row with a text and an end row without
//!   one, on the same thread with the same correlationId; a range lasts from the begin's end to
//!   the end's start, every end matching every begin. A begin without an end is left out.
//! - GPU markers (`DX12_WORKLOAD`, `VULKAN_WORKLOAD`) are the rows with a text, `end − start`.
//! - KHR debug ranges are eventClass 62 (CPU) and 63 (GPU) of `KHR_DEBUG_EVENTS`, grouped by
//!   text (a range without text, or whose text id StringIds lacks, by its KHR event `id`); a
//!   range without end runs to the table's last timestamp.
//! - Markers group by text id, equal totals by text id; KHR ranges by text, equal totals by it.

use std::collections::HashMap;

use super::super::NsysError;
use super::super::db::{ExportDb, quote_ident};
use super::api_table::{
    Group, durations_by, for_each_row, int_at, int_cell, no_string_ids, no_table, pid_tid,
    required_int, string_or_empty, summary_table, thread_names,
};
use super::table::strip_stats_suffix;
use super::{Cell, Report, ReportOutcome, ReportRequest, ReportTable, skipped};

/// The reports of this module.
pub(super) const REPORTS: &[Report] = &[
    Report {
        name: "vulkan_api_sum",
        about: "Vulkan API summary: time per function",
        options: &[],
        run: vulkan_api_sum,
    },
    Report {
        name: "vulkan_api_trace",
        about: "Vulkan API trace: every call",
        options: &[],
        run: vulkan_api_trace,
    },
    Report {
        name: "vulkan_marker_sum",
        about: "Vulkan debug util range summary (CPU)",
        options: &[],
        run: marker_sum,
    },
    Report {
        name: "vulkan_gpu_marker_sum",
        about: "Vulkan debug util range summary (GPU)",
        options: &[],
        run: marker_sum,
    },
    Report {
        name: "dx11_pix_sum",
        about: "DX11 PIX range summary (CPU)",
        options: &[],
        run: marker_sum,
    },
    Report {
        name: "dx12_pix_sum",
        about: "DX12 PIX range summary (CPU)",
        options: &[],
        run: marker_sum,
    },
    Report {
        name: "dx12_gpu_marker_sum",
        about: "DX12 PIX range summary (GPU)",
        options: &[],
        run: marker_sum,
    },
    Report {
        name: "opengl_khr_range_sum",
        about: "OpenGL KHR_debug range summary (CPU)",
        options: &[],
        run: khr_sum,
    },
    Report {
        name: "opengl_khr_gpu_range_sum",
        about: "OpenGL KHR_debug range summary (GPU)",
        options: &[],
        run: khr_sum,
    },
];

const VULKAN_API: &str = "VULKAN_API";

fn vulkan_api_sum(db: &ExportDb, req: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    if let Some(message) = no_string_ids(db) {
        return Ok(ReportOutcome::Skipped(message));
    }
    if !db.has_table(VULKAN_API) {
        return skipped(db, "Vulkan API trace data");
    }
    let filter = if db.has_column(VULKAN_API, "eventClass") {
        " WHERE eventClass = 53"
    } else {
        ""
    };
    let strings = db.string_ids()?;
    let mut by_id: Vec<(Option<i64>, Vec<i64>)> = durations_by(
        db,
        VULKAN_API,
        &db.col_or_null(VULKAN_API, "nameId"),
        filter,
    )?
    .into_iter()
    .collect();
    by_id.sort_by_key(|(id, _)| *id);
    let groups = by_id
        .into_iter()
        .map(|(id, v)| {
            let name = strip_stats_suffix(string_or_empty(&strings, id)).to_string();
            (vec![name], v)
        })
        .collect();
    Ok(ReportOutcome::Table(summary_table(
        req.report.name,
        "Num Calls",
        &["Name"],
        groups,
    )))
}

fn vulkan_api_trace(db: &ExportDb, req: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    for table in ["StringIds", "ThreadNames"] {
        if let Some(message) = no_table(db, table) {
            return Ok(ReportOutcome::Skipped(message));
        }
    }
    const T: &str = VULKAN_API;
    if !db.has_table(T) {
        return skipped(db, "Vulkan API trace data");
    }
    let strings = db.string_ids()?;
    let threads = thread_names(db, |id| string_or_empty(&strings, id).to_string())?;
    let col = |c| db.col_or_null(T, c);
    let order = if db.has_column(T, "id") {
        "start, id, rowid"
    } else {
        "start, rowid"
    };
    let sql = format!(
        "SELECT rowid, start, end, {}, {}, {}, {}, {} FROM {T} ORDER BY {order}",
        col("nameId"),
        col("eventClass"),
        col("contextId"),
        col("correlationId"),
        col("globalTid"),
    );
    let mut rows = Vec::new();
    for_each_row(db, T, &sql, |row| {
        let start = required_int(db, T, row, 1, "start")?;
        let end = required_int(db, T, row, 2, "end")?;
        let gtid = int_at(row, 7);
        let (pid, tid) = gtid.map(pid_tid).unzip();
        let thread = gtid.and_then(|g| threads.get(&g));
        rows.push(vec![
            Cell::int(start),
            Cell::int(end.saturating_sub(start)),
            Cell::Text(string_or_empty(&strings, int_at(row, 3)).into()),
            int_cell(int_at(row, 4)),
            int_cell(int_at(row, 5)),
            int_cell(int_at(row, 6)),
            int_cell(pid),
            int_cell(tid),
            int_cell(thread.and_then(|t| t.priority)),
            Cell::Text(thread.map(|t| t.name.clone()).unwrap_or_default().into()),
        ]);
        Ok(())
    })?;
    Ok(ReportOutcome::Table(ReportTable::new(
        req.report.name,
        [
            "Start (ns)",
            "Duration (ns)",
            "Name",
            "Event Class",
            "Context",
            "CorrID",
            "Pid",
            "Tid",
            "T-Pri",
            "Thread Name",
        ],
        rows,
    )))
}

/// The table of a marker report, what nsys says it lacks, and whether its ranges are begin/end
/// pairs (CPU) or rows of their own (GPU).
fn marker_source(report: &str) -> (&'static str, &'static str, bool) {
    match report {
        "vulkan_marker_sum" => (
            "VULKAN_DEBUG_API",
            "Vulkan Debug Extension (Vulkan Debug Util) data",
            true,
        ),
        "vulkan_gpu_marker_sum" => (
            "VULKAN_WORKLOAD",
            "GPU Vulkan Debug Extension (GPU Vulkan Debug markers) data",
            false,
        ),
        "dx11_pix_sum" => ("D3D11_PIX_DEBUG_API", "DX11 CPU debug markers", true),
        "dx12_pix_sum" => ("D3D12_PIX_DEBUG_API", "DX12 CPU debug markers", true),
        _ => ("DX12_WORKLOAD", "DX12 GPU debug markers", false),
    }
}

fn marker_sum(db: &ExportDb, req: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    if let Some(message) = no_string_ids(db) {
        return Ok(ReportOutcome::Skipped(message));
    }
    let (table, what, pairs) = marker_source(req.report.name);
    if !db.has_table(table) {
        return skipped(db, what);
    }
    let mut by_text: Vec<(i64, Vec<i64>)> = if pairs {
        begin_end_pairs(db, table)?.into_iter().collect()
    } else {
        let text = db.col_or_null(table, "textId");
        durations_by(db, table, &text, &format!(" WHERE {text} IS NOT NULL"))?
            .into_iter()
            .filter_map(|(id, v)| Some((id?, v)))
            .collect()
    };
    by_text.sort_by_key(|(id, _)| *id);
    let strings = db.string_ids()?;
    let groups = by_text
        .into_iter()
        .map(|(id, v)| (vec![string_or_empty(&strings, Some(id)).to_string()], v))
        .collect();
    Ok(ReportOutcome::Table(summary_table(
        req.report.name,
        "Instances",
        &["Range"],
        groups,
    )))
}

/// CPU marker ranges by text id: every begin (a row with a text) with every end (a row without)
/// of the same thread and correlationId, from the begin's end to the end's start.
fn begin_end_pairs(db: &ExportDb, table: &str) -> Result<HashMap<i64, Vec<i64>>, NsysError> {
    let col = |c| db.col_or_null(table, c);
    let sql = format!(
        "SELECT rowid, start, end, {}, {}, {} FROM {}",
        col("textId"),
        col("correlationId"),
        col("globalTid"),
        quote_ident(table)
    );
    // Begins: (text id, end); ends: (correlationId, globalTid) → starts.
    let mut begins: Vec<(i64, i64, (i64, i64))> = Vec::new();
    let mut ends: HashMap<(i64, i64), Vec<i64>> = HashMap::new();
    for_each_row(db, table, &sql, |row| {
        let (Some(corr), Some(gtid)) = (int_at(row, 4), int_at(row, 5)) else {
            return Ok(());
        };
        match int_at(row, 3) {
            Some(text) => {
                let end = required_int(db, table, row, 2, "end")?;
                begins.push((text, end, (corr, gtid)));
            }
            None => {
                let start = required_int(db, table, row, 1, "start")?;
                ends.entry((corr, gtid)).or_default().push(start);
            }
        }
        Ok(())
    })?;
    let mut out: HashMap<i64, Vec<i64>> = HashMap::new();
    for (text, begin_end, key) in begins {
        if let Some(starts) = ends.get(&key) {
            let v = out.entry(text).or_default();
            v.extend(starts.iter().map(|s| s.saturating_sub(begin_end)));
        }
    }
    Ok(out)
}

/// A range's start and end (`None`: it never ended).
type Open = (i64, Option<i64>);

fn khr_sum(db: &ExportDb, req: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    if let Some(message) = no_string_ids(db) {
        return Ok(ReportOutcome::Skipped(message));
    }
    const T: &str = "KHR_DEBUG_EVENTS";
    let gpu = req.report.name == "opengl_khr_gpu_range_sum";
    if !db.has_table(T) {
        return skipped(
            db,
            if gpu {
                "GPU KHR Extension (KHR_DEBUG) data"
            } else {
                "KHR Extension (KHR_DEBUG) data"
            },
        );
    }
    let class = if gpu { 63 } else { 62 };
    let sql = format!(
        "SELECT rowid, {}, start, end, {} FROM {T} WHERE eventClass = {class}",
        db.col_or_null(T, "textId"),
        db.col_or_null(T, "id")
    );
    // (text id, KHR event id) → (start, end).
    let mut by_text: HashMap<(Option<i64>, Option<i64>), Vec<Open>> = HashMap::new();
    let mut open = false;
    for_each_row(db, T, &sql, |row| {
        let start = required_int(db, T, row, 2, "start")?;
        let end = int_at(row, 3);
        open |= end.is_none();
        by_text
            .entry((int_at(row, 1), int_at(row, 4)))
            .or_default()
            .push((start, end));
        Ok(())
    })?;
    // A range without end runs to the last timestamp of the table.
    let last = if open {
        db.collect_around_damage(
            &[T],
            &format!("SELECT max(max(start, coalesce(end, start))) FROM {T}"),
            |r| r.get::<_, Option<i64>>(0).map_err(|e| db.query_error(T, e)),
        )?
        .into_iter()
        .flatten()
        .next()
        .unwrap_or(0)
    } else {
        0
    };
    let strings = db.string_ids()?;
    // A range without text (or with an unknown one) is named by its KHR event id.
    let mut by_name: HashMap<String, Vec<i64>> = HashMap::new();
    for ((text, id), ranges) in &by_text {
        let name = match (text.and_then(|t| strings.get(&t)), id) {
            (Some(text), _) => text.clone(),
            (None, Some(id)) => id.to_string(),
            (None, None) => String::new(),
        };
        by_name.entry(name).or_default().extend(
            ranges
                .iter()
                .map(|(s, e)| e.unwrap_or(last).saturating_sub(*s)),
        );
    }
    let mut groups: Vec<Group> = by_name.into_iter().map(|(n, v)| (vec![n], v)).collect();
    groups.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(ReportOutcome::Table(summary_table(
        req.report.name,
        "Instances",
        &["Range"],
        groups,
    )))
}
