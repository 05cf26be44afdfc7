//! Fuzzes the whole read path: indexing a report held in memory (plain or zstd-compressed),
//! decoding every action with its section identifiers and sections, and writing the JSON dump.
//! Errors are expected; panics, hangs and runaway allocations are bugs.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sightline_model::ncu::{DumpOptions, Report, write_dump};

fuzz_target!(|data: &[u8]| {
    let Ok(report) = Report::from_bytes("fuzz.ncu-rep", bytes::Bytes::copy_from_slice(data)) else {
        return;
    };
    let _ = report.warnings();
    for index in 0..report.num_actions() {
        let Ok(action) = report.action(index) else {
            continue;
        };
        for (name, metric) in action.metrics_by_name() {
            let _ = (name.len(), metric.kind(), metric.value());
        }
        let _ = action.section_identifiers();
        let _ = action.sections();
        let _ = (action.rule_results().len(), action.nvtx().is_some());
    }
    let options = DumpOptions {
        units: true,
        kernel: None,
    };
    let _ = write_dump(&report, &options, std::io::sink());
});
