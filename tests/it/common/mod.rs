//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod app;
pub mod details;
pub mod rules;
pub mod wine;

use std::path::{Path, PathBuf};

use serde_json::Value;
use sightline::ncu::{DumpOptions, Report, write_dump};

/// Whether `../shared` is required (`SIGHTLINE_REQUIRE_SHARED=1`, set by `.ci/run`): a test
/// that would skip for lack of it fails instead.
pub fn shared_required() -> bool {
    std::env::var_os("SIGHTLINE_REQUIRE_SHARED").is_some_and(|v| v == "1")
}

/// Skips a test that needs `../shared` (what is missing is printed), or fails it when
/// [`shared_required`].
pub fn skip_shared(reason: impl std::fmt::Display) {
    assert!(
        !shared_required(),
        "{reason}: SIGHTLINE_REQUIRE_SHARED=1 requires ../shared beside the repository"
    );
    eprintln!("skipped: {reason}");
}

/// `../shared/corpus/ncu` beside the repository, or `None` (with a message) when absent.
pub fn corpus_ncu() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/ncu");
    if dir.join("reports").is_dir() && dir.join("golden").is_dir() {
        Some(dir)
    } else {
        crate::common::skip_shared(
            "../shared/corpus/ncu not found (the corpus tests need ../shared beside the repository)",
        );
        None
    }
}

/// The repository's `fixtures/` folder.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Corpus reports paired with their golden JSON.
pub fn corpus_pairs() -> Vec<(PathBuf, PathBuf)> {
    let Some(dir) = corpus_ncu() else {
        return Vec::new();
    };
    let mut pairs: Vec<(PathBuf, PathBuf)> = std::fs::read_dir(dir.join("reports"))
        .expect("reports dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "ncu-rep"))
        .map(|p| {
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            let golden = dir.join("golden").join(format!("{stem}.json"));
            (p, golden)
        })
        .filter(|(_, g)| g.exists())
        .collect();
    pairs.sort();
    assert!(
        !pairs.is_empty(),
        "corpus present but no report/golden pairs found"
    );
    pairs
}

/// Sightline's dump of `report` as text.
pub fn dump_text(report: &Report, options: &DumpOptions) -> String {
    let mut out = Vec::new();
    write_dump(report, options, &mut out).expect("dump");
    String::from_utf8(out).expect("utf-8 dump")
}

/// Removes every `"unit"` key.
pub fn strip_units(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.remove("unit");
            map.values_mut().for_each(strip_units);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_units),
        _ => {}
    }
}

/// Parses JSON text, removing units (NaN and infinities as [`python_json`] reads them).
pub fn parse_without_units(text: &str) -> Value {
    let mut value = python_json(text).expect("valid JSON");
    strip_units(&mut value);
    value
}

/// Parses JSON as Python's `json` module writes it: NaN and the infinities appear as the bare
/// words `NaN`, `Infinity` and `-Infinity` (not JSON). Outside strings they are read as the
/// strings `"NaN"`, `"Infinity"`, `"-Infinity"`, so that they compare equal and
/// [`json_f64`] turns them back into numbers; inside strings they are left alone.
pub fn python_json(text: &str) -> serde_json::Result<Value> {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 64);
    let (mut start, mut i, mut in_string) = (0, 0, false);
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if b == b'"' {
            in_string = true;
            i += 1;
            continue;
        }
        // Only N, I and - start a word (a byte test first: this loop sees every byte of the
        // golden dumps).
        let word = matches!(b, b'N' | b'I' | b'-')
            .then(|| {
                ["NaN", "Infinity", "-Infinity"]
                    .into_iter()
                    .find(|w| bytes[i..].starts_with(w.as_bytes()))
            })
            .flatten();
        if let Some(word) = word {
            out.push_str(&text[start..i]);
            out.push('"');
            out.push_str(word);
            out.push('"');
            i += word.len();
            start = i;
        } else {
            i += 1;
        }
    }
    out.push_str(&text[start..]);
    serde_json::from_str(&out)
}

