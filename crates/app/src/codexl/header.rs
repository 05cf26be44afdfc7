//! What the top of a counters or occupancy document shows about the file: the session
//! information of its `#` header (a one-line summary, then every entry in a grid) and the
//! reader's warnings, collapsed as "N warning(s)" with `file:line` each.

use std::path::Path;

use eframe::egui;

use sightline_model::problem::Problem;

use crate::widgets::problems::ProblemList;

/// Header keys summarized on one line, with their labels.
const SUMMARY_KEYS: [(&str, &str); 4] = [
    ("Application", "Application"),
    ("API", "API"),
    ("ProfilerVersion", "Profiler"),
    ("DisplayName", "Session"),
];

/// Warnings listed before "and N more".
const MAX_LISTED: usize = 500;

/// The one-line summary of a header: application, API, profiler version, session name and the
/// devices, the parts the header has.
pub fn summary(header: &[(String, String)], devices: &[String]) -> String {
    let mut parts: Vec<String> = SUMMARY_KEYS
        .iter()
        .filter_map(|(key, label)| {
            header
                .iter()
                .find(|(k, v)| k == key && !v.is_empty())
                .map(|(_, v)| format!("{label}: {v}"))
        })
        .collect();
    if !devices.is_empty() {
        parts.push(format!("Device: {}", devices.join(", ")));
    }
    parts.join("  ·  ")
}

/// The header: summary line, then a collapsible grid of every entry (open at first).
pub fn header_ui(ui: &mut egui::Ui, header: &[(String, String)], devices: &[String]) {
    if header.is_empty() {
        ui.weak("No session header (a file of the ATI Stream / sprofile generation).");
        return;
    }
    let line = summary(header, devices);
    if !line.is_empty() {
        ui.add(egui::Label::new(line).truncate());
    }
    egui::CollapsingHeader::new(format!("Session information ({} entries)", header.len()))
        .id_salt("codexl-session-header")
        .default_open(true)
        .show(ui, |ui| {
            egui::ScrollArea::vertical()
                .id_salt("codexl-session-header-scroll")
                .max_height(110.0)
                .auto_shrink([false, true])
                .show(ui, |ui| {
                    egui::Grid::new("codexl-session-grid")
                        .num_columns(2)
                        .striped(true)
                        .show(ui, |ui| {
                            for (key, value) in header {
                                ui.strong(key);
                                ui.add(egui::Label::new(value).truncate());
                                ui.end_row();
                            }
                        });
                });
        });
}

/// The reader's warnings, collapsed under "N warning(s)"; nothing when there are none.
pub fn warnings_ui(ui: &mut egui::Ui, path: &Path, warnings: &[Problem]) {
    ProblemList::new(warnings)
        .file(path)
        .max_rows(MAX_LISTED)
        .show_collapsed(
            ui,
            "codexl-warnings",
            format!("{} warning(s)", warnings.len()),
        );
}

#[cfg(test)]
mod tests {
    #[test]
    fn summary_names_what_the_header_has() {
        let header = vec![
            ("ProfilerVersion".to_string(), "5.2.6553".to_string()),
            ("API".to_string(), "OpenCL".to_string()),
            ("DisplayName".to_string(), String::new()),
        ];
        assert_eq!(
            super::summary(&header, &["Hawaii".to_string()]),
            "API: OpenCL  ·  Profiler: 5.2.6553  ·  Device: Hawaii"
        );
    }
}
