//! Writes the export of `sightline_test_support::nsys_pmu` (CPU core and uncore PMU counters;
//! seeds for the `nsys_loader` fuzz target, and exports to open in the app).
//!
//! ```sh
//! cargo run -p sightline-test-support --bin make_nsys_pmu -- OUT.sqlite
//! ```

use std::process::ExitCode;

fn main() -> ExitCode {
    sightline_test_support::write_new_file("make_nsys_pmu", |path| {
        sightline_test_support::nsys_pmu::write_pmu(path)
    })
}
