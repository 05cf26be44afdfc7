//! Fuzzes the Nsight Systems export reader: each input is written to a file and opened as an
//! SQLite export, loaded onto a timeline (two tables read ahead; with the visible-items query
//! over every row, and each of the first events' fields decoded — NVTX binary payloads
//! included), the Analysis Summary is read, every `stats` report is computed, and the expert
//! rules' trace is read with its bulk operations run. Errors are expected; panics, hangs and
//! runaway allocations are bugs.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use sightline_model::timeline::TrackId;
use sightline_model::timeline::nsys::trace::{Trace, ops};
use sightline_model::timeline::nsys::{self, stats};

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
    // Two tables read ahead (as on a machine with four cores), so that readers started ahead
    // and stopped are fuzzed too.
    let options = nsys::LoadOptions {
        read_ahead: Some(2),
        ..Default::default()
    };
    if let Ok(tl) = nsys::load_with(path, options) {
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
            // Decodes NVTX binary payloads with the export's schemas.
            let _ = tl.event_fields(e.id);
        }
    }
    // Every report on its own (one failing must not hide the others' panics).
    if let Ok(db) = nsys::ExportDb::open(path) {
        // The Analysis Summary's tables (capture settings, environment, CPUs, NICs, streams).
        let summary = nsys::read_analysis_summary(&db);
        for launch in &summary.summary.launches {
            let _ = launch.command_line();
        }
        for name in stats::report_names() {
            if let Ok(stats::ReportOutcome::Table(t)) = stats::run_report(&db, name) {
                let _ = stats::to_csv(&t);
            }
        }
        // The expert rules' view of the export, and the bulk operations they use.
        if let Ok(trace) = Trace::read(&db) {
            for table in &trace.tables {
                let rows: Vec<u32> = (0..table.len() as u32).collect();
                let by = ["pid".to_string(), "device".to_string()];
                let _ = ops::gaps(table, &rows, &by, 0);
                let _ = ops::utilization(table, &rows, &by, 7);
                let _ = ops::sort(&trace, table, &rows, &[("duration".into(), true)]);
                let _ = ops::filter(&trace, table, &rows, "name", &ops::Test::Contains("a".into()));
            }
        }
    }
});
