//! Fuzzes the Chrome JSON trace reader (`sightline_model::timeline::export::read_chrome`): the
//! streamed `traceEvents` array, ids as numbers or strings, `B`/`E` pairing, counters with any
//! arguments, metadata and flow binding. When the input reads, the timeline is exported again to
//! Chrome JSON and must read back with the same number of events. Errors are expected; panics,
//! hangs and runaway allocations are bugs.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use sightline_model::timeline::export::{ExportFormat, ExportOptions, export, read_chrome};

fuzz_target!(|data: &[u8]| {
    let Ok(timeline) = read_chrome::from_bytes(Path::new("fuzz.json"), data) else {
        return;
    };
    let mut again = Vec::new();
    if export(&timeline, ExportFormat::ChromeJson, ExportOptions::default(), &mut again).is_ok() {
        let back = read_chrome::from_bytes(Path::new("again.json"), &again)
            .expect("Sightline reads its own export");
        assert_eq!(back.event_count(), timeline.event_count());
    }
});
