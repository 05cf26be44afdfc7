//! The memory tables: for each widget, its columns and, per row (access kind), the source of
//! every cell. Column meanings follow the Kernel Profiling Guide's "Memory Tables"; metric names
//! are those of the corpus reports (see the module documentation of [`super`]).

use super::source::{Access, Resolver, Source, bytes, either, hit_rate, metric, per_request, sum};
use super::{MemoryTable, RowFilter, TableRow};

/// One row of a table specification.
struct RowSpec {
    label: &'static str,
    access: Access,
    /// The lowest compute capability (`major * 10 + minor`) that has the row.
    min_cc: u32,
    /// One source per column; `None` where the column does not apply.
    cells: Vec<Option<Source>>,
}

impl RowSpec {
    fn new(label: &'static str, access: Access, cells: Vec<Option<Source>>) -> Self {
        RowSpec {
            label,
            access,
            min_cc: 0,
            cells,
        }
    }

    fn since_cc(mut self, min_cc: u32) -> Self {
        self.min_cc = min_cc;
        self
    }
}

/// Columns of the shared-memory table.
pub const SHARED_COLUMNS: &[&str] = &["Instructions", "Wavefronts", "% Peak", "Bank Conflicts"];
/// Columns of the L1/TEX cache table.
pub const L1TEX_COLUMNS: &[&str] = &[
    "Instructions",
    "Requests",
    "Sectors",
    "Sectors/Req",
    "Hit Rate",
    "Bytes",
    "Sector Misses to L2",
    "% Peak to L2",
    "Returns to SM",
    "% Peak to SM",
];
/// Columns of the L2 cache table.
pub const L2_COLUMNS: &[&str] = &[
    "Requests",
    "Sectors",
    "Sectors/Req",
    "Hit Rate",
    "Bytes",
    "% Peak",
    "Sector Misses to Device",
    "Sector Misses to System",
    "Sector Misses to Peer",
];
/// Columns of the L2 eviction-policy table: sector lookups per policy.
pub const EVICT_COLUMNS: &[&str] = &[
    "First Hits",
    "First Misses",
    "Normal Hits",
    "Normal Misses",
    "Normal Demote Hits",
    "Normal Demote Misses",
    "Last Hits",
    "Last Misses",
];
/// Columns of the device-memory table.
pub const DEVICE_COLUMNS: &[&str] = &["Sectors", "Bytes", "% Peak", "Throughput"];

