//! Writes an Nsight Systems-shaped SQLite export (the 2024.5 schema's tables and columns) with
//! about N events: kernels on several streams with their launching API calls, nested NVTX
//! ranges, memcpy/memset and OS runtime calls; with `--samples N`, N CPU samples with call
//! stacks (`COMPOSITE_EVENTS`, `SAMPLING_CALLCHAINS`), with `--sched N`, N scheduling events
//! (`SCHED_EVENTS`, sched-in/out pairs) on the same threads (both 0 by default).
//!
//! ```sh
//! cargo run --release -p sightline-test-support --bin make_nsys_export -- OUT.sqlite [EVENTS] \
//!     [--threads N] [--streams N] [--seed N] [--samples N] [--sched N]
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used)] // Test code: a failed unwrap is a failed test.

use std::path::PathBuf;
use std::process::ExitCode;

use sightline_test_support::nsys::{SynthOptions, write_export_with_cpu};
use sightline_test_support::nsys_cpu::CpuOptions;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut out: Option<PathBuf> = None;
    let mut options = SynthOptions {
        events: 1_000_000,
        threads: 4,
        streams: 8,
        seed: 1,
    };
    let mut cpu = CpuOptions::default();
    while let Some(a) = args.next() {
        let mut number = |name: &str| -> Option<u64> {
            let v = args.next().and_then(|v| v.replace('_', "").parse().ok());
            if v.is_none() {
                eprintln!("{name} needs a number");
            }
            v
        };
        match a.as_str() {
            "--threads" => match number("--threads") {
                Some(n) => options.threads = n as u32,
                None => return ExitCode::from(2),
            },
            "--streams" => match number("--streams") {
                Some(n) => options.streams = n as u32,
                None => return ExitCode::from(2),
            },
            "--seed" => match number("--seed") {
                Some(n) => options.seed = n,
                None => return ExitCode::from(2),
            },
            "--samples" => match number("--samples") {
                Some(n) => cpu.samples = n,
                None => return ExitCode::from(2),
            },
            "--sched" => match number("--sched") {
                Some(n) => cpu.sched = n,
                None => return ExitCode::from(2),
            },
            _ if out.is_none() => out = Some(PathBuf::from(a)),
            _ => match a.replace('_', "").parse() {
                Ok(n) => options.events = n,
                Err(_) => {
                    eprintln!("unexpected argument {a:?}");
                    return ExitCode::from(2);
                }
            },
        }
    }
    let Some(out) = out else {
        eprintln!(
            "usage: make_nsys_export OUT.sqlite [EVENTS] [--threads N] [--streams N] [--seed N] [--samples N] [--sched N]"
        );
        return ExitCode::from(2);
    };
    if out.exists() {
        eprintln!("{}: exists; remove it first", out.display());
        return ExitCode::from(1);
    }
    match write_export_with_cpu(&out, &options, &cpu) {
        Ok((c, k)) => {
            println!(
                "{}: {} events (runtime {}, kernels {}, memcpy {}, memset {}, nvtx {}, osrt {}); {} CPU samples ({} call stack rows), {} scheduling events",
                out.display(),
                c.total(),
                c.runtime,
                c.kernels,
                c.memcpy,
                c.memset,
                c.nvtx,
                c.osrt,
                k.samples,
                k.callchain_rows,
                k.sched
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{}: {e}", out.display());
            ExitCode::from(1)
        }
    }
}
