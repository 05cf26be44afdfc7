//! `sightline recipe diff` against NVIDIA's `nsys recipe diff` (Nsight Systems 2023.4), the
//! `.nsys-analysis` file every recipe writes, and the input and output options NVIDIA's
//! recipes take (`DIR:n`, output patterns, `--force-overwrite`, `--mode`).
//!
//! - `fixtures/nsys/recipes_diff/` (see its README): NVIDIA's diff of Sightline's recipe
//!   outputs over generated exports, one folder per run; Sightline's diff of the same folders
//!   must write the same files, CSV line for line, Parquet schema, index and values.
//! - Over the corpus (`../shared/corpus/nsys/recipes/`), Sightline's diff of each NVIDIA output
//!   folder with itself: NVIDIA's rows, every value 0, nothing left with `--drop`; and of two
//!   sets with different numbers of files: the error NVIDIA gives.
//! - [`same_analysis_file`]: Sightline's `.nsys-analysis` against NVIDIA's (times and paths
//!   aside), called by every test comparing a recipe's outputs with NVIDIA's.

use std::path::{Path, PathBuf};

use crate::common::{fixtures, sightline_ok, skip_shared};
use crate::recipes_nvtx::{same_outputs, write_cuts};

/// The statistical recipes Sightline's diff fixtures use.
const SUMMARY_RECIPES: [&str; 5] = [
    "cuda_api_sum",
    "cuda_gpu_kern_sum",
    "cuda_gpu_mem_size_sum",
    "cuda_gpu_mem_time_sum",
    "osrt_sum",
];

