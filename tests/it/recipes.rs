//! `sightline recipe` against NVIDIA's `nsys recipe` (Nsight Systems 2023.4) outputs over the
//! corpus exports (`../shared/corpus/nsys/recipes/all/`: every export; `originals/`: the
//! exports of the six original reports): every implemented recipe's `rank_stats.csv` and
//! `all_stats.csv`, from the exports the recipe read (its `recipe.log` names the files it
//! could not use: exports lacking a table the recipe needs, which it tried to export again
//! from placeholder reports).
//!
//! Two differences are NVIDIA's and are compared leniently, each said where it is done: rows
//! of equal total in `all_stats.csv` come in an order that is neither first-met nor by name
//! (an unstable sort), and the size recipe's unrounded standard deviations differ in their last
//! digits (its summation order is not known).

use std::path::{Path, PathBuf};

use crate::common::{nsys_manifest_exports, sightline_ok};

/// The files `recipe.log` says the recipe failed to export (so read nothing from).
fn failed(log: &str) -> Vec<String> {
    log.lines()
        .filter_map(|l| l.split("Failed to export inputs/").nth(1))
        .filter_map(|rest| rest.split(".nsys-rep").next())
        .map(str::to_owned)
        .collect()
}

/// CSV cells of each line (quoted cells unquoted).
fn rows(text: &str) -> Vec<Vec<String>> {
    text.lines().map(crate::events_view::csv_cells).collect()
}

/// Lines compared: numbers in `loose` columns within 1e-12 relative, the rest exactly.
fn same_row(a: &[String], b: &[String], loose: &[usize]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).enumerate().all(|(i, (x, y))| {
            x == y
                || loose.contains(&i)
                    && matches!((x.parse::<f64>(), y.parse::<f64>()),
                        (Ok(p), Ok(q)) if (p - q).abs() <= 1e-12 * q.abs().max(1.0))
        })
}

/// Sorts the rows within each run of equal `Total`/`Total Time` (column `total`).
fn ties_sorted(mut rows: Vec<Vec<String>>, total: usize) -> Vec<Vec<String>> {
    let mut start = 1;
    while start < rows.len() {
        let mut end = start + 1;
        while end < rows.len() && rows[end][total] == rows[start][total] {
            end += 1;
        }
        rows[start..end].sort();
        start = end;
    }
    rows
}

fn run(recipe: &str, inputs: &[PathBuf], out: &Path) {
    let mut args = vec!["recipe".into(), recipe.into(), "--input".into()];
    args.extend(inputs.iter().map(|p| p.as_os_str().to_owned()));
    args.extend(["--output".into(), out.as_os_str().to_owned()]);
    sightline_ok::<std::ffi::OsString>(args);
}

#[test]
fn summary_recipes_equal_nvidias_on_the_corpus() {
    let Some(exports) = nsys_manifest_exports() else {
        return;
    };
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/nsys");
    // The original reports' exports: the export of the same stem.
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
        compared += compare_set(&corpus.join("recipes").join(set), files);
    }
    eprintln!("{compared} recipe rows equal NVIDIA's");
    assert!(compared > 500, "only {compared} rows compared");
}

/// Compares every listed recipe over `exports` with the oracle's folder `oracle`; the rows
/// compared.
fn compare_set(oracle: &Path, exports: &[PathBuf]) -> usize {
    let listed = sightline_ok(["recipe", "--list"]);
    let mut compared = 0;
    for line in listed.lines() {
        let name = line.split_whitespace().next().unwrap();
        if crate::recipes_nvtx::RECIPES.contains(&name) {
            // Not a summary recipe: tests/it/recipes_nvtx.rs checks it.
            continue;
        }
        let dir = oracle.join(name);
        // The summary recipes only (`recipes_analysis.rs` compares the analysis recipes).
        if !dir.join("rank_stats.csv").exists() {
            continue;
        }
        let log = std::fs::read_to_string(dir.join("recipe.log")).unwrap_or_default();
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
        run(name, &inputs, out.path());
        crate::recipes_diff::same_analysis_file(&dir, out.path(), &inputs);
        for file in ["rank_stats.csv", "all_stats.csv"] {
            let want = rows(&std::fs::read_to_string(dir.join(file)).unwrap());
            let got = rows(&std::fs::read_to_string(out.path().join(file)).unwrap());
            let header = want[0].clone();
            let total = header
                .iter()
                .position(|h| h == "Total Time" || h == "Total")
                .unwrap();
            let (want, got) = if file == "all_stats.csv" {
                (ties_sorted(want, total), ties_sorted(got, total))
            } else {
                (want, got)
            };
            // The size recipe's unrounded deviation (last digits: see the module comment).
            let loose: Vec<usize> = if name == "cuda_gpu_mem_size_sum" {
                header
                    .iter()
                    .position(|h| h == "StdDev")
                    .into_iter()
                    .collect()
            } else {
                Vec::new()
            };
            let at = format!("{}/{name}/{file}", oracle.display());
            assert_eq!(got.len(), want.len(), "{at}: row count");
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!(same_row(g, w, &loose), "{at} row {k}:\n{g:?}\n{w:?}");
            }
            compared += want.len() - 1;
            let stem = file.trim_end_matches(".csv");
            same_parquet(
                &dir.join(format!("{stem}.parquet")),
                &out.path().join(format!("{stem}.parquet")),
                &rows(&std::fs::read_to_string(out.path().join(file)).unwrap()),
            );
        }
    }
    compared
}

