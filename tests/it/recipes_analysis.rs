//! `sightline recipe` for the analysis recipes (`cuda_api_sync`, `cuda_memcpy_async`,
//! `cuda_memcpy_sync`, `cuda_memset_sync`, `dx12_mem_ops`, `gpu_gaps`, `gpu_time_util`)
//! against NVIDIA's `nsys recipe` (Nsight Systems 2023.4): every `analysis.parquet` — schema,
//! pandas index, every row and value in order — over
//!
//! - the corpus exports (`../shared/corpus/nsys/recipes/{all,originals}/`: the exports the
//!   recipe read, as `recipe.log` says; where it wrote nothing, Sightline must write nothing);
//! - `fixtures/nsys/expert.sqlite`, alone, with options, and twice under two names
//!   (`fixtures/nsys/golden/recipes/`: NVIDIA's outputs, made with
//!   `../shared/tools/nsys-recipe-oracle/run.sh`; the corpus has no memsets of pinned or managed
//!   memory and no DX12, the fixture has both).

use std::path::{Path, PathBuf};

use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;

use crate::common::{fixtures, nsys_manifest_exports, sightline_ok};

/// The files `recipe.log` says the recipe failed to export (so read nothing from).
fn failed(log: &str) -> Vec<String> {
    log.lines()
        .filter_map(|l| l.split("Failed to export inputs/").nth(1))
        .filter_map(|rest| rest.split(".nsys-rep").next())
        .map(str::to_owned)
        .collect()
}

/// Runs `sightline recipe NAME --input INPUTS --output OUT OPTIONS`.
fn run(recipe: &str, inputs: &[PathBuf], out: &Path, options: &[String]) {
    let mut args: Vec<std::ffi::OsString> = vec!["recipe".into(), recipe.into(), "--input".into()];
    args.extend(inputs.iter().map(|p| p.as_os_str().to_owned()));
    args.extend(["--output".into(), out.as_os_str().to_owned()]);
    args.extend(options.iter().map(Into::into));
    sightline_ok(args);
}

type Reader = SerializedFileReader<std::fs::File>;

fn open(path: &Path) -> Reader {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    SerializedFileReader::new(file).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Each column's name, physical and logical type.
fn schema(r: &Reader) -> Vec<String> {
    let descr = r.metadata().file_metadata().schema_descr_ptr();
    descr
        .columns()
        .iter()
        .map(|c| {
            format!(
                "{} {:?} {:?}",
                c.name(),
                c.physical_type(),
                c.logical_type_ref()
            )
        })
        .collect()
}

/// The `pandas` metadata's index and its columns' pandas types.
fn pandas(r: &Reader) -> (serde_json::Value, Vec<serde_json::Value>) {
    let kv = r
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .cloned()
        .unwrap_or_default();
    let text = kv
        .iter()
        .find(|k| k.key == "pandas")
        .and_then(|k| k.value.clone())
        .expect("no pandas metadata");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let columns = v["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| serde_json::json!([c["name"], c["field_name"], c["pandas_type"]]))
        .collect();
    (v["index_columns"].clone(), columns)
}

fn rows(r: &Reader) -> Vec<Vec<Field>> {
    r.get_row_iter(None)
        .unwrap()
        .map(|row| {
            row.unwrap()
                .get_column_iter()
                .map(|(_, f)| f.clone())
                .collect()
        })
        .collect()
}

/// Our `analysis.parquet` equals NVIDIA's: schema, pandas index and types, every row in
/// order; the rows compared.
pub(crate) fn same_analysis(nvidia: &Path, ours: &Path) -> usize {
    let (want, got) = (open(nvidia), open(ours));
    let at = ours.display();
    assert_eq!(schema(&got), schema(&want), "{at}: schema");
    assert_eq!(pandas(&got), pandas(&want), "{at}: pandas metadata");
    let (want, got) = (rows(&want), rows(&got));
    assert_eq!(got.len(), want.len(), "{at}: row count");
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "{at} row {k}");
    }
    want.len()
}

