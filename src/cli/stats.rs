//! `sightline stats`: the `nsys stats` summary reports of an Nsight Systems export, as CSV
//! (byte-compatible with `nsys stats --format csv`), JSON or an aligned table.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;

use crate::pyjson::write_string;
use crate::timeline::nsys::stats::{self, Cell, ReportOutcome, ReportRequest, ReportTable};
use crate::timeline::nsys::{self, ExportDb, MergedExport, default_cache_dir, export_report};

/// Output format of `sightline stats`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum StatsFormat {
    /// CSV as `nsys stats --format csv` writes it.
    Csv,
    /// JSON: `{"file", "reports": [{"report", "columns", "rows": [{COLUMN: value}]} | {"report", "skipped"}]}`.
    Json,
    /// Aligned columns for reading.
    Table,
}

/// Arguments of `sightline stats`.
#[derive(clap::Args, Debug, Clone)]
pub struct StatsArgs {
    /// The export (.sqlite) or report (.nsys-rep, .qdrep: exported with `nsys` first); several
    /// (the ranks of a job) with `--merge` or `--per-file`.
    #[arg(required_unless_present = "help_reports")]
    pub files: Vec<PathBuf>,
    /// Several files: the reports over all of them at once, as one export (see
    /// `crates/model/src/timeline/nsys/merged.rs` for how their rows are put together).
    #[arg(long, conflicts_with = "per_file")]
    pub merge: bool,
    /// Several files: the reports of each file, one after another under its name.
    #[arg(long)]
    pub per_file: bool,
    /// Report, as nsys takes it: NAME[:OPTION[=VALUE]]... (`cuda_gpu_kern_sum:nvtx-name`);
    /// repeat or separate with commas. `--help-reports` lists them. Default: nsys's set.
    #[arg(long = "report", value_name = "NAME")]
    pub reports: Vec<String>,
    /// List the reports and their options, and exit.
    #[arg(long)]
    pub help_reports: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: StatsFormat,
    /// Write PREFIX_REPORT.csv files (as `nsys stats --output`).
    #[arg(long, value_name = "PREFIX")]
    pub output: Option<PathBuf>,
    /// The nsys executable used to export .nsys-rep/.qdrep reports.
    #[arg(long, value_name = "PATH")]
    pub nsys: Option<PathBuf>,
    /// Print on stderr how long each report took to compute (what the app waits for) and,
    /// with `--output`, to write.
    #[arg(long)]
    pub timing: bool,
}

/// The SQLite export to read for `file`: itself, or the (cached) export of a `.nsys-rep`.
pub fn export_for(file: &Path, nsys_exe: Option<&Path>) -> anyhow::Result<PathBuf> {
    if nsys::is_report_file(file) {
        let out = export_report(
            file,
            nsys_exe,
            &default_cache_dir(),
            crate::core::Progress::none(),
        )?;
        eprintln!(
            "{}: using the SQLite export {}",
            file.display(),
            out.display()
        );
        Ok(out)
    } else {
        Ok(file.to_path_buf())
    }
}

