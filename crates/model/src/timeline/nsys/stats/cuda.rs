//! The CUDA and OS runtime summaries: `cuda_gpu_kern_sum`, `cuda_api_sum`,
//! `cuda_gpu_mem_time_sum`, `cuda_gpu_mem_size_sum`, `osrt_sum`.

use super::super::NsysError;
use super::super::db::ExportDb;
use super::gpu_ops::{NameKind, kernel_durations, kernel_namer};
use super::table::{grouped, memcpy_label, size_table, string_of, strip_stats_suffix, time_table};
use super::{Report, ReportOption, ReportOutcome, ReportRequest, StatsOption, skipped};

/// The reports of this module.
pub(super) const REPORTS: &[Report] = &[
    Report {
        name: "cuda_gpu_kern_sum",
        about: "CUDA GPU kernel summary: time per kernel name",
        options: KERNEL_NAME_OPTIONS,
        run: gpu_kern_sum,
    },
    Report {
        name: "cuda_api_sum",
        about: "CUDA API summary: time per runtime/driver function",
        options: &[],
        run: api_sum,
    },
    Report {
        name: "cuda_gpu_mem_time_sum",
        about: "CUDA GPU memory operations by time, per copy kind and memset",
        options: &[],
        run: gpu_mem_sum,
    },
    Report {
        name: "cuda_gpu_mem_size_sum",
        about: "CUDA GPU memory operations by size (MB), per copy kind and memset",
        options: &[],
        run: gpu_mem_sum,
    },
    Report {
        name: "osrt_sum",
        about: "OS runtime summary: time per function",
        options: &[],
        run: osrt_sum,
    },
];

/// The options of the reports that name kernels: `nvtx-name`, `base`, `mangled`.
pub(super) const KERNEL_NAME_OPTIONS: &[ReportOption] = &[
    ReportOption {
        option: StatsOption::NvtxName,
        default: None,
        about: "prefix each kernel's name with the innermost NVTX push/pop range around its launch",
    },
    ReportOption {
        option: StatsOption::Base,
        default: None,
        about: "kernel names without parameters or templates (shortName)",
    },
    ReportOption {
        option: StatsOption::Mangled,
        default: None,
        about: "raw mangled kernel names, where the export has them",
    },
];

/// The values one of this module's reports summarizes, by group name as `nsys stats` groups
/// them: a kernel's durations by its name, an API or OS runtime function's by its name, a
/// memory operation's durations or sizes by its kind; `Err` holds the report's "does not
/// contain" outcome when the export lacks the data.
pub(crate) fn named_values(
    db: &ExportDb,
    req: &ReportRequest,
) -> Result<Result<Named, ReportOutcome>, NsysError> {
    match req.report.name {
        "cuda_gpu_kern_sum" => kernel_values(db, req),
        "cuda_api_sum" => {
            const T: &str = "CUPTI_ACTIVITY_KIND_RUNTIME";
            if !db.has_table(T) {
                return skipped(db, "CUDA trace data").map(Err);
            }
            // Grouped by string id, then the `_vNNNN` suffix cut (two rows may show one name).
            calls_by_name(db, T, "", strip_stats_suffix).map(Ok)
        }
        "osrt_sum" => {
            const T: &str = "OSRT_API";
            if !db.has_table(T) {
                return skipped(db, "OS Runtime trace data").map(Err);
            }
            let filter = if db.has_column(T, "eventClass") {
                " WHERE eventClass = 27"
            } else {
                ""
            };
            calls_by_name(db, T, filter, |name| name).map(Ok)
        }
        name => memory_values(db, name == "cuda_gpu_mem_size_sum"),
    }
}

/// Values by group name.
pub(crate) type Named = Vec<(String, Vec<i64>)>;

