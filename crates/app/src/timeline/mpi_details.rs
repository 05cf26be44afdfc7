//! An MPI call in the details panel and the hover tooltip: its rank, peer, tag, sizes and
//! communicator, and for a collective how many ranks took part, which arrived last (the
//! straggler) and how the call's time splits into waiting for it and the transfer.

use eframe::egui;

use super::view::format_duration;
use crate::widgets::pairs::pairs_grid;
use sightline_model::timeline::nsys::payload::flatten;
use sightline_model::timeline::{EventId, Timeline};

/// The fields shown as the straggler line rather than in the grid.
const TIMING_FIELDS: [&str; 3] = ["Straggler", "Wait (ns)", "Transfer (ns)"];

/// "Straggler: Rank 3, wait 1.2 ms, transfer 0.3 ms" for a call of a collective across ranks.
pub(super) fn straggler_line(timeline: &Timeline, event: EventId) -> Option<String> {
    let t = timeline.mpi_collective_timing(event)?;
    let who = t
        .straggler_rank
        .map_or_else(|| "unknown rank".to_owned(), |r| format!("Rank {r}"));
    let me = if t.straggler == event {
        " (this call)"
    } else {
        ""
    };
    Some(format!(
        "Straggler: {who}{me}, wait {}, transfer {}",
        format_duration(t.wait_ns as f64),
        format_duration(t.transfer_ns as f64)
    ))
}

/// The "MPI call" section of the details panel (nothing for another event).
pub(super) fn mpi_ui(ui: &mut egui::Ui, timeline: &Timeline, event: EventId, width: f32) {
    let fields = timeline.mpi_fields(event);
    if fields.is_empty() {
        return;
    }
    ui.add_space(6.0);
    ui.strong("MPI call");
    let rows: Vec<(String, String)> = flatten(&fields)
        .into_iter()
        .filter(|(k, _)| !TIMING_FIELDS.contains(&k.as_str()))
        .collect();
    pairs_grid(ui, "mpi-fields", width, &rows, |ui, k| {
        ui.label(k);
    });
    if let Some(line) = straggler_line(timeline, event) {
        ui.label(line);
    }
}

/// The call's fields on one line, and its straggler line, for the hover tooltip.
pub(super) fn tooltip_lines(timeline: &Timeline, event: EventId) -> Vec<String> {
    let fields = timeline.mpi_fields(event);
    if fields.is_empty() {
        return Vec::new();
    }
    let summary: Vec<String> = flatten(&fields)
        .into_iter()
        .filter(|(k, _)| !TIMING_FIELDS.contains(&k.as_str()) && k != "Request")
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    let mut lines = vec![summary.join(" · ")];
    lines.extend(straggler_line(timeline, event));
    lines
}
