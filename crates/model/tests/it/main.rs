//! The model crate's integration tests: one binary (linking once), a module per concept.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Test code: a failed unwrap is a failed test.

mod ncu_demangle;
mod ncu_lazy;
mod ncu_source_cli_oracle;
mod ncu_source_nvdisasm;
mod ncu_source_oracle;
mod nsys_apis_exports;
mod nsys_stats_fixtures_apis;
mod nsys_stats_fixtures_nvtx;
mod nsys_stats_oracle;
mod nsys_summary_info;
mod source_common;

/// Test-support's `par` (independent checks on every core), compiled in from its file: a
/// dev-dependency on the test-support crate, which depends on this one, would make the model's
/// own unit-test build wait for both crates (44 s at the end of a clean build).
#[path = "../../../test-support/src/par.rs"]
mod par;