/// Whether the recipe is an analysis recipe: NVIDIA's writes `analysis.parquet` in one of the
/// oracle folders, or ours does.
fn is_analysis(name: &str) -> bool {
    matches!(
        name,
        "cuda_api_sync"
            | "cuda_memcpy_async"
            | "cuda_memcpy_sync"
            | "cuda_memset_sync"
            | "dx12_mem_ops"
            | "gpu_gaps"
            | "gpu_time_util"
    )
}

/// The recipes `sightline recipe --list` lists that write `analysis.parquet`.
fn analysis_recipes() -> Vec<String> {
    let names: Vec<String> = sightline_ok(["recipe", "--list"])
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| is_analysis(n))
        .map(str::to_owned)
        .collect();
    assert!(!names.is_empty(), "no analysis recipe listed");
    names
}

#[test]
fn analysis_recipes_equal_nvidias_on_the_corpus() {
    let Some(exports) = nsys_manifest_exports() else {
        return;
    };
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/nsys");
    let originals: Vec<PathBuf> = std::fs::read_dir(corpus.join("originals"))
        .unwrap()
        .filter_map(|e| {
            Some(
                corpus
                    .join(e.ok()?.path().file_stem()?)
                    .with_extension("sqlite"),
            )
        })
        .collect();
    assert!(!originals.is_empty(), "no original reports");
    let mut compared = 0;
    for (set, files) in [("all", &exports), ("originals", &originals)] {
        let oracle = corpus.join("recipes").join(set);
        for name in analysis_recipes() {
            compared += compare_recipe(&oracle.join(&name), &name, files);
        }
    }
    eprintln!("{compared} analysis rows equal NVIDIA's");
    assert!(compared > 1000, "only {compared} rows compared");
}

/// Runs `name` over the `exports` the oracle in `dir` read and compares; the rows compared.
fn compare_recipe(dir: &Path, name: &str, exports: &[PathBuf]) -> usize {
    let log = std::fs::read_to_string(dir.join("recipe.log"))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let skip = failed(&log);
    let inputs: Vec<PathBuf> = exports
        .iter()
        .filter(|p| {
            !skip
                .iter()
                .any(|s| p.file_stem().is_some_and(|f| f == s.as_str()))
        })
        .cloned()
        .collect();
    let out = tempfile::tempdir().unwrap();
    run(name, &inputs, out.path(), &[]);
    let (want, got) = (
        dir.join("analysis.parquet"),
        out.path().join("analysis.parquet"),
    );
    if want.exists() {
        crate::recipes_diff::same_analysis_file(dir, out.path(), &inputs);
        same_analysis(&want, &got)
    } else {
        assert!(
            !got.exists(),
            "{}: NVIDIA's recipe found nothing ({}), Sightline wrote {}",
            dir.display(),
            log.lines().last().unwrap_or_default(),
            got.display()
        );
        0
    }
}

/// The goldens of the expert fixture: `RECIPE[@OPTION=VALUE]...` folders.
fn fixture_goldens() -> PathBuf {
    fixtures().join("nsys/golden/recipes")
}

/// `--option value` arguments of a golden folder's name (`gpu_gaps@gap=1@rows=2`).
fn options_of(folder: &str) -> (String, Vec<String>) {
    let mut parts = folder.split('@');
    let name = parts.next().unwrap().to_owned();
    let options = parts
        .flat_map(|p| {
            let (k, v) = p.split_once('=').unwrap();
            [format!("--{k}"), v.to_owned()]
        })
        .collect();
    (name, options)
}

#[test]
fn analysis_recipes_equal_nvidias_on_the_expert_fixture() {
    let export = fixtures().join("nsys/expert.sqlite");
    let mut folders: Vec<String> = std::fs::read_dir(fixture_goldens())
        .unwrap()
        .filter_map(|e| Some(e.ok()?.file_name().to_str()?.to_owned()))
        .filter(|f| f != "two")
        .collect();
    folders.sort();
    let listed = analysis_recipes();
    for name in &listed {
        assert!(
            folders.contains(name),
            "{name}: no golden in {}",
            fixture_goldens().display()
        );
    }
    let mut compared = 0;
    for folder in &folders {
        let (name, options) = options_of(folder);
        let out = tempfile::tempdir().unwrap();
        run(&name, std::slice::from_ref(&export), out.path(), &options);
        let golden = fixture_goldens().join(folder).join("analysis.parquet");
        compared += same_analysis(&golden, &out.path().join("analysis.parquet"));
    }
    assert!(compared > 30, "only {compared} rows compared");
}

