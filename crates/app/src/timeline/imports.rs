//! The timeline toolbar's "Import" popover: what the loader did with every table of the file —
//! rows, events drawn, rows attached to other events (names, call-stack frames), rows skipped
//! with their reasons — and the tables the format's documentation does not describe, by name.

use eframe::egui;
use sightline_model::timeline::ImportStats;

/// The toolbar button and its popover (nothing for a file without import statistics).
pub fn import_button_ui(ui: &mut egui::Ui, imports: &ImportStats) {
    if imports.sources.is_empty() {
        return;
    }
    let (rows, events, _, skipped) = imports.totals();
    ui.menu_button("Import", |ui| imports_ui(ui, imports))
        .response
        .on_hover_text(format!(
            "{rows} rows in {} tables: {events} events, {skipped} rows skipped",
            imports.sources.len()
        ));
}

/// The popover's content.
pub fn imports_ui(ui: &mut egui::Ui, imports: &ImportStats) {
    let (rows, events, attached, skipped) = imports.totals();
    ui.label(format!(
        "{rows} rows in {} tables: {events} events, {attached} attached, {skipped} skipped",
        imports.sources.len()
    ));
    ui.separator();
    egui::ScrollArea::vertical()
        .id_salt("import-stats")
        .max_height(420.0)
        .show(ui, |ui| {
            egui::Grid::new("import-stats-grid")
                .num_columns(5)
                .striped(true)
                .show(ui, |ui| {
                    for title in ["Table", "Rows", "Events", "Attached", "Skipped"] {
                        ui.strong(title);
                    }
                    ui.end_row();
                    for (name, s) in imports.sources.iter().filter(|(_, s)| s.documented) {
                        ui.monospace(name);
                        for n in [s.rows, s.events, s.attached] {
                            ui.label(n.to_string());
                        }
                        let label = ui.label(s.skipped_total().to_string());
                        if !s.skipped.is_empty() {
                            let reasons: Vec<String> =
                                s.skipped.iter().map(|(r, n)| format!("{n}: {r}")).collect();
                            label.on_hover_text(reasons.join("\n"));
                        }
                        ui.end_row();
                    }
                });
            let unknown: Vec<_> = imports
                .sources
                .iter()
                .filter(|(_, s)| !s.documented)
                .collect();
            if !unknown.is_empty() {
                ui.add_space(6.0);
                ui.strong(format!(
                    "{} tables the schema reference does not describe",
                    unknown.len()
                ));
                egui::Grid::new("import-unknown-grid")
                    .num_columns(3)
                    .striped(true)
                    .show(ui, |ui| {
                        for (name, s) in unknown {
                            ui.monospace(name);
                            ui.label(format!("{} rows", s.rows));
                            let used = s.events + s.attached;
                            ui.weak(if used > 0 {
                                format!("{used} read")
                            } else {
                                "not read".to_owned()
                            });
                            ui.end_row();
                        }
                    });
            }
        });
}
