//! AMD CodeXL / Radeon Compute Profiler session files besides the trace: performance counters
//! (`.csv`, [`counters`]), kernel occupancy (`.occupancy`, [`occupancy`], with the charts of
//! [`curves`]) and the session that joins them ([`session`]). (Generators of `.atp` and
//! `.occupancy` files for tests live in `sightline-test-support`; no real ones are public.)
//! The `.atp` reader itself is `timeline::atp`.
//!
//! Plain data, no egui. Readers never fail on content: problems become [`CodexlWarning`]s with
//! their line, and the rest of the file loads.

pub mod counters;
pub mod curves;
pub mod occupancy;
pub mod session;
pub mod table;
pub mod text;

use std::path::PathBuf;

/// A problem a reader worked around, at a 1-based line (0: the file as a whole).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodexlWarning {
    /// 1-based line number, or 0.
    pub line: u64,
    /// What was wrong and what the reader did.
    pub message: String,
}

impl CodexlWarning {
    /// `PATH:LINE: message` (or `PATH: message` for line 0).
    pub fn display_with(&self, path: &std::path::Path) -> String {
        if self.line == 0 {
            format!("{}: {}", path.display(), self.message)
        } else {
            format!("{}:{}: {}", path.display(), self.line, self.message)
        }
    }
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
}
