//! The Details page's source metric tables ("Where Warps Stalled Most", "Most Executed
//! Instructions"...): each metric's top instructions, ranked as the section asks, each a link
//! that opens the Source page at that PC.

use super::*;
use crate::ncu::source_page::hotspots::top_pcs;
use sightline_model::section::details::HotSpots;

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
        let action = render.action;
        let rows = render.hot_spot_rows.entry(key).or_insert_with(|| {
            top_pcs(action, &entry.metric, spec.rows as usize, spec.ascending)
                .into_iter()
                .map(|(pc, v)| {
                    (
                        pc,
                        format_with_unit(&MetricValue::Double(v), &entry.unit, None),
                    )
                })
                .collect()
        });
        if rows.is_empty() {
            let (entry, view) = (std::slice::from_ref(entry), std::slice::from_ref(view));
            entries_grid(ui, entry, view, 1, false, render);
            instance_tables(ui, entry, view, render);
            continue;
        }
        let label = entry.label.strip_prefix("group:").unwrap_or(&entry.label);
        ui.weak(format!("{label} by instruction"))
            .on_hover_text(entry.metric.as_str());
        egui::Grid::new(("hot-spots", &entry.metric))
            .num_columns(2)
            .striped(true)
            .show(ui, |ui| {
                for (pc, value) in rows.iter() {
                    let response = ui
                        .link(RichText::new(format!("{pc:#x}")).monospace())
                        .on_hover_text("Open the Source page at this instruction");
                    if response.clicked() {
                        render.source_link = Some(*pc);
                    }
                    ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                        ui.label(value.as_str());
                    });
                    ui.end_row();
                }
            });
    }
}
