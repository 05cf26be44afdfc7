//! The export's diagnostics (`DIAGNOSTIC_EVENT`: what Nsight Systems noted while it profiled —
//! dropped buffers, unsupported features, failed symbol resolution) as a list with their times
//! and processes: a tab of the summary panel; a click selects the event on the timeline and
//! brings it into view.

use eframe::egui;
use egui_extras::Column;
use sightline_model::timeline::{EventId, Timeline};

use super::view::format_duration;
use crate::widgets::table::{Header, SortableTable, Table, cell_text};

/// The table the diagnostics come from.
const TABLE: &str = "DIAGNOSTIC_EVENT";

/// One diagnostic: its event, time, message and where it is drawn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The event on the timeline.
    pub event: EventId,
    /// Its time (ns from the session start).
    pub start: i64,
    /// The message.
    pub text: String,
    /// The track it is drawn on ("Machine 0/Process 123/Diagnostics").
    pub track: String,
}

/// Every diagnostic of `timeline`, by time (then as the export lists them).
pub fn diagnostics(timeline: &Timeline) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (&track, table) in &timeline.session.series_sources {
        if table != TABLE {
            continue;
        }
        let Some(t) = timeline.track(track) else {
            continue;
        };
        let path = timeline.track_path(track);
        for row in &t.rows {
            for i in row.clone() {
                if let Some(e) = timeline.event(EventId(i)) {
                    out.push(Diagnostic {
                        event: e.id,
                        start: e.start,
                        text: timeline.name(e.name).to_owned(),
                        track: path.clone(),
                    });
                }
            }
        }
    }
    out.sort_by_key(|d| (d.start, d.event));
    out
}

/// The Diagnostics tab's state: the list, built once per timeline, and its sort.
#[derive(Debug, Default)]
pub struct DiagnosticsList {
    /// The timeline the list was built from (its address and event count) and the list.
    built: Option<((usize, usize), Vec<Diagnostic>)>,
    table: SortableTable,
}

impl DiagnosticsList {
    /// The diagnostics of `timeline` (built on first use).
    pub fn of(&mut self, timeline: &Timeline) -> &[Diagnostic] {
        let key = (
            std::ptr::from_ref(timeline) as usize,
            timeline.event_count(),
        );
        if self.built.as_ref().is_none_or(|(k, _)| *k != key) {
            self.built = Some((key, diagnostics(timeline)));
            self.table = SortableTable::default();
        }
        self.built.as_ref().map_or(&[], |(_, list)| list.as_slice())
    }

    /// Draws the list; returns the event of a clicked row.
    pub fn ui(&mut self, ui: &mut egui::Ui, timeline: &Timeline) -> Option<EventId> {
        self.of(timeline);
        let Some((_, list)) = &self.built else {
            return None;
        };
        if list.is_empty() {
            ui.weak("The export has no diagnostics.");
            return None;
        }
        let headers = vec![
            Header::new("Time", Column::auto().at_least(90.0)),
            Header::new("Message", Column::remainder().at_least(240.0).clip(true)),
            Header::new("Process / row", Column::auto().at_least(160.0)),
        ];
        let compare = |c: usize, a: usize, b: usize| {
            let (x, y) = (&list[a], &list[b]);
            match c {
                0 => x.start.cmp(&y.start),
                1 => x.text.cmp(&y.text),
                _ => x.track.cmp(&y.track),
            }
        };
        let clicked = Table::new("diagnostics-table", headers, "time")
            .header_height(20.0)
            .max_height(ui.available_height())
            .show(
                ui,
                &mut self.table,
                list.len(),
                &compare,
                &mut |ui, r, c| {
                    let d = &list[r];
                    let text = match c {
                        0 => format_duration(d.start as f64),
                        1 => d.text.clone(),
                        _ => d.track.clone(),
                    };
                    cell_text(ui, &text);
                },
            );
        clicked.map(|r| list[r].event)
    }
}
