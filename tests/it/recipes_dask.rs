//! `sightline recipe --mode dask`: the per-file work as Dask tasks through the Python module
//! (`sightline.recipe`), on a local cluster of two worker processes, writes every output file
//! byte for byte as the local mode does: summary, analysis, NVTX, trace and pace recipes over
//! generated rank exports, and over the original reports' exports of the corpus when
//! `../shared` is there. Through the command (`--scheduler ADDRESS`, and `--mode dask-futures`
//! with a cluster of its own) and through `sightline.recipe.run(client=...)`.
//!
//! The Python is the wheel's venv CI makes (`SIGHTLINE_WHEEL_VENV`, `pip install ./python`
//! and `dask[distributed]`); without it, or without Dask in it, the Dask tests skip with a
//! message, and fail instead under `SIGHTLINE_REQUIRE_WHEEL=1`. The partials' own checks
//! (combined as the local mode computes, another version's refused) need no Python.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use sightline::timeline::recipe::partial::{PartialError, combine, file_partial};
use sightline::timeline::recipe::{self, RECIPES, RecipeError, RecipeOptions};

use crate::common::{fixtures, nsys_manifest_exports, sightline_ok};
use crate::python_module::root;

/// The wheel venv's Python when it has Dask's distributed scheduler (`None`, with a skip
/// message, otherwise; a failure under `SIGHTLINE_REQUIRE_WHEEL=1`).
fn dask_python() -> Option<PathBuf> {
    let required = std::env::var_os("SIGHTLINE_REQUIRE_WHEEL").is_some_and(|v| v == "1");
    let skip = |why: String| {
        assert!(!required, "{why}: SIGHTLINE_REQUIRE_WHEEL=1 requires it");
        eprintln!("skipped: {why}");
        None
    };
    let Some(venv) = std::env::var_os("SIGHTLINE_WHEEL_VENV") else {
        return skip("SIGHTLINE_WHEEL_VENV not set (a venv with `pip install ./python`)".into());
    };
    let python = Path::new(&venv).join(if cfg!(windows) {
        "Scripts/python.exe"
    } else {
        "bin/python"
    });
    let check = Command::new(&python)
        .args(["-c", "import sightline.recipe, dask.distributed"])
        .output();
    match check {
        Ok(out) if out.status.success() => Some(python),
        Ok(out) => skip(format!(
            "{} lacks sightline or dask.distributed: {}",
            python.display(),
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .unwrap_or("")
        )),
        Err(e) => skip(format!("{} does not run: {e}", python.display())),
    }
}

/// Three generated ranks (different seeds, one on a later clock) and the expert fixture (the
/// analysis recipes' findings), in `dir`.
fn generated_ranks(dir: &Path) -> Vec<PathBuf> {
    let mut inputs = Vec::new();
    for (rank, sql) in [
        (0, ""),
        (
            1,
            "UPDATE TARGET_INFO_SESSION_START_TIME SET utcEpochNs = utcEpochNs + 1000",
        ),
        (2, ""),
    ] {
        let path = dir.join(format!("rank.{rank}.sqlite"));
        let options = sightline_test_support::nsys::SynthOptions {
            seed: 7 + rank,
            ..Default::default()
        };
        sightline_test_support::nsys::write_export(&path, &options).unwrap();
        rusqlite::Connection::open(&path)
            .unwrap()
            .execute_batch(sql)
            .unwrap();
        inputs.push(path);
    }
    let expert = dir.join("rank.3.sqlite");
    std::fs::copy(fixtures().join("nsys/expert.sqlite"), &expert).unwrap();
    let mut perms = std::fs::metadata(&expert).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(&expert, perms).unwrap();
    inputs.push(expert);
    inputs
}

/// The most frequent value of `sql`'s first column in `export`.
fn most_frequent(export: &Path, sql: &str) -> String {
    rusqlite::Connection::open(export)
        .unwrap()
        .query_row(sql, [], |r| r.get(0))
        .unwrap()
}

