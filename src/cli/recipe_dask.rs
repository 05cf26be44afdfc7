//! `sightline recipe NAME ... --mode dask [--scheduler ADDRESS]`: the recipe's per-file work
//! as Dask tasks, through Sightline's Python module in the user's Python
//! (`python -m sightline.recipe`, python/src/sightline/recipe.py): one task per file on the
//! cluster's workers (each with the module installed), the partials combined and written by
//! that Python process. Dask runs the cluster; this file only finds the Python and checks it.

use std::ffi::OsString;
use std::io::{ErrorKind, Write};
use std::process::{Command, ExitCode, Stdio};

use super::recipe::RecipeArgs;

/// What the Python must import, printing the module's version.
const CHECK: &str = "import sightline, sightline.recipe; print(sightline.__version__)";

/// The Pythons tried, in order, when `SIGHTLINE_PYTHON` is not set.
const PYTHONS: [&str; 2] = ["python3", "python"];

/// Runs the recipe on a Dask cluster through the user's Python; the files written go to `out`.
pub fn run(args: &RecipeArgs, name: &str, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    if args.scheduler.is_some() && args.threads.is_some() {
        anyhow::bail!("--threads sets the local cluster's workers: not with --scheduler");
    }
    let python = python()?;
    let mut command = Command::new(&python);
    command.args(["-m", "sightline.recipe", name, "--mode", "dask"]);
    command.arg("--input").args(&args.input);
    // The pattern as given: the module expands it as the command does.
    if let Some(output) = &args.output {
        command.args(["--output", output]);
    }
    if args.force_overwrite {
        command.arg("--force-overwrite");
    }
    if let Some(scheduler) = &args.scheduler {
        command.args(["--scheduler", scheduler]);
    }
    if let Some(threads) = args.threads {
        command.args(["--workers", &threads.to_string()]);
    }
    command.args(options(args));
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| anyhow::anyhow!("cannot run {}: {e}", python.to_string_lossy()))?;
    out.write_all(&child.stdout)?;
    Ok(match child.status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        // Ended by a signal (Ctrl-C): the module wrote nothing.
        None => ExitCode::from(130),
    })
}

/// The recipe's options given, as the module's flags and their values.
fn options(args: &RecipeArgs) -> Vec<String> {
    let valued = [
        ("start", args.start.map(|v| v.to_string())),
        ("end", args.end.map(|v| v.to_string())),
        ("nvtx", args.nvtx.clone()),
        ("rows", args.rows.map(|v| v.to_string())),
        ("gap", args.gap.map(|v| v.to_string())),
        ("threshold", args.threshold.map(|v| v.to_string())),
        ("chunks", args.chunks.map(|v| v.to_string())),
        ("name", args.name_of.clone()),
        ("bins", args.bins.map(|v| v.to_string())),
    ];
    let mut flags: Vec<String> = valued
        .into_iter()
        .filter_map(|(flag, value)| Some([format!("--{flag}"), value?]))
        .flatten()
        .collect();
    if args.cumulative {
        flags.push("--cumulative".to_owned());
    }
    flags
}

/// The Python to run the module with: `SIGHTLINE_PYTHON`, else the first of `python3` and
/// `python` on the `PATH`; an error saying what to install when it lacks the module or has
/// another Sightline version's.
fn python() -> anyhow::Result<OsString> {
    let candidates: Vec<OsString> = match std::env::var_os("SIGHTLINE_PYTHON") {
        Some(python) => vec![python],
        None => PYTHONS.iter().map(OsString::from).collect(),
    };
    for python in &candidates {
        let checked = match Command::new(python).args(["-c", CHECK]).output() {
            Ok(checked) => checked,
            Err(e) if e.kind() == ErrorKind::NotFound => continue,
            Err(e) => anyhow::bail!("cannot run {}: {e}", python.to_string_lossy()),
        };
        let shown = python.to_string_lossy();
        if !checked.status.success() {
            let stderr = String::from_utf8_lossy(&checked.stderr);
            let why = stderr.lines().rev().find(|l| !l.trim().is_empty());
            anyhow::bail!(
                "--mode dask runs Sightline's Python module, but {shown} cannot import it \
                 ({}): install it in that Python (`pip install ./python` from Sightline's \
                 sources), or set SIGHTLINE_PYTHON to a Python that has it",
                why.unwrap_or("no message")
            );
        }
        let version = String::from_utf8_lossy(&checked.stdout).trim().to_owned();
        let ours = env!("CARGO_PKG_VERSION");
        if version != ours {
            anyhow::bail!(
                "{shown} has Sightline's Python module {version}, but this is Sightline {ours}: \
                 install the same version (`pip install ./python`)"
            );
        }
        return Ok(python.clone());
    }
    anyhow::bail!(
        "--mode dask runs Sightline's Python module, but no Python was found: set \
         SIGHTLINE_PYTHON, or put python3 on the PATH"
    )
}
