//! `sightline recipe`: NVIDIA's multi-report recipes (`nsys recipe`) over Nsight Systems
//! exports (`timeline::recipe::RECIPES`), writing the recipe's tables into an output folder as
//! NVIDIA's recipe writes them, files read in parallel on every core.
//!
//! Beside its tables it writes the recipe's `.nsys-analysis` file, and it takes its inputs and
//! output as NVIDIA's recipes do (`DIR:n`, output patterns, `--force-overwrite`:
//! `timeline::recipe::paths`). `sightline recipe diff` compares two output folders
//! (`recipe_diff.rs`).
//!
//! ```text
//! sightline recipe cuda_gpu_kern_sum --input ranks/ --output kern_sum/
//! sightline recipe cuda_api_sum --input ranks/:4 --output 'api-%n'
//! sightline recipe --list
//! sightline recipe cuda_gpu_kern_sum --input ranks/ --output kern_sum/ --mode dask --scheduler tcp://host:8786
//! ```
//!
//! `--mode dask` runs the per-file work as Dask tasks through the Python module
//! ([`super::recipe_dask`]).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::SystemTime;

use crate::core::{FnSink, Progress};
use crate::timeline::recipe::nsys_analysis::{self, Mode};
use crate::timeline::recipe::paths::{self, PatternValues};
use crate::timeline::recipe::{self, RECIPES, RecipeOptions};

