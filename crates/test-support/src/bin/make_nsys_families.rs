//! Writes the export of every table family (`sightline_test_support::nsys_families`): CPU
//! samples, scheduling, backtraces, profiler overhead, OpenMP, OpenACC, graphics APIs, FECS,
//! SLI, ETW, generic events, diagnostics and GPU memory counters.
//!
//! ```sh
//! cargo run -p sightline-test-support --bin make_nsys_families -- fixtures/nsys/families.sqlite
//! ```

use std::process::ExitCode;

fn main() -> ExitCode {
    sightline_test_support::write_new_file("make_nsys_families", |path| {
        sightline_test_support::nsys_families::write_families(path)
    })
}
