//! The Nsight Compute report as a document of the shell: its entry in the list of document
//! kinds and its [`Document`] implementation.

use std::any::Any;
use std::path::Path;

use eframe::egui;
use sightline_model::kind::FileKind;

use super::report_tab::ReportTab;
use crate::document::{Document, DocumentKind, DocumentType, Services};

/// Nsight Compute reports (`.ncu-rep`, `.ncu-repz`) open as a [`ReportTab`].
pub const DOCUMENT: DocumentType = DocumentType {
    kind: DocumentKind::Report,
    name: "Nsight Compute reports",
    file_kinds: &[FileKind::NcuReport],
    open: |path, _nsys, wake| Box::new(ReportTab::open(path, move || wake())),
};

impl Document for ReportTab {
    fn path(&self) -> &Path {
        &self.path
    }

    fn title(&self) -> String {
        ReportTab::title(self)
    }

    fn loading(&self) -> bool {
        ReportTab::loading(self)
    }

    fn progress(&self) -> Option<(f32, String)> {
        self.progress.clone()
    }

    fn cancel(&mut self) {
        ReportTab::cancel(self);
    }

    fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    fn poll(&mut self) -> Option<(String, bool)> {
        let was_loading = ReportTab::loading(self);
        if let Some(error) = ReportTab::poll(self) {
            return Some((error, true));
        }
        match &self.report {
            Some(report) if was_loading && !ReportTab::loading(self) => Some((
                format!(
                    "Opened {}: {} result(s)",
                    self.path.display(),
                    report.num_actions()
                ),
                false,
            )),
            _ => None,
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, services: &mut Services<'_>) {
        if ReportTab::ui(self, ui, services.sections, services.runner) {
            services.open_metric_selection = true;
        }
    }

    fn shortcuts(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("Ctrl+F", "Filter the kernel list"),
            ("Up / Down", "Previous / next kernel"),
            ("Ctrl+R", "Apply all rules to the kernel"),
        ]
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
