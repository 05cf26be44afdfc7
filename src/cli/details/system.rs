//! `sightline details`: the NUMA and NVLink widgets and the PM sampling timeline as text and
//! JSON (CSV needs nothing: every cell is one of the item's entries).

use std::io::{self, Write};

use crate::format::format_with_unit;
use crate::ncu::MetricValue;
use crate::pyjson::PyJsonWriter;
use crate::section::Item;
use crate::section::system::{EmptyState, PmTimeline, SystemWidget};

use super::json_entry;

/// Samples of a series printed in the text view.
const TEXT_SAMPLES: usize = 16;

/// The text of entry `index` of `item`; `-` where there is none.
/// Entry `index` of `item` as text, or `-`.
pub(super) fn text(item: &Item, index: Option<usize>) -> String {
    index
        .and_then(|i| item.entries.get(i))
        .map_or("-".to_owned(), |e| e.text.clone())
}

/// A table as an aligned grid (after its "no links" state, if any); the topology as its devices
/// and links; the timeline as its groups and rows with each series' samples.
pub(super) fn write_text(
    item: &Item,
    widget: &SystemWidget,
    depth: usize,
    out: &mut impl Write,
) -> io::Result<()> {
    let indent = "  ".repeat(depth);
    let empty = |state: &Option<EmptyState>, out: &mut dyn Write| -> io::Result<()> {
        match state {
            Some(state) => writeln!(out, "{indent}{}", state.message),
            None => Ok(()),
        }
    };
    match widget {
        SystemWidget::Table(table) => {
            empty(&table.empty, out)?;
            if !table.rows.is_empty() {
                let rows = table.rows.iter();
                let rows = rows.map(|row| (row.label.as_str(), row.cells.as_slice()));
                write_grid(item, &table.columns, rows, &indent, out)?;
            }
        }
        SystemWidget::Topology(topology) => {
            let summary: Vec<String> = topology
                .summary
                .iter()
                .filter_map(|&i| item.entries.get(i))
                .map(|e| format!("{} {}", e.label, e.text))
                .collect();
            writeln!(out, "{indent}{}", summary.join(", "))?;
            for device in &topology.devices {
                let name = device.name.map(|i| text(item, Some(i)));
                match name {
                    Some(name) => writeln!(out, "{indent}{}: {name}", device.label)?,
                    None => writeln!(out, "{indent}{}", device.label)?,
                }
            }
            empty(&topology.empty, out)?;
            for link in &topology.links {
                let label = |i: usize| topology.devices.get(i).map_or("?", |d| d.label.as_str());
                let values: Vec<String> = link
                    .entries
                    .iter()
                    .filter_map(|&i| item.entries.get(i))
                    .map(|e| {
                        let what = e.label.rsplit(": ").next().unwrap_or(&e.label);
                        format!("{} {}", what.to_lowercase(), e.text)
                    })
                    .collect();
                writeln!(
                    out,
                    "{indent}Link {}: {} <-> {}: {}",
                    link.link,
                    label(link.from),
                    label(link.to),
                    values.join(", ")
                )?;
            }
        }
        SystemWidget::Timeline(timeline) => write_timeline(item, timeline, &indent, out)?,
    }
    Ok(())
}

