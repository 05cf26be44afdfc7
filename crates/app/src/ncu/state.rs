//! What Nsight Compute reports share in a window: the section folders and their live reload,
//! the rule runner, the Metric Selection window and the rule files that failed to load. The
//! shell holds it as a [`KindState`] without knowing what it is; report tabs reach it through
//! [`crate::document::Services::state`].

use std::path::{Path, PathBuf};

use eframe::egui;
use sightline_model::section::SectionFolder;

use super::baselines::{BaselineStore, OpenReport, Opened, same_file};
use super::metric_selection::{InUse, MetricSelection, SelectionRequest};
use super::report_tab::ReportTab;
use super::rule_runner::{ApplyResult, RuleRunner};
use super::section_state::SectionState;
use crate::document::{Document, KindState};
use crate::sightline_app::{Settings, StartOptions};
use crate::widgets::dialog::{Answer, Dialog, take_answer};

/// The window-wide state of Nsight Compute reports.
pub struct NcuState {
    /// Sections, rules and live reload.
    pub sections: SectionState,
    /// The Metric Selection window.
    pub selection: MetricSelection,
    /// Rule files that failed to load when rules were last applied.
    pub rule_load_errors: Vec<sightline_rules::RuleError>,
    /// The baselines every report's pages compare with.
    pub baselines: BaselineStore,
    /// Applies rules in the background (made on the first frame, with a repaint waker).
    runner: Option<RuleRunner>,
    /// Section folders came from the command line (not persisted).
    folders_from_cli: bool,
    waker_installed: bool,
    /// The section/rule reload last looked at (rules are applied again after a reload).
    reload_seen: Option<std::time::Instant>,
    /// The answer of the "Add a section folder" dialog.
    folder_dialog: Option<Dialog<Option<PathBuf>>>,
    /// The answer of the Save baselines… / Load baselines… dialog.
    baselines_dialog: Option<Dialog<(BaselinesFileOp, Option<PathBuf>)>>,
}

/// What the baselines file dialog was opened for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BaselinesFileOp {
    Save,
    Load,
}

impl NcuState {
    /// The state from the settings, or from `--section-folder` options when given (those
    /// replace the search path for this run and are not persisted).
    pub fn new(settings: &Settings, options: &StartOptions) -> NcuState {
        let folders_from_cli = !options.section_folders.is_empty();
        let sections = if folders_from_cli {
            SectionState::new(
                &options.section_folders,
                false,
                settings.disabled_sections.clone(),
            )
        } else {
            let folders: Vec<SectionFolder> = settings
                .section_folders
                .iter()
                .map(|path| SectionFolder {
                    path: path.clone(),
                    recursive: false,
                })
                .collect();
            SectionState::new(
                &folders,
                settings.prefer_embedded,
                settings.disabled_sections.clone(),
            )
        };
        // The session's baselines, loading until their reports are read in the background.
        let mut baselines = BaselineStore::default();
        baselines.restore(&settings.baselines);
        NcuState {
            sections,
            selection: MetricSelection::default(),
            rule_load_errors: Vec::new(),
            baselines,
            runner: None,
            folders_from_cli,
            waker_installed: false,
            reload_seen: None,
            folder_dialog: None,
            baselines_dialog: None,
        }
    }

    /// Opens the file dialog of File → Baselines → Save/Load baselines… (its answer is applied
    /// by [`KindState::poll`]).
    fn pick_baselines_file(&mut self, ctx: &egui::Context, op: BaselinesFileOp) {
        if self.baselines_dialog.is_some() {
            return;
        }
        let pick = move || {
            let dialog = rfd::FileDialog::new()
                .add_filter("Sightline baselines", &["json"])
                .add_filter("All files", &["*"]);
            let path = match op {
                BaselinesFileOp::Save => dialog
                    .set_title("Save baselines")
                    .set_file_name("baselines.json")
                    .save_file(),
                BaselinesFileOp::Load => dialog.set_title("Load baselines").pick_file(),
            };
            (op, path)
        };
        let repaint = ctx.clone();
        self.baselines_dialog = Dialog::spawn("file", move || repaint.request_repaint(), pick).ok();
    }

    /// Saves the baselines to `path` or adds those of `path`; the status message.
    pub fn baselines_file(&mut self, load: bool, path: &std::path::Path) -> (String, bool) {
        if load {
            match self.baselines.load_file(path) {
                Ok(n) => (
                    format!("{n} baseline(s) loaded from {}", path.display()),
                    false,
                ),
                Err(error) => (format!("Loading baselines failed: {error}"), true),
            }
        } else {
            match self.baselines.save_file(path) {
                Ok(()) => (
                    format!(
                        "{} baseline(s) saved to {}",
                        self.baselines.list.len(),
                        path.display()
                    ),
                    false,
                ),
                Err(error) => (format!("Saving baselines failed: {error}"), true),
            }
        }
    }

