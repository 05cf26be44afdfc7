//! What NVIDIA's `ISection` answers about a section embedded in a result: the metrics of its
//! header and of its body, by name, in the section's order, each once (the first place it
//! appears), and only those the result stores; and the labels the sections give metrics
//! (`IMetric.label()`).

use std::collections::HashMap;

use crate::ncu::Action;
use crate::proto::nv::profiler::{
    ProfilerSection, ProfilerSectionBodyItem, ProfilerSectionMetric, ProfilerSectionRooflineValue,
    profiler_section_roofline_value::RooflineValue,
};

/// The names of `metrics` that `action` stores, each once, appended to `out` in order.
fn push_stored<'s>(
    action: &Action,
    metrics: impl IntoIterator<Item = &'s ProfilerSectionMetric>,
    out: &mut Vec<&'s str>,
) {
    for metric in metrics {
        let name = metric.name.as_str();
        if action.metric_index(name).is_some() && !out.contains(&name) {
            out.push(name);
        }
    }
}

/// The metrics of a roofline value (a metric, or per-cycle metrics and a clock).
fn roofline_metrics(value: Option<&ProfilerSectionRooflineValue>) -> Vec<&ProfilerSectionMetric> {
    match value.and_then(|v| v.roofline_value.as_ref()) {
        Some(RooflineValue::Metric(metric)) => vec![metric],
        Some(RooflineValue::ValueCyclesPerSecondExpression(expression)) => expression
            .value_per_cycle_metrics
            .iter()
            .chain(&expression.cycles_per_second_metric)
            .collect(),
        Some(RooflineValue::Constant(_)) | None => Vec::new(),
    }
}

/// The metrics one body item shows, in order (a container's items in turn; not a line chart's
/// highlighted values nor a PM sampling timeline's metrics, which NVIDIA's `ISection` leaves
/// out).
fn item_metrics(item: &ProfilerSectionBodyItem) -> Vec<&ProfilerSectionMetric> {
    let mut out: Vec<&ProfilerSectionMetric> = Vec::new();
    if let Some(table) = &item.table {
        out.extend(&table.metrics);
    }
    if let Some(chart) = &item.bar_chart {
        out.extend(&chart.metrics);
    }
    if let Some(chart) = &item.histogram_chart {
        out.push(&chart.metric);
    }
    if let Some(chart) = &item.line_chart {
        out.extend(&chart.metrics);
    }
    if let Some(container) = &item.horizontal_container {
        out.extend(container.items.iter().flat_map(item_metrics));
    }
    if let Some(chart) = &item.roofline_chart {
        for roofline in &chart.rooflines {
            out.extend(roofline_metrics(Some(&roofline.peak_work)));
            out.extend(roofline_metrics(Some(&roofline.peak_traffic)));
        }
        for achieved in &chart.achieved_values {
            out.extend(roofline_metrics(Some(&achieved.achieved_work)));
            out.extend(roofline_metrics(Some(&achieved.achieved_traffic)));
        }
        for wall in &chart.walls {
            out.extend(roofline_metrics(Some(&wall.value)));
        }
    }
    if let Some(table) = &item.source_metric_table {
        out.extend(&table.metrics);
    }
    if let Some(table) = &item.suffix_table {
        out.extend(&table.base_names.base_name);
    }
    if let Some(widget) = &item.gfx_metrics_widget {
        out.extend(&widget.metrics);
    }
    out
}

/// `ISection.header_metrics()`: the stored metrics of the section's header, by name.
pub fn header_metric_names<'s>(section: &'s ProfilerSection, action: &Action) -> Vec<&'s str> {
    let mut out = Vec::new();
    push_stored(
        action,
        section.header.iter().flat_map(|h| &h.metrics),
        &mut out,
    );
    out
}

/// `ISection.body_metrics()`: the stored metrics of the section's body items (tables, charts,
/// rooflines...), by name, without those of the header.
pub fn body_metric_names<'s>(section: &'s ProfilerSection, action: &Action) -> Vec<&'s str> {
    // The header's metrics come first, so the body lists only the ones the header lacks.
    let mut out = header_metric_names(section, action);
    let header = out.len();
    let items = section.body.iter().flat_map(|b| &b.items);
    push_stored(action, items.flat_map(|i| item_metrics(i)), &mut out);
    out.split_off(header)
}

/// `IMetric.label()` of every metric a section labels: the label of the first place the metric
/// appears in the sections by order (the first of equal orders in the report's order), header
/// before body (not a line chart's highlighted values, a timeline or the section's metric
/// list), even when that place gives no label.
pub fn metric_labels(sections: &[ProfilerSection]) -> HashMap<String, String> {
    let mut ordered: Vec<&ProfilerSection> = sections.iter().collect();
    ordered.sort_by_key(|s| s.order.unwrap_or(0));
    let mut labels = HashMap::new();
    for section in ordered {
        let header = section.header.iter().flat_map(|h| &h.metrics);
        let items = section.body.iter().flat_map(|b| &b.items);
        let body = items.flat_map(|i| item_metrics(i));
        for metric in header.chain(body) {
            labels
                .entry(metric.name.clone())
                .or_insert_with(|| metric.label.clone().unwrap_or_default());
        }
    }
    labels.retain(|_, label| !label.is_empty());
    labels
}
