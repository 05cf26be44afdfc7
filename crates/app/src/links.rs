//! Links between documents of different kinds: the keys documents publish under
//! ([`crate::document::Published`]) and the payload type of each. The shell passes published
//! items between tabs and routes [`crate::document::Navigate`] requests without knowing any of
//! this; the kinds that link agree here.
//!
//! - [`NCU_REPORT`]: an Nsight Compute report tab, once loaded — payload `Arc<Report>`.
//! - [`TIMELINE_NCU_LINKS`]: a timeline tab's matches with the reports open beside it
//!   (computed on its background job) — payload [`TimelineNcuLinks`].

use std::path::PathBuf;
use std::sync::Arc;

use sightline_model::link::LinkSet;

/// Key of a loaded Nsight Compute report (payload `Arc<sightline_model::ncu::Report>`).
pub const NCU_REPORT: &str = "ncu-report";

/// Key of a timeline's matches with Nsight Compute reports (payload [`TimelineNcuLinks`]).
pub const TIMELINE_NCU_LINKS: &str = "timeline-ncu-links";

/// What a timeline publishes under [`TIMELINE_NCU_LINKS`]: per report (by path), the matches of
/// its results with the timeline's kernels. A report tab navigates to the timeline with an
/// event id.
#[derive(Debug, Clone, Default)]
pub struct TimelineNcuLinks {
    /// `(report path, matches)` of every report linked so far.
    pub reports: Vec<(PathBuf, Arc<LinkSet>)>,
}

impl TimelineNcuLinks {
    /// The matches with the report at `path`, when linked.
    pub fn of_report(&self, path: &std::path::Path) -> Option<&Arc<LinkSet>> {
        self.reports
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, set)| set)
    }
}
