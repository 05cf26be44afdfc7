//! Fuzzes the page-level salvage of SQLite files whose schema does not read
//! (`nsys::salvage`): each input is written to a file and salvaged into a temporary database,
//! which is then opened and counted. Errors are expected; panics, hangs and runaway allocations
//! are bugs. Seed it with small exports whose page 1 is damaged.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use sightline::timeline::nsys::salvage;

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
    if let Ok(salvaged) = salvage::salvage(path) {
        let _ = salvaged.summary();
        let _ = sightline::timeline::nsys::load(salvaged.path());
    }
});
