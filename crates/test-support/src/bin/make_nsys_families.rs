//! Writes the export of every table family (`sightline_test_support::nsys_families`): CPU
//! samples, scheduling, backtraces, profiler overhead, OpenMP, OpenACC, graphics APIs, FECS,
//! SLI, ETW, generic events, diagnostics and GPU memory counters.
//!
//! ```sh
//! cargo run -p sightline-test-support --bin make_nsys_families -- fixtures/nsys/families.sqlite
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use sightline_test_support::nsys_families::write_families;

fn main() -> ExitCode {
    let Some(out) = std::env::args().nth(1).map(PathBuf::from) else {
        eprintln!("usage: make_nsys_families OUT.sqlite");
        return ExitCode::FAILURE;
    };
    if out.exists() {
        eprintln!("{} exists; remove it first", out.display());
        return ExitCode::FAILURE;
    }
    match write_families(&out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{}: {e}", out.display());
            ExitCode::FAILURE
        }
    }
}
