//! The baselines bar above a report's pages: one line per baseline — its colour, a check box
//! to show or hide it, its editable name, the result it compares with (matched by kernel name
//! and launch order, or picked by hand), Left/Right to reorder, Remove — and Clear. A baseline
//! restored from the session or a file shows a spinner while its report is read, or why it
//! cannot be (file and reason) until removed.

use eframe::egui;

use super::{BaselineStatus, BaselineStore, ComparedBaseline, Pick};

/// The most results the picker lists (a report of thousands is filtered by typing the index).
const PICKER_ROWS: usize = 2000;

/// What the user did in the bar (applied after drawing, so the list is not changed while it is
/// walked).
enum BarAction {
    Move(u64, bool),
    Pick(u64, Pick),
    Remove(u64),
    Clear,
}

/// Draws the bar when there are baselines; `compared` says which result each shown one
/// compares with for the shown result (`= [3]`, or "no match").
pub fn baselines_bar(ui: &mut egui::Ui, store: &mut BaselineStore, compared: &[ComparedBaseline]) {
    if store.list.is_empty() {
        return;
    }
    let mut action = None;
    let count = store.list.len();
    // A line with the title and Clear, then a line per baseline (chips side by side would
    // widen the page when they do not fit).
    ui.horizontal(|ui| {
        ui.strong("Baselines:");
        if ui.button("Clear baselines").clicked() {
            action = Some(BarAction::Clear);
        }
    });
    for (at, baseline) in store.list.iter_mut().enumerate() {
        ui.push_id(("baseline", baseline.id), |ui| {
            ui.horizontal(|ui| {
                if let Some(asked) = baseline_line(ui, baseline, at, count, compared) {
                    action = Some(asked);
                }
            });
        });
    }
    match action {
        Some(BarAction::Move(id, up)) => store.move_by(id, up),
        Some(BarAction::Pick(id, pick)) => store.set_pick(id, pick),
        Some(BarAction::Remove(id)) => store.remove(id),
        Some(BarAction::Clear) => store.clear(),
        None => {}
    }
}

/// One baseline's line: its colour, Show, its name, the result it compares with (the picker
/// and the match), Left/Right, Remove, then its status. `at` is its place among `count`.
/// Returns what was asked.
fn baseline_line(
    ui: &mut egui::Ui,
    baseline: &mut super::Baseline,
    at: usize,
    count: usize,
    compared: &[ComparedBaseline],
) -> Option<BarAction> {
    let mut action = None;
    let (rect, _) = ui.allocate_exact_size(egui::vec2(12.0, 12.0), egui::Sense::hover());
    ui.painter().rect_filled(rect, 2.0, baseline.color);
    ui.checkbox(&mut baseline.visible, "")
        .on_hover_text("Show this baseline");
    ui.add(
        egui::TextEdit::singleline(&mut baseline.name)
            .desired_width(260.0)
            .id_salt("name"),
    )
    .on_hover_text(format!(
        "{} result {}",
        baseline.report.display(),
        baseline.kernel
    ));
    if baseline.status == BaselineStatus::Ready
        && let Some(pick) = picker(ui, baseline)
    {
        action = Some(BarAction::Pick(baseline.id, pick));
    }
    if baseline.status == BaselineStatus::Ready
        && let Some(compared) = compared.iter().find(|c| c.id == baseline.id)
    {
        match compared.result {
            Some(result) => ui.weak(format!("= [{result}]")),
            None => ui.colored_label(ui.visuals().warn_fg_color, "no match"),
        }
        .on_hover_text(compared.origin());
    }
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
    // Last on the line, so that a long message never hides the buttons.
    status_ui(ui, baseline);
    action
}

/// A baseline's status: nothing when ready, a spinner while its report is read, or why it
/// cannot be compared with (truncated to the line, the whole message on hover).
fn status_ui(ui: &mut egui::Ui, baseline: &super::Baseline) {
    match &baseline.status {
        BaselineStatus::Ready => {}
        BaselineStatus::Loading => {
            ui.spinner();
            ui.weak("loading…").on_hover_text(format!(
                "Reading {} result {}",
                baseline.report.display(),
                baseline.kernel
            ));
        }
        BaselineStatus::Failed(why) => {
            // Truncated to the line (a long path would widen the page); the
            // whole message on hover.
            ui.add(
                egui::Label::new(
                    egui::RichText::new(why.as_str()).color(ui.visuals().error_fg_color),
                )
                .truncate(),
            )
            .on_hover_text(format!(
                "{why}\nThis baseline cannot be compared with; remove it"
            ));
        }
    }
}

/// The result picker of one baseline: "matched" (by kernel name and launch order) or one of its
/// report's results. Returns a new choice.
fn picker(ui: &mut egui::Ui, baseline: &super::Baseline) -> Option<Pick> {
    let label = |pick: Pick| match pick {
        Pick::Matched => "matched".to_owned(),
        Pick::Result(index) => format!(
            "[{index}] {}",
            baseline.names.get(index).map_or("?", String::as_str)
        ),
    };
    let mut choice = baseline.pick;
    egui::ComboBox::from_id_salt("pick")
        .selected_text(label(baseline.pick))
        .width(100.0)
        .height(400.0)
        .show_ui(ui, |ui| {
            ui.selectable_value(&mut choice, Pick::Matched, "matched")
                .on_hover_text(
                    "The result with the shown kernel's name and launch order \
                     (in the same report, the result added)",
                );
            for index in 0..baseline.names.len().min(PICKER_ROWS) {
                ui.selectable_value(&mut choice, Pick::Result(index), label(Pick::Result(index)));
            }
        })
        .response
        .on_hover_text("The result this baseline compares with: matched by kernel name and launch order, or picked by hand");
    (choice != baseline.pick).then_some(choice)
}