/// `cuda_gpu_kern_sum`'s durations by kernel name.
fn kernel_values(
    db: &ExportDb,
    req: &ReportRequest,
) -> Result<Result<Named, ReportOutcome>, NsysError> {
    const T: &str = "CUPTI_ACTIVITY_KIND_KERNEL";
    if !db.has_table(T) {
        return skipped(db, "CUDA kernel data").map(Err);
    }
    let nvtx_name = req.flag(StatsOption::NvtxName)?;
    let namer = match kernel_namer(db, nvtx_name)? {
        Ok(namer) => namer,
        Err(skip) => return Ok(Err(skip)),
    };
    Ok(Ok(
        if nvtx_name || NameKind::of(req)? != NameKind::Demangled {
            kernel_durations(db, NameKind::of(req)?, &namer)?
        } else {
            grouped(db, T, "demangledName", "end - start", "")?
                .into_iter()
                .map(|(k, v)| (string_of(namer.strings(), k), v))
                .collect()
        },
    ))
}

fn gpu_kern_sum(db: &ExportDb, req: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    Ok(match named_values(db, req)? {
        Ok(named) => ReportOutcome::Table(time_table(
            req.report.name,
            "Instances",
            "Name",
            named,
            true,
        )),
        Err(skip) => skip,
    })
}

fn api_sum(db: &ExportDb, req: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    Ok(match named_values(db, req)? {
        Ok(named) => ReportOutcome::Table(time_table(
            req.report.name,
            "Num Calls",
            "Name",
            named,
            false,
        )),
        Err(skip) => skip,
    })
}

fn osrt_sum(db: &ExportDb, req: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    api_sum(db, req)
}

/// Durations of calls by their `nameId` (the rows `filter` keeps), each named by `label`.
fn calls_by_name(
    db: &ExportDb,
    table: &str,
    filter: &str,
    label: fn(&str) -> &str,
) -> Result<Named, NsysError> {
    let groups = grouped(db, table, "nameId", "end - start", filter)?;
    let strings = db.string_ids()?;
    Ok(groups
        .into_iter()
        .map(|(k, v)| (label(&string_of(&strings, k)).to_string(), v))
        .collect())
}

/// `cuda_gpu_mem_time_sum` and `cuda_gpu_mem_size_sum`.
fn gpu_mem_sum(db: &ExportDb, req: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    let report = req.report.name;
    let named = match named_values(db, req)? {
        Ok(named) => named,
        Err(skip) => return Ok(skip),
    };
    Ok(ReportOutcome::Table(if report == "cuda_gpu_mem_size_sum" {
        size_table(report, named)
    } else {
        time_table(report, "Count", "Operation", named, false)
    }))
}

/// The memory operations' durations (or sizes) by copy kind, and the memsets'.
fn memory_values(db: &ExportDb, size: bool) -> Result<Result<Named, ReportOutcome>, NsysError> {
    let row_count =
        |t| -> Result<u64, NsysError> { Ok(if db.has_table(t) { db.row_count(t)? } else { 0 }) };
    let memcpy = row_count("CUPTI_ACTIVITY_KIND_MEMCPY")?;
    let memset = row_count("CUPTI_ACTIVITY_KIND_MEMSET")?;
    if !db.has_table("CUPTI_ACTIVITY_KIND_MEMCPY") && !db.has_table("CUPTI_ACTIVITY_KIND_MEMSET") {
        return skipped(db, "GPU memory data").map(Err);
    }
    let value = if size { "bytes" } else { "end - start" };
    let labels = db.enum_labels("ENUM_CUDA_MEMCPY_OPER");
    let mut named: Vec<(String, Vec<i64>)> = Vec::new();
    if memcpy > 0 {
        for (kind, v) in grouped(db, "CUPTI_ACTIVITY_KIND_MEMCPY", "copyKind", value, "")? {
            named.push((memcpy_label(labels.as_ref(), kind), v));
        }
    }
    if memset > 0 {
        let mut all = Vec::new();
        for (_, v) in grouped(db, "CUPTI_ACTIVITY_KIND_MEMSET", "NULL", value, "")? {
            all.extend(v);
        }
        named.push(("[CUDA memset]".to_string(), all));
    }
    Ok(Ok(named))
}
