//! The recipes (`nsys recipe`) for `sightline.recipe` (python/src/sightline/recipe.py): run
//! here on every core, or file by file elsewhere (each Dask worker computes
//! [`recipe_partial`]s, the client combines them in [`recipe_write`]: the model's
//! `timeline::recipe::partial`). Options come as JSON (the model's `RecipeOptions`).

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use sightline_model::core::{FnSink, Progress, Step};
use sightline_model::timeline::nsys::default_cache_dir;
use sightline_model::timeline::recipe::nsys_analysis::{self, Mode};
use sightline_model::timeline::recipe::partial::{combine, file_partial};
use sightline_model::timeline::recipe::paths::{self, PatternValues};
use sightline_model::timeline::recipe::{
    self, RECIPES, Recipe, RecipeError, RecipeOptions, RecipeOutput, check_options,
};

/// What a run gives Python: the files written (none when no file held data), what was said
/// of files that gave nothing, and how many files could be read.
type Outcome = (Vec<String>, Vec<String>, usize);

/// The recipe named `name` (a `ValueError` listing them otherwise).
fn find(name: &str) -> PyResult<&'static Recipe> {
    recipe::find(name).ok_or_else(|| {
        let names: Vec<&str> = RECIPES.iter().map(|r| r.name).collect();
        PyValueError::new_err(format!(
            "no recipe {name:?}; the recipes are: {}",
            names.join(", ")
        ))
    })
}

/// The options of their JSON (a `ValueError` naming an unknown or mistyped one).
fn options(json: &str) -> PyResult<RecipeOptions> {
    serde_json::from_str(json)
        .map_err(|e| PyValueError::new_err(format!("bad recipe options {json}: {e}")))
}

/// A recipe's error as a `ValueError`.
fn error(e: &RecipeError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// How a run is saved: into which folder, whether it is removed first, the mode recorded and
/// when the run started.
struct Save<'a> {
    dir: &'a Path,
    remove_first: bool,
    mode: Mode,
    start: SystemTime,
}

/// Saves `output`'s tables and `.nsys-analysis` file when a file could be read and one held
/// data ([`nsys_analysis::save`]).
fn write(output: &RecipeOutput, save: &Save<'_>) -> PyResult<Outcome> {
    let mut files = Vec::new();
    if output.readable > 0 && !output.tables.is_empty() {
        let written =
            nsys_analysis::save(output, save.dir, save.remove_first, save.mode, save.start)
                .map_err(|e| PyOSError::new_err(e.to_string()))?;
        files = written
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
    }
    Ok((files, output.warnings.clone(), output.readable))
}

/// The recipes: `(name, what it gives)`.
#[pyfunction]
pub fn recipe_list() -> Vec<(&'static str, &'static str)> {
    RECIPES.iter().map(|r| (r.name, r.about)).collect()
}

/// The exports among `paths` and in the folders among them (`DIR:n`: its first n), as
/// `sightline recipe` takes them.
#[pyfunction]
#[expect(
    clippy::needless_pass_by_value,
    reason = "PyO3 converts the Python paths into owned ones"
)]
pub fn recipe_inputs(paths: Vec<PathBuf>) -> PyResult<Vec<String>> {
    let found = paths::recipe_inputs(&paths, None, &default_cache_dir())
        .map_err(|e| PyFileNotFoundError::new_err(e.to_string()))?;
    Ok(found
        .into_iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect())
}

/// Where recipe `name` writes, as `sightline recipe` decides it: `output` (a pattern) or
/// `NAME-%n`; an existing folder removed first when `force`, else the default used. The
/// folder, whether to remove it first, and the warnings.
#[pyfunction]
#[pyo3(signature = (name, output=None, force=false))]
pub fn recipe_output_dir(
    name: &str,
    output: Option<&str>,
    force: bool,
) -> PyResult<(String, bool, Vec<String>)> {
    let recipe = find(name)?;
    let default = format!("{}-%n", recipe.name);
    let mut said = (false, Vec::new());
    let dir = PatternValues::here(|values| {
        let (dir, remove, warnings) = paths::output_dir(output, &default, force, values);
        said = (remove, warnings);
        dir
    });
    Ok((dir.to_string_lossy().into_owned(), said.0, said.1))
}