/// Arguments of `sightline recipe`.
#[derive(clap::Args, Debug, Clone)]
#[command(after_help = after_help())]
pub struct RecipeArgs {
    /// The recipe (`--list` lists them), or `diff`.
    #[arg(required_unless_present_any = ["list", "print_compat_recipes"])]
    pub name: Option<String>,
    /// The exports (.sqlite) or reports (.nsys-rep, .qdrep: their export beside them, else
    /// exported with nsys from the PATH) to read, or folders of them (`DIR:n`: the first n);
    /// for `diff`, the two output folders to compare (`DIR1 - DIR2`).
    #[arg(long, num_args = 1.., value_name = "FILE|DIR[:n]", required_unless_present_any = ["list", "print_compat_recipes"])]
    pub input: Vec<PathBuf>,
    /// The folder to write into (created; default `RECIPE-%n`, `RECIPE-diff-%n` for diff):
    /// `%q{VAR}` an environment variable, `%h` the host name, `%p` the process id, `%n` the
    /// smallest positive integer giving a name not taken, `%%` a `%`.
    #[arg(long, value_name = "DIR")]
    pub output: Option<String>,
    /// Remove the output folder first when it exists (without it, an existing folder is left
    /// alone and the default folder written instead, as NVIDIA does).
    #[arg(long)]
    pub force_overwrite: bool,
    /// How files are read: `none`, one at a time; `concurrent` (default), in parallel here;
    /// `dask`, one Dask task per file through Sightline's Python module (SIGHTLINE_PYTHON, else
    /// python3 on the PATH).
    #[arg(long, value_enum, value_name = "MODE")]
    pub mode: Option<ModeArg>,
    /// How many files to read at once in `concurrent` mode (default: every core); in `dask`
    /// mode without --scheduler, the local cluster's worker processes.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// --mode dask: the Dask scheduler's address (default: a local cluster of processes).
    #[arg(long, value_name = "ADDRESS")]
    pub scheduler: Option<String>,
    /// List the recipes (`--help` lists the options each takes).
    #[arg(long)]
    pub list: bool,
    /// diff: list the recipes whose outputs diff compares.
    #[arg(long)]
    pub print_compat_recipes: bool,
    /// diff: values whose magnitude is below N become 0.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub tolerance: Option<i64>,
    /// diff: leave out the rows whose values are all 0.
    #[arg(long)]
    pub drop: bool,
    /// diff: also write the tables as CSV.
    #[arg(long)]
    pub csv: bool,
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

/// `--mode` (NVIDIA's modes; `local` and `dask` are Sightline's names).
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModeArg {
    /// One file at a time.
    None,
    /// Files in parallel here, every core (or `--threads`).
    #[value(alias = "local")]
    Concurrent,
    /// One Dask task per file (on --scheduler's cluster, else a local one).
    #[value(alias = "dask-futures")]
    Dask,
}

impl ModeArg {
    /// The mode the recipe records.
    pub fn mode(self) -> Mode {
        match self {
            ModeArg::None => Mode::None,
            ModeArg::Concurrent => Mode::Concurrent,
            ModeArg::Dask => Mode::DaskFutures,
        }
    }
}

/// The recipes and their options, after `--help`.
fn after_help() -> String {
    let mut text = String::from(
        "Recipes (and the options each takes besides --input, --output, --threads):\n",
    );
    for r in RECIPES {
        text.push_str(&format!("  {:<24}{}\n", r.name, options_of(r)));
    }
    text.push_str("  diff                    --tolerance --drop --csv --print-compat-recipes\n");
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
    if args.print_compat_recipes || args.name.as_deref() == Some("diff") {
        return super::recipe_diff::run(args, out);
    }
    let name = args.name.as_deref().unwrap_or_default();
    let Some(recipe) = recipe::find(name) else {
        let names: Vec<&str> = RECIPES.iter().map(|r| r.name).collect();
        anyhow::bail!("no recipe {name:?}; the recipes are: {}", names.join(", "));
    };
    for (given, flag) in [
        (args.tolerance.is_some(), "tolerance"),
        (args.drop, "drop"),
        (args.csv, "csv"),
    ] {
        anyhow::ensure!(!given, "recipe {name} does not take --{flag} (diff does)");
    }
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
    let (mode, threads) = mode_and_threads(args)?;
    if mode == Mode::DaskFutures {
        recipe::check_options(recipe, &options)?;
        return super::recipe_dask::run(args, name, out);
    }
    anyhow::ensure!(args.scheduler.is_none(), "--scheduler needs --mode dask");
    let cache = crate::timeline::nsys::default_cache_dir();
    let inputs = paths::recipe_inputs(&args.input, None, &cache)?;
    let (dir, overwrite) = output_dir(args, &format!("{name}-%n"));
    let sink = FnSink::new(|step: &crate::core::Step<'_>| {
        eprint!("\r{}: {}/{} files", name, step.done, step.total);
    });
    let start = SystemTime::now();
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
    for path in nsys_analysis::save(&result, &dir, overwrite, mode, start)? {
        writeln!(out, "{}", path.display())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The mode and the number of worker threads (`none`: one).
fn mode_and_threads(args: &RecipeArgs) -> anyhow::Result<(Mode, usize)> {
    let mode = args.mode.map_or(Mode::Concurrent, ModeArg::mode);
    let cores = || std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    match mode {
        Mode::None => {
            anyhow::ensure!(
                args.threads.is_none_or(|t| t == 1),
                "--mode none reads one file at a time: --threads does not apply"
            );
            Ok((mode, 1))
        }
        Mode::Concurrent => Ok((mode, args.threads.unwrap_or_else(cores))),
        // The threads are the local cluster's processes (`recipe_dask`).
        Mode::DaskFutures => Ok((mode, args.threads.unwrap_or(0))),
    }
}

/// The output folder (`--output`, else `default`, both patterns) and whether it is to be
/// removed first (`--force-overwrite`); the warnings printed.
pub(crate) fn output_dir(args: &RecipeArgs, default: &str) -> (PathBuf, bool) {
    let mut warnings = Vec::new();
    let mut overwrite = false;
    let dir = PatternValues::here(|values| {
        let (dir, remove, w) = paths::output_dir(
            args.output.as_deref(),
            default,
            args.force_overwrite,
            values,
        );
        overwrite = remove;
        warnings = w;
        dir
    });
    for w in warnings {
        eprintln!("warning: {w}");
    }
    (dir, overwrite)
}
