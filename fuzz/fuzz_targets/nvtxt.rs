//! Fuzzes the NVTXT parser (`sightline_model::timeline::nvtxt`): lexing, `$Name` expansion, formats,
//! calls with static arguments, built-in commands, push/pop nesting and ranges left open.
//! Then the document on the timeline, alone and merged beside an empty export's timeline.
//! Diagnostics are the expected outcome for most inputs; a panic, a hang or an event that breaks
//! the document's invariants is a bug.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sightline_model::timeline::nvtxt::{self, EventKind};

fuzz_target!(|data: &[u8]| {
    let doc = nvtxt::parse("fuzz.nvtxt", data);
    let lines = data.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    let mut previous = (0, 0);
    for d in &doc.diagnostics {
        assert!(d.line() >= 1 && u64::from(d.line()) <= lines, "{d:?}");
        assert!(d.column() >= 1, "{d:?}");
        assert!((d.line(), d.column()) >= previous, "diagnostics out of order");
        previous = (d.line(), d.column());
    }
    for line in doc.diagnostic_lines() {
        assert!(line.starts_with("fuzz.nvtxt:"));
    }
    for event in &doc.events {
        assert!(event.start >= 0 && event.end >= event.start, "{event:?}");
        assert!(
            event.pid <= 0xFF_FFFF && event.tid <= 0xFF_FFFF,
            "{event:?}"
        );
        match event.kind {
            EventKind::Marker => assert_eq!(event.start, event.end),
            EventKind::Range => assert!(event.start < event.end),
            EventKind::PushPop => {
                if event.open {
                    assert!(doc.last_timestamp.is_some_and(|last| last >= event.start));
                }
            }
        }
        let _ = doc.message(event);
        let _ = doc.color_written(event);
    }
    let _ = doc.title();

    let timeline = nvtxt::timeline_of(&doc);
    assert_eq!(timeline.event_count(), doc.events.len());
    assert_eq!(timeline.warnings.len(), doc.diagnostics.len());
    let merged = sightline_model::timeline::merge_nvtxt(
        sightline_model::timeline::Timeline::default(),
        std::slice::from_ref(&doc),
    );
    assert_eq!(merged.event_count(), doc.events.len());
});
