//! Writes the export of `sightline_test_support::nsys_rare` (CUDA graph nodes, unified memory,
//! video APIs, network counters; seeds for the `nsys_loader` fuzz target, and exports to open in
//! the app).
//!
//! ```sh
//! cargo run -p sightline-test-support --bin make_nsys_rare -- OUT.sqlite
//! ```

use std::process::ExitCode;

fn main() -> ExitCode {
    sightline_test_support::write_new_file("make_nsys_rare", |path| {
        sightline_test_support::nsys_rare::write_rare(path)
    })
}
