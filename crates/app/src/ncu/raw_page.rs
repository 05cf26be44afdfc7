//! The Raw page: every metric of the selected result — its name, value and unit (the report's,
//! else inferred from the name), instance values behind a toggle — filtered by a regular
//! expression on the name (the `regex` crate; an invalid expression is shown and the text is
//! matched as a plain substring meanwhile), with Copy CSV and Export CSV… writing the same CSV
//! as `sightline raw --csv --kernel N` (NVIDIA's raw page for that one result).

use crate::widgets::dialog::{Dialog, take_answer};
use std::path::PathBuf;

use eframe::egui;

use crate::widgets::filter::filter_field;
use egui_extras::Column;
use regex::{Regex, RegexBuilder};
use sightline_model::ncu::pages::{InstanceMode, RawOptions, UnitMode, raw_page, write_row};
use sightline_model::ncu::{Action, Report};

use crate::widgets::table::{Header, SortableTable, Table, cell_text};

/// One metric (or launch column) of the result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawRow {
    /// The metric name (or launch column name).
    pub name: String,
    /// The value as NVIDIA's raw page prints it.
    pub value: String,
    /// The value with its instances: `AGG (v1; v2; ...)`.
    pub with_instances: String,
    /// The unit.
    pub unit: String,
}

/// The CSV of the raw page could not be written.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct WriteError {
    /// The file chosen.
    path: PathBuf,
    /// The I/O error.
    #[source]
    source: std::io::Error,
}

/// The Raw page of a report tab.
#[derive(Default)]
pub struct RawPage {
    /// The result the rows are of.
    kernel: Option<usize>,
    /// The rows, in the raw page's order (launch columns, then metrics by name).
    pub rows: Vec<RawRow>,
    csv: String,
    /// The filter text (a regular expression on the name).
    pub filter: String,
    /// Show instance values.
    pub instances: bool,
    compiled: Option<(String, Result<Regex, regex::Error>)>,
    /// Sort and display order.
    pub table: SortableTable,
    /// The answer of the Export dialog: the file written, or why not.
    export: Option<Dialog<Option<Result<PathBuf, WriteError>>>>,
    /// What the last export did.
    pub status: Option<(String, bool)>,
}

impl RawPage {
    /// Computes the rows of `action` unless they are its already.
    pub fn set_result(&mut self, report: &Report, action: &Action) {
        if self.kernel == Some(action.index()) {
            return;
        }
        self.kernel = Some(action.index());
        let actions = std::slice::from_ref(action);
        let plain = raw_page(report, actions, RawOptions::default());
        let listed = raw_page(
            report,
            actions,
            RawOptions {
                units: UnitMode::Auto,
                instances: InstanceMode::Values,
            },
        );
        let empty = Vec::new();
        let values = plain.rows.first().unwrap_or(&empty);
        let with_instances = listed.rows.first().unwrap_or(&empty);
        self.rows = plain
            .header
            .iter()
            .enumerate()
            .map(|(i, name)| RawRow {
                name: name.clone(),
                value: values.get(i).cloned().unwrap_or_default(),
                with_instances: with_instances.get(i).cloned().unwrap_or_default(),
                unit: plain.units.get(i).cloned().unwrap_or_default(),
            })
            .collect();
        let mut csv = Vec::new();
        let written = write_row(&mut csv, &plain.header, false)
            .and_then(|()| write_row(&mut csv, &plain.units, false))
            .and_then(|()| {
                plain
                    .rows
                    .iter()
                    .try_for_each(|r| write_row(&mut csv, r, false))
            });
        self.csv = match written {
            Ok(()) => String::from_utf8_lossy(&csv).into_owned(),
            Err(error) => format!("cannot write the CSV: {error}"),
        };
        self.table.invalidate();
    }

    /// The CSV of the result: `sightline raw --csv --kernel N`.
    pub fn csv(&self) -> &str {
        &self.csv
    }

    /// The compiled filter: `Ok` a case-insensitive expression, `Err` why the text is not one.
    fn matcher(&mut self) -> Result<Regex, regex::Error> {
        if let Some((text, compiled)) = &self.compiled
            && *text == self.filter
        {
            return compiled.clone();
        }
        let compiled = RegexBuilder::new(&self.filter)
            .case_insensitive(true)
            .size_limit(1 << 20)
            .build();
        self.compiled = Some((self.filter.clone(), compiled.clone()));
        compiled
    }

    /// Whether the row named `name` passes the filter.
    fn keep(matcher: &Result<Regex, regex::Error>, needle: &str, name: &str) -> bool {
        match matcher {
            Ok(regex) => regex.is_match(name),
            Err(_) => name.to_lowercase().contains(needle),
        }
    }

