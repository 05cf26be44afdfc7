//! Fuzzes the Perfetto protobuf trace reader (`sightline_model::timeline::export::read_perfetto`):
//! packet framing, track descriptors (parents, lanes, cycles), interned names and categories
//! per sequence, slice begin/end pairing, counters and flows. When the input reads, the
//! timeline is exported again to both formats (into a sink) and the Perfetto export must read
//! back with the same number of events. Errors are expected; panics, hangs and runaway
//! allocations are bugs.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use sightline_model::timeline::export::{ExportFormat, ExportOptions, export, read_perfetto};

fuzz_target!(|data: &[u8]| {
    let Ok(timeline) = read_perfetto::from_bytes(Path::new("fuzz.pftrace"), data) else {
        return;
    };
    let _ = export(
        &timeline,
        ExportFormat::ChromeJson,
        ExportOptions::default(),
        &mut std::io::sink(),
    );
    let mut again = Vec::new();
    if export(&timeline, ExportFormat::Perfetto, ExportOptions::default(), &mut again).is_ok() {
        let back = read_perfetto::from_bytes(Path::new("again.pftrace"), &again)
            .expect("Sightline reads its own export");
        assert_eq!(back.event_count(), timeline.event_count());
    }
});
