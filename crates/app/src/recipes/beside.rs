//! Run B beside run A (the Compare tab of a timeline): "Show B on this timeline" adds B's
//! files to A's timeline as groups of their own, and "Line up on" moves them so that one
//! iteration — an instance of an NVTX range both runs have — starts at the same time in every
//! file: the runs then scroll and zoom together, one above the other. The host (the timeline)
//! serves the requests this state makes ([`Beside::show_request`], [`Beside::align_request`])
//! and fills in the ranges once B's files are read.

use std::path::{Path, PathBuf};

use eframe::egui;

/// The state of run B beside run A.
#[derive(Debug, Default)]
pub struct Beside {
    /// Run B, once its files were added to the timeline.
    pub shown: Option<PathBuf>,
    /// Asked of the host: add this run's files to the timeline.
    pub show_request: Option<PathBuf>,
    /// The NVTX ranges every file has, with the fewest instances a file has (most first);
    /// `None` until B's files are read.
    pub ranges: Option<Vec<(String, usize)>>,
    /// The range picked (an index into `ranges`).
    pub range: usize,
    /// The iteration picked (0: the first instance).
    pub iteration: usize,
    /// Asked of the host: line the files up on this range's instance (name, 0-based).
    pub align_request: Option<(String, usize)>,
    /// What the last lining up did.
    pub message: Option<String>,
}

impl Beside {
    /// Whether `path` is run B's file or lies in run B's folder.
    pub fn is_run_b(&self, path: &Path) -> bool {
        self.shown
            .as_deref()
            .is_some_and(|b| path == b || path.starts_with(b))
    }

    /// The range and iteration picked, when there is one.
    pub fn picked(&self) -> Option<(String, usize)> {
        let (name, count) = self.ranges.as_ref()?.get(self.range)?;
        Some((name.clone(), self.iteration.min(count.saturating_sub(1))))
    }

    /// Draws the row under the Compare tab's header; `other` is run B (when picked).
    pub fn ui(&mut self, ui: &mut egui::Ui, other: Option<&PathBuf>) {
        ui.horizontal_wrapped(|ui| {
            if let Some(b) = other
                && self.shown.as_ref() != Some(b)
                && ui
                    .button("Show B on this timeline")
                    .on_hover_text(
                        "Add run B's files to this timeline, below run A's, lined up on an \
                         iteration (an NVTX range both runs have): both scroll and zoom together",
                    )
                    .clicked()
            {
                self.show_request = Some(b.clone());
            }
            if self.shown.is_some() {
                self.align_ui(ui);
            }
            if let Some(message) = &self.message {
                ui.weak(message);
            }
        });
    }

    /// The range and iteration to line the runs up on.
    fn align_ui(&mut self, ui: &mut egui::Ui) {
        let Some(ranges) = &self.ranges else {
            ui.spinner();
            ui.label("Reading run B onto the timeline…");
            return;
        };
        if ranges.is_empty() {
            ui.label(
                "No NVTX range is in every file: the runs are placed by their session starts \
                 (move them in the Files panel).",
            );
            return;
        }
        let label = ui.label("Line up on");
        let shown = |k: usize| {
            ranges
                .get(k)
                .map_or_else(String::new, |(name, n)| format!("{name} ({n}×)"))
        };
        let mut range = self.range.min(ranges.len() - 1);
        egui::ComboBox::from_id_salt("beside-range")
            .selected_text(shown(range))
            .show_ui(ui, |ui| {
                for k in 0..ranges.len() {
                    ui.selectable_value(&mut range, k, shown(k));
                }
            })
            .response
            .labelled_by(label.id)
            .on_hover_text("An NVTX range every file has (how many times at least)");
        if range != self.range {
            self.range = range;
            self.iteration = 0;
        }
        let count = ranges[range].1;
        let label = ui.label("iteration");
        let mut shown_iteration = self.iteration.min(count - 1) + 1;
        ui.add(egui::DragValue::new(&mut shown_iteration).range(1..=count))
            .labelled_by(label.id)
            .on_hover_text("Which instance of the range (1: the first) starts together");
        self.iteration = shown_iteration - 1;
        if ui
            .button("Line up")
            .on_hover_text("Move the files so that this instance starts together in each")
            .clicked()
        {
            self.align_request = self.picked();
        }
    }
}
