//! Writes the two small Nsight Systems exports the README opens to show a training job's
//! timeline: `gpu_metrics.sqlite` (the 22 GPU metrics of an A100 in `GPU_METRICS`, sampled at
//! 10 kHz) and `nccl_payload.sqlite` (NCCL's NVTX ranges with their binary payloads and the
//! Analysis Summary's tables: capture settings, command line, environment, CPU, NICs, streams).
//!
//! ```sh
//! cargo run -p sightline-test-support --bin make_nsys_ml -- fixtures/nsys [--times N]
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used)] // Test code: a failed unwrap is a failed test.

use std::path::PathBuf;
use std::process::ExitCode;

use sightline_test_support::nsys_metrics::{MetricsOptions, write_metrics};
use sightline_test_support::nsys_payload::{nccl_export, write_payload_export};
use sightline_test_support::nsys_summary::write_summary_tables;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(dir) = args.next().map(PathBuf::from) else {
        eprintln!("usage: make_nsys_ml DIR [--times N]");
        return ExitCode::from(2);
    };
    let mut options = MetricsOptions {
        times: 600,
        ..MetricsOptions::default()
    };
    while let Some(a) = args.next() {
        match (a.as_str(), args.next().and_then(|v| v.parse().ok())) {
            ("--times", Some(n)) => options.times = n,
            _ => {
                eprintln!("make_nsys_ml: unknown or incomplete option {a:?}");
                return ExitCode::from(2);
            }
        }
    }
    let metrics = dir.join("gpu_metrics.sqlite");
    let nccl = dir.join("nccl_payload.sqlite");
    for path in [&metrics, &nccl] {
        if path.exists() {
            std::fs::remove_file(path).unwrap();
        }
    }
    let samples = write_metrics(&metrics, &options).unwrap();
    write_payload_export(&nccl, &nccl_export()).unwrap();
    write_summary_tables(&nccl).unwrap();
    println!(
        "{}: {samples} samples; {}: NCCL payloads and the Analysis Summary",
        metrics.display(),
        nccl.display()
    );
    ExitCode::SUCCESS
}
