//! Reports that show how the 2024.1 CLI resolves the units of derived metrics (written with
//! Sightline's writer, run once through NVIDIA's CLI; `fixtures/golden/cli/`).
//!
//! The two reports differ in one metric: [`derived_units_kernel`] with `thread_column` stores
//! SourceCounters' `derived__avg_thread_executed` (in `thread`, sorting before the FMA
//! counts), which makes the CLI print the derived FMA counts in `thread`; without it they are
//! in `inst` (`sightline_model::ncu::pages::resolved`).

use std::io::{self, Write};

use super::synth::{KernelSpec, kernel_message, scalar, session_details};
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
        // The CLI needs the architecture (0x170: GA10x) to print a result at all (without it,
        // 2024.1 crashes after the header); the others give the `Device` and `CC` columns.
        uint("device__attribute_architecture", 0x170),
        uint("device__attribute_compute_capability_major", 8),
        uint("device__attribute_compute_capability_minor", 6),
        uint("device__attribute_device_index", 0),
    ];
    if thread_column {
        metrics.push(double("derived__avg_thread_executed", 31.25));
    }
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

/// Writes the one-kernel report of [`derived_units_kernel`], in a block with its process (the
/// CLI crashes on a result row without one).
pub fn write_derived_units(thread_column: bool, out: impl Write) -> io::Result<()> {
    let mut writer = ReportWriter::new(out)?;
    writer.session(session_details());
    writer.flush_block()?;
    writer.process(pb::ProcessInfo {
        process_id: 4242,
        hostname: Some("127.0.0.1".into()),
        process_name: Some("/tmp/sgemm".into()),
    });
    let message = kernel_message(&mut writer, &derived_units_kernel(thread_column), 100);
    writer.add_result(&message);
    writer.flush_block()?;
    writer.finish()?;
    Ok(())
}
