//! The Metric Selection window: every loaded section and rule, rules under their section and the
//! rest under "[Independent Rules]", with file, status and load errors; Reload; sections can be
//! switched on and off; the section search path can be edited. Each rule's status also gives its
//! state on the kernel shown (stored / not applied / applied / failed, with the error).

use std::collections::BTreeMap;

use eframe::egui;

use crate::widgets::filter::filter_field;

use super::rule_state::{PageRules, RuleStatus};
use super::section_state::{SectionSource, SectionState};
use sightline_model::section::{LoadedSection, SectionSet};
use sightline_rules::RuleError;
use sightline_rules::scan::RuleFile;

/// What the window asks the app to do (things that need the app: dialogs, tabs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SelectionRequest {
    /// Pick a folder to add to the search path.
    AddFolder,
}

/// The sections the active report shows, for the window to list.
pub struct InUse<'a> {
    /// Where they come from.
    pub source: SectionSource,
    /// The sections before disabled ones are removed.
    pub set: &'a SectionSet,
    /// The report's file name.
    pub report: String,
    /// The rules of the page shown, with their states.
    pub rules: Option<&'a PageRules>,
}

/// What the rule rows show besides the files: states on the shown kernel and the errors of the
/// last rule load.
#[derive(Clone, Copy)]
struct RuleInfo<'a> {
    page: Option<&'a PageRules>,
    load_errors: &'a [RuleError],
}

/// State of the Metric Selection window.
#[derive(Default)]
pub struct MetricSelection {
    /// Whether the window is shown.
    pub open: bool,
    filter: String,
}

/// Label of the group holding rules not bound to a section.
pub const INDEPENDENT_RULES: &str = "[Independent Rules]";

/// The "file" of a rule known only from results stored in the report.
pub const STORED_IN_REPORT: &str = "<stored in report>";

impl MetricSelection {
    /// Draws the window (when open); returns requests for the app.
    /// `load_errors` are the rule files that failed to load when rules were last applied.
    pub fn show(
        &mut self,
        ctx: &egui::Context,
        state: &mut SectionState,
        in_use: Option<&InUse<'_>>,
        load_errors: &[RuleError],
    ) -> Vec<SelectionRequest> {
        let mut requests = Vec::new();
        if !self.open {
            return requests;
        }
        let mut open = self.open;
        egui::Window::new("Metric Selection")
            .open(&mut open)
            .default_size([900.0, 560.0])
            .resizable(true)
            .show(ctx, |ui| {
                self.contents(ui, state, in_use, load_errors, &mut requests)
            });
        self.open = open;
        requests
    }

    /// The window's contents: the reload bar, the embedded-sections choice, the search path,
    /// the filter, then the sections and rules in use and those of the search path with
    /// their load failures.
    fn contents(
        &mut self,
        ui: &mut egui::Ui,
        state: &mut SectionState,
        in_use: Option<&InUse<'_>>,
        load_errors: &[RuleError],
        requests: &mut Vec<SelectionRequest>,
    ) {
        let info = RuleInfo {
            page: in_use.and_then(|u| u.rules),
            load_errors,
        };
        reload_bar_ui(ui, state);
        let mut prefer = state.prefer_embedded;
        if ui
            .checkbox(
                &mut prefer,
                "Use the sections embedded in a report when it has them",
            )
            .on_hover_text("Off: every report is shown with the sections of the search path below")
            .changed()
        {
            state.set_prefer_embedded(prefer);
        }
        self.search_path_ui(ui, state, requests);
        ui.separator();

        let set = embedded_notice_ui(ui, in_use);
        ui.horizontal(|ui| {
            filter_field(
                ui,
                "Filter:",
                &mut self.filter,
                "section or rule name",
                240.0,
            );
        });
        let needle = self.filter.to_lowercase();
        let folder_set = std::sync::Arc::clone(&state.set);
        let rules = state.rules.clone();
        // Rules the report holds results of but the search path does not have.
        let stored = stored_rules(info.page);
        let mut folder_rules = rules.rules.clone();
        if set.is_none() {
            folder_rules.extend(stored.iter().cloned());
        }
        egui::ScrollArea::vertical()
            .id_salt("metric-selection")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                if let Some(embedded) = set {
                    section_table(ui, "embedded", embedded, &stored, state, &needle, info);
                    ui.add_space(8.0);
                    ui.strong("Search path");
                }
                section_table(
                    ui,
                    "folders",
                    &folder_set,
                    &folder_rules,
                    state,
                    &needle,
                    info,
                );
                failures_ui(ui, &folder_set, &rules, load_errors);
            });
    }

    fn search_path_ui(
        &mut self,
        ui: &mut egui::Ui,
        state: &mut SectionState,
        requests: &mut Vec<SelectionRequest>,
    ) {
        egui::CollapsingHeader::new("Search path")
            .id_salt("search-path")
            .default_open(true)
            .show(ui, |ui| {
                if state.folders.is_empty() {
                    ui.label("Bundled sections (built into Sightline; deployment is disabled)");
                }
                let mut remove = None;
                for (index, folder) in state.folders.iter().enumerate() {
                    ui.horizontal(|ui| {
                        ui.monospace(folder.path.display().to_string());
                        if folder.recursive {
                            ui.weak("(recursive)");
                        }
                        if !state.configured {
                            ui.weak("(default)");
                        } else if ui.small_button("Remove").clicked() {
                            remove = Some(index);
                        }
                    });
                }
                if let Some(index) = remove {
                    let mut folders = state.folders.clone();
                    folders.remove(index);
                    state.set_folders(&folders);
                }
                ui.horizontal(|ui| {
                    if ui.button("Add folder…").clicked() {
                        requests.push(SelectionRequest::AddFolder);
                    }
                    if state.configured && ui.button("Restore default").clicked() {
                        state.set_folders(&[]);
                    }
                });
            });
    }
}