/// Runs `sightline recipe ARGS...`, which must fail; its stderr.
fn recipe_fails(args: &[&std::ffi::OsStr]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sightline"))
        .arg("recipe")
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "succeeded: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

/// Runs Sightline's `recipe` over `inputs` with `args` into `out` (which must not exist).
fn recipe(name: &str, inputs: &[PathBuf], out: &Path, args: &[&str]) {
    let mut all: Vec<std::ffi::OsString> = vec!["recipe".into(), name.into(), "--input".into()];
    all.extend(inputs.iter().map(|p| p.as_os_str().to_owned()));
    all.extend(["--output".into(), out.as_os_str().to_owned()]);
    all.extend(args.iter().map(Into::into));
    sightline_ok(all);
}

/// Generated exports `stem.sqlite` of `(stem, events, seed)` in `dir` (2 threads, 4 streams).
fn generated(dir: &Path, files: &[(&str, u64, u64)]) -> Vec<PathBuf> {
    std::fs::create_dir_all(dir).unwrap();
    files
        .iter()
        .map(|&(stem, events, seed)| {
            let path = dir.join(format!("{stem}.sqlite"));
            let options = sightline_test_support::nsys::SynthOptions {
                events,
                threads: 2,
                streams: 4,
                seed,
            };
            sightline_test_support::nsys::write_export(&path, &options).unwrap();
            path
        })
        .collect()
}

/// Sightline's recipe outputs the fixtures' diffs compare, `sets/SET/RECIPE` (the sets of
/// `fixtures/nsys/recipes_diff/README.md`).
fn recipe_sets(root: &Path) -> PathBuf {
    let a = generated(&root.join("in/A"), &[("r1", 1000, 1), ("r2", 1000, 2)]);
    let b = generated(&root.join("in/B"), &[("r1", 1200, 3), ("r2", 1200, 4)]);
    std::fs::create_dir_all(root.join("in/cuts")).unwrap();
    let cuts = write_cuts(&root.join("in/cuts"));
    let sets = root.join("sets");
    for name in SUMMARY_RECIPES {
        recipe(name, &a, &sets.join("A").join(name), &[]);
        recipe(name, &b, &sets.join("B").join(name), &[]);
    }
    for name in ["nvtx_sum", "nvtx_gpu_proj_sum"] {
        recipe(name, &cuts, &sets.join("cuts").join(name), &[]);
        let window = ["--start", "1509521", "--end", "2200000"];
        recipe(name, &cuts, &sets.join("window").join(name), &window);
    }
    let late = ["--start", "2900000", "--end", "3100000"];
    recipe("nvtx_sum", &cuts, &sets.join("late/nvtx_sum"), &late);
    std::fs::create_dir_all(root.join("in/mpi")).unwrap();
    let mpi = sightline_test_support::nsys_mpi::write_mpi_run(&root.join("in/mpi")).unwrap();
    recipe("mpi_sum", &mpi, &sets.join("mpi/mpi_sum"), &[]);
    let window = ["--start", "3000", "--end", "9000"];
    recipe("mpi_sum", &mpi, &sets.join("mpiwin/mpi_sum"), &window);
    sets
}

#[test]
fn diff_equals_nvidias_on_sightlines_recipe_outputs() {
    let root = tempfile::tempdir().unwrap();
    let sets = recipe_sets(root.path());
    let cases_dir = fixtures().join("nsys/recipes_diff");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&cases_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    let mut compared = 0;
    for case in &cases {
        let label = case.file_name().unwrap().to_string_lossy().into_owned();
        let name = label.split('@').next().unwrap();
        let read = |f: &str| std::fs::read_to_string(case.join(f)).unwrap();
        let pair: Vec<PathBuf> = read("inputs")
            .lines()
            .map(|set| sets.join(set).join(name))
            .collect();
        let out = root.path().join("diff").join(&label);
        let mut args: Vec<std::ffi::OsString> = vec!["recipe".into(), "diff".into()];
        args.push("--input".into());
        args.extend(pair.iter().map(|p| p.as_os_str().to_owned()));
        args.extend(["--output".into(), out.as_os_str().to_owned()]);
        args.extend(read("args").lines().map(Into::into));
        sightline_ok(args);
        let n = same_outputs(case, &out);
        assert!(n >= 2, "{label}: {n} files");
        compared += n;
        same_diff_analysis_file(case, &out, &pair);
    }
    assert!(cases.len() >= 10, "{} cases", cases.len());
    eprintln!(
        "{compared} diff outputs equal NVIDIA's in {} runs",
        cases.len()
    );
}

/// Sightline's diff `.nsys-analysis` (in `got`) has the keys and values of NVIDIA's (in `want`),
/// the folders compared and the files written aside.
fn same_diff_analysis_file(want: &Path, got: &Path, pair: &[PathBuf]) {
    let (nvidia_path, our_path) = (want.join("out.nsys-analysis"), analysis_file(got));
    let (nvidia, ours) = (json(&nvidia_path), json(&our_path));
    assert_eq!(keys(&our_path), keys(&nvidia_path), "{}", got.display());
    assert_eq!(ours["DisplayName"], nvidia["DisplayName"]);
    let dirs: Vec<PathBuf> = ours["DiffDirs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| PathBuf::from(d.as_str().unwrap()))
        .collect();
    assert_eq!(dirs, pair, "DiffDirs");
    assert_eq!(outputs(&ours), written(got), "{}: Outputs", got.display());
    assert!(is_py_datetime(ours["EndTime"].as_str().unwrap()));
}

/// The one `.nsys-analysis` file in `dir`, named after it.
fn analysis_file(dir: &Path) -> PathBuf {
    let name = format!(
        "{}.nsys-analysis",
        dir.file_name().unwrap().to_string_lossy()
    );
    let path = dir.join(name);
    assert!(path.is_file(), "{}: missing", path.display());
    path
}

fn json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The top-level keys of the JSON file at `path`, in the file's order (lines indented by 4).
fn keys(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .filter_map(|l| l.strip_prefix("    \""))
        .filter_map(|l| l.split_once("\":").map(|(k, _)| k.to_owned()))
        .collect()
}

/// The file names `Outputs` lists.
fn outputs(v: &serde_json::Value) -> Vec<String> {
    let mut names: Vec<String> = v["Outputs"].as_object().unwrap().keys().cloned().collect();
    names.sort();
    names
}

/// The files in `dir` but its `.nsys-analysis` file, by name.
fn written(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".nsys-analysis"))
        .collect();
    names.sort();
    names
}

/// `2026-12-01 23:55:39.336005`, as Python prints a `datetime`.
fn is_py_datetime(text: &str) -> bool {
    let shape = "dddd-dd-dd dd:dd:dd.dddddd";
    text.len() == shape.len()
        && text.chars().zip(shape.chars()).all(
            |(c, s)| {
                if s == 'd' { c.is_ascii_digit() } else { c == s }
            },
        )
}