/// The runs compared over generated ranks: `(recipe, options as flags)`.
fn generated_runs(first: &Path) -> Vec<(&'static str, Vec<String>)> {
    let kernel = most_frequent(
        first,
        "SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName \
         GROUP BY s.value ORDER BY count(*) DESC, s.value LIMIT 1",
    );
    let range = most_frequent(
        first,
        "SELECT COALESCE(n.text, s.value) AS t FROM NVTX_EVENTS n LEFT JOIN StringIds s \
         ON s.id = n.textId WHERE n.end IS NOT NULL AND t IS NOT NULL \
         GROUP BY t ORDER BY count(*) DESC, t LIMIT 1",
    );
    vec![
        ("cuda_gpu_kern_sum", vec![]),
        ("cuda_gpu_mem_size_sum", vec![]),
        ("cuda_api_sync", vec![]),
        ("gpu_time_util", vec!["--threshold".into(), "80".into()]),
        ("nvtx_sum", vec![]),
        ("nvtx_gpu_proj_trace", vec![]),
        ("cuda_gpu_kern_pace", vec!["--name".into(), kernel]),
        ("nvtx_pace", vec!["--name".into(), range]),
        (
            "cuda_gpu_time_util_map",
            vec!["--bins".into(), "7".into(), "--cumulative".into()],
        ),
    ]
}

/// The runs compared over the corpus' original exports.
fn corpus_runs() -> Vec<(&'static str, Vec<String>)> {
    vec![
        ("cuda_api_sum", vec![]),
        ("cuda_memcpy_async", vec![]),
        ("nvtx_gpu_proj_sum", vec![]),
        ("nvtx_pace", vec!["--name".into(), "A-Task 0".into()]),
    ]
}

/// The corpus' original reports' exports, when `../shared` is there.
fn corpus_originals() -> Option<Vec<PathBuf>> {
    nsys_manifest_exports()?;
    let dir = root().join("../shared/corpus/nsys");
    let mut exports: Vec<PathBuf> = std::fs::read_dir(dir.join("originals"))
        .unwrap()
        .filter_map(|e| {
            Some(
                dir.join(e.ok()?.path().file_stem()?)
                    .with_extension("sqlite"),
            )
        })
        .collect();
    exports.sort();
    assert!(!exports.is_empty(), "no original reports");
    Some(exports)
}

/// `sightline recipe` in the local mode.
fn run_local(recipe: &str, inputs: &[PathBuf], args: &[String], out: &Path) {
    let mut all: Vec<std::ffi::OsString> = vec!["recipe".into(), recipe.into(), "--input".into()];
    all.extend(inputs.iter().map(|p| p.as_os_str().to_owned()));
    all.extend(["--output".into(), out.as_os_str().to_owned()]);
    all.extend(args.iter().map(Into::into));
    sightline_ok(all);
}

/// The files in `dir` and their bytes, by name.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| {
                let e = e.ok()?;
                Some((
                    e.file_name().into_string().ok()?,
                    std::fs::read(e.path()).ok()?,
                ))
            })
            .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// Asserts that `got` holds exactly the tables of `want`, byte for byte, and the
/// `.nsys-analysis` file of a Dask run (named after its folder) telling what `want`'s tells but
/// the mode (`dask-futures`) and times; how many files.
fn same_files(want: &Path, got: &Path) -> usize {
    let is_analysis = |(n, _): &(String, Vec<u8>)| n.ends_with(".nsys-analysis");
    let (mut want_files, mut got_files) = (files(want), files(got));
    let want_analysis = take_analysis(&mut want_files, want);
    let got_analysis = take_analysis(&mut got_files, got);
    assert!(!want_files.iter().any(is_analysis) && !got_files.iter().any(is_analysis));
    let names = |f: &[(String, Vec<u8>)]| f.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&got_files), names(&want_files), "{}", got.display());
    for ((name, a), (_, b)) in want_files.iter().zip(&got_files) {
        assert!(
            a == b,
            "{}: {name} differs from the local mode's",
            got.display()
        );
    }
    assert_eq!(want_analysis["Mode"], "concurrent");
    assert_eq!(got_analysis["Mode"], "dask-futures", "{}", got.display());
    for key in ["RecipeName", "DisplayName", "InputFiles", "Outputs"] {
        assert_eq!(
            got_analysis[key],
            want_analysis[key],
            "{}: {key}",
            got.display()
        );
    }
    want_files.len() + 1
}

