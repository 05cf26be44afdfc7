//! NVTXT: NVIDIA's text form of NVTX annotations (`.nvtxt` files), read into plain data.
//!
//! A file is a list of lines, each a comment, an assignment (`Var = value`), a command format
//! (`@Command, Param, ...`) or a call (`Command, value, ...`). Calls make markers, push/pop
//! ranges (nested per thread) and start/end ranges, or name the file, processes and threads.
//! The grammar and the behaviour follow NVIDIA's own importer (see `FORMATS.md` §3 of the
//! reference notes), with these deliberate differences: every problem is reported with its line
//! and column and the line is skipped while the rest loads (the importer stops at the first
//! error); any Name may be assigned as a user variable; an invalid octal literal (`0009`) is an
//! error rather than 0; `Qpc` is accepted as a time base; a push never popped is shown open up
//! to the file's last timestamp.
//!
//! [`parse`] reads bytes; [`load`] reads a file. The result, an [`NvtxtDocument`], holds the
//! events with their times in the file's units and their [`TimeBase`], the names, and every
//! [`Diagnostic`].

mod colors;
mod diagnostic;
mod lexer;
mod loader;
mod model;
mod params;
mod parser;
pub(crate) mod timeline;
pub use colors::{COLOR_NAMES, color_by_name};
pub use timeline::{file_of_series, timeline_of};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::core::{Cancelled, Lines, Progress};

pub use diagnostic::{Diagnostic, DiagnosticWithPath, ErrorClass, Severity};
pub use model::{ColorSpec, Event, EventKind, StrId, StringTable, TimeBase};

/// The UTF-8 byte order mark, skipped at the start of a file.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One NVTXT file, read.
#[derive(Debug, Clone)]
pub struct NvtxtDocument {
    /// The file (as given to [`parse`] or [`load`]); diagnostics are displayed with it.
    pub path: PathBuf,
    /// The name set by the last `SetFileDisplayName` (`None` when the file sets none).
    pub display_name: Option<String>,
    /// Process names (`NameProcess`) by pid; the last call for a pid wins.
    pub process_names: BTreeMap<u32, String>,
    /// Thread names (`NameOsThread`) by (pid, tid); the last call wins.
    pub thread_names: BTreeMap<(u32, u32), String>,
    /// Errors and warnings, sorted by line and column.
    pub diagnostics: Vec<Diagnostic>,
    /// The events, in the order of their calls (a push/pop range at its push).
    pub events: Vec<Event>,
    /// The strings the events refer to.
    pub strings: StringTable,
    /// The latest time any event mentions (`None` without events); ranges left open end here.
    pub last_timestamp: Option<i64>,
}

/// Reading a file failed before any NVTXT was read.
#[derive(Debug, thiserror::Error)]
pub enum NvtxtError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Reading was cancelled.
    #[error(transparent)]
    Cancelled(#[from] Cancelled),
}

/// Reads the NVTXT file at `path`.
pub fn load(path: &Path) -> Result<NvtxtDocument, NvtxtError> {
    let bytes = std::fs::read(path).map_err(|source| NvtxtError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(parse(path, &bytes))
}

/// Reads NVTXT from `bytes`; `path` names the file in diagnostics. Never fails: problems are
/// diagnostics, and every good line loads.
pub fn parse(path: impl Into<PathBuf>, bytes: &[u8]) -> NvtxtDocument {
    let path = path.into();
    // Progress that is never cancelled: always a document.
    parse_with(path.clone(), bytes, Progress::none())
        .unwrap_or_else(|_| parser::Parser::default().finish().into_document(path))
}

impl parser::Finished {
    /// The document of the file at `path`.
    fn into_document(self, path: PathBuf) -> NvtxtDocument {
        NvtxtDocument {
            path,
            display_name: self.display_name,
            process_names: self.process_names,
            thread_names: self.thread_names,
            diagnostics: self.diagnostics,
            events: self.events,
            strings: self.strings,
            last_timestamp: self.last_timestamp,
        }
    }
}

/// What [`parse_with`] reports its progress as (bytes read).
pub const STAGE: &str = "NVTXT lines";

/// Reads NVTXT from `bytes` as [`parse`] does, reporting the bytes read to `progress` as
/// [`STAGE`]; `Err(Cancelled)` when it was cancelled.
pub fn parse_with(
    path: impl Into<PathBuf>,
    bytes: &[u8],
    progress: Progress<'_>,
) -> Result<NvtxtDocument, Cancelled> {
    let bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
    let mut parser = parser::Parser::default();
    let mut lines = Lines::with_progress(bytes, progress, STAGE);
    for line in lines.by_ref() {
        let number = u32::try_from(line.number).unwrap_or(u32::MAX);
        parser.line(number, line.bytes);
    }
    lines.finish()?;
    Ok(parser.finish().into_document(path.into()))
}

/// Reads the NVTXT file at `path` as [`load`] does, reporting the bytes read to `progress`;
/// `Err(NvtxtError::Cancelled)` when it was cancelled.
pub fn load_with(path: &Path, progress: Progress<'_>) -> Result<NvtxtDocument, NvtxtError> {
    let bytes = std::fs::read(path).map_err(|source| NvtxtError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(parse_with(path, &bytes, progress)?)
}

impl NvtxtDocument {
    /// The text of a string id.
    pub fn text(&self, id: StrId) -> &str {
        self.strings.get(id)
    }

    /// An event's message.
    pub fn message(&self, event: &Event) -> &str {
        self.strings.get(event.message)
    }

    /// An event's colour as written: the name, `0xAARRGGBB` for an integer, `None` when unset.
    pub fn color_written(&self, event: &Event) -> Option<String> {
        match event.color {
            ColorSpec::Unset => None,
            ColorSpec::Name(id) => Some(self.strings.get(id).to_string()),
            ColorSpec::Integer => Some(format!("0x{:08X}", event.color_argb)),
        }
    }

    /// The name of the file's rows: the display name, else the file name.
    pub fn title(&self) -> String {
        match &self.display_name {
            Some(name) => name.clone(),
            None => self.path.file_name().map_or_else(
                || self.path.display().to_string(),
                |name| name.to_string_lossy().into_owned(),
            ),
        }
    }

    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// Every diagnostic as `PATH:LINE:COL: error|warning: CLASS: message`.
    pub fn diagnostic_lines(&self) -> impl Iterator<Item = String> + '_ {
        self.diagnostics
            .iter()
            .map(|d| d.with_path(&self.path).to_string())
    }
}
