//! The Summary page's rows: one row per result with its launch, its duration, the throughput
//! and occupancy values that the Speed of Light and Occupancy sections define (their header
//! entries in `%`), and the estimated speedup of its top stored rule result. The app computes
//! them on a background job and `sightline summary --baseline` prints them; [`gpu_rollup`]
//! groups them per GPU.
//!
//! Only the two sections are resolved for a row ([`OverviewBuilder`]), so 2,000 results take
//! a fraction of the time their full Details pages would.

use std::collections::BTreeMap;
use std::sync::Arc;

use bytes::Bytes;

use super::choice::SectionSource;
use super::details::{KernelDetails, resolve_action};
use super::registry::SectionSet;
use crate::ncu::nvtx::NvtxView;
use crate::ncu::rule_result::rule_messages;
use crate::ncu::{Action, LaunchRow};
use crate::proto::nv::profiler::ProfilerSection;

/// The sections whose header values are the Summary page's columns.
pub const OVERVIEW_SECTIONS: [&str; 2] = ["SpeedOfLight", "Occupancy"];

/// The unit of the header entries that become columns (throughputs and occupancies).
const COLUMN_UNIT: &str = "%";

/// One value column of the Summary page: a header entry of an overview section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverviewColumn {
    /// The section's identifier.
    pub section: String,
    /// The entry's label.
    pub label: String,
    /// The entry's metric name.
    pub metric: String,
}

/// One value of a row.
#[derive(Debug, Clone, PartialEq)]
pub struct OverviewCell {
    /// The value in the metric's base unit.
    pub value: f64,
    /// The value as the Details page prints it.
    pub text: String,
}

/// The top stored rule result of a row: the message with the largest speedup estimate.
#[derive(Debug, Clone, PartialEq)]
pub struct TopRule {
    /// The estimated speedup in percent.
    pub speedup: f64,
    /// The rule's display name.
    pub rule: String,
    /// The message's title.
    pub title: String,
}

/// One row of the Summary page.
#[derive(Debug, Clone, PartialEq)]
pub struct OverviewRow {
    /// The launch columns (index, names, geometry, duration, device).
    pub launch: LaunchRow,
    /// The launching thread's NVTX push/pop ranges and the open start/end ranges,
    /// `domain: outer / inner` joined by `; ` (what the NVTX filter matches).
    pub nvtx: String,
    /// Values by column of [`OverviewColumns`] (shorter when later rows added columns).
    pub values: Vec<Option<OverviewCell>>,
    /// The top stored rule result, when one estimates a speedup.
    pub top_rule: Option<TopRule>,
}

impl OverviewRow {
    /// The row of result `index`, which could not be decoded (see [`LaunchRow::unreadable`]).
    pub fn unreadable(index: usize, error: &str) -> OverviewRow {
        OverviewRow {
            launch: LaunchRow::unreadable(index, error),
            nvtx: String::new(),
            values: Vec::new(),
            top_rule: None,
        }
    }

    /// The value of column `column`.
    pub fn value(&self, column: usize) -> Option<&OverviewCell> {
        self.values.get(column).and_then(Option::as_ref)
    }
}

/// The value columns seen so far, in first-seen order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OverviewColumns {
    /// The columns.
    pub columns: Vec<OverviewColumn>,
}

impl OverviewColumns {
    /// The index of the column of `section`'s entry `label`, added when new.
    fn index(&mut self, section: &str, label: &str, metric: &str) -> usize {
        match self
            .columns
            .iter()
            .position(|c| c.section == section && c.label == label)
        {
            Some(i) => i,
            None => {
                self.columns.push(OverviewColumn {
                    section: section.to_owned(),
                    label: label.to_owned(),
                    metric: metric.to_owned(),
                });
                self.columns.len() - 1
            }
        }
    }
}