/// Removes folder `dir`'s `.nsys-analysis` file (`DIR/DIR.nsys-analysis`) from `files`; its
/// JSON.
fn take_analysis(files: &mut Vec<(String, Vec<u8>)>, dir: &Path) -> serde_json::Value {
    let name = format!(
        "{}.nsys-analysis",
        dir.file_name().unwrap().to_string_lossy()
    );
    let i = files
        .iter()
        .position(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("{}: no {name}", dir.display()));
    serde_json::from_slice(&files.remove(i).1).unwrap()
}

/// The options of a run's flags (for the Python API).
fn options_json(args: &[String]) -> serde_json::Value {
    let mut options = serde_json::Map::new();
    let mut args = args.iter().peekable();
    while let Some(flag) = args.next() {
        let name = flag.trim_start_matches("--").to_owned();
        // A flag without a value (`--cumulative`) is `true`.
        let value = match args.next_if(|v| !v.starts_with("--")) {
            Some(v) => v
                .parse::<i64>()
                .map_or_else(|_| v.clone().into(), Into::into),
            None => true.into(),
        };
        options.insert(name, value);
    }
    options.into()
}

/// One set's runs: each recipe in the local mode, then through `--mode dask --scheduler` and
/// through `sightline.recipe.run(client=...)` on one local cluster of two worker processes
/// (`tests/python/recipes_dask.py`); every output compared. How many files were compared.
fn compare_set(python: &Path, inputs: &[PathBuf], runs: &[(&str, Vec<String>)]) -> usize {
    let out = tempfile::tempdir().unwrap();
    let mut plan = Vec::new();
    for (i, (recipe, args)) in runs.iter().enumerate() {
        let local = out.path().join(format!("{i}.local"));
        run_local(recipe, inputs, args, &local);
        assert!(
            !files(&local).is_empty(),
            "{recipe}: the local mode wrote nothing"
        );
        plan.push(serde_json::json!({
            "recipe": recipe,
            "inputs": inputs,
            "args": args,
            "options": options_json(args),
            "cli": out.path().join(format!("{i}.cli")),
            "api": out.path().join(format!("{i}.api")),
        }));
    }
    let plan_path = out.path().join("plan.json");
    std::fs::write(&plan_path, serde_json::to_vec(&plan).unwrap()).unwrap();
    let script = root().join("tests/python/recipes_dask.py");
    let done = Command::new(python)
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_sightline"))
        .arg(&plan_path)
        .env_remove("PYTHONPATH")
        .output()
        .expect("the venv's python runs");
    let stdout = String::from_utf8_lossy(&done.stdout);
    assert!(
        done.status.success() && stdout.trim_end().ends_with("ok"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let mut compared = 0;
    for (i, (recipe, _)) in runs.iter().enumerate() {
        let local = out.path().join(format!("{i}.local"));
        for mode in ["cli", "api"] {
            let n = same_files(&local, &out.path().join(format!("{i}.{mode}")));
            assert!(n > 0, "{recipe} ({mode})");
            compared += n;
        }
    }
    compared
}

#[test]
fn dask_mode_writes_the_local_modes_files_on_generated_ranks() {
    let Some(python) = dask_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let inputs = generated_ranks(dir.path());
    let runs = generated_runs(&inputs[0]);
    let compared = compare_set(&python, &inputs, &runs);
    assert!(compared >= 2 * runs.len() * 2, "{compared} files compared");
}

#[test]
fn dask_mode_writes_the_local_modes_files_on_the_corpus() {
    let Some(python) = dask_python() else { return };
    let Some(inputs) = corpus_originals() else {
        return;
    };
    let compared = compare_set(&python, &inputs, &corpus_runs());
    assert!(compared >= 12, "{compared} files compared");
}

/// `--mode dask-futures` (NVIDIA's name) without `--scheduler`: a local cluster of `--threads`
/// worker processes of the module's own; the progress line as the local mode prints it.
#[test]
fn dask_futures_mode_makes_its_own_cluster() {
    let Some(python) = dask_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let inputs = generated_ranks(dir.path());
    let local = dir.path().join("local");
    run_local("cuda_api_sum", &inputs, &[], &local);
    let dask = dir.path().join("dask");
    let run = |input: &Path, more: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_sightline"))
            .args([
                "recipe",
                "cuda_api_sum",
                "--mode",
                "dask-futures",
                "--threads",
                "2",
            ])
            .arg("--input")
            .arg(input)
            .arg("--output")
            .arg(&dask)
            .args(more)
            .env("SIGHTLINE_PYTHON", &python)
            .output()
            .unwrap()
    };
    let out = run(dir.path(), &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("\rcuda_api_sum: 4/4 files"), "{stderr}");
    let written = String::from_utf8_lossy(&out.stdout);
    assert_eq!(written.lines().count(), files(&dask).len(), "{written}");
    assert!(same_files(&local, &dask) >= 3);

    // `DIR:n` and `--force-overwrite` as the local mode takes them.
    let first_two = PathBuf::from(format!("{}:2", dir.path().display()));
    let local_two = dir.path().join("local2");
    run_local(
        "cuda_api_sum",
        std::slice::from_ref(&first_two),
        &[],
        &local_two,
    );
    let out = run(&first_two, &["--force-overwrite"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("\rcuda_api_sum: 2/2 files"), "{stderr}");
    assert!(same_files(&local_two, &dask) >= 3);
}

/// Runs `sightline recipe cuda_api_sum --mode dask` over one generated export with `python`
/// and `env`; its exit status and standard error.
fn dask_error(python: &Path, env: &[(&str, &Path)]) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    let export = dir.path().join("a.sqlite");
    sightline_test_support::nsys::write_export(&export, &Default::default()).unwrap();
    let out = dir.path().join("out");
    let mut command = Command::new(env!("CARGO_BIN_EXE_sightline"));
    command
        .args(["recipe", "cuda_api_sum", "--mode", "dask", "--input"])
        .arg(&export)
        .arg("--output")
        .arg(&out)
        .env("SIGHTLINE_PYTHON", python)
        .env_remove("PYTHONPATH");
    for (k, v) in env {
        command.env(k, v);
    }
    let done = command.output().unwrap();
    assert!(!out.exists(), "an error wrote {}", out.display());
    (
        done.status.success(),
        String::from_utf8_lossy(&done.stderr).into_owned(),
    )
}

/// A Python without the module, one without Dask, and no Python: errors saying what to
/// install, no output written.
#[test]
fn a_missing_python_module_or_dask_is_a_clear_error() {
    let (ok, stderr) = dask_error(Path::new("/nonexistent/python3"), &[]);
    assert!(!ok && stderr.contains("no Python was found"), "{stderr}");
    let Some(python) = dask_python() else { return };
    // A bare venv: no sightline, no dask.
    let dir = tempfile::tempdir().unwrap();
    let bare = dir.path().join("bare");
    let made = Command::new(&python)
        .args(["-m", "venv", "--without-pip"])
        .arg(&bare)
        .status()
        .unwrap();
    assert!(made.success());
    let bare_python = bare.join(if cfg!(windows) {
        "Scripts/python.exe"
    } else {
        "bin/python"
    });
    let (ok, stderr) = dask_error(&bare_python, &[]);
    assert!(
        !ok && stderr.contains("cannot import it")
            && stderr.contains("No module named 'sightline'")
            && stderr.contains("pip install ./python"),
        "{stderr}"
    );
    // The same venv seeing the wheel's sightline package alone: no dask.
    let site = dir.path().join("site");
    std::fs::create_dir(&site).unwrap();
    let installed = Command::new(&python)
        .args([
            "-c",
            "import sightline, os; print(os.path.dirname(sightline.__file__))",
        ])
        .output()
        .unwrap();
    let package = String::from_utf8_lossy(&installed.stdout).trim().to_owned();
    copy_dir(Path::new(&package), &site.join("sightline"));
    let (ok, stderr) = dask_error(&bare_python, &[("PYTHONPATH", &site)]);
    assert!(
        !ok && stderr.contains("needs Dask's distributed scheduler")
            && stderr.contains("pip install 'dask[distributed]'"),
        "{stderr}"
    );
}

/// Copies the files of folder `from` into a new folder `to` (not recursing).
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
        }
    }
}

