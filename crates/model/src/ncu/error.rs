//! Errors of the report reader.

use std::path::PathBuf;

/// Why a report could not be read. Every variant names the file; format errors also name the
/// byte offset of the damage in the (decompressed) report.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be opened or read.
    #[error("{path}: {error}")]
    Io {
        /// The report's path.
        path: PathBuf,
        /// The operating system's error.
        error: std::io::Error,
    },
    /// The bytes are not a valid report.
    #[error("{path}: byte {offset}: {message}")]
    Format {
        /// The report's path.
        path: PathBuf,
        /// Offset of the damage in the report's bytes (after decompression for `.ncu-repz`).
        offset: u64,
        /// What is wrong.
        message: String,
    },
}

impl ReadError {
    /// A format error at byte `offset` of the report at `path`.
    pub fn format(path: &std::path::Path, offset: usize, message: impl Into<String>) -> Self {
        ReadError::Format {
            path: path.to_path_buf(),
            offset: offset as u64,
            message: message.into(),
        }
    }
}
