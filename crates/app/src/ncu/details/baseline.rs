//! Entries compared with the baselines (a section's header, a body table): one row per entry —
//! label, value, each shown baseline's value in its colour ("N/A" when it lacks the metric, or
//! when no result of its report matches), and the difference to the first shown baseline,
//! relative in percent (the absolute difference on hover), coloured by direction.

use std::hash::Hash;

use eframe::egui::{self, RichText, Ui};
use sightline_model::section::Entry;

use crate::ncu::baselines::ComparedBaseline;
use crate::ncu::baselines::compare::{direction_color, values};

/// Draws `entries` of section `section` with `baselines` (at least one) as a grid `id`.
pub fn compared_grid(
    ui: &mut Ui,
    id: impl Hash + std::fmt::Debug,
    section: &str,
    entries: &[Entry],
    baselines: &[ComparedBaseline],
) {
    let Some(first) = baselines.first() else {
        return;
    };
    // A grid too wide for the panel scrolls sideways instead of widening the page.
    egui::ScrollArea::horizontal()
        .id_salt(("baseline-grid-scroll", &id))
        .show(ui, |ui| grid(ui, id, section, entries, baselines, first));
}

fn grid(
    ui: &mut Ui,
    id: impl Hash + std::fmt::Debug,
    section: &str,
    entries: &[Entry],
    baselines: &[ComparedBaseline],
    first: &ComparedBaseline,
) {
    egui::Grid::new(("baseline-grid", id))
        .striped(true)
        .num_columns(3 + baselines.len())
        .show(ui, |ui| {
            ui.weak("Metric");
            ui.weak("Value");
            for baseline in baselines {
                heading(ui, RichText::new(&baseline.name).color(baseline.color))
                    .on_hover_text(baseline.origin());
            }
            let weak = ui.visuals().weak_text_color();
            heading(
                ui,
                RichText::new(format!("Δ vs {}", first.name)).color(weak),
            )
            .on_hover_text("The difference to the first shown baseline (absolute on hover)");
            ui.end_row();
            for entry in entries {
                ui.label(&entry.label).on_hover_text(&entry.metric);
                ui.label(&entry.text);
                let values = values(section, entry, baselines);
                for value in &values {
                    let label = ui.label(RichText::new(&value.text).color(value.color));
                    if value.missing {
                        label.on_hover_text("The baseline has no value for this metric");
                    }
                }
                match values.first().and_then(|v| v.difference.map(|d| (v, d))) {
                    Some((value, difference)) => {
                        ui.label(
                            RichText::new(difference.relative_text())
                                .color(direction_color(ui, &difference)),
                        )
                        .on_hover_text(&value.absolute);
                    }
                    None => {
                        ui.weak("N/A");
                    }
                }
                ui.end_row();
            }
        });
}

/// The widest a column heading gets: longer names (a baseline's is `kernel [index] (file)`)
/// wrap, so that the grid never widens the page.
const HEADING_WIDTH: f32 = 150.0;

/// A small column heading wrapped at [`HEADING_WIDTH`].
fn heading(ui: &mut Ui, text: RichText) -> egui::Response {
    let height = ui.spacing().interact_size.y;
    ui.allocate_ui(egui::vec2(HEADING_WIDTH, height), |ui| {
        ui.add(egui::Label::new(text.small()).wrap())
    })
    .inner
}
