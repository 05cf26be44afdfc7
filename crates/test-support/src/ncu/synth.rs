//! Synthetic reports written with [`super::writer`]: the bundled sample, the test fixtures and
//! the large benchmark report. Everything is deterministic (a fixed-seed generator), so the
//! same command always writes the same bytes.

use std::io::{self, Write};

use super::writer::{ReportWriter, ResultMessage, value_message};
use sightline_model::ncu::{Instance, Metric, MetricValue};
use sightline_model::proto::nv::nvtx as nvtx_pb;
use sightline_model::proto::nv::profiler::{
    ProfilerSection, ProfilerSectionBody, ProfilerSectionBodyItem, ProfilerSectionHeader,
    ProfilerSectionMetric, ProfilerSectionTable, ProfilerSet, messages as pb,
};
use sightline_model::proto::nv::rule_system as rules_pb;

pub use crate::rng::SplitMix64;

/// One kernel launch to synthesize.
#[derive(Debug, Clone)]
pub struct KernelSpec {
    /// Function name.
    pub function: String,
    /// Demangled signature.
    pub demangled: String,
    /// Mangled symbol.
    pub mangled: String,
    /// Grid size.
    pub grid: [u64; 3],
    /// Block size.
    pub block: [u64; 3],
    /// Metrics by name.
    pub metrics: Vec<(String, Metric)>,
    /// Embedded sections.
    pub sections: Vec<ProfilerSection>,
    /// Stored rule results.
    pub rule_results: Vec<rules_pb::RuleResult>,
    /// NVTX state at launch.
    pub nvtx: Option<nvtx_pb::NvtxState>,
    /// CUDA stream id.
    pub stream: u32,
}

/// Converts a kernel spec into a result message, interning names in `writer`.
pub fn kernel_message<W: Write>(
    writer: &mut ReportWriter<W>,
    spec: &KernelSpec,
    api_call_id: u64,
) -> ResultMessage {
    let dim = |d: [u64; 3]| pb::Uint64x3 {
        x: Some(d[0]),
        y: Some(d[1]),
        z: Some(d[2]),
    };
    let metric_results = spec
        .metrics
        .iter()
        .map(|(name, m)| writer.metric_message(name, m))
        .collect();
    ResultMessage::Kernel(Box::new(pb::ProfileResult {
        thread_id: 4242,
        api_call_id,
        program_handle: 0x5555_0000,
        kernel_id: api_call_id,
        kernel_mangled_name: spec.mangled.clone(),
        kernel_function_name: spec.function.clone(),
        kernel_demangled_name: spec.demangled.clone(),
        work_dimensions: 3,
        global_work_offset: dim([0, 0, 0]),
        grid_size: dim(spec.grid),
        block_size: dim(spec.block),
        metric_results,
        creation_time: Some(1_700_000_000 + api_call_id),
        source: pb::SourceData {
            reference: Some(1),
            ..Default::default()
        },
        api: Some(pb::ApiType::Cuda as i32),
        sections: spec.sections.clone(),
        rule_results: spec.rule_results.clone(),
        nvtx: spec.nvtx.clone(),
        context_id: Some(1),
        stream_id: Some(spec.stream),
        ..Default::default()
    }))
}

/// A metric with a single value.
pub fn scalar(value: MetricValue) -> Metric {
    Metric {
        stored: value,
        ..Default::default()
    }
}

/// A metric with instance values and correlation ids (and optionally a stored value).
pub fn instanced(
    stored: MetricValue,
    values: Vec<MetricValue>,
    correlation: Option<Vec<MetricValue>>,
) -> Metric {
    let instances = match correlation {
        Some(ids) => values
            .into_iter()
            .zip(ids)
            .map(|(value, id)| Instance {
                correlation_id: Some(id),
                value,
            })
            .collect(),
        None => values
            .into_iter()
            .map(|value| Instance {
                correlation_id: None,
                value,
            })
            .collect(),
    };
    Metric {
        stored,
        instances,
        ..Default::default()
    }
}

