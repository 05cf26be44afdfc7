//! Fuzzes the CodeXL / RCP occupancy reader (`.occupancy`): parse arbitrary bytes, split kernel
//! names, and compute each row's occupancy model and its four charts from the limits in the
//! row. Warnings are expected; panics (overflow), hangs (huge ranges) are bugs.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sightline_model::codexl::{OccupancyFile, OccupancyModel};

fuzz_target!(|data: &[u8]| {
    let file = OccupancyFile::parse(data);
    for row in file.rows.iter().take(16) {
        let _ = file.kernel_parts(row);
        if let Some(model) = OccupancyModel::from_row(row) {
            let _ = model.limits(model.usage);
            let _ = model.curves();
        }
    }
});
