//! `sightline recipe diff`: NVIDIA's `nsys recipe diff`, the difference of two output folders of
//! the same statistical recipe (`DIR1 - DIR2`: `timeline::recipe::diff`), written as NVIDIA's
//! diff writes it: `all_stats.parquet`, `rank_stats.parquet` (and `.csv` with `--csv`) and the
//! `.nsys-analysis` file, in `RECIPE-diff-%n` unless `--output` says.
//!
//! ```text
//! sightline recipe diff --input before/ after/ --csv --tolerance 100 --drop
//! sightline recipe diff --print-compat-recipes
//! ```

use std::io::Write;
use std::process::ExitCode;
use std::time::SystemTime;

use super::recipe::{RecipeArgs, output_dir};
use crate::timeline::recipe::diff::{COMPATIBLE, DiffOptions, diff};
use crate::timeline::recipe::nsys_analysis::{absolute, diff_json, file_name, outputs_of};
use crate::timeline::recipe::{paths, write_tables};

/// Runs `recipe diff` (or lists the recipes it compares).
pub fn run(args: &RecipeArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    if args.print_compat_recipes {
        writeln!(out, "The following recipes are compatible:\n")?;
        for name in COMPATIBLE {
            writeln!(out, "  {name}")?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let [first, second] = args.input.as_slice() else {
        anyhow::bail!(
            "diff takes two output folders (--input DIR1 DIR2), not {}",
            args.input.len()
        );
    };
    let recipe_only = [
        (args.start.is_some(), "start"),
        (args.end.is_some(), "end"),
        (args.nvtx.is_some(), "nvtx"),
        (args.rows.is_some(), "rows"),
        (args.gap.is_some(), "gap"),
        (args.threshold.is_some(), "threshold"),
        (args.chunks.is_some(), "chunks"),
        (args.name_of.is_some(), "name"),
    ];
    if let Some((_, flag)) = recipe_only.iter().find(|(given, _)| *given) {
        anyhow::bail!("diff does not take --{flag}");
    }
    let options = DiffOptions {
        tolerance: args.tolerance,
        drop: args.drop,
        csv: args.csv,
    };
    let result = diff([first.as_path(), second.as_path()], &options)?;
    let (dir, overwrite) = output_dir(args, &format!("{}-diff-%n", result.recipe));
    if overwrite {
        paths::remove_output(&dir)?;
    }
    let written = write_tables(&result.tables, &dir)?;
    let analysis = dir.join(file_name(&dir));
    let json = diff_json(
        SystemTime::now(),
        &[absolute(first), absolute(second)],
        &outputs_of(&written),
    );
    std::fs::write(&analysis, json).map_err(|e| anyhow::anyhow!("{}: {e}", analysis.display()))?;
    for path in written.iter().chain([&analysis]) {
        writeln!(out, "{}", path.display())?;
    }
    Ok(ExitCode::SUCCESS)
}
