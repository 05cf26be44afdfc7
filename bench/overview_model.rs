//! The Summary page's rows without the app: `cargo bench -p sightline-model --bench
//! overview_model [-- REPORT]` (the model crate alone, so an optimized build does not wait for
//! the GUI and Python crates). Times decoding every result of the 2,000-kernel benchmark report
//! (`target/bench-data/bench-2000.ncu-rep`, written by `cargo bench --bench summary` or
//! `make_bench_report`) and computing every Summary row, best of 3.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Test code: a failed unwrap is a failed test.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sightline_model::ncu::Report;
use sightline_model::section::{OverviewBuilder, SectionSet};

fn best(mut run: impl FnMut()) -> Duration {
    (0..3)
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed()
        })
        .min()
        .unwrap()
}

fn main() {
    let path = std::env::args()
        .nth(1)
        .filter(|a| !a.starts_with('-'))
        .map_or_else(
            || {
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("../../target/bench-data/bench-2000.ncu-rep")
            },
            PathBuf::from,
        );
    let report = Report::open(&path).unwrap();
    let n = report.num_actions();
    let decode = best(|| {
        for i in 0..n {
            std::hint::black_box(report.action(i).unwrap());
        }
    });
    let bundled = SectionSet::bundled();
    let rows = best(|| {
        let mut builder = OverviewBuilder::new(&bundled, true);
        for i in 0..n {
            std::hint::black_box(builder.row(&report.action(i).unwrap()));
        }
    });
    println!(
        "{n} results: decode {:.0} ms, Summary rows (decode included) {:.0} ms",
        decode.as_secs_f64() * 1e3,
        rows.as_secs_f64() * 1e3
    );
}
