//! A section's header metrics as the CLI lists them: sorted by metric name, `regex:` entries
//! expanded, and with `--print-details all` the section's own `Metrics` among them (once: a
//! metric both lists is one row, ex-gpu details-all.csv).
//!
//! A `regex:` header metric is stored in the report as a string metric of that name whose value
//! is the comma-separated list of the metrics it matched (ex-gpu's "Command line profiler
//! metrics"); the CLI prints one row per listed metric, labelled by its name, with its unit and
//! value (checked: ex-gpu details.csv, summary.csv).

use std::borrow::Cow;

use crate::ncu::units::infer_unit;
use crate::ncu::{Action, MetricValue};
use crate::section::details::{DetailsSection, Entry};

/// The header entries of `section` for `action` in the CLI's order; `with_metrics` adds the
/// section's own `Metrics` (`--print-details all`).
pub fn header_entries<'a>(
    section: &'a DetailsSection,
    action: &Action,
    with_metrics: bool,
) -> Vec<Cow<'a, Entry>> {
    // The section's own metrics that the header already lists are listed once.
    let own = section
        .metrics
        .iter()
        .filter(|m| with_metrics && !section.header.iter().any(|h| h.metric == m.metric));
    let mut out: Vec<Cow<'a, Entry>> = Vec::new();
    for entry in section.header.iter().chain(own) {
        match (entry.metric.strip_prefix("regex:"), &entry.value) {
            (Some(_), Some(MetricValue::String(list))) => {
                out.extend(
                    list.split(',')
                        .map(str::trim)
                        .filter(|n| !n.is_empty())
                        .map(|name| Cow::Owned(matched_entry(action, name))),
                );
            }
            _ => out.push(Cow::Borrowed(entry)),
        }
    }
    // A `group:` metric sorts by its own name, then lists its members in the stored order
    // (blsongpu: the stall reasons after `gpc__cycles_elapsed.max`, before `inst_executed`).
    out.sort_by(|a, b| a.metric.cmp(&b.metric));
    out.into_iter()
        .flat_map(|entry| match group_members(action, &entry) {
            Some(members) => members.into_iter().map(Cow::Owned).collect(),
            None => vec![entry],
        })
        .collect()
}

/// The member entries of a `group:` entry, `None` for any other entry.
///
/// A `group:` metric is stored as a string metric listing its members, comma-separated
/// (`group:smsp__pcsamp_warp_stall_reasons`: the `smsp__pcsamp_warps_issue_stalled_*`
/// metrics). With `--print-details all` the CLI prints one row per member with the member's
/// unit and value, labelled `Label (member)` (`Warp Stall Sampling (All Cycles)
/// (smsp__pcsamp_warps_issue_stalled_barrier)`), or by the member's name when the entry has no
/// label of its own (a source table's metric).
pub fn group_members(action: &Action, entry: &Entry) -> Option<Vec<Entry>> {
    entry.metric.strip_prefix("group:")?;
    let Some(MetricValue::String(list)) = &entry.value else {
        return None;
    };
    let labelled = entry.label != entry.metric;
    Some(
        list.split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(|name| {
                let mut member = matched_entry(action, name);
                if labelled {
                    member.label = format!("{} ({name})", entry.label);
                }
                member
            })
            .collect(),
    )
}

/// The entry of a metric a `regex:` header metric matched: labelled by its name.
pub(super) fn matched_entry(action: &Action, name: &str) -> Entry {
    let value = action.metric(name).map(|m| m.value());
    Entry {
        label: name.to_owned(),
        metric: name.to_owned(),
        text: value
            .as_ref()
            .map_or_else(|| "N/A".to_owned(), MetricValue::plain_text),
        value,
        unit: infer_unit(name).into_owned(),
        description: None,
        hw_unit: None,
        instances: None,
        derived: false,
        blank_label: false,
    }
}
