//! `sightline analyze`: the expert rules on an Nsight Systems export — Sightline's Python
//! timeline rules (its own reproduce `nsys analyze`'s), as CSV (byte-compatible with
//! `nsys analyze --format csv`), JSON or an aligned table.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;

use crate::rules::{RuleEngine, TimelineOutcome, TimelineRunOptions};
use crate::timeline::nsys::stats::{self, ReportOutcome};
use crate::timeline::nsys::trace::Trace;

use super::stats::{StatsFormat, export_for, write_csv, write_json, write_table};

/// Arguments of `sightline analyze`.
#[derive(clap::Args, Debug, Clone)]
pub struct AnalyzeArgs {
    /// The export (.sqlite) or report (.nsys-rep, .qdrep: exported with `nsys` first).
    #[arg(required_unless_present = "help_rules")]
    pub file: Option<PathBuf>,
    /// Rule, as nsys takes it: NAME[:OPTION=VALUE]... (`gpu_gaps:gap=100`); repeat or separate
    /// with commas. Default: every rule.
    #[arg(long = "rule", value_name = "NAME")]
    pub rules: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: StatsFormat,
    /// Write PREFIX_RULE.csv files (as `nsys analyze --output`).
    #[arg(long, value_name = "PREFIX")]
    pub output: Option<PathBuf>,
    /// Also load timeline rules from this folder (a file hides a bundled rule of its name;
    /// repeatable).
    #[arg(long = "rules-folder", value_name = "DIR")]
    pub rules_folder: Vec<PathBuf>,
    /// List the rules, their options and what they look for, and exit.
    #[arg(long)]
    pub help_rules: bool,
    /// Time budget of one rule call, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    pub timeout: f64,
    /// Print each rule's time on stderr.
    #[arg(long)]
    pub timing: bool,
    /// The nsys executable used to export .nsys-rep/.qdrep reports.
    #[arg(long, value_name = "PATH")]
    pub nsys: Option<PathBuf>,
}

/// `text` wrapped at `width` columns, each line indented by `indent` spaces.
fn wrap(text: &str, indent: usize, width: usize) -> String {
    let pad = " ".repeat(indent);
    let mut lines = vec![pad.clone()];
    for word in text.split_whitespace() {
        let line = lines.last_mut().map(|l| (l.len(), l));
        if let Some((len, line)) = line {
            if len > indent && len + 1 + word.len() > width {
                lines.push(format!("{pad}{word}"));
            } else {
                if len > indent {
                    line.push(' ');
                }
                line.push_str(word);
            }
        }
    }
    lines.join("\n")
}

/// Runs the command, writing to `out`. Skipped rules are noted on stderr, as nsys does; a rule
/// that fails makes the exit code 1 (the others still print).
pub fn run(args: &AnalyzeArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let timeout = args.timeout;
    if !(timeout.is_finite() && timeout > 0.0 && timeout <= 86_400.0) {
        anyhow::bail!("--timeout must be a number of seconds between 0 and 86400, got {timeout}");
    }
    let requests: Vec<String> = args
        .rules
        .iter()
        .flat_map(|r| r.split(','))
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .map(str::to_string)
        .collect();
    let engine = RuleEngine::start().context("starting the rule engine")?;
    let options = TimelineRunOptions {
        folders: args.rules_folder.clone(),
        requests: (!requests.is_empty()).then_some(requests),
        timeout: std::time::Duration::from_secs_f64(timeout),
        ..TimelineRunOptions::bundled()
    };
    let trace = match (&args.file, args.help_rules) {
        (Some(file), false) => {
            let export = export_for(file, args.nsys.as_deref())?;
            let trace = Trace::open(&export)?;
            // Tables with damaged pages: the rules see the rows that read.
            for w in &trace.warnings {
                eprintln!("{w}");
            }
            trace
        }
        _ => Trace::empty(),
    };
    let output = engine.run_timeline(Arc::new(trace), options)?;
    for e in &output.load_errors {
        eprintln!("{}: {}", e.rule, e.message);
    }
    if args.help_rules {
        for rule in &output.rules {
            writeln!(out, "{} -- {}\n", rule.name, rule.title)?;
            for (name, default) in &rule.options {
                writeln!(out, "    {name} (default {default})")?;
            }
            for paragraph in rule.description.split("\n\n") {
                writeln!(out, "\n{}", wrap(paragraph, 4, 96))?;
            }
            writeln!(out)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mut failed = false;
    let mut results: Vec<(String, ReportOutcome)> = Vec::new();
    let mut stems: Vec<String> = Vec::new();
    for finding in &output.findings {
        if args.timing {
            eprintln!(
                "{}: {:.1} ms",
                finding.request,
                finding.elapsed.as_secs_f64() * 1e3
            );
        }
        let outcome = match &finding.outcome {
            TimelineOutcome::Table { table, .. } => ReportOutcome::Table(table.clone()),
            TimelineOutcome::Skipped(m) => ReportOutcome::Skipped(m.clone()),
            TimelineOutcome::Error(e) => {
                eprintln!("{}: ERROR: {e}", finding.request);
                failed = true;
                continue;
            }
        };
        results.push((finding.request.clone(), outcome));
        stems.push(finding.request.replace(':', "_"));
    }
    if let Some(prefix) = &args.output {
        for ((name, outcome), stem) in results.iter().zip(&stems) {
            match outcome {
                ReportOutcome::Table(t) if !t.rows.is_empty() => {
                    let path = PathBuf::from(format!("{}_{stem}.csv", prefix.display()));
                    std::fs::write(&path, stats::to_csv(t))
                        .with_context(|| format!("writing {}", path.display()))?;
                    eprintln!("{name}: wrote {}", path.display());
                }
                ReportOutcome::Table(_) => eprintln!("{name}: no rows"),
                ReportOutcome::Skipped(m) => eprintln!("{name}: SKIPPED: {m}"),
            }
        }
    } else if let Some(file) = &args.file {
        match args.format {
            StatsFormat::Csv => write_csv(&results, out)?,
            StatsFormat::Json => write_json(file, &results, out)?,
            StatsFormat::Table => write_table(&results, out)?,
        }
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
