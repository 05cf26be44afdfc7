//! The results of running rules: per kernel, what each rule said (messages with speedups,
//! focus metrics, tables, source markers, charts) and which rules failed.

use std::path::PathBuf;

use thiserror::Error;

use sightline_model::ncu::ReadError;

pub use sightline_model::ncu::{
    CellStyle, ColumnConfig, FocusMetric, MsgType, RuleMessage, RuleTable, Speedup, TableCell,
    TableSort,
};

/// Where a source marker points.
#[derive(Debug, Clone, PartialEq)]
pub enum MarkerLocation {
    /// A SASS address.
    Sass(u64),
    /// A line of a source file.
    Source {
        /// File name as given by the rule.
        file: String,
        /// Line number.
        line: u64,
    },
}

/// A source marker (`IFrontend.source_marker`).
#[derive(Debug, Clone, PartialEq)]
pub struct SourceMarker {
    /// The marker text.
    pub message: String,
    /// The location.
    pub location: MarkerLocation,
    /// The marker's type.
    pub msg_type: MsgType,
}

/// A chart a rule loaded from a `.chart` file.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleChart {
    /// The file it was read from.
    pub path: PathBuf,
    /// The parsed body item.
    pub item: sightline_model::proto::nv::profiler::ProfilerSectionBodyItem,
}

/// What one rule produced for one kernel.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleResult {
    /// `get_identifier()`.
    pub identifier: String,
    /// `get_name()` (the identifier when the rule has none).
    pub name: String,
    /// `get_section_identifier()`, for section-bound rules.
    pub section_identifier: Option<String>,
    /// Messages in the order issued.
    pub messages: Vec<RuleMessage>,
    /// Source markers.
    pub source_markers: Vec<SourceMarker>,
    /// Charts loaded with `IFrontend.load_chart_from_file`.
    pub charts: Vec<RuleChart>,
}

impl RuleResult {
    /// Whether the rule produced anything visible.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty() && self.source_markers.is_empty() && self.charts.is_empty()
    }
}

/// A rule that failed on a kernel (or could not be loaded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleError {
    /// Rule identifier (the file name for rules that failed to load).
    pub rule: String,
    /// What went wrong, with the Python traceback where there is one.
    pub message: String,
}

/// The rule results of one kernel.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelRules {
    /// Action index in the report.
    pub index: usize,
    /// Kernel name (`IAction.name()`).
    pub name: String,
    /// Results of the rules that ran, in execution order (parents first).
    pub results: Vec<RuleResult>,
    /// Rules that failed on this kernel.
    pub errors: Vec<RuleError>,
}

impl KernelRules {
    /// The results that produced output, in the order NVIDIA's reader lists them.
    pub fn listed(&self) -> impl Iterator<Item = &RuleResult> {
        self.results.iter().filter(|r| !r.is_empty())
    }
}

/// Failures of the rule engine itself (not of a rule).
#[derive(Debug, Error)]
pub enum RulesError {
    /// The Python interpreter could not be created.
    // Not a `#[source]`: its text is already in this message, and the CLI prints the message
    // followed by every source (`{:#}`), which would repeat it.
    #[error("cannot start the rule interpreter: {0}")]
    Startup(StartupError),
    /// The worker thread is gone (it panicked or was stopped).
    #[error("the rule engine stopped unexpectedly")]
    EngineGone,
    /// A rule call stayed past its time budget (by the given seconds) in code the interrupt
    /// cannot reach; the worker thread was abandoned and the engine is unusable.
    #[error(
        "a rule is stuck {0} s past its time budget in code that cannot be interrupted; the rule engine was stopped"
    )]
    Unresponsive(u64),
    /// A rules folder cannot be read.
    #[error("cannot read rules folder {path}: {source}")]
    Folder {
        /// The folder.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The report cannot be read.
    #[error(transparent)]
    Report(#[from] ReadError),
    /// A kernel index out of range.
    #[error("kernel {index} does not exist (the report has {count})")]
    NoSuchKernel {
        /// Requested index.
        index: usize,
        /// Number of actions.
        count: usize,
    },
}

/// Why the rule engine could not start ([`RulesError::Startup`]).
#[derive(Debug, Error)]
pub enum StartupError {
    /// A thread of the engine (the worker or the watchdog) could not be spawned.
    #[error("{0}")]
    Spawn(#[source] std::io::Error),
    /// Preparing the interpreter (import path, standard modules, sandbox) raised an exception.
    #[error(transparent)]
    Prepare(#[from] PythonError),
    /// The worker thread ended before its interpreter was ready.
    #[error("the worker thread died")]
    WorkerDied,
}

/// A Python exception raised in the rule interpreter, formatted with its traceback (long
/// tracebacks keep their head and tail). The exception object cannot leave the interpreter's
/// thread: its text is what is kept.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{traceback}")]
pub struct PythonError {
    /// The formatted exception, as Python prints it.
    pub traceback: String,
}
