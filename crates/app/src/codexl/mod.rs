//! AMD CodeXL / Radeon Compute Profiler session files in the app: the counters document
//! (`.csv`) and the occupancy document (`.occupancy`), and the widgets that join a session's
//! files — the offer of a session's other files and one dispatch's counters and occupancy for
//! the `.atp` timeline's details.
//!
//! - [`loader`]: reading and parsing on the `sightline-loader` thread, with progress and Cancel.
//! - [`counters`]: [`CountersDoc`] — header, sortable dispatch table, per-kernel aggregates, a
//!   bar chart of any counter.
//! - [`occupancy`]: [`OccupancyDoc`] — the table and the selected kernel's four charts
//!   ([`occupancy_charts`]).
//! - [`dispatch`]: [`dispatch::offer_session_ui`] and [`dispatch::dispatch_details_ui`].
//! - [`table`], [`chart`], [`header`]: the sortable table, the painter charts, the header and
//!   warnings.

pub mod chart;
pub mod counters;
pub mod dispatch;
pub mod header;
pub mod loader;
pub mod occupancy;
pub mod occupancy_charts;
pub mod table;

pub use counters::CountersDoc;
pub use occupancy::OccupancyDoc;

use crate::document::{DocumentKind, DocumentType};
use sightline_model::kind::FileKind;

/// CodeXL / RCP performance counter files (`.csv`) open as a [`CountersDoc`].
pub const COUNTERS_DOCUMENT: DocumentType = DocumentType {
    kind: DocumentKind::Counters,
    name: "CodeXL performance counters",
    file_kinds: &[FileKind::CodexlCounters],
    open: |path, _states, wake| Box::new(CountersDoc::open(path, move || wake())),
    state: None,
};

/// CodeXL / RCP occupancy files (`.occupancy`) open as an [`OccupancyDoc`].
pub const OCCUPANCY_DOCUMENT: DocumentType = DocumentType {
    kind: DocumentKind::Occupancy,
    name: "CodeXL occupancy",
    file_kinds: &[FileKind::CodexlOccupancy],
    open: |path, _states, wake| Box::new(OccupancyDoc::open(path, move || wake())),
    state: None,
};
