//! One filter/search field: a label and a one-line text box with a hint, as every list and
//! page that filters or searches by text shows it.

use eframe::egui;

/// Draws `label` then a one-line box editing `text`, showing `hint` while empty, `width`
/// wide (`f32::INFINITY`: the rest of the row). Returns the box's response (changed, focus,
/// Enter).
pub fn filter_field(
    ui: &mut egui::Ui,
    label: &str,
    text: &mut String,
    hint: &str,
    width: f32,
) -> egui::Response {
    ui.label(label);
    ui.add(
        egui::TextEdit::singleline(text)
            .hint_text(hint)
            .desired_width(width),
    )
}
