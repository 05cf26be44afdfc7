//! Synthetic reproductions of format facts seen in real reports (FORMATS.md §1), written with
//! Sightline's writer and verified once with NVIDIA's reader (`fixtures/verify.sh`):
//!
//! - [`write_late_strings`]: metric names defined only by string-only blocks written *after*
//!   the result that uses them (a real 2023.3 H800 report). A name id beyond the whole table
//!   is not in a fixture: NVIDIA's reader lists it as `""` but cannot look it up (its
//!   `dump.py` fails on such a file); `tests/bad_input.rs` covers Sightline's warning;
//! - [`write_sampler_nan`]: category-1 (sampler) metrics in every shape NVIDIA's reader
//!   normalizes, and NaN values of both signs;
//! - [`write_derived_version`]: derived metrics stored by the rule of a given Nsight Compute
//!   version (2023.1: regular op regular; 2023.3: sum of the combined instances), with
//!   instanced operands whose correlation-id sets differ.

use std::io::{self, Write};

use super::synth::{KernelSpec, instanced, kernel_message, scalar, section, session_details};
use super::writer::ReportWriter;
use sightline_model::ncu::{Instance, Metric, MetricValue};
use sightline_model::proto::nv::profiler::messages as pb;
use sightline_model::proto::nv::profiler::{
    ProfilerSection, ProfilerSectionMetricDefinition, ProfilerSectionMetricDefinitions,
    ProfilerSectionTable,
};
use sightline_model::proto::nv::rule_system as rules_pb;

fn kernel(function: &str, metrics: Vec<(String, Metric)>) -> KernelSpec {
    KernelSpec {
        function: function.to_owned(),
        demangled: format!("{function}(float *, int)"),
        mangled: format!("_Z{}{function}Pfi", function.len()),
        grid: [1024, 1, 1],
        block: [256, 1, 1],
        metrics,
        sections: Vec::new(),
        rule_results: Vec::new(),
        nvtx: None,
        stream: 7,
    }
}

fn u64_metric(name: &str, v: u64) -> (String, Metric) {
    (name.to_owned(), scalar(MetricValue::Uint64(v)))
}

fn session_of(version: &str) -> pb::ReportSessionDetails {
    let mut session = session_details();
    session.version_info = vec![
        pb::VersionInfo {
            provider: "Nsight Compute".into(),
            version: version.to_owned(),
        },
        pb::VersionInfo {
            provider: "Nsight Compute Target".into(),
            version: version.to_owned(),
        },
    ];
    session
}

/// Kernel 0's metric names: the last three are defined by three string-only blocks written
/// after kernel 0's block; kernel 1 (a later block) uses them too.
pub fn write_late_strings(out: impl Write) -> io::Result<()> {
    let mut writer = ReportWriter::new(out)?;
    writer.session(session_of("2023.3.0.0 (build 33281558) (public-release)"));
    writer.flush_block()?;
    let names = [
        "gpu__time_duration.sum",
        "launch__grid_size",
        "sm__throughput.avg.pct_of_peak_sustained_elapsed",
        "dram__bytes_read.sum",
        "dram__bytes_write.sum",
        "smsp__cycles_active.avg",
    ];
    let metrics = |base: u64| {
        names
            .iter()
            .enumerate()
            .map(|(i, name)| u64_metric(name, base + i as u64 * 111))
            .collect::<Vec<_>>()
    };
    let first = kernel("late_names", metrics(1000));
    let message = kernel_message(&mut writer, &first, 100);
    writer.add_result(&message);
    writer.flush_block_deferring_strings(3)?;
    for _ in 0..3 {
        writer.flush_string_block(1)?;
    }
    let second = kernel("late_names_again", metrics(5000));
    let message = kernel_message(&mut writer, &second, 101);
    writer.add_result(&message);
    writer.finish()?;
    Ok(())
}

