//! AMD CodeXL / Radeon Compute Profiler session files besides the trace: performance counters
//! (`.csv`, `counters`), kernel occupancy (`.occupancy`, `occupancy`, with the charts of
//! `curves`) and the session that joins them (`session`). (Generators of `.atp` and
//! `.occupancy` files for tests live in `sightline-test-support`; no real ones are public.)
//! The `.atp` reader itself is `timeline::atp`.
//!
//! Plain data, no egui. Readers never fail on content: problems become warning
//! [`Problem`](crate::problem::Problem)s with their line, and the rest of the file loads. The
//! files' readers (`open_with`) report the bytes read through a
//! [`Progress`](crate::core::Progress) and stop on Cancel.

mod counters;
mod curves;
mod occupancy;
mod session;
mod table;
mod text;
mod values;
pub use counters::{CounterDialect, CounterFile, CounterValue, KernelAggregate, Values};
pub use curves::{Limits, OccupancyCurve, OccupancyModel, Resource};
pub use occupancy::{OCCUPANCY_COLUMNS, OccupancyFile, OccupancyRow};
pub use session::{SessionData, SessionFiles};

use std::path::{Path, PathBuf};

use crate::core::Cancelled;
use crate::mapped::{Access, MappedFile};
use crate::problem::{Location, Problem};

/// A warning the reader worked around at 1-based `line` (0: the file as a whole).
pub(crate) fn warning(line: u64, message: impl Into<String>) -> Problem {
    Problem::warning(Location::line_or_file(line), message)
}

/// Reading a file failed (only I/O fails; content problems are warnings).
#[derive(Debug, thiserror::Error)]
pub enum CodexlError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// Reading was cancelled.
    #[error(transparent)]
    Cancelled(#[from] Cancelled),
}

/// What the readers report their progress as (bytes of the file read).
pub const STAGE: &str = "table lines";

/// Maps a file for a reader that goes through its lines.
pub(crate) fn map_file(path: &Path) -> Result<MappedFile, CodexlError> {
    let io = |source| CodexlError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let data = MappedFile::open(&file).map_err(io)?;
    data.advise(Access::Sequential);
    Ok(data)
}

/// Reads a whole file (the counter and occupancy files are parsed from their bytes).
pub(crate) fn read_file(path: &Path) -> Result<Vec<u8>, CodexlError> {
    std::fs::read(path).map_err(|source| CodexlError::Io {
        path: path.to_path_buf(),
        source,
    })
}
