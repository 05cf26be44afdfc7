//! The parameter editor: a working copy of the TOML parameters (clock, block size, level sizes,
//! retention times and energies per cell type, area divisor, capacities and cell factors, SRAM
//! energy), checked with [`Params::validate`] before it is applied; Reset returns to the
//! embedded defaults.

use eframe::egui;

use sightline_model::gainsight::{Params, ParamsError, PerLevel};

/// What the editor asks the panel to do.
#[derive(Debug, Clone, PartialEq)]
pub enum EditorAction {
    /// Use these (validated) parameters.
    Apply(Params),
}

/// The editor's state.
#[derive(Debug, Clone, Default)]
pub struct ParamsEditor {
    /// The working copy (`None` until first shown: taken from the applied parameters).
    pub draft: Option<Params>,
    /// Why the draft cannot be applied.
    pub error: Option<ParamsError>,
}

fn number(ui: &mut egui::Ui, label: &str, value: &mut f64, suffix: &str, hover: &str) -> bool {
    ui.label(label).on_hover_text(hover);
    let speed = (value.abs() * 0.01).max(0.001);
    let changed = ui
        .add(
            egui::DragValue::new(value)
                .speed(speed)
                .suffix(suffix)
                .max_decimals(6),
        )
        .on_hover_text(hover)
        .changed();
    ui.end_row();
    changed
}

fn integer(ui: &mut egui::Ui, label: &str, value: &mut u64, suffix: &str, hover: &str) -> bool {
    ui.label(label).on_hover_text(hover);
    let speed = ((*value as f64) * 0.01).max(1.0);
    let changed = ui
        .add(
            egui::DragValue::new(value)
                .speed(speed)
                .range(1..=u64::MAX)
                .suffix(suffix),
        )
        .on_hover_text(hover)
        .changed();
    ui.end_row();
    changed
}

/// An optional per-level energy: a checkbox and two values.
fn energy(ui: &mut egui::Ui, label: &str, value: &mut Option<PerLevel>) -> bool {
    let mut on = value.is_some();
    let mut changed = ui.checkbox(&mut on, label).changed();
    if on && value.is_none() {
        *value = Some(PerLevel { l1: 1.0, l2: 1.0 });
    } else if !on {
        *value = None;
    }
    ui.horizontal(|ui| {
        if let Some(v) = value {
            for (name, x) in [("L1", &mut v.l1), ("L2", &mut v.l2)] {
                ui.label(name);
                changed |= ui
                    .add(
                        egui::DragValue::new(x)
                            .speed(0.01)
                            .suffix(" pJ")
                            .max_decimals(6),
                    )
                    .changed();
            }
        }
    });
    ui.end_row();
    changed
}

impl ParamsEditor {
    /// Draws the editor for `applied` parameters; returns what to do.
    pub fn ui(&mut self, ui: &mut egui::Ui, applied: &Params, busy: bool) -> Option<EditorAction> {
        let draft = self.draft.get_or_insert_with(|| applied.clone());
        let mut changed = general_ui(ui, draft);
        changed |= cells_ui(ui, draft);
        changed |= area_ui(ui, draft);
        if changed {
            self.error = draft.validate().err();
        }
        if let Some(error) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, error.to_string());
        }
        self.buttons_ui(ui, applied, busy)
    }

    /// The buttons: Apply parameters (a modified, valid draft while idle), Revert to the
    /// parameters in use, Reset to defaults (applied at once). Returns what to do.
    fn buttons_ui(
        &mut self,
        ui: &mut egui::Ui,
        applied: &Params,
        busy: bool,
    ) -> Option<EditorAction> {
        let mut action = None;
        ui.horizontal(|ui| {
            let modified = self.draft.as_ref() != Some(applied);
            let can_apply = modified && self.error.is_none() && !busy;
            if ui
                .add_enabled(can_apply, egui::Button::new("Apply parameters"))
                .on_hover_text("Recompute the kernel table, report and charts with these values")
                .clicked()
                && let Some(draft) = &self.draft
            {
                action = Some(EditorAction::Apply(draft.clone()));
            }
            if ui
                .add_enabled(modified, egui::Button::new("Revert"))
                .on_hover_text("Back to the parameters in use")
                .clicked()
            {
                self.draft = Some(applied.clone());
                self.error = None;
            }
            let defaults = Params::default();
            if ui
                .add_enabled(
                    !busy && (applied != &defaults || self.draft.as_ref() != Some(&defaults)),
                    egui::Button::new("Reset to defaults"),
                )
                .on_hover_text("Apply the documented defaults (params.toml)")
                .clicked()
            {
                self.draft = Some(defaults.clone());
                self.error = None;
                if applied != &defaults {
                    action = Some(EditorAction::Apply(defaults));
                }
            }
        });
        action
    }
}