/// Category-1 metrics in every shape NVIDIA's reader normalizes, and NaN values of both
/// signs (double values, double and float instances).
pub fn write_sampler_nan(out: impl Write) -> io::Result<()> {
    let mut metrics = sampler_metrics();
    metrics.extend(nan_metrics());
    let mut writer = ReportWriter::new(out)?;
    writer.session(session_of("2023.3.0.0 (build 33281558) (public-release)"));
    writer.flush_block()?;
    let mut spec = kernel("sampled_kernel", metrics);
    spec.sections = vec![nan_section()];
    let message = kernel_message(&mut writer, &spec, 100);
    writer.add_result(&message);
    writer.flush_block()?;
    writer.finish()?;
    Ok(())
}

/// A sampler (category-1) metric.
fn sampler(stored: MetricValue, instances: Vec<Instance>) -> Metric {
    Metric {
        stored,
        instances,
        category: sightline_model::ncu::SAMPLER_CATEGORY,
        ..Default::default()
    }
}

/// A sampler instance with correlation id `id`.
fn with_id(id: u64, value: MetricValue) -> Instance {
    Instance {
        correlation_id: Some(MetricValue::Uint64(id)),
        value,
    }
}

/// A sampler instance without a correlation id.
fn without_id(value: MetricValue) -> Instance {
    Instance {
        correlation_id: None,
        value,
    }
}

/// Sampler metrics: with no value at all, a stored value only, instances only (double and
/// integer), both, and an instance without a correlation id.
fn sampler_metrics() -> Vec<(String, Metric)> {
    let d = MetricValue::Double;
    let u = MetricValue::Uint64;
    vec![
        (
            "pmsampling:dramc__read_throughput.avg.pct_of_peak_sustained_elapsed".to_owned(),
            sampler(MetricValue::None, Vec::new()),
        ),
        (
            "pmsampling:gpc__cycles_elapsed.avg.per_second".to_owned(),
            sampler(d(1.5e9), Vec::new()),
        ),
        (
            "pmsampling:sm__warps_active.avg.pct_of_peak_sustained_active".to_owned(),
            sampler(
                MetricValue::None,
                vec![
                    with_id(0, d(12.5)),
                    with_id(2000, d(37.25)),
                    with_id(4000, d(50.0)),
                ],
            ),
        ),
        (
            "pmsampling:smsp__inst_executed.sum".to_owned(),
            sampler(d(99.0), vec![with_id(0, d(40.0)), with_id(2000, d(59.0))]),
        ),
        (
            "pmsampling:l1tex__throughput.avg.pct_of_peak_sustained_active".to_owned(),
            sampler(d(3.0), vec![with_id(0, d(1.0)), without_id(d(2.0))]),
        ),
        (
            "pmsampling:lts__throughput.avg.pct_of_peak_sustained_elapsed".to_owned(),
            sampler(
                MetricValue::None,
                vec![with_id(0, u(5)), with_id(2000, u(6))],
            ),
        ),
        (
            "pmsampling:sm__cycles_active.avg".to_owned(),
            sampler(u(9), vec![with_id(0, d(4.0)), with_id(2000, d(5.0))]),
        ),
        (
            "pmsampling:gr__cycles_active.sum".to_owned(),
            sampler(u(42), Vec::new()),
        ),
    ]
}

/// Ordinary metrics with NaN values of both signs: double and float values, double
/// instances (with and without correlation ids).
fn nan_metrics() -> Vec<(String, Metric)> {
    let nan = f64::NAN;
    let negative_nan = -f64::NAN;
    let d = MetricValue::Double;
    let u = MetricValue::Uint64;
    vec![
        ("gpu__time_duration.sum".to_owned(), scalar(u(4096))),
        (
            "sm__throughput.avg.pct_of_peak_sustained_elapsed".to_owned(),
            scalar(d(nan)),
        ),
        (
            "dram__throughput.avg.pct_of_peak_sustained_elapsed".to_owned(),
            scalar(d(negative_nan)),
        ),
        (
            "l1tex__hit_rate.pct".to_owned(),
            scalar(MetricValue::Float(f32::NAN)),
        ),
        (
            "smsp__warps_issue_stalled_barrier_per_warp_active.pct".to_owned(),
            instanced(
                MetricValue::None,
                vec![d(25.0), d(nan), d(negative_nan), d(-0.0), d(75.0)],
                Some((0..5).map(|i| u(0x200 + i * 16)).collect()),
            ),
        ),
        (
            "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active".to_owned(),
            instanced(d(negative_nan), vec![d(1.0), d(nan)], None),
        ),
    ]
}

