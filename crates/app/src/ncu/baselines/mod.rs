//! Baselines in the app: results added with "Add as baseline" (kernel list, Details page,
//! Summary page) from any open report, shown beside every report's Details page.
//!
//! The store ([`BaselineStore`]) belongs to the Nsight Compute kind's window-wide state
//! ([`super::state::NcuState`]), which the shell hands to every report document through
//! [`crate::document::Services`]; a baseline holds what it needs decoded and resolved (its
//! page indexed by section identifier and metric name, its duration), so no document ever
//! reaches into another one. [`bar`] draws the baselines bar (reorder, hide, rename, remove,
//! clear).

pub mod bar;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use eframe::egui::Color32;
use sightline_model::ncu::{Action, NameBase};
use sightline_model::section::baseline::{BaselineEntries, Difference};
use sightline_model::section::details::KernelDetails;

use crate::widgets::plot::palette;

/// One baseline.
#[derive(Debug, Clone)]
pub struct Baseline {
    /// Unique in the store.
    pub id: u64,
    /// Its name (editable): `kernel [index] (file)` at first.
    pub name: String,
    /// Its colour in the bar and on the Details page.
    pub color: Color32,
    /// Whether it is shown.
    pub visible: bool,
    /// The report it comes from.
    pub report: PathBuf,
    /// Its index in that report.
    pub kernel: usize,
    /// Its `gpu__time_duration.sum` in nanoseconds.
    pub duration_ns: Option<f64>,
    /// Its Details page, indexed by section identifier and metric name.
    pub entries: Arc<BaselineEntries>,
}

impl Baseline {
    /// The difference of `duration_ns` to the baseline's duration.
    pub fn duration_difference(&self, duration_ns: Option<f64>) -> Option<Difference> {
        Some(Difference::of(duration_ns?, self.duration_ns?))
    }
}

/// The baselines of the window, in order (the first shown one is what differences are
/// computed against).
#[derive(Debug, Default)]
pub struct BaselineStore {
    /// The baselines.
    pub list: Vec<Baseline>,
    next_id: u64,
    /// How many colours were handed out (each new baseline takes the next one).
    colours: usize,
}

impl BaselineStore {
    /// Adds result `action` of `report` with its resolved `page`; returns its id.
    pub fn add(&mut self, report: &Path, action: &Action, page: &KernelDetails) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        let file = report.file_name().map_or_else(
            || report.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let color = palette(self.colours);
        self.colours += 1;
        self.list.push(Baseline {
            id,
            name: format!(
                "{} [{}] ({file})",
                action.name(NameBase::Function),
                action.index()
            ),
            color,
            visible: true,
            report: report.to_path_buf(),
            kernel: action.index(),
            duration_ns: action
                .metric("gpu__time_duration.sum")
                .and_then(|m| m.value().as_f64()),
            entries: Arc::new(BaselineEntries::of(page)),
        });
        id
    }

    /// The shown baselines, in order.
    pub fn shown(&self) -> Vec<&Baseline> {
        self.list.iter().filter(|b| b.visible).collect()
    }

    /// Removes baseline `id`.
    pub fn remove(&mut self, id: u64) {
        self.list.retain(|b| b.id != id);
    }

    /// Moves baseline `id` one place towards the front (`up`) or the back.
    pub fn move_by(&mut self, id: u64, up: bool) {
        let Some(at) = self.list.iter().position(|b| b.id == id) else {
            return;
        };
        let to = if up {
            at.checked_sub(1)
        } else {
            Some(at + 1).filter(|&t| t < self.list.len())
        };
        if let Some(to) = to {
            self.list.swap(at, to);
        }
    }

    /// Removes every baseline.
    pub fn clear(&mut self) {
        self.list.clear();
    }
}
