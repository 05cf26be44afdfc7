//! Nsight Systems: SQLite exports onto the timeline, `nsys stats` reports, `.nsys-rep` export.
//!
//! Facts about the format are in FORMATS.md §2 (shared reference). The loader is tolerant: any
//! table may be missing, unknown tables, views and columns are ignored, text is decoded
//! leniently, rows it cannot read are skipped with a warning naming the table and rowid.
//!
//! - `load` / [`load_with`] read an export into a [`Timeline`](super::Timeline), with progress
//!   and a cancel flag (run it on a loader thread).
//! - [`stats`] computes the summary reports exactly as `nsys stats` prints them.
//! - `summary_info` reads the Analysis Summary: capture settings, command lines, the target
//!   system and its environment, NICs, CUDA streams, export metadata.
//! - `rep` turns `.nsys-rep` / `.qdrep` reports into exports with the `nsys` tool.
//! - (nsys-shaped exports for fixtures, fuzzing seeds and benchmarks are written by
//!   `sightline-test-support`.)

use std::path::{Path, PathBuf};

mod damage;
pub(crate) mod db;
pub(crate) mod details;
pub(crate) mod load;
mod merged;
pub mod payload;
mod rep;
mod salvage;
mod schema;
pub mod stats;
mod summary_info;
pub mod trace;
pub use damage::DAMAGED;
pub use db::ExportDb;
pub use details::event_details;
pub use merged::MergedExport;
pub use rep::{default_cache_dir, export_report, find_nsys};
pub use salvage::salvage;
pub use schema::NOT_READ;
pub use summary_info::{
    AnalysisFile, AnalysisSpan, AnalysisSummary, CpuInfo, CudaContext, CudaDevice, CudaStream,
    EnvSource, EnvVar, Environment, Launch, LogicalCpu, Nic, ProcessOutput, SummaryRead,
    SystemProperty, read as read_analysis_summary,
};

pub use load::{
    LoadOptions, MEM_KIND_LABELS, PREVIEW_AFTER, PREVIEW_MAX_EVENTS, STACKS_PENDING, load,
    load_with,
};

/// Why an export could not be read. Every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum NsysError {
    /// The path is a directory.
    #[error("{}: is a directory, not an Nsight Systems export", path.display())]
    Directory {
        /// The path given.
        path: PathBuf,
    },
    /// The file could not be read.
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        /// The path given.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not an SQLite database (or is damaged/truncated).
    #[error("{}: not a readable SQLite database: {detail}", path.display())]
    NotSqlite {
        /// The path given.
        path: PathBuf,
        /// What SQLite said.
        detail: String,
    },
    /// An SQLite database without any Nsight Systems table.
    #[error("{}: an SQLite database, but not an Nsight Systems export (none of its tables: {found})", path.display())]
    NotExport {
        /// The path given.
        path: PathBuf,
        /// The tables it has (abbreviated).
        found: String,
    },
    /// An export with no event to show.
    #[error("{}: the Nsight Systems export holds no events (no CUDA, NVTX, OS runtime or GPU metric rows)", path.display())]
    Empty {
        /// The path given.
        path: PathBuf,
    },
    /// A query failed (damaged database, unexpected value).
    #[error("{}: table {table}: {detail}", path.display())]
    Query {
        /// The path given.
        path: PathBuf,
        /// The table being read.
        table: String,
        /// What went wrong.
        detail: String,
    },
    /// A report could not be computed: every row of a table it needs is on damaged pages.
    #[error("{}: table {table}: damaged pages: the table could not be read, so report {report} could not be computed", path.display())]
    DamagedTable {
        /// The path given.
        path: PathBuf,
        /// The table (several: joined by ", ").
        table: String,
        /// The report.
        report: String,
    },
    /// The caller set the cancel flag.
    #[error("{}: loading cancelled", path.display())]
    Cancelled {
        /// The path given.
        path: PathBuf,
    },
    /// A report was computed with an option it does not take (or a bad value).
    #[error(transparent)]
    Request(#[from] stats::RequestError),
    /// A `.nsys-rep`/`.qdrep` report needs `nsys export`, and no `nsys` was found or it failed.
    #[error("{}: {message}", path.display())]
    Export {
        /// The report.
        path: PathBuf,
        /// What to do (the exact command to run).
        message: String,
    },
}

impl NsysError {
    /// Whether reading stopped because the caller cancelled it (not a problem of the file).
    pub fn is_cancelled(&self) -> bool {
        matches!(self, NsysError::Cancelled { .. })
    }
}

/// Whether `path` names an Nsight Systems report that must be exported first.
pub fn is_report_file(path: &Path) -> bool {
    crate::kind::FileKind::from_name(path) == Some(crate::kind::FileKind::NsysReport)
}
