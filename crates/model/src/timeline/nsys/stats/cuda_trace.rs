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
use super::api_table::thread_names;
use super::gpu_ops::{
    Columns, Kernel, KernelNamer, MemLabels, MemOp, NameKey, NameKind, RUNTIME, device_names,
    for_each_mem_op, for_each_row, int_at, kernel_namer, kernels_in, rowid_bounds,
};
use super::table::{read_both, string_of, strip_stats_suffix};
use super::{
    Cell, CellText, Report, ReportOption, ReportOutcome, ReportRequest, ReportTable, Rows,
    StatsOption, skipped,
};
use crate::core::num::index_u32;
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
            option: StatsOption::NvtxName,
            default: None,
            about: "prefix each kernel's name with the innermost NVTX push/pop range around its launch",
        }],
        run: gpu_trace,
    },
];

fn api_trace(db: &ExportDb, req: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    if !db.has_table(RUNTIME) {
        return skipped(db, "CUDA trace data");
    }
    let strings = db.string_ids()?;
    let threads = thread_names(db, |id| {
        id.map(|id| string_of(&strings, id)).unwrap_or_default()
    })?;
    let (calls, keys, texts) = api_calls(db, &strings)?;
    let mut order: Vec<((i64, i64), u32)> = keys
        .into_iter()
        .enumerate()
        .map(|(i, key)| (key, index_u32(i)))
        .collect();
    order.sort_unstable();
    let format = move |call: &ApiCall, row: &mut Vec<Cell>| {
        let thread = call.global_tid.and_then(|g| threads.get(&g));
        row.extend([
            Cell::int(call.start),
            Cell::int(call.end - call.start),
            Cell::Text(
                texts
                    .get(call.name as usize)
                    .map_or("", String::as_str)
                    .into(),
            ),
            Cell::Number(call.result.clone()),
            Cell::opt_int(call.corr),
            Cell::opt_int(call.global_tid.map(|g| (g >> 24) & 0xFF_FFFF)),
            Cell::opt_int(call.global_tid.map(|g| g & 0xFF_FFFF)),
            Cell::opt_int(thread.and_then(|t| t.priority)),
            Cell::Text(thread.map_or("", |t| t.name.as_str()).into()),
        ]);
    };
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
    Ok(ReportOutcome::Table(ReportTable::new(
        req.report.name,
        columns,
        Rows::lazy_ordered(calls, order, format),
    )))
}

/// Runtime/driver calls in table order with their (start, rowid), and the names they use.
type ApiPart = (Vec<ApiCall>, Vec<(i64, i64)>, Vec<String>);

/// Every runtime/driver call: the table's two halves by rowid at once, on two connections,
/// the second half's name indices moved past the first's names.
fn api_calls(db: &ExportDb, strings: &HashMap<i64, String>) -> Result<ApiPart, NsysError> {
    let c = |name| db.col_or_null(RUNTIME, name);
    let columns = format!(
        "SELECT rowid, start, end, {}, {}, {}, {} FROM {RUNTIME}",
        c("nameId"),
        c("returnValue"),
        c("correlationId"),
        c("globalTid"),
    );
    let read = |db: &ExportDb, range| api_calls_in(db, strings, &columns, range);
    let ((mut calls, mut keys, mut texts), second) =
        match rowid_bounds(db, RUNTIME).filter(|(lo, hi)| lo < hi) {
            Some((lo, hi)) => {
                // ⌊(lo + hi) / 2⌋: lo ≤ mid < hi, so neither this sum nor mid + 1 overflows
                // (rowids may be any i64).
                let mid = lo.saturating_add_unsigned(hi.abs_diff(lo) / 2);
                let (first, second) = read_both(
                    db,
                    |db| read(db, Some((lo, mid))),
                    |db| read(db, Some((mid + 1, hi))),
                );
                (first?, Some(second?))
            }
            None => (read(db, None)?, None),
        };
    if let Some((more, more_keys, more_texts)) = second {
        let offset = index_u32(texts.len());
        texts.extend(more_texts);
        keys.extend(more_keys);
        calls.extend(more.into_iter().map(|call| ApiCall {
            name: call.name + offset,
            ..call
        }));
    }
    Ok((calls, keys, texts))
}

