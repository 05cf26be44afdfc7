//! Every `nsys stats` report on every corpus export equals NVIDIA's output: for each line of the
//! oracle's `STATUS.tsv` (every report nsys 2023.4 lists, and the option variants), an `ok`
//! report's CSV byte for byte, a `no-rows` report an empty table, a `SKIPPED` report the same
//! message — except where nsys refuses an export that holds the data (an older layout): there
//! Sightline answers, with nsys 2022.4's output where the oracle has it.
//!
//! The exports are those `../shared/corpus/nsys/MANIFEST.tsv` lists; this test skips with a
//! message when ../shared is absent and fails instead under `SIGHTLINE_REQUIRE_SHARED=1`.

use std::path::{Path, PathBuf};

use sightline_model::timeline::nsys::ExportDb;
use sightline_model::timeline::nsys::stats::{self, ReportOutcome};

fn corpus() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/nsys");
    if dir.join("MANIFEST.tsv").is_file() {
        return Some(dir);
    }
    let reason = format!("{} is absent", dir.display());
    assert!(
        std::env::var_os("SIGHTLINE_REQUIRE_SHARED").is_none_or(|v| v != "1"),
        "{reason}: SIGHTLINE_REQUIRE_SHARED=1 requires ../shared beside the repository"
    );
    eprintln!("skipped: {reason}");
    None
}

/// The exports the manifest lists, with their oracle folders.
fn exports(corpus: &Path) -> Vec<(PathBuf, PathBuf)> {
    let manifest = std::fs::read_to_string(corpus.join("MANIFEST.tsv"))
        .unwrap_or_else(|e| panic!("MANIFEST.tsv: {e}"));
    manifest
        .lines()
        .skip(1)
        .filter_map(|l| l.split('\t').next())
        .filter(|f| f.ends_with(".sqlite"))
        .map(|f| {
            let stem = f.trim_end_matches(".sqlite");
            (corpus.join(f), corpus.join("oracle").join(stem))
        })
        .collect()
}

/// Where nsys 2023.4 refused an export that holds the data (Sightline answers instead).
fn refused(message: &str) -> bool {
    message.contains("Please re-export") || message.contains("does not contain ENUM_")
}

fn first_difference(expected: &str, got: &str) -> String {
    for (i, (e, g)) in expected.lines().zip(got.lines()).enumerate() {
        if e != g {
            return format!("line {}:\n expected {e}\n      got {g}", i + 1);
        }
    }
    format!(
        "{} lines expected, {} got",
        expected.lines().count(),
        got.lines().count()
    )
}

#[test]
fn every_report_on_every_export_equals_nsys_stats() {
    let Some(corpus) = corpus() else { return };
    let mut failures = Vec::new();
    let mut unknown = std::collections::BTreeSet::new();
    let mut checked = 0;
    for (export, oracle) in exports(&corpus) {
        let status = std::fs::read_to_string(oracle.join("STATUS.tsv"))
            .unwrap_or_else(|e| panic!("{}: {e}", oracle.display()));
        let db = ExportDb::open(&export).unwrap_or_else(|e| panic!("{e}"));
        let shown = format!(
            "inputs/{}",
            export.file_name().unwrap_or_default().to_string_lossy()
        );
        for line in status.lines().filter(|l| !l.starts_with('#')) {
            let mut cols = line.split('\t');
            let (Some(name), Some(state)) = (cols.next(), cols.next()) else {
                continue;
            };
            let request = name.replace('@', ":");
            if let Err(e) = stats::ReportRequest::parse(&request) {
                // Every report and option nsys lists is Sightline's too.
                unknown.insert(request);
                failures.push(format!("{}: {e}", export.display()));
                continue;
            }
            let what = format!("{}: {name}", export.display());
            let outcome = match stats::run_report(&db, &request) {
                Ok(o) => o,
                Err(e) => {
                    failures.push(format!("{what}: error {e}"));
                    continue;
                }
            };
            checked += 1;
            match (state, &outcome) {
                ("ok", ReportOutcome::Table(t)) => {
                    let expected = std::fs::read_to_string(oracle.join(format!("{name}.csv")))
                        .unwrap_or_else(|e| panic!("{what}.csv: {e}"));
                    let got = stats::to_csv(t);
                    if got != expected {
                        failures.push(format!("{what}: {}", first_difference(&expected, &got)));
                    }
                }
                (s, ReportOutcome::Table(t)) if s.starts_with("no-rows") => {
                    if !t.rows.is_empty() {
                        failures.push(format!("{what}: nsys has no rows, got {}", t.rows.len()));
                    }
                }
                (s, outcome) if s.starts_with("SKIPPED: ") => {
                    let message =
                        s["SKIPPED: ".len()..].replace(&shown, &db.path.display().to_string());
                    match outcome {
                        ReportOutcome::Skipped(m) if *m == message => {}
                        ReportOutcome::Table(t) if refused(&message) => {
                            let old = stats::OLD_NAMES.iter().find(|(_, new)| *new == name).map(
                                |(old, _)| {
                                    oracle.join("nsys-2022.4.2.1").join(format!("{old}.csv"))
                                },
                            );
                            if let Some(expected) =
                                old.and_then(|p| std::fs::read_to_string(p).ok())
                            {
                                let got = stats::to_csv(t);
                                if got != expected {
                                    failures.push(format!(
                                        "{what} (nsys 2022.4): {}",
                                        first_difference(&expected, &got)
                                    ));
                                }
                            }
                        }
                        other => {
                            failures.push(format!("{what}: nsys SKIPPED: {message}, got {other:?}"))
                        }
                    }
                }
                (s, ReportOutcome::Skipped(m)) => {
                    failures.push(format!("{what}: nsys {s}, Sightline skipped: {m}"));
                }
                (s, _) => failures.push(format!("{what}: unexpected oracle state {s:?}")),
            }
        }
    }
    eprintln!("{checked} reports checked; not computed by Sightline: {unknown:?}");
    assert!(
        failures.is_empty(),
        "{} of {checked} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