/// Resolves table `widget` for compute capability `cc`, or `None` when `widget` is not a memory
/// table. The deprecated first/second-level cache tables show the L1/TEX and L2 tables.
pub(super) fn table(
    widget: &str,
    cc: u32,
    filter: RowFilter,
    resolver: &mut Resolver<'_>,
) -> Option<MemoryTable> {
    let (widget, columns, specs): (&'static str, &'static [&'static str], Vec<RowSpec>) =
        match widget {
            "memory_shared_table" => ("memory_shared_table", SHARED_COLUMNS, shared_rows(cc)),
            "memory_l1tex_cache_table" => ("memory_l1tex_cache_table", L1TEX_COLUMNS, l1_rows()),
            "memory_first_level_cache_table" => {
                ("memory_first_level_cache_table", L1TEX_COLUMNS, l1_rows())
            }
            "memory_l2_cache_table" => ("memory_l2_cache_table", L2_COLUMNS, l2_rows()),
            "memory_second_level_cache_table" => {
                ("memory_second_level_cache_table", L2_COLUMNS, l2_rows())
            }
            "memory_l2_cache_evict_policy_table" => (
                "memory_l2_cache_evict_policy_table",
                EVICT_COLUMNS,
                evict_rows(),
            ),
            "memory_device_memory_table" => {
                ("memory_device_memory_table", DEVICE_COLUMNS, device_rows())
            }
            _ => return None,
        };
    let mut rows = Vec::new();
    for spec in specs
        .into_iter()
        .filter(|s| cc >= s.min_cc && filter.shows(s.access))
    {
        let cells = spec
            .cells
            .iter()
            .zip(columns)
            .map(|(cell, column)| {
                resolver.add_opt(format!("{}: {column}", spec.label), cell.as_ref())
            })
            .collect::<Vec<_>>();
        // A row none of whose cells the report's tool version collected is not part of that
        // version's table (2020.2 has no ECC row in the L2 table).
        if cells.iter().all(Option::is_none) {
            continue;
        }
        rows.push(TableRow {
            label: spec.label,
            cells,
        });
    }
    Some(MemoryTable {
        widget,
        columns: columns.to_vec(),
        rows,
    })
}

/// Shared memory: instructions, data-stage wavefronts, their % of peak, bank conflicts.
fn shared_rows(cc: u32) -> Vec<RowSpec> {
    let wavefronts = |op: &str| format!("l1tex__data_pipe_lsu_wavefronts_mem_shared{op}.sum");
    let conflicts = |op: &str| format!("l1tex__data_bank_conflicts_pipe_lsu_mem_shared{op}.sum");
    let sass_wavefronts =
        |op: &str| format!("smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum");
    let row = |wf: String, bc: String, inst: Source| {
        vec![
            Some(inst),
            Some(metric(wf.clone())),
            Some(metric(format!("{wf}.pct_of_peak_sustained_elapsed"))),
            Some(metric(bc)),
        ]
    };
    let load = either(&[
        "smsp__sass_inst_executed_op_shared_ld.sum",
        "sass__inst_executed_shared_loads",
    ]);
    let store = either(&[
        "smsp__sass_inst_executed_op_shared_st.sum",
        "sass__inst_executed_shared_stores",
    ]);
    let atomic = metric("smsp__inst_executed_op_shared_atom.sum");
    let ldsm = metric("smsp__inst_executed_op_ldsm.sum");
    let ldgsts = metric("smsp__inst_executed_op_ldgsts.sum");
    let mut instructions = vec![load.clone(), store.clone(), atomic.clone()];
    if cc >= 80 {
        instructions.extend([ldsm.clone(), ldgsts.clone()]);
    }
    vec![
        RowSpec::new(
            "Shared Load",
            Access::Load,
            row(wavefronts("_op_ld"), conflicts("_op_ld"), load),
        ),
        RowSpec::new(
            "Shared Load Matrix",
            Access::Load,
            row(
                sass_wavefronts("ldsm"),
                "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum".into(),
                ldsm,
            ),
        )
        .since_cc(80),
        RowSpec::new(
            "Shared Store",
            Access::Store,
            row(wavefronts("_op_st"), conflicts("_op_st"), store),
        ),
        RowSpec::new(
            "Shared Store From Global Load",
            Access::Store,
            row(
                sass_wavefronts("ldgsts"),
                "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum".into(),
                ldgsts,
            ),
        )
        .since_cc(80),
        RowSpec::new(
            "Shared Atomic",
            Access::Atomic,
            row(wavefronts("_op_atom"), conflicts("_op_atom"), atomic),
        ),
        RowSpec::new(
            "Total",
            Access::Total,
            row(wavefronts(""), conflicts(""), sum(instructions)),
        ),
    ]
}

/// One L1/TEX row: `key` names the pipe, memory space and operation as the counters spell
/// them (`pipe_lsu_mem_global_op_ld`), `hit_key` the same for the hit-rate metric, `to_l2` the
/// % of peak of the traffic this kind sends to (or receives from) L2, when the hardware counts
/// it for this kind alone.
fn l1_cells(inst: Source, key: &str, hit_key: &str, to_l2: Option<&str>) -> Vec<Option<Source>> {
    let sectors = || metric(format!("l1tex__t_sectors_{key}.sum"));
    let requests = || metric(format!("l1tex__t_requests_{key}.sum"));
    let returns = format!("l1tex__t_output_wavefronts_{key}.sum");
    vec![
        Some(inst),
        Some(requests()),
        Some(sectors()),
        Some(per_request(sectors(), requests())),
        Some(metric(format!("l1tex__t_sector_{hit_key}_hit_rate.pct"))),
        Some(bytes(sectors())),
        Some(metric(format!("l1tex__t_sectors_{key}_lookup_miss.sum"))),
        to_l2.map(|counter| {
            metric(format!(
                "l1tex__m_{counter}.sum.pct_of_peak_sustained_elapsed"
            ))
        }),
        Some(metric(returns.clone())),
        Some(metric(format!("{returns}.pct_of_peak_sustained_elapsed"))),
    ]
}

/// The L1/TEX key of an LSU access: pipe, memory space and operation
/// (`pipe_lsu_mem_global_op_ld`).
fn lsu(space: &str, op: &str) -> String {
    format!("pipe_lsu_mem_{space}_op_{op}")
}

/// The L1/TEX key of a texture-pipe access (`pipe_tex_mem_surface_op_ld`).
fn tex(space: &str, op: &str) -> String {
    format!("pipe_tex_mem_{space}_op_{op}")
}

/// The SASS instructions executed for one operation (`smsp__inst_executed_op_{op}.sum`).
fn inst_op(op: &str) -> Source {
    metric(format!("smsp__inst_executed_op_{op}.sum"))
}

/// An L1/TEX row whose hit-rate metric uses the same key as its other counters.
fn plain_l1_cells(key: &str, inst: Source, to_l2: Option<&str>) -> Vec<Option<Source>> {
    l1_cells(inst, key, key, to_l2)
}

/// One LDGSTS (global load to shared) row; `kind` is `access` or `bypass`. Only the first
/// columns are counted for it; the others stay empty.
fn ldgsts_cells(kind: &str) -> Vec<Option<Source>> {
    let requests = || {
        metric(format!(
            "sm__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts_cache_{kind}.sum"
        ))
    };
    let sectors = || {
        metric(format!(
            "sm__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_{kind}.sum"
        ))
    };
    let mut cells = vec![
        Some(metric(format!(
            "sm__sass_inst_executed_op_ldgsts_cache_{kind}.sum"
        ))),
        Some(requests()),
        Some(sectors()),
        Some(per_request(sectors(), requests())),
        None,
        Some(bytes(sectors())),
    ];
    cells.resize_with(L1TEX_COLUMNS.len(), || None);
    cells
}

/// Global and local loads (stores) share one L1/TEX <-> L2 counter (`mem_lg`): it is shown
/// on the global rows (the tooltip names the metric), local rows have none of their own.
const READ_LG: Option<&str> = Some("xbar2l1tex_read_sectors_mem_lg_op_ld");
/// The store side of [`READ_LG`].
const WRITE_LG: Option<&str> = Some("l1tex2xbar_write_sectors_mem_lg_op_st");

/// L1/TEX cache rows: global, local, surface and texture accesses, and LDGSTS from 8.0.
fn l1_rows() -> Vec<RowSpec> {
    let mut rows = l1_global_rows();
    rows.extend(l1_local_rows());
    rows.extend(l1_surface_rows());
    rows.push(RowSpec::new(
        "Texture Load",
        Access::Load,
        l1_cells(
            inst_op("texture"),
            "pipe_tex_mem_texture",
            "pipe_tex_mem_texture_op_tex",
            Some("xbar2l1tex_read_sectors_mem_texture"),
        ),
    ));
    rows
}

/// The L1/TEX rows of global memory: load, LDGSTS (from 8.0), store, atomic and reduction.
fn l1_global_rows() -> Vec<RowSpec> {
    vec![
        RowSpec::new(
            "Global Load",
            Access::Load,
            plain_l1_cells(
                &lsu("global", "ld"),
                either(&[
                    "smsp__sass_inst_executed_op_global_ld.sum",
                    "sass__inst_executed_global_loads",
                ]),
                READ_LG,
            ),
        ),
        RowSpec::new(
            "Global Load To Shared (Cache Access)",
            Access::Load,
            ldgsts_cells("access"),
        )
        .since_cc(80),
        RowSpec::new(
            "Global Load To Shared (Bypass)",
            Access::Load,
            ldgsts_cells("bypass"),
        )
        .since_cc(80),
        RowSpec::new(
            "Global Store",
            Access::Store,
            plain_l1_cells(
                &lsu("global", "st"),
                either(&[
                    "smsp__sass_inst_executed_op_global_st.sum",
                    "sass__inst_executed_global_stores",
                ]),
                WRITE_LG,
            ),
        ),
        RowSpec::new(
            "Global Atomic",
            Access::Atomic,
            plain_l1_cells(
                &lsu("global", "atom"),
                sum(vec![
                    inst_op("generic_atom_dot_alu"),
                    inst_op("generic_atom_dot_cas"),
                ]),
                Some("l1tex2xbar_write_sectors_mem_global_op_atom"),
            ),
        ),
        RowSpec::new(
            "Global Reduction",
            Access::Reduction,
            plain_l1_cells(
                &lsu("global", "red"),
                inst_op("global_red"),
                Some("l1tex2xbar_write_sectors_mem_global_op_red"),
            ),
        ),
    ]
}

/// The L1/TEX rows of local memory (load and store); their L2 traffic is on the global rows.
fn l1_local_rows() -> Vec<RowSpec> {
    vec![
        RowSpec::new(
            "Local Load",
            Access::Load,
            plain_l1_cells(
                &lsu("local", "ld"),
                either(&[
                    "smsp__sass_inst_executed_op_local_ld.sum",
                    "sass__inst_executed_local_loads",
                ]),
                None,
            ),
        ),
        RowSpec::new(
            "Local Store",
            Access::Store,
            plain_l1_cells(
                &lsu("local", "st"),
                either(&[
                    "smsp__sass_inst_executed_op_local_st.sum",
                    "sass__inst_executed_local_stores",
                ]),
                None,
            ),
        ),
    ]
}

/// The L1/TEX rows of surface memory: load, store, atomic and reduction.
fn l1_surface_rows() -> Vec<RowSpec> {
    vec![
        RowSpec::new(
            "Surface Load",
            Access::Load,
            plain_l1_cells(
                &tex("surface", "ld"),
                inst_op("surface_ld"),
                Some("xbar2l1tex_read_sectors_mem_surface_op_ld"),
            ),
        ),
        RowSpec::new(
            "Surface Store",
            Access::Store,
            plain_l1_cells(
                &tex("surface", "st"),
                inst_op("surface_st"),
                Some("l1tex2xbar_write_sectors_mem_surface_op_st"),
            ),
        ),
        RowSpec::new(
            "Surface Atomic",
            Access::Atomic,
            plain_l1_cells(
                &tex("surface", "atom"),
                sum(vec![
                    inst_op("surface_atom_dot_alu"),
                    inst_op("surface_atom_dot_cas"),
                ]),
                Some("l1tex2xbar_write_sectors_mem_surface_op_atom"),
            ),
        ),
        RowSpec::new(
            "Surface Reduction",
            Access::Reduction,
            plain_l1_cells(
                &tex("surface", "red"),
                inst_op("surface_red"),
                Some("l1tex2xbar_write_sectors_mem_surface_op_red"),
            ),
        ),
    ]
}

/// One L2 row for requests from L1/TEX; `op` is the operation suffix (`_op_read`, or empty
/// for all of them).
fn l2_tex_cells(op: &str) -> Vec<Option<Source>> {
    let sectors = || metric(format!("lts__t_sectors_srcunit_tex{op}.sum"));
    let requests = || metric(format!("lts__t_requests_srcunit_tex{op}.sum"));
    let miss = |aperture: &str| {
        Some(metric(format!(
            "lts__t_sectors_srcunit_tex_aperture_{aperture}{op}_lookup_miss.sum"
        )))
    };
    vec![
        Some(requests()),
        Some(sectors()),
        Some(per_request(sectors(), requests())),
        Some(hit_rate(
            metric(format!("lts__t_sectors_srcunit_tex{op}_lookup_hit.sum")),
            sectors(),
        )),
        Some(bytes(sectors())),
        Some(metric(format!(
            "lts__t_sectors_srcunit_tex{op}.avg.pct_of_peak_sustained_elapsed"
        ))),
        miss("device"),
        miss("sysmem"),
        miss("peer"),
    ]
}

/// L2 cache rows: requests from L1/TEX per operation, their total, ECC traffic, all traffic.
fn l2_rows() -> Vec<RowSpec> {
    let sectors = || metric("lts__t_sectors.sum");
    let requests = || metric("lts__t_requests.sum");
    let ecc = || metric("lts__t_sectors_data_ecc.sum");
    let miss = |aperture: &str| {
        Some(metric(format!(
            "lts__t_sectors_aperture_{aperture}_lookup_miss.sum"
        )))
    };
    vec![
        RowSpec::new("L1/TEX Load", Access::Load, l2_tex_cells("_op_read")),
        RowSpec::new("L1/TEX Store", Access::Store, l2_tex_cells("_op_write")),
        RowSpec::new(
            "L1/TEX Reduction",
            Access::Reduction,
            l2_tex_cells("_op_red"),
        ),
        RowSpec::new(
            "L1/TEX Atomic ALU",
            Access::Atomic,
            l2_tex_cells("_op_atom_dot_alu"),
        ),
        RowSpec::new(
            "L1/TEX Atomic CAS",
            Access::Atomic,
            l2_tex_cells("_op_atom_dot_cas"),
        ),
        RowSpec::new("L1/TEX Total", Access::Total, l2_tex_cells("")),
        RowSpec::new(
            "ECC Total",
            Access::Total,
            vec![
                None,
                Some(ecc()),
                None,
                None,
                Some(bytes(ecc())),
                Some(metric(
                    "lts__t_sectors_data_ecc.avg.pct_of_peak_sustained_elapsed",
                )),
                None,
                None,
                None,
            ],
        ),
        RowSpec::new(
            "GPU Total",
            Access::Total,
            vec![
                Some(requests()),
                Some(sectors()),
                Some(per_request(sectors(), requests())),
                Some(metric("lts__t_sector_hit_rate.pct")),
                Some(bytes(sectors())),
                Some(metric("lts__t_sectors.avg.pct_of_peak_sustained_elapsed")),
                miss("device"),
                miss("sysmem"),
                miss("peer"),
            ],
        ),
    ]
}

/// L2 eviction policies: sector lookup hits and misses per policy, per access kind. Atomics
/// have no "normal demote" policy.
fn evict_rows() -> Vec<RowSpec> {
    let cells = |source: &str, demote: bool| {
        let mut out = Vec::new();
        for policy in ["first", "normal", "normal_demote", "last"] {
            for outcome in ["hit", "miss"] {
                out.push((demote || policy != "normal_demote").then(|| {
                    metric(format!(
                        "lts__t_sectors{source}_evict_{policy}_lookup_{outcome}.sum"
                    ))
                }));
            }
        }
        out
    };
    vec![
        RowSpec::new(
            "L1/TEX Load",
            Access::Load,
            cells("_srcunit_tex_op_read", true),
        ),
        RowSpec::new(
            "L1/TEX Store",
            Access::Store,
            cells("_srcunit_tex_op_write", true),
        ),
        RowSpec::new(
            "L1/TEX Atomic",
            Access::Atomic,
            cells("_srcunit_tex_op_atom", false),
        ),
        RowSpec::new("L1/TEX Total", Access::Total, cells("_srcunit_tex", true)),
        RowSpec::new("GPU Total", Access::Total, cells("", true)),
    ]
}

/// Device memory: sectors, bytes, % of peak and throughput of reads, writes and both.
fn device_rows() -> Vec<RowSpec> {
    let row = |dir: &str| {
        let bytes = format!("dram__bytes_{dir}.sum");
        vec![
            Some(metric(format!("dram__sectors_{dir}.sum"))),
            Some(metric(bytes.clone())),
            Some(metric(format!("{bytes}.pct_of_peak_sustained_elapsed"))),
            Some(metric(format!("{bytes}.per_second"))),
        ]
    };
    vec![
        RowSpec::new("Load", Access::Load, row("read")),
        RowSpec::new("Store", Access::Store, row("write")),
        RowSpec::new(
            "Total",
            Access::Total,
            vec![
                Some(sum(vec![
                    metric("dram__sectors_read.sum"),
                    metric("dram__sectors_write.sum"),
                ])),
                Some(sum(vec![
                    metric("dram__bytes_read.sum"),
                    metric("dram__bytes_write.sum"),
                ])),
                Some(metric(
                    "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
                )),
                Some(metric("dram__bytes.sum.per_second")),
            ],
        ),
    ]
}
