//! Nsight Compute reports (`.ncu-rep`, `.ncu-repz`): reading, the model, and writing.
//!
//! [`Report::open`] indexes a file without decoding its results ([`Report::open_lazy`] only as
//! far as each question needs); [`Report::action`] decodes
//! one result into an [`Action`] with its [`Metric`]s; `units` infers metric units from names.
//! (Reports are written by the `sightline-test-support` crate, for fixtures and benchmarks.)

mod action;
mod dump;
mod error;
mod index;
mod launch_row;
mod markup;
mod metric;
pub mod metric_library;
pub mod nvrules;
pub(crate) mod nvtx;
pub mod pages;
mod report;
pub(crate) mod rule_result;
pub mod source;
pub(crate) mod units;
mod wire;
pub use dump::{DumpOptions, write_dump, write_metric_value};
pub use markup::{Span, parse_markup};
pub use nvtx::{DEFAULT_DOMAIN_NAME, NvtxView};
pub use rule_result::{
    CellStyle, ColumnConfig, FocusMetric, MsgType, RuleMessage, RuleOrigin, RuleTable, Speedup,
    StoredMessage, TableCell, TableSort, rule_messages, write_json as write_rule_json,
};
pub use units::{infer_cli_unit, infer_unit};

pub use action::{Action, NameBase, ResultInfo};
pub use error::ReadError;
pub use launch_row::{LaunchRow, UNREADABLE_NAME};
pub use metric::{Instance, Metric, MetricValue, SAMPLER_CATEGORY, ValueKind};
pub use report::{DEVICE_ATTRIBUTE_PREFIX, MAGIC, Report, SourceEntry, ToolVersion, WorkloadKind};