/// Session details of a synthetic device (compute capability 8.6).
pub fn session_details() -> pb::ReportSessionDetails {
    session_details_of(&[])
}

/// [`session_details`] with more device attributes `(name without the prefix, value)`: e.g.
/// `("chip", 0x172)`, with which NVIDIA's module finds its metric library for the device (its
/// units, types and descriptions; without it, none).
pub fn session_details_of(more: &[(&str, u64)]) -> pb::ReportSessionDetails {
    let attr = |name: &str, v: u64| pb::DeviceAttribute {
        name: format!("{}{name}", sightline_model::ncu::DEVICE_ATTRIBUTE_PREFIX),
        value: value_message(&MetricValue::Uint64(v)).unwrap_or_default(),
    };
    pb::ReportSessionDetails {
        process_id: Some(31337),
        creation_time: Some(1_700_000_000),
        host_system_info: Some(pb::SystemInfo {
            os_name: Some("Linux".into()),
            computer_name: Some("sightline-fixtures".into()),
            platform: Some(pb::PlatformType::Linux as i32),
            ..Default::default()
        }),
        target_system_info: Some(pb::SystemInfo {
            os_name: Some("Linux".into()),
            platform: Some(pb::PlatformType::Linux as i32),
            ..Default::default()
        }),
        device_attributes: vec![pb::DeviceAttributes {
            id: 0,
            name: Some("Sightline Synthetic GPU".into()),
            attributes: vec![
                attr("compute_capability_major", 8),
                attr("compute_capability_minor", 6),
                attr("multiprocessor_count", 46),
                attr("max_threads_per_block", 1024),
            ]
            .into_iter()
            .chain(more.iter().map(|(name, v)| attr(name, *v)))
            .collect(),
        }],
        version_info: vec![pb::VersionInfo {
            provider: "Sightline synth".into(),
            version: "1".into(),
        }],
        profiler_cmdline: Some("sightline synthetic fixture".into()),
        ..Default::default()
    }
}

/// A section with a header of `header` metrics and one body table of `body` metrics.
pub fn section(
    identifier: &str,
    display: &str,
    order: u32,
    header: &[(&str, &str)],
    body: &[(&str, &str)],
) -> ProfilerSection {
    let metric = |(label, name): &(&str, &str)| ProfilerSectionMetric {
        name: (*name).to_owned(),
        label: Some((*label).to_owned()),
        ..Default::default()
    };
    ProfilerSection {
        identifier: identifier.to_owned(),
        display_name: display.to_owned(),
        order: Some(order),
        header: Some(ProfilerSectionHeader {
            rows: None,
            metrics: header.iter().map(metric).collect(),
        }),
        body: if body.is_empty() {
            Vec::new()
        } else {
            vec![ProfilerSectionBody {
                items: vec![ProfilerSectionBodyItem {
                    table: Some(ProfilerSectionTable {
                        label: Some(format!("{display} Details")),
                        columns: 2,
                        metrics: body.iter().map(metric).collect(),
                        ..Default::default()
                    }),
                    ..Default::default()
                }],
                ..Default::default()
            }]
        },
        description: Some(format!("{display} of the kernel (synthetic section).")),
        sets: vec![ProfilerSet {
            identifier: "basic".into(),
        }],
        ..Default::default()
    }
}

/// A focus metric of a synthetic rule message: `(metric, value, severity, info)`.
pub type FocusSpec<'a> = (&'a str, f64, i32, &'a str);

/// A synthetic rule message: `(type, title, text, speedup (type, value), focus metrics)`, the
/// type in the file's numbering (Ok 1, Warning 2, Error 3, Optimization 4).
pub type MessageSpec<'a> = (
    i32,
    &'a str,
    &'a str,
    Option<(i32, f64)>,
    Vec<FocusSpec<'a>>,
);

