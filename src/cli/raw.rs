//! `sightline raw`: every metric of every kernel, one column per metric, as
//! `ncu --import R --page raw [--csv]` prints it.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::ncu::pages::{
    RawOptions, SummaryPer, raw_csv_page, raw_page, raw_summary_page, write_row,
};

use super::common::{PrintInstances, PrintUnits, all_actions, open_report};

/// Arguments of `sightline raw`.
#[derive(clap::Args, Debug, Clone)]
pub struct RawArgs {
    /// The report (.ncu-rep or .ncu-repz).
    pub report: PathBuf,
    /// Print NVIDIA's CSV (`ncu --import R --page raw --csv`), byte for byte.
    #[arg(long)]
    pub csv: bool,
    /// Units: scaled (`auto`) or base units (`base`).
    #[arg(long, value_enum, default_value_t = PrintUnits::Auto)]
    pub print_units: PrintUnits,
    /// Instanced metrics: the aggregate only (`none`), with instance values (`values`) or
    /// with correlation ids and values (`details`).
    #[arg(long, value_enum, default_value_t = PrintInstances::None)]
    pub print_metric_instances: PrintInstances,
    /// Only this result (its own columns and units: what the app's Raw page exports).
    #[arg(long, value_name = "N")]
    pub kernel: Option<usize>,
    /// With `--csv`: each metric's minimum, maximum and average over the launches of a kernel,
    /// of a kernel per GPU or per NVTX push/pop stack (`ncu --import R --page raw --csv
    /// --print-summary ...`).
    #[arg(long, value_enum, requires = "csv")]
    pub print_summary: Option<RawSummary>,
}

/// `--print-summary` of `sightline raw --csv`.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum RawSummary {
    /// One group per kernel (process, name, launch geometry, device).
    PerKernel,
    /// The same groups, device columns first.
    PerGpu,
    /// One group per NVTX push/pop stack and kernel.
    PerNvtx,
}

/// Writes the raw page to `out`: NVIDIA's CSV with `--csv`, else one `metric unit value`
/// line per metric under each kernel.
pub fn run(args: &RawArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let report = open_report(&args.report)?;
    let actions = match args.kernel {
        None => all_actions(&report)?,
        Some(n) if n < report.num_actions() => vec![report.action(n)?],
        Some(n) => anyhow::bail!(
            "{}: no kernel {n}: the report has {} result(s)",
            report.path().display(),
            report.num_actions()
        ),
    };
    let options = RawOptions {
        units: args.print_units.into(),
        instances: args.print_metric_instances.into(),
    };
    if let Some(summary) = args.print_summary {
        let per = match summary {
            RawSummary::PerKernel => SummaryPer::Kernel,
            RawSummary::PerGpu => SummaryPer::Gpu,
            RawSummary::PerNvtx => SummaryPer::Nvtx,
        };
        let page = raw_summary_page(&report, &actions, per, options.units);
        write_row(out, &page.header, false)?;
        for row in &page.rows {
            write_row(out, row, false)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let page = if args.csv {
        raw_csv_page(&report, &actions, options)
    } else {
        raw_page(&report, &actions, options)
    };
    if args.csv {
        write_row(out, &page.header, false)?;
        write_row(out, &page.units, false)?;
        for row in &page.rows {
            write_row(out, row, false)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    for row in &page.rows {
        for ((name, unit), value) in page.header.iter().zip(&page.units).zip(row) {
            writeln!(out, "{name}  {value}  {unit}")?;
        }
        writeln!(out)?;
    }
    Ok(ExitCode::SUCCESS)
}
