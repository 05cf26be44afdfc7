//! The kernel list: index, name, grid × block, duration, stream/context; sortable by any column,
//! filterable by name (Ctrl+F), Up/Down to move the selection.

use eframe::egui;
use egui_extras::{Column, TableBuilder};

use super::loader::KernelRow;

/// Sort column of the kernel list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortColumn {
    /// Action index (file order).
    Index,
    /// Function name.
    Name,
    /// Duration.
    Duration,
    /// Stream id.
    Stream,
}

/// State of the kernel list of one report.
pub struct KernelList {
    /// Rows as loaded (file order).
    pub rows: Vec<KernelRow>,
    /// Name filter text.
    pub filter: String,
    sort: SortColumn,
    ascending: bool,
    /// Row order after filtering and sorting (indices into `rows`).
    view: Vec<usize>,
    dirty: bool,
    /// Set by Ctrl+F: focus the filter box on the next frame.
    pub focus_filter: bool,
}

impl Default for KernelList {
    fn default() -> Self {
        KernelList {
            rows: Vec::new(),
            filter: String::new(),
            sort: SortColumn::Index,
            ascending: true,
            view: Vec::new(),
            dirty: true,
            focus_filter: false,
        }
    }
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
    pub fn extend(&mut self, rows: Vec<KernelRow>) {
        self.rows.extend(rows);
        self.dirty = true;
    }

    /// Sorts by `column` (toggling the direction when it is already the sort column).
    pub fn sort_by(&mut self, column: SortColumn) {
        if self.sort == column {
            self.ascending = !self.ascending;
        } else {
            self.sort = column;
            self.ascending = true;
        }
        self.dirty = true;
    }

    fn refresh(&mut self) {
        if !self.dirty {
            return;
        }
        let needle = self.filter.to_lowercase();
        self.view = (0..self.rows.len())
            .filter(|&i| {
                needle.is_empty()
                    || self.rows[i].name.to_lowercase().contains(&needle)
                    || self.rows[i].index.to_string() == needle
            })
            .collect();
        let rows = &self.rows;
        match self.sort {
            SortColumn::Index => self.view.sort_by_key(|&i| rows[i].index),
            SortColumn::Name => self
                .view
                .sort_by(|&a, &b| rows[a].name.cmp(&rows[b].name).then(a.cmp(&b))),
            SortColumn::Duration => self.view.sort_by(|&a, &b| {
                // Missing and NaN durations (either sign) sort as the smallest.
                let duration = |i: usize| {
                    rows[i]
                        .duration_ns
                        .filter(|d| !d.is_nan())
                        .unwrap_or(f64::NEG_INFINITY)
                };
                duration(a).total_cmp(&duration(b)).then(a.cmp(&b))
            }),
            SortColumn::Stream => self.view.sort_by_key(|&i| (rows[i].stream, i)),
        }
        if !self.ascending {
            self.view.reverse();
        }
        self.dirty = false;
    }

    /// The action index of the row `step` rows away from `selected` in the current view.
    pub fn neighbour(&mut self, selected: usize, step: isize) -> Option<usize> {
        self.refresh();
        let position = self
            .view
            .iter()
            .position(|&i| self.rows[i].index == selected)?;
        let next = position.checked_add_signed(step)?;
        self.view.get(next).map(|&i| self.rows[i].index)
    }

