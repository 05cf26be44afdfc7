//! One shape for every problem a reader reports: where ([`Location`]), how bad ([`Severity`])
//! and what ([`Problem::message`]). Readers that report problems in several files at once
//! (the timeline, Gainsight, section files) pair each problem with its file ([`FileProblem`]);
//! the others leave the file to the list that holds the problems.
//!
//! Rendering follows the conventions of the outputs: [`Problem`] displays as
//! `LOCATION: message`; [`FileProblem`] as a compiler does (`FILE:LINE:COL: warning: message`);
//! [`Problem::plain_in`] without severity (`FILE:LINE: message`).

use std::fmt;
use std::path::{Path, PathBuf};

/// How bad a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Part of the input did not load (a line, an event, a whole file).
    Error,
    /// Something was worked around or ignored; the rest still counts.
    Warning,
}

impl Severity {
    /// `error` or `warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where in its input a problem is.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Location {
    /// The input as a whole.
    None,
    /// A byte offset (in a binary report: after decompression).
    Byte(u64),
    /// A 1-based line of a text file, with the 1-based column (in characters) when known.
    Line {
        /// 1-based line.
        line: usize,
        /// 1-based column, counted in characters.
        column: Option<usize>,
    },
    /// A table of a database export, with the rowid of the (first) row concerned when known.
    Row {
        /// The table's name.
        table: String,
        /// The rowid of the first row concerned.
        rowid: Option<i64>,
    },
    /// A named part of the input or a stage of loading (`opening`, `events`, `flows`).
    Part(String),
}

impl Location {
    /// A line without column.
    pub fn line(line: usize) -> Self {
        Location::Line { line, column: None }
    }

    /// A line and column.
    pub fn line_column(line: usize, column: usize) -> Self {
        Location::Line {
            line,
            column: Some(column),
        }
    }

    /// A 1-based line as the text readers count them, 0 meaning the file as a whole
    /// ([`Location::None`]).
    pub fn line_or_file(line: u64) -> Self {
        match usize::try_from(line) {
            Ok(0) => Location::None,
            Ok(line) => Location::line(line),
            Err(_) => Location::line(usize::MAX),
        }
    }

    /// The line, for line locations.
    pub fn line_number(&self) -> Option<usize> {
        match self {
            Location::Line { line, .. } => Some(*line),
            _ => None,
        }
    }

    /// Whether this is a line and column (rendered `LINE:COL` right after the file).
    fn is_line_and_column(&self) -> bool {
        matches!(
            self,
            Location::Line {
                column: Some(_),
                ..
            }
        )
    }
}

impl fmt::Display for Location {
    /// `byte N`, `line N`, `LINE:COL`, the table's or part's name; nothing for [`Location::None`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::None => Ok(()),
            Location::Byte(offset) => write!(f, "byte {offset}"),
            Location::Line { line, column: None } => write!(f, "line {line}"),
            Location::Line {
                line,
                column: Some(column),
            } => write!(f, "{line}:{column}"),
            Location::Row { table, .. } => f.write_str(table),
            Location::Part(part) => f.write_str(part),
        }
    }
}

/// A problem a reader met: where, how bad, and what.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Problem {
    /// Where in the input.
    pub location: Location,
    /// Error or warning.
    pub severity: Severity,
    /// What was wrong and what the reader did, without location or severity.
    pub message: String,
}

impl Problem {
    /// A warning at `location`.
    pub fn warning(location: Location, message: impl Into<String>) -> Self {
        Problem {
            location,
            severity: Severity::Warning,
            message: message.into(),
        }
    }

    /// An error at `location`.
    pub fn error(location: Location, message: impl Into<String>) -> Self {
        Problem {
            location,
            severity: Severity::Error,
            message: message.into(),
        }
    }

    /// Whether this is an error (rather than a warning).
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Displays as `FILE:LINE: message` (a line), `FILE: message` (no location) or
    /// `FILE: LOCATION: message`, without severity.
    pub fn plain_in<'a>(&'a self, file: &'a Path) -> impl fmt::Display + 'a {
        PlainIn {
            file,
            problem: self,
        }
    }
}

impl fmt::Display for Problem {
    /// `LOCATION: message`, or just the message for [`Location::None`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.location {
            Location::None => f.write_str(&self.message),
            _ => write!(f, "{}: {}", self.location, self.message),
        }
    }
}

/// A [`Problem`] with its file, displayed without severity.
struct PlainIn<'a> {
    file: &'a Path,
    problem: &'a Problem,
}

impl fmt::Display for PlainIn<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = self.file.display();
        let p = self.problem;
        match &p.location {
            Location::None => write!(f, "{file}: {}", p.message),
            Location::Line { line, column: None } => write!(f, "{file}:{line}: {}", p.message),
            Location::Line {
                line,
                column: Some(column),
            } => write!(f, "{file}:{line}:{column}: {}", p.message),
            other => write!(f, "{file}: {other}: {}", p.message),
        }
    }
}

/// A [`Problem`] in a named file, for lists that gather the problems of several files.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FileProblem {
    /// The file it concerns (as given).
    pub file: PathBuf,
    /// Where, how bad, what.
    pub problem: Problem,
}

impl FileProblem {
    /// `problem` in `file`.
    pub fn new(file: impl Into<PathBuf>, problem: Problem) -> Self {
        FileProblem {
            file: file.into(),
            problem,
        }
    }

    /// Whether this is an error (rather than a warning).
    pub fn is_error(&self) -> bool {
        self.problem.is_error()
    }
}

impl fmt::Display for FileProblem {
    /// `FILE:LINE:COL: error|warning: message` at a line and column (as compilers print
    /// them), `FILE: error|warning: LOCATION: message` elsewhere (`FILE: error|warning:
    /// message` for the file as a whole).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = self.file.display();
        let p = &self.problem;
        if p.location.is_line_and_column() {
            write!(f, "{file}:{}: {}: {}", p.location, p.severity, p.message)
        } else if p.location == Location::None {
            write!(f, "{file}: {}: {}", p.severity, p.message)
        } else {
            write!(f, "{file}: {}: {}: {}", p.severity, p.location, p.message)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_as_the_outputs_do() {
        let byte = Problem::warning(Location::Byte(12), "truncated");
        assert_eq!(byte.to_string(), "byte 12: truncated");
        let line = Problem::warning(Location::line(3), "bad");
        assert_eq!(line.to_string(), "line 3: bad");
        assert_eq!(
            line.plain_in(Path::new("a.csv")).to_string(),
            "a.csv:3: bad"
        );
        let whole = Problem::warning(Location::None, "empty");
        assert_eq!(
            whole.plain_in(Path::new("a.csv")).to_string(),
            "a.csv: empty"
        );
        let at = FileProblem::new("x.nvtxt", Problem::error(Location::line_column(2, 5), "m"));
        assert_eq!(at.to_string(), "x.nvtxt:2:5: error: m");
        let table = FileProblem::new(
            "r.sqlite",
            Problem::warning(
                Location::Row {
                    table: "T".into(),
                    rowid: Some(4),
                },
                "1 rows skipped",
            ),
        );
        assert_eq!(table.to_string(), "r.sqlite: warning: T: 1 rows skipped");
        let line_only = FileProblem::new("t.atp", Problem::warning(Location::line(0), "m"));
        assert_eq!(line_only.to_string(), "t.atp: warning: line 0: m");
    }
}