/// Makes rows: picks each result's sections as the Details page does (embedded sections when
/// preferred and present, else the search path's), keeps only `OVERVIEW_SECTIONS`, and
/// reuses the last embedded set while results embed the same section bytes.
pub struct OverviewBuilder {
    folder_set: Arc<SectionSet>,
    prefer_embedded: bool,
    /// The embedded overview sections last decoded: their bytes and their set.
    last_embedded: Option<(Vec<Bytes>, Arc<SectionSet>)>,
    /// The columns seen so far.
    pub columns: OverviewColumns,
}

impl OverviewBuilder {
    /// A builder over the search path's `folder_set`.
    pub fn new(folder_set: &SectionSet, prefer_embedded: bool) -> OverviewBuilder {
        OverviewBuilder {
            folder_set: Arc::new(only_overview(folder_set)),
            prefer_embedded,
            last_embedded: None,
            columns: OverviewColumns::default(),
        }
    }

    /// The overview sections of `action` (an embedded section that does not decode is left
    /// out).
    fn sections(&mut self, action: &Action) -> Arc<SectionSet> {
        if SectionSource::for_action(action, self.prefer_embedded) == SectionSource::Folders {
            return Arc::clone(&self.folder_set);
        }
        let Ok(ids) = action.section_identifiers() else {
            return Arc::clone(&self.folder_set);
        };
        let bytes: Vec<Bytes> = ids
            .iter()
            .zip(action.section_bytes())
            .filter(|(id, _)| OVERVIEW_SECTIONS.contains(id))
            .map(|(_, b)| b.clone())
            .collect();
        if let Some((last, set)) = &self.last_embedded
            && *last == bytes
        {
            return Arc::clone(set);
        }
        let sections: Vec<ProfilerSection> = bytes
            .iter()
            .filter_map(|b| prost::Message::decode(b.clone()).ok())
            .collect();
        let set = Arc::new(only_overview(&SectionSet::from_embedded(sections)));
        self.last_embedded = Some((bytes, Arc::clone(&set)));
        set
    }

    /// The row of `action`.
    pub fn row(&mut self, action: &Action) -> OverviewRow {
        let set = self.sections(action);
        let page = resolve_action(action, &set);
        self.row_of(action, &page)
    }

    /// The row of `action` whose overview sections (at least) are resolved in `page`.
    pub fn row_of(&mut self, action: &Action, page: &KernelDetails) -> OverviewRow {
        let mut values: Vec<Option<OverviewCell>> = Vec::new();
        for section in page
            .sections
            .iter()
            .filter(|s| OVERVIEW_SECTIONS.contains(&s.identifier.as_str()))
        {
            for entry in section.header.iter().filter(|e| e.unit == COLUMN_UNIT) {
                let column = self
                    .columns
                    .index(&section.identifier, &entry.label, &entry.metric);
                if values.len() <= column {
                    values.resize(column + 1, None);
                }
                values[column] =
                    entry
                        .value
                        .as_ref()
                        .and_then(|v| v.as_f64())
                        .map(|value| OverviewCell {
                            value,
                            text: entry.text.clone(),
                        });
            }
        }
        OverviewRow {
            values,
            ..launch_row(action)
        }
    }
}

/// The launch part of `action`'s row (no values).
pub fn launch_row(action: &Action) -> OverviewRow {
    OverviewRow {
        launch: LaunchRow::of(action),
        nvtx: nvtx_text(action),
        values: Vec::new(),
        top_rule: top_rule(action),
    }
}

/// A copy of `set` with only the [`OVERVIEW_SECTIONS`], without their bodies: the rows need
/// the header values only, and the bodies' breakdown tables and charts (`regex:` and
/// `breakdown:` metrics over every metric of the result) are most of a section's cost.
pub fn only_overview(set: &SectionSet) -> SectionSet {
    let mut only = set.clone();
    only.sections
        .retain(|s| OVERVIEW_SECTIONS.contains(&s.section.identifier.as_str()));
    for loaded in &mut only.sections {
        loaded.section.body.clear();
    }
    only
}

