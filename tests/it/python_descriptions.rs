//! `IMetric.description()`: NVIDIA's module answers from its metric library; Sightline from the
//! user's own Nsight Compute (`sightline_model::ncu::metric_library`: `ncu --query-metrics`
//! per chip, cached, worded with NVIDIA's grammar), and "" without one.
//!
//! On every metric of every corpus report both must agree wherever the `ncu` found knows the
//! metric as NVIDIA's module does. What remains differs for reasons Sightline cannot remove:
//! the `ncu` found is another version than NVIDIA's module (2024.1.1 here against 2026.3.1:
//! reworded base texts, e.g. "from unit TEX" became "from unit L1TEX"; metrics added since,
//! e.g. GH100's `lrc__*`; chips added since, e.g. GB206). The test measures the share equal and
//! checks that the differences are only of these kinds: the "(This … metric represents …)"
//! part is always NVIDIA's, and Sightline never describes a metric NVIDIA's module leaves
//! without one.
//!
//! Needs NVIDIA's module and an `ncu` (`SIGHTLINE_NCU`, `PATH`, the install folders, or the one
//! `../shared/tools/ncu-cli-oracle/setup.sh` unpacks); skips with a message naming what is
//! missing (neither is set up by `.ci/run`: NVIDIA's module is optional there, and without it
//! nothing is compared). `ncu` runs with `HOME` and the cache folder in the target folder.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use sightline_test_support::oracles::ncu_cli;

use crate::common::{self, python_json};
use crate::python_module::{python_command, root, site};
use crate::python_oracle::{nvidia_output, oracle_python};

/// The share of metrics (of every result of every corpus report) whose description must equal
/// NVIDIA's: 93.2 % measured with `ncu` 2024.1.1 against NVIDIA's module 2026.3.1 (97,180 of
/// 104,249; the rest: 5,492 reworded base texts, 1,577 of a chip or metric 2024.1.1 does not
/// know).
const DESCRIPTION_AGREEMENT: f64 = 0.93;

/// `command` (Sightline's Python) made to use `ncu` for descriptions, with `HOME` and Sightline's
/// cache folder in the target folder (never the user's).
pub(crate) fn with_ncu<'a>(command: &'a mut Command, ncu: Option<&Path>) -> &'a mut Command {
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ncu-descriptions");
    let home = scratch.join("home");
    std::fs::create_dir_all(&home).expect("scratch home");
    command
        .env(
            "SIGHTLINE_NCU",
            ncu.map_or_else(|| PathBuf::from("none"), Path::to_path_buf),
        )
        .env("HOME", &home)
        .env("XDG_CACHE_HOME", scratch.join("cache"))
        .env("LOCALAPPDATA", scratch.join("cache"))
}

/// Sightline's `description_dump.py` of `report`, describing with `ncu` (none: no `ncu`).
fn our_descriptions(site: &Path, ncu: Option<&Path>, report: &Path) -> Value {
    let script = root().join("tests/python/description_dump.py");
    let out = with_ncu(&mut python_command(site), ncu)
        .arg(&script)
        .arg(report)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}: {}",
        report.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    python_json(&String::from_utf8_lossy(&out.stdout)).expect("JSON")
}

/// Agreement of descriptions, by kind of difference.
#[derive(Default, Debug)]
struct Tally {
    total: usize,
    equal: usize,
    /// Both described, base texts differ (the suffix is equal: checked).
    reworded: usize,
    /// NVIDIA's module describes it, Sightline's `ncu` does not know it (or its chip).
    unknown: usize,
}

impl Tally {
    /// Counts one metric; panics when Sightline describes what NVIDIA's module does not, or
    /// words the suffix differently.
    fn take(&mut self, name: &str, ours: &str, theirs: &str, report: &Path) {
        self.total += 1;
        if ours == theirs {
            self.equal += 1;
        } else if ours.is_empty() {
            self.unknown += 1;
        } else {
            assert!(
                !theirs.is_empty(),
                "{}: {name}: Sightline describes it, NVIDIA's module does not: {ours:?}",
                report.display()
            );
            let suffix = |t: &str| t.split_once("\n(").map(|(_, s)| s.to_owned());
            assert_eq!(
                suffix(ours),
                suffix(theirs),
                "{}: {name}: the suffix differs",
                report.display()
            );
            self.reworded += 1;
        }
    }
}

#[test]
fn metric_descriptions_equal_nvidias_where_the_ncu_found_knows_them() {
    let reports: Vec<PathBuf> = common::corpus_pairs().into_iter().map(|(r, _)| r).collect();
    let Some(site) = site() else { return };
    let Some(python) = oracle_python() else {
        return;
    };
    let Some(ncu) = ncu_cli() else { return };
    let script = root().join("tests/python/description_dump.py");
    let mut tally = Tally::default();
    for report in &reports {
        let ours = our_descriptions(site, Some(&ncu), report);
        let theirs = nvidia_output(&python, &script, &[report.to_str().unwrap()]);
        let theirs = python_json(&theirs).expect("NVIDIA's JSON");
        let (Some(a), Some(b)) = (ours["actions"].as_array(), theirs["actions"].as_array()) else {
            panic!("{}: no actions", report.display());
        };
        assert_eq!(a.len(), b.len(), "{}", report.display());
        for (x, y) in a.iter().zip(b) {
            let y = y.as_object().expect("object");
            for (name, ours) in x.as_object().expect("object") {
                let theirs = y.get(name).and_then(Value::as_str).unwrap_or_default();
                tally.take(name, ours.as_str().unwrap_or_default(), theirs, report);
            }
        }
    }
    let share = tally.equal as f64 / tally.total.max(1) as f64;
    eprintln!(
        "metric descriptions ({} via {}): {} of {} equal NVIDIA's ({:.1} %); {} reworded base \
         texts (same suffix), {} unknown to this ncu (metric or chip)",
        reports.len(),
        ncu.display(),
        tally.equal,
        tally.total,
        100.0 * share,
        tally.reworded,
        tally.unknown
    );
    assert!(tally.total > 0, "nothing compared");
    assert!(
        share >= DESCRIPTION_AGREEMENT,
        "descriptions: {:.1} % equal: {tally:?}",
        100.0 * share
    );
}

#[test]
fn without_ncu_every_description_is_empty() {
    let Some(site) = site() else { return };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("python-holdout");
    std::fs::create_dir_all(&dir).unwrap();
    let report = &sightline_test_support::ncu::holdout::write_holdout(&dir).unwrap()[0];
    let dump = our_descriptions(site, None, report);
    let mut metrics = 0;
    for action in dump["actions"].as_array().expect("actions") {
        for (name, description) in action.as_object().expect("object") {
            assert_eq!(description, "", "{name}");
            metrics += 1;
        }
    }
    assert!(metrics > 100, "only {metrics} metrics");
    // With an ncu, the same report (a GA102 chip) has descriptions.
    if let Some(ncu) = ncu_cli() {
        let dump = our_descriptions(site, Some(&ncu), report);
        let described = dump["actions"][0]
            .as_object()
            .expect("object")
            .values()
            .filter(|d| *d != "")
            .count();
        assert!(
            described > 5,
            "{described} descriptions with {}",
            ncu.display()
        );
    }
}
