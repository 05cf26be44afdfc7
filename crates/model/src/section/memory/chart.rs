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

fn link_specs(cc: u32) -> Vec<LinkSpec> {
    let inst = |op: &str| metric(format!("smsp__inst_executed_op_{op}.sum"));
    let requests = |key: &str| metric(format!("l1tex__t_requests_{key}.sum"));
    let link = |from, to, label, amount| LinkSpec {
        from,
        to,
        label,
        amount,
        rate: None,
        peak: None,
    };
    // A counter with its `.per_second` and `.pct_of_peak_sustained_elapsed` forms.
    let moved = |from, to, label, counter: String| LinkSpec {
        from,
        to,
        label,
        amount: metric(counter.clone()),
        rate: Some(metric(format!("{counter}.per_second"))),
        peak: Some(metric(format!("{counter}.pct_of_peak_sustained_elapsed"))),
    };
    let l2_miss = |aperture: &str, op: &str| {
        format!("lts__t_sectors_srcunit_tex_aperture_{aperture}_op_{op}_lookup_miss.sum")
    };
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
    let texture_inst = "smsp__inst_executed_op_texture.sum";
    let texture_requests = "l1tex__t_requests_pipe_tex_mem_texture.sum";
    let shared_wavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum";
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
        LinkSpec {
            peak: Some(metric(format!(
                "{texture_inst}.pct_of_peak_sustained_elapsed"
            ))),
            ..link("kernel", "texture", "Inst", metric(texture_inst))
        },
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
        link(
            "global",
            "l1tex",
            "Req",
            sum(["ld", "st", "atom", "red"]
                .iter()
                .map(|op| requests(&format!("pipe_lsu_mem_global_op_{op}")))
                .collect()),
        ),
        link(
            "local",
            "l1tex",
            "Req",
            sum(["ld", "st"]
                .iter()
                .map(|op| requests(&format!("pipe_lsu_mem_local_op_{op}")))
                .collect()),
        ),
        LinkSpec {
            peak: Some(metric(format!(
                "{texture_requests}.pct_of_peak_sustained_elapsed"
            ))),
            ..link("texture", "l1tex", "Req", metric(texture_requests))
        },
        link(
            "surface",
            "l1tex",
            "Req",
            sum(["ld", "st", "atom", "red"]
                .iter()
                .map(|op| requests(&format!("pipe_tex_mem_surface_op_{op}")))
                .collect()),
        ),
        LinkSpec {
            peak: Some(metric(format!(
                "{shared_wavefronts}.pct_of_peak_sustained_elapsed"
            ))),
            ..link(
                "shared",
                "shared_memory",
                "Wavefronts",
                metric(shared_wavefronts),
            )
        },
        moved(
            "l2",
            "l1tex",
            "Read",
            "l1tex__m_xbar2l1tex_read_bytes.sum".into(),
        ),
        moved(
            "l1tex",
            "l2",
            "Write",
            "l1tex__m_l1tex2xbar_write_bytes.sum".into(),
        ),
        moved("system", "l2", "Read", l2_miss("sysmem", "read")),
        moved("l2", "system", "Write", l2_miss("sysmem", "write")),
        moved("device", "l2", "Read", "dram__bytes_read.sum".into()),
        moved("l2", "device", "Write", "dram__bytes_write.sum".into()),
        moved("peer", "l2", "Read", l2_miss("peer", "read")),
        moved("l2", "peer", "Write", l2_miss("peer", "write")),
    ]
}
