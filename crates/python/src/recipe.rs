//! The recipes (`nsys recipe`) for `sightline.recipe` (python/src/sightline/recipe.py): run
//! here on every core, or file by file elsewhere (each Dask worker computes
//! [`recipe_partial`]s, the client combines them in [`recipe_write`]: the model's
//! `timeline::recipe::partial`). Options come as JSON (the model's `RecipeOptions`).

use std::path::{Path, PathBuf};

use pyo3::exceptions::{PyFileNotFoundError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use sightline_model::core::{FnSink, Progress, Step};
use sightline_model::timeline::recipe::partial::{combine, file_partial};
use sightline_model::timeline::recipe::{
    self, RECIPES, Recipe, RecipeError, RecipeOptions, RecipeOutput, check_options,
};
use sightline_model::timeline::{TimelineFileKind, timeline_inputs};

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

/// Writes `output`'s tables into `dir` when a file could be read and one held data.
fn write(output: &RecipeOutput, dir: &Path) -> PyResult<Outcome> {
    let mut files = Vec::new();
    if output.readable > 0 && !output.tables.is_empty() {
        let written = output
            .write(dir)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
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

/// The exports among `paths` and in the folders among them, as `sightline recipe` takes them.
#[pyfunction]
#[expect(
    clippy::needless_pass_by_value,
    reason = "PyO3 converts the Python paths into owned ones"
)]
pub fn recipe_inputs(paths: Vec<PathBuf>) -> PyResult<Vec<String>> {
    let found = timeline_inputs(&paths).map_err(|e| PyFileNotFoundError::new_err(e.to_string()))?;
    Ok(found
        .into_iter()
        .filter(|p| TimelineFileKind::of(p) == Some(TimelineFileKind::NsysExport))
        .map(|p| p.to_string_lossy().into_owned())
        .collect())
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
#[pyo3(signature = (name, options_json, inputs, output, partials=None, threads=None, progress=false))]
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
) -> PyResult<Outcome> {
    let (recipe, options) = (find(name)?, options(options_json)?);
    let partials: Option<Vec<Vec<u8>>> =
        partials.map(|p| p.iter().map(|b| b.as_bytes().to_vec()).collect());
    py.detach(|| {
        let result = match partials {
            Some(partials) => combine(recipe, &options, &inputs, &partials),
            None => run_here(recipe, &options, &inputs, threads, progress),
        };
        write(&result.map_err(|e| error(&e))?, &output)
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
