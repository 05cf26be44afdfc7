//! Nsight Compute reports (`.ncu-rep`, `.ncu-repz`): reading, the model, and writing.
//!
//! [`Report::open`] indexes a file without decoding its results; [`Report::action`] decodes
//! one result into an [`Action`] with its [`Metric`]s; [`units`] infers metric units from names.
//! (Reports are written by the `sightline-test-support` crate, for fixtures and benchmarks.)

mod action;
pub mod dump;
mod error;
pub mod launch_row;
pub mod markup;
mod metric;
pub mod nvtx;
pub mod pages;
mod report;
pub mod rule_result;
pub mod source;
pub mod units;
pub mod wire;

pub use action::{Action, NameBase, ResultInfo};
pub use error::ReadError;
pub use launch_row::LaunchRow;
pub use metric::{Instance, Metric, MetricValue, SAMPLER_CATEGORY, ValueKind};
pub use report::{DEVICE_ATTRIBUTE_PREFIX, MAGIC, Report, SourceEntry, ToolVersion, WorkloadKind};
