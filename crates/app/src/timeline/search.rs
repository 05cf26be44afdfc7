//! Ctrl+F: search of event names and NVTX payload fields (case-insensitive substring), the
//! hits in time order, a current hit stepped with next/previous, and the names to highlight on
//! the canvas.

use eframe::egui;

use crate::widgets::filter::filter_field;

use sightline_model::timeline::{EventId, Timeline};

/// The search bar's state.
#[derive(Debug, Default)]
pub struct Search {
    /// The text typed.
    pub query: String,
    /// The query the hits were computed for.
    searched: String,
    /// Hits in time order.
    pub hits: Vec<EventId>,
    /// Index of the current hit in `hits`.
    pub current: Option<usize>,
    /// Per string id: whether the name matches (what the canvas outlines).
    pub names: Vec<bool>,
    /// Focus the text box on the next frame.
    pub focus: bool,
}

/// What the search bar asks the pane to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchRequest {
    /// Select and show this event.
    GoTo(EventId),
}

impl Search {
    /// Runs the search for `query` now (the text box does this as you type).
    pub fn set_query(&mut self, timeline: &Timeline, query: &str) {
        self.query = query.to_string();
        self.refresh(timeline);
    }

    /// Recomputes hits when the query changed.
    fn refresh(&mut self, timeline: &Timeline) {
        if self.query == self.searched {
            return;
        }
        self.searched = self.query.clone();
        self.current = None;
        let needle = self.query.trim().to_ascii_lowercase();
        if needle.is_empty() {
            self.hits.clear();
            self.names.clear();
            return;
        }
        self.names = timeline
            .strings
            .iter()
            .map(|(_, s)| s.to_ascii_lowercase().contains(&needle))
            .collect();
        let mut hits = timeline.search(self.query.trim());
        // NVTX payload fields match too (a communicator id, a message size, a rank).
        hits.extend(timeline.search_fields(self.query.trim()));
        hits.sort_unstable();
        hits.dedup();
        hits.sort_by_key(|&id| timeline.event(id).map_or(i64::MAX, |e| e.start));
        self.hits = hits;
    }

    /// Steps to the next (`forward`) or previous hit; returns it.
    pub fn step(&mut self, forward: bool) -> Option<EventId> {
        step_around(&self.hits, &mut self.current, forward)
    }

    /// Draws the search bar; returns where to go.
    pub fn ui(&mut self, ui: &mut egui::Ui, timeline: &Timeline) -> Option<SearchRequest> {
        let mut request = None;
        let edit = filter_field(ui, "Search:", &mut self.query, "event name (Ctrl+F)", 220.0);
        if std::mem::take(&mut self.focus) {
            edit.request_focus();
        }
        self.refresh(timeline);
        let entered = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        if entered {
            let back = ui.input(|i| i.modifiers.shift);
            request = self.step(!back).map(SearchRequest::GoTo);
            edit.request_focus();
        }
        let any = !self.hits.is_empty();
        if ui
            .add_enabled(any, egui::Button::new("Previous"))
            .on_hover_text("Previous match (Shift+Enter)")
            .clicked()
        {
            request = self.step(false).map(SearchRequest::GoTo);
        }
        if ui
            .add_enabled(any, egui::Button::new("Next"))
            .on_hover_text("Next match (Enter)")
            .clicked()
        {
            request = self.step(true).map(SearchRequest::GoTo);
        }
        if !self.query.trim().is_empty() {
            let text = match self.current {
                Some(i) => format!("{} of {} match(es)", i + 1, self.hits.len()),
                None => format!("{} match(es)", self.hits.len()),
            };
            ui.label(text);
        }
        request
    }
}

/// Steps `current` to the next (`forward`) or previous of `items`, round from the last to the
/// first and back (the first or the last when nothing is current yet); returns that item, or
/// `None` when there are none.
pub fn step_around<T: Copy>(items: &[T], current: &mut Option<usize>, forward: bool) -> Option<T> {
    let n = items.len();
    if n == 0 {
        return None;
    }
    let next = match (*current, forward) {
        (None, true) => 0,
        (None, false) => n - 1,
        (Some(i), true) => (i + 1) % n,
        (Some(i), false) => (i + n - 1) % n,
    };
    *current = Some(next);
    Some(items[next])
}
