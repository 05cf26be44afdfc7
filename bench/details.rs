//! Details-model benchmark: `cargo bench --bench details`.
//!
//! Measures (median of repeated runs, release build):
//! 1. loading all bundled sections, opening the full-set corpus report and resolving the
//!    Details page of its first kernel (target < 20 ms);
//! 2. resolving all 100 kernels of the 100-kernel corpus report with the bundled sections and
//!    with the report's embedded sections (target < 300 ms).
//!
//! Needs `../shared/corpus/ncu` beside the repository; without it, measures the bundled sample.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Test code: a failed unwrap is a failed test.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sightline::ncu::Report;
use sightline::section::{SectionSet, resolve_action};

fn median(mut runs: Vec<Duration>) -> Duration {
    runs.sort();
    runs[runs.len() / 2]
}

fn time(repeats: usize, mut f: impl FnMut()) -> Duration {
    f();
    median(
        (0..repeats)
            .map(|_| {
                let start = Instant::now();
                f();
                start.elapsed()
            })
            .collect(),
    )
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = root.join("../shared/corpus/ncu/reports");
    let (full, many): (PathBuf, PathBuf) = if corpus.is_dir() {
        (
            corpus.join("ncu2024.1.1_gtx1660s_vec_add_full.ncu-rep"),
            corpus.join("ncu2023.2.0_rtx3080_fuzigrad_100kernels.ncu-rep"),
        )
    } else {
        eprintln!("note: ../shared/corpus not found; measuring fixtures/sample.ncu-rep only");
        (
            root.join("fixtures/sample.ncu-rep"),
            root.join("fixtures/sample.ncu-rep"),
        )
    };

    let one = time(50, || {
        let set = SectionSet::bundled();
        let report = Report::open(&full).expect("report");
        let action = report.action(0).expect("action");
        black_box(resolve_action(&action, &set));
    });
    println!(
        "load bundled sections + open {} + resolve kernel 0: {:.2} ms (target < 20 ms)",
        full.file_name().unwrap().to_string_lossy(),
        one.as_secs_f64() * 1e3
    );

    let report = Report::open(&many).expect("report");
    let set = SectionSet::bundled();
    let all_bundled = time(10, || {
        for i in 0..report.num_actions() {
            let action = report.action(i).expect("action");
            black_box(resolve_action(&action, &set));
        }
    });
    let all_embedded = time(10, || {
        for i in 0..report.num_actions() {
            let action = report.action(i).expect("action");
            let set = SectionSet::from_embedded(action.sections().expect("sections"));
            black_box(resolve_action(&action, &set));
        }
    });
    println!(
        "resolve all {} kernels of {}: {:.1} ms with bundled sections, {:.1} ms with embedded sections (target < 300 ms)",
        report.num_actions(),
        many.file_name().unwrap().to_string_lossy(),
        all_bundled.as_secs_f64() * 1e3,
        all_embedded.as_secs_f64() * 1e3
    );
}
