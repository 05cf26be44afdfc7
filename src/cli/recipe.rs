//! `sightline recipe`: NVIDIA's multi-report recipes (`nsys recipe`) over Nsight Systems
//! exports — for now the summary recipes (`timeline::recipe::RECIPES`) — writing the recipe's
//! tables into an output folder as NVIDIA's recipe writes them, files read in parallel on
//! every core.
//!
//! ```text
//! sightline recipe cuda_gpu_kern_sum --input ranks/ --output kern_sum/
//! sightline recipe --list
//! ```

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::core::{FnSink, Progress};
use crate::timeline::recipe::{self, RECIPES};
use crate::timeline::{TimelineFileKind, timeline_inputs};

/// Arguments of `sightline recipe`.
#[derive(clap::Args, Debug, Clone)]
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
    /// How many files to read at once (default: every core).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// List the recipes.
    #[arg(long)]
    pub list: bool,
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
    let result = recipe::run(recipe, &inputs, threads, Progress::new(&sink))?;
    eprintln!();
    for w in &result.warnings {
        eprintln!("{w}");
    }
    let dir = args.output.clone().unwrap_or_default();
    for path in result.write(&dir)? {
        writeln!(out, "{}", path.display())?;
    }
    Ok(ExitCode::SUCCESS)
}