/// The calls of `range` (all for `None`) read with the `columns` query, each name (suffix
/// cut) stored once.
fn api_calls_in(
    db: &ExportDb,
    strings: &HashMap<i64, String>,
    columns: &str,
    range: Option<(i64, i64)>,
) -> Result<ApiPart, NsysError> {
    let sql = match range {
        Some((lo, hi)) => format!("{columns} WHERE rowid BETWEEN {lo} AND {hi}"),
        None => columns.to_owned(),
    };
    let mut names: HashMap<i64, u32> = HashMap::new();
    let mut texts: Vec<String> = Vec::new();
    let mut calls = Vec::new();
    let mut keys = Vec::new();
    for_each_row(db, RUNTIME, &sql, |row| {
        let rowid = int_at(row, 0).unwrap_or(-1);
        let (Some(start), Some(end)) = (int_at(row, 1), int_at(row, 2)) else {
            return Err(db.query_error(
                RUNTIME,
                format!("rowid {rowid}: start or end is not an integer"),
            ));
        };
        let name_id = int_at(row, 3).unwrap_or(-1);
        let name = *names.entry(name_id).or_insert_with(|| {
            texts.push(strip_stats_suffix(&string_of(strings, name_id)).to_string());
            index_u32(texts.len() - 1)
        });
        keys.push((start, rowid));
        calls.push(ApiCall {
            start,
            end,
            name,
            result: row
                .get_ref(4)
                .ok()
                .and_then(text_of)
                .unwrap_or_default()
                .into(),
            corr: int_at(row, 5),
            global_tid: int_at(row, 6),
        });
        Ok(())
    })?;
    Ok((calls, keys, texts))
}

/// A row of `cuda_api_trace`, kept typed until it is read.
struct ApiCall {
    start: i64,
    end: i64,
    /// Index of its name (suffix cut).
    name: u32,
    result: CellText,
    corr: Option<i64>,
    global_tid: Option<i64>,
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

/// A row of `cuda_gpu_trace`, kept typed until it is read: a kernel with its name, or a memory
/// copy or memset with its operation label and memory kinds (indices into [`GpuTraceText`]).
enum GpuOp {
    Kernel(Kernel, u32),
    Mem(MemOp, u32, Option<u32>, Option<u32>),
}

impl GpuOp {
    fn at(&self) -> &super::gpu_ops::Placement {
        match self {
            GpuOp::Kernel(k, _) => &k.at,
            GpuOp::Mem(op, ..) => &op.at,
        }
    }
}

/// What `cuda_gpu_trace`'s rows print besides their numbers.
struct GpuTraceText {
    /// nsys 2022.4's layout (no GreenCtx, `None` for missing values).
    old: bool,
    /// Names, operation labels and memory kinds, by index.
    texts: Vec<String>,
    /// `name (id)` per device id.
    devices: HashMap<i64, String>,
}

impl GpuTraceText {
    fn none(&self, s: Option<String>) -> Cell {
        Cell::Number(
            s.unwrap_or_else(|| {
                if self.old {
                    "None".into()
                } else {
                    String::new()
                }
            })
            .into(),
        )
    }

    fn text(&self, index: u32) -> &str {
        self.texts.get(index as usize).map_or("", String::as_str)
    }