fn matches(needle: &str, texts: &[&str]) -> bool {
    needle.is_empty() || texts.iter().any(|t| t.to_lowercase().contains(needle))
}

/// One grid of sections with the rules bound to them, then independent rules.
fn section_table(
    ui: &mut egui::Ui,
    id: &str,
    set: &SectionSet,
    rules: &[RuleFile],
    state: &mut SectionState,
    needle: &str,
    info: RuleInfo<'_>,
) {
    let mut by_section: BTreeMap<&str, Vec<&RuleFile>> = BTreeMap::new();
    for rule in rules {
        by_section
            .entry(rule.section.as_deref().unwrap_or(""))
            .or_default()
            .push(rule);
    }
    egui::Grid::new(("metric-selection-grid", id))
        .num_columns(3)
        .striped(true)
        .spacing([12.0, 4.0])
        .show(ui, |ui| {
            ui.strong("Section / rule");
            ui.strong("File");
            ui.strong("Status");
            ui.end_row();
            for loaded in &set.sections {
                let section = &loaded.section;
                let bound = by_section
                    .remove(section.identifier.as_str())
                    .unwrap_or_default();
                let shown = matches(needle, &[&section.display_name, &section.identifier])
                    || bound.iter().any(|r| {
                        matches(needle, &[&r.identifier, r.name.as_deref().unwrap_or("")])
                    });
                if !shown {
                    continue;
                }
                let mut enabled = !state.disabled.contains(&section.identifier);
                let mut hover = format!(
                    "Identifier: {}\nUnchecked sections are hidden from the Details page.",
                    section.identifier
                );
                if let Some(description) = section.description.as_deref().filter(|d| !d.is_empty())
                {
                    hover.push_str("\n\n");
                    hover.push_str(description);
                }
                if ui
                    .checkbox(&mut enabled, &section.display_name)
                    .on_hover_text(hover)
                    .changed()
                {
                    state.set_enabled(&section.identifier, enabled);
                }
                ui.label(loaded.origin.to_string());
                section_status(ui, loaded);
                ui.end_row();
                for rule in bound {
                    rule_row(ui, rule, "found", info);
                }
            }
            let independent = by_section.remove("").unwrap_or_default();
            if !independent.is_empty() {
                ui.strong(INDEPENDENT_RULES);
                ui.label("");
                ui.label("");
                ui.end_row();
                for rule in independent {
                    if matches(
                        needle,
                        &[&rule.identifier, rule.name.as_deref().unwrap_or("")],
                    ) {
                        rule_row(ui, rule, "found", info);
                    }
                }
            }
            for (section, rules) in by_section {
                for rule in rules {
                    if matches(
                        needle,
                        &[&rule.identifier, rule.name.as_deref().unwrap_or("")],
                    ) {
                        rule_row(
                            ui,
                            rule,
                            &format!("section {section} not loaded: the rule does not run"),
                            info,
                        );
                    }
                }
            }
        });
}

fn section_status(ui: &mut egui::Ui, loaded: &LoadedSection) {
    if let Some(error) = &loaded.stale {
        ui.colored_label(
            ui.visuals().error_fg_color,
            "error: showing the last good version",
        )
        .on_hover_text(error);
    } else if loaded.warnings.is_empty() {
        ui.label("loaded");
    } else {
        let text: Vec<String> = loaded.warnings.iter().map(ToString::to_string).collect();
        ui.colored_label(
            ui.visuals().warn_fg_color,
            format!("loaded, {} warning(s)", loaded.warnings.len()),
        )
        .on_hover_text(text.join("\n"));
    }
}