/// Our Parquet file has NVIDIA's schema (column names, order and types: the key column last,
/// as pandas stores its index) and pandas' index, and holds our CSV's rows.
fn same_parquet(nvidia: &Path, ours: &Path, csv: &[Vec<String>]) {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;
    let open = |p: &Path| SerializedFileReader::new(std::fs::File::open(p).unwrap()).unwrap();
    let (want, got) = (open(nvidia), open(ours));
    let schema = |r: &SerializedFileReader<std::fs::File>| -> Vec<String> {
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
    };
    assert_eq!(schema(&got), schema(&want), "{}: schema", ours.display());
    let pandas = |r: &SerializedFileReader<std::fs::File>| -> serde_json::Value {
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
            .unwrap();
        serde_json::from_str::<serde_json::Value>(&text).unwrap()["index_columns"].clone()
    };
    assert_eq!(
        pandas(&got),
        pandas(&want),
        "{}: pandas index",
        ours.display()
    );
    let rows: Vec<Vec<Field>> = got
        .get_row_iter(None)
        .unwrap()
        .map(|r| {
            r.unwrap()
                .get_column_iter()
                .map(|(_, f)| f.clone())
                .collect()
        })
        .collect();
    assert_eq!(rows.len() + 1, csv.len(), "{}: rows", ours.display());
    for (row, cells) in rows.iter().zip(&csv[1..]) {
        // The CSV's key column is first; the file's last.
        let mut cells = cells.clone();
        cells.rotate_left(1);
        for (field, cell) in row.iter().zip(&cells) {
            let same = match field {
                Field::Null => cell.is_empty(),
                Field::Long(v) => cell.parse::<i64>() == Ok(*v),
                Field::Double(v) => cell.parse::<f64>() == Ok(*v),
                Field::Str(s) => s == cell,
                _ => false,
            };
            assert!(same, "{}: {field:?} against {cell:?}", ours.display());
        }
    }
}

/// Reports as inputs: in a folder holding a report and its export, the export is read once (the
/// report is not counted twice); a report without its export is exported with the user's
/// `nsys`, and when that fails the error names the report.
#[test]
fn a_report_is_read_through_its_export() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("runs");
    std::fs::create_dir(&dir).unwrap();
    let export = dir.join("rank0.sqlite");
    sightline_test_support::nsys::write_export(&export, &Default::default()).unwrap();
    std::fs::write(dir.join("rank0.nsys-rep"), b"the report of rank0.sqlite").unwrap();
    let out = tmp.path().join("out");
    let written = sightline_ok([
        "recipe".as_ref(),
        "cuda_gpu_kern_sum".as_ref(),
        "--input".as_ref(),
        dir.as_os_str(),
        "--output".as_ref(),
        out.as_os_str(),
    ]);
    assert!(written.contains("rank_stats.csv"), "{written}");
    let analysis = std::fs::read_to_string(out.join("out.nsys-analysis")).unwrap();
    let value: serde_json::Value = serde_json::from_str(&analysis).unwrap();
    let inputs = value["InputFiles"].as_array().unwrap();
    assert_eq!(inputs.len(), 1, "{analysis}");
    assert!(inputs[0].as_str().unwrap().ends_with("rank0.sqlite"));
    // A report alone: exported with an nsys that is not there, the error names the report.
    let alone = tmp.path().join("alone.nsys-rep");
    std::fs::write(&alone, b"not a report").unwrap();
    let failed = std::process::Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args(["recipe", "cuda_gpu_kern_sum", "--input"])
        .arg(&alone)
        .arg("--output")
        .arg(tmp.path().join("out2"))
        .env("PATH", tmp.path())
        .env("XDG_CACHE_HOME", tmp.path().join("cache"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(!failed.status.success());
    assert!(stderr.contains("alone.nsys-rep"), "{stderr}");
    assert!(!tmp.path().join("out2").exists());
}
