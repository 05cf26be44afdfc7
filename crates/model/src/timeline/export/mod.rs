//! Writing a timeline for other tools, and reading those files back.
//!
//! [`export`] streams any [`Timeline`] (an export, an NVTXT file, a CodeXL trace, merged ones)
//! to a `Write` as Perfetto's protobuf trace format (`perfetto`: track descriptors for
//! processes, threads, GPU-side tracks and counters, slices with interned names, flows from
//! API calls to GPU work) or as Chrome's JSON trace format (`chrome_json`), optionally only
//! the events that overlap a time range. Nothing is built whole in memory: a packet or a JSON
//! event at a time goes through one reusable buffer.
//!
//! Both formats require the slices of one track (one thread in Chrome JSON) to nest, so
//! `plan` decides per track whether its rows can share one output track (nested call stacks,
//! push/pop ranges) or each row needs its own (lanes of overlapping device work).
//!
//! [`read_perfetto`] and [`read_chrome`] load such files (Sightline's own exports and other
//! TrackEvent-based or Chrome JSON traces) onto a timeline.

mod chrome_json;
mod perfetto;
mod plan;
mod proto;
pub mod read_chrome;
pub mod read_perfetto;

use std::io::{self, Write};
use std::path::Path;

use super::Timeline;
use crate::core::{Cancelled, Progress, Ticker};

/// The formats a timeline exports to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// Perfetto's protobuf trace (`.perfetto-trace`, `.pftrace`).
    Perfetto,
    /// Chrome's JSON trace event format (`.json`).
    ChromeJson,
}

impl ExportFormat {
    /// Both formats.
    pub const ALL: [ExportFormat; 2] = [ExportFormat::Perfetto, ExportFormat::ChromeJson];

    /// The format a file name's extension asks for (`.perfetto-trace`, `.pftrace`, `.json`).
    pub fn from_path(path: &Path) -> Option<ExportFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "perfetto-trace" | "pftrace" => Some(ExportFormat::Perfetto),
            "json" => Some(ExportFormat::ChromeJson),
            _ => None,
        }
    }

    /// The usual file extension (without the dot).
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::Perfetto => "perfetto-trace",
            ExportFormat::ChromeJson => "json",
        }
    }

    /// What the user calls it.
    pub fn label(self) -> &'static str {
        match self {
            ExportFormat::Perfetto => "Perfetto trace (protobuf)",
            ExportFormat::ChromeJson => "Chrome JSON trace",
        }
    }
}

/// What to export and how to report on it.
#[derive(Clone, Copy, Default)]
pub struct ExportOptions<'a> {
    /// Only the events that overlap `[from, to]` (ns of the timeline's clock), kept whole.
    pub range: Option<(i64, i64)>,
    /// Progress and Cancel: events written of the timeline's events, as [`STAGE`], every
    /// 65,536 events; once cancelled the export stops with [`ExportError::Cancelled`].
    pub progress: Progress<'a>,
}

/// What [`export`] reports its progress as (events written).
pub const STAGE: &str = "events";

/// What an export wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExportSummary {
    /// Events written (slices, instants, counter values).
    pub events: u64,
    /// Tracks described (lanes split off a track included).
    pub tracks: u64,
    /// Flows written (both ends exported).
    pub flows: u64,
    /// Bytes written.
    pub bytes: u64,
}

/// An export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// Writing failed.
    #[error("writing the trace: {0}")]
    Io(#[from] io::Error),
    /// The user cancelled.
    #[error("export cancelled")]
    Cancelled(#[from] Cancelled),
}

/// Writes `timeline` to `out` in `format`.
pub fn export(
    timeline: &Timeline,
    format: ExportFormat,
    options: ExportOptions<'_>,
    out: &mut dyn Write,
) -> Result<ExportSummary, ExportError> {
    let mut out = Counting {
        inner: io::BufWriter::with_capacity(1 << 20, out),
        bytes: 0,
    };
    let total = timeline.event_count() as u64;
    let mut ticker = Ticker::new(options.progress, STAGE, total, 65_536);
    let mut summary = match format {
        ExportFormat::Perfetto => perfetto::write(timeline, options.range, &mut ticker, &mut out)?,
        ExportFormat::ChromeJson => {
            chrome_json::write(timeline, options.range, &mut ticker, &mut out)?
        }
    };
    out.flush()?;
    summary.bytes = out.bytes;
    Ok(summary)
}

/// Counts the bytes written through it.
pub(crate) struct Counting<W: Write> {
    inner: W,
    bytes: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.inner.write_all(buf)?;
        self.bytes += buf.len() as u64;
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// A trace file could not be read: the file, where, and what was wrong.
#[derive(Debug, thiserror::Error)]
#[error("{}: {}", .path.display(), .problem)]
pub struct TraceError {
    /// The file.
    pub path: std::path::PathBuf,
    /// Where and what.
    pub problem: crate::problem::Problem,
}

impl TraceError {
    /// An error at byte `offset`.
    pub fn at(path: &Path, offset: u64, message: String) -> TraceError {
        TraceError {
            path: path.to_path_buf(),
            problem: crate::problem::Problem::error(
                crate::problem::Location::Byte(offset),
                message,
            ),
        }
    }

    /// An error at a 1-based line and column of a text file.
    pub fn at_line(path: &Path, line: usize, column: usize, message: String) -> TraceError {
        TraceError {
            path: path.to_path_buf(),
            problem: crate::problem::Problem::error(
                crate::problem::Location::line_column(line, column),
                message,
            ),
        }
    }

    /// The file could not be opened or read.
    pub fn io(path: &Path, error: &io::Error) -> TraceError {
        TraceError {
            path: path.to_path_buf(),
            problem: crate::problem::Problem::error(
                crate::problem::Location::Part("opening".into()),
                error.to_string(),
            ),
        }
    }
}

/// Maps the file at `path` for reading.
pub(crate) fn map_file(path: &Path) -> Result<memmap2::Mmap, TraceError> {
    let file = std::fs::File::open(path).map_err(|e| TraceError::io(path, &e))?;
    // SAFETY: the map is read-only and private to the caller; a file truncated while mapped is
    // the same hazard every mapped reader of this crate accepts.
    unsafe { memmap2::Mmap::map(&file) }.map_err(|e| TraceError::io(path, &e))
}

/// A slice a reader has begun: what it becomes once its end is known.
pub(crate) struct Begun {
    pub start: i64,
    pub name: super::StrId,
    pub kind: super::EventKind,
    pub correlation: u32,
    pub source: u32,
}

impl Begun {
    /// Puts the slice on `track`, ending at `end` (`unclosed`: the file never ended it).
    pub(crate) fn push(
        &self,
        b: &mut super::TimelineBuilder,
        track: super::TrackId,
        end: i64,
        unclosed: bool,
    ) -> super::EventRef {
        let e = b.push(
            track,
            super::NewEvent {
                correlation: self.correlation,
                ..super::NewEvent::new(self.kind, self.start, end, self.name, self.source)
            },
        );
        if unclosed {
            b.set_attrs(
                e,
                super::EventAttrs {
                    open: true,
                    ..super::EventAttrs::default()
                },
            );
        }
        e
    }
}