/// The section showing the NaN values and two sampler metrics.
fn nan_section() -> ProfilerSection {
    section(
        "NanValues",
        "NaN Values",
        10,
        &[
            ("Duration", "gpu__time_duration.sum"),
            (
                "Compute Throughput",
                "sm__throughput.avg.pct_of_peak_sustained_elapsed",
            ),
            (
                "Memory Throughput",
                "dram__throughput.avg.pct_of_peak_sustained_elapsed",
            ),
            ("L1 Hit Rate", "l1tex__hit_rate.pct"),
        ],
        &[
            (
                "Barrier Stalls",
                "smsp__warps_issue_stalled_barrier_per_warp_active.pct",
            ),
            (
                "Sampled Warps Active",
                "pmsampling:sm__warps_active.avg.pct_of_peak_sustained_active",
            ),
            (
                "Sampled DRAM Read",
                "pmsampling:dramc__read_throughput.avg.pct_of_peak_sustained_elapsed",
            ),
        ],
    )
}

/// Correlation ids (PC offsets) of the 47 instructions of the derived-metric kernels.
fn pcs() -> Vec<u64> {
    (0..47).map(|i| 0x100 + i * 16).collect()
}

/// The operands of the derived-metric kernels, shaped like a real 2023.1 report:
/// `thread_inst_executed` 788529152 and `inst_executed` 24641536 over 47 instructions (32
/// threads per instruction), and `memory_l1_wavefronts_shared` on 2 of them only.
fn derived_operands() -> Vec<(String, Metric)> {
    let pcs = pcs();
    let ids = |pcs: &[u64]| Some(pcs.iter().map(|&pc| MetricValue::Uint64(pc)).collect());
    vec![
        (
            "thread_inst_executed".to_owned(),
            instanced(
                MetricValue::Uint64(788_529_152),
                vec![MetricValue::Uint64(16_777_216); 47],
                ids(&pcs),
            ),
        ),
        (
            "inst_executed".to_owned(),
            instanced(
                MetricValue::Uint64(24_641_536),
                vec![MetricValue::Uint64(524_288); 47],
                ids(&pcs),
            ),
        ),
        (
            "memory_l1_wavefronts_shared".to_owned(),
            instanced(
                MetricValue::None,
                vec![MetricValue::Uint64(1_048_576), MetricValue::Uint64(524_288)],
                ids(&[pcs[3], pcs[40]]),
            ),
        ),
        (
            "memory_l1_wavefronts_shared_ideal".to_owned(),
            instanced(
                MetricValue::None,
                vec![
                    MetricValue::Uint64(262_144),
                    MetricValue::Uint64(262_144),
                    MetricValue::Uint64(131_072),
                ],
                ids(&[pcs[3], pcs[20], pcs[40]]),
            ),
        ),
    ]
}

/// The derived metrics of the fixtures (names and expressions of NVIDIA's SourceCounters
/// section) with the values Nsight Compute `version` stores for [`derived_operands`].
pub fn derived_definitions() -> [(&'static str, &'static str); 3] {
    [
        (
            "derived__avg_thread_executed",
            "thread_inst_executed / inst_executed",
        ),
        (
            "derived__memory_l1_conflicts_shared_nway",
            "memory_l1_wavefronts_shared / inst_executed",
        ),
        (
            "derived__memory_l1_wavefronts_shared_excessive",
            "memory_l1_wavefronts_shared - memory_l1_wavefronts_shared_ideal",
        ),
    ]
}

