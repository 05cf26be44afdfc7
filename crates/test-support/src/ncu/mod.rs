//! Nsight Compute reports: the writer and the synthetic kernels of the fixtures.

pub mod fixtures;
pub mod holdout;
pub mod synth;
pub mod synth_edge;
pub mod synth_kernels;
pub mod synth_names;
pub mod synth_source;
pub mod synth_units;
pub mod writer;
