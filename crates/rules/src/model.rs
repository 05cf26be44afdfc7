//! The results of running rules: per kernel, what each rule said (messages with speedups,
//! focus metrics, tables, source markers, charts) and which rules failed.

use std::path::PathBuf;

use thiserror::Error;

use sightline_model::ncu::ReadError;

/// `NvRules.MsgType` numbering (the rule API's, not the file's).
pub mod msg_type {
    /// No type.
    pub const NONE: i64 = 0;
    /// Informative.
    pub const OK: i64 = 1;
    /// Actionable advice.
    pub const OPTIMIZATION: i64 = 2;
    /// Warning.
    pub const WARNING: i64 = 3;
    /// Error.
    pub const ERROR: i64 = 4;
    /// Every type with its name, in order (`NvRules.MsgType`).
    pub const ALL: &[(&str, i64)] = &[
        ("NONE", NONE),
        ("OK", OK),
        ("OPTIMIZATION", OPTIMIZATION),
        ("WARNING", WARNING),
        ("ERROR", ERROR),
    ];
}

/// A focus metric attached to a message.
#[derive(Debug, Clone, PartialEq)]
pub struct FocusMetric {
    /// Metric name.
    pub name: String,
    /// The value the rule looked at.
    pub value: f64,
    /// `IFrontend.Severity_*`.
    pub severity: i64,
    /// How the value was judged.
    pub info: String,
}

/// A speedup estimate attached to a message.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Speedup {
    /// `IFrontend.SpeedupType_*`: 1 local, 2 global.
    pub kind: i64,
    /// Estimated speedup in percent.
    pub value: f64,
}

/// One cell of a rule table.
#[derive(Debug, Clone, PartialEq)]
pub enum TableCell {
    /// An integer.
    Int(i64),
    /// A float.
    Double(f64),
    /// Text (also `str()` of any other object).
    Text(String),
}

/// Bold and italic, for a table's cells or a column's header or data (`NvRules.TableStyle`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CellStyle {
    /// Bold text.
    pub bold: bool,
    /// Italic text.
    pub italic: bool,
}

/// The column a table is sorted by (`config["sort_by"]`, `NvRules.TableSortInfo`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableSort {
    /// Column index.
    pub column: usize,
    /// Ascending (`"order": "ascending"`, the default) or descending.
    pub ascending: bool,
}

/// One column's settings (`config["per_column_configs"]`, `NvRules.TableColumnConfig`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ColumnConfig {
    /// Tooltip of the column header.
    pub tooltip: Option<String>,
    /// Share of the table's width, 0 to 1.
    pub relative_width: Option<f64>,
    /// Style of the header cell.
    pub header_style: Option<CellStyle>,
    /// Style of the data cells.
    pub data_style: Option<CellStyle>,
}

/// A table a rule attached to a message (`IFrontend.generate_table`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RuleTable {
    /// Column labels.
    pub header: Vec<String>,
    /// Rows, in the order the rule gave them.
    pub rows: Vec<Vec<TableCell>>,
    /// `config["title"]`, if given.
    pub title: Option<String>,
    /// `config["description"]`, if given.
    pub description: Option<String>,
    /// `config["sort_by"]`, if given.
    pub sort: Option<TableSort>,
    /// `config["style"]`: the style of every cell, if given.
    pub style: Option<CellStyle>,
    /// `config["per_column_configs"]`, one entry per column (default when not given).
    pub columns: Vec<ColumnConfig>,
}

impl RuleTable {
    /// The rows in display order: sorted by `sort` (stable, see [`TableCell::compare`];
    /// descending reverses it), else as given.
    pub fn display_rows(&self) -> Vec<&[TableCell]> {
        let mut rows: Vec<&[TableCell]> = self.rows.iter().map(Vec::as_slice).collect();
        if let Some(sort) = self.sort {
            rows.sort_by(|a, b| {
                let order = match (a.get(sort.column), b.get(sort.column)) {
                    (Some(x), Some(y)) => x.compare(y),
                    _ => std::cmp::Ordering::Equal,
                };
                if sort.ascending {
                    order
                } else {
                    order.reverse()
                }
            });
        }
        rows
    }