/// The stored results of [`derived_definitions`] on [`derived_operands`], by the rule of
/// the given era (`legacy`: up to 2023.1, else 2023.3 and later): only the left operand's
/// correlation ids survive, each combined with the right element of the same id.
fn stored_derived(legacy: bool) -> Vec<(String, Metric)> {
    let pcs = pcs();
    let id = |pc: u64| Some(MetricValue::Uint64(pc));
    let elements = |values: &[(u64, u64)]| -> Vec<Instance> {
        values
            .iter()
            .map(|&(pc, v)| Instance {
                correlation_id: id(pc),
                value: MetricValue::Uint64(v),
            })
            .collect()
    };
    let avg: Vec<(u64, u64)> = pcs.iter().map(|&pc| (pc, 32)).collect();
    let nway = [(pcs[3], 2), (pcs[40], 1)];
    let excessive = [(pcs[3], 1_048_576 - 262_144), (pcs[40], 524_288 - 131_072)];
    let regular = |legacy_value: u64, instances: &[(u64, u64)]| {
        MetricValue::Uint64(if legacy {
            legacy_value
        } else {
            instances.iter().map(|(_, v)| v).sum()
        })
    };
    vec![
        (
            "derived__avg_thread_executed".to_owned(),
            Metric {
                stored: regular(788_529_152 / 24_641_536, &avg),
                instances: elements(&avg),
                ..Default::default()
            },
        ),
        (
            "derived__memory_l1_conflicts_shared_nway".to_owned(),
            // The left operand stores instances only: its regular value is 0.
            Metric {
                stored: regular(0, &nway),
                instances: elements(&nway),
                ..Default::default()
            },
        ),
        (
            "derived__memory_l1_wavefronts_shared_excessive".to_owned(),
            Metric {
                stored: regular(0, &excessive),
                instances: elements(&excessive),
                ..Default::default()
            },
        ),
    ]
}

/// A section holding the derived-metric definitions and showing them.
fn derived_section() -> ProfilerSection {
    let mut section = section(
        "SourceCounters",
        "Source Counters",
        10,
        &[
            ("Instructions Executed", "inst_executed"),
            ("Avg. Threads Executed", "derived__avg_thread_executed"),
        ],
        &[
            (
                "Shared Bank Conflicts (n-way)",
                "derived__memory_l1_conflicts_shared_nway",
            ),
            (
                "Excessive Shared Wavefronts",
                "derived__memory_l1_wavefronts_shared_excessive",
            ),
        ],
    );
    section.metric_definitions = Some(ProfilerSectionMetricDefinitions {
        metric_definitions: derived_definitions()
            .iter()
            .map(|(name, expression)| ProfilerSectionMetricDefinition {
                name: (*name).to_owned(),
                expression: (*expression).to_owned(),
                ..Default::default()
            })
            .collect(),
    });
    section
}

/// A report written by Nsight Compute `version` (`2023.1.0.0 (build …)`): kernel 0 stores
/// the derived metrics as that version does, kernel 1 stores only their operands (Sightline
/// evaluates the embedded definitions by the version's rule).
pub fn write_derived_version(version: &str, legacy: bool, out: impl Write) -> io::Result<()> {
    let mut writer = ReportWriter::new(out)?;
    writer.session(session_of(version));
    writer.flush_block()?;
    let mut stored = kernel("stored_derived", derived_operands());
    stored.metrics.extend(stored_derived(legacy));
    stored.sections = vec![derived_section()];
    let mut computed = kernel("computed_derived", derived_operands());
    computed.sections = vec![derived_section()];
    for (i, spec) in [stored, computed].iter().enumerate() {
        let message = kernel_message(&mut writer, spec, 100 + i as u64);
        writer.add_result(&message);
    }
    writer.flush_block()?;
    writer.finish()?;
    Ok(())
}