/// Rows `(label, cells)` of entries of `item` under `columns`, as an aligned grid: labels on the
/// left, values on the right of their column (`-` for a cell without an entry).
pub(super) fn write_grid<'r>(
    item: &Item,
    columns: &[&str],
    rows: impl Iterator<Item = (&'r str, &'r [Option<usize>])>,
    indent: &str,
    out: &mut impl Write,
) -> io::Result<()> {
    let mut grid = vec![
        std::iter::once(String::new())
            .chain(columns.iter().map(|c| (*c).to_owned()))
            .collect::<Vec<_>>(),
    ];
    for (label, cells) in rows {
        grid.push(
            std::iter::once(label.to_owned())
                .chain(cells.iter().map(|c| text(item, *c)))
                .collect(),
        );
    }
    let widths: Vec<usize> = (0..grid[0].len())
        .map(|c| grid.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    for row in &grid {
        let mut line = format!("{:<w$}", row[0], w = widths[0]);
        for (cell, w) in row.iter().zip(&widths).skip(1) {
            line.push_str(&format!("  {cell:>w$}"));
        }
        writeln!(out, "{indent}{}", line.trim_end())?;
    }
    Ok(())
}

fn write_timeline(
    item: &Item,
    timeline: &PmTimeline,
    indent: &str,
    out: &mut impl Write,
) -> io::Result<()> {
    if timeline.groups.is_empty() {
        return writeln!(out, "{indent}No metrics apply to this kernel.");
    }
    let start = timeline.start_ns.unwrap_or(0);
    let width = timeline
        .groups
        .iter()
        .flat_map(|g| &g.rows)
        .flat_map(|r| &r.series)
        .filter_map(|s| item.entries.get(s.entry))
        .map(|e| e.label.chars().count())
        .max()
        .unwrap_or(0);
    for group in &timeline.groups {
        writeln!(out, "{indent}{}", group.label)?;
        for row in &group.rows {
            for series in &row.series {
                let Some(entry) = item.entries.get(series.entry) else {
                    continue;
                };
                let count = series.samples.len();
                let peak = series.samples.iter().map(|s| s.1).reduce(f64::max);
                let peak = peak.map_or("N/A".to_owned(), |v| {
                    format_with_unit(&MetricValue::Double(v), &entry.unit, None)
                });
                writeln!(
                    out,
                    "{indent}  {:<width$}  {}  ({count} samples, max {peak})",
                    entry.label, entry.text
                )?;
                if count == 0 {
                    continue;
                }
                // The first samples as "ns since the first sample: value"; JSON has them all.
                let shown: Vec<String> = series
                    .samples
                    .iter()
                    .take(TEXT_SAMPLES)
                    .map(|(t, v)| format!("{}: {v}", t.saturating_sub(start)))
                    .collect();
                let more = if count > TEXT_SAMPLES { ", ..." } else { "" };
                writeln!(out, "{indent}    [{}{more}]", shown.join(", "))?;
            }
        }
    }
    Ok(())
}

/// `widget`, `columns` and `rows` (each `{"label", "cells"}`, a cell an entry or `null`) of a
/// memory, NUMA or NVLink table.
pub(super) fn json_table<'r, W: Write>(
    w: &mut PyJsonWriter<W>,
    item: &Item,
    widget: &str,
    columns: &[&str],
    rows: impl Iterator<Item = (&'r str, &'r [Option<usize>])>,
) -> io::Result<()> {
    w.key_string("widget", widget)?;
    w.key("columns")?;
    w.begin_array()?;
    for column in columns {
        w.string(column)?;
    }
    w.end_array()?;
    w.key("rows")?;
    w.begin_array()?;
    for (label, cells) in rows {
        w.begin_object()?;
        w.key_string("label", label)?;
        w.key("cells")?;
        w.begin_array()?;
        for &cell in cells {
            json_cell(w, item, cell)?;
        }
        w.end_array()?;
        w.end_object()?;
    }
    w.end_array()
}

/// Entry `index` of `item`, or `null`.
pub(super) fn json_cell<W: Write>(
    w: &mut PyJsonWriter<W>,
    item: &Item,
    index: Option<usize>,
) -> io::Result<()> {
    match index.and_then(|i| item.entries.get(i)) {
        Some(e) => json_entry(w, e),
        None => w.null(),
    }
}

fn json_empty<W: Write>(
    w: &mut PyJsonWriter<W>,
    item: &Item,
    state: &Option<EmptyState>,
) -> io::Result<()> {
    w.key("empty")?;
    match state {
        Some(state) => {
            w.begin_object()?;
            w.key_string("message", &state.message)?;
            w.key("metric")?;
            json_cell(w, item, Some(state.entry))?;
            w.end_object()
        }
        None => w.null(),
    }
}

