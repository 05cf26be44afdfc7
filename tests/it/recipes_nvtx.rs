//! `sightline recipe` for NVIDIA's NVTX, NCCL, MPI and pace recipes (`nvtx_sum`,
//! `nvtx_gpu_proj_sum`, `nvtx_gpu_proj_trace`, `nccl_sum`, `nccl_gpu_proj_sum`, `mpi_sum`,
//! `nvtx_pace`, `nvtx_gpu_proj_pace`, `cuda_gpu_kern_pace`) against `nsys recipe`'s outputs:
//! over the corpus exports (`../shared/corpus/nsys/recipes/{all,originals,pace}/`, the sets and
//! recipes their `STATUS.tsv` lists), and over generated and cut exports
//! (`fixtures/nsys/recipes/`, see its README). Every CSV and Parquet file the recipe wrote is
//! compared: CSV text line for line, Parquet schema (names, types, order), the pandas index and
//! every value. No leniency is needed.
//!
//! Where NVIDIA's recipe stops with an error (`cuda_gpu_kern_pace` on an export without a
//! session start: a `KeyError`), a generated export checks Sightline's own answer.

use std::path::{Path, PathBuf};

use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;

use crate::common::{fixtures, nsys_manifest_exports, sightline_ok};

/// The recipes this file checks.
pub(crate) const RECIPES: [&str; 9] = [
    "nvtx_sum",
    "nvtx_gpu_proj_sum",
    "nvtx_gpu_proj_trace",
    "nccl_sum",
    "nccl_gpu_proj_sum",
    "mpi_sum",
    "nvtx_pace",
    "nvtx_gpu_proj_pace",
    "cuda_gpu_kern_pace",
];

/// Runs `recipe` over `inputs` with `args` into `out`.
fn run(recipe: &str, inputs: &[PathBuf], args: &[String], out: &Path) {
    let mut all: Vec<std::ffi::OsString> = vec!["recipe".into(), recipe.into(), "--input".into()];
    all.extend(inputs.iter().map(|p| p.as_os_str().to_owned()));
    all.extend(["--output".into(), out.as_os_str().to_owned()]);
    all.extend(args.iter().map(Into::into));
    sightline_ok(all);
}

