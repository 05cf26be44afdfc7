//! The timeline's keys (the conventions of Perfetto, Tracy and chrome://tracing): W/S zoom at
//! the pointer, A/D pan, F fits the selection, 0 shows everything, Esc clears, Ctrl+F searches,
//! `?` lists them.

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
