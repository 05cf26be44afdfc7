//! Fuzzes the CodeXL / RCP performance-counter reader (`.csv` of every dialect): parse arbitrary
//! bytes, type every value, split `Method`, aggregate per kernel, read every column as a chart
//! series and join by thread and call index. Warnings are expected; panics and hangs are bugs.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sightline_model::codexl::CounterFile;

fuzz_target!(|data: &[u8]| {
    let file = CounterFile::parse(data);
    let _ = file.aggregates();
    for column in 0..file.table.columns.len().min(64) {
        let _ = file.column_values(column);
    }
    let _ = file.row_for_call(1, 1);
    for warning in file.warnings() {
        let _ = warning.plain_in(std::path::Path::new("fuzz.csv")).to_string();
    }
});
