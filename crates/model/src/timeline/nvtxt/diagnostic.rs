//! Problems found in an NVTXT file: where, how bad, at which stage, and what.

use std::fmt;
use std::path::Path;

/// How bad a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The line (or the event) was skipped.
    Error,
    /// Something NVIDIA's importer only warns about; the rest of the line still counts.
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

/// One problem at a position of an NVTXT file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// 1-based line.
    pub line: u32,
    /// 1-based column of the offending token, counted in characters.
    pub column: u32,
    /// Error or warning.
    pub severity: Severity,
    /// Lexing, parsing or loading.
    pub class: ErrorClass,
    /// What is wrong, without position, severity or class.
    pub message: String,
}

impl Diagnostic {
    /// Whether this is an error (rather than a warning).
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
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
            d.line,
            d.column,
            d.severity,
            d.class,
            d.message
        )
    }
}
