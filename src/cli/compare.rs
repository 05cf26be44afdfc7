//! `sightline compare RUN_A RUN_B`: did my change help? Two runs — each an export, a report
//! (exported with `nsys`), or a folder of rank exports — compared per kernel, GPU memory
//! operation, NVTX range and CUDA API function: the change of the total per rank and of the
//! median, with the rank-to-rank (or iteration) spread, sorted by impact, and a verdict a CI job
//! gates on (`--fail-on PCT`: exit status 1 when slower, 3 when the spread hides the answer).
//! See `timeline::compare` for the statistics.
//!
//! ```text
//! sightline compare before/ after/ --fail-on 5 --format markdown > comparison.md
//! ```

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::cli::common::write_table;
use crate::core::{FnSink, Progress, Step};
use crate::format::DurationFormat;
use crate::timeline::compare::{Change, Comparison, Gate, Side, compare, run_exports, summarize};
use crate::timeline::nsys::default_cache_dir;

/// Exit status when a gated change is slower by the threshold (`--fail-on`).
pub const EXIT_REGRESSED: u8 = 1;
/// Exit status when the spread hides whether a gated change is (`--fail-on`).
pub const EXIT_INCONCLUSIVE: u8 = 3;

/// How the comparison is written.
#[derive(clap::ValueEnum, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CompareFormat {
    /// Aligned columns.
    #[default]
    Text,
    /// A Markdown report (a CI job's summary or a pull-request comment).
    Markdown,
    /// Every figure, for scripts.
    Json,
}

/// Arguments of `sightline compare`.
#[derive(clap::Args, Debug, Clone)]
pub struct CompareArgs {
    /// Run A (before): an export (.sqlite), a report (.nsys-rep, .qdrep) or a folder of them
    /// (one per rank).
    pub run_a: PathBuf,
    /// Run B (after), the same way.
    pub run_b: PathBuf,
    /// Fail (exit status 1) when a category's total or a group of at least 1 % of its
    /// category is slower by PCT percent or more beyond the spread; exit status 3 when the
    /// spread hides whether it is. Also the threshold of the verdicts.
    #[arg(long, value_name = "PCT")]
    pub fail_on: Option<f64>,
    /// The change (percent) a verdict calls slower or faster, without `--fail-on`.
    #[arg(long, value_name = "PCT", default_value_t = 5.0)]
    pub threshold: f64,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: CompareFormat,
    /// Groups listed in the text and Markdown tables (JSON lists all).
    #[arg(long, value_name = "N", default_value_t = 25)]
    pub rows: usize,
    /// How many files to read at once (default: every core).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// The nsys executable used to export .nsys-rep/.qdrep reports.
    #[arg(long, value_name = "PATH")]
    pub nsys: Option<PathBuf>,
}

/// Compares the runs and writes the comparison; the exit status is the gate's under
/// `--fail-on`.
pub fn run(args: &CompareArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let threshold = args.fail_on.unwrap_or(args.threshold);
    anyhow::ensure!(
        threshold.is_finite() && threshold > 0.0,
        "the threshold must be a positive percentage, not {threshold}"
    );
    let threads = args.threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let a = run_summary('A', &args.run_a, args, threads)?;
    let b = run_summary('B', &args.run_b, args, threads)?;
    let comparison = compare(&a, &b, threshold);
    match args.format {
        CompareFormat::Text => write_text(&comparison, args.rows, out)?,
        CompareFormat::Markdown => write_markdown(&comparison, args.rows, out)?,
        CompareFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, &comparison)?;
            writeln!(out)?;
        }
    }
    Ok(match (args.fail_on, comparison.gate) {
        (Some(_), Gate::Regressed) => ExitCode::from(EXIT_REGRESSED),
        (Some(_), Gate::Inconclusive) => ExitCode::from(EXIT_INCONCLUSIVE),
        _ => ExitCode::SUCCESS,
    })
}

/// One run's exports (reports exported first), summarized with a progress line on stderr.
fn run_summary(
    run: char,
    path: &std::path::Path,
    args: &CompareArgs,
    threads: usize,
) -> anyhow::Result<crate::timeline::compare::RunSummary> {
    let files = run_exports(
        run,
        path,
        args.nsys.as_deref(),
        &default_cache_dir(),
        Progress::none(),
    )?;
    let sink = FnSink::new(|step: &Step<'_>| {
        eprint!("\rrun {run}: {}/{} files", step.done, step.total);
    });
    let summary = summarize(run, &files, threads, Progress::new(&sink))?;
    eprintln!();
    for w in &summary.warnings {
        eprintln!("sightline: warning: {w}");
    }
    Ok(summary)
}

/// `12.345 ms`.
fn time(ns: f64) -> String {
    DurationFormat::ASCII.format(ns)
}

