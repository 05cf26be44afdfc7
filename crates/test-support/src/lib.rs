//! Sightline's writers and generators, for tests, benchmarks, examples and fuzz targets: never
//! linked into the shipped binary (`publish = false`; only dev-dependencies name it).
//!
//! - [`ncu`]: Nsight Compute reports written byte for byte as NVIDIA's writer lays them out
//!   ([`ncu::writer`]), the synthetic kernels of the fixtures and the bundled sample
//!   ([`ncu::synth`], [`ncu::synth_kernels`], [`ncu::synth_edge`], [`ncu::fixtures`]).
//! - [`nsys`]: Nsight Systems-shaped SQLite exports of any size; [`nsys_cpu`] adds CPU samples
//!   with call stacks and scheduling events to them; [`nsys_metrics`] exports with GPU metrics
//!   (`GPU_METRICS`, or generic events with NULL timestamps); [`nsys_summary`] the Analysis
//!   Summary's tables with known values, odd values, and tables replaced by views;
//!   [`nsys_mpi`] the exports of a 4-rank MPI run with known messages and stragglers.
//! - [`codexl`]: CodeXL `.atp` traces and the session's `.csv` / `.occupancy` files.
//! - [`gainsight`]: GPGPU-Sim logs with known lifetimes.
//! - [`rng`]: the xorshift64* sequence of the nsys, NVTXT and Gainsight generators.
//! - [`par`]: independent checks of a corpus test on every core.
//!
//! The data generators are binaries of this crate (`cargo run -p sightline-test-support --bin
//! make_fixtures`), so `cargo test` does not build them.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Test code: a failed unwrap is a failed test.

pub mod codexl;
pub mod damage;
pub mod gainsight;
pub mod io;
pub mod link_pair;
pub mod ncu;
pub mod nsys;
pub mod nsys_cpu;
pub mod nsys_expert;
pub mod nsys_families;
pub mod nsys_metrics;
pub mod nsys_mpi;
pub mod nsys_payload;
pub mod nsys_pmu;
pub mod nsys_rare;
pub mod nsys_summary;
pub mod oracles;
pub mod par;
pub mod rng;

/// The `main` of a generator binary that writes one new file: takes the path from the first
/// argument, refuses to overwrite, reports errors naming the file.
pub fn write_new_file(
    program: &str,
    write: impl FnOnce(&std::path::Path) -> rusqlite::Result<()>,
) -> std::process::ExitCode {
    use std::process::ExitCode;
    let Some(out) = std::env::args().nth(1).map(std::path::PathBuf::from) else {
        eprintln!("usage: {program} OUT.sqlite");
        return ExitCode::FAILURE;
    };
    if out.exists() {
        eprintln!("{} exists; remove it first", out.display());
        return ExitCode::FAILURE;
    }
    match write(&out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{}: {e}", out.display());
            ExitCode::FAILURE
        }
    }
}