    /// The sections and the rule runner, once the first frame made the runner.
    pub fn parts(&mut self) -> Option<(&SectionState, &mut RuleRunner)> {
        let runner = self.runner.as_mut()?;
        Some((&self.sections, runner))
    }

    /// The sections, the rule runner and the baselines, once the first frame made the runner.
    pub fn parts_with_baselines(
        &mut self,
    ) -> Option<(&SectionState, &mut RuleRunner, &mut BaselineStore)> {
        let runner = self.runner.as_mut()?;
        Some((&self.sections, runner, &mut self.baselines))
    }

    /// Adds `folder` to the section search path.
    pub fn add_section_folder(&mut self, folder: PathBuf) {
        let mut folders = if self.sections.configured {
            self.sections.folders.clone()
        } else {
            Vec::new()
        };
        if !folders.iter().any(|f| f.path == folder) {
            folders.push(SectionFolder {
                path: folder,
                recursive: false,
            });
        }
        self.sections.set_folders(&folders);
    }

    fn pick_section_folder(&mut self, ctx: &egui::Context) -> Option<(String, bool)> {
        if self.folder_dialog.is_some() {
            return None;
        }
        let pick = || {
            rfd::FileDialog::new()
                .set_title("Add a section folder")
                .pick_folder()
        };
        let repaint = ctx.clone();
        match Dialog::spawn("folder", move || repaint.request_repaint(), pick) {
            Ok(dialog) => {
                self.folder_dialog = Some(dialog);
                None
            }
            Err(error) => Some((error, true)),
        }
    }

    /// After the rule files were reloaded (live reload of a `.py` file, or the Reload button),
    /// applies again the rules applied so far, so the page shows what the edited rules say.
    fn reapply_after_reload(&mut self, tabs: &mut [Box<dyn Document>]) {
        let Some((when, files)) = &self.sections.last_reload else {
            return;
        };
        if self.reload_seen.replace(*when) == Some(*when) {
            return;
        }
        let rules_changed = files.is_empty()
            || files
                .iter()
                .any(|f| f.extension().is_some_and(|e| e == "py"));
        let Some(runner) = self.runner.as_mut() else {
            return;
        };
        if rules_changed {
            for tab in report_tabs(tabs) {
                tab.reapply_rules(&self.sections, runner);
            }
        }
    }

    /// The status message for one answer of the rule runner.
    fn answered(&mut self, result: &ApplyResult) -> (String, bool) {
        let output = match &result.outcome {
            Ok(output) => output,
            Err(error) => return (format!("Applying rules failed: {error}"), true),
        };
        self.rule_load_errors = output.load_errors.clone();
        let failed: usize = output.kernels.iter().map(|k| k.errors.len()).sum();
        let message = if output.cancelled {
            "Applying rules was cancelled".to_owned()
        } else if failed > 0 || !output.load_errors.is_empty() {
            let mut problems = Vec::new();
            if failed > 0 {
                problems.push(format!("{failed} rule(s) failed"));
            }
            if !output.load_errors.is_empty() {
                problems.push(format!(
                    "{} rule file(s) did not load (see Metric Selection)",
                    output.load_errors.len()
                ));
            }
            format!(
                "Rules applied to kernel {}: {}",
                result.kernel,
                problems.join("; ")
            )
        } else {
            let ran: usize = output.kernels.iter().map(|k| k.results.len()).sum();
            let started = result.engine_started.map_or_else(String::new, |t| {
                format!(
                    " (rule interpreter started in {:.0} ms)",
                    t.as_secs_f64() * 1e3
                )
            });
            format!(
                "{ran} rule(s) applied to kernel {} in {:.0} ms{started}",
                result.kernel,
                (output.load_time + output.apply_time).as_secs_f64() * 1e3
            )
        };
        let error = output.cancelled || failed > 0 || !output.load_errors.is_empty();
        (message, error)
    }
}

/// The report tabs among the window's documents.
fn report_tabs(tabs: &mut [Box<dyn Document>]) -> impl Iterator<Item = &mut ReportTab> {
    tabs.iter_mut()
        .filter_map(|t| t.as_any_mut().downcast_mut::<ReportTab>())
}

