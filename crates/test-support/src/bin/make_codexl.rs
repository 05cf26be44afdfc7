//! Generates CodeXL session files (no real `.atp` or `.occupancy` file is public) and measures
//! the `.atp` reader.
//!
//! - `make_codexl fixtures [DIR]`: writes the committed fixtures (default `fixtures/codexl`).
//! - `make_codexl atp OUT [--size BYTES] [--seed N]`: writes a trace of about BYTES (default 1 GB).
//! - `make_codexl measure FILE`: loads a trace with `AtpFile::open` and prints the load time,
//!   MB/s, calls, events and bytes held per event.
//! - `make_codexl counters OUT [--rows N]`: writes a performance-counter file (RCP 5.2 layout)
//!   of N dispatches (default 1,000,000: about 150 MB).
//! - `make_codexl measure-counters FILE`: loads it with `CounterFile::open` and prints the load
//!   time and the bytes held against the file's size (run under `/usr/bin/time -v` for the peak).
#![allow(clippy::unwrap_used, clippy::expect_used)] // Test code: a failed unwrap is a failed test.

use std::io::BufWriter;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, bail};
use sightline_model::codexl::CounterFile;
use sightline_model::timeline::atp::AtpFile;
use sightline_test_support::codexl::tables::{TableStyle, counters_text};
use sightline_test_support::codexl::{atp, fixture_files};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("fixtures") => write_fixtures(&args),
        Some("atp") => write_trace(&args),
        Some("measure") => measure_trace(&args),
        Some("counters") => write_counters(&args),
        Some("measure-counters") => measure_counters(&args),
        _ => bail!(
            "usage: make_codexl fixtures [DIR] | atp OUT [--size BYTES] [--seed N] | measure FILE \
             | counters OUT [--rows N] | measure-counters FILE"
        ),
    }
}

/// `fixtures [DIR]`: writes the committed fixtures.
fn write_fixtures(args: &[String]) -> anyhow::Result<()> {
    let dir = PathBuf::from(args.get(1).map_or("fixtures/codexl", String::as_str));
    std::fs::create_dir_all(&dir)?;
    for (name, bytes) in fixture_files() {
        std::fs::write(dir.join(name), &bytes).with_context(|| format!("writing {name}"))?;
        println!("{} ({} bytes)", dir.join(name).display(), bytes.len());
    }
    Ok(())
}

/// `atp OUT [--size BYTES] [--seed N]`: writes a trace of about BYTES and prints what it holds.
fn write_trace(args: &[String]) -> anyhow::Result<()> {
    let out = PathBuf::from(
        args.get(1)
            .context("make_codexl atp OUT [--size BYTES] [--seed N]")?,
    );
    let mut size: u64 = 1_000_000_000;
    let mut seed: u64 = 7;
    let mut rest = args[2..].iter();
    while let Some(flag) = rest.next() {
        let value = rest.next().context("a flag needs a value")?;
        match flag.as_str() {
            "--size" => size = value.parse()?,
            "--seed" => seed = value.parse()?,
            _ => bail!("unknown flag {flag}"),
        }
    }
    let spec = atp::spec_for_size(size, seed);
    let started = Instant::now();
    let file =
        std::fs::File::create(&out).with_context(|| format!("creating {}", out.display()))?;
    let truth = atp::write_atp(&spec, &mut BufWriter::with_capacity(1 << 20, file))?;
    println!(
        "{}: {} bytes, {} API calls ({} OpenCL, {} HSA), {} enqueues, {} HSA dispatches, {} perfmarkers in {:.1} s",
        out.display(),
        truth.bytes,
        truth.opencl_calls + truth.hsa_calls,
        truth.opencl_calls,
        truth.hsa_calls,
        truth.enqueues,
        truth.hsa_dispatches,
        truth.perfmarkers,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// `measure FILE`: loads a trace and prints the load time, rate, counts and memory held.
fn measure_trace(args: &[String]) -> anyhow::Result<()> {
    let path = PathBuf::from(args.get(1).context("make_codexl measure FILE")?);
    let started = Instant::now();
    let file = AtpFile::open(&path)?;
    let seconds = started.elapsed().as_secs_f64();
    let bytes = file.source.len() as f64;
    let t = &file.trace;
    let heap = t.heap_bytes();
    println!("file: {} ({:.1} MB)", path.display(), bytes / 1e6);
    println!("load: {seconds:.3} s, {:.1} MB/s", bytes / 1e6 / seconds);
    println!(
        "API calls: {}, device commands: {}, HSA dispatches: {}, HSA copies: {}, perfmarkers: {}, events: {}",
        t.calls.len(),
        t.enqueues.len(),
        t.hsa_dispatches.len(),
        t.hsa_copies.len(),
        t.perfmarkers.len(),
        t.event_count()
    );
    println!(
        "held in memory: {heap} bytes = {:.1} B per API call, {:.1} B per event (file mapped, not counted)",
        heap as f64 / t.calls.len().max(1) as f64,
        heap as f64 / t.event_count().max(1) as f64
    );
    println!("warnings: {}", t.warnings.len() as u64 + t.warnings_dropped);
    Ok(())
}

/// `counters OUT [--rows N]`: writes a performance-counter file of N dispatches.
fn write_counters(args: &[String]) -> anyhow::Result<()> {
    let out = PathBuf::from(args.get(1).context("make_codexl counters OUT [--rows N]")?);
    let rows: u64 = match (args.get(2).map(String::as_str), args.get(3)) {
        (Some("--rows"), Some(n)) => n.parse()?,
        (None, _) => 1_000_000,
        _ => bail!("make_codexl counters OUT [--rows N]"),
    };
    let spec = atp::AtpSpec {
        opencl_threads: 8,
        iterations: u32::try_from(rows.div_ceil(8))?,
        ..atp::AtpSpec::default()
    };
    let (text, _) = counters_text(&spec, &TableStyle::default());
    std::fs::write(&out, &text).with_context(|| format!("writing {}", out.display()))?;
    println!("{}: {} bytes", out.display(), text.len());
    Ok(())
}

/// `measure-counters FILE`: loads a counter file and prints the load time and memory held.
fn measure_counters(args: &[String]) -> anyhow::Result<()> {
    let path = PathBuf::from(args.get(1).context("make_codexl measure-counters FILE")?);
    let started = Instant::now();
    let file = CounterFile::open(&path)?;
    let seconds = started.elapsed().as_secs_f64();
    let bytes = std::fs::metadata(&path)?.len() as f64;
    let heap = file.heap_bytes() as f64;
    let fields: usize = file.rows.iter().map(|r| r.values.len()).sum();
    println!("file: {} ({:.1} MB)", path.display(), bytes / 1e6);
    println!("load: {seconds:.3} s, {:.1} MB/s", bytes / 1e6 / seconds);
    println!(
        "rows: {}, fields: {fields}, held: {:.1} MB = {:.2}x the file, {:.1} B per field",
        file.rows.len(),
        heap / 1e6,
        heap / bytes,
        heap / fields.max(1) as f64
    );
    Ok(())
}
