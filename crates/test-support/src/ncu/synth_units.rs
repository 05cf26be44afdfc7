//! Reports that show how the 2024.1 CLI resolves the units of derived metrics (written with
//! Sightline's writer, run once through NVIDIA's CLI; `fixtures/golden/cli/`).
//!
//! The two `derived_units` reports differ in one metric: [`derived_units_kernel`] with
//! `thread_column` stores SourceCounters' `derived__avg_thread_executed` (in `thread`, sorting
//! before the FMA counts), which makes the CLI print the derived FMA counts in `thread` on the
//! raw page; without it they are in `inst` (`sightline_model::ncu::pages::resolved`).
//!
//! The two `details_units` reports ([`details_units_kernel`]) show the same rule on the details
//! page, in the order it prints: sections that print an entry in `inst` (or not) before the
//! `no_instructions` stall samples, and `launch__thread_count` before a derived FMA count.

use std::io::{self, Write};

use super::synth::{KernelSpec, kernel_message, scalar, section, session_details};
use super::writer::ReportWriter;
use sightline_model::ncu::{Metric, MetricValue};
use sightline_model::proto::nv::profiler::messages as pb;

fn double(name: &str, v: f64) -> (String, Metric) {
    (name.to_owned(), scalar(MetricValue::Double(v)))
}

fn uint(name: &str, v: u64) -> (String, Metric) {
    (name.to_owned(), scalar(MetricValue::Uint64(v)))
}

/// A kernel with the roofline's derived FMA counts and their operands (the values of esmm's
/// first kernel), plus `derived__avg_thread_executed` when `thread_column`.
pub fn derived_units_kernel(thread_column: bool) -> KernelSpec {
    let mut metrics = vec![
        double(
            "derived__sm__sass_thread_inst_executed_op_ffma_pred_on_x2",
            20480.0,
        ),
        double(
            "derived__sm__sass_thread_inst_executed_op_dfma_pred_on_x2",
            320.0,
        ),
        double(
            "derived__smsp__sass_thread_inst_executed_op_ffma_pred_on_x2",
            3783.09755163461,
        ),
        double(
            "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained",
            10240.0,
        ),
        double(
            "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained",
            160.0,
        ),
        double(
            "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed",
            1891.548775817305,
        ),
        uint("gpu__time_duration.sum", 41696),
    ];
    metrics.extend(device_metrics());
    if thread_column {
        metrics.push(double("derived__avg_thread_executed", 31.25));
    }
    sgemm_kernel(metrics)
}

/// The `sgemm` launch of these reports with `metrics`.
fn sgemm_kernel(metrics: Vec<(String, Metric)>) -> KernelSpec {
    KernelSpec {
        function: "sgemm".to_owned(),
        demangled: "sgemm(int, int, float *)".to_owned(),
        mangled: "_Z5sgemmiiPf".to_owned(),
        grid: [64, 64, 1],
        block: [256, 1, 1],
        metrics,
        sections: Vec::new(),
        rule_results: Vec::new(),
        nvtx: None,
        stream: 7,
    }
}

/// The device attributes the CLI needs to print a result at all (without the architecture,
/// 0x170: GA10x, 2024.1 crashes after the header) and those of the `Device` and `CC` columns.
fn device_metrics() -> Vec<(String, Metric)> {
    vec![
        uint("device__attribute_architecture", 0x170),
        uint("device__attribute_compute_capability_major", 8),
        uint("device__attribute_compute_capability_minor", 6),
        uint("device__attribute_device_index", 0),
    ]
}

/// The `no_instructions` stall samples (two unit words: `warp`, `inst`).
const NO_INSTRUCTIONS: &str = "smsp__pcsamp_warps_issue_stalled_no_instructions";

/// A derived FMA count (two unit words: `thread`, `inst`), which sorts before
/// `launch__thread_count` on the raw page but prints after it on the details page.
const FMA: &str = "derived__sm__sass_thread_inst_executed_op_ffma_pred_on_x2";

/// A kernel whose details page prints, in section order: with `inst_first` an "Instructions"
/// section (`smsp__inst_executed.sum`, `inst`); then "Stall Samples" (the `no_instructions`
/// samples and the `barrier` samples); "Threads" (`launch__thread_count`, `thread`); "Roofline
/// Counts" (a derived FMA count). The CLI prints the `no_instructions` samples in `inst` after
/// an entry in `inst` and in `warp` otherwise, the FMA count in `inst` after an `inst` entry
/// and in `thread` otherwise; on the raw page (sorted by name) the FMA count precedes
/// `launch__thread_count`.
pub fn details_units_kernel(inst_first: bool) -> KernelSpec {
    let mut metrics = vec![
        uint(NO_INSTRUCTIONS, 23),
        uint(
            "smsp__pcsamp_warps_issue_stalled_no_instructions_not_issued",
            18,
        ),
        uint("smsp__pcsamp_warps_issue_stalled_barrier", 7),
        uint("launch__thread_count", 16384),
        double(FMA, 20480.0),
        uint("gpu__time_duration.sum", 41696),
    ];
    metrics.extend(device_metrics());
    let mut sections = Vec::new();
    if inst_first {
        metrics.push(uint("smsp__inst_executed.sum", 4096));
        sections.push(section(
            "Instructions",
            "Instructions",
            10,
            &[("Executed Instructions", "smsp__inst_executed.sum")],
            &[],
        ));
    }
    sections.push(section(
        "StallSamples",
        "Stall Samples",
        20,
        &[
            ("No Instructions", NO_INSTRUCTIONS),
            (
                "No Instructions (Not Issued)",
                "smsp__pcsamp_warps_issue_stalled_no_instructions_not_issued",
            ),
            ("Barrier", "smsp__pcsamp_warps_issue_stalled_barrier"),
        ],
        &[],
    ));
    sections.push(section(
        "Threads",
        "Threads",
        30,
        &[("Threads", "launch__thread_count")],
        &[],
    ));
    sections.push(section(
        "RooflineCounts",
        "Roofline Counts",
        40,
        &[("FFMA Thread Instructions", FMA)],
        &[],
    ));
    KernelSpec {
        sections,
        ..sgemm_kernel(metrics)
    }
}

/// Writes the one-kernel report of [`details_units_kernel`].
pub fn write_details_units(inst_first: bool, out: impl Write) -> io::Result<()> {
    write_one_kernel(&details_units_kernel(inst_first), out)
}

/// Writes the one-kernel report of [`derived_units_kernel`], in a block with its process (the
/// CLI crashes on a result row without one).
pub fn write_derived_units(thread_column: bool, out: impl Write) -> io::Result<()> {
    write_one_kernel(&derived_units_kernel(thread_column), out)
}

/// Writes a report of `kernel` alone, in a block with its process.
fn write_one_kernel(kernel: &KernelSpec, out: impl Write) -> io::Result<()> {
    let mut writer = ReportWriter::new(out)?;
    writer.session(session_details());
    writer.flush_block()?;
    writer.process(pb::ProcessInfo {
        process_id: 4242,
        hostname: Some("127.0.0.1".into()),
        process_name: Some("/tmp/sgemm".into()),
    });
    let message = kernel_message(&mut writer, kernel, 100);
    writer.add_result(&message);
    writer.flush_block()?;
    writer.finish()?;
    Ok(())
}
