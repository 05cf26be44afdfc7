//! Rules for timelines: Python files that look at an export's events and point at problems,
//! as `nsys analyze` does — run by the same engine, interpreter and sandbox as the NvRules
//! rules (time budget per call, cancel, no file writes, processes or sockets).
//!
//! A rule file defines `analyze(trace, options)` and, optionally, `NAME` (default: the file's
//! stem), `TITLE`, `DESCRIPTION` and `OPTIONS` (a dict of option names and defaults). It works
//! with the `timeline` module ([`module`]): `trace.events("cuda_api")` and `"gpu"` are event
//! sets whose bulk operations (`where`, `sort`, `head`, `gaps`, `utilization`, `min`/`max`/`sum`)
//! run in Rust; it returns a `timeline.Result` (a table whose rows name events or ranges) or
//! raises `timeline.Skipped("<why>")` when the export lacks what it needs. Sightline's own rules
//! (`rules/timeline/*.py`) reproduce `nsys analyze`'s seven rules.

pub(crate) mod module;

use std::path::PathBuf;
use std::time::Duration;

use sightline_model::core::CancelFlag;
use sightline_model::timeline::nsys::stats::ReportTable;

use crate::model::RuleError;

/// Sightline's own timeline rules, embedded: `(file name, source)`.
pub const BUNDLED_TIMELINE_RULES: &[(&str, &str)] = &[
    (
        "cuda_api_sync.py",
        include_str!("../../../../rules/timeline/cuda_api_sync.py"),
    ),
    (
        "cuda_memcpy_async.py",
        include_str!("../../../../rules/timeline/cuda_memcpy_async.py"),
    ),
    (
        "cuda_memcpy_sync.py",
        include_str!("../../../../rules/timeline/cuda_memcpy_sync.py"),
    ),
    (
        "cuda_memset_sync.py",
        include_str!("../../../../rules/timeline/cuda_memset_sync.py"),
    ),
    (
        "dx12_mem_ops.py",
        include_str!("../../../../rules/timeline/dx12_mem_ops.py"),
    ),
    (
        "gpu_gaps.py",
        include_str!("../../../../rules/timeline/gpu_gaps.py"),
    ),
    (
        "gpu_time_util.py",
        include_str!("../../../../rules/timeline/gpu_time_util.py"),
    ),
];

/// What to run.
#[derive(Debug, Clone)]
pub struct TimelineRunOptions {
    /// Folders of rule files, searched in order (a file hides a bundled rule of the same name).
    pub folders: Vec<PathBuf>,
    /// Also run Sightline's bundled rules (from memory).
    pub bundled: bool,
    /// The rules to run, each `NAME[:OPTION=VALUE]...`; `None` runs every rule with its
    /// defaults.
    pub requests: Option<Vec<String>>,
    /// Time budget of one rule call.
    pub timeout: Duration,
    /// Cancelling this flag cancels the run (the rule running is interrupted).
    pub cancel: Option<CancelFlag>,
}

impl TimelineRunOptions {
    /// Every bundled rule with its defaults, the default budget, no folders.
    pub fn bundled() -> TimelineRunOptions {
        TimelineRunOptions {
            folders: Vec::new(),
            bundled: true,
            requests: None,
            timeout: crate::DEFAULT_TIMEOUT,
            cancel: None,
        }
    }
}

/// A loaded rule: what it says about itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimelineRule {
    /// Its name (what `--rule` takes).
    pub name: String,
    /// Its title.
    pub title: String,
    /// What it looks for and what to do about it.
    pub description: String,
    /// Its options and their defaults (as Python prints them).
    pub options: Vec<(String, String)>,
    /// The file it came from (`bundled:rules/timeline/NAME.py` for bundled rules).
    pub file: String,
}

/// What one rule found.
#[derive(Debug, Clone, PartialEq)]
pub enum TimelineOutcome {
    /// A table: one row per finding, and per row the event or range it names.
    Table {
        /// The rows.
        table: ReportTable,
        /// Per row, the event's source `(table, rowid)`, if the rule named one.
        events: Vec<Option<(String, i64)>>,
        /// Per row, a time range `(start, end)` in the export's ns, if the rule named one.
        ranges: Vec<Option<(i64, i64)>>,
    },
    /// The export lacks what the rule needs (the message, as `nsys analyze` prints it).
    Skipped(String),
    /// The rule failed (exception with traceback, timeout, bad result, unknown option).
    Error(String),
}

/// One rule's run.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineFinding {
    /// The rule's name.
    pub rule: String,
    /// The request as given (`gpu_gaps:gap=1`), or the name.
    pub request: String,
    /// The outcome.
    pub outcome: TimelineOutcome,
    /// How long the rule ran.
    pub elapsed: Duration,
}

/// The result of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineRunOutput {
    /// The rules loaded (sorted by name).
    pub rules: Vec<TimelineRule>,
    /// One per rule run, in the order requested (by name when all ran).
    pub findings: Vec<TimelineFinding>,
    /// Files that failed to load.
    pub load_errors: Vec<RuleError>,
    /// Whether the run was cancelled.
    pub cancelled: bool,
}
