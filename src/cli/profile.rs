//! `sightline profile FILE`: the CPU profile of an export's samples — the headless form of the
//! timeline's CPU profile panel. One thread (`--thread TID`) or all, a time range (`--from`,
//! `--to`, ns as the timeline counts them) or all; the Top-Down or Bottom-Up tree (to
//! `--depth` levels, children with at least `--min-percent` of the samples) or the Flat list
//! (the first `--limit` functions), as text or CSV.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

use crate::timeline::FrameId;
use crate::timeline::nsys::{self};
use crate::timeline::{CallTree, StackCounts, Timeline, TrackId, TrackKind, flat};

use super::common::csv_field;

/// Which profile view.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// Callers above callees, from the threads' entry points.
    TopDown,
    /// The functions samples ended in, each with its callers below it.
    BottomUp,
    /// Every function with its self and total samples.
    Flat,
}

/// Arguments of `sightline profile`.
#[derive(clap::Args, Debug, Clone)]
pub struct ProfileArgs {
    /// The Nsight Systems export (.sqlite; .nsys-rep/.qdrep are exported with nsys first).
    pub file: PathBuf,
    /// The view.
    #[arg(long, value_enum, default_value = "flat")]
    pub view: View,
    /// Only the samples of this thread (its OS thread id).
    #[arg(long, value_name = "TID")]
    pub thread: Option<u64>,
    /// Only samples from this time (ns, as the timeline counts them).
    #[arg(long, value_name = "NS", allow_hyphen_values = true)]
    pub from: Option<i64>,
    /// Only samples up to this time (ns).
    #[arg(long, value_name = "NS", allow_hyphen_values = true)]
    pub to: Option<i64>,
    /// Levels of a tree to print.
    #[arg(long, default_value_t = 8)]
    pub depth: u32,
    /// Tree nodes with less than this share of the samples are left out.
    #[arg(long, default_value_t = 1.0)]
    pub min_percent: f64,
    /// Functions of the flat list to print.
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
    /// CSV instead of aligned text.
    #[arg(long)]
    pub csv: bool,
    /// The nsys executable used to export .nsys-rep/.qdrep reports.
    #[arg(long, value_name = "PATH")]
    pub nsys: Option<PathBuf>,
    /// Print how long loading, counting and building took on stderr.
    #[arg(long)]
    pub timing: bool,
}

