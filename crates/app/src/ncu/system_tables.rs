//! Nsight Compute's NUMA ID table and NVLink property and throughput tables, drawn from a
//! resolved [`SystemTable`]: an aligned, striped grid with one row per device or logical link,
//! values right-aligned with their units, "N/A" dimmed where the report lacks a metric.
//! Hovering a cell names the metric behind it and the instance (device or link index) it
//! shows. A table without links says so in a line that names `nvlink__count_logical`.

use eframe::egui::{self, RichText, Ui};

use super::memory_tables::{CellView, GridView};

use sightline_model::ncu::MetricValue;
use sightline_model::section::system::SystemTable;
use sightline_model::section::{Entry, Item};

/// A NUMA or NVLink table, laid out once per page.
pub struct SystemTableView {
    grid: GridView,
    /// The "no links" sentence and the entry behind it.
    empty: Option<(String, Entry)>,
}

impl SystemTableView {
    /// Lays out `table`, whose entries are `item.entries`; `place` makes the grid id unique on
    /// the page.
    pub fn build(place: &str, item: &Item, table: &SystemTable) -> SystemTableView {
        let rows = table
            .rows
            .iter()
            .map(|row| (row.label.clone(), row.cells.as_slice()));
        let empty = table.empty.as_ref().and_then(|state| {
            item.entries
                .get(state.entry)
                .map(|entry| (state.message.clone(), entry.clone()))
        });
        SystemTableView {
            grid: GridView::build(
                format!("system-table-{place}-{}", table.widget),
                &table.columns,
                rows,
                item,
                // Cells of one metric differ by instance: not matched by metric name.
                None,
            ),
            empty,
        }
    }
}

/// Draws the table: the "no links" line first when there is one, then the grid of rows.
pub fn system_table_ui(ui: &mut Ui, view: &SystemTableView) {
    if let Some((message, entry)) = &view.empty {
        ui.weak(message).on_hover_ui(|ui| entry_tooltip(ui, entry));
    }
    if view.grid.is_empty() {
        return;
    }
    view.grid.ui(ui, |ui, _, cell| cell_ui(ui, cell));
}

fn cell_ui(ui: &mut Ui, cell: &CellView) {
    let mut text = RichText::new(&cell.text);
    if cell.missing {
        text = text.color(ui.visuals().weak_text_color());
    }
    let response = ui.add(egui::Label::new(text).selectable(false));
    if let Some(entry) = &cell.entry {
        response.on_hover_ui(|ui| entry_tooltip(ui, entry));
    }
}

/// The label, the metric, the instance shown (when the metric is instanced) and the raw value.
pub fn entry_tooltip(ui: &mut Ui, entry: &Entry) {
    ui.set_max_width(560.0);
    ui.strong(&entry.label);
    ui.monospace(&entry.metric);
    if let Some([(id, _)]) = entry.instances.as_deref() {
        let id = match id {
            Some(MetricValue::String(s)) => s.clone(),
            Some(v) => v.as_u64().map_or_else(String::new, |v| v.to_string()),
            None => String::new(),
        };
        if !id.is_empty() {
            ui.weak(format!("Instance {id} of the metric"));
        }
    }
    match &entry.value {
        None => {
            ui.weak("Not collected for this kernel");
        }
        Some(MetricValue::String(_)) => {}
        Some(value) => {
            if let Some(raw) = value.as_f64() {
                ui.weak(format!("Raw value: {raw}"));
            }
        }
    }
}
