//! The CUDA traces: `cuda_api_trace` (every runtime/driver call with its thread) and
//! `cuda_gpu_trace` (every kernel, memory copy and memset, by start).
//!
//! Throughput (MB/s) is nsys's: bytes × ⌊10⁹ / duration⌋ / 10⁶, three decimals — the whole
//! transfers per second first, so a 19 267 584-byte copy of 2 703 242 ns shows 7109.738, not
//! 7127.584. Exports without `ENUM_CUDA_MEMCPY_OPER` (refused by nsys 2023.4) get nsys
//! 2022.4's layout: `Throughput (MBps)`, no GreenCtx column, `None` for missing values, short
//! copy labels.

use std::collections::HashMap;

use super::super::NsysError;
use super::super::db::{ExportDb, text_of};
use super::gpu_ops::{
    Columns, KernelNamer, MemLabels, NameKey, NameKind, RUNTIME, device_names, for_each_kernel,
    for_each_mem_op, for_each_row, int_at, nvtx_missing,
};
use super::table::{string_of, strip_stats_suffix};
use super::{Cell, Report, ReportOption, ReportOutcome, ReportRequest, ReportTable, skipped};
use crate::timeline::summary::fmt_ratio;

/// The reports of this module.
pub(super) const REPORTS: &[Report] = &[
    Report {
        name: "cuda_api_trace",
        about: "CUDA API trace: every runtime/driver call with its result and thread",
        options: &[],
        run: api_trace,
    },
    Report {
        name: "cuda_gpu_trace",
        about: "CUDA GPU trace: every kernel, memory copy and memset, by start",
        options: &[ReportOption {
            name: "nvtx-name",
            default: None,
            about: "prefix each kernel's name with the innermost NVTX push/pop range around its launch",
        }],
        run: gpu_trace,
    },
];

/// Thread names and priorities by globalTid.
pub(super) fn thread_names(
    db: &ExportDb,
    strings: &HashMap<i64, String>,
) -> Result<HashMap<i64, (Option<i64>, String)>, NsysError> {
    const T: &str = "ThreadNames";
    let mut out = HashMap::new();
    if !db.has_table(T) {
        return Ok(out);
    }
    let sql = format!(
        "SELECT {}, {}, {} FROM {T}",
        db.col_or_null(T, "globalTid"),
        db.col_or_null(T, "priority"),
        db.col_or_null(T, "nameId"),
    );
    for_each_row(db, T, &sql, |row| {
        if let Some(tid) = int_at(row, 0) {
            let name = int_at(row, 2)
                .map(|id| string_of(strings, id))
                .unwrap_or_default();
            out.entry(tid).or_insert((int_at(row, 1), name));
        }
        Ok(())
    })?;
    Ok(out)
}

fn api_trace(db: &ExportDb, req: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    if !db.has_table(RUNTIME) {
        return skipped(db, "CUDA trace data");
    }
    let strings = db.string_ids()?;
    let threads = thread_names(db, &strings)?;
    let c = |name| db.col_or_null(RUNTIME, name);
    let sql = format!(
        "SELECT rowid, start, end, {}, {}, {}, {} FROM {RUNTIME} ORDER BY start, rowid",
        c("nameId"),
        c("returnValue"),
        c("correlationId"),
        c("globalTid"),
    );
    let mut names: HashMap<i64, String> = HashMap::new();
    let mut rows = Vec::new();
    for_each_row(db, RUNTIME, &sql, |row| {
        let (Some(start), Some(end)) = (int_at(row, 1), int_at(row, 2)) else {
            let rowid = int_at(row, 0).unwrap_or(-1);
            return Err(db.query_error(
                RUNTIME,
                format!("rowid {rowid}: start or end is not an integer"),
            ));
        };
        let name_id = int_at(row, 3).unwrap_or(-1);
        let name = names
            .entry(name_id)
            .or_insert_with(|| strip_stats_suffix(&string_of(&strings, name_id)).to_string())
            .clone();
        let global_tid = int_at(row, 6);
        let thread = global_tid.and_then(|g| threads.get(&g));
        rows.push(vec![
            Cell::int(start),
            Cell::int(end - start),
            Cell::Text(name.into()),
            Cell::Number(
                row.get_ref(4)
                    .ok()
                    .and_then(text_of)
                    .unwrap_or_default()
                    .into(),
            ),
            Cell::opt_int(int_at(row, 5)),
            Cell::opt_int(global_tid.map(|g| (g >> 24) & 0xFF_FFFF)),
            Cell::opt_int(global_tid.map(|g| g & 0xFF_FFFF)),
            Cell::opt_int(thread.and_then(|t| t.0)),
            Cell::Text(thread.map(|t| t.1.clone()).unwrap_or_default().into()),
        ]);
        Ok(())
    })?;
    let columns = [
        "Start (ns)",
        "Duration (ns)",
        "Name",
        "Result",
        "CorrID",
        "Pid",
        "Tid",
        "T-Pri",
        "Thread Name",
    ];
    Ok(ReportOutcome::Table(ReportTable {
        report: req.report.name.to_string(),
        columns: columns.iter().map(|c| c.to_string()).collect(),
        rows,
    }))
}

/// Bytes as MB, three decimals.
fn mb(bytes: i64) -> String {
    fmt_ratio(i128::from(bytes), 1_000_000, 3)
}