/// Loads the export and prints the profile.
pub fn run(args: &ProfileArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let export = super::stats::export_for(&args.file, args.nsys.as_deref())?;
    let started = std::time::Instant::now();
    let tl = nsys::load(&export)?;
    let loaded = started.elapsed();
    let tracks = thread_tracks(args, &tl)?;
    let (t0, t1) = tl
        .time_range()
        .with_context(|| format!("{}: the timeline is empty", args.file.display()))?;
    let (t0, t1) = (args.from.unwrap_or(t0), args.to.unwrap_or(t1));
    let counted = std::time::Instant::now();
    let counts = tl.sample_counts(t0, t1, &tracks);
    let count_time = counted.elapsed();
    let built = std::time::Instant::now();
    let rows = view_rows(args, &tl, &counts);
    if args.timing {
        eprintln!(
            "timing: loaded {} events in {:.3} s; {} samples counted in {:.3} s; view built in {:.3} s",
            tl.event_count(),
            loaded.as_secs_f64(),
            counts.samples,
            count_time.as_secs_f64(),
            built.elapsed().as_secs_f64()
        );
    }
    if counts.samples == 0 {
        eprintln!("{}: no CPU samples in this scope", args.file.display());
    }
    let header = ["Function", "Module", "Self", "Self %", "Total", "Total %"];
    let total = counts.samples;
    let cells: Vec<[String; 6]> = rows
        .into_iter()
        .map(|r| {
            [
                r.label,
                r.module,
                r.self_count.to_string(),
                percent(r.self_count, total),
                r.total.to_string(),
                percent(r.total, total),
            ]
        })
        .collect();
    if args.csv {
        writeln!(out, "{}", header.join(","))?;
        for row in &cells {
            let quoted: Vec<String> = row.iter().map(|c| csv_field(c)).collect();
            writeln!(out, "{}", quoted.join(","))?;
        }
    } else {
        writeln!(out, "{} samples", total)?;
        let widths: Vec<usize> = (0..6)
            .map(|c| {
                cells
                    .iter()
                    .map(|r| r[c].chars().count())
                    .chain([header[c].len()])
                    .max()
                    .unwrap_or(0)
                    .min(if c < 2 { 100 } else { 12 })
            })
            .collect();
        let line = |cells: &[&str]| -> String {
            cells
                .iter()
                .enumerate()
                .map(|(c, v)| {
                    let v: String = v.chars().take(widths[c]).collect();
                    if c < 2 {
                        format!("{v:<w$}", w = widths[c])
                    } else {
                        format!("{v:>w$}", w = widths[c])
                    }
                })
                .collect::<Vec<_>>()
                .join("  ")
                .trim_end()
                .to_owned()
        };
        writeln!(out, "{}", line(&header))?;
        for row in &cells {
            let refs: Vec<&str> = row.iter().map(String::as_str).collect();
            writeln!(out, "{}", line(&refs))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The thread tracks whose id is `--thread` (none without it: every thread is counted).
fn thread_tracks(args: &ProfileArgs, tl: &Timeline) -> anyhow::Result<Vec<TrackId>> {
    Ok(match args.thread {
        None => Vec::new(),
        Some(tid) => {
            let threads: Vec<TrackId> = tl
                .tracks
                .iter()
                .enumerate()
                .filter(|(_, t)| t.kind == TrackKind::Thread && t.key == tid)
                .map(|(i, _)| TrackId(i as u32))
                .collect();
            if threads.is_empty() {
                anyhow::bail!("{}: no thread {tid}", args.file.display());
            }
            threads
        }
    })
}

/// The rows of the view asked for: the flat list, or the top-down or bottom-up tree.
fn view_rows(args: &ProfileArgs, tl: &Timeline, counts: &StackCounts) -> Vec<Row> {
    match args.view {
        View::Flat => flat_rows(tl, counts, args.limit),
        View::TopDown | View::BottomUp => {
            let tree = if args.view == View::TopDown {
                CallTree::top_down(&tl.stacks, counts)
            } else {
                CallTree::bottom_up(&tl.stacks, counts)
            };
            tree_rows(tl, &tree, args.depth, args.min_percent)
        }
    }
}

/// One printed row.
struct Row {
    label: String,
    module: String,
    self_count: u64,
    total: u64,
}

fn names(tl: &Timeline, frame: Option<FrameId>) -> (String, String) {
    match frame.and_then(|f| tl.stacks.frame(f)) {
        Some(f) => {
            let symbol = tl.name(f.symbol);
            let symbol = if f.unresolved {
                format!("{symbol} (unresolved)")
            } else {
                symbol.to_owned()
            };
            (symbol, tl.name(f.module).to_owned())
        }
        None => ("[no call stack]".to_owned(), String::new()),
    }
}

fn flat_rows(tl: &Timeline, counts: &StackCounts, limit: usize) -> Vec<Row> {
    flat(&tl.stacks, counts)
        .into_iter()
        .take(limit)
        .map(|r| {
            let (label, module) = names(tl, Some(r.frame));
            Row {
                label,
                module,
                self_count: r.self_count,
                total: r.total,
            }
        })
        .collect()
}

/// The tree depth first, indented two spaces a level.
fn tree_rows(tl: &Timeline, tree: &CallTree, depth: u32, min_percent: f64) -> Vec<Row> {
    let all = tree.nodes[0].total.max(1) as f64;
    let mut out = Vec::new();
    let mut todo: Vec<u32> = tree.nodes[0].children.iter().rev().copied().collect();
    while let Some(n) = todo.pop() {
        let node = &tree.nodes[n as usize];
        if node.total as f64 * 100.0 / all < min_percent {
            continue;
        }
        let (label, module) = names(tl, node.frame);
        out.push(Row {
            label: format!(
                "{}{label}",
                "  ".repeat(node.depth.saturating_sub(1) as usize)
            ),
            module,
            self_count: node.self_count,
            total: node.total,
        });
        if node.depth < depth {
            todo.extend(node.children.iter().rev());
        }
    }
    out
}

fn percent(n: u64, of: u64) -> String {
    if of == 0 {
        return String::new();
    }
    format!("{:.1}", n as f64 * 100.0 / of as f64)
}