    /// The settings of column `index` (defaults when the rule gave none).
    pub fn column(&self, index: usize) -> ColumnConfig {
        self.columns.get(index).cloned().unwrap_or_default()
    }
}

impl TableCell {
    /// Orders two cells of one column: numbers by value (NaN after every number), text by
    /// characters, numbers before text.
    pub fn compare(&self, other: &TableCell) -> std::cmp::Ordering {
        use std::cmp::Ordering;
        let number = |cell: &TableCell| match cell {
            TableCell::Int(i) => Some(*i as f64),
            TableCell::Double(f) => Some(*f),
            TableCell::Text(_) => None,
        };
        match (self, other) {
            (TableCell::Int(a), TableCell::Int(b)) => a.cmp(b),
            (TableCell::Text(a), TableCell::Text(b)) => a.cmp(b),
            _ => match (number(self), number(other)) {
                (Some(a), Some(b)) => match (a.is_nan(), b.is_nan()) {
                    (false, false) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
                    (true, true) => Ordering::Equal,
                    (true, false) => Ordering::Greater,
                    (false, true) => Ordering::Less,
                },
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            },
        }
    }
}

/// A message of a rule.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleMessage {
    /// Optional title (`name` argument of `IFrontend.message`).
    pub title: String,
    /// Text with link markup.
    pub message: String,
    /// Type in `NvRules.MsgType` numbering.
    pub msg_type: i64,
    /// Speedup estimate, if the rule gave one.
    pub speedup: Option<Speedup>,
    /// Focus metrics, in the order given.
    pub focus_metrics: Vec<FocusMetric>,
    /// Tables attached to the message.
    pub tables: Vec<RuleTable>,
}

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
    /// Type in `NvRules.MsgType` numbering.
    pub msg_type: i64,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn table(rows: Vec<Vec<TableCell>>, sort: Option<TableSort>) -> RuleTable {
        RuleTable {
            header: vec!["k".into(), "v".into()],
            rows,
            sort,
            ..RuleTable::default()
        }
    }

    fn keys(table: &RuleTable) -> Vec<String> {
        table
            .display_rows()
            .iter()
            .map(|r| match &r[0] {
                TableCell::Text(t) => t.clone(),
                other => format!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn rows_sort_by_value_and_keep_ties_in_order() {
        let rows = vec![
            vec![TableCell::Text("a".into()), TableCell::Double(2.0)],
            vec![TableCell::Text("b".into()), TableCell::Double(f64::NAN)],
            vec![TableCell::Text("c".into()), TableCell::Double(10.0)],
            vec![TableCell::Text("d".into()), TableCell::Double(2.0)],
        ];
        let ascending = TableSort {
            column: 1,
            ascending: true,
        };
        assert_eq!(
            keys(&table(rows.clone(), Some(ascending))),
            ["a", "d", "c", "b"]
        );
        let descending = TableSort {
            ascending: false,
            ..ascending
        };
        assert_eq!(
            keys(&table(rows.clone(), Some(descending))),
            ["b", "c", "a", "d"]
        );
        assert_eq!(keys(&table(rows, None)), ["a", "b", "c", "d"]);
    }

    #[test]
    fn integers_compare_exactly_and_text_by_characters() {
        let big = TableCell::Int(i64::MAX);
        let smaller = TableCell::Int(i64::MAX - 1);
        assert_eq!(big.compare(&smaller), std::cmp::Ordering::Greater);
        let a = TableCell::Text("FADD".into());
        let b = TableCell::Text("FMUL".into());
        assert_eq!(a.compare(&b), std::cmp::Ordering::Less);
        assert_eq!(
            TableCell::Int(3).compare(&TableCell::Double(2.5)),
            std::cmp::Ordering::Greater
        );
        assert_eq!(
            TableCell::Int(3).compare(&TableCell::Text("3".into())),
            std::cmp::Ordering::Less
        );
    }

    #[test]
    fn a_sort_column_past_a_short_row_keeps_the_order() {
        let rows = vec![
            vec![TableCell::Text("x".into())],
            vec![TableCell::Text("y".into())],
        ];
        let sort = TableSort {
            column: 5,
            ascending: false,
        };
        assert_eq!(keys(&table(rows, Some(sort))), ["x", "y"]);
    }
}
