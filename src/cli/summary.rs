//! `sightline summary`: a one-screen overview of a report (device, process, kernels).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::ncu::{NameBase, Report, rule_messages};

use crate::ncu::pages::{SummaryPer, summary_page, write_row};
use crate::section::SectionChoice;

use super::common::{PrintUnits, SectionFolders, open_report, write_table};
use super::details::resolve_pages;
use super::summary_baseline::{CompareFormat, write_compared};

/// Arguments of `sightline summary`.
#[derive(clap::Args, Debug, Clone)]
pub struct SummaryArgs {
    /// The report (.ncu-rep or .ncu-repz).
    pub report: PathBuf,
    /// Print NVIDIA's summary CSV (`ncu --import R --page details --csv --print-summary
    /// per-kernel|per-gpu|per-nvtx`) instead of the overview.
    #[arg(long)]
    pub csv: bool,
    /// With `--csv`: aggregate per kernel, per GPU or per NVTX push/pop stack.
    #[arg(long, value_enum, default_value_t = SummaryPerArg::Kernel, requires = "csv")]
    pub per: SummaryPerArg,
    /// With `--csv`: units scaled (`auto`) or base units (`base`).
    #[arg(long, value_enum, default_value_t = PrintUnits::Auto)]
    pub print_units: PrintUnits,
    /// The section folders (`--section-folder`, `--section-folder-recursive`).
    #[command(flatten)]
    pub folders: SectionFolders,
    /// Compare every result with a baseline report's result of the same kernel name and launch
    /// order (`OTHER`), or with one result (`OTHER:KERNEL`). Repeatable. Prints the duration and
    /// the Speed of Light and Occupancy values with each baseline's and the difference: text,
    /// CSV with `--csv`, JSON with `--json`.
    #[arg(long = "baseline", value_name = "OTHER[:KERNEL]")]
    pub baselines: Vec<crate::section::BaselineSpec>,
    /// With `--baseline`: print JSON.
    #[arg(long, requires = "baselines", conflicts_with = "csv")]
    pub json: bool,
}

/// `--per` of `sightline summary --csv`.
#[derive(clap::ValueEnum, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SummaryPerArg {
    /// One group per kernel (process, name, launch geometry, device).
    #[default]
    Kernel,
    /// The same groups, device columns first.
    Gpu,
    /// One group per NVTX push/pop stack and kernel.
    Nvtx,
}

/// Opens the report and writes its overview, or NVIDIA's summary CSV, to `out`.
pub fn run(args: &SummaryArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let report = open_report(&args.report)?;
    if !args.baselines.is_empty() {
        let format = if args.json {
            CompareFormat::Json
        } else if args.csv {
            CompareFormat::Csv
        } else {
            CompareFormat::Text
        };
        write_compared(&report, &args.baselines, &args.folders, format, out)?;
        return Ok(ExitCode::SUCCESS);
    }
    if !args.csv {
        write_summary(&report, out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut choice = SectionChoice::new(args.folders.folders());
    let indices: Vec<usize> = (0..report.num_actions()).collect();
    let (actions, pages) = resolve_pages(&report, &mut choice, &indices, true)?;
    let per = match args.per {
        SummaryPerArg::Kernel => SummaryPer::Kernel,
        SummaryPerArg::Gpu => SummaryPer::Gpu,
        SummaryPerArg::Nvtx => SummaryPer::Nvtx,
    };
    let page = summary_page(&report, &actions, &pages, per, args.print_units.into());
    write_row(out, &page.header, false)?;
    for row in &page.rows {
        write_row(out, row, false)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes the overview of `report`.
pub fn write_summary(report: &Report, out: &mut dyn Write) -> anyhow::Result<()> {
    let session = report.session();
    writeln!(
        out,
        "{}: Nsight Compute report (container version {}), {} result(s)",
        report.path().display(),
        report.version(),
        report.num_actions()
    )?;
    for device in &session.device_attributes {
        let attr = |name: &str| {
            report
                .device_attribute(device.id, name)
                .and_then(|v| v.as_u64())
        };
        let cc = match (
            attr("compute_capability_major"),
            attr("compute_capability_minor"),
        ) {
            (Some(major), Some(minor)) => format!("compute capability {major}.{minor}"),
            _ => "compute capability unknown".to_owned(),
        };
        let sms = attr("multiprocessor_count")
            .map(|n| format!(", {n} SMs"))
            .unwrap_or_default();
        let name = report
            .device_attribute(device.id, "display_name")
            .and_then(|v| v.as_str().map(str::to_owned))
            .or_else(|| device.name.clone())
            .unwrap_or_else(|| "unknown device".to_owned());
        writeln!(out, "device {}: {name} ({cc}{sms})", device.id)?;
    }
    if let Some(cmdline) = &session.profiler_cmdline {
        writeln!(out, "command line: {cmdline}")?;
    }
    if let Some(pid) = session.process_id {
        writeln!(out, "process: {pid}")?;
    }
    writeln!(out)?;
    let header = [
        "#",
        "kernel",
        "grid",
        "block",
        "duration",
        "metrics",
        "sections",
        "rule msgs",
    ];
    let mut rows = Vec::new();
    for index in 0..report.num_actions() {
        let action = report.action(index)?;
        let dim =
            |d: Option<[u64; 3]>| d.map_or("-".to_owned(), |[x, y, z]| format!("{x}x{y}x{z}"));
        let duration = action
            .metric("gpu__time_duration.sum")
            .and_then(|m| m.value().as_f64())
            .map_or("-".to_owned(), format_ns);
        rows.push([
            index.to_string(),
            action.name(NameBase::Function).to_owned(),
            dim(action.grid_size()),
            dim(action.block_size()),
            duration,
            action.metrics().len().to_string(),
            action.num_sections().to_string(),
            rule_messages(action.rule_results()).len().to_string(),
        ]);
    }
    write_table(out, &header, &rows)?;
    for warning in report.warnings() {
        writeln!(out, "warning: {warning}")?;
    }
    Ok(())
}

fn format_ns(ns: f64) -> String {
    crate::format::DurationFormat::ASCII.format(ns)
}