fn json_entries<W: Write>(
    w: &mut PyJsonWriter<W>,
    item: &Item,
    key: &str,
    indices: &[usize],
) -> io::Result<()> {
    w.key(key)?;
    w.begin_array()?;
    for entry in indices.iter().filter_map(|&i| item.entries.get(i)) {
        json_entry(w, entry)?;
    }
    w.end_array()
}

/// `numa_id_table` / `nvlink_property_table` / `nvlink_throughput_table`: `widget`, `columns`,
/// `rows` of cells and `empty` (the "no links" state with its metric, or `null`);
/// `nvlink_topology`: `summary`, `devices`, `links` and `empty`; `timeline`: `start_ns`,
/// `end_ns` and `groups` of `rows` of `series` (the metric's entry, its pass groups and its
/// samples as `[timestamp_ns, value]` pairs sorted by time).
pub(super) fn write_json<W: Write>(
    w: &mut PyJsonWriter<W>,
    item: &Item,
    widget: &SystemWidget,
) -> io::Result<()> {
    match widget {
        SystemWidget::Table(table) => {
            let rows = table.rows.iter();
            let rows = rows.map(|row| (row.label.as_str(), row.cells.as_slice()));
            json_table(w, item, table.widget, &table.columns, rows)?;
            json_empty(w, item, &table.empty)
        }
        SystemWidget::Topology(topology) => {
            json_entries(w, item, "summary", &topology.summary)?;
            w.key("devices")?;
            w.begin_array()?;
            for device in &topology.devices {
                w.begin_object()?;
                w.key_string("label", &device.label)?;
                w.key_uint("type", device.device_type)?;
                w.key_uint("id", device.id)?;
                w.key("name")?;
                json_cell(w, item, device.name)?;
                w.end_object()?;
            }
            w.end_array()?;
            w.key("links")?;
            w.begin_array()?;
            for link in &topology.links {
                w.begin_object()?;
                w.key_uint("link", link.link)?;
                w.key_uint("from", link.from as u64)?;
                w.key_uint("to", link.to as u64)?;
                json_entries(w, item, "items", &link.entries)?;
                w.end_object()?;
            }
            w.end_array()?;
            json_empty(w, item, &topology.empty)
        }
        SystemWidget::Timeline(timeline) => json_timeline(w, item, timeline),
    }
}

fn json_timeline<W: Write>(
    w: &mut PyJsonWriter<W>,
    item: &Item,
    timeline: &PmTimeline,
) -> io::Result<()> {
    for (key, value) in [("start_ns", timeline.start_ns), ("end_ns", timeline.end_ns)] {
        w.key(key)?;
        match value {
            Some(v) => w.uint(v)?,
            None => w.null()?,
        }
    }
    w.key("groups")?;
    w.begin_array()?;
    for group in &timeline.groups {
        w.begin_object()?;
        w.key_string("label", &group.label)?;
        w.key("expanded")?;
        w.bool(group.expanded)?;
        w.key("rows")?;
        w.begin_array()?;
        for row in &group.rows {
            w.begin_object()?;
            w.key_string("label", &row.label)?;
            w.key("stacked")?;
            w.bool(row.stacked)?;
            w.key("series")?;
            w.begin_array()?;
            for series in &row.series {
                w.begin_object()?;
                w.key("metric")?;
                json_cell(w, item, Some(series.entry))?;
                w.key("pass_groups")?;
                w.begin_array()?;
                for group in &series.pass_groups {
                    w.string(group)?;
                }
                w.end_array()?;
                w.key("samples")?;
                w.begin_array()?;
                for &(time, value) in &series.samples {
                    w.begin_array()?;
                    w.uint(time)?;
                    w.float(value)?;
                    w.end_array()?;
                }
                w.end_array()?;
                w.end_object()?;
            }
            w.end_array()?;
            w.end_object()?;
        }
        w.end_array()?;
        w.end_object()?;
    }
    w.end_array()
}

/// Whether the item's entries are printed by its layout rather than as a flat list.
pub(super) fn has_layout(item: &Item) -> bool {
    item.memory().is_some() || item.system().is_some()
}
