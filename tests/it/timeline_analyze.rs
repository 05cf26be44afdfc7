//! The expert rules (Python timeline rules) equal `nsys analyze` on every corpus export: for each
//! line of the oracle's `analyze/STATUS.tsv`, an `ok` rule's CSV byte for byte, a `no-rows` rule
//! an empty table, a `SKIPPED` rule the same message — except where nsys refuses an export that
//! holds the data (no `ENUM_CUDA_MEM_KIND`, no `greenContextId`): there Sightline answers.
//! Also: options, user rules (added, edited, broken) and hostile rules.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use sightline::rules::{RuleEngine, TimelineOutcome, TimelineRunOptions};
use sightline::timeline::nsys::stats;
use sightline::timeline::nsys::trace::Trace;

fn corpus() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/nsys");
    if dir.join("MANIFEST.tsv").is_file() {
        Some(dir)
    } else {
        crate::common::skip_shared(format!("{} is absent", dir.display()));
        None
    }
}

fn exports(corpus: &Path) -> Vec<PathBuf> {
    let manifest = std::fs::read_to_string(corpus.join("MANIFEST.tsv"))
        .unwrap_or_else(|e| panic!("MANIFEST.tsv: {e}"));
    manifest
        .lines()
        .skip(1)
        .filter_map(|l| l.split('\t').next())
        .filter(|f| f.ends_with(".sqlite"))
        .map(|f| corpus.join(f))
        .collect()
}

fn engine() -> RuleEngine {
    RuleEngine::start().unwrap_or_else(|e| panic!("{e}"))
}

fn run(engine: &RuleEngine, trace: &Arc<Trace>, requests: Vec<String>) -> Vec<TimelineOutcome> {
    let options = TimelineRunOptions {
        requests: Some(requests),
        timeout: Duration::from_secs(30),
        ..TimelineRunOptions::bundled()
    };
    let out = engine
        .run_timeline(trace.clone(), options)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(out.load_errors.is_empty(), "{:?}", out.load_errors);
    out.findings.into_iter().map(|f| f.outcome).collect()
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
fn every_rule_on_every_export_equals_nsys_analyze() {
    let Some(corpus) = corpus() else { return };
    let engine = engine();
    let mut failures = Vec::new();
    let mut checked = 0;
    for export in exports(&corpus) {
        let stem = export
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let oracle = corpus.join("oracle").join(&stem).join("analyze");
        let status = std::fs::read_to_string(oracle.join("STATUS.tsv"))
            .unwrap_or_else(|e| panic!("{}: {e}", oracle.display()));
        let trace = Arc::new(Trace::open(&export).unwrap_or_else(|e| panic!("{e}")));
        let lines: Vec<(String, String)> = status
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| {
                let mut c = l.split('\t');
                Some((c.next()?.to_string(), c.next()?.to_string()))
            })
            .filter(|(name, _)| !name.starts_with("dx12_mem_ops"))
            .collect();
        let requests = lines.iter().map(|(n, _)| n.replace('@', ":")).collect();
        let outcomes = run(&engine, &trace, requests);
        let shown = format!("inputs/{stem}.sqlite");
        for ((name, state), outcome) in lines.iter().zip(outcomes) {
            checked += 1;
            let what = format!("{stem}: {name}");
            match (state.as_str(), &outcome) {
                ("ok", TimelineOutcome::Table { table, .. }) => {
                    let expected = std::fs::read_to_string(oracle.join(format!("{name}.csv")))
                        .unwrap_or_else(|e| panic!("{what}.csv: {e}"));
                    let got = stats::to_csv(table);
                    if got != expected {
                        failures.push(format!("{what}: {}", first_difference(&expected, &got)));
                    }
                }
                (s, TimelineOutcome::Table { table, .. }) if s.starts_with("no-rows") => {
                    if !table.rows.is_empty() {
                        failures.push(format!(
                            "{what}: nsys has no rows, got {}",
                            table.rows.len()
                        ));
                    }
                }
                (s, _) if s.starts_with("SKIPPED: ") => {
                    let message =
                        s["SKIPPED: ".len()..].replace(&shown, &export.display().to_string());
                    let refused = message.contains("Please re-export")
                        || message.contains("does not contain ENUM_");
                    match &outcome {
                        TimelineOutcome::Skipped(m) if *m == message => {}
                        TimelineOutcome::Table { .. } if refused => {}
                        other => {
                            failures.push(format!("{what}: nsys SKIPPED: {message}, got {other:?}"))
                        }
                    }
                }
                (s, other) => failures.push(format!("{what}: nsys {s}, got {other:?}")),
            }
        }
    }
    eprintln!("{checked} rule runs checked against nsys analyze");
    assert!(checked > 0, "no rule run checked");
    assert!(
        failures.is_empty(),
        "{} of {checked} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