/// The stored rule message with the largest speedup estimate.
fn top_rule(action: &Action) -> Option<TopRule> {
    rule_messages(action.rule_results())
        .into_iter()
        .filter_map(|m| m.message.speedup.map(|s| (s.value, m)))
        .filter(|(value, _)| value.is_finite())
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(speedup, m)| TopRule {
            speedup,
            rule: m.rule.name.to_owned(),
            title: m.message.title,
        })
}

/// `domain: outer / inner` per domain with ranges, joined by `; `.
fn nvtx_text(action: &Action) -> String {
    let Some(state) = action.nvtx() else {
        return String::new();
    };
    let view = NvtxView::new(state, action.thread_id());
    let mut parts = Vec::new();
    for id in view.domain_ids() {
        let ranges: Vec<&str> = view
            .push_pop_ranges(id)
            .iter()
            .chain(view.start_end_ranges(id))
            .copied()
            .collect();
        if !ranges.is_empty() {
            parts.push(format!("{}: {}", view.domain_name(id), ranges.join(" / ")));
        }
    }
    parts.join("; ")
}

/// The rows of one GPU, rolled up.
#[derive(Debug, Clone, PartialEq)]
pub struct GpuRollup {
    /// `device__attribute_device_index` (`None`: results without it).
    pub device: Option<u64>,
    /// How many results ran on it.
    pub results: usize,
    /// The sum of their durations in nanoseconds.
    pub total_ns: f64,
    /// The mean of each value column over the results that have it.
    pub means: Vec<Option<f64>>,
}

/// One device's sums: results, total duration, and per column the sum and count of values.
type Sums = (usize, f64, Vec<(f64, usize)>);

/// One `GpuRollup` per device, by device index.
pub fn gpu_rollup(rows: &[OverviewRow], columns: usize) -> Vec<GpuRollup> {
    let mut groups: BTreeMap<Option<u64>, Sums> = BTreeMap::new();
    for row in rows {
        let (count, total, sums) = groups
            .entry(row.launch.device)
            .or_insert_with(|| (0, 0.0, vec![(0.0, 0); columns]));
        *count += 1;
        *total += row
            .launch
            .duration_ns
            .filter(|d| d.is_finite())
            .unwrap_or(0.0);
        for (column, sum) in sums.iter_mut().enumerate() {
            if let Some(cell) = row.value(column).filter(|c| c.value.is_finite()) {
                sum.0 += cell.value;
                sum.1 += 1;
            }
        }
    }
    groups
        .into_iter()
        .map(|(device, (results, total_ns, sums))| GpuRollup {
            device,
            results,
            total_ns,
            means: sums
                .into_iter()
                .map(|(sum, n)| (n > 0).then(|| sum / n as f64))
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(device: Option<u64>, duration: f64, values: &[Option<f64>]) -> OverviewRow {
        OverviewRow {
            launch: LaunchRow {
                name: "k".into(),
                demangled: "k".into(),
                grid: "-".into(),
                block: "-".into(),
                duration_ns: Some(duration),
                device,
                ..LaunchRow::default()
            },
            nvtx: String::new(),
            values: values
                .iter()
                .map(|v| {
                    v.map(|value| OverviewCell {
                        value,
                        text: value.to_string(),
                    })
                })
                .collect(),
            top_rule: None,
        }
    }

    #[test]
    fn rollup_per_device_counts_sums_and_averages_present_values() {
        let rows = [
            row(Some(1), 10.0, &[Some(50.0), None]),
            row(Some(0), 5.0, &[Some(20.0), Some(1.0)]),
            row(Some(1), 30.0, &[Some(70.0)]),
        ];
        let rollup = gpu_rollup(&rows, 2);
        assert_eq!(rollup.len(), 2);
        assert_eq!(rollup[0].device, Some(0));
        assert_eq!((rollup[1].results, rollup[1].total_ns), (2, 40.0));
        assert_eq!(rollup[1].means, vec![Some(60.0), None]);
        assert_eq!(rollup[0].means, vec![Some(20.0), Some(1.0)]);
    }
}
