//! A report of compiler-generated kernel names (OpenACC and OpenMP offload, as NVIDIA's HPC
//! compilers name them), written with Sightline's writer and run once through NVIDIA's CLI
//! (`fixtures/golden/cli/offload_names.ncu-rep.*`), to see how the CLI prints such names on the
//! details, raw and summary pages.
//!
//! The shapes are those of real reports in the corpus's Nsight Systems exports: `main_55_gpu`,
//! `kmeans_235_gpu` (nvc/nvfortran OpenACC compute constructs: function, source line, `_gpu`),
//! `__pgi_uacc_cuda_fill_42_gpu` (the OpenACC runtime's fill kernel), `nvkernel_solve_F1L204_2`
//! (nvc++ OpenMP `target` regions); plus C++ forms of them and ordinary CUDA kernels, each
//! with and without a stored demangled name.

use std::io::{self, Write};

use super::synth::{KernelSpec, kernel_message, scalar, section, session_details};
use super::writer::ReportWriter;
use sightline_model::ncu::{Metric, MetricValue};
use sightline_model::proto::nv::profiler::messages as pb;

fn uint(name: &str, v: u64) -> (String, Metric) {
    (name.to_owned(), scalar(MetricValue::Uint64(v)))
}

/// `(function name, mangled name, demangled name)` of the kernels, in launch order. An empty
/// demangled name is a report that stores none.
pub const OFFLOAD_NAMES: &[(&str, &str, &str)] = &[
    ("main_24_gpu", "main_24_gpu", "main_24_gpu"),
    ("kmeans_235_gpu", "kmeans_235_gpu", ""),
    (
        "__pgi_uacc_cuda_fill_42_gpu",
        "__pgi_uacc_cuda_fill_42_gpu",
        "__pgi_uacc_cuda_fill_42_gpu",
    ),
    ("main_9_gpu", "main_9_gpu", "main_9_gpu"),
    (
        "nvkernel_solve_F1L204_2",
        "nvkernel_solve_F1L204_2",
        "nvkernel_solve_F1L204_2",
    ),
    (
        "nvkernel__Z5solvev_F1L24_2",
        "nvkernel__Z5solvev_F1L24_2",
        "",
    ),
    (
        "__nv_static_19_main_cpp_F1L24_2",
        "__nv_static_19_main_cpp_F1L24_2",
        "__nv_static_19_main_cpp_F1L24_2",
    ),
    ("_Z4mainv_31_gpu", "_Z4mainv_31_gpu", ""),
    ("compute_gpu", "compute_gpu", "compute_gpu"),
    (
        "saxpy",
        "_Z5saxpyifPfS_",
        "saxpy(int, float, float *, float *)",
    ),
    ("saxpy_gpu", "_Z9saxpy_gpuifPfS_", ""),
];

/// The kernel of one [`OFFLOAD_NAMES`] entry; `n` varies its launch and duration.
fn offload_kernel((function, mangled, demangled): (&str, &str, &str), n: u64) -> KernelSpec {
    let metrics = vec![
        uint("gpu__time_duration.sum", 3456 + 100 * n),
        uint("launch__grid_size", 64 + n),
        uint("launch__block_size", 128),
        uint("device__attribute_architecture", 0x170),
        uint("device__attribute_compute_capability_major", 8),
        uint("device__attribute_compute_capability_minor", 6),
        uint("device__attribute_device_index", 0),
    ];
    KernelSpec {
        function: function.to_owned(),
        demangled: demangled.to_owned(),
        mangled: mangled.to_owned(),
        grid: [64 + n, 1, 1],
        block: [128, 1, 1],
        metrics,
        sections: vec![section(
            "LaunchStats",
            "Launch Statistics",
            10,
            &[
                ("Duration", "gpu__time_duration.sum"),
                ("Grid Size", "launch__grid_size"),
                ("Block Size", "launch__block_size"),
            ],
            &[],
        )],
        rule_results: Vec::new(),
        nvtx: None,
        stream: 13,
    }
}

/// Writes the report of [`OFFLOAD_NAMES`]: one launch per entry, in one block with its
/// process (the CLI crashes on a result row without one).
pub fn write_offload_names(out: impl Write) -> io::Result<()> {
    let mut writer = ReportWriter::new(out)?;
    writer.session(session_details());
    writer.flush_block()?;
    writer.process(pb::ProcessInfo {
        process_id: 4242,
        hostname: Some("127.0.0.1".into()),
        process_name: Some("/tmp/acc_app".into()),
    });
    for (n, &names) in OFFLOAD_NAMES.iter().enumerate() {
        let message = kernel_message(
            &mut writer,
            &offload_kernel(names, n as u64),
            100 + n as u64,
        );
        writer.add_result(&message);
    }
    writer.flush_block()?;
    writer.finish()?;
    Ok(())
}
