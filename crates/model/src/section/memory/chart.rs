//! The memory chart's units and links and the metrics behind them (Kernel Profiling Guide,
//! "Memory Chart"; names checked against the corpus reports, see [`super`]).
//!
//! Logical units are linked to the kernel by executed warp-level instructions and to the
//! physical units by requests (wavefronts for shared memory); links between physical units carry
//! the data moved, reads drawn towards the SM and writes away from it, with their throughput
//! and share of the peak where the report has them.

use super::source::{Resolver, Source, either, metric, sum};
use super::{ChartLink, ChartNode, MemoryChart};

/// A link before resolution.
struct LinkSpec {
    from: &'static str,
    to: &'static str,
    label: &'static str,
    amount: Source,
    rate: Option<Source>,
    peak: Option<Source>,
}

/// `(id, label, physical)` of every unit, logical ones first.
pub const NODES: &[(&str, &str, bool)] = &[
    ("kernel", "Kernel", false),
    ("global", "Global", false),
    ("local", "Local", false),
    ("texture", "Texture", false),
    ("surface", "Surface", false),
    ("shared", "Shared", false),
    ("l1tex", "L1/TEX Cache", true),
    ("shared_memory", "Shared Memory", true),
    ("l2", "L2 Cache", true),
    ("system", "System Memory", true),
    ("device", "Device Memory", true),
    ("peer", "Peer Memory", true),
];

/// Resolves the chart for compute capability `cc`.
pub(super) fn chart(cc: u32, resolver: &mut Resolver<'_>) -> MemoryChart {
    let mut nodes = Vec::new();
    for &(id, label, physical) in NODES {
        let mut entries = Vec::new();
        let mut add = |what: &str, name: &str| {
            entries.push(resolver.add(format!("{label}: {what}"), &metric(name)));
        };
        match id {
            "l1tex" => add("Hit Rate", "l1tex__t_sector_hit_rate.pct"),
            "l2" => {
                add("Hit Rate", "lts__t_sector_hit_rate.pct");
                if cc >= 80 {
                    add(
                        "Compression Success Rate",
                        "lts__average_gcomp_input_sector_success_rate.pct",
                    );
                }
            }
            _ => {}
        }
        nodes.push(ChartNode {
            id,
            label,
            physical,
            entries,
        });
    }
    let links = link_specs(cc)
        .into_iter()
        .map(|spec| {
            let name = |id: &str| {
                NODES
                    .iter()
                    .find(|n| n.0 == id)
                    .map_or(id.to_owned(), |n| n.1.to_owned())
            };
            let prefix = format!("{} -> {}", name(spec.from), name(spec.to));
            let what = match spec.label {
                "Inst" => "Instructions",
                "Req" => "Requests",
                other => other,
            };
            ChartLink {
                from: spec.from,
                to: spec.to,
                label: spec.label,
                amount: resolver.add(format!("{prefix}: {what}"), &spec.amount),
                rate: resolver.add_opt(format!("{prefix}: Throughput"), spec.rate.as_ref()),
                peak: resolver.add_opt(format!("{prefix}: % Peak"), spec.peak.as_ref()),
            }
        })
        .collect();
    MemoryChart { nodes, links }
}

/// Every link of the chart for compute capability `cc`: instructions from the kernel to the
/// logical units, requests from them to the physical units, and the data moved between those.
fn link_specs(cc: u32) -> Vec<LinkSpec> {
    let mut links = instruction_links(cc);
    links.extend(request_links());
    links.extend(traffic_links());
    links
}

/// The warp-level instructions executed for one operation.
fn inst(op: &str) -> Source {
    metric(format!("smsp__inst_executed_op_{op}.sum"))
}

/// The L1/TEX requests of one access kind (`pipe_lsu_mem_global_op_ld`).
fn requests(key: &str) -> Source {
    metric(format!("l1tex__t_requests_{key}.sum"))
}

/// The sum of the requests of `pipe`'s `ops` (`pipe_lsu_mem_global` and `ld`, `st`, …).
fn requests_of(pipe: &str, ops: &[&str]) -> Source {
    sum(ops
        .iter()
        .map(|op| requests(&format!("{pipe}_op_{op}")))
        .collect())
}

/// A link carrying only an amount.
fn link(from: &'static str, to: &'static str, label: &'static str, amount: Source) -> LinkSpec {
    LinkSpec {
        from,
        to,
        label,
        amount,
        rate: None,
        peak: None,
    }
}

/// A link carrying `counter`'s amount and its share of the peak.
fn link_with_peak(
    from: &'static str,
    to: &'static str,
    label: &'static str,
    counter: &str,
) -> LinkSpec {
    LinkSpec {
        peak: Some(metric(format!("{counter}.pct_of_peak_sustained_elapsed"))),
        ..link(from, to, label, metric(counter))
    }
}