/// Two files with rows: each file's rows numbered from 0 in `__index_level_0__`, `File`
/// naming each (NVIDIA's output over the fixture copied under two names).
#[test]
fn analysis_recipes_number_each_files_rows() {
    let dir = tempfile::tempdir().unwrap();
    let inputs: Vec<PathBuf> = ["expert_b.sqlite", "expert_a.sqlite"]
        .iter()
        .map(|n| {
            let p = dir.path().join(n);
            std::fs::copy(fixtures().join("nsys/expert.sqlite"), &p).unwrap();
            p
        })
        .collect();
    for name in analysis_recipes() {
        let out = tempfile::tempdir().unwrap();
        run(&name, &inputs, out.path(), &[]);
        let golden = fixture_goldens()
            .join("two")
            .join(&name)
            .join("analysis.parquet");
        same_analysis(&golden, &out.path().join("analysis.parquet"));
    }
}

/// Inputs that are not exports: an error naming the file when none can be read, a warning
/// naming it beside a good one; never a panic.
#[test]
fn bad_inputs_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("broken.sqlite");
    std::fs::write(&bad, b"not a database at all").unwrap();
    let out = dir.path().join("out");
    let recipe = |inputs: &[&Path]| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_sightline"));
        cmd.args(["recipe", "gpu_gaps", "--input"]).args(inputs);
        cmd.arg("--output").arg(&out).output().unwrap()
    };
    let alone = recipe(&[&bad]);
    let stderr = String::from_utf8_lossy(&alone.stderr);
    assert!(!alone.status.success(), "{stderr}");
    assert!(stderr.contains("broken.sqlite"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let good = fixtures().join("nsys/expert.sqlite");
    let both = recipe(&[&bad, &good]);
    let stderr = String::from_utf8_lossy(&both.stderr);
    assert!(both.status.success(), "{stderr}");
    assert!(stderr.contains("broken.sqlite"), "{stderr}");
    assert!(out.join("analysis.parquet").exists());
    // An option the recipe does not take is refused.
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_sightline"));
    cmd.args(["recipe", "cuda_api_sync", "--chunks", "3", "--input"]);
    let refused = cmd.arg(&good).arg("--output").arg(&out).output().unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        !refused.status.success() && stderr.contains("--chunks"),
        "{stderr}"
    );
}

/// `--nvtx RANGE`: the first instance of the range is the window. NVIDIA's outputs over the
/// corpus export `caoye310_la_nsys23` (18 instances of each range), one folder per run in
/// `fixtures/nsys/golden/recipes_nvtx/` (`NO_OUTPUT` where the recipe wrote nothing).
#[test]
fn nvtx_option_takes_the_first_range() {
    let Some(exports) = nsys_manifest_exports() else {
        return;
    };
    let export = exports
        .iter()
        .find(|p| p.file_stem().is_some_and(|s| s == "caoye310_la_nsys23"))
        .expect("caoye310_la_nsys23.sqlite is not in the MANIFEST")
        .clone();
    let goldens = fixtures().join("nsys/golden/recipes_nvtx");
    let mut compared = 0;
    for entry in std::fs::read_dir(&goldens).unwrap() {
        let folder = entry.unwrap().path();
        let (name, options) = options_of(folder.file_name().unwrap().to_str().unwrap());
        let out = tempfile::tempdir().unwrap();
        run(&name, std::slice::from_ref(&export), out.path(), &options);
        let ours = out.path().join("analysis.parquet");
        if folder.join("NO_OUTPUT").exists() {
            assert!(!ours.exists(), "{}: NVIDIA wrote nothing", folder.display());
        } else {
            compared += same_analysis(&folder.join("analysis.parquet"), &ours);
        }
    }
    assert!(compared >= 20, "only {compared} rows compared");
}
