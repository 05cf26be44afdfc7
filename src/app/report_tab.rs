//! One open report: its loader, kernel list, selected kernel and Details page.

use std::path::PathBuf;
use std::sync::Arc;

use eframe::egui;

use super::details_panel::DetailsPanel;
use super::kernel_list::KernelList;
use super::loader::{LoadEvent, LoadJob};
use super::section_state::{SectionSource, SectionState};
use super::view_ctx::ViewCtx;
use crate::ncu::{Action, Report};
use crate::section::details::{KernelDetails, resolve_action};
use crate::section::registry::SectionSet;

/// Which page of a report is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Page {
    /// The Details page of the selected kernel.
    Details,
    /// Session information: device, versions, command line, process.
    Session,
}

/// The selected kernel, decoded and resolved.
struct Current {
    action: Action,
    details: KernelDetails,
    /// The sections the page was resolved against (before disabled ones were removed).
    sections: Arc<SectionSet>,
    source: SectionSource,
    /// [`SectionState::generation`] at resolution.
    generation: u64,
}

/// An open report tab.
pub struct ReportTab {
    /// The report's file.
    pub path: PathBuf,
    job: Option<LoadJob>,
    /// Load progress `(fraction, stage)` while loading.
    pub progress: Option<(f32, String)>,
    /// The report, once indexed.
    pub report: Option<Arc<Report>>,
    /// The kernel list.
    pub list: KernelList,
    /// Selected action index.
    pub selected: usize,
    /// A load or decode error to show.
    pub error: Option<String>,
    current: Option<Current>,
    /// The Details page panel.
    pub panel: DetailsPanel,
    /// The page shown.
    pub page: Page,
}

impl ReportTab {
    /// Starts loading `path`; `wake` requests a repaint when loading progresses.
    pub fn open(path: PathBuf, wake: impl Fn() + Send + 'static) -> ReportTab {
        let job = LoadJob::start(&path, wake);
        ReportTab {
            path,
            job: Some(job),
            progress: Some((0.0, "starting".into())),
            report: None,
            list: KernelList::default(),
            selected: 0,
            error: None,
            current: None,
            panel: DetailsPanel::new(),
            page: Page::Details,
        }
    }

    /// The tab's title (file name).
    pub fn title(&self) -> String {
        self.path.file_name().map_or_else(
            || self.path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    }

    /// Whether loading is still running.
    pub fn loading(&self) -> bool {
        self.job.is_some()
    }

    /// Cancels loading (rows loaded so far stay).
    pub fn cancel(&mut self) {
        if let Some(job) = self.job.take() {
            job.cancel();
            if self.report.is_none() {
                self.error = Some("loading cancelled".into());
            }
        }
        self.progress = None;
    }

    /// Applies pending loader events; returns an error message to show, if one arrived.
    pub fn poll(&mut self) -> Option<String> {
        let mut failure = None;
        while let Some(event) = self.job.as_ref().and_then(LoadJob::poll) {
            match event {
                LoadEvent::Progress(fraction, stage) => self.progress = Some((fraction, stage)),
                LoadEvent::Opened(report) => self.report = Some(report),
                LoadEvent::Rows(rows) => self.list.extend(rows),
                LoadEvent::Finished => {
                    self.job = None;
                    self.progress = None;
                }
                LoadEvent::Failed(message) => {
                    self.job = None;
                    self.progress = None;
                    self.error = Some(message.clone());
                    failure = Some(message);
                }
            }
        }
        failure
    }

    /// Selects action `index` (decoded and resolved on the next frame that shows it).
    pub fn select(&mut self, index: usize) {
        if self.selected != index {
            self.selected = index;
            self.current = None;
        }
    }

    /// Drops the resolved page so that it is resolved again (sections changed).
    pub fn invalidate(&mut self) {
        self.current = None;
    }

    /// Decodes and resolves the selected kernel if needed (or when the sections changed).
    fn ensure_current(&mut self, sections: &SectionState) {
        if self.current.as_ref().is_some_and(|c| {
            c.action.index() == self.selected && c.generation == sections.generation
        }) {
            return;
        }
        let Some(report) = &self.report else { return };
        if self.selected >= report.num_actions() {
            return;
        }
        let action = match self.current.take() {
            Some(current) if current.action.index() == self.selected => Ok(current.action),
            _ => report.action(self.selected),
        };
        let action = match action {
            Ok(action) => action,
            Err(error) => {
                self.error = Some(error.to_string());
                return;
            }
        };
        let source = sections.source_for(&action);
        let (set, problem) = sections.sections_for(&action);
        if problem.is_some() {
            self.error = problem;
        }
        let details = if sections.disabled.is_empty() {
            resolve_action(&action, &set)
        } else {
            resolve_action(&action, &set.without(&sections.disabled))
        };
        self.current = Some(Current {
            action,
            details,
            sections: set,
            source,
            generation: sections.generation,
        });
    }

    /// The sections the shown page uses and where they come from.
    pub fn sections_in_use(&self) -> Option<(SectionSource, &SectionSet)> {
        self.current
            .as_ref()
            .map(|c| (c.source, c.sections.as_ref()))
    }

    /// The Details page of the selected kernel, once resolved.
    pub fn details(&self) -> Option<&KernelDetails> {
        self.current.as_ref().map(|c| &c.details)
    }

    /// Draws the tab: kernel list on the left, the page in the center.
    /// Returns true when the user asked for the Metric Selection window.
    pub fn ui(&mut self, ui: &mut egui::Ui, sections: &SectionState) -> bool {
        let mut open_selection = false;
        egui::Panel::left("kernel-list")
            .resizable(true)
            .default_size(360.0)
            .show(ui, |ui| {
                if let Some(clicked) = self.list.ui(ui, self.selected) {
                    self.select(clicked);
                }
            });
        egui::CentralPanel::default().show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.selectable_value(&mut self.page, Page::Details, "Details");
                ui.selectable_value(&mut self.page, Page::Session, "Session");
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    if ui
                        .button("Metric Selection…")
                        .on_hover_text("Sections and rules: load errors, Reload, enable/disable")
                        .clicked()
                    {
                        open_selection = true;
                    }
                });
            });
            ui.separator();
            if let Some(error) = &self.error {
                ui.colored_label(ui.visuals().error_fg_color, error);
            }
            let Some(report) = self.report.clone() else {
                ui.label("Opening…");
                return;
            };
            match self.page {
                Page::Session => super::session_page::session_ui(ui, &report),
                Page::Details => {
                    self.ensure_current(sections);
                    if let Some(current) = &self.current {
                        let ctx = ViewCtx {
                            report: &report,
                            action: &current.action,
                            details: &current.details,
                        };
                        self.panel.ui(ui, &ctx);
                    } else if report.num_actions() == 0 {
                        ui.label("This report contains no results.");
                    }
                }
            }
        });
        open_selection
    }
}
