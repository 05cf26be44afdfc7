//! The body items of `--print-details all`: which entries each item lists and in which order,
//! and the instance lists of their values.
//!
//! The 2024.1 CLI lists a table's, bar chart's or line chart's metrics (a line chart's
//! `HighlightX` metrics with them) sorted by metric name; an item the section sorts (`SortKey`)
//! is then sorted stably by its printed values (so equal rounded values keep metric-name order:
//! `1.49`, `1.49`, `1.49`) or by label. A horizontal container lists its items in order. Checked
//! on every corpus `details-all*.csv` (`notes/ncu-import-csv.md`). A suffix table's rows are
//! labelled by their base metric alone.

use super::UnitMode;
use super::chip::ChipLibrary;
use super::details::{EntryFormat, entry_format};
use super::header::{group_members, matched_entry};
use super::number::{plain_text, scaled};
use crate::ncu::{Action, MetricValue};
use crate::section::details::{Entry, Item, ItemKind, Sort, SortKey};
use crate::section::memory::{self, MemoryWidget};

/// Whether the CLI sorts an item's metrics by metric name.
fn sorted_kind(kind: &ItemKind) -> bool {
    matches!(
        kind,
        ItemKind::Table(_)
            | ItemKind::BarChart { .. }
            | ItemKind::LineChart { .. }
            | ItemKind::Histogram { .. }
            | ItemKind::SuffixTable { .. }
    )
}

/// Whether an item is a source metric table (`SourceMetricTable`).
fn source_table(kind: &ItemKind) -> bool {
    matches!(kind, ItemKind::SourceMetricTable(_))
}

/// `item` with the `group:` metrics of its source tables (and of its children's) replaced by
/// their members, as the CLI lists them: one row per stall reason, labelled by the member's
/// name ([`group_members`]).
pub fn with_group_members(item: &Item, action: &Action) -> Item {
    let mut out = item.clone();
    expand_groups(&mut out, action);
    out
}

fn expand_groups(item: &mut Item, action: &Action) {
    if source_table(&item.kind) {
        item.entries = item
            .entries
            .iter()
            .flat_map(|e| group_members(action, e).unwrap_or_else(|| vec![e.clone()]))
            .collect();
    }
    if let Some(members) = memory_group_members(item, action) {
        item.entries = members;
    }
    for child in &mut item.items {
        expand_groups(child, action);
    }
}

/// The entries of a memory chart or table as the CLI lists them: the metrics its `group:memory__*`
/// metric names (those the writing version collected for the widget), labelled by metric name,
/// sorted by name (vec_add's "Memory Chart": `dram__bytes_read.sum` first). `None` when the
/// item is no memory widget or the report lacks its group metric.
fn memory_group_members(item: &Item, action: &Action) -> Option<Vec<Entry>> {
    let widget = match item.memory()? {
        MemoryWidget::Chart(_) => "memory_chart",
        MemoryWidget::Table(table) => table.widget,
    };
    let group = memory::group_metric(widget)?;
    let list = action.metric(group)?.stored.as_str()?.to_owned();
    let mut members: Vec<Entry> = list
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(|name| matched_entry(action, name))
        .collect();
    members.sort_by(|a, b| a.metric.cmp(&b.metric));
    Some(members)
}

/// One row of a body item.
#[derive(Debug, Clone, Copy)]
pub struct BodyRow<'a> {
    /// The item's label (`Body Item Label`).
    pub item: &'a str,
    /// The entry.
    pub entry: &'a Entry,
    /// The `Metric Name` label: the entry's, or a suffix table's row label (the CLI leaves the
    /// suffix's label out: "SM Active Cycles" four times, `.avg`, `.max`, `.min`, `.sum`).
    pub label: &'a str,
    /// Whether the value lists the metric's instances (a chart's or table's own metrics; not a
    /// line chart's `HighlightX` values).
    pub instances: bool,
}

/// The rows of `item` (and of the items it contains) as the CLI lists them.
pub fn body_entries(item: &Item, units: UnitMode, library: ChipLibrary) -> Vec<BodyRow<'_>> {
    let mut out = Vec::new();
    collect(item, units, library, &mut out);
    out
}