/// A stored rule result with one body item per message.
pub fn rule_result(
    identifier: &str,
    name: &str,
    section: &str,
    messages: &[MessageSpec<'_>],
) -> rules_pb::RuleResult {
    let items = messages
        .iter()
        .enumerate()
        .map(
            |(id, (msg_type, title, text, speedup, focus))| rules_pb::RuleResultBodyItem {
                message: Some(rules_pb::RuleResultMessage {
                    message: (*text).to_owned(),
                    r#type: *msg_type,
                    id: Some(id as i32),
                    name: (!title.is_empty()).then(|| (*title).to_owned()),
                }),
                speedup: speedup.map(|(kind, value)| rules_pb::RuleResultSpeedup {
                    speedup_type: Some(kind),
                    value: Some(value),
                }),
                focus_metrics: focus
                    .iter()
                    .map(
                        |(metric, value, severity, info)| rules_pb::RuleResultFocusMetric {
                            message_id: Some(id as i32),
                            metric_name: Some((*metric).to_owned()),
                            metric_value: Some(*value),
                            severity: Some(*severity),
                            info: Some((*info).to_owned()),
                        },
                    )
                    .collect(),
                ..Default::default()
            },
        )
        .collect();
    rules_pb::RuleResult {
        identifier: identifier.to_owned(),
        display_name: name.to_owned(),
        body: Some(rules_pb::RuleResultBody { items }),
        section_identifier: Some(section.to_owned()),
        source_markers: Vec::new(),
    }
}

/// An NVTX state with a push/pop stack on thread 4242 and open start/end ranges.
pub fn nvtx_state(
    push_pop: &[&str],
    start_end: &[&str],
    extra_domain: Option<(u64, &str, &[&str])>,
) -> nvtx_pb::NvtxState {
    let range = |name: &&str| nvtx_pb::NvtxPushPopRange {
        name: (*name).to_owned(),
        ..Default::default()
    };
    let mut state = nvtx_pb::NvtxState {
        domains: vec![nvtx_pb::NvtxDomainInfo {
            id: 0,
            name: sightline_model::ncu::DEFAULT_DOMAIN_NAME.to_owned(),
            ..Default::default()
        }],
        threads: vec![nvtx_pb::NvtxThread {
            tid: 4242,
            push_pop_domains: vec![nvtx_pb::NvtxPushPopDomain {
                id: 0,
                stack: push_pop.iter().map(range).collect(),
            }],
        }],
        start_end_domains: vec![nvtx_pb::NvtxStartEndDomain {
            id: 0,
            ranges: start_end
                .iter()
                .enumerate()
                .map(|(i, name)| nvtx_pb::NvtxStartEndRange {
                    id: i as u64 + 1,
                    name: (*name).to_owned(),
                    ..Default::default()
                })
                .collect(),
        }],
        default_domain: Some(0),
    };
    if let Some((id, name, stack)) = extra_domain {
        state.domains.push(nvtx_pb::NvtxDomainInfo {
            id,
            name: name.to_owned(),
            ..Default::default()
        });
        state.threads[0]
            .push_pop_domains
            .push(nvtx_pb::NvtxPushPopDomain {
                id,
                stack: stack.iter().map(range).collect(),
            });
    }
    state
}

/// Writes a report of `kernels`, `per_block` kernels to a block, after a session block.
pub fn write_kernels(kernels: &[KernelSpec], per_block: usize, out: impl Write) -> io::Result<()> {
    write_kernels_in(session_details(), kernels, per_block, out)
}

/// [`write_kernels`] with the session details `session`.
pub fn write_kernels_in(
    session: pb::ReportSessionDetails,
    kernels: &[KernelSpec],
    per_block: usize,
    out: impl Write,
) -> io::Result<()> {
    let mut writer = ReportWriter::new(out)?;
    writer.session(session);
    writer.flush_block()?;
    for (i, chunk) in kernels.chunks(per_block.max(1)).enumerate() {
        for (j, spec) in chunk.iter().enumerate() {
            let message = kernel_message(&mut writer, spec, (i * per_block + j) as u64 + 100);
            writer.add_result(&message);
        }
        writer.flush_block()?;
    }
    writer.finish()?;
    Ok(())
}
