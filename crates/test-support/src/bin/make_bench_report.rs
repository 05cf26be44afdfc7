//! Writes the large benchmark report: `cargo run --release --example make_bench_report -- OUT
//! [KERNELS]` (default 2,000 kernels, about 240 MB). Deterministic: the same bytes every run.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Test code: a failed unwrap is a failed test.

use std::fs::File;
use std::io::BufWriter;

use sightline_test_support::ncu::synth::{SplitMix64, kernel_message, session_details};
use sightline_test_support::ncu::synth_kernels::{bench_kernel, full_set_sections};
use sightline_test_support::ncu::writer::ReportWriter;

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let out = args
        .next()
        .ok_or_else(|| anyhow::anyhow!("usage: make_bench_report OUT [KERNELS]"))?;
    let kernels: usize = args.next().map_or(Ok(2000), |k| k.parse())?;
    let mut writer = ReportWriter::new(BufWriter::with_capacity(1 << 20, File::create(&out)?))?;
    writer.session(session_details());
    writer.flush_block()?;
    let sections = full_set_sections();
    let mut rng = SplitMix64::new(2024);
    for index in 0..kernels {
        let spec = bench_kernel(&mut rng, index, &sections);
        let message = kernel_message(&mut writer, &spec, index as u64 + 1);
        writer.add_result(&message);
        // Nsight Compute writes one block per profiled kernel.
        writer.flush_block()?;
    }
    writer.finish()?;
    let size = std::fs::metadata(&out)?.len();
    println!(
        "{out}: {kernels} kernels, {size} bytes ({:.1} MB)",
        size as f64 / 1e6
    );
    Ok(())
}
