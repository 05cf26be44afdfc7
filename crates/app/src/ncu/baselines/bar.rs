//! The baselines bar above a report's pages: one chip per baseline — its colour, a check box
//! to show or hide it, its editable name, Left/Right to reorder, Remove — and Clear.

use eframe::egui;

use super::BaselineStore;

/// What the user did in the bar (applied after drawing, so the list is not changed while it is
/// walked).
enum BarAction {
    Move(u64, bool),
    Remove(u64),
    Clear,
}

/// Draws the bar when there are baselines.
pub fn baselines_bar(ui: &mut egui::Ui, store: &mut BaselineStore) {
    if store.list.is_empty() {
        return;
    }
    let mut action = None;
    let count = store.list.len();
    ui.horizontal_wrapped(|ui| {
        ui.strong("Baselines:");
        for (at, baseline) in store.list.iter_mut().enumerate() {
            ui.push_id(("baseline", baseline.id), |ui| {
                let (rect, _) =
                    ui.allocate_exact_size(egui::vec2(12.0, 12.0), egui::Sense::hover());
                ui.painter().rect_filled(rect, 2.0, baseline.color);
                ui.checkbox(&mut baseline.visible, "")
                    .on_hover_text("Show this baseline");
                ui.add(
                    egui::TextEdit::singleline(&mut baseline.name)
                        .desired_width(200.0)
                        .id_salt("name"),
                )
                .on_hover_text(format!(
                    "{} result {}",
                    baseline.report.display(),
                    baseline.kernel
                ));
                if ui
                    .add_enabled(at > 0, egui::Button::new("Left"))
                    .on_hover_text("Move left (the first shown baseline is compared with)")
                    .clicked()
                {
                    action = Some(BarAction::Move(baseline.id, true));
                }
                if ui
                    .add_enabled(at + 1 < count, egui::Button::new("Right"))
                    .on_hover_text("Move right")
                    .clicked()
                {
                    action = Some(BarAction::Move(baseline.id, false));
                }
                if ui
                    .button("Remove")
                    .on_hover_text("Remove this baseline")
                    .clicked()
                {
                    action = Some(BarAction::Remove(baseline.id));
                }
            });
            ui.separator();
        }
        if ui.button("Clear baselines").clicked() {
            action = Some(BarAction::Clear);
        }
    });
    match action {
        Some(BarAction::Move(id, up)) => store.move_by(id, up),
        Some(BarAction::Remove(id)) => store.remove(id),
        Some(BarAction::Clear) => store.clear(),
        None => {}
    }
}
