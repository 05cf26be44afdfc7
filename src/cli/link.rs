//! `sightline link TIMELINE REPORT [--json]`: which timeline kernels each result of an Nsight
//! Compute report can be (`sightline_model::link`): per result its index, kernel name, the
//! matched kernel(s) — event id, start, stream, process — and the certainty, with the criteria
//! that held.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::link::{LinkSet, link_files};
use crate::ncu::Report;
use crate::pyjson::write_string;
use crate::timeline::nsys;

use super::stats::export_for;

/// Arguments of `sightline link`.
#[derive(clap::Args, Debug, Clone)]
pub struct LinkArgs {
    /// The Nsight Systems export (.sqlite; .nsys-rep/.qdrep are exported with `nsys` first).
    pub timeline: PathBuf,
    /// The Nsight Compute report (.ncu-rep, .ncu-repz) of the same program.
    pub report: PathBuf,
    /// Print JSON: one object per result.
    #[arg(long)]
    pub json: bool,
    /// The nsys executable used to export .nsys-rep/.qdrep reports.
    #[arg(long, value_name = "PATH")]
    pub nsys: Option<PathBuf>,
}

/// Reads both files, matches and prints. Exit code 0 (whatever the certainty of the matches).
pub fn run(args: &LinkArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let export = export_for(&args.timeline, args.nsys.as_deref())?;
    let timeline = nsys::load(&export)?;
    let report = Report::open(&args.report)?;
    let set = link_files(&export, &timeline, &report)?;
    if args.json {
        write_json(&set, out)?;
    } else {
        write_text(&set, out)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn kernel_name(set: &LinkSet, result: usize) -> &str {
    set.profiled
        .iter()
        .find(|p| p.index == result)
        .map_or("", |p| {
            if p.demangled.is_empty() {
                p.function.as_str()
            } else {
                p.demangled.as_str()
            }
        })
}

fn write_text(set: &LinkSet, out: &mut dyn Write) -> std::io::Result<()> {
    if let Some(line) = &set.links.filter.command_line {
        writeln!(out, "ncu command line: {line}")?;
    }
    let dim = |d: Option<[u64; 3]>| d.map_or("?".to_string(), |[x, y, z]| format!("{x}×{y}×{z}"));
    for link in &set.links.results {
        writeln!(
            out,
            "result {}: {} — {}",
            link.result,
            kernel_name(set, link.result),
            link.certainty.as_str()
        )?;
        if let Some(p) = set.profiled.iter().find(|p| p.index == link.result) {
            writeln!(
                out,
                "  profiled: process {}, stream {}, grid {}, block {}",
                p.pid.map_or("?".to_string(), |p| p.to_string()),
                p.stream.map_or("?".to_string(), |s| s.to_string()),
                dim(p.grid),
                dim(p.block)
            )?;
        }
        for c in &link.candidates {
            let k = &set.kernels[c.kernel];
            let held: Vec<String> = c.held.iter().map(ToString::to_string).collect();
            writeln!(
                out,
                "  event {} at {} ns, stream {}, process {} (score {}: {})",
                c.event.0,
                k.start,
                k.stream,
                k.pid.map_or("?".to_string(), |p| p.to_string()),
                c.score,
                held.join(", ")
            )?;
        }
        if link.more > 0 {
            writeln!(out, "  … and {} more candidates", link.more)?;
        }
    }
    let certain = set.links.certain_count();
    writeln!(
        out,
        "{} results, {certain} matched with certainty, {} timeline kernels",
        set.links.results.len(),
        set.kernels.len()
    )
}

fn write_json(set: &LinkSet, mut out: &mut dyn Write) -> std::io::Result<()> {
    write!(out, "[")?;
    for (i, link) in set.links.results.iter().enumerate() {
        if i > 0 {
            write!(out, ",")?;
        }
        write!(out, "\n  {{\"result\": {}, \"kernel\": ", link.result)?;
        write_string(&mut out, kernel_name(set, link.result))?;
        write!(out, ", \"certainty\": ")?;
        write_string(&mut out, link.certainty.as_str())?;
        write!(out, ", \"matches\": [")?;
        for (j, c) in link.candidates.iter().enumerate() {
            let k = &set.kernels[c.kernel];
            if j > 0 {
                write!(out, ", ")?;
            }
            write!(
                out,
                "{{\"event\": {}, \"start_ns\": {}, \"stream\": {}, \"pid\": {}, \"score\": {}, \"criteria\": [",
                c.event.0,
                k.start,
                k.stream,
                k.pid.map_or("null".to_string(), |p| p.to_string()),
                c.score
            )?;
            for (n, h) in c.held.iter().enumerate() {
                if n > 0 {
                    write!(out, ", ")?;
                }
                write_string(&mut out, &h.to_string())?;
            }
            write!(out, "]}}")?;
        }
        write!(out, "], \"more\": {}}}", link.more)?;
    }
    writeln!(out, "\n]")
}