/// Sightline's `.nsys-analysis` file in `got` against NVIDIA's in `want` (when NVIDIA wrote
/// one): the same keys in order, versions, recipe and display names and mode; times as Python
/// prints them; the inputs Sightline was given (`inputs`), in the order NVIDIA lists them; the
/// files Sightline wrote as outputs.
pub(crate) fn same_analysis_file(want: &Path, got: &Path, inputs: &[PathBuf]) {
    let nvidia_path = want.join("out.nsys-analysis");
    if !nvidia_path.exists() {
        return;
    }
    let our_path = analysis_file(got);
    let (nvidia, ours) = (json(&nvidia_path), json(&our_path));
    assert_eq!(keys(&our_path), keys(&nvidia_path), "{}", got.display());
    for key in [
        "RecipeJsonVersion",
        "RecipeRuntimeVersion",
        "RecipeName",
        "DisplayName",
        "Mode",
    ] {
        assert_eq!(ours[key], nvidia[key], "{}: {key}", want.display());
    }
    for key in ["StartTime", "EndTime"] {
        assert!(is_py_datetime(ours[key].as_str().unwrap()), "{key}");
    }
    let stems = |v: &serde_json::Value| -> Vec<String> {
        v["InputFiles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| stem(Path::new(p.as_str().unwrap())))
            .collect()
    };
    let mut given: Vec<String> = inputs.iter().map(|p| stem(p)).collect();
    given.sort();
    let nvidias: Vec<String> = stems(&nvidia)
        .into_iter()
        .filter(|s| given.contains(s))
        .collect();
    assert_eq!(stems(&ours), nvidias, "{}: InputFiles", want.display());
    assert_eq!(given, nvidias, "{}: inputs NVIDIA lists", want.display());
    let absolute = ours["InputFiles"].as_array().unwrap().iter();
    assert!(
        absolute
            .map(|p| Path::new(p.as_str().unwrap()))
            .all(Path::is_absolute)
    );
    assert_eq!(outputs(&ours), written(got), "{}: Outputs", got.display());
}

fn stem(p: &Path) -> String {
    p.file_stem().unwrap().to_string_lossy().into_owned()
}

/// The corpus's recipe output sets, when `../shared` is there.
fn corpus_sets() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/nsys/recipes");
    if !dir.join("all").is_dir() {
        skip_shared(format!("{} is missing", dir.display()));
        return None;
    }
    Some(dir)
}

#[test]
fn diff_of_an_nvidia_output_with_itself_is_zero_row_for_row() {
    let Some(corpus) = corpus_sets() else {
        return;
    };
    let compat = sightline_ok(["recipe", "diff", "--print-compat-recipes"]);
    let root = tempfile::tempdir().unwrap();
    let mut compared = 0;
    for set in ["all", "originals"] {
        for name in compat.lines().filter_map(|l| l.strip_prefix("  ")) {
            let dir = corpus.join(set).join(name);
            if !dir.join("rank_stats.parquet").exists() {
                continue;
            }
            let out = root.path().join(format!("{set}-{name}"));
            let dir = dir.as_os_str();
            sightline_ok([
                "recipe".as_ref(),
                "diff".as_ref(),
                "--csv".as_ref(),
                "--input".as_ref(),
                dir,
                dir,
                "--output".as_ref(),
                out.as_os_str(),
            ]);
            for table in ["all_stats", "rank_stats"] {
                compared += zero_rows(
                    &corpus.join(set).join(name).join(format!("{table}.csv")),
                    &out.join(format!("{table}.csv")),
                );
            }
            let dropped = root.path().join(format!("{set}-{name}-drop"));
            sightline_ok([
                "recipe".as_ref(),
                "diff".as_ref(),
                "--csv".as_ref(),
                "--drop".as_ref(),
                "--input".as_ref(),
                dir,
                dir,
                "--output".as_ref(),
                dropped.as_os_str(),
            ]);
            // Only rows with a missing value are left (a missing value is not 0).
            let text = std::fs::read_to_string(dropped.join("all_stats.csv")).unwrap();
            for row in text.lines().skip(1).map(crate::events_view::csv_cells) {
                assert!(
                    row.iter().any(String::is_empty),
                    "{name}: row left: {row:?}"
                );
            }
        }
    }
    assert!(compared >= 500, "{compared} rows compared");
    // Sets of 27 files with API calls and 6: NVIDIA stops ("must contain the same number of ranks").
    let (all, originals) = (
        corpus.join("all/cuda_api_sum"),
        corpus.join("originals/cuda_api_sum"),
    );
    let out = root.path().join("ranks");
    let stderr = recipe_fails(&[
        "diff".as_ref(),
        "--input".as_ref(),
        all.as_os_str(),
        originals.as_os_str(),
        "--output".as_ref(),
        out.as_os_str(),
    ]);
    assert!(
        stderr.contains("same number of ranks") && stderr.contains("has 6"),
        "{stderr}"
    );
    assert!(!out.exists());
}

