//! Writes the test fixtures and the bundled sample into `fixtures/` with Sightline's own
//! writer. Run `cargo run --example make_fixtures`; see `fixtures/README.md` for verifying
//! them with NVIDIA's reader.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Test code: a failed unwrap is a failed test.

use std::path::Path;

use sightline_test_support::ncu::fixtures::{FIXTURE_NAMES, fixture_bytes};

fn main() -> anyhow::Result<()> {
    // The repository's fixtures/ folder, two levels above this crate.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    std::fs::create_dir_all(&dir)?;
    for name in FIXTURE_NAMES {
        std::fs::write(dir.join(name), fixture_bytes(name)?)?;
        println!("wrote fixtures/{name}");
    }
    Ok(())
}