/// `+12.3 %`, or `-` when there is no percentage.
fn pct(p: Option<f64>) -> String {
    p.map_or_else(|| "-".to_owned(), |p| format!("{p:+.1} %"))
}

/// A side's total, or `-` when the group is not in the run.
fn side_total(s: Option<Side>) -> String {
    s.map_or_else(|| "-".to_owned(), |s| time(s.total))
}

/// A side's median, or `-`.
fn side_median(s: Option<Side>) -> String {
    s.and_then(|s| s.median)
        .map_or_else(|| "-".to_owned(), time)
}

/// A side's spread in percent of its total, or `-`.
fn side_spread(s: Option<Side>) -> String {
    s.filter(|s| s.total > 0.0).map_or_else(
        || "-".to_owned(),
        |s| format!("{:.1} %", s.spread / s.total * 100.0),
    )
}

/// The sentence that sums the comparison up.
fn headline(c: &Comparison) -> String {
    let t = c.threshold_pct;
    match c.gate {
        Gate::Pass => format!("PASS: no total or material group is {t} % slower"),
        Gate::Regressed => format!("REGRESSED: slower by {t} % or more beyond the spread"),
        Gate::Inconclusive => {
            format!("INCONCLUSIVE: the spread hides whether a change reaches {t} %")
        }
    }
}

/// The files of a run, for the header.
fn files_line(files: &[PathBuf]) -> String {
    let names: Vec<String> = files
        .iter()
        .take(4)
        .map(|f| {
            f.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let more = files.len().saturating_sub(names.len());
    let tail = if more > 0 {
        format!(", +{more} more")
    } else {
        String::new()
    };
    format!("{} file(s): {}{tail}", files.len(), names.join(", "))
}

const HEADER: [&str; 12] = [
    "Category",
    "Name",
    "A total",
    "B total",
    "Change",
    "Change %",
    "Noise",
    "A median",
    "B median",
    "Median %",
    "Spread A/B",
    "Verdict",
];

/// A change as the table's cells.
fn cells(c: &Change) -> [String; 12] {
    let name = if c.name.is_empty() {
        "(total)".to_owned()
    } else {
        c.name.clone()
    };
    let sign = if c.delta >= 0.0 { "+" } else { "-" };
    [
        c.category.label().to_owned(),
        name,
        side_total(c.a),
        side_total(c.b),
        format!("{sign}{}", time(c.delta.abs())),
        pct(c.delta_pct),
        c.noise_pct
            .map_or_else(|| "-".to_owned(), |n| format!("±{n:.1} %")),
        side_median(c.a),
        side_median(c.b),
        pct(c.median_pct),
        format!("{} / {}", side_spread(c.a), side_spread(c.b)),
        c.verdict.word().to_owned(),
    ]
}

fn write_text(c: &Comparison, rows: usize, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(out, "Run A: {}", files_line(&c.a_files))?;
    writeln!(out, "Run B: {}", files_line(&c.b_files))?;
    writeln!(out, "{}", headline(c))?;
    writeln!(out)?;
    writeln!(out, "Totals per rank")?;
    let totals: Vec<[String; 12]> = c.totals.iter().map(cells).collect();
    write_table(out, &HEADER, &totals)?;
    writeln!(out)?;
    let shown = rows.min(c.changes.len());
    writeln!(out, "By impact ({shown} of {} groups)", c.changes.len())?;
    let groups: Vec<[String; 12]> = c.changes.iter().take(rows).map(cells).collect();
    write_table(out, &HEADER, &groups)
}

/// A Markdown cell: pipes and line breaks escaped.
fn md(cell: &str) -> String {
    cell.replace('|', "\\|").replace(['\n', '\r'], " ")
}

fn write_md_table(out: &mut dyn Write, rows: &[[String; 12]]) -> std::io::Result<()> {
    writeln!(out, "| {} |", HEADER.join(" | "))?;
    writeln!(out, "|{}", "---|".repeat(HEADER.len()))?;
    for row in rows {
        let cells: Vec<String> = row.iter().map(|c| md(c)).collect();
        writeln!(out, "| {} |", cells.join(" | "))?;
    }
    Ok(())
}

fn write_markdown(c: &Comparison, rows: usize, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(out, "## {}", md(&headline(c)))?;
    writeln!(out)?;
    writeln!(out, "- Run A: {}", md(&files_line(&c.a_files)))?;
    writeln!(out, "- Run B: {}", md(&files_line(&c.b_files)))?;
    writeln!(out)?;
    writeln!(out, "### Totals per rank")?;
    writeln!(out)?;
    write_md_table(out, &c.totals.iter().map(cells).collect::<Vec<_>>())?;
    writeln!(out)?;
    let shown = rows.min(c.changes.len());
    writeln!(out, "### By impact ({shown} of {} groups)", c.changes.len())?;
    writeln!(out)?;
    write_md_table(
        out,
        &c.changes.iter().take(rows).map(cells).collect::<Vec<_>>(),
    )
}
