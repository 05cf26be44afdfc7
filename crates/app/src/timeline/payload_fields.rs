//! An NVTX event's binary payload, decoded with its export's schemas: the fields in the
//! details panel (nested fields as `outer.inner`) and the first few in the hover tooltip; a
//! payload that does not decode shows its bytes and why. GPU work launched in an NVTX range
//! with a payload (an NCCL kernel in its collective's range) shows that range's fields, with a
//! link selecting the range. The fields an event's source row keeps beyond what the timeline
//! draws (a CUDA graph node's ids, a page fault's address and access type, a migration's
//! cause: `Timeline::row_fields`) are shown the same way.

use eframe::egui;

use crate::widgets::pairs::pairs_grid;
use sightline_model::timeline::nsys::payload::flatten;
use sightline_model::timeline::{EventId, Timeline};

/// Fields shown in a tooltip (the details panel lists them all).
const TOOLTIP_FIELDS: usize = 8;

/// The "Payload fields" section of the details panel (nothing for an event without a binary
/// payload).
pub(super) fn payload_ui(ui: &mut egui::Ui, timeline: &Timeline, event: EventId, width: f32) {
    let Some(decoded) = timeline.payload_fields(event) else {
        return;
    };
    ui.add_space(6.0);
    ui.strong(format!("Payload fields ({})", decoded.schema));
    let rows = flatten(&decoded.fields);
    pairs_grid(ui, "payload-fields", width, &rows, |ui, k| {
        ui.label(k);
    });
    if let Some(problem) = &decoded.problem {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            format!("⚠ Not decoded: {problem}"),
        );
    }
}

/// The "Launched in" section of GPU work launched in an NVTX range with a payload
/// (`range`: [`Timeline::launch_range`]): the range's label as a link, and its fields. Returns
/// the range when the link is clicked (to select it).
pub(super) fn launch_range_ui(
    ui: &mut egui::Ui,
    timeline: &Timeline,
    range: Option<EventId>,
    width: f32,
) -> Option<EventId> {
    let range = range?;
    ui.add_space(6.0);
    let mut go = None;
    ui.horizontal(|ui| {
        ui.strong("Launched in");
        let link = ui.link(timeline.launch_range_label(range));
        if link.on_hover_text("Select the NVTX range").clicked() {
            go = Some(range);
        }
    });
    if let Some(decoded) = timeline.payload_fields(range) {
        let rows = flatten(&decoded.fields);
        pairs_grid(ui, "launch-range-fields", width, &rows, |ui, k| {
            ui.label(k);
        });
    }
    go
}

/// The "Fields" section of the details panel: the fields of the event's source row (nothing
/// for an event whose table keeps none).
pub(super) fn row_fields_ui(ui: &mut egui::Ui, timeline: &Timeline, event: EventId, width: f32) {
    let fields = timeline.row_fields(event);
    if fields.is_empty() {
        return;
    }
    ui.add_space(6.0);
    ui.strong("Fields");
    pairs_grid(ui, "row-fields", width, &flatten(&fields), |ui, k| {
        ui.label(k);
    });
}

/// The hover tooltip's field lines: the fields of the event's source row, then the first
/// fields of its payload (for GPU work launched in a range with a payload, that range's label
/// and fields), one line each.
pub(super) fn tooltip_lines(timeline: &Timeline, event: EventId) -> Vec<String> {
    let mut lines: Vec<String> = flatten(&timeline.row_fields(event))
        .iter()
        .map(|(k, v)| format!("{k}: {v}"))
        .collect();
    let launched_in = timeline.launch_range(event);
    let Some(decoded) = timeline.payload_fields(launched_in.unwrap_or(event)) else {
        return lines;
    };
    let rows = flatten(&decoded.fields);
    lines.extend(launched_in.map(|r| format!("Launched in {}", timeline.launch_range_label(r))));
    lines.extend(
        rows.iter()
            .take(TOOLTIP_FIELDS)
            .map(|(k, v)| format!("{k}: {v}")),
    );
    if rows.len() > TOOLTIP_FIELDS {
        lines.push(format!(
            "… {} more fields in the details",
            rows.len() - TOOLTIP_FIELDS
        ));
    }
    if decoded.problem.is_some() {
        lines.push("⚠ payload not decoded".into());
    }
    lines
}