/// The recipe's output files (CSV and Parquet) in `dir`, by name.
fn outputs(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|n| n.ends_with(".csv") || n.ends_with(".parquet"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Compares every output of NVIDIA's run in `want` with Sightline's in `got` (and that Sightline
/// wrote no other); returns the files compared.
pub(crate) fn same_outputs(want: &Path, got: &Path) -> usize {
    let names = outputs(want);
    assert_eq!(outputs(got), names, "{}: files written", want.display());
    for name in &names {
        let (w, g) = (want.join(name), got.join(name));
        if name.ends_with(".csv") {
            let (w_text, g_text) = (read(&w), read(&g));
            for (k, (a, b)) in w_text.lines().zip(g_text.lines()).enumerate() {
                assert_eq!(b, a, "{} line {}", w.display(), k + 1);
            }
            assert_eq!(
                g_text.lines().count(),
                w_text.lines().count(),
                "{}",
                w.display()
            );
        } else {
            same_parquet(&w, &g);
        }
    }
    names.len()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Same schema (names, physical and logical types, in order), same pandas index and column
/// index metadata, same values (floats bit for bit, NaN as NaN).
fn same_parquet(want: &Path, got: &Path) {
    let open = |p: &Path| {
        SerializedFileReader::new(std::fs::File::open(p).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    };
    let (w, g) = (open(want), open(got));
    let schema = |r: &SerializedFileReader<std::fs::File>| -> Vec<String> {
        let descr = r.metadata().file_metadata().schema_descr_ptr();
        let columns = descr.columns();
        columns
            .iter()
            .map(|c| {
                let (p, l) = (c.physical_type(), c.logical_type_ref());
                format!("{} {p:?} {l:?}", c.name())
            })
            .collect()
    };
    assert_eq!(schema(&g), schema(&w), "{}: schema", got.display());
    let pandas = |r: &SerializedFileReader<std::fs::File>| -> [serde_json::Value; 2] {
        let kv = r.metadata().file_metadata().key_value_metadata().cloned();
        let text = kv
            .unwrap_or_default()
            .into_iter()
            .find(|k| k.key == "pandas")
            .and_then(|k| k.value)
            .unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        [
            json["index_columns"].clone(),
            json["column_indexes"].clone(),
        ]
    };
    assert_eq!(pandas(&g), pandas(&w), "{}: pandas index", got.display());
    let rows = |r: &SerializedFileReader<std::fs::File>| -> Vec<Vec<Field>> {
        r.get_row_iter(None)
            .unwrap()
            .map(|row| {
                row.unwrap()
                    .get_column_iter()
                    .map(|(_, f)| f.clone())
                    .collect()
            })
            .collect()
    };
    let (w_rows, g_rows) = (rows(&w), rows(&g));
    assert_eq!(g_rows.len(), w_rows.len(), "{}: rows", got.display());
    for (k, (a, b)) in g_rows.iter().zip(&w_rows).enumerate() {
        let same = a.len() == b.len()
            && a.iter().zip(b).all(|(x, y)| match (x, y) {
                (Field::Double(p), Field::Double(q)) => {
                    p.to_bits() == q.to_bits() || p.is_nan() && q.is_nan()
                }
                _ => x == y,
            });
        assert!(same, "{} row {k}:\n{a:?}\n{b:?}", got.display());
    }
}

/// The files `recipe.log` says the recipe failed to export (so read nothing from).
fn failed(log: &str) -> Vec<String> {
    log.lines()
        .filter_map(|l| l.split("Failed to export inputs/").nth(1))
        .filter_map(|rest| rest.split(".nsys-rep").next())
        .map(str::to_owned)
        .collect()
}

/// The corpus folder, and the exports of the original reports (the export of the same stem).
fn corpus() -> Option<(PathBuf, Vec<PathBuf>, Vec<PathBuf>)> {
    let all = nsys_manifest_exports()?;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/nsys");
    let mut originals: Vec<PathBuf> = std::fs::read_dir(dir.join("originals"))
        .unwrap()
        .filter_map(|e| {
            Some(
                dir.join(e.ok()?.path().file_stem()?)
                    .with_extension("sqlite"),
            )
        })
        .collect();
    originals.sort();
    assert!(!originals.is_empty(), "no original reports");
    Some((dir, all, originals))
}

/// One oracle run over the corpus: its folder, `--name` (pace), and whether it succeeded.
fn status_rows(set: &Path) -> Vec<(String, bool, Option<String>)> {
    read(&set.join("STATUS.tsv"))
        .lines()
        .skip(1)
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('\t').collect();
            let recipe = (*cells.first()?).to_owned();
            let ok = cells.get(1) == Some(&"0");
            let name = cells
                .get(2)
                .filter(|n| !n.is_empty() && set.ends_with("pace"));
            Some((recipe, ok, name.map(|n| (*n).to_owned())))
        })
        .filter(|(r, _, _)| RECIPES.contains(&r.as_str()))
        .collect()
}

#[test]
fn nvtx_nccl_mpi_and_pace_recipes_equal_nvidias_on_the_corpus() {
    let Some((dir, all, originals)) = corpus() else {
        return;
    };
    let mut compared = 0;
    let mut empty = 0;
    for (set, exports) in [
        ("all", &all),
        ("originals", &originals),
        ("pace", &originals),
    ] {
        let set_dir = dir.join("recipes").join(set);
        for (recipe, ok, name) in status_rows(&set_dir) {
            let takes_name = recipe.ends_with("_pace");
            if !ok || takes_name != name.is_some() {
                // NVIDIA's run stopped (no --name given, or an error: see the fixture tests).
                continue;
            }
            let oracle = set_dir.join(&recipe);
            let skip =
                failed(&std::fs::read_to_string(oracle.join("recipe.log")).unwrap_or_default());
            let inputs: Vec<PathBuf> = exports
                .iter()
                .filter(|p| {
                    !skip
                        .iter()
                        .any(|s| p.file_stem().is_some_and(|f| f == s.as_str()))
                })
                .cloned()
                .collect();
            if inputs.is_empty() {
                // The recipe could read none of them (it needs the reports themselves).
                continue;
            }
            let args: Vec<String> = name.map(|n| vec!["--name".into(), n]).unwrap_or_default();
            let out = tempfile::tempdir().unwrap();
            run(&recipe, &inputs, &args, out.path());
            let n = same_outputs(&oracle, out.path());
            if n > 0 {
                crate::recipes_diff::same_analysis_file(&oracle, out.path(), &inputs);
            }
            compared += n;
            empty += usize::from(n == 0);
        }
    }
    eprintln!("{compared} recipe outputs equal NVIDIA's ({empty} runs where both wrote nothing)");
    assert!(compared >= 20, "only {compared} outputs compared");
}

/// The SQL making the cuts `p0`, `p1`, `p2` of a generated export
/// (`sightline_test_support::nsys::write_export`, default options; fixtures/nsys/recipes/README).
const CUTS: [(&str, &str); 3] = [
    ("p0", ""),
    (
        "p1",
        "UPDATE TARGET_INFO_SESSION_START_TIME SET utcEpochNs = utcEpochNs + 1000000; \
         DELETE FROM NVTX_EVENTS WHERE text = 'iteration' AND rowid IN (SELECT rowid FROM \
         NVTX_EVENTS WHERE text = 'iteration' ORDER BY start LIMIT 3 OFFSET 4); \
         UPDATE NVTX_EVENTS SET end = end + 777 WHERE text = 'iteration' AND start > 2000000;",
    ),
    (
        "p2",
        "UPDATE TARGET_INFO_SESSION_START_TIME SET utcEpochNs = utcEpochNs - 5000000; \
         DELETE FROM NVTX_EVENTS WHERE text = 'iteration' AND start > 2500000;",
    ),
];

/// Writes the cuts of [`CUTS`] into `dir`; their paths.
pub(crate) fn write_cuts(dir: &Path) -> Vec<PathBuf> {
    let options = sightline_test_support::nsys::SynthOptions::default();
    CUTS.iter()
        .map(|(stem, sql)| {
            let path = dir.join(format!("{stem}.sqlite"));
            sightline_test_support::nsys::write_export(&path, &options).unwrap();
            rusqlite::Connection::open(&path)
                .unwrap()
                .execute_batch(sql)
                .unwrap();
            path
        })
        .collect()
}

/// Runs every recipe run of fixture set `set` over `inputs` and compares; the files compared.
pub(crate) fn compare_fixture_set(set: &str, inputs: &[PathBuf]) -> usize {
    let dir = fixtures().join("nsys/recipes").join(set);
    let mut runs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    runs.sort();
    let mut compared = 0;
    for case in runs {
        let label = case.file_name().unwrap().to_string_lossy().into_owned();
        let recipe = label.split('@').next().unwrap();
        let args: Vec<String> = read(&case.join("args"))
            .lines()
            .map(str::to_owned)
            .collect();
        let out = tempfile::tempdir().unwrap();
        run(recipe, inputs, &args, out.path());
        let n = same_outputs(&case, out.path());
        assert!(n > 0, "{}: NVIDIA's run wrote nothing", case.display());
        crate::recipes_diff::same_analysis_file(&case, out.path(), inputs);
        compared += n;
    }
    compared
}

#[test]
fn mpi_sum_equals_nvidias_on_a_generated_mpi_run() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = sightline_test_support::nsys_mpi::write_mpi_run(dir.path()).unwrap();
    let compared = compare_fixture_set("mpi_run", &inputs);
    assert!(compared >= 10, "{compared} files compared");
}

#[test]
fn nvtx_and_pace_recipes_equal_nvidias_on_cuts_of_an_export() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = write_cuts(dir.path());
    let compared = compare_fixture_set("synth_cuts", &inputs);
    assert!(compared >= 38, "{compared} files compared");
}

/// `nvtx_gpu_proj_pace` and `nvtx_gpu_proj_sum` with `--start/--end` on the cuts, where ranges
/// of two threads overlap: NVIDIA's projections (22 pace instances per file, 60 `backward`
/// ranges) differ from Sightline's (the window applied to the ranges, calls and GPU operations
/// before projecting, which matched NVIDIA on one-thread ranges). Not yet understood: kept as
/// NVIDIA wrote it, to be fixed.
#[test]
#[ignore = "open: how NVIDIA windows projected pace on overlapping ranges (fixtures/nsys/recipes/README.md)"]
fn projected_pace_in_a_window_equals_nvidias_on_overlapping_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = write_cuts(dir.path());
    let compared = compare_fixture_set("synth_cuts_open", &inputs);
    assert!(compared >= 13, "{compared} files compared");
}