    /// The names of the rows shown, in display order.
    pub fn shown_names(&self) -> Vec<&str> {
        self.table
            .order
            .iter()
            .map(|&i| self.rows[i].name.as_str())
            .collect()
    }

    /// Draws the page for `action` of `report`.
    pub fn ui(&mut self, ui: &mut egui::Ui, report: &Report, action: &Action) {
        self.set_result(report, action);
        self.poll_export();
        let changed = self.filter_bar_ui(ui, action);
        let needle = self.filter.to_lowercase();
        self.messages_ui(ui);
        if changed {
            self.table.invalidate();
        }
        let matcher = self.matcher();
        let keep = |i: usize| RawPage::keep(&matcher, &needle, &self.rows[i].name);
        let compare = |c: usize, a: usize, b: usize| {
            let (ra, rb) = (&self.rows[a], &self.rows[b]);
            match c {
                0 => ra.name.cmp(&rb.name),
                1 => ra.value.cmp(&rb.value),
                _ => ra.unit.cmp(&rb.unit),
            }
        };
        let mut table = std::mem::take(&mut self.table);
        table.filtered_order(self.rows.len(), &keep, &compare);
        ui.label(
            egui::RichText::new(format!(
                "{} of {} metric(s)",
                table.order.len(),
                self.rows.len()
            ))
            .small()
            .weak(),
        );
        let headers = vec![
            Header::new("Metric", Column::initial(420.0).at_least(160.0).clip(true)),
            Header::new("Value", Column::initial(260.0).at_least(80.0).clip(true)),
            Header::new("Unit", Column::remainder().at_least(60.0)),
        ];
        let instances = self.instances;
        Table::new(
            "raw-page",
            headers,
            "the raw page's order (launch, then by name)",
        )
        .filter(&keep)
        .show(
            ui,
            &mut table,
            self.rows.len(),
            &compare,
            &mut |ui, i, c| {
                let row = &self.rows[i];
                let text = match c {
                    0 => &row.name,
                    1 if instances => &row.with_instances,
                    1 => &row.value,
                    _ => &row.unit,
                };
                cell_text(ui, text).on_hover_text(text.as_str());
            },
        );
        self.table = table;
    }

    /// The bar above the table: the filter, Instance values, Copy CSV and Export CSV…. True
    /// when the filter or Instance values changed.
    fn filter_bar_ui(&mut self, ui: &mut egui::Ui, action: &Action) -> bool {
        let mut changed = false;
        ui.horizontal(|ui| {
            changed |= filter_field(
                ui,
                "Filter:",
                &mut self.filter,
                "metric name (regular expression)",
                320.0,
            )
            .changed();
            changed |= ui
                .checkbox(&mut self.instances, "Instance values")
                .changed();
            if ui
                .button("Copy CSV")
                .on_hover_text("The result's raw page as CSV (sightline raw --csv --kernel N)")
                .clicked()
            {
                ui.ctx().copy_text(self.csv.clone());
                self.status = Some(("CSV copied to the clipboard".into(), false));
            }
            if ui
                .add_enabled(self.export.is_none(), egui::Button::new("Export CSV…"))
                .clicked()
            {
                self.start_export(action.index(), ui.ctx().clone());
            }
        });
        changed
    }

    /// Says when the filter is not a regular expression (matched as text), and the status of
    /// the last copy or export.
    fn messages_ui(&mut self, ui: &mut egui::Ui) {
        if let Err(error) = self.matcher() {
            let error = error.to_string();
            let error = error.lines().last().unwrap_or_default().to_owned();
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!("not a regular expression ({error}): matching the text as it is"),
            );
        }
        if let Some((status, is_error)) = &self.status {
            let color = if *is_error {
                ui.visuals().error_fg_color
            } else {
                ui.visuals().weak_text_color()
            };
            ui.colored_label(color, status);
        }
    }

    /// Asks for a file on a dialog thread and writes the CSV there.
    fn start_export(&mut self, kernel: usize, ctx: egui::Context) {
        let csv = self.csv.clone();
        let pick = move || {
            let picked = rfd::FileDialog::new()
                .set_title("Export the raw page")
                .set_file_name(format!("raw-{kernel}.csv"))
                .save_file();
            picked.map(|path| {
                std::fs::write(&path, csv.as_bytes())
                    .map(|()| path.clone())
                    .map_err(|source| WriteError { path, source })
            })
        };
        match Dialog::spawn("file", move || ctx.request_repaint(), pick) {
            Ok(dialog) => self.export = Some(dialog),
            Err(error) => self.status = Some((error, true)),
        }
    }

    fn poll_export(&mut self) {
        if let Some(answer) = take_answer(&mut self.export) {
            self.status = match answer.value {
                Some(Ok(path)) => Some((format!("Wrote {}", path.display()), false)),
                Some(Err(error)) => Some((error.to_string(), true)),
                None => None,
            };
        }
    }
}
