//! Gainsight: from GPGPU-Sim memory-access logs to data lifetimes, refresh and area projections
//! for gain-cell on-chip memory (the seed `004`, FORMATS.md §5).
//!
//! - `line` classifies one log line (kernel headers, reconfiguration, accesses, end statistics).
//! - `kernel` folds one kernel's lines into lifetimes, access counts and unique addresses.
//! - `reader` streams logs (one file or a folder), splits them into kernels and processes the
//!   kernels in parallel; memory is bounded by the live addresses of the kernels in flight.
//! - `stats` turns kernels into the `.sim.csv` rows and the JSON report with the frontend's
//!   exact float operations; `csv` and `report` write and read the three outputs, and
//!   `outputs` reads a simulation's outputs back into an [`Analysis`] (the bytes read as
//!   [`Progress`](crate::core::Progress), with Cancel).
//! - `whatif` keeps all lifetimes in a compact sorted form for instant what-if projections
//!   (retention times, clock) and log-axis histograms.
//! - `params` holds the assumptions (TOML). (Synthetic logs with known lifetimes are written
//!   by `sightline-test-support`.)

mod csv;
mod kernel;
mod line;
mod outputs;
mod params;
mod reader;
mod report;
mod stats;
mod whatif;
pub use csv::{
    KERNEL_HEADER, read_kernel_csv, read_lifetime_csv, write_kernel_csv, write_lifetime_header,
    write_lifetime_rows,
};
pub use line::{Cache, EndStat, LogLine, classify};
pub use outputs::{OutputFiles, output_stem, read_outputs};
pub use report::{FrontendReport, report_date_time};
pub use stats::{
    KernelRow, kernel_cycles, kernel_row, level_frequency, lifetime_stats, lifetime_us,
    refreshes_of, write_frequency_stats,
};
pub use whatif::{LevelLifetimes, LifetimeStore, LogHistogram, Selection};

pub use kernel::{EndStats, KernelResult, Lifetime};
pub use params::{Params, ParamsError, PerLevel};
pub use reader::{Analysis, AnalyzeOptions, Source, analyze, analyze_paths, expand_inputs};

/// A cache level of the projection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Level {
    /// L1 data cache, one per SM.
    L1,
    /// L2 cache, one address space (banks ignored).
    L2,
}

impl Level {
    /// Both levels, L1 first.
    pub const ALL: [Level; 2] = [Level::L1, Level::L2];

    /// "L1" or "L2", as the outputs name them.
    pub fn label(self) -> &'static str {
        match self {
            Level::L1 => "L1",
            Level::L2 => "L2",
        }
    }

    /// 0 for L1, 1 for L2.
    pub fn index(self) -> usize {
        match self {
            Level::L1 => 0,
            Level::L2 => 1,
        }
    }
}

/// Errors of the Gainsight model.
#[derive(Debug, thiserror::Error)]
pub enum GainsightError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A parameter file is invalid.
    #[error("{path}: invalid parameters: {message}")]
    Params {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// An input holds no kernel at all.
    #[error("{path}: {message}")]
    NoKernels {
        /// The input(s).
        path: String,
        /// Why (empty, binary, no kernel header).
        message: String,
    },
    /// A CSV or JSON output of the frontend could not be read.
    #[error("{path}:{line}: {message}")]
    Format {
        /// The file.
        path: String,
        /// 1-based line.
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// Processing was cancelled.
    #[error("cancelled")]
    Cancelled(#[from] crate::core::Cancelled),
}
