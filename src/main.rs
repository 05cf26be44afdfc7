//! The `sightline` command: headless subcommands over the model layers.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use sightline::ncu::Report;
use sightline::ncu::dump::{DumpOptions, write_dump};

mod summary;

/// Sightline: a fast viewer for GPU profiler reports.
#[derive(Parser)]
#[command(name = "sightline", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print a report as JSON, in the shape of NVIDIA's reader (ncu-oracle's dump.py).
    Dump {
        /// The report (.ncu-rep or .ncu-repz).
        report: PathBuf,
        /// Add each metric's inferred unit.
        #[arg(long)]
        units: bool,
        /// Only action N (0-based).
        #[arg(long, value_name = "N")]
        kernel: Option<usize>,
    },
    /// Summarize a report: device, kernels, metrics.
    Summary {
        /// The report (.ncu-rep or .ncu-repz).
        report: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        // A closed pipe (`sightline dump r.ncu-rep | head`) is the reader's choice, not an error.
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("sightline: error: {error:#}");
            ExitCode::from(2)
        }
    }
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn open(path: &PathBuf) -> anyhow::Result<Report> {
    let report = Report::open(path)?;
    for warning in report.warnings() {
        eprintln!(
            "sightline: warning: {}: byte {}: {}",
            path.display(),
            warning.offset,
            warning.message
        );
    }
    Ok(report)
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Dump {
            report,
            units,
            kernel,
        } => {
            let report = open(&report)?;
            let stdout = std::io::stdout().lock();
            let out = std::io::BufWriter::with_capacity(1 << 16, stdout);
            write_dump(&report, &DumpOptions { units, kernel }, out)?;
        }
        Command::Summary { report } => {
            let report = open(&report)?;
            let mut out = std::io::stdout().lock();
            summary::write_summary(&report, &mut out)?;
        }
    }
    Ok(())
}
