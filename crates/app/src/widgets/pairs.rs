//! One key/value grid: a striped two-column grid of `(key, value)` rows whose values wrap, for
//! the details panels (the timeline's event details, the CodeXL dispatch view).

use eframe::egui;

/// Draws `rows` as a striped two-column grid named `id`: each key drawn by `key_ui` (a label,
/// a monospace label...), each value a wrapped label; no column wider than `max_col_width`.
pub fn pairs_grid<K: AsRef<str>, V: AsRef<str>>(
    ui: &mut egui::Ui,
    id: impl egui::AsIdSalt,
    max_col_width: f32,
    rows: &[(K, V)],
    key_ui: impl Fn(&mut egui::Ui, &str),
) {
    egui::Grid::new(id)
        .num_columns(2)
        .striped(true)
        .max_col_width(max_col_width)
        .show(ui, |ui| {
            for (key, value) in rows {
                key_ui(ui, key.as_ref());
                ui.add(egui::Label::new(value.as_ref()).wrap());
                ui.end_row();
            }
        });
}
