//! A rule stuck inside a native function (where the interrupt cannot reach) does not hang the
//! caller: the engine gives up on its worker after the budget plus its grace (`STUCK_GRACE`
//! unless set; one second here, which is all the test needs to wait).
//! (Its own test binary: the abandoned worker spins until the process exits.)
#![allow(clippy::unwrap_used, clippy::expect_used)] // Test code: a failed unwrap is a failed test.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use sightline::ncu::Report;
use sightline::rules::{RuleEngine, RulesError, RunOptions};

#[test]
fn a_rule_stuck_in_native_code_does_not_hang_the_caller() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Stuck.py"),
        "import NvRules\n\ndef get_identifier():\n    return 'Stuck'\n\ndef apply(handle):\n    sum(range(10 ** 15))\n",
    )
    .unwrap();
    let report =
        Report::open(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/sample.ncu-rep"))
            .unwrap();
    let grace = Duration::from_secs(1);
    let engine = RuleEngine::start().unwrap().with_stuck_grace(grace);
    let mut options = RunOptions::new(vec![dir.path().to_path_buf()]);
    options.kernels = Some(vec![0]);
    options.timeout = Duration::from_millis(200);
    let started = Instant::now();
    let result = engine.run(Arc::new(report), options.clone());
    let elapsed = started.elapsed();
    assert!(
        matches!(result, Err(RulesError::Unresponsive(_))),
        "{result:?}"
    );
    assert!(elapsed >= grace, "gave up before the grace: {elapsed:?}");
    assert!(elapsed < grace + Duration::from_secs(5), "{elapsed:?}");
    assert!(matches!(engine.eval("1"), Err(RulesError::EngineGone)));
    // Dropping the engine must not wait for the stuck worker.
    let dropped = Instant::now();
    drop(engine);
    assert!(dropped.elapsed() < Duration::from_secs(2));
}
