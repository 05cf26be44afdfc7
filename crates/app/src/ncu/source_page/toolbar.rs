//! The Source page's toolbar: the views (one, or two side by side), the column of the heatmap,
//! % of the launch or absolute values, previous/next hot spot, and find.

use eframe::egui::{self, Ui};

use super::SourcePageState;
use super::data::{PageData, View};

/// What the user asked for on the toolbar or in the selector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Show a view in a pane.
    View(usize, View),
    /// The heatmap's column.
    Column(usize),
    /// The next (`true`) or previous hot spot of the active view.
    HotSpot(bool),
    /// The next (`true`) or previous search match.
    Find(bool),
    /// Show a source file.
    File(usize),
    /// Go to a function's first instruction (its SASS row).
    Function(usize),
}

/// Draws the toolbar; returns what was asked (the last thing asked when several were).
pub fn toolbar(ui: &mut Ui, state: &mut SourcePageState, page: &PageData) -> Option<Action> {
    let mut action = None;
    ui.horizontal_wrapped(|ui| {
        let views = views_group(ui, state);
        ui.separator();
        let column = column_group(ui, state, page);
        ui.separator();
        let find = find_group(ui, state);
        action = find.or(column).or(views);
    });
    action
}

/// The views: the first pane's, Side by side, and the second pane's (named apart for the
/// accessibility tree).
fn views_group(ui: &mut Ui, state: &mut SourcePageState) -> Option<Action> {
    let mut action = None;
    ui.label("View:");
    let first = state.view(0).unwrap_or(View::Source);
    for view in View::ALL {
        if ui.selectable_label(first == view, view.name()).clicked() && first != view {
            action = Some(Action::View(0, view));
        }
    }
    ui.separator();
    if ui
        .checkbox(&mut state.side_by_side, "Side by side")
        .on_hover_text("Two views: a row selected in one highlights its rows in the other")
        .changed()
    {
        // Two views share the width: the heatmap's column alone, until asked otherwise.
        state.compact = state.side_by_side;
    }
    if state.side_by_side {
        let second = state.view(1).unwrap_or(View::Sass);
        ui.label("with");
        for view in View::ALL.into_iter().filter(|v| *v != first) {
            let response = ui.selectable_label(second == view, view.name());
            // Two buttons of one name on the toolbar: the second pane's are named apart.
            response.widget_info(|| {
                egui::WidgetInfo::selected(
                    egui::Role::Button,
                    true,
                    second == view,
                    format!("Beside: {}", view.name()),
                )
            });
            if response.clicked() && second != view {
                action = Some(Action::View(1, view));
            }
        }
    }
    action
}

/// The heatmap's column, Selected column only, % of launch or Absolute, and the hot spots
/// (nothing without numeric columns).
fn column_group(ui: &mut Ui, state: &mut SourcePageState, page: &PageData) -> Option<Action> {
    let mut action = None;
    let numeric: Vec<(usize, &str)> = page
        .columns
        .iter()
        .enumerate()
        .filter(|(_, c)| c.numeric)
        .map(|(i, c)| (i, c.label.as_str()))
        .collect();
    if !numeric.is_empty() {
        let current = state
            .column()
            .and_then(|c| page.columns.get(c))
            .map_or("(none)", |c| c.label.as_str());
        egui::ComboBox::from_id_salt("source-heat-column")
            .selected_text(current)
            .width(200.0)
            .show_ui(ui, |ui| {
                for (i, label) in &numeric {
                    if ui
                        .selectable_label(state.column() == Some(*i), *label)
                        .clicked()
                    {
                        action = Some(Action::Column(*i));
                    }
                }
            })
            .response
            .on_hover_text("The column of the heatmap and the hot spots");
        ui.checkbox(&mut state.compact, "Selected column only")
            .on_hover_text("Show only the heatmap's column (else every column with values)");
        ui.selectable_value(&mut state.percent, true, "% of launch");
        ui.selectable_value(&mut state.percent, false, "Absolute");
        let view = state.active_view().name();
        if ui
            .button("Previous hot spot")
            .on_hover_text(format!("The next hotter row of the {view} view"))
            .clicked()
        {
            action = Some(Action::HotSpot(false));
        }
        if ui
            .button("Next hot spot")
            .on_hover_text(format!(
                "The hottest row of the {view} view, then the next cooler one"
            ))
            .clicked()
        {
            action = Some(Action::HotSpot(true));
        }
    }
    action
}

/// Find: the text (Enter finds the next match and keeps the focus), Find next, and the
/// match count.
fn find_group(ui: &mut Ui, state: &mut SourcePageState) -> Option<Action> {
    let mut action = None;
    let response = ui.add(
        egui::TextEdit::singleline(&mut state.find)
            .hint_text("Find in source")
            .desired_width(160.0),
    );
    let entered = response.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
    if response.changed() || entered {
        action = Some(Action::Find(true));
        if entered {
            response.request_focus();
        }
    }
    if ui.button("Find next").clicked() {
        action = Some(Action::Find(true));
    }
    if !state.find.trim().is_empty() {
        let (count, at) = state.match_count();
        let text = match at {
            Some(i) => format!("{} of {count}", i + 1),
            None => format!("{count} found"),
        };
        ui.weak(text);
    }
    action
}