/// A golden JSON file of NVIDIA's reader, read with [`python_json`]; panics naming the file.
pub fn golden_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    python_json(&text).unwrap_or_else(|e| panic!("cannot parse {}: {e}", path.display()))
}

/// A number of a JSON value read by [`python_json`]: a JSON number, or one of the words
/// `"NaN"`, `"Infinity"`, `"-Infinity"`.
pub fn json_f64(value: &Value) -> Option<f64> {
    match value {
        Value::String(s) if s == "NaN" => Some(f64::NAN),
        Value::String(s) if s == "Infinity" => Some(f64::INFINITY),
        Value::String(s) if s == "-Infinity" => Some(f64::NEG_INFINITY),
        other => other.as_f64(),
    }
}

/// A floating-point value as [`python_json`] reads it: NaN and the infinities as their words.
pub fn json_of_f64(value: f64) -> Value {
    if value.is_nan() {
        Value::from("NaN")
    } else if value == f64::INFINITY {
        Value::from("Infinity")
    } else if value == f64::NEG_INFINITY {
        Value::from("-Infinity")
    } else {
        Value::from(value)
    }
}

/// The first difference between two JSON values, as a path and both sides.
pub fn first_difference(ours: &Value, golden: &Value, path: &str) -> Option<String> {
    // Equal values have no difference (the walk below names paths only to report one).
    if ours == golden {
        return None;
    }
    match (ours, golden) {
        (Value::Object(a), Value::Object(b)) => {
            for key in a.keys().chain(b.keys()) {
                let sub = format!("{path}/{key}");
                match (a.get(key), b.get(key)) {
                    (Some(x), Some(y)) => {
                        if let Some(d) = first_difference(x, y, &sub) {
                            return Some(d);
                        }
                    }
                    (x, y) => return Some(format!("{sub}: ours {x:?}, golden {y:?}")),
                }
            }
            None
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                return Some(format!(
                    "{path}: ours has {} items, golden {}",
                    a.len(),
                    b.len()
                ));
            }
            a.iter()
                .zip(b)
                .enumerate()
                .find_map(|(i, (x, y))| first_difference(x, y, &format!("{path}/{i}")))
        }
        // Numbers compare by value and kind: 1 and 1.0 differ (UINT64 vs DOUBLE).
        (x, y) if x == y => None,
        (x, y) => Some(format!("{path}: ours {x}, golden {y}")),
    }
}

/// The corpus pair of one program profiled with both tools (extra-p's `ex-gpu`): its Nsight
/// Systems export and its Nsight Compute report; `None`, with a skip, without ../shared.
pub fn extrap_pair() -> Option<(PathBuf, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    let export = root.join("nsys/extrap_ex-gpu.s10.sqlite");
    let report = root.join("ncu/reports/ncu2020.3.1_a100_extrap_ex-gpu.ncu-rep");
    if !export.is_file() || !report.is_file() {
        skip_shared("the extrap ex-gpu pair of ../shared/corpus not found");
        return None;
    }
    Some((export, report))
}

/// The exports the corpus MANIFEST lists, in its order (`None`, with a skip, without ../shared).
pub fn nsys_manifest_exports() -> Option<Vec<PathBuf>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/nsys");
    let Ok(text) = std::fs::read_to_string(dir.join("MANIFEST.tsv")) else {
        crate::common::skip_shared(format!("{} has no MANIFEST.tsv", dir.display()));
        return None;
    };
    let files: Vec<PathBuf> = text
        .lines()
        .skip(1)
        .filter_map(|l| l.split('\t').next())
        .filter(|f| f.ends_with(".sqlite"))
        .map(|f| dir.join(f))
        .collect();
    assert!(!files.is_empty(), "the MANIFEST lists no exports");
    Some(files)
}

/// Runs the `sightline` binary with `args` and returns what it printed, failing the test
/// (with what it printed on standard error) when it did not succeed.
pub fn sightline_ok<S: AsRef<std::ffi::OsStr>>(args: impl IntoIterator<Item = S>) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("sightline does not run: {e}"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap_or_else(|e| panic!("not UTF-8: {e}"))
}
