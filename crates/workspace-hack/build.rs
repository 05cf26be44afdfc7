//! Empty: cargo resolves a package's build-dependencies only when it has a build script, and
//! the build-dependencies are how this crate unifies the features of host-side crates.

fn main() {}
