//! Agreement of [`infer_unit`] with the units NVIDIA's reader reported in the golden dumps.
//!
//! Every `(report, action, metric)` entry of every golden JSON counts once. The test prints
//! the agreement per file and overall, lists the most frequent disagreements, and requires
//! an overall agreement of at least 95 %. It is skipped when the shared corpus is absent.

use crate::common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use sightline::ncu::infer_unit;

const REQUIRED_AGREEMENT: f64 = 99.7;

/// Agreement counts for one file.
#[derive(Default)]
struct Tally {
    total: usize,
    agree: usize,
}

impl Tally {
    fn percent(&self) -> f64 {
        if self.total == 0 {
            100.0
        } else {
            100.0 * self.agree as f64 / self.total as f64
        }
    }
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/ncu/golden")
}

/// Tallies the agreement in one golden file, recording disagreements in `misses`
/// (keyed by metric name, golden unit and inferred unit).
fn tally_file(path: &Path, misses: &mut BTreeMap<(String, String, String), usize>) -> Tally {
    let root = common::golden_json(path);
    let mut tally = Tally::default();
    let ranges = root["ranges"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    for range in ranges {
        let actions = range["actions"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        for action in actions {
            let Some(metrics) = action["metrics"].as_object() else {
                continue;
            };
            for (name, metric) in metrics {
                let golden = metric["unit"].as_str().unwrap_or_default();
                let inferred = infer_unit(name);
                tally.total += 1;
                if inferred == golden {
                    tally.agree += 1;
                } else {
                    *misses
                        .entry((name.clone(), golden.to_owned(), inferred.into_owned()))
                        .or_default() += 1;
                }
            }
        }
    }
    tally
}

#[test]
fn inferred_units_agree_with_golden_dumps() {
    let dir = golden_dir();
    if !dir.is_dir() {
        crate::common::skip_shared(format!("../shared/corpus not found ({})", dir.display()));
        return;
    }
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|err| panic!("cannot list {}: {err}", dir.display()))
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no golden JSON in {}", dir.display());

    let mut misses = BTreeMap::new();
    let mut overall = Tally::default();
    for path in &files {
        let tally = tally_file(path, &mut misses);
        let file_name = path.file_name().unwrap_or_default().to_string_lossy();
        println!(
            "{file_name}: {}/{} = {:.2}%",
            tally.agree,
            tally.total,
            tally.percent()
        );
        overall.total += tally.total;
        overall.agree += tally.agree;
    }
    println!(
        "overall: {}/{} = {:.2}%",
        overall.agree,
        overall.total,
        overall.percent()
    );

    let mut ranked: Vec<_> = misses.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    println!("disagreements (entries, metric, golden unit, inferred unit):");
    for ((name, golden, inferred), count) in ranked.iter().take(40) {
        println!("  {count:4}  {name}  golden={golden:?}  inferred={inferred:?}");
    }

    assert!(
        overall.percent() >= REQUIRED_AGREEMENT,
        "overall unit agreement {:.2}% is below {REQUIRED_AGREEMENT}%",
        overall.percent()
    );
}
