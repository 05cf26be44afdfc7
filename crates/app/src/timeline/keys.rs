//! The timeline's keys (the conventions of Perfetto, Tracy and chrome://tracing): W/S zoom at
//! the pointer, A/D pan, F fits the selection, 0 shows everything, Esc clears, Ctrl+F searches,
//! E toggles the Events view, `?` lists them.

use eframe::egui::{self, Key, Modifiers};

/// The keys and what they do, for the `?` overlay and the F1 list.
pub const TIMELINE_KEYS: &[(&str, &str)] = &[
    ("W / S", "Zoom in / out at the pointer"),
    ("A / D", "Pan left / right"),
    ("Ctrl+wheel", "Zoom at the pointer"),
    ("Wheel", "Scroll the tracks (Shift+wheel: pan)"),
    ("Drag", "Pan"),
    ("Shift+drag", "Select a time range"),
    ("F", "Zoom to the selection (range or event)"),
    ("0", "Show the whole timeline"),
    ("Click", "Select an event (a merged bar: zoom into it)"),
    ("Esc", "Clear the selection"),
    (
        "Ctrl+F",
        "Search event names (Enter: next, Shift+Enter: previous)",
    ),
    ("E", "Events view: the selected event's track as a table"),
    ("?", "Show these keys"),
];

/// Zoom factor of one W/S press.
pub const ZOOM_STEP: f64 = 1.25;
/// Fraction of the view one A/D press pans.
pub const PAN_STEP: f32 = 0.1;

/// The keys pressed this frame that the timeline acts on.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct KeyActions {
    /// Net zoom steps (W +1, S −1).
    pub zoom_steps: i32,
    /// Net pan steps (D +1, A −1).
    pub pan_steps: i32,
    /// F: zoom to the selection.
    pub fit_selection: bool,
    /// 0: show everything.
    pub fit_all: bool,
    /// Esc: clear the selection.
    pub clear: bool,
    /// Ctrl+F: focus the search box.
    pub find: bool,
    /// `?`: toggle the key list.
    pub help: bool,
    /// E: toggle the Events view.
    pub events: bool,
}

/// Reads (and consumes) the timeline's keys. Letter keys are ignored while a text box has the
/// keyboard (typing a search must not zoom).
pub fn read_keys(ctx: &egui::Context) -> KeyActions {
    let typing = ctx.egui_wants_keyboard_input();
    ctx.input_mut(|i| {
        let mut k = KeyActions {
            find: i.consume_key(Modifiers::COMMAND, Key::F),
            ..KeyActions::default()
        };
        if typing {
            return k;
        }
        let count = |i: &egui::InputState, key: Key| {
            i.events
                .iter()
                .filter(|e| {
                    matches!(e, egui::Event::Key { key: k, pressed: true, modifiers, .. }
                        if *k == key && !modifiers.command && !modifiers.alt)
                })
                .count() as i32
        };
        k.zoom_steps = count(i, Key::W) - count(i, Key::S);
        k.pan_steps = count(i, Key::D) - count(i, Key::A);
        k.fit_selection = i.consume_key(Modifiers::NONE, Key::F);
        k.fit_all = i.consume_key(Modifiers::NONE, Key::Num0);
        k.clear = i.consume_key(Modifiers::NONE, Key::Escape);
        k.events = i.consume_key(Modifiers::NONE, Key::E);
        k.help = i.consume_key(Modifiers::SHIFT, Key::Questionmark)
            || i.consume_key(Modifiers::NONE, Key::Questionmark)
            || i.events
                .iter()
                .any(|e| matches!(e, egui::Event::Text(t) if t == "?"));
        k
    })
}

/// The key list window.
pub fn keys_window(ctx: &egui::Context, open: &mut bool) {
    egui::Window::new("Timeline keys")
        .open(open)
        .collapsible(false)
        .resizable(false)
        .show(ctx, |ui| {
            egui::Grid::new("timeline-keys")
                .num_columns(2)
                .show(ui, |ui| {
                    for (keys, what) in TIMELINE_KEYS {
                        ui.monospace(*keys);
                        ui.label(*what);
                        ui.end_row();
                    }
                });
        });
}

impl super::TimelineDoc {
    /// Applies the timeline's keys.
    pub fn apply_keys(&mut self, k: KeyActions, pointer_x: Option<f32>) {
        let Some(timeline) = self.timeline().cloned() else {
            return;
        };
        let view = &mut self.canvas.viewport;
        if k.zoom_steps != 0 {
            let anchor = pointer_x.unwrap_or(view.width / 2.0);
            view.zoom_at(ZOOM_STEP.powi(k.zoom_steps), anchor);
        }
        if k.pan_steps != 0 {
            view.pan_px(k.pan_steps as f32 * PAN_STEP * view.width);
        }
        if k.fit_all {
            self.canvas.fit_all(&timeline);
        }
        if k.fit_selection {
            let event = self.selection.event.and_then(|e| timeline.event(e));
            match (self.selection.range, event) {
                (Some((t0, t1)), _) => self.canvas.viewport.fit(t0 as f64, t1 as f64),
                (None, Some(e)) => self.canvas.viewport.fit(e.start as f64, e.end as f64),
                (None, None) => self.canvas.fit_all(&timeline),
            }
        }
        if k.clear {
            self.selection.select(&timeline, None);
            self.selection.set_range(&timeline, None);
        }
        if k.find {
            self.search.focus = true;
        }
        if k.help {
            self.show_keys = !self.show_keys;
        }
        if k.events {
            self.events.toggle(&timeline, &self.selection);
        }
    }
}