    /// Draws the list; returns the action index the user clicked, if any.
    pub fn ui(&mut self, ui: &mut egui::Ui, selected: usize) -> Option<usize> {
        ui.horizontal(|ui| {
            ui.label("Filter:");
            let edit = ui.add(
                egui::TextEdit::singleline(&mut self.filter)
                    .hint_text("kernel name (Ctrl+F)")
                    .desired_width(f32::INFINITY),
            );
            if self.focus_filter {
                edit.request_focus();
                self.focus_filter = false;
            }
            if edit.changed() {
                self.dirty = true;
            }
        });
        self.refresh();
        ui.label(
            egui::RichText::new(format!(
                "{} of {} kernel(s)",
                self.view.len(),
                self.rows.len()
            ))
            .small()
            .weak(),
        );
        let mut clicked = None;
        let row_height = ui.text_style_height(&egui::TextStyle::Body) + 4.0;
        let arrow = |on: bool, ascending: bool| {
            if !on {
                ""
            } else if ascending {
                " ▴"
            } else {
                " ▾"
            }
        };
        let mut sort_click = None;
        TableBuilder::new(ui)
            .striped(true)
            .sense(egui::Sense::click())
            .column(Column::auto().at_least(32.0))
            .column(Column::remainder().at_least(120.0).clip(true))
            .column(Column::auto())
            .column(Column::auto())
            .column(Column::auto())
            .column(Column::auto())
            .header(row_height, |mut header| {
                for (label, column) in [
                    ("#", Some(SortColumn::Index)),
                    ("Kernel", Some(SortColumn::Name)),
                    ("Grid", None),
                    ("Block", None),
                    ("Duration", Some(SortColumn::Duration)),
                    ("Stream", Some(SortColumn::Stream)),
                ] {
                    header.col(|ui| match column {
                        Some(column) => {
                            // The arrows are in the monospace font (Hack); the proportional
                            // default font lacks them.
                            let text = egui::text::LayoutJob::default();
                            let mut text = text;
                            let style = ui.style().clone();
                            egui::RichText::new(label).strong().append_to(
                                &mut text,
                                &style,
                                egui::FontSelection::Default,
                                egui::Align::Center,
                            );
                            egui::RichText::new(arrow(self.sort == column, self.ascending))
                                .monospace()
                                .append_to(
                                    &mut text,
                                    &style,
                                    egui::FontSelection::Default,
                                    egui::Align::Center,
                                );
                            if ui
                                .button(text)
                                .on_hover_text(format!("Sort by {label}"))
                                .clicked()
                            {
                                sort_click = Some(column);
                            }
                        }
                        None => {
                            ui.strong(label);
                        }
                    });
                }
            })
            .body(|body| {
                body.rows(row_height, self.view.len(), |mut row| {
                    let kernel = &self.rows[self.view[row.index()]];
                    row.set_selected(kernel.index == selected);
                    row.col(|ui| {
                        ui.add(
                            egui::Label::new(kernel.index.to_string())
                                .selectable(false)
                                .extend(),
                        );
                    });
                    row.col(|ui| {
                        ui.add(egui::Label::new(&kernel.name).selectable(false).truncate())
                            .on_hover_text(&kernel.demangled);
                    });
                    row.col(|ui| {
                        ui.add(egui::Label::new(&kernel.grid).selectable(false).extend());
                    });
                    row.col(|ui| {
                        ui.add(egui::Label::new(&kernel.block).selectable(false).extend());
                    });
                    row.col(|ui| {
                        let duration = kernel
                            .duration_ns
                            .map_or_else(|| "-".to_owned(), format_duration);
                        ui.add(egui::Label::new(duration).selectable(false).extend());
                    });
                    row.col(|ui| {
                        let stream = kernel
                            .stream
                            .map_or_else(|| "-".to_owned(), |s| s.to_string());
                        let context = kernel
                            .context
                            .map_or_else(String::new, |c| format!(" (ctx {c})"));
                        ui.add(
                            egui::Label::new(format!("{stream}{context}"))
                                .selectable(false)
                                .extend(),
                        );
                    });
                    if row.response().clicked() {
                        clicked = Some(kernel.index);
                    }
                });
            });
        if let Some(column) = sort_click {
            self.sort_by(column);
        }
        clicked
    }
}

/// A duration in nanoseconds as the list shows it.
pub fn format_duration(ns: f64) -> String {
    sightline_model::format::DurationFormat::LIST.format(ns)
}
