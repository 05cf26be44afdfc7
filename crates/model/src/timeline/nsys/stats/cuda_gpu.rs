//! The GPU summaries: `cuda_gpu_sum` (kernels and memory operations), `cuda_api_gpu_sum` (the
//! same with the CUDA API calls, each row with its category) and `cuda_gpu_kern_gb_sum`
//! (kernels per grid and block size).
//!
//! Kernels group by name (demangled, or as `nvtx-name`, `base`, `mangled` ask), memory copies
//! by copy kind, memsets all together, API calls by name with the `_vNNNN` suffix cut (unlike
//! `cuda_api_sum`, which groups by string id). Time (%) is of the report's grand total.

use std::collections::HashMap;

use rustc_hash::FxHashMap;

use super::super::NsysError;
use super::super::db::ExportDb;
use super::cuda::KERNEL_NAME_OPTIONS;
use super::gpu_ops::{
    Columns, KERNEL, MEMCPY, MEMSET, MemLabels, NameKey, NameKind, RUNTIME, fold_kernel_halves,
    for_each_mem_op, kernel_durations, kernel_namer, merge_groups, xyz,
};
use super::table::{grouped, read_both, string_of, strip_stats_suffix, summaries_table};
use super::{Cell, Report, ReportOutcome, ReportRequest, ReportTable, StatsOption, skipped};
use crate::timeline::summary::Summary;

/// The reports of this module.
pub(super) const REPORTS: &[Report] = &[
    Report {
        name: "cuda_gpu_sum",
        about: "CUDA GPU summary: time per kernel and memory operation",
        options: KERNEL_NAME_OPTIONS,
        run: gpu_sum,
    },
    Report {
        name: "cuda_api_gpu_sum",
        about: "CUDA summary: time per API function, kernel and memory operation",
        options: KERNEL_NAME_OPTIONS,
        run: gpu_sum,
    },
    Report {
        name: "cuda_gpu_kern_gb_sum",
        about: "CUDA GPU kernel summary per grid and block size",
        options: KERNEL_NAME_OPTIONS,
        run: kern_gb_sum,
    },
];

/// A group of durations and the cells that name it (after the statistics).
struct Group {
    names: Vec<Cell>,
    /// What equal totals and instances sort by: the name, then grid and block sizes.
    sort_name: String,
    sort_dims: [i64; 6],
    values: Vec<i64>,
}

/// How rows of equal total sort.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ties {
    /// Instances (descending), name, grid and block sizes.
    InstancesFirst,
    /// Instances (ascending), name, grid and block sizes (`cuda_gpu_kern_gb_sum`: nsys 2023.4
    /// on the corpus and on a generated 1 M-event export).
    FewerInstancesFirst,
}

/// The statistics columns then `trailing`, rows by total (descending), then as `ties` says.
fn summary_table(report: &str, trailing: &[&str], groups: Vec<Group>, ties: Ties) -> ReportTable {
    let mut sums: Vec<(Summary, Group)> = groups
        .into_iter()
        .filter_map(|mut g| Some((Summary::of(&mut g.values)?, g)))
        .collect();
    sums.sort_by(|(a, ag), (b, bg)| {
        let by_total = b.total.cmp(&a.total);
        match ties {
            Ties::InstancesFirst => by_total
                .then(b.count.cmp(&a.count))
                .then_with(|| ag.sort_name.cmp(&bg.sort_name)),
            Ties::FewerInstancesFirst => by_total
                .then(a.count.cmp(&b.count))
                .then_with(|| ag.sort_name.cmp(&bg.sort_name)),
        }
        .then(ag.sort_dims.cmp(&bg.sort_dims))
    });
    let rows = sums.into_iter().map(|(s, g)| (s, g.names)).collect();
    summaries_table(report, "Instances", trailing, rows)
}