/// A counter with its `.per_second` and `.pct_of_peak_sustained_elapsed` forms.
fn moved(from: &'static str, to: &'static str, label: &'static str, counter: &str) -> LinkSpec {
    LinkSpec {
        from,
        to,
        label,
        amount: metric(counter),
        rate: Some(metric(format!("{counter}.per_second"))),
        peak: Some(metric(format!("{counter}.pct_of_peak_sustained_elapsed"))),
    }
}

/// The L2 sectors from L1/TEX that miss to `aperture` (`sysmem`, `peer`) for `op`.
fn l2_miss(aperture: &str, op: &str) -> String {
    format!("lts__t_sectors_srcunit_tex_aperture_{aperture}_op_{op}_lookup_miss.sum")
}

/// Kernel -> logical unit links: the instructions that access each memory space (LDSM and
/// LDGSTS count towards shared memory from 8.0).
fn instruction_links(cc: u32) -> Vec<LinkSpec> {
    let mut shared = vec![
        either(&[
            "smsp__sass_inst_executed_op_shared_ld.sum",
            "sass__inst_executed_shared_loads",
        ]),
        either(&[
            "smsp__sass_inst_executed_op_shared_st.sum",
            "sass__inst_executed_shared_stores",
        ]),
        inst("shared_atom"),
    ];
    if cc >= 80 {
        shared.extend([inst("ldsm"), inst("ldgsts")]);
    }
    vec![
        link(
            "kernel",
            "global",
            "Inst",
            sum(vec![
                either(&[
                    "smsp__sass_inst_executed_op_global_ld.sum",
                    "sass__inst_executed_global_loads",
                ]),
                either(&[
                    "smsp__sass_inst_executed_op_global_st.sum",
                    "sass__inst_executed_global_stores",
                ]),
                inst("generic_atom_dot_alu"),
                inst("generic_atom_dot_cas"),
                inst("global_red"),
            ]),
        ),
        link(
            "kernel",
            "local",
            "Inst",
            sum(vec![
                either(&[
                    "smsp__sass_inst_executed_op_local_ld.sum",
                    "sass__inst_executed_local_loads",
                ]),
                either(&[
                    "smsp__sass_inst_executed_op_local_st.sum",
                    "sass__inst_executed_local_stores",
                ]),
            ]),
        ),
        link_with_peak(
            "kernel",
            "texture",
            "Inst",
            "smsp__inst_executed_op_texture.sum",
        ),
        link(
            "kernel",
            "surface",
            "Inst",
            sum(vec![
                inst("surface_ld"),
                inst("surface_st"),
                inst("surface_atom_dot_alu"),
                inst("surface_atom_dot_cas"),
                inst("surface_red"),
            ]),
        ),
        link("kernel", "shared", "Inst", sum(shared)),
    ]
}

/// Logical -> physical unit links: L1/TEX requests (wavefronts for shared memory).
fn request_links() -> Vec<LinkSpec> {
    vec![
        link(
            "global",
            "l1tex",
            "Req",
            requests_of("pipe_lsu_mem_global", &["ld", "st", "atom", "red"]),
        ),
        link(
            "local",
            "l1tex",
            "Req",
            requests_of("pipe_lsu_mem_local", &["ld", "st"]),
        ),
        link_with_peak(
            "texture",
            "l1tex",
            "Req",
            "l1tex__t_requests_pipe_tex_mem_texture.sum",
        ),
        link(
            "surface",
            "l1tex",
            "Req",
            requests_of("pipe_tex_mem_surface", &["ld", "st", "atom", "red"]),
        ),
        link_with_peak(
            "shared",
            "shared_memory",
            "Wavefronts",
            "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
        ),
    ]
}

/// Physical unit links: bytes (sectors) read towards the SM and written away from it.
fn traffic_links() -> Vec<LinkSpec> {
    vec![
        moved("l2", "l1tex", "Read", "l1tex__m_xbar2l1tex_read_bytes.sum"),
        moved(
            "l1tex",
            "l2",
            "Write",
            "l1tex__m_l1tex2xbar_write_bytes.sum",
        ),
        moved("system", "l2", "Read", &l2_miss("sysmem", "read")),
        moved("l2", "system", "Write", &l2_miss("sysmem", "write")),
        moved("device", "l2", "Read", "dram__bytes_read.sum"),
        moved("l2", "device", "Write", "dram__bytes_write.sum"),
        moved("peer", "l2", "Read", &l2_miss("peer", "read")),
        moved("l2", "peer", "Write", &l2_miss("peer", "write")),
    ]
}
