//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod app;
pub mod details;
pub mod rules;

use std::path::{Path, PathBuf};

use serde_json::Value;
use sightline::ncu::Report;
use sightline::ncu::dump::{DumpOptions, write_dump};

/// `../shared/corpus/ncu` beside the repository, or `None` (with a message) when absent.
pub fn corpus_ncu() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/ncu");
    if dir.join("reports").is_dir() && dir.join("golden").is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "skipping: ../shared/corpus/ncu not found (the corpus tests need ../shared beside the repository)"
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

/// Parses JSON text, removing units.
///
/// Python's JSON writer prints NaN and infinities as bare `NaN`, `Infinity`, `-Infinity`
/// (not JSON); they are read as the strings `"NaN"`, ... so that they compare equal.
pub fn parse_without_units(text: &str) -> Value {
    let special = regex::Regex::new(r#"(?m)^(\s*(?:"(?:[^"\\]|\\.)*": )?)(NaN|-?Infinity)(,?)$"#)
        .expect("valid pattern");
    let text = special.replace_all(text, r#"$1"$2"$3"#);
    let mut value: Value = serde_json::from_str(&text).expect("valid JSON");
    strip_units(&mut value);
    value
}

/// The first difference between two JSON values, as a path and both sides.
pub fn first_difference(ours: &Value, golden: &Value, path: &str) -> Option<String> {
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
