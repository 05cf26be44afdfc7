//! The function/file selector: collapsible lists of the functions whose instructions the page
//! shows (by their demangled names, the kernel first) and of the source files, each with its sum of the heatmap's column (as % of the launch
//! or absolute); a click shows the function's first instruction or the file.

use eframe::egui::{self, RichText, Ui};

use sightline_model::ncu::source::Cell;

use super::SourcePageState;
use super::data::{FileText, PageData, short_name};
use super::grid::cell_text;
use super::toolbar::Action;

/// Draws the selector on the left of the page; returns what was clicked.
pub fn navigator(ui: &mut Ui, state: &SourcePageState, page: &PageData) -> Option<Action> {
    let mut action = None;
    let column = state.column();
    let share = |cells: &[Cell]| -> String {
        match (column, column.and_then(|c| page.columns.get(c))) {
            (Some(c), Some(info)) => cells
                .get(c)
                .map(|cell| cell_text(cell, info, state.percent))
                .unwrap_or_default(),
            _ => String::new(),
        }
    };
    egui::Panel::left("source-navigator")
        .resizable(true)
        .default_size(190.0)
        .size_range(120.0..=(ui.available_width() * 0.4).max(120.0))
        .show(ui, |ui| {
            egui::ScrollArea::vertical()
                .id_salt("source-navigator-scroll")
                .show(ui, |ui| {
                    egui::CollapsingHeader::new(format!("Functions ({})", page.functions.len()))
                        .id_salt("source-functions")
                        .default_open(true)
                        .show(ui, |ui| {
                            for f in &page.functions {
                                ui.horizontal(|ui| {
                                    // Demangled names of templated kernels run to hundreds of
                                    // characters: cut, the whole name and the symbol in the
                                    // tooltip.
                                    let response = ui
                                        .selectable_label(
                                            false,
                                            RichText::new(shorten(&f.name, 28)).monospace(),
                                        )
                                        .on_hover_text(format!(
                                            "{}\n{}{}\nClick: its first instruction",
                                            f.name,
                                            f.mangled,
                                            if f.kernel { " (the kernel)" } else { "" }
                                        ));
                                    if response.clicked() {
                                        action = Some(Action::Function(f.first_row));
                                    }
                                    ui.weak(share(&f.cells));
                                });
                            }
                        });
                    egui::CollapsingHeader::new(format!("Files ({})", page.files.len()))
                        .id_salt("source-files")
                        .default_open(true)
                        .show(ui, |ui| {
                            if page.files.is_empty() {
                                ui.weak("No line info: no source files.");
                            }
                            for (i, f) in page.files.iter().enumerate() {
                                ui.horizontal(|ui| {
                                    let shown = state.view(0) == Some(super::View::Source)
                                        && state.panes[0].file == i;
                                    let mut text = RichText::new(shorten(short_name(&f.name), 28));
                                    if f.text == FileText::Missing {
                                        text = text.weak();
                                    }
                                    let status = match &f.text {
                                        FileText::Imported => "imported into the report".to_owned(),
                                        FileText::Local(p) => format!("read from {}", p.display()),
                                        FileText::Resolved(p) => {
                                            format!("resolved to {}", p.display())
                                        }
                                        FileText::Missing => "file not in report".to_owned(),
                                    };
                                    let response = ui
                                        .selectable_label(shown, text)
                                        .on_hover_text(format!("{}\n{status}", f.name));
                                    if response.clicked() {
                                        action = Some(Action::File(i));
                                    }
                                    ui.weak(share(&f.cells));
                                });
                            }
                        });
                });
        });
    action
}

/// `text` cut to `max` characters with an ellipsis.
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}