/// Every row of the diff CSV `got` is the row of NVIDIA's CSV `want` of the same key (and
/// file) with every number 0, in the same order; NVIDIA's text columns but `File` are gone.
fn zero_rows(want: &Path, got: &Path) -> usize {
    let cells = |p: &Path| -> Vec<Vec<String>> {
        let text = std::fs::read_to_string(p).unwrap();
        text.lines().map(crate::events_view::csv_cells).collect()
    };
    let (want, got) = (cells(want), cells(got));
    assert_eq!(got[0][0], want[0][0], "the index first");
    assert_eq!(got.len(), want.len(), "rows");
    let file = want[0].iter().position(|h| h == "File");
    for (w, g) in want.iter().zip(&got).skip(1) {
        assert_eq!(g[0], w[0], "key");
        let numbers = if let Some(f) = file {
            assert_eq!(g[1], w[f], "File");
            &g[2..]
        } else {
            &g[1..]
        };
        assert!(
            numbers
                .iter()
                .all(|v| v.is_empty() || v == "0" || v == "0.0"),
            "{g:?}"
        );
    }
    want.len() - 1
}

#[test]
fn diff_refuses_folders_it_cannot_compare() {
    let root = tempfile::tempdir().unwrap();
    let inputs = generated(&root.path().join("in"), &[("r1", 300, 1)]);
    let (api, kern) = (root.path().join("api"), root.path().join("kern"));
    recipe("cuda_api_sum", &inputs, &api, &[]);
    recipe("cuda_gpu_kern_sum", &inputs, &kern, &[]);
    let gaps = root.path().join("gaps");
    recipe("nvtx_gpu_proj_trace", &inputs, &gaps, &[]);
    let out = root.path().join("out");
    let diff = |a: &Path, b: &Path| {
        recipe_fails(&[
            "diff".as_ref(),
            "--input".as_ref(),
            a.as_os_str(),
            b.as_os_str(),
            "--output".as_ref(),
            out.as_os_str(),
        ])
    };
    let stderr = diff(&api, &kern);
    assert!(
        stderr.contains("same recipe") && stderr.contains("cuda_gpu_kern_sum"),
        "{stderr}"
    );
    let stderr = diff(&gaps, &gaps);
    assert!(
        stderr.contains("nvtx_gpu_proj_trace") && stderr.contains("cannot be diffed"),
        "{stderr}"
    );
    let stderr = diff(&api, &root.path().join("nowhere"));
    assert!(stderr.contains("nowhere: no such folder"), "{stderr}");
    let stderr = diff(&api, &root.path().join("in"));
    assert!(stderr.contains("no .nsys-analysis"), "{stderr}");
    std::fs::remove_file(kern.join("rank_stats.parquet")).unwrap();
    let kern2 = root.path().join("kern2");
    recipe("cuda_gpu_kern_sum", &inputs, &kern2, &[]);
    let stderr = diff(&kern2, &kern);
    assert!(
        stderr.contains("rank_stats.parquet") && stderr.contains("missing"),
        "{stderr}"
    );
    let stderr = recipe_fails(&["diff".as_ref(), "--input".as_ref(), api.as_os_str()]);
    assert!(stderr.contains("two output folders"), "{stderr}");
    assert!(!out.exists());
    let list = sightline_ok(["recipe", "diff", "--print-compat-recipes"]);
    assert!(
        list.contains("  nvtx_sum\n") && !list.contains("gpu_gaps"),
        "{list}"
    );
}