fn rule_row(ui: &mut egui::Ui, rule: &RuleFile, status: &str, info: RuleInfo<'_>) {
    let name = rule.name.clone().unwrap_or_else(|| rule.identifier.clone());
    let label = ui.horizontal(|ui| {
        ui.add_space(24.0);
        ui.label(format!("Rule: {name}"))
    });
    let label = label.inner;
    let mut hover = format!("Rule {}", rule.identifier);
    if let Some(description) = &rule.description {
        hover.push_str("\n\n");
        hover.push_str(description);
    }
    label.on_hover_text(hover);
    ui.label(rule.path.display().to_string());
    let stored_only = rule.path.as_os_str() == STORED_IN_REPORT;
    let status = if stored_only { "in report" } else { status };
    let stem = rule
        .path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let load_error = info
        .load_errors
        .iter()
        .find(|e| e.rule == rule.identifier || e.rule == stem);
    let visuals = ui.visuals().clone();
    if let Some(error) = load_error {
        ui.colored_label(visuals.error_fg_color, "load error")
            .on_hover_text(&error.message);
    } else {
        match info.page.and_then(|page| page.status(&rule.identifier)) {
            Some(RuleStatus::Failed(error)) => {
                ui.colored_label(visuals.error_fg_color, format!("{status} · failed"))
                    .on_hover_text(error);
            }
            Some(RuleStatus::Applied) => {
                ui.colored_label(
                    egui::Color32::from_rgb(0x4c, 0xaf, 0x50),
                    format!("{status} · applied"),
                );
            }
            Some(other) => {
                ui.label(format!("{status} · {}", other.label()));
            }
            None => {
                ui.label(status);
            }
        }
    }
    ui.end_row();
}

fn failures_ui(
    ui: &mut egui::Ui,
    set: &SectionSet,
    rules: &sightline_rules::scan::RuleScan,
    load_errors: &[RuleError],
) {
    let stale: Vec<&std::path::Path> = set
        .sections
        .iter()
        .filter(|s| s.stale.is_some())
        .filter_map(|s| match &s.origin {
            sightline_model::section::SectionOrigin::File(path) => Some(path.as_path()),
            _ => None,
        })
        .collect();
    if set.failures.is_empty()
        && set.warnings.is_empty()
        && rules.unreadable.is_empty()
        && load_errors.is_empty()
    {
        return;
    }
    ui.add_space(8.0);
    ui.strong("Load errors");
    for failure in &set.failures {
        let kept = stale.contains(&failure.path.as_path());
        ui.horizontal_wrapped(|ui| {
            ui.colored_label(ui.visuals().error_fg_color, "error:");
            ui.monospace(failure.path.display().to_string());
            if kept {
                ui.weak("(last good version still shown)");
            }
        });
        for diagnostic in &failure.diagnostics {
            ui.indent(("failure", &failure.path), |ui| {
                ui.label(diagnostic.to_string());
            });
        }
    }
    for warning in &set.warnings {
        ui.colored_label(ui.visuals().warn_fg_color, warning);
    }
    for unreadable in &rules.unreadable {
        ui.colored_label(ui.visuals().error_fg_color, &unreadable.error);
    }
    for error in load_errors {
        ui.horizontal_wrapped(|ui| {
            ui.colored_label(ui.visuals().error_fg_color, "rule error:");
            ui.monospace(&error.rule);
        });
        ui.indent(("rule-load-error", &error.rule), |ui| {
            ui.label(egui::RichText::new(&error.message).monospace());
        });
    }
}

/// The reload bar: Reload, whether live reload is on (or why not), and when and why the
/// sections were last loaded.
fn reload_bar_ui(ui: &mut egui::Ui, state: &mut SectionState) {
    ui.horizontal(|ui| {
        if ui
            .button("Reload")
            .on_hover_text("Load every section and rule file of the search path again")
            .clicked()
        {
            state.reload();
        }
        if state.watching() {
            ui.label("Live reload: on");
        } else if let Some(error) = &state.watch_error {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!("Live reload: off ({error})"),
            );
        } else {
            ui.label("Live reload: off (no section folder)");
        }
        if let Some((when, files)) = &state.last_reload {
            let ago = when.elapsed().as_secs();
            let what = match files.as_slice() {
                [] => String::new(),
                [one] => format!(
                    " after a change of {}",
                    one.file_name().map_or_else(
                        || one.display().to_string(),
                        |n| n.to_string_lossy().into_owned()
                    )
                ),
                many => format!(" after {} files changed", many.len()),
            };
            ui.weak(format!("· loaded {ago} s ago{what}"));
        }
    });
}

/// Names the embedded sections a report is shown with; returns them (none when the report
/// uses the search path's).
fn embedded_notice_ui<'a>(ui: &mut egui::Ui, in_use: Option<&InUse<'a>>) -> Option<&'a SectionSet> {
    match in_use {
        Some(InUse {
            source: SectionSource::Embedded,
            set,
            report,
            ..
        }) => {
            ui.label(format!(
                "{report} is shown with its {} embedded sections. Files of the search path are listed below them.",
                set.sections.len()
            ));
            Some(*set)
        }
        _ => None,
    }
}

/// The rules a report holds results of but the search path does not have, listed as stored
/// in the report.
fn stored_rules(page: Option<&PageRules>) -> Vec<RuleFile> {
    page.map(|page| {
        page.rows
            .iter()
            .filter(|row| !row.can_apply)
            .map(|row| RuleFile {
                path: STORED_IN_REPORT.into(),
                identifier: row.identifier.clone(),
                section: row.section.clone(),
                name: Some(row.name.clone()),
                description: None,
            })
            .collect()
    })
    .unwrap_or_default()
}
