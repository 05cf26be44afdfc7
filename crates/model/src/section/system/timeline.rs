//! The PM sampling timeline (body item kind 113): the section file lists metric groups, each
//! of rows, each of one or more metrics (a row of several is drawn as stacked bars). The
//! metrics were sampled periodically while the workload ran: each instance of such a metric is
//! one sample, its correlation id the sample's timestamp in nanoseconds and its value the
//! sampled value (checked on the 2024.1 corpus report: 23 instances per metric, timestamps
//! 12.9 µs apart, which is the section's 20,000-cycle sampling interval at the GPU's clock).

use super::{Instances, PmTimeline, TimelineGroup, TimelineRow, TimelineSeries, correlation_u64};
use crate::proto::nv::profiler::{ProfilerSectionMetric, ProfilerSectionTimeline};
use crate::section::details::Entry;

/// A timeline metric resolved for the action: its entry (name chosen by the metric's filter
/// and options, label, regular value, unit) and its instances.
#[derive(Debug, Clone)]
pub struct TimelineMetric {
    /// The entry.
    pub entry: Entry,
    /// The instances; `None` when the report lacks the metric.
    pub instances: Option<Instances>,
}

/// Builds the timeline of `timeline`, resolving each section metric through `resolve` (which
/// returns nothing for a metric its filter excludes). Groups and rows left without metrics are
/// dropped. A row is stacked when its `Type` is given (`StackedBar`, the only type) or it holds
/// several metrics. The flat `Metrics` list of the item, if any, becomes a last group of one row per
/// metric. Returns the layout and its entries.
pub fn build_timeline(
    timeline: &ProfilerSectionTimeline,
    resolve: &mut dyn FnMut(&ProfilerSectionMetric) -> Vec<TimelineMetric>,
) -> (PmTimeline, Vec<Entry>) {
    let mut entries = Vec::new();
    let mut groups = Vec::new();
    let mut add_row = |label: Option<&String>,
                       stacked: bool,
                       metrics: &[ProfilerSectionMetric],
                       entries: &mut Vec<Entry>|
     -> Option<TimelineRow> {
        let mut series = Vec::new();
        for metric in metrics {
            for resolved in resolve(metric) {
                series.push(series_of(metric, resolved, entries));
            }
        }
        // Without a label of its own, a row is named by its metrics.
        let metric_labels: Vec<&str> = series
            .iter()
            .filter_map(|s: &TimelineSeries| entries.get(s.entry))
            .map(|e| e.label.as_str())
            .collect();
        let named = (!metric_labels.is_empty()).then(|| metric_labels.join(", "));
        let label = label.filter(|l| !l.is_empty()).cloned().or(named)?;
        Some(TimelineRow {
            label,
            stacked: stacked || series.len() > 1,
            series,
        })
    };
    for group in &timeline.metric_groups {
        let rows: Vec<TimelineRow> = group
            .metric_rows
            .iter()
            .filter_map(|row| {
                add_row(
                    row.label.as_ref(),
                    row.r#type.is_some(),
                    &row.metrics,
                    &mut entries,
                )
            })
            .collect();
        if !rows.is_empty() {
            groups.push(TimelineGroup {
                label: group.label.clone().unwrap_or_default(),
                expanded: group.expanded.unwrap_or(true),
                rows,
            });
        }
    }
    let loose: Vec<TimelineRow> = timeline
        .metrics
        .iter()
        .filter_map(|m| add_row(None, false, std::slice::from_ref(m), &mut entries))
        .collect();
    if !loose.is_empty() {
        groups.push(TimelineGroup {
            label: String::new(),
            expanded: true,
            rows: loose,
        });
    }
    let times = || {
        groups
            .iter()
            .flat_map(|g| &g.rows)
            .flat_map(|r| &r.series)
            .flat_map(|s| s.samples.iter().map(|(t, _)| *t))
    };
    let layout = PmTimeline {
        start_ns: times().min(),
        end_ns: times().max(),
        groups,
    };
    (layout, entries)
}

/// The series of one resolved metric; its entry goes to `entries` without its instances (the
/// samples hold them).
fn series_of(
    metric: &ProfilerSectionMetric,
    resolved: TimelineMetric,
    entries: &mut Vec<Entry>,
) -> TimelineSeries {
    let mut samples: Vec<(u64, f64)> = resolved
        .instances
        .unwrap_or_default()
        .iter()
        .filter_map(|(id, value)| {
            let time = correlation_u64(id.as_ref())?;
            // NaN is kept: it is what the report holds for that sample (a real H800 report
            // has NaN samples); the chart leaves it out when drawing.
            let value = value.as_f64()?;
            Some((time, value))
        })
        .collect();
    samples.sort_by_key(|(time, _)| *time);
    let mut entry = resolved.entry;
    entry.instances = None;
    entries.push(entry);
    TimelineSeries {
        entry: entries.len() - 1,
        pass_groups: metric.groups.clone(),
        samples,
    }
}