    fn row(&self, op: &GpuOp, row: &mut Vec<Cell>) {
        let at = op.at();
        row.extend([
            Cell::int(at.start),
            Cell::int(at.duration()),
            Cell::opt_int(at.corr),
        ]);
        let name = match op {
            GpuOp::Kernel(k, name) => {
                row.extend(k.grid.iter().chain(&k.block).map(|&v| Cell::int(v)));
                row.push(Cell::opt_int(k.registers));
                row.push(self.none(k.static_smem.map(mb)));
                row.push(self.none(k.dynamic_smem.map(mb)));
                row.push(self.none(None));
                row.push(Cell::Number(CellText::default()));
                row.push(self.none(None));
                row.push(self.none(None));
                *name
            }
            GpuOp::Mem(op, name, src, dst) => {
                row.extend((0..9).map(|_| self.none(None)));
                row.push(Cell::Number(mb(op.bytes).into()));
                row.push(self.none(throughput(op.bytes, op.at.duration())));
                row.push(self.none(src.map(|k| self.text(k).to_string())));
                row.push(self.none(dst.map(|k| self.text(k).to_string())));
                *name
            }
        };
        row.push(Cell::Text(match at.device {
            Some(id) => match self.devices.get(&id) {
                Some(device) => format!("{device} ({id})").into(),
                // nsys prints an unknown device with an empty name.
                None => format!(" ({id})").into(),
            },
            None => CellText::default(),
        }));
        row.push(Cell::opt_int(at.context));
        if !self.old {
            // Green context 0 is "none" (nsys prints it blank).
            row.push(Cell::opt_int(at.green.filter(|&g| g != 0)));
        }
        row.push(Cell::opt_int(at.stream));
        row.push(Cell::Text(self.text(name).into()));
    }
}

fn gpu_trace(db: &ExportDb, req: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    use super::gpu_ops::{KERNEL, MEMCPY, MEMSET, kernel_split};
    if !db.has_table(KERNEL) && !db.has_table(MEMCPY) && !db.has_table(MEMSET) {
        return skipped(db, "GPU trace data");
    }
    // Kernels are what the NVTX names apply to: without them the option needs no NVTX data
    // (nsys lists the copies and memsets of an export without NVTX_EVENTS).
    let nvtx_name = req.flag(StatsOption::NvtxName)? && db.has_table(KERNEL);
    let namer = match kernel_namer(db, nvtx_name)? {
        Ok(namer) => namer,
        Err(skip) => return Ok(skip),
    };
    let labels = MemLabels::of(db);
    let old = labels.old_layout();
    // Kernels, then copies and memsets, each in table order; shown by start. Two connections
    // read at once, each naming its own rows: one the first part of the kernel table, the other
    // the rest of it and the memory tables (as many rows each).
    let memory_rows = [MEMCPY, MEMSET]
        .iter()
        .filter_map(|t| rowid_bounds(db, t))
        .map(|(lo, hi)| {
            let rows = (i128::from(hi) - i128::from(lo) + 1).clamp(0, i128::from(u32::MAX));
            u64::try_from(rows).unwrap_or(0)
        })
        .sum();
    let split = kernel_split(db, memory_rows);
    let (first, rest) = read_both(
        db,
        |db| kernel_ops(db, &namer, split.map(|(first, _)| first)),
        |db| {
            let second = match split {
                Some((_, second)) => kernel_ops(db, &namer, Some(second))?,
                None => (Vec::new(), Vec::new()),
            };
            Ok::<_, NsysError>((second, memory_ops(db, &labels)?))
        },
    );
    let (mut ops, mut texts) = first?;
    let (second, memory) = rest?;
    append_parts(&mut ops, &mut texts, [second, memory]);
    // Stable by start: equal starts keep kernels before copies, each in table order.
    let mut order: Vec<(i64, u32)> = ops
        .iter()
        .enumerate()
        .map(|(i, op)| (op.at().start, index_u32(i)))
        .collect();
    order.sort_unstable();
    let text = GpuTraceText {
        old,
        texts,
        devices: device_names(db)?,
    };
    Ok(ReportOutcome::Table(ReportTable::new(
        req.report.name,
        gpu_trace_columns(old),
        Rows::lazy_ordered(ops, order, move |op, row| text.row(op, row)),
    )))
}

/// Some rows of `cuda_gpu_trace` and the texts their name indices point into.
type GpuOpPart = (Vec<GpuOp>, Vec<String>);

/// The kernels of `range` (all for `None`) in table order, each name stored once.
fn kernel_ops(
    db: &ExportDb,
    namer: &KernelNamer,
    range: Option<(i64, i64)>,
) -> Result<GpuOpPart, NsysError> {
    let mut texts = Vec::new();
    let mut ops = Vec::new();
    let mut names: HashMap<NameKey, u32> = HashMap::new();
    kernels_in(db, NameKind::Demangled, Columns::All, range, |k| {
        let name = *names.entry(namer.key(k)).or_insert_with_key(|key| {
            texts.push(namer.text(*key));
            index_u32(texts.len() - 1)
        });
        ops.push(GpuOp::Kernel(k.clone(), name));
    })?;
    Ok((ops, texts))
}

/// The memory copies and memsets in table order, each operation and memory-kind label stored
/// once.
fn memory_ops(db: &ExportDb, labels: &MemLabels) -> Result<GpuOpPart, NsysError> {
    let mut texts: Vec<String> = Vec::new();
    let mut ops = Vec::new();
    let mut labelled: HashMap<(u8, i64), u32> = HashMap::new();
    let mut intern = |key: (u8, i64), text: &dyn Fn() -> String| -> u32 {
        *labelled.entry(key).or_insert_with(|| {
            texts.push(text());
            index_u32(texts.len() - 1)
        })
    };
    for_each_mem_op(db, |op| {
        // Labels keyed (0, copy kind), (1, 0) for a memset, (2, memory kind).
        let key = op.copy_kind.map_or((1, 0), |k| (0, k));
        let name = intern(key, &|| labels.operation(op));
        let src = op
            .src_kind
            .map(|k| intern((2, k), &|| labels.memory_kind(k)));
        let dst = op
            .dst_kind
            .map(|k| intern((2, k), &|| labels.memory_kind(k)));
        ops.push(GpuOp::Mem(op.clone(), name, src, dst));
    })?;
    Ok((ops, texts))
}

/// Appends each part's rows and texts, its name indices moved past the texts before it.
fn append_parts<const N: usize>(
    ops: &mut Vec<GpuOp>,
    texts: &mut Vec<String>,
    parts: [GpuOpPart; N],
) {
    for (part, part_texts) in parts {
        let offset = index_u32(texts.len());
        texts.extend(part_texts);
        ops.extend(part.into_iter().map(|op| match op {
            GpuOp::Mem(op, name, src, dst) => GpuOp::Mem(
                op,
                name + offset,
                src.map(|k| k + offset),
                dst.map(|k| k + offset),
            ),
            GpuOp::Kernel(k, name) => GpuOp::Kernel(k, name + offset),
        }));
    }
}

/// The columns of `cuda_gpu_trace`: nsys 2022.4's layout (`Throughput (MBps)`, no GreenCtx)
/// when `old`.
fn gpu_trace_columns(old: bool) -> Vec<&'static str> {
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
    columns
}