fn collect<'a>(item: &'a Item, units: UnitMode, library: ChipLibrary, out: &mut Vec<BodyRow<'a>>) {
    // The system widgets (NVLink topology and tables, NUMA ID table) print no rows (2024.1,
    // every corpus report with the NVLink or NUMA sections: only the NUMA section's metrics).
    if item.system().is_some() {
        return;
    }
    let (row_labels, highlights): (&[String], &[Entry]) = match &item.kind {
        ItemKind::SuffixTable { row_labels } => (row_labels, &[]),
        ItemKind::LineChart { highlights, .. } => (&[], highlights),
        _ => (&[], &[]),
    };
    let row = |(i, entry): (usize, &'a Entry)| BodyRow {
        item: item.label.as_str(),
        entry,
        label: row_labels.get(i).unwrap_or(&entry.label).as_str(),
        // A source table's metrics are per instruction: the CLI prints their aggregate alone
        // ("Most Instructions Executed": `inst_executed`, `207360`).
        instances: !source_table(&item.kind),
    };
    if let Some(roofline) = item.roofline().filter(|r| !r.parts.is_empty()) {
        // A roofline chart: per roofline, then per achieved value, under its own label, the
        // work inputs then the traffic inputs, each sorted by metric name (esmm's "Single
        // Precision Achieved Value": the derived FFMA count, "SM Frequency", then FADD, FMUL;
        // then "DRAM Bandwidth"), each metric once.
        for part in &roofline.parts {
            for range in [part.work.clone(), part.traffic.clone()] {
                let mut rows: Vec<BodyRow<'a>> = item
                    .entries
                    .get(range)
                    .unwrap_or_default()
                    .iter()
                    .map(|entry| BodyRow {
                        item: part.label.as_str(),
                        entry,
                        label: entry.label.as_str(),
                        instances: true,
                    })
                    .collect();
                rows.sort_by(|a, b| a.entry.metric.cmp(&b.entry.metric));
                // A metric listed twice (2020.2's FFMA, counted twice for two operations)
                // prints once.
                rows.dedup_by(|a, b| a.entry.metric == b.entry.metric);
                out.extend(rows);
            }
        }
        return;
    }
    let mut rows: Vec<BodyRow<'a>> = item.entries.iter().enumerate().map(row).collect();
    rows.extend(highlights.iter().map(|entry| BodyRow {
        instances: false,
        ..row((usize::MAX, entry))
    }));
    if sorted_kind(&item.kind) {
        rows.sort_by(|a, b| a.entry.metric.cmp(&b.entry.metric));
        match item.sort() {
            Some(Sort {
                key: SortKey::Value,
                descending,
            }) => {
                let key = |r: &BodyRow<'_>| {
                    let (_, text) = entry_format(r.entry, units, library);
                    text.parse::<f64>().ok().filter(|v| !v.is_nan())
                };
                rows.sort_by(|a, b| {
                    let order = match (key(a), key(b)) {
                        (Some(x), Some(y)) => x.total_cmp(&y),
                        (Some(_), None) => std::cmp::Ordering::Greater,
                        (None, Some(_)) => std::cmp::Ordering::Less,
                        (None, None) => std::cmp::Ordering::Equal,
                    };
                    if descending { order.reverse() } else { order }
                });
            }
            Some(Sort {
                key: SortKey::Label,
                descending,
            }) => rows.sort_by(|a, b| {
                let order = a.label.cmp(b.label);
                if descending { order.reverse() } else { order }
            }),
            None => {}
        }
    }
    out.extend(rows);
    for child in &item.items {
        collect(child, units, library, out);
    }
}

/// The value cell of a body entry: the value (`text`, printed in `format`), then its instances
/// in parentheses when the metric has any (`4976 (48; 48; ...)`), each printed as the value is.
pub fn value_with_instances(
    action: &Action,
    entry: &Entry,
    format: &EntryFormat,
    text: String,
) -> String {
    let stored: Option<Vec<&MetricValue>> = action
        .metric(&entry.metric)
        .map(|m| m.instances.iter().map(|i| &i.value).collect())
        .or_else(|| {
            entry
                .instances
                .as_ref()
                .map(|list| list.iter().map(|(_, v)| v).collect())
        });
    match stored {
        Some(list) if !list.is_empty() => {
            let items: Vec<String> = list
                .into_iter()
                .map(|v| match (format.divisor, v.as_f64()) {
                    (Some(d), Some(x)) => plain_text(&MetricValue::Double(scaled(x, d))),
                    _ => plain_text(v),
                })
                .collect();
            format!("{text} ({})", items.join("; "))
        }
        _ => text,
    }
}
