//! The model crate's integration tests: one binary (linking once), a module per concept.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Test code: a failed unwrap is a failed test.

mod ncu_demangle;
mod ncu_source_cli_oracle;
mod ncu_source_nvdisasm;
mod ncu_source_oracle;
mod nsys_apis_exports;
mod nsys_stats_fixtures_apis;
mod nsys_stats_fixtures_nvtx;
mod nsys_stats_oracle;
mod source_common;
