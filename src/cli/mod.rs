//! Text, CSV and JSON renderers of the headless commands, one file per command.
//!
//! (The Nsight Compute commands' renderers still sit at `src/*_output.rs`.)

pub mod counters;
pub mod gainsight;
pub mod nvtxt;
pub mod occupancy;
pub mod stats;
pub mod timeline;