impl KindState for NcuState {
    fn poll(
        &mut self,
        ctx: &egui::Context,
        tabs: &mut [Box<dyn Document>],
    ) -> Option<(String, bool)> {
        let mut status = None;
        if let Some(Answer {
            value: Some(folder),
            ..
        }) = take_answer(&mut self.folder_dialog)
        {
            self.add_section_folder(folder);
        }
        if let Some(Answer {
            value: (op, Some(path)),
            ..
        }) = take_answer(&mut self.baselines_dialog)
        {
            status = Some(self.baselines_file(op == BaselinesFileOp::Load, &path));
        }
        // Restored baselines are read in the background, from their tab when one shows their
        // report.
        let open = |path: &Path| {
            let mut opened = Opened::No;
            for tab in tabs
                .iter()
                .filter_map(|t| t.as_any().downcast_ref::<ReportTab>())
            {
                if !same_file(tab.path(), path) {
                    continue;
                }
                // The report comes first, then its kernel list in batches: wait for the load
                // to end, and take the tab only with its whole list (a cancelled load has not).
                match tab.report() {
                    _ if tab.loading() => opened = Opened::Loading,
                    Some(report) if tab.list.rows.len() == report.num_actions() => {
                        return Opened::Yes(OpenReport {
                            report: report.clone(),
                            names: tab.list.rows.iter().map(|r| r.name.clone()).collect(),
                            durations: tab.list.rows.iter().map(|r| r.duration_ns).collect(),
                        });
                    }
                    _ => {}
                }
            }
            opened
        };
        self.baselines.poll(ctx, &self.sections, &open);
        if !self.waker_installed {
            let repaint = ctx.clone();
            self.sections.set_waker(move || repaint.request_repaint());
            self.waker_installed = true;
        }
        let runner = self.runner.get_or_insert_with(|| {
            let repaint = ctx.clone();
            RuleRunner::new(move || repaint.request_repaint())
        });
        let results = runner.poll();
        for result in results {
            for tab in report_tabs(tabs) {
                tab.rules_answered(&result);
            }
            status = Some(self.answered(&result));
        }
        if self.sections.poll() {
            let failed = self.sections.set.failures.len();
            let message = match failed {
                0 => "Sections reloaded".to_owned(),
                n => {
                    format!("Sections reloaded; {n} file(s) failed to load (see Metric Selection)")
                }
            };
            status = Some((message, failed > 0));
        }
        // The rule interpreter starts early, in the background, while a report is open.
        if report_tabs(tabs).next().is_some()
            && let Some(runner) = self.runner.as_mut()
        {
            runner.warm_up();
        }
        status
    }

    fn view_menu_ui(&mut self, ui: &mut egui::Ui) {
        if ui.button("Metric Selection…").clicked() {
            self.selection.open = true;
            ui.close();
        }
    }

    fn windows_ui(
        &mut self,
        ctx: &egui::Context,
        tabs: &mut [Box<dyn Document>],
        active: Option<usize>,
    ) -> Option<(String, bool)> {
        let in_use = active
            .and_then(|i| tabs.get(i))
            .and_then(|t| t.as_any().downcast_ref::<ReportTab>())
            .and_then(|tab| {
                tab.sections_in_use().map(|(source, set)| InUse {
                    source,
                    set,
                    report: Document::title(tab),
                    rules: tab.shown_page_rules(),
                })
            });
        let requests = self.selection.show(
            ctx,
            &mut self.sections,
            in_use.as_ref(),
            &self.rule_load_errors,
        );
        self.reapply_after_reload(tabs);
        let mut status = None;
        for request in requests {
            match request {
                SelectionRequest::AddFolder => status = self.pick_section_folder(ctx).or(status),
            }
        }
        status
    }

    fn file_menu_ui(&mut self, ui: &mut egui::Ui) {
        ui.menu_button("Baselines", |ui| {
            if ui
                .add_enabled(
                    !self.baselines.list.is_empty(),
                    egui::Button::new("Save baselines…"),
                )
                .on_hover_text("Save the Nsight Compute baselines to a file, to share or keep")
                .clicked()
            {
                self.pick_baselines_file(ui.ctx(), BaselinesFileOp::Save);
                ui.close();
            }
            if ui
                .button("Load baselines…")
                .on_hover_text("Add the baselines of a saved file")
                .clicked()
            {
                self.pick_baselines_file(ui.ctx(), BaselinesFileOp::Load);
                ui.close();
            }
        });
    }

    fn busy(&self) -> bool {
        self.runner.as_ref().is_some_and(RuleRunner::busy) || self.baselines.restoring()
    }

    fn save(&self, settings: &mut Settings) {
        settings.baselines = self.baselines.specs();
        settings.disabled_sections = self.sections.disabled.clone();
        if !self.folders_from_cli {
            settings.prefer_embedded = self.sections.prefer_embedded;
            settings.section_folders = if self.sections.configured {
                self.sections
                    .folders
                    .iter()
                    .map(|f| f.path.clone())
                    .collect()
            } else {
                Vec::new()
            };
        }
    }

    crate::document::any_methods!();
}