/// `cuda_gpu_sum` and `cuda_api_gpu_sum`.
fn gpu_sum(db: &ExportDb, req: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    let report = req.report.name;
    let with_api = report == "cuda_api_gpu_sum";
    let gpu_tables = [KERNEL, MEMCPY, MEMSET].iter().any(|t| db.has_table(t));
    if with_api {
        if !db.has_table(RUNTIME) && !gpu_tables {
            return skipped(db, "CUDA API, GPU kernel, nor memory operations data");
        }
    } else if !gpu_tables {
        return skipped(db, "GPU kernel/memory operations data");
    }
    // Kernels are what the NVTX names apply to: without them the option needs no NVTX data.
    let nvtx_name = req.flag(StatsOption::NvtxName)? && (!with_api || db.has_table(KERNEL));
    let namer = match kernel_namer(db, nvtx_name)? {
        Ok(namer) => namer,
        Err(skip) => return Ok(skip),
    };
    let mut groups = Vec::new();
    let mut push = |category: &str, name: String, values: Vec<i64>| {
        groups.push(Group {
            names: vec![Cell::Text(category.into()), Cell::Text(name.clone().into())],
            sort_name: name,
            sort_dims: [0; 6],
            values,
        })
    };
    // The runtime table and the kernel table are read at once, on two connections.
    let (calls, kernels) = read_both(
        db,
        |db| {
            if with_api && db.has_table(RUNTIME) {
                grouped(db, RUNTIME, "nameId", "end - start", "").map(Some)
            } else {
                Ok(None)
            }
        },
        |db| kernel_durations(db, NameKind::of(req)?, &namer),
    );
    if let Some(calls) = calls? {
        // Unlike cuda_api_sum, calls group by their name with the suffix cut: the two rows of
        // each call in old exports (`cudaMalloc`, `cudaMalloc_v3020`) make one group.
        let mut by_name: HashMap<String, Vec<i64>> = HashMap::new();
        for (id, v) in calls {
            by_name
                .entry(strip_stats_suffix(&string_of(namer.strings(), id)).to_string())
                .or_default()
                .extend(v);
        }
        for (name, v) in by_name {
            push("CUDA_API", name, v);
        }
    }
    for (name, v) in kernels? {
        push("CUDA_KERNEL", name, v);
    }
    let labels = MemLabels::of(db);
    // By copy kind (None: memset), labelled once per group.
    let mut ops: HashMap<Option<i64>, Vec<i64>> = HashMap::new();
    for_each_mem_op(db, |op| {
        ops.entry(op.copy_kind).or_default().push(op.at.duration())
    })?;
    let mut labelled: HashMap<String, Vec<i64>> = HashMap::new();
    for (kind, v) in ops {
        labelled
            .entry(labels.operation_label(kind))
            .or_default()
            .extend(v);
    }
    for (name, v) in labelled {
        push("MEMORY_OPER", name, v);
    }
    Ok(ReportOutcome::Table(summary_table(
        report,
        &["Category", "Operation"],
        groups,
        Ties::InstancesFirst,
    )))
}

fn kern_gb_sum(db: &ExportDb, req: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    if !db.has_table(KERNEL) {
        return skipped(db, "CUDA kernel data");
    }
    let nvtx_name = req.flag(StatsOption::NvtxName)?;
    let namer = match kernel_namer(db, nvtx_name)? {
        Ok(namer) => namer,
        Err(skip) => return Ok(skip),
    };
    type Dims = ([i64; 3], [i64; 3]);
    let [mut by_key, second] = fold_kernel_halves(
        db,
        NameKind::of(req)?,
        Columns::Lean,
        FxHashMap::default,
        |by_key: &mut FxHashMap<(NameKey, Dims), Vec<i64>>, k| {
            by_key
                .entry((namer.key(k), (k.grid, k.block)))
                .or_default()
                .push(k.at.duration())
        },
    )?;
    merge_groups(&mut by_key, second);
    let groups = namer
        .by_name(by_key)
        .into_iter()
        .map(|((name, (grid, block)), values)| Group {
            names: vec![
                Cell::Text(xyz(grid).into()),
                Cell::Text(xyz(block).into()),
                Cell::Text(name.clone().into()),
            ],
            sort_name: name,
            sort_dims: [grid[0], grid[1], grid[2], block[0], block[1], block[2]],
            values,
        })
        .collect();
    Ok(ReportOutcome::Table(summary_table(
        req.report.name,
        &["GridXYZ", "BlockXYZ", "Name"],
        groups,
        Ties::FewerInstancesFirst,
    )))
}