/// The options of a run's flags, for the model.
fn model_options(args: &[String]) -> RecipeOptions {
    serde_json::from_value(options_json(args)).unwrap()
}

/// Every recipe's partials, computed one by one and combined, give the tables the local
/// mode computes (what the Dask mode relies on), here without Python.
#[test]
fn combined_partials_equal_the_local_run_for_every_recipe() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = generated_ranks(dir.path());
    let named = generated_runs(&inputs[0]);
    let mut with_tables = 0;
    for recipe in RECIPES {
        let args = named
            .iter()
            .find(|(r, a)| *r == recipe.name || (recipe.name.ends_with("_pace") && a.is_empty()))
            .map(|(_, a)| a.clone())
            .unwrap_or_default();
        let mut options = model_options(&args);
        if recipe.name.ends_with("_pace") && options.name.is_none() {
            options.name = named.last().unwrap().1.get(1).cloned();
        }
        let local = recipe::run(recipe, &inputs, &options, 2, Default::default()).unwrap();
        // The partials in another order than the inputs': combine sorts them as run does.
        let reversed: Vec<PathBuf> = inputs.iter().rev().cloned().collect();
        let partials: Vec<Vec<u8>> = reversed
            .iter()
            .map(|p| file_partial(recipe, &options, p).unwrap())
            .collect();
        let combined = combine(recipe, &options, &reversed, &partials).unwrap();
        assert_eq!(combined.tables, local.tables, "{}", recipe.name);
        assert_eq!(combined.warnings, local.warnings, "{}", recipe.name);
        assert_eq!(combined.readable, local.readable, "{}", recipe.name);
        with_tables += usize::from(!local.tables.is_empty());
    }
    assert!(with_tables >= 12, "{with_tables} recipes gave tables");
}

