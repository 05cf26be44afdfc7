//! What a panel reads: the report, the selected action and its resolved Details page.

use sightline_model::*;

/// Read-only context handed to panels each frame.
pub struct ViewCtx<'a> {
    /// The open report.
    pub report: &'a Report,
    /// The selected action (kernel).
    pub action: &'a Action,
    /// The action's Details page, resolved against the active sections.
    pub details: &'a KernelDetails,
    /// The rules of the page: states and results applied in this session.
    pub rules: &'a PageRules,
}

mod sightline_model {
    pub use crate::ncu::rule_state::PageRules;
    pub use sightline_model::ncu::{Action, Report};
    pub use sightline_model::section::KernelDetails;
}
