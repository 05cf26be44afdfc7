//! `sightline session`: the session page of a report (launch settings, host and target,
//! processes, device attributes), as `ncu --import R --page session [--csv]` prints it.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::ncu::pages::{session_page, write_titled_tables};

use super::common::open_report;

/// Arguments of `sightline session`.
#[derive(clap::Args, Debug, Clone)]
pub struct SessionArgs {
    /// The report (.ncu-rep or .ncu-repz).
    pub report: PathBuf,
    /// Print NVIDIA's CSV (`ncu --import R --page session --csv`), byte for byte.
    #[arg(long)]
    pub csv: bool,
}

/// Writes the session page to `out`: NVIDIA's CSV with `--csv`, else aligned text.
pub fn run(args: &SessionArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let report = open_report(&args.report)?;
    let tables = session_page(&report);
    if args.csv {
        write_titled_tables(out, &tables)?;
        return Ok(ExitCode::SUCCESS);
    }
    for (i, table) in tables.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        writeln!(out, "{}", table.title)?;
        let width = table
            .rows
            .iter()
            .filter_map(|r| r.first())
            .chain(table.header.first())
            .map(|c| c.chars().count())
            .max()
            .unwrap_or(0);
        for row in std::iter::once(&table.header).chain(&table.rows) {
            let (first, rest) = row
                .split_first()
                .map_or(("", &[][..]), |(f, r)| (f.as_str(), r));
            writeln!(out, "  {first:<width$}  {}", rest.join("  ").trim_end())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