/// The general parameters: clock, block size, L1 default size and L2 size. True when one
/// changed.
fn general_ui(ui: &mut egui::Ui, draft: &mut Params) -> bool {
    let mut changed = false;
    egui::Grid::new("gainsight-params-general")
        .num_columns(2)
        .show(ui, |ui| {
            changed |= number(
                ui,
                "Clock",
                &mut draft.clock_mhz,
                " MHz",
                "Core clock of the simulated GPU: one cycle = 1000 / clock ns",
            );
            changed |= integer(
                ui,
                "Block size",
                &mut draft.block_size_bytes,
                " B",
                "Bytes per cache block (utilization = unique addresses x block / size)",
            );
            changed |= integer(
                ui,
                "L1 default size",
                &mut draft.l1_default_size_bytes,
                " B",
                "L1 size of a kernel without a reconfiguration line",
            );
            changed |= integer(
                ui,
                "L2 size",
                &mut draft.l2_size_bytes,
                " B",
                "L2 size written to the kernel CSV",
            );
        });
    changed
}

/// One section per gain-cell type: its retention time and its read and refresh energies.
/// True when one changed.
fn cells_ui(ui: &mut egui::Ui, draft: &mut Params) -> bool {
    let mut changed = false;
    ui.separator();
    ui.strong("Gain-cell types");
    for (index, cell) in draft.retention.iter_mut().enumerate() {
        egui::CollapsingHeader::new(cell.name.clone())
            .id_salt(("gainsight-cell", index))
            .default_open(true)
            .show(ui, |ui| {
                egui::Grid::new(("gainsight-cell-grid", index))
                    .num_columns(2)
                    .show(ui, |ui| {
                        changed |= number(
                            ui,
                            "Retention",
                            &mut cell.retention_us,
                            " µs",
                            "A lifetime of t µs needs floor(t / retention) refreshes",
                        );
                        changed |= energy(ui, "Read energy", &mut cell.read_energy_pj);
                        changed |= energy(ui, "Refresh energy", &mut cell.refresh_energy_pj);
                    });
            });
    }
    changed
}

/// The area parameters: the divisor, the capacities, each cell's factor and the SRAM read
/// energy. True when one changed.
fn area_ui(ui: &mut egui::Ui, draft: &mut Params) -> bool {
    let mut changed = false;
    ui.separator();
    ui.strong("Area");
    egui::Grid::new("gainsight-params-area")
        .num_columns(2)
        .show(ui, |ui| {
            changed |= number(
                ui,
                "Divisor",
                &mut draft.area.divisor,
                "",
                "100 x array efficiency (75 = 0.75): area = bits x cell factor / divisor",
            );
            changed |= number(
                ui,
                "L1 capacity",
                &mut draft.area.l1_capacity_bits,
                " bit",
                "Capacity of L1 in bits",
            );
            changed |= number(
                ui,
                "L2 capacity",
                &mut draft.area.l2_capacity_bits,
                " bit",
                "Capacity of L2 in bits",
            );
            for cell in &mut draft.area.cells {
                changed |= number(
                    ui,
                    &format!("{} cell factor", cell.name),
                    &mut cell.cell_factor,
                    "",
                    "Cell area per bit (the K of bits x K / divisor)",
                );
            }
            changed |= energy(ui, "SRAM read energy", &mut draft.sram.read_energy_pj);
        });
    changed
}
