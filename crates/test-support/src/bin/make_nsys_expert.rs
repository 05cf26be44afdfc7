//! Writes the export that gives every expert rule something to find
//! (`sightline_test_support::nsys_expert`).
//!
//! ```sh
//! cargo run -p sightline-test-support --bin make_nsys_expert -- fixtures/nsys/expert.sqlite
//! ```

use std::process::ExitCode;

fn main() -> ExitCode {
    sightline_test_support::write_new_file("make_nsys_expert", |path| {
        sightline_test_support::nsys_expert::write_expert(path)
    })
}
