//! The Details page's source metric tables ("Where Warps Stalled Most", "Most Executed
//! Instructions"...): each metric's top instructions, ranked as the section asks by the model's
//! per-PC values (the Source page's column of the metric: stored, derived or `group:`), each
//! an address that opens the Source page at that PC and, when the kernel's binary has line
//! info, its source location (`file:line`) that opens the Source page at that line.

use super::*;
use sightline_model::ncu::Report;
use sightline_model::ncu::source::{FileLine, PcMetrics, SourceModule, top_pcs};
use sightline_model::section::HotSpots;

use crate::ncu::source_page::data::short_name;

/// Where a source metric table's link opens the Source page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceLink {
    /// An instruction (absolute PC): its source line beside it, or the instruction alone
    /// without line info.
    Instruction(u64),
    /// A CUDA-C line, in the Source view.
    Line(FileLine),
}

/// One instruction of a source metric table.
pub(super) struct HotSpotRow {
    pc: u64,
    /// `0x…`.
    address: String,
    /// The value with its unit.
    value: String,
    /// The source location and its text (`file:line`, the file's name only).
    location: Option<(FileLine, String)>,
}

/// What the source metric tables of one kernel read, made when the first one is drawn: the
/// per-PC metrics (with the derived ones of the embedded sections) and, once a table has
/// rows, the kernel's module for the rows' source locations.
#[derive(Default)]
pub(super) struct HotSpotSource {
    metrics: Option<PcMetrics>,
    /// `None` until needed; `Some(None)` when the kernel has no module (not a kernel).
    module: Option<Option<SourceModule>>,
}

impl HotSpotSource {
    /// The ranked rows of one table.
    fn rows(
        &mut self,
        report: &Report,
        action: &Action,
        metric: &str,
        unit: &str,
        spec: HotSpots,
    ) -> Vec<HotSpotRow> {
        let metrics = self.metrics.get_or_insert_with(|| PcMetrics::of(action));
        let top = top_pcs(metrics, action, metric, spec.rows as usize, spec.ascending);
        if top.is_empty() {
            return Vec::new();
        }
        let module = self
            .module
            .get_or_insert_with(|| SourceModule::for_action(report, action).ok())
            .as_ref();
        top.into_iter()
            .map(|(pc, v)| HotSpotRow {
                pc,
                address: format!("{pc:#x}"),
                value: format_with_unit(&MetricValue::Double(v), unit, None),
                location: module.and_then(|m| m.source_info(pc)).map(|location| {
                    let text = format!("{}:{}", short_name(&location.file), location.line);
                    (location, text)
                }),
            })
            .collect()
    }
}

/// The instructions of a source metric table, ranked, each a link into the Source page; an
/// entry without per-instruction values shows its value as in any table.
pub(super) fn hot_spot_list(
    ui: &mut Ui,
    entries: &[Entry],
    views: &[EntryView],
    spec: HotSpots,
    render: &mut Render<'_>,
) {
    for (entry, view) in entries.iter().zip(views) {
        let key = (entry.metric.clone(), spec.rows, spec.ascending);
        let (report, action) = (render.report, render.action);
        let source = &mut *render.hot_spot_source;
        let rows = render
            .hot_spot_rows
            .entry(key)
            .or_insert_with(|| source.rows(report, action, &entry.metric, &entry.unit, spec));
        if rows.is_empty() {
            let (entry, view) = (std::slice::from_ref(entry), std::slice::from_ref(view));
            entries_grid(ui, entry, view, 1, false, render);
            instance_tables(ui, entry, view, render);
            continue;
        }
        let label = entry.label.strip_prefix("group:").unwrap_or(&entry.label);
        ui.weak(format!("{label} by instruction"))
            .on_hover_text(entry.metric.as_str());
        let with_lines = rows.iter().any(|r| r.location.is_some());
        let mut clicked = None;
        egui::Grid::new(("hot-spots", &entry.metric))
            .num_columns(if with_lines { 3 } else { 2 })
            .striped(true)
            .show(ui, |ui| {
                for row in rows.iter() {
                    let response = ui
                        .link(RichText::new(row.address.as_str()).monospace())
                        .on_hover_text("Open the Source page at this instruction");
                    if response.clicked() {
                        clicked = Some(SourceLink::Instruction(row.pc));
                    }
                    if with_lines {
                        match &row.location {
                            Some((location, text)) => {
                                let response = ui
                                    .link(RichText::new(text.as_str()).monospace())
                                    .on_hover_text(format!(
                                        "{}:{}\nOpen the Source page at this line",
                                        location.file, location.line
                                    ));
                                if response.clicked() {
                                    clicked = Some(SourceLink::Line(location.clone()));
                                }
                            }
                            None => {
                                ui.label("");
                            }
                        }
                    }
                    ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                        ui.label(row.value.as_str());
                    });
                    ui.end_row();
                }
            });
        if clicked.is_some() {
            render.source_link = clicked;
        }
    }
}
