//! Rules: Python files that turn metrics into advice.
//!
//! [`scan`] finds rule files and reads their bindings without running them; [`bundled`] holds
//! Sightline's own rules (`rules/`), deployed beside the bundled sections. The rest runs
//! them: [`engine`] owns an embedded RustPython interpreter on a worker thread, `nvrules` is the
//! `NvRules` module the rules import (implemented in Rust), [`order`] puts parents first,
//! [`nvtx_filter`] implements `IRange.actions_by_nvtx`, and [`model`] holds the results.

pub mod bundled;
pub mod engine;
mod interp;
pub mod model;
pub(crate) mod nvrules;
pub use sightline_model::ncu::nvrules::nvtx_filter;
pub mod order;
pub mod scan;
mod stdlib_list;
pub mod timeline;

pub use engine::{DEFAULT_TIMEOUT, RuleEngine, RunOptions, RunOutput, SectionBinding};
pub use model::{
    KernelRules, PythonError, RuleError, RuleMessage, RuleResult, RulesError, StartupError,
};
pub use nvrules::{NVRULES_VERSION, Requirements};
pub use timeline::{
    BUNDLED_TIMELINE_RULES, TimelineFinding, TimelineOutcome, TimelineRule, TimelineRunOptions,
    TimelineRunOutput,
};