/// An error (`ValueError`) when recipe `name` does not exist, does not take one of the
/// options (JSON) or needs one that is missing.
#[pyfunction]
pub fn recipe_check(name: &str, options_json: &str) -> PyResult<()> {
    check_options(find(name)?, &options(options_json)?).map_err(|e| error(&e))
}

/// One file's partial result for recipe `name` (what a Dask worker computes), for
/// [`recipe_combine`]; the GIL released while reading.
#[pyfunction]
#[expect(
    clippy::needless_pass_by_value,
    reason = "PyO3 converts the Python path into an owned one"
)]
pub fn recipe_partial<'py>(
    py: Python<'py>,
    name: &str,
    options_json: &str,
    path: PathBuf,
) -> PyResult<Bound<'py, PyBytes>> {
    let (recipe, options) = (find(name)?, options(options_json)?);
    let bytes = py
        .detach(|| file_partial(recipe, &options, &path))
        .map_err(|e| error(&e))?;
    Ok(PyBytes::new(py, &bytes))
}

/// Writes recipe `name`'s tables over `inputs` into `output`, as `sightline recipe` does:
/// combined from `partials` (`partials[i]` of `inputs[i]`, computed elsewhere by
/// [`recipe_partial`]) when given, else computed here on `threads` threads (every core when
/// `None`), printing the files done on standard error when `progress`.
#[pyfunction]
#[pyo3(signature = (name, options_json, inputs, output, partials=None, threads=None, progress=false, remove_first=false, mode="concurrent", started=None))]
#[expect(
    clippy::needless_pass_by_value,
    reason = "PyO3 converts the Python lists and path into owned ones"
)]
#[expect(
    clippy::too_many_arguments,
    reason = "a Python function's keyword arguments"
)]
pub fn recipe_write(
    py: Python<'_>,
    name: &str,
    options_json: &str,
    inputs: Vec<PathBuf>,
    output: PathBuf,
    partials: Option<Vec<Bound<'_, PyBytes>>>,
    threads: Option<usize>,
    progress: bool,
    remove_first: bool,
    mode: &str,
    started: Option<f64>,
) -> PyResult<Outcome> {
    let (recipe, options) = (find(name)?, options(options_json)?);
    let mode = match mode {
        "none" => Mode::None,
        "concurrent" => Mode::Concurrent,
        "dask-futures" => Mode::DaskFutures,
        other => return Err(PyValueError::new_err(format!("mode {other:?}"))),
    };
    let start = started
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .map_or_else(SystemTime::now, |s| SystemTime::UNIX_EPOCH + s);
    let save = Save {
        dir: &output,
        remove_first,
        mode,
        start,
    };
    let partials: Option<Vec<Vec<u8>>> =
        partials.map(|p| p.iter().map(|b| b.as_bytes().to_vec()).collect());
    py.detach(|| {
        let result = match partials {
            Some(partials) => combine(recipe, &options, &inputs, &partials),
            None => run_here(recipe, &options, &inputs, threads, progress),
        };
        write(&result.map_err(|e| error(&e))?, &save)
    })
}

/// The recipe computed here, on `threads` threads (every core when `None`), printing the
/// files done on standard error when `progress`.
fn run_here(
    recipe: &'static Recipe,
    options: &RecipeOptions,
    inputs: &[PathBuf],
    threads: Option<usize>,
    progress: bool,
) -> Result<RecipeOutput, RecipeError> {
    let threads = threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let sink = FnSink::new(|step: &Step<'_>| {
        if progress {
            eprint!("\r{}: {}/{} files", recipe.name, step.done, step.total);
        }
    });
    let result = recipe::run(recipe, inputs, options, threads, Progress::new(&sink));
    if progress {
        eprintln!();
    }
    result
}
