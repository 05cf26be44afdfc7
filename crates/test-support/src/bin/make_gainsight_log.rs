//! Writes a synthetic GPGPU-Sim log with known lifetimes (`sightline_test_support::gainsight`).
//!
//! ```sh
//! cargo run --example make_gainsight_log -- --sample fixtures/gainsight/sample.log
//! cargo run --release --example make_gainsight_log -- --bytes 2000000000 /tmp/big.log
//! ```
//! Options: `--sample` (the committed fixture's configuration), `--bytes N` (kernels until the
//! log reaches N bytes), `--kernels N`, `--l1-objects N`, `--l2-objects N`, `--seed S`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Test code: a failed unwrap is a failed test.

use std::io::{BufWriter, Write};

use sightline_test_support::gainsight::{GenConfig, generate};
use sightline_test_support::io::CountingWriter;

/// The configuration of `fixtures/gainsight/sample.log`.
fn sample_config() -> GenConfig {
    GenConfig {
        seed: 15,
        kernels: 3,
        first_kernel_id: 1,
        sms: 3,
        banks: 2,
        l1_objects: 12,
        l2_objects: 10,
        max_episodes: 3,
        max_reads: 3,
        span_cycles: 2_000,
        noise_every: 7,
        without_end_stats: vec![2],
        program: "sample".into(),
        keep_expected: true,
    }
}

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let mut config = GenConfig {
        kernels: 4,
        l1_objects: 2000,
        l2_objects: 2000,
        sms: 8,
        banks: 4,
        span_cycles: 200_000,
        ..GenConfig::default()
    };
    let mut bytes: Option<u64> = None;
    let mut out = None;
    while let Some(arg) = args.next() {
        let mut number = |name: &str| -> anyhow::Result<u64> {
            let value = args
                .next()
                .ok_or_else(|| anyhow::anyhow!("{name} needs a value"))?;
            Ok(value.parse()?)
        };
        match arg.as_str() {
            "--sample" => config = sample_config(),
            "--bytes" => bytes = Some(number("--bytes")?),
            "--kernels" => config.kernels = number("--kernels")? as usize,
            "--l1-objects" => config.l1_objects = number("--l1-objects")? as usize,
            "--l2-objects" => config.l2_objects = number("--l2-objects")? as usize,
            "--seed" => config.seed = number("--seed")?,
            _ if !arg.starts_with("--") => out = Some(arg),
            _ => anyhow::bail!("unknown option {arg}"),
        }
    }
    let out = out.ok_or_else(|| anyhow::anyhow!("usage: make_gainsight_log [options] OUT.log"))?;
    let file = std::fs::File::create(&out)?;
    let mut w = CountingWriter::new(BufWriter::with_capacity(1 << 20, file));
    let mut kernels = 0usize;
    let mut lifetimes = [0u64; 2];
    match bytes {
        None => {
            for k in generate(&config, &mut w)? {
                kernels += 1;
                lifetimes[0] += k.lifetime_count[0];
                lifetimes[1] += k.lifetime_count[1];
            }
        }
        Some(target) => {
            config.keep_expected = false;
            let mut one = GenConfig {
                kernels: 1,
                ..config.clone()
            };
            while w.written() < target {
                one.first_kernel_id = config.first_kernel_id + kernels as u64;
                one.seed = config.seed.wrapping_add(kernels as u64 * 7919);
                for k in generate(&one, &mut w)? {
                    lifetimes[0] += k.lifetime_count[0];
                    lifetimes[1] += k.lifetime_count[1];
                }
                kernels += 1;
            }
        }
    }
    w.flush()?;
    eprintln!(
        "{out}: {} bytes, {kernels} kernels, {} L1 and {} L2 lifetimes",
        w.written(),
        lifetimes[0],
        lifetimes[1]
    );
    Ok(())
}