/// Reads column `name` of a Parquet file as floats (integers converted; missing: NaN).
fn parquet_column(path: &Path, name: &str) -> Vec<f64> {
    let reader = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
    reader
        .get_row_iter(None)
        .unwrap()
        .map(|row| {
            let row = row.unwrap();
            let field = row
                .get_column_iter()
                .find(|(n, _)| n.as_str() == name)
                .map(|(_, f)| f.clone());
            match field {
                Some(Field::Long(v)) => v as f64,
                Some(Field::Double(v)) => v,
                _ => f64::NAN,
            }
        })
        .collect()
}

/// NVIDIA's `cuda_gpu_kern_pace` stops with a `KeyError` on an export without a session start;
/// Sightline leaves such a file on its own clock and moves the others onto the earliest
/// session start.
#[test]
fn kernel_pace_keeps_a_file_without_session_start_on_its_clock() {
    let dir = tempfile::tempdir().unwrap();
    let options = sightline_test_support::nsys::SynthOptions::default();
    let mut inputs = Vec::new();
    for (stem, sql) in [
        ("a", ""),
        (
            "b",
            "UPDATE TARGET_INFO_SESSION_START_TIME SET utcEpochNs = utcEpochNs + 1000",
        ),
        ("c", "DELETE FROM TARGET_INFO_SESSION_START_TIME"),
    ] {
        let path = dir.path().join(format!("{stem}.sqlite"));
        sightline_test_support::nsys::write_export(&path, &options).unwrap();
        rusqlite::Connection::open(&path)
            .unwrap()
            .execute_batch(sql)
            .unwrap();
        inputs.push(path);
    }
    // The most frequent kernel short name, and its (start, end) in each file, in table order
    // (NVIDIA's pace keeps it: fixtures/nsys/recipes/synth_cuts).
    let db = rusqlite::Connection::open(&inputs[0]).unwrap();
    let name: String = db
        .query_row(
            "SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName \
             GROUP BY s.value ORDER BY count(*) DESC, s.value LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let kernels = |path: &Path| -> Vec<(i64, i64)> {
        let db = rusqlite::Connection::open(path).unwrap();
        let mut q = db
            .prepare(
                "SELECT k.start, k.end FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s \
                 ON s.id = k.shortName WHERE s.value = ?1 ORDER BY k.rowid",
            )
            .unwrap();
        q.query_map([&name], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let out = tempfile::tempdir().unwrap();
    run(
        "cuda_gpu_kern_pace",
        &inputs,
        &["--name".into(), name.clone()],
        out.path(),
    );
    let want = kernels(&inputs[0]);
    assert!(want.len() > 2, "{name}: {} kernels", want.len());
    let start = out.path().join("pace_start.parquet");
    let delta = out.path().join("pace_delta.parquet");
    for (rank, offset) in [(0, 0), (1, 1000), (2, 0)] {
        let starts = parquet_column(&start, &rank.to_string());
        let expected: Vec<f64> = want.iter().map(|&(s, _)| (s + offset) as f64).collect();
        assert_eq!(starts, expected, "file {rank}: pace_start");
        let deltas = parquet_column(&delta, &rank.to_string());
        assert_eq!(
            deltas[0], want[0].0 as f64,
            "file {rank}: the first delta is its own start"
        );
        assert_eq!(deltas[1], (want[1].0 - want[0].1) as f64);
    }
    let count = parquet_column(&out.path().join("stats.parquet"), "Count");
    assert_eq!(count, [(3 * want.len()) as f64]);
}

#[test]
fn pace_recipes_need_a_name() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args([
            "recipe",
            "nvtx_pace",
            "--input",
            "x.sqlite",
            "--output",
            "o",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs --name"));
}

#[test]
fn a_bad_input_is_named_and_the_others_still_count() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = sightline_test_support::nsys_mpi::write_mpi_run(dir.path()).unwrap();
    let bad = dir.path().join("broken.sqlite");
    std::fs::write(&bad, b"not a database").unwrap();
    let mut all = inputs.clone();
    all.push(bad);
    let out = tempfile::tempdir().unwrap();
    let mut args: Vec<std::ffi::OsString> =
        vec!["recipe".into(), "mpi_sum".into(), "--input".into()];
    args.extend(all.iter().map(|p| p.as_os_str().to_owned()));
    args.extend(["--output".into(), out.path().as_os_str().to_owned()]);
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args(&args)
        .output()
        .unwrap();
    assert!(run.status.success());
    assert!(String::from_utf8_lossy(&run.stderr).contains("broken.sqlite"));
    let files = parquet_column(&out.path().join("rank_stats.parquet"), "Rank");
    assert_eq!(
        files.iter().copied().fold(0.0, f64::max),
        (inputs.len() - 1) as f64
    );
}
