//! Nsight Compute reports (`.ncu-rep`, `.ncu-repz`): reading, the model, and writing.
//!
//! [`Report::open`] indexes a file without decoding its results; [`Report::action`] decodes
//! one result into an [`Action`] with its [`Metric`]s. [`writer`] produces reports (fixtures,
//! benchmarks), [`units`] infers metric units from names.

mod action;
pub mod dump;
mod error;
pub mod fixtures;
mod metric;
pub mod nvtx;
mod report;
pub mod rule_result;
pub mod synth;
pub mod synth_edge;
pub mod synth_kernels;
pub mod units;
pub mod wire;
pub mod writer;

pub use action::{Action, NameBase, ResultInfo};
pub use error::{ReadError, ReadWarning};
pub use metric::{Instance, Metric, MetricValue, ValueKind};
pub use report::{DEVICE_ATTRIBUTE_PREFIX, MAGIC, Report, SourceEntry, ToolVersion, WorkloadKind};