/// One kernel whose stored rule results carry body items without a message, as
/// `UncoalescedGlobalAccess` in 2023.2 and 2024.1 reports: source markers with an empty item,
/// source markers and no item, a table only, a table beside a message, a speedup only, a
/// focus metric in an item apart from its message, and a rule that said nothing at all (an
/// empty body).
pub fn rule_markers_kernel() -> KernelSpec {
    let markers = vec![
        sass_marker(
            0x7f00_0000_0100,
            "Uncoalesced global access, expected 4 sectors, got 32",
        ),
        sass_marker(
            0x7f00_0000_0180,
            "Uncoalesced global access, expected 4 sectors, got 16",
        ),
    ];
    let mut markers_and_item = source_rule_result(
        "UncoalescedGlobalAccess",
        vec![rules_pb::RuleResultBodyItem::default()],
    );
    markers_and_item.source_markers = markers.clone();
    let mut markers_only = source_rule_result("MarkersOnly", Vec::new());
    markers_only.source_markers = markers;
    let speedup_only = source_rule_result(
        "SpeedupOnly",
        vec![rules_pb::RuleResultBodyItem {
            speedup: Some(rules_pb::RuleResultSpeedup {
                speedup_type: Some(1),
                value: Some(12.5),
            }),
            ..Default::default()
        }],
    );
    let mut spec = kernel("markers", vec![u64_metric("gpu__time_duration.sum", 4096)]);
    spec.rule_results = vec![
        markers_and_item,
        markers_only,
        source_rule_result("UncoalescedSharedAccess", vec![table_item()]),
        table_and_message(),
        speedup_only,
        focus_apart(),
        source_rule_result("SaidNothing", Vec::new()),
    ];
    spec
}

/// A SASS source marker at `address`.
fn sass_marker(address: u64, tooltip: &str) -> rules_pb::SourceMarker {
    rules_pb::SourceMarker {
        kind: Some(rules_pb::MarkerKind::Sass as i32),
        source_location: Some(rules_pb::source_marker::SourceLocation::Address(address)),
        tooltip: Some(tooltip.to_owned()),
        r#type: Some(2),
        file_name: None,
    }
}

/// A body item holding only a (labelled, empty) table.
fn table_item() -> rules_pb::RuleResultBodyItem {
    rules_pb::RuleResultBodyItem {
        table: Some(ProfilerSectionTable {
            label: Some("Uncoalesced accesses".to_owned()),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// A rule result of the `SourceCounters` section with body `items` and no markers.
fn source_rule_result(
    identifier: &str,
    items: Vec<rules_pb::RuleResultBodyItem>,
) -> rules_pb::RuleResult {
    rules_pb::RuleResult {
        identifier: identifier.to_owned(),
        display_name: format!("{identifier} (synthetic)"),
        body: Some(rules_pb::RuleResultBody { items }),
        section_identifier: Some("SourceCounters".to_owned()),
        source_markers: Vec::new(),
    }
}

/// A message item beside a table item.
fn table_and_message() -> rules_pb::RuleResult {
    let mut with_message = source_rule_result("TableAndMessage", vec![table_item()]);
    with_message.body = Some(rules_pb::RuleResultBody {
        items: vec![
            rules_pb::RuleResultBodyItem {
                message: Some(rules_pb::RuleResultMessage {
                    message: "A message beside a table.".to_owned(),
                    r#type: 1,
                    id: Some(0),
                    name: None,
                }),
                ..Default::default()
            },
            table_item(),
        ],
    });
    with_message
}

/// A message and, in a separate item, a focus metric for it.
fn focus_apart() -> rules_pb::RuleResult {
    source_rule_result(
        "FocusApart",
        vec![
            rules_pb::RuleResultBodyItem {
                message: Some(rules_pb::RuleResultMessage {
                    message: "A message whose focus metric is in the next item.".to_owned(),
                    r#type: 4,
                    id: Some(0),
                    name: None,
                }),
                ..Default::default()
            },
            rules_pb::RuleResultBodyItem {
                focus_metrics: vec![rules_pb::RuleResultFocusMetric {
                    message_id: Some(0),
                    metric_name: Some("gpu__time_duration.sum".to_owned()),
                    metric_value: Some(4096.0),
                    severity: Some(1),
                    info: Some("Reduce the duration".to_owned()),
                }],
                ..Default::default()
            },
        ],
    )
}