/// Runs the command, writing to `out`. Skipped reports are noted on stderr, as nsys does; so
/// is what a report could not read of a table with damaged pages (the report covers the rows
/// that read). A report that cannot be computed because a table it needs does not read at all
/// is named on stderr and makes the exit code 1; the others still print.
pub fn run(args: &StatsArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    if args.help_reports {
        write_help(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let Some(file) = args.files.first() else {
        anyhow::bail!("no export given");
    };
    if args.files.len() > 1 && !args.merge && !args.per_file {
        anyhow::bail!(
            "{} files given: add --merge (the reports over all of them) or --per-file (each file's)",
            args.files.len()
        );
    }
    let requests = requests_of(args)?;
    if args.per_file && args.files.len() > 1 {
        return run_per_file(args, out);
    }
    let mut failed = false;
    let merged;
    let export = if args.merge && args.files.len() > 1 {
        let exports = args
            .files
            .iter()
            .map(|f| export_for(f, args.nsys.as_deref()))
            .collect::<anyhow::Result<Vec<_>>>()?;
        merged = MergedExport::build(&exports)?;
        for w in &merged.warnings {
            eprintln!("{w}");
        }
        merged.path().to_path_buf()
    } else {
        export_for(file, args.nsys.as_deref())?
    };
    let db = ExportDb::open_salvaging(&export)?;
    if let Some(summary) = &db.salvage {
        eprintln!("warning: {}: {summary}", db.path.display());
    }
    if let Some(prefix) = &args.output {
        write_report_files(&db, &requests, prefix, args.timing, &mut failed)?;
        return Ok(exit_code(failed));
    }
    let mut results = Vec::new();
    for (name, request) in &requests {
        let started = Instant::now();
        let Some(outcome) = outcome_of(name, stats::run_request(&db, request), &mut failed)? else {
            continue;
        };
        results.push((name.to_string(), outcome));
        if args.timing {
            eprintln!(
                "{name}: computed in {:.3} s",
                started.elapsed().as_secs_f64()
            );
        }
    }
    match args.format {
        // A report that failed is left out; the others keep the sections of what was asked.
        StatsFormat::Csv => write_csv_sections(&results, requests.len() != 1, out)?,
        StatsFormat::Json if args.merge && args.files.len() > 1 => {
            write_json(Path::new(&joined(&args.files)), &results, out)?
        }
        StatsFormat::Json => write_json(file, &results, out)?,
        StatsFormat::Table => write_table(&results, out)?,
    }
    Ok(exit_code(failed))
}

/// The reports asked for (the default ones when none is), each parsed.
fn requests_of(args: &StatsArgs) -> anyhow::Result<Vec<(&str, ReportRequest)>> {
    let requested: Vec<&str> = if args.reports.is_empty() {
        stats::DEFAULT_REPORTS.to_vec()
    } else {
        args.reports
            .iter()
            .flat_map(|r| r.split(','))
            .map(str::trim)
            .filter(|r| !r.is_empty())
            .collect()
    };
    let mut requests = Vec::new();
    for r in requested {
        requests.push((r, ReportRequest::parse(r)?));
    }
    Ok(requests)
}

/// `--per-file`: each file's reports under a `==> file <==` line, each output prefix with the
/// file's stem.
fn run_per_file(args: &StatsArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let mut failed = false;
    for (i, file) in args.files.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        writeln!(out, "==> {} <==", file.display())?;
        let args = StatsArgs {
            files: vec![file.clone()],
            per_file: false,
            output: args.output.as_ref().map(|prefix| {
                let stem = file.file_stem().unwrap_or_default().to_string_lossy();
                PathBuf::from(format!("{}_{stem}", prefix.display()))
            }),
            ..args.clone()
        };
        if run(&args, out)? != ExitCode::SUCCESS {
            failed = true;
        }
    }
    Ok(exit_code(failed))
}

/// `--output PREFIX`: each report written to `PREFIX_report.csv` as soon as it is computed,
/// and dropped.
fn write_report_files(
    db: &ExportDb,
    requests: &[(&str, ReportRequest)],
    prefix: &Path,
    timing: bool,
    failed: &mut bool,
) -> anyhow::Result<()> {
    // Each report written as soon as it is computed, and dropped: a batch of large traces
    // never holds more than one table.
    for (name, request) in requests {
        let started = Instant::now();
        let Some(outcome) = outcome_of(name, stats::run_request(db, request), failed)? else {
            continue;
        };
        let computed = started.elapsed();
        match &outcome {
            ReportOutcome::Table(t) if !t.rows.is_empty() => {
                let path =
                    PathBuf::from(format!("{}_{}.csv", prefix.display(), request.file_stem()));
                std::fs::File::create(&path)
                    .and_then(|mut file| stats::write_csv(t, &mut file))
                    .with_context(|| format!("writing {}", path.display()))?;
                eprintln!("{name}: wrote {}", path.display());
                if timing {
                    eprintln!(
                        "{name}: computed in {:.3} s, written in {:.3} s",
                        computed.as_secs_f64(),
                        (started.elapsed() - computed).as_secs_f64()
                    );
                }
            }
            ReportOutcome::Table(_) => eprintln!("{name}: no rows"),
            ReportOutcome::Skipped(m) => eprintln!("{name}: SKIPPED: {m}"),
        }
    }
    Ok(())
}

/// A report's outcome, its warnings printed on stderr; `None` (named on stderr, `failed` set)
/// for a report that a table with damaged pages kept from being computed. Other errors end the
/// command.
fn outcome_of(
    name: &str,
    outcome: Result<ReportOutcome, nsys::NsysError>,
    failed: &mut bool,
) -> anyhow::Result<Option<ReportOutcome>> {
    match outcome {
        Ok(outcome) => {
            if let ReportOutcome::Table(t) = &outcome {
                for w in &t.warnings {
                    eprintln!("{name}: warning: {w}");
                }
            }
            Ok(Some(outcome))
        }
        Err(e @ nsys::NsysError::DamagedTable { .. }) => {
            eprintln!("{name}: FAILED: {e}");
            *failed = true;
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

/// 1 when a report failed, else success.
fn exit_code(failed: bool) -> ExitCode {
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The files of a merged run, as one name ("a.sqlite + b.sqlite").
fn joined(files: &[PathBuf]) -> String {
    files
        .iter()
        .map(|f| f.display().to_string())
        .collect::<Vec<_>>()
        .join(" + ")
}

/// `--help-reports`: every report, what it shows and its options.
fn write_help(out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(
        out,
        "The reports of `sightline stats` (as nsys stats names them):"
    )?;
    for r in stats::reports() {
        writeln!(out, "\n  {}\n      {}", r.name, r.about)?;
        for o in r.options {
            match o.default {
                Some(d) => writeln!(out, "      :{}=N  {} (default {d})", o.name(), o.about)?,
                None => writeln!(out, "      :{}  {}", o.name(), o.about)?,
            }
        }
    }
    Ok(())
}

pub(crate) fn write_csv(
    results: &[(String, ReportOutcome)],
    out: &mut dyn Write,
) -> std::io::Result<()> {
    write_csv_sections(results, results.len() != 1, out)
}

/// The reports as CSV, each under a `# NAME` line when `sections` (several were asked for).
fn write_csv_sections(
    results: &[(String, ReportOutcome)],
    sections: bool,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    for (i, (name, outcome)) in results.iter().enumerate() {
        if sections {
            if i > 0 {
                writeln!(out)?;
            }
            writeln!(out, "# {name}")?;
        }
        match outcome {
            ReportOutcome::Table(t) => stats::write_csv(t, out)?,
            ReportOutcome::Skipped(m) => eprintln!("{name}: SKIPPED: {m}"),
        }
    }
    Ok(())
}

pub(crate) fn write_json(
    file: &Path,
    results: &[(String, ReportOutcome)],
    out: &mut dyn Write,
) -> std::io::Result<()> {
    write!(out, "{{\"file\": ")?;
    write_string(&mut &mut *out, &file.display().to_string())?;
    write!(out, ", \"reports\": [")?;
    for (i, (name, outcome)) in results.iter().enumerate() {
        if i > 0 {
            write!(out, ", ")?;
        }
        write!(out, "{{\"report\": ")?;
        write_string(&mut &mut *out, name)?;
        match outcome {
            ReportOutcome::Skipped(m) => {
                write!(out, ", \"skipped\": ")?;
                write_string(&mut &mut *out, m)?;
            }
            ReportOutcome::Table(t) => write_json_table(t, out)?,
        }
        write!(out, "}}")?;
    }
    writeln!(out, "]}}")
}

fn write_json_table(t: &ReportTable, out: &mut dyn Write) -> std::io::Result<()> {
    write!(out, ", \"columns\": [")?;
    for (i, c) in t.columns.iter().enumerate() {
        if i > 0 {
            write!(out, ", ")?;
        }
        write_string(&mut &mut *out, c)?;
    }
    write!(out, "], \"rows\": [")?;
    let mut first = true;
    t.rows.for_each(|row| {
        if !std::mem::take(&mut first) {
            write!(out, ", ")?;
        }
        write!(out, "{{")?;
        for (i, (c, cell)) in t.columns.iter().zip(row).enumerate() {
            if i > 0 {
                write!(out, ", ")?;
            }
            write_string(&mut &mut *out, c)?;
            write!(out, ": ")?;
            match cell {
                Cell::Number(n) => write!(out, "{n}")?,
                Cell::Text(s) => write_string(&mut &mut *out, s)?,
            }
        }
        write!(out, "}}")
    })?;
    write!(out, "]")
}

pub(crate) fn write_table(
    results: &[(String, ReportOutcome)],
    out: &mut dyn Write,
) -> std::io::Result<()> {
    for (i, (name, outcome)) in results.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        writeln!(out, "** {name}")?;
        let t = match outcome {
            ReportOutcome::Skipped(m) => {
                writeln!(out, "SKIPPED: {m}")?;
                continue;
            }
            ReportOutcome::Table(t) if t.rows.is_empty() => {
                writeln!(out, "(no rows)")?;
                continue;
            }
            ReportOutcome::Table(t) => t,
        };
        let mut widths: Vec<usize> = t.columns.iter().map(|c| c.chars().count()).collect();
        t.rows.for_each(|row| {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.as_str().chars().count());
            }
            Ok::<(), std::io::Error>(())
        })?;
        let last = t.columns.len().saturating_sub(1);
        let line = |cells: Vec<(&str, bool)>, out: &mut dyn Write| -> std::io::Result<()> {
            let mut text = String::new();
            for (i, ((c, number), w)) in cells.into_iter().zip(&widths).enumerate() {
                if i > 0 {
                    text.push_str("  ");
                }
                let pad = w.saturating_sub(c.chars().count());
                if number {
                    text.push_str(&" ".repeat(pad));
                    text.push_str(c);
                } else if i == last {
                    text.push_str(c);
                } else {
                    text.push_str(c);
                    text.push_str(&" ".repeat(pad));
                }
            }
            writeln!(out, "{}", text.trim_end())
        };
        line(t.columns.iter().map(|c| (c.as_str(), false)).collect(), out)?;
        let rules: Vec<String> = widths.iter().map(|&w| "-".repeat(w)).collect();
        line(rules.iter().map(|r| (r.as_str(), false)).collect(), out)?;
        t.rows.for_each(|row| {
            line(
                row.iter()
                    .map(|c| (c.as_str(), matches!(c, Cell::Number(_))))
                    .collect(),
                out,
            )
        })?;
    }
    Ok(())
}
