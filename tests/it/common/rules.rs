//! Helpers for tests that run small rule files on the fixtures through the engine.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use sightline::ncu::Report;
use sightline::rules::{RuleEngine, RunOptions, RunOutput};

/// `fixtures/sample.ncu-rep`, opened.
pub fn sample() -> Arc<Report> {
    Arc::new(Report::open(super::fixtures().join("sample.ncu-rep")).expect("sample report"))
}

/// A temporary folder holding the given `(file name, text)` rule files.
pub fn rules_dir(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).expect("write rule");
    }
    dir
}

/// Runs the rules of `dir` on the sample's `kernels` (all when `None`) with `timeout` per call.
pub fn run(
    engine: &RuleEngine,
    dir: &Path,
    kernels: Option<Vec<usize>>,
    timeout: Duration,
) -> RunOutput {
    let mut options = RunOptions::new(vec![dir.to_path_buf()]);
    options.kernels = kernels;
    options.timeout = timeout;
    engine.run(sample(), options).expect("run")
}

/// A rule file with identifier `id`, name "`id` rule" and `body` (which defines `apply`).
pub fn rule(id: &str, body: &str) -> String {
    format!(
        "import NvRules\n\ndef get_identifier():\n    return {id:?}\n\ndef get_name():\n    return {id:?} + ' rule'\n\n{body}\n"
    )
}

/// Runs `body` as rule `id` on kernel 0 of the sample: the messages of its result, or the
/// rule's error (traceback) when it failed. A rule file that does not load fails the test.
pub fn apply_rule(
    id: &str,
    body: &str,
) -> Result<Vec<sightline::rules::model::RuleMessage>, String> {
    let file = format!("{id}.py");
    let dir = rules_dir(&[(file.as_str(), &rule(id, body))]);
    let engine = RuleEngine::start().expect("engine");
    let out = run(&engine, dir.path(), Some(vec![0]), Duration::from_secs(20));
    assert!(out.load_errors.is_empty(), "{:?}", out.load_errors);
    let kernel = &out.kernels[0];
    if let Some(error) = kernel.errors.first() {
        return Err(error.message.clone());
    }
    Ok(kernel.results[0].messages.clone())
}
