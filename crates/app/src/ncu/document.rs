//! The Nsight Compute report as a document of the shell: its entry in the list of document
//! kinds and its [`Document`] implementation.

use eframe::egui;
use sightline_model::kind::FileKind;

use super::report_tab::ReportTab;
use super::rule_runner::{ApplyResult, RuleSelection};
use super::state::NcuState;
use crate::document::{Document, DocumentKind, DocumentType, Peer, Published, Services};

/// Nsight Compute reports (`.ncu-rep`, `.ncu-repz`) open as a [`ReportTab`].
pub const DOCUMENT: DocumentType = DocumentType {
    kind: DocumentKind::Report,
    name: "Nsight Compute reports",
    file_kinds: &[FileKind::NcuReport],
    open: |path, _states, wake| Box::new(ReportTab::open(path, move || wake())),
    state: Some(|settings, options| Box::new(NcuState::new(settings, options))),
};

impl ReportTab {
    /// An answer of the rule runner: every report tab sees every answer and keeps those of its
    /// own requests.
    pub fn rules_answered(&mut self, result: &ApplyResult) {
        if result.tab == self.id {
            self.rules
                .record(result.kernel, &result.selection, &result.outcome);
        }
    }
}

impl Document for ReportTab {
    crate::lifecycle::lifecycle_methods!();

    fn published(&self) -> Vec<Published> {
        self.report()
            .into_iter()
            .map(|r| Published {
                key: crate::links::NCU_REPORT,
                value: std::sync::Arc::new(r.clone()),
            })
            .collect()
    }

    fn see_peers(&mut self, peers: &[Peer]) {
        let path = self.path().to_path_buf();
        self.timeline_links.see_peers(&path, peers);
    }

    fn navigate(&mut self, item: u64) -> bool {
        let Some(index) = usize::try_from(item)
            .ok()
            .filter(|&i| self.report().is_some_and(|r| i < r.num_actions()))
        else {
            return false;
        };
        self.select(index);
        self.page = super::report_tab::Page::Details;
        true
    }

    fn keys(&mut self, ctx: &egui::Context, services: &mut Services<'_>) {
        use egui::{Key, Modifiers};
        let (find, up, down, apply) = ctx.input_mut(|i| {
            (
                i.consume_key(Modifiers::COMMAND, Key::F),
                i.consume_key(Modifiers::NONE, Key::ArrowUp),
                i.consume_key(Modifiers::NONE, Key::ArrowDown),
                i.consume_key(Modifiers::COMMAND, Key::R),
            )
        });
        if apply
            && let Some((sections, runner)) = services
                .state::<NcuState>()
                .and_then(NcuState::parts)
                .filter(|(_, runner)| !runner.busy())
        {
            let kernel = self.selected;
            self.apply_rules(kernel, RuleSelection::All, sections, runner);
        }
        if find {
            self.list.focus_filter = true;
        }
        let step = match (up, down) {
            (true, false) => -1,
            (false, true) => 1,
            _ => 0,
        };
        if let Some(next) = self
            .list
            .neighbour(self.selected, step)
            .filter(|_| step != 0)
        {
            self.select(next);
        }
    }

    fn startup_milestones(&self) -> (bool, Option<String>) {
        let listed = !self.loading() && self.report().is_some();
        (
            self.details().is_some(),
            listed.then(|| format!("all {} kernels listed", self.list.rows.len())),
        )
    }

    fn shortcuts(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("Ctrl+F", "Filter the kernel list"),
            ("Up / Down", "Previous / next kernel"),
            ("Ctrl+R", "Apply all rules to the kernel"),
        ]
    }

    crate::document::any_methods!();
}