#[test]
fn inputs_and_outputs_are_taken_as_nvidias_recipes_take_them() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("in");
    generated(
        &dir,
        &[("b", 300, 1), ("a", 300, 2), ("C", 300, 3), ("d", 300, 4)],
    );
    let cwd = root.path().join("cwd");
    std::fs::create_dir_all(&cwd).unwrap();
    let run = |args: &[&str]| -> std::process::Output {
        std::process::Command::new(env!("CARGO_BIN_EXE_sightline"))
            .current_dir(&cwd)
            .env("SIGHTLINE_TEST_VAR", "bar")
            .arg("recipe")
            .args(args)
            .output()
            .unwrap()
    };
    let limited = format!("{}:2", dir.display());
    // The first two in byte order, as NVIDIA takes them: C, a.
    let out = run(&[
        "cuda_api_sum",
        "--input",
        &limited,
        "--output",
        "o-%q{SIGHTLINE_TEST_VAR}-%n-%%",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let made = cwd.join("o-bar-1-%");
    let analysis = json(&made.join("o-bar-1-%.nsys-analysis"));
    let stems: Vec<String> = analysis["InputFiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| stem(Path::new(p.as_str().unwrap())))
        .collect();
    assert_eq!(stems, ["C", "a"]);
    assert_eq!(analysis["Mode"], "concurrent");
    // The folder exists: without --force-overwrite, the default folder RECIPE-%n instead.
    std::fs::write(made.join("mine"), "kept").unwrap();
    let out = run(&[
        "cuda_api_sum",
        "--input",
        &limited,
        "--output",
        "o-bar-1-%",
        "--mode",
        "none",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.contains("--force-overwrite"),
        "{stderr}"
    );
    assert!(made.join("mine").exists());
    let fallback = json(&cwd.join("cuda_api_sum-1/cuda_api_sum-1.nsys-analysis"));
    assert_eq!(fallback["Mode"], "none");
    // With it, the folder is emptied first.
    let out = run(&[
        "cuda_api_sum",
        "--input",
        &limited,
        "--output",
        "o-bar-1-%",
        "--force-overwrite",
    ]);
    assert!(out.status.success());
    assert!(!made.join("mine").exists() && made.join("rank_stats.parquet").exists());
    // No --output: RECIPE-%n, the next free number; %p the process id, %h the host name.
    assert!(run(&["cuda_api_sum", "--input", &limited]).status.success());
    assert!(cwd.join("cuda_api_sum-2/rank_stats.csv").exists());
    assert!(
        run(&["cuda_api_sum", "--input", &limited, "--output", "p-%p-%h"])
            .status
            .success()
    );
    let named: Vec<String> = std::fs::read_dir(&cwd)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("p-"))
        .collect();
    assert_eq!(named.len(), 1, "{named:?}");
    assert!(
        named[0][2..]
            .split('-')
            .next()
            .unwrap()
            .parse::<u32>()
            .is_ok(),
        "{named:?}"
    );
}

#[test]
fn a_limit_on_a_file_and_unknown_modes_are_refused() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("in");
    generated(&dir, &[("a", 300, 1)]);
    let limited = format!("{}:1", dir.display());
    let run = |args: &[&str]| -> std::process::Output {
        std::process::Command::new(env!("CARGO_BIN_EXE_sightline"))
            .current_dir(root.path())
            .arg("recipe")
            .args(args)
            .output()
            .unwrap()
    };
    let file = format!("{}:1", dir.join("a.sqlite").display());
    let out = run(&["cuda_api_sum", "--input", &file]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("':n' syntax cannot be used for files"));
    assert!(
        !run(&["cuda_api_sum", "--input", &limited, "--mode", "bogus"])
            .status
            .success()
    );
    let out = run(&[
        "cuda_api_sum",
        "--input",
        &limited,
        "--mode",
        "none",
        "--threads",
        "2",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("--mode none"),
        "{stderr}"
    );
}
