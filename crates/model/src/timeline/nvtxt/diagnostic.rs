//! Problems found in an NVTXT file: where, how bad, at which stage, and what.

use std::fmt;
use std::path::Path;

/// How bad a problem is: an error skips the line (or the event); a warning is something
/// NVIDIA's importer only warns about, and the rest of the line still counts.
pub use crate::problem::Severity;
use crate::problem::{Location, Problem};

/// The stage that found a problem, as Nsight's Session Summary names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ErrorClass {
    /// Characters that do not form tokens: bad integers, unterminated strings, undefined `$Name`.
    Lexing,
    /// Tokens that do not form an instruction: wrong value counts, types, ranges, formats.
    Parsing,
    /// Instructions that do not form events: unmatched pops, ranges left open, `Start >= End`.
    Loading,
}

impl ErrorClass {
    /// `lexing`, `parsing` or `loading`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorClass::Lexing => "lexing",
            ErrorClass::Parsing => "parsing",
            ErrorClass::Loading => "loading",
        }
    }
}

impl fmt::Display for ErrorClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem at a position of an NVTXT file, with the stage that found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Where (always a line and column: the offending token's, counted in characters), error
    /// or warning, and what is wrong (without position, severity or class).
    pub problem: Problem,
    /// Lexing, parsing or loading.
    pub class: ErrorClass,
}

impl Diagnostic {
    /// A problem at 1-based `line` and `column`.
    pub fn new(
        line: u32,
        column: u32,
        severity: Severity,
        class: ErrorClass,
        message: String,
    ) -> Self {
        Diagnostic {
            problem: Problem {
                location: Location::line_column(line as usize, column as usize),
                severity,
                message,
            },
            class,
        }
    }

    /// The 1-based line.
    pub fn line(&self) -> u32 {
        match self.problem.location {
            Location::Line { line, .. } => u32::try_from(line).unwrap_or(u32::MAX),
            _ => 0,
        }
    }

    /// The 1-based column of the offending token, counted in characters.
    pub fn column(&self) -> u32 {
        match self.problem.location {
            Location::Line {
                column: Some(column),
                ..
            } => u32::try_from(column).unwrap_or(u32::MAX),
            _ => 0,
        }
    }

    /// Error or warning.
    pub fn severity(&self) -> Severity {
        self.problem.severity
    }

    /// What is wrong, without position, severity or class.
    pub fn message(&self) -> &str {
        &self.problem.message
    }

    /// Whether this is an error (rather than a warning).
    pub fn is_error(&self) -> bool {
        self.problem.is_error()
    }

    /// Displays as `PATH:LINE:COL: error|warning: CLASS: message`.
    pub fn with_path<'a>(&'a self, path: &'a Path) -> DiagnosticWithPath<'a> {
        DiagnosticWithPath {
            path,
            diagnostic: self,
        }
    }
}

/// A [`Diagnostic`] with the file it is about, displayed as
/// `PATH:LINE:COL: error|warning: CLASS: message`.
#[derive(Debug, Clone, Copy)]
pub struct DiagnosticWithPath<'a> {
    path: &'a Path,
    diagnostic: &'a Diagnostic,
}

impl fmt::Display for DiagnosticWithPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.diagnostic;
        write!(
            f,
            "{}:{}:{}: {}: {}: {}",
            self.path.display(),
            d.line(),
            d.column(),
            d.severity(),
            d.class,
            d.message()
        )
    }
}
