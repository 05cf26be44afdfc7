//! Fuzzes the page-level salvage of SQLite files whose schema does not read
//! (`nsys::salvage`): each input is written to a file and salvaged into a temporary database,
//! which is then loaded as an export; then every `stats` report runs over the file as the CLI
//! and the app open it (`ExportDb::open_salvaging`). Errors are expected; panics, hangs and
//! runaway allocations are bugs. Seed it with small exports whose page 1 is damaged.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use sightline_model::timeline::nsys::{ExportDb, salvage, stats};

fn scratch() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        std::env::temp_dir().join(format!("sightline-fuzz-salvage-{}.sqlite", std::process::id()))
    })
}

fuzz_target!(|data: &[u8]| {
    let path = scratch();
    if std::fs::write(path, data).is_err() {
        return;
    }
    if let Ok(salvaged) = salvage(path) {
        let _ = salvaged.summary();
        let _ = sightline_model::timeline::nsys::load(salvaged.path());
    }
    if let Ok(db) = ExportDb::open_salvaging(path) {
        let _ = db.salvage.as_ref().map(String::len);
        for name in stats::report_names() {
            if let Ok(stats::ReportOutcome::Table(t)) = stats::run_report(&db, name) {
                let _ = stats::to_csv(&t);
            }
        }
    }
});
