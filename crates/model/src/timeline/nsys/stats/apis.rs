//! The summaries of the other runtimes' calls: `openacc_sum`, `openmp_sum`, `nvvideo_api_sum`.
//!
//! Found on exports made for the purpose (`fixtures/nsys/reports/apis/`) and the corpus:
//! - `openacc_sum` merges the three OpenACC tables (data, launch, other) and names a row
//!   `name@file:line` (only `name` when the row has no source file); equal totals by name.
//! - `openmp_sum` groups each `OPENMP_EVENT_KIND_*` table by event name on its own (the same
//!   name in two tables gives two rows); nsys orders equal totals differently from run to run,
//!   Sightline by name, then table.
//! - `nvvideo_api_sum` groups the encoder, decoder and JPEG tables by name id each, with an
//!   Event Type column; equal totals by table, then name id; the `_vNNNN` suffix is cut.

use std::collections::HashMap;

use super::super::NsysError;
use super::super::db::{ExportDb, quote_ident};
use super::api_table::{
    Group, Key3, durations_by, for_each_row, int_at, no_string_ids, required_int, string_or_empty,
    summary_table,
};
use super::table::strip_stats_suffix;
use super::{Report, ReportOutcome, ReportRequest, skipped};

/// The reports of this module.
pub(super) const REPORTS: &[Report] = &[
    Report {
        name: "openacc_sum",
        about: "OpenACC summary: time per event name and source location",
        options: &[],
        run: openacc_sum,
    },
    Report {
        name: "openmp_sum",
        about: "OpenMP event summary: time per event kind and name",
        options: &[],
        run: openmp_sum,
    },
    Report {
        name: "nvvideo_api_sum",
        about: "NvVideo API summary: time per encoder, decoder and JPEG function",
        options: &[],
        run: nvvideo_api_sum,
    },
];

const OPENACC_TABLES: &[&str] = &[
    "CUPTI_ACTIVITY_KIND_OPENACC_DATA",
    "CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH",
    "CUPTI_ACTIVITY_KIND_OPENACC_OTHER",
];

fn openacc_sum(db: &ExportDb, req: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    if let Some(message) = no_string_ids(db) {
        return Ok(ReportOutcome::Skipped(message));
    }
    let tables: Vec<&str> = OPENACC_TABLES
        .iter()
        .copied()
        .filter(|t| db.has_table(t))
        .collect();
    if tables.is_empty() {
        return skipped(db, "OpenACC event data");
    }
    // (nameId, srcFile, lineNo) → durations; names are built once per key.
    let mut by_key: HashMap<Key3, Vec<i64>> = HashMap::new();
    for t in tables {
        let sql = format!(
            "SELECT rowid, {}, start, end FROM {}",
            db.cols_or_null(t, &["nameId", "srcFile", "lineNo"]),
            quote_ident(t)
        );
        for_each_row(db, t, &sql, |row| {
            let start = required_int(db, t, row, 4, "start")?;
            let end = required_int(db, t, row, 5, "end")?;
            by_key
                .entry((int_at(row, 1), int_at(row, 2), int_at(row, 3)))
                .or_default()
                .push(end.saturating_sub(start));
            Ok(())
        })?;
    }
    let strings = db.string_ids()?;
    let mut by_name: HashMap<String, Vec<i64>> = HashMap::new();
    for ((name, file, line), v) in by_key {
        let mut label = string_or_empty(&strings, name).to_string();
        if file.is_some() {
            label.push('@');
            label.push_str(string_or_empty(&strings, file));
            label.push(':');
            if let Some(line) = line {
                label.push_str(&line.to_string());
            }
        }
        by_name.entry(label).or_default().extend(v);
    }
    let mut groups: Vec<Group> = by_name.into_iter().map(|(n, v)| (vec![n], v)).collect();
    groups.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(ReportOutcome::Table(summary_table(
        req.report.name,
        "Num Calls",
        &["Name"],
        groups,
    )))
}

fn openmp_sum(db: &ExportDb, req: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    if let Some(message) = no_string_ids(db) {
        return Ok(ReportOutcome::Skipped(message));
    }
    let mut tables: Vec<&str> = db
        .table_names()
        .into_iter()
        .filter(|t| t.starts_with("OPENMP_EVENT_KIND_"))
        .collect();
    if tables.is_empty() {
        return skipped(db, "OpenMP event data");
    }
    tables.sort_unstable();
    let strings = db.string_ids()?;
    let mut groups: Vec<(String, usize, Vec<i64>)> = Vec::new();
    for (i, t) in tables.iter().enumerate() {
        for (name, v) in durations_by(db, t, &db.col_or_null(t, "nameId"), "")? {
            groups.push((string_or_empty(&strings, name).to_string(), i, v));
        }
    }
    groups.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    Ok(ReportOutcome::Table(summary_table(
        req.report.name,
        "Count",
        &["Name"],
        groups.into_iter().map(|(n, _, v)| (vec![n], v)).collect(),
    )))
}

/// The NvVideo tables in nsys's order, with their Event Type.
const NVVIDEO_TABLES: &[(&str, &str)] = &[
    ("NVVIDEO_ENCODER_API", "Encoder"),
    ("NVVIDEO_DECODER_API", "Decoder"),
    ("NVVIDEO_JPEG_API", "JPEG"),
];

fn nvvideo_api_sum(db: &ExportDb, req: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    if let Some(message) = no_string_ids(db) {
        return Ok(ReportOutcome::Skipped(message));
    }
    if !NVVIDEO_TABLES.iter().any(|(t, _)| db.has_table(t)) {
        return skipped(db, "NvVideo trace data");
    }
    let strings = db.string_ids()?;
    let mut groups: Vec<Group> = Vec::new();
    for (t, kind) in NVVIDEO_TABLES.iter().filter(|(t, _)| db.has_table(t)) {
        let mut by_name: Vec<(Option<i64>, Vec<i64>)> =
            durations_by(db, t, &db.col_or_null(t, "nameId"), "")?
                .into_iter()
                .collect();
        by_name.sort_by_key(|(id, _)| *id);
        groups.extend(by_name.into_iter().map(|(id, v)| {
            let name = strip_stats_suffix(string_or_empty(&strings, id)).to_string();
            (vec![kind.to_string(), name], v)
        }));
    }
    Ok(ReportOutcome::Table(summary_table(
        req.report.name,
        "Num Calls",
        &["Event Type", "Name"],
        groups,
    )))
}