/// A partial of another Sightline version, recipe, options or file, a damaged one, and one
/// partial too few: errors naming the file, never tables.
#[test]
fn foreign_or_damaged_partials_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = generated_ranks(dir.path());
    let input = &inputs[..1];
    let kern = recipe::find("cuda_gpu_kern_sum").unwrap();
    let api = recipe::find("cuda_api_sum").unwrap();
    let rows = RecipeOptions {
        rows: Some(3),
        ..Default::default()
    };
    let gaps = recipe::find("gpu_gaps").unwrap();
    let good = file_partial(kern, &RecipeOptions::default(), &input[0]).unwrap();
    let file = input[0].display().to_string();
    // Another version: the JSON's `sightline` changed.
    let json = zstd::decode_all(good.as_slice()).unwrap();
    let mut value: serde_json::Value = serde_json::from_slice(&json).unwrap();
    value["sightline"] = "0.0.1".into();
    let old = zstd::encode_all(serde_json::to_vec(&value).unwrap().as_slice(), 3).unwrap();
    let refused = |recipe, options: &RecipeOptions, partials: &[Vec<u8>]| match combine(
        recipe, options, input, partials,
    ) {
        Err(RecipeError::Partial(e)) => e,
        other => panic!("not refused: {other:?}"),
    };
    let e = refused(kern, &RecipeOptions::default(), &[old]);
    assert!(matches!(e, PartialError::Version { .. }), "{e}");
    assert!(
        e.to_string().contains("Sightline 0.0.1") && e.to_string().contains(&file),
        "{e}"
    );
    let e = refused(api, &RecipeOptions::default(), std::slice::from_ref(&good));
    assert!(e.to_string().contains("recipe cuda_gpu_kern_sum"), "{e}");
    let with_rows = file_partial(gaps, &rows, &input[0]).unwrap();
    let e = refused(gaps, &RecipeOptions::default(), &[with_rows]);
    assert!(e.to_string().contains("other options"), "{e}");
    let e = refused(
        kern,
        &RecipeOptions::default(),
        &[good[..good.len() / 2].to_vec()],
    );
    assert!(
        matches!(e, PartialError::Decode { .. }) && e.to_string().contains(&file),
        "{e}"
    );
    let e = refused(kern, &RecipeOptions::default(), &[]);
    assert!(matches!(e, PartialError::Count { .. }), "{e}");
    // For another file: the partial of input 1 given as that of input 0.
    let other = file_partial(kern, &RecipeOptions::default(), &inputs[1]).unwrap();
    let e = refused(kern, &RecipeOptions::default(), &[other]);
    assert!(e.to_string().contains("computed for file"), "{e}");
    // A bomb: a few kilobytes decoding to 300 MiB of zeros is refused, not decoded.
    let mut bomb = Vec::new();
    zstd::stream::copy_encode(std::io::repeat(0).take(300 << 20), &mut bomb, 1).unwrap();
    assert!(bomb.len() < 1 << 20, "{} bytes", bomb.len());
    let e = refused(kern, &RecipeOptions::default(), &[bomb]);
    assert!(e.to_string().contains("decodes to more than"), "{e}");
}
