//! `sightline dump`: a report as JSON, in the shape of NVIDIA's reader (ncu-oracle's dump.py).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::ncu::{DumpOptions, write_dump};

use super::common::{open_report, print_report_warnings};

/// Arguments of `sightline dump`.
#[derive(clap::Args, Debug, Clone)]
pub struct DumpArgs {
    /// The report (.ncu-rep or .ncu-repz).
    pub report: PathBuf,
    /// Add each metric's inferred unit.
    #[arg(long)]
    pub units: bool,
    /// Only action N (0-based).
    #[arg(long, value_name = "N")]
    pub kernel: Option<usize>,
}

/// Streams the JSON to `out` (flushed), then prints the actions' read warnings on stderr.
pub fn run(args: &DumpArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let report = open_report(&args.report)?;
    let options = DumpOptions {
        units: args.units,
        kernel: args.kernel,
    };
    let warnings = write_dump(&report, &options, &mut *out)?;
    print_report_warnings(&report, &warnings);
    Ok(ExitCode::SUCCESS)
}
