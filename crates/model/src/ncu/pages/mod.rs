//! The pages of NVIDIA's `ncu --import REPORT --page ...` as data: rows and columns of text,
//! in the shapes Nsight Compute 2024.1 prints them (`session`, `raw`, `details`,
//! `summary`, `summary_raw`). The CLI writes them as NVIDIA's CSV (`csv`); the GUI's Summary and Raw
//! pages can show the same rows.
//!
//! What the pages print is described, with how each fact was checked, in
//! `notes/ncu-import-csv.md`.

mod body;
pub(crate) mod chip;
mod csv;
mod details;
mod header;
mod launch;
mod number;
mod raw;
mod resolved;
mod session;
mod summary;
mod summary_raw;
pub use chip::ChipLibrary;
pub use csv::{write_row, write_titled_tables};
pub use details::{DetailsOptions, details_page};
pub use raw::{RawOptions, hex_correlation_ids, raw_csv_page, raw_page};
pub use session::session_page;
pub use summary::{SummaryPer, summary_page};
pub use summary_raw::raw_summary_page;

/// One titled table of a page: a header row and text rows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Table {
    /// The title printed above the table (empty: none).
    pub title: String,
    /// Column names.
    pub header: Vec<String>,
    /// Rows of cells; a row may be shorter than the header (NVIDIA's rows without rule
    /// columns).
    pub rows: Vec<Vec<String>>,
}

/// How units are printed (`--print-units`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum UnitMode {
    /// Values scaled into the largest unit step they reach (`usecond`, `Mbyte`).
    #[default]
    Auto,
    /// Base units (`nsecond`, `byte`, `cycle/second`).
    Base,
}

/// How instanced metrics are printed (`--print-metric-instances`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum InstanceMode {
    /// The aggregate value only.
    #[default]
    None,
    /// `AGG (v1; v2; ...)`.
    Values,
    /// `AGG (id1: v1; id2: v2; ...)`.
    Details,
}
