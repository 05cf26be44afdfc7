//! The kernel list: index, name, grid × block, duration, stream/context; sortable by any column
//! (the shared [`crate::widgets::table`]), filterable by name (Ctrl+F), Up/Down to move the
//! selection.

use std::cmp::Ordering;

use eframe::egui;

use crate::widgets::filter::filter_field;
use egui_extras::Column;

use sightline_model::ncu::LaunchRow;

use crate::widgets::table::{Header, SortableTable, Table};

/// The columns of the kernel list (indices of the sort state).
const INDEX: usize = 0;
const NAME: usize = 1;
const DURATION: usize = 4;
const STREAM: usize = 5;

/// State of the kernel list of one report.
#[derive(Default)]
pub struct KernelList {
    /// Rows as loaded (file order).
    pub rows: Vec<LaunchRow>,
    /// Name filter text.
    pub filter: String,
    /// Sort state and display order (indices into `rows`, filtered and sorted).
    pub table: SortableTable,
    /// Set by Ctrl+F: focus the filter box on the next frame.
    pub focus_filter: bool,
    /// A result the user asked to add as a baseline (row context menu), for the tab to take.
    pub add_baseline: Option<usize>,
}

impl KernelList {
    /// Number of rows loaded (before filtering).
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether no row is loaded yet.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Appends loaded rows.
    pub fn extend(&mut self, rows: Vec<LaunchRow>) {
        self.rows.extend(rows);
        self.table.invalidate();
    }

    /// Whether row `i` passes the name filter (`needle`, lower case).
    fn keep(&self, needle: &str, i: usize) -> bool {
        needle.is_empty()
            || self.rows[i].name.to_lowercase().contains(needle)
            || self.rows[i].index.to_string() == needle
    }

    /// Ascending order of rows `a` and `b` by column `column`.
    fn compare(&self, column: usize, a: usize, b: usize) -> Ordering {
        let rows = &self.rows;
        match column {
            INDEX => rows[a].index.cmp(&rows[b].index),
            NAME => rows[a].name.cmp(&rows[b].name),
            DURATION => {
                // Missing and NaN durations (either sign) sort as the smallest.
                let duration = |i: usize| {
                    rows[i]
                        .duration_ns
                        .filter(|d| !d.is_nan())
                        .unwrap_or(f64::NEG_INFINITY)
                };
                duration(a).total_cmp(&duration(b))
            }
            STREAM => rows[a].stream.cmp(&rows[b].stream),
            _ => Ordering::Equal,
        }
    }

    /// The display order, filtered and sorted.
    fn refresh(&mut self) {
        let needle = self.filter.to_lowercase();
        let mut table = std::mem::take(&mut self.table);
        table.filtered_order(self.rows.len(), &|i| self.keep(&needle, i), &|c, a, b| {
            self.compare(c, a, b)
        });
        self.table = table;
    }

    /// The action index of the row `step` rows away from `selected` in the current view.
    pub fn neighbour(&mut self, selected: usize, step: isize) -> Option<usize> {
        self.refresh();
        let row = self.rows.iter().position(|r| r.index == selected)?;
        let next = self.table.neighbour(row, step)?;
        Some(self.rows[next].index)
    }

    /// Draws the list; returns the action index the user clicked, if any.
    pub fn ui(&mut self, ui: &mut egui::Ui, selected: usize) -> Option<usize> {
        ui.horizontal(|ui| {
            let edit = filter_field(
                ui,
                "Filter:",
                &mut self.filter,
                "kernel name (Ctrl+F)",
                f32::INFINITY,
            );
            if self.focus_filter {
                edit.request_focus();
                self.focus_filter = false;
            }
            if edit.changed() {
                self.table.invalidate();
            }
        });
        self.refresh();
        ui.label(
            egui::RichText::new(format!(
                "{} of {} kernel(s)",
                self.table.order.len(),
                self.rows.len()
            ))
            .small()
            .weak(),
        );
        let row_height = ui.text_style_height(&egui::TextStyle::Body) + 4.0;
        let headers = vec![
            Header::new("#", Column::auto().at_least(32.0)).tooltip("The action's index"),
            Header::new("Kernel", Column::remainder().at_least(120.0).clip(true))
                .tooltip("The function's name (a row's tooltip: the demangled name)"),
            Header::new("Grid", Column::auto()).fixed(),
            Header::new("Block", Column::auto()).fixed(),
            Header::new("Duration", Column::auto()).tooltip("gpu__time_duration.sum"),
            Header::new("Stream", Column::auto()).tooltip("The stream (and context) it ran on"),
        ];
        let needle = self.filter.to_lowercase();
        let mut table = std::mem::take(&mut self.table);
        let rows = &self.rows;
        let mut add_baseline = None;
        let clicked = Table::new("kernel-list", headers, "file order")
            .row_height(row_height)
            .header_height(row_height)
            .filter(&|i| self.keep(&needle, i))
            .selected(&|i| rows[i].index == selected)
            .row_menu(&mut |ui, i| {
                if ui.button("Add as baseline").clicked() {
                    add_baseline = Some(rows[i].index);
                }
            })
            .show(
                ui,
                &mut table,
                rows.len(),
                &|c, a, b| self.compare(c, a, b),
                &mut |ui, i, column| {
                    cell_ui(ui, &rows[i], column);
                },
            );
        self.table = table;
        if add_baseline.is_some() {
            self.add_baseline = add_baseline;
        }
        clicked.map(|i| self.rows[i].index)
    }
}

/// Draws column `column` of `kernel`'s row.
fn cell_ui(ui: &mut egui::Ui, kernel: &LaunchRow, column: usize) -> egui::Response {
    let text = match column {
        INDEX => kernel.index.to_string(),
        NAME => {
            return ui
                .add(egui::Label::new(&kernel.name).selectable(false).truncate())
                .on_hover_text(&kernel.demangled);
        }
        2 => kernel.grid.clone(),
        3 => kernel.block.clone(),
        DURATION => kernel
            .duration_ns
            .map_or_else(|| "-".to_owned(), format_duration),
        _ => {
            let stream = kernel
                .stream
                .map_or_else(|| "-".to_owned(), |s| s.to_string());
            let context = kernel
                .context
                .map_or_else(String::new, |c| format!(" (ctx {c})"));
            format!("{stream}{context}")
        }
    };
    ui.add(egui::Label::new(text).selectable(false).extend())
}

/// A duration in nanoseconds as the list shows it.
pub fn format_duration(ns: f64) -> String {
    sightline_model::format::DurationFormat::LIST.format(ns)
}
