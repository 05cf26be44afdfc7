//! Fuzzes the Nsight Systems export reader: each input is written to a file and opened as an
//! SQLite export, loaded onto a timeline (with the visible-items query over every row), and
//! every `stats` report is computed. Errors are expected; panics, hangs and runaway allocations
//! are bugs.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use sightline::timeline::TrackId;
use sightline::timeline::nsys::{self, stats};

fn scratch() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        std::env::temp_dir().join(format!("sightline-fuzz-nsys-{}.sqlite", std::process::id()))
    })
}

fuzz_target!(|data: &[u8]| {
    let path = scratch();
    if std::fs::write(path, data).is_err() {
        return;
    }
    if let Ok(tl) = nsys::load(path) {
        let _ = tl.warnings.len();
        if let Some((t0, t1)) = tl.time_range() {
            let mut items = Vec::new();
            for (t, track) in tl.tracks.iter().enumerate() {
                for r in 0..track.rows.len() {
                    items.clear();
                    tl.visible(
                        TrackId(t as u32),
                        r,
                        t0,
                        t1,
                        ((t1 - t0) as f64 / 500.0).max(1.0),
                        &mut items,
                    );
                }
            }
            let _ = tl.range_stats(t0, t1, &[]);
            let _ = tl.gpu_utilization(None);
        }
        let _ = tl.search("a");
        for e in tl.events().take(64) {
            let _ = tl.flow_partners(e.id);
            let _ = tl.attrs(e.id);
        }
    }
    if let Ok(results) = stats::run_reports(path, &stats::report_names()) {
        for (_, outcome) in results {
            if let stats::ReportOutcome::Table(t) = outcome {
                let _ = stats::to_csv(&t);
            }
        }
    }
});
