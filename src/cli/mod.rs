//! The headless commands of the `sightline` binary, one file per command: each has a clap
//! `Args` struct and a `run` function that writes the command's output to any `Write` and
//! returns the exit code, so that the binary (`src/main.rs`, which passes stdout) and tests can
//! call it in-process. Warnings and diagnostics go to stderr. Argument groups used by several
//! commands are in [`common`].

pub mod analysis_summary;
pub mod analyze;
pub mod baseline;
pub mod common;
pub mod compare;
pub mod counters;
pub mod desktop;
pub mod details;
pub mod dump;
pub mod events;
pub mod export;
pub mod export_parquet;
pub mod gainsight;
pub mod link;
pub mod nvtxt;
pub mod occupancy;
pub mod profile;
pub mod raw;
pub mod recipe;
pub mod recipe_dask;
pub mod recipe_diff;
pub mod rules;
pub mod sections;
pub mod session;
pub mod source;
pub mod stats;
pub mod summary;
pub mod summary_baseline;
pub mod timeline;
