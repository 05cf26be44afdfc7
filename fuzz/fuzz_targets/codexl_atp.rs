//! Fuzzes the `.atp` reader (AMD CodeXL / RCP application traces): parse arbitrary bytes, then
//! read every call's trace line, every command's launch or transfer, every source location and
//! the warnings; then put it on the timeline and read every event's details and dispatch key,
//! also after the records the timeline holds are freed (calls, perfmarkers, commands shrunk):
//! both must give the same details. Warnings are expected; panics, hangs and runaway
//! allocations are bugs.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sightline_model::timeline::atp::{AtpFile, dispatch_key, event_details, timeline_of};

fuzz_target!(|data: &[u8]| {
    let file = AtpFile::from_bytes("fuzz.atp", data.to_vec());
    let trace = &file.trace;
    for call in &trace.calls {
        let _ = file.api_line(call);
        let _ = trace.call_name(call);
    }
    for thread in &trace.threads {
        let calls = trace.thread_calls(thread);
        for index in 0..calls.len().min(64) {
            let _ = trace.source_location(thread, index);
        }
    }
    for command in &trace.enqueues {
        let _ = (trace.launch(command), trace.transfer_bytes(command));
        let _ = trace
            .queues
            .get(command.queue as usize)
            .map(|q| trace.names.get(q.device));
    }
    let _ = (
        trace.header.trace_file_version(),
        trace.event_count(),
        trace.heap_bytes(),
    );
    let _ = file.warning_texts();

    let timeline = timeline_of(&file);
    assert_eq!(timeline.event_count(), trace.event_count());
    let mut slim = AtpFile::from_bytes("fuzz.atp", data.to_vec());
    slim.free_timeline_records();
    for event in timeline.events().take(256) {
        let full = event_details(&file, &timeline, event.id);
        assert_eq!(full, event_details(&slim, &timeline, event.id));
        assert_eq!(
            dispatch_key(&file, &timeline, event.id),
            dispatch_key(&slim, &timeline, event.id)
        );
    }
});
