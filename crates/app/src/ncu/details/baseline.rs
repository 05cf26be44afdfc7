//! A section's header compared with the baselines: one row per entry — label, value, each shown
//! baseline's value in its colour ("N/A" when it lacks the metric), and the difference to the
//! first shown baseline, relative in percent (the absolute difference on hover), coloured by
//! direction: increases in one colour, decreases in another, no change weak.

use eframe::egui::{self, Color32, RichText, Ui};
use sightline_model::section::baseline::Compared;
use sightline_model::section::details::DetailsSection;

use crate::ncu::baselines::Baseline;

/// The colour of an increase over the first baseline.
const INCREASE: Color32 = Color32::from_rgb(0xe0, 0x8a, 0x2f);
/// The colour of a decrease below the first baseline.
const DECREASE: Color32 = Color32::from_rgb(0x3f, 0x8f, 0xe0);

/// Draws `section`'s header with `baselines` (at least one).
pub fn compared_grid(ui: &mut Ui, section: &DetailsSection, baselines: &[Baseline]) {
    egui::Grid::new(("baseline-grid", &section.identifier))
        .striped(true)
        .num_columns(3 + baselines.len())
        .show(ui, |ui| {
            ui.weak("Metric");
            ui.weak("Value");
            for baseline in baselines {
                ui.label(RichText::new(&baseline.name).color(baseline.color).small())
                    .on_hover_text(format!(
                        "{} result {}",
                        baseline.report.display(),
                        baseline.kernel
                    ));
            }
            ui.weak(format!("Δ vs {}", baselines[0].name));
            ui.end_row();
            for entry in &section.header {
                ui.label(&entry.label).on_hover_text(&entry.metric);
                ui.label(&entry.text);
                let compared: Vec<Compared<'_>> = baselines
                    .iter()
                    .map(|b| b.entries.compare(&section.identifier, entry))
                    .collect();
                for (baseline, compared) in baselines.iter().zip(&compared) {
                    let label = ui.label(RichText::new(compared.text()).color(baseline.color));
                    if matches!(compared, Compared::Missing) {
                        label.on_hover_text("The baseline has no value for this metric");
                    }
                }
                match compared.first().and_then(Compared::difference) {
                    Some(difference) => {
                        let color = if difference.absolute > 0.0 {
                            INCREASE
                        } else if difference.absolute < 0.0 {
                            DECREASE
                        } else {
                            ui.visuals().weak_text_color()
                        };
                        ui.label(RichText::new(difference.relative_text()).color(color))
                            .on_hover_text(difference.absolute_text(&entry.unit));
                    }
                    None => {
                        ui.weak("N/A");
                    }
                }
                ui.end_row();
            }
        });
}