/// nsys's throughput: bytes × ⌊10⁹ / duration⌋ in MB/s; `None` for a zero duration.
fn throughput(bytes: i64, duration: i64) -> Option<String> {
    (duration > 0).then(|| {
        let per_second = 1_000_000_000 / i128::from(duration);
        fmt_ratio(i128::from(bytes) * per_second, 1_000_000, 3)
    })
}

/// The columns of `cuda_gpu_trace` (one fewer in the old layout).
const GPU_TRACE_COLUMNS: usize = 21;

fn gpu_trace(db: &ExportDb, req: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    use super::gpu_ops::{KERNEL, MEMCPY, MEMSET};
    if !db.has_table(KERNEL) && !db.has_table(MEMCPY) && !db.has_table(MEMSET) {
        return skipped(db, "GPU trace data");
    }
    let nvtx_name = req.flag("nvtx-name");
    if nvtx_name && let Some(skip) = nvtx_missing(db) {
        return skip;
    }
    let strings = db.string_ids()?;
    let namer = KernelNamer::new(db, &strings, nvtx_name)?;
    let labels = MemLabels::of(db);
    let old = labels.old_layout();
    let devices = device_names(db);
    let none = |s: Option<String>| -> Cell {
        Cell::Number(
            s.unwrap_or_else(|| if old { "None".into() } else { String::new() })
                .into(),
        )
    };
    let device = |id: Option<i64>| -> Cell {
        Cell::Text(
            match id {
                Some(id) => match devices.get(&id) {
                    Some(name) => format!("{name} ({id})"),
                    // nsys prints an unknown device with an empty name.
                    None => format!(" ({id})"),
                },
                None => String::new(),
            }
            .into(),
        )
    };
    // (start, order, row): kernels, then copies and memsets, each in table order.
    let mut rows: Vec<(i64, usize, Vec<Cell>)> = Vec::new();
    let place = |row: &mut Vec<Cell>, at: &super::gpu_ops::Placement| {
        row.push(device(at.device));
        row.push(Cell::opt_int(at.context));
        if !old {
            // Green context 0 is "none" (nsys prints it blank).
            row.push(Cell::opt_int(at.green.filter(|&g| g != 0)));
        }
        row.push(Cell::opt_int(at.stream));
    };
    let mut names: HashMap<NameKey, String> = HashMap::new();
    for_each_kernel(db, NameKind::Demangled, Columns::All, |k| {
        let mut row = Vec::with_capacity(GPU_TRACE_COLUMNS);
        row.extend([
            Cell::int(k.at.start),
            Cell::int(k.at.duration()),
            Cell::opt_int(k.at.corr),
        ]);
        row.extend(k.grid.iter().chain(&k.block).map(|&v| Cell::int(v)));
        row.push(Cell::opt_int(k.registers));
        row.push(none(k.static_smem.map(mb)));
        row.push(none(k.dynamic_smem.map(mb)));
        row.push(none(None));
        row.push(Cell::Number(String::new().into()));
        row.push(none(None));
        row.push(none(None));
        place(&mut row, &k.at);
        let name = names
            .entry(namer.key(k))
            .or_insert_with_key(|key| namer.text(*key))
            .clone();
        row.push(Cell::Text(name.into()));
        rows.push((k.at.start, rows.len(), row));
    })?;
    let mut op_names: HashMap<Option<i64>, String> = HashMap::new();
    let mut kinds: HashMap<i64, String> = HashMap::new();
    let mut kind = |k: i64| -> String {
        kinds
            .entry(k)
            .or_insert_with(|| labels.memory_kind(k))
            .clone()
    };
    for_each_mem_op(db, |op| {
        let mut row = Vec::with_capacity(GPU_TRACE_COLUMNS);
        row.extend([
            Cell::int(op.at.start),
            Cell::int(op.at.duration()),
            Cell::opt_int(op.at.corr),
        ]);
        row.extend((0..9).map(|_| none(None)));
        row.push(Cell::Number(mb(op.bytes).into()));
        row.push(none(throughput(op.bytes, op.at.duration())));
        row.push(none(op.src_kind.map(&mut kind)));
        row.push(none(op.dst_kind.map(&mut kind)));
        place(&mut row, &op.at);
        let name = op_names
            .entry(op.copy_kind)
            .or_insert_with(|| labels.operation(op))
            .clone();
        row.push(Cell::Text(name.into()));
        rows.push((op.at.start, rows.len(), row));
    })?;
    rows.sort_by_key(|r| (r.0, r.1));
    let mut columns = vec![
        "Start (ns)",
        "Duration (ns)",
        "CorrId",
        "GrdX",
        "GrdY",
        "GrdZ",
        "BlkX",
        "BlkY",
        "BlkZ",
        "Reg/Trd",
        "StcSMem (MB)",
        "DymSMem (MB)",
        "Bytes (MB)",
        if old {
            "Throughput (MBps)"
        } else {
            "Throughput (MB/s)"
        },
        "SrcMemKd",
        "DstMemKd",
        "Device",
        "Ctx",
        "GreenCtx",
        "Strm",
        "Name",
    ];
    if old {
        columns.retain(|c| *c != "GreenCtx");
    }
    Ok(ReportOutcome::Table(ReportTable {
        report: req.report.name.to_string(),
        columns: columns.iter().map(|c| c.to_string()).collect(),
        rows: rows.into_iter().map(|r| r.2).collect(),
    }))
}
