//! `sightline recipe`: NVIDIA's multi-report recipes (`nsys recipe`) over Nsight Systems
//! exports (`timeline::recipe::RECIPES`), writing the recipe's tables into an output folder as
//! NVIDIA's recipe writes them, files read in parallel on every core.
//!
//! ```text
//! sightline recipe cuda_gpu_kern_sum --input ranks/ --output kern_sum/
//! sightline recipe --list
//! sightline recipe cuda_gpu_kern_sum --input ranks/ --output kern_sum/ --mode dask --scheduler tcp://host:8786
//! ```
//!
//! `--mode dask` runs the per-file work as Dask tasks through the Python module
//! ([`super::recipe_dask`]).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::core::{FnSink, Progress};
use crate::timeline::recipe::{self, RECIPES, RecipeOptions};
use crate::timeline::{TimelineFileKind, timeline_inputs};

/// Arguments of `sightline recipe`.
#[derive(clap::Args, Debug, Clone)]
#[command(after_help = after_help())]
pub struct RecipeArgs {
    /// The recipe (`--list` lists them).
    #[arg(required_unless_present = "list")]
    pub name: Option<String>,
    /// The exports (.sqlite) to read, or folders of them.
    #[arg(long, num_args = 1.., value_name = "FILE|DIR", required_unless_present = "list")]
    pub input: Vec<PathBuf>,
    /// The folder to write the recipe's tables into (created when missing).
    #[arg(long, value_name = "DIR", required_unless_present = "list")]
    pub output: Option<PathBuf>,
    /// How many files to read at once (default: every core); with --mode dask and no
    /// --scheduler, the local cluster's worker processes.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Where the files are read: here, or by Dask tasks (one per file) through Sightline's
    /// Python module (SIGHTLINE_PYTHON, else python3 on the PATH).
    #[arg(long, value_enum, default_value_t = Mode::Local)]
    pub mode: Mode,
    /// --mode dask: the Dask scheduler's address (default: a local cluster of processes).
    #[arg(long, value_name = "ADDRESS")]
    pub scheduler: Option<String>,
    /// List the recipes (`--help` lists the options each takes).
    #[arg(long)]
    pub list: bool,
    /// Only what ends at or after this time (ns, the export's clock).
    #[arg(long, value_name = "NS", allow_negative_numbers = true)]
    pub start: Option<i64>,
    /// Only what starts before this time (ns).
    #[arg(long, value_name = "NS", allow_negative_numbers = true)]
    pub end: Option<i64>,
    /// Only what overlaps the first instance of this NVTX range (in this domain, when given).
    #[arg(long, value_name = "RANGE[@DOMAIN]")]
    pub nvtx: Option<String>,
    /// At most this many rows per input file.
    #[arg(long, value_name = "N")]
    pub rows: Option<usize>,
    /// gpu_gaps: the shortest gap listed, in milliseconds (default 500).
    #[arg(long, value_name = "MS")]
    pub gap: Option<f64>,
    /// gpu_time_util: list the chunks used less than this percentage of their time (default 50).
    #[arg(long, value_name = "PERCENT", allow_negative_numbers = true)]
    pub threshold: Option<i64>,
    /// gpu_time_util: the number of equal chunks of each GPU's time (default 30).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub chunks: Option<u32>,
    /// The pace recipes: the NVTX range (its text) or kernel (its short name) to follow.
    #[arg(long = "name", value_name = "NAME")]
    pub name_of: Option<String>,
    /// The heat maps (`*_util_map`): the number of bins of time (default 30).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub bins: Option<u32>,
    /// cuda_gpu_time_util_map, nccl_gpu_time_util_map: add up the kernels' times in each bin
    /// (over 100 % when kernels run at once) instead of joining them.
    #[arg(long)]
    pub cumulative: bool,
}

/// Where a recipe reads its files.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Here, on `--threads` threads.
    Local,
    /// Dask tasks, one per file (NVIDIA's name `dask-futures` too).
    #[value(alias = "dask-futures")]
    Dask,
}

/// The recipes and their options, after `--help`.
fn after_help() -> String {
    let mut text = String::from(
        "Recipes (and the options each takes besides --input, --output, --threads):\n",
    );
    for r in RECIPES {
        text.push_str(&format!("  {:<24}{}\n", r.name, options_of(r)));
    }
    text
}

/// A recipe's options as flags (`--start --end --rows`), or `-`.
fn options_of(r: &recipe::Recipe) -> String {
    let flags: Vec<String> = r
        .options
        .iter()
        .map(|o| format!("--{}", o.flag()))
        .collect();
    if flags.is_empty() {
        "-".into()
    } else {
        flags.join(" ")
    }
}

/// Runs the recipe (or lists them).
pub fn run(args: &RecipeArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    if args.list {
        for r in RECIPES {
            writeln!(out, "{:<24}{}", r.name, r.about)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let name = args.name.as_deref().unwrap_or_default();
    let Some(recipe) = recipe::find(name) else {
        let names: Vec<&str> = RECIPES.iter().map(|r| r.name).collect();
        anyhow::bail!("no recipe {name:?}; the recipes are: {}", names.join(", "));
    };
    let options = RecipeOptions {
        start: args.start,
        end: args.end,
        nvtx: args.nvtx.clone(),
        rows: args.rows,
        gap: args.gap,
        threshold: args.threshold,
        chunks: args.chunks,
        name: args.name_of.clone(),
        bins: args.bins,
        cumulative: args.cumulative,
    };
    if args.mode == Mode::Dask {
        recipe::check_options(recipe, &options)?;
        return super::recipe_dask::run(args, name, out);
    }
    if args.scheduler.is_some() {
        anyhow::bail!("--scheduler needs --mode dask");
    }
    let inputs: Vec<PathBuf> = timeline_inputs(&args.input)?
        .into_iter()
        .filter(|p| TimelineFileKind::of(p) == Some(TimelineFileKind::NsysExport))
        .collect();
    let threads = args.threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let sink = FnSink::new(|step: &crate::core::Step<'_>| {
        eprint!("\r{}: {}/{} files", name, step.done, step.total);
    });
    let result = recipe::run(recipe, &inputs, &options, threads, Progress::new(&sink))?;
    eprintln!();
    for w in &result.warnings {
        eprintln!("{w}");
    }
    if result.readable == 0 {
        anyhow::bail!(
            "{name}: none of the {} input files could be read",
            inputs.len()
        );
    }
    if result.tables.is_empty() {
        eprintln!("{name}: no input holds data for the recipe: no output written");
        return Ok(ExitCode::SUCCESS);
    }
    let dir = args.output.clone().unwrap_or_default();
    for path in result.write(&dir)? {
        writeln!(out, "{}", path.display())?;
    }
    Ok(ExitCode::SUCCESS)
}
