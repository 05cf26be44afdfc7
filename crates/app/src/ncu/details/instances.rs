//! Instanced entries on the Details page: the toggle beside a value that shows its instances,
//! and the expanded tables of `(correlation id, value)` rows (formatted when first expanded).

use super::*;

pub(super) fn instance_toggle(
    ui: &mut Ui,
    entry: &Entry,
    view: &InstanceView,
    render: &mut Render<'_>,
) {
    let open = render.open_instances.contains(&view.key);
    let text = if open {
        &view.open_text
    } else {
        &view.closed_text
    };
    let arrow = if open { "▾" } else { "▸" };
    // The arrows are in the monospace font (Hack); the default proportional font lacks them.
    let response = ui.small_button((RichText::new(arrow).monospace(), text.as_str()));
    response.widget_info(|| {
        let verb = if open { "Hide" } else { "Show" };
        WidgetInfo::labeled(
            Role::Button,
            true,
            format!("{verb} {} instances of {}", view.count, entry.label),
        )
    });
    if response.clicked() {
        if open {
            render.open_instances.remove(&view.key);
        } else {
            render.open_instances.insert(view.key);
        }
    }
    response.on_hover_text("Values per instance (correlation id | value)");
}

/// The expanded instance tables of `entries`, one below the other.
pub(super) fn instance_tables(
    ui: &mut Ui,
    entries: &[Entry],
    views: &[EntryView],
    render: &mut Render<'_>,
) {
    for (entry, view) in entries.iter().zip(views) {
        let Some(instances) = &view.instances else {
            continue;
        };
        if !render.open_instances.contains(&instances.key) {
            continue;
        }
        let rows = render
            .instance_rows
            .entry(instances.key)
            .or_insert_with(|| instance_rows(entry));
        ui.add_space(2.0);
        ui.label(RichText::new(&instances.title).strong());
        ui.push_id(instances.key, |ui| {
            TableBuilder::new(ui)
                .id_salt("instances")
                .striped(true)
                .resizable(false)
                .vscroll(true)
                .max_scroll_height(220.0)
                .auto_shrink([true, true])
                .cell_layout(Layout::left_to_right(Align::Center))
                .column(Column::auto().at_least(120.0))
                .column(Column::auto().at_least(140.0))
                .header(20.0, |mut header| {
                    header.col(|ui| {
                        ui.strong("Correlation ID");
                    });
                    header.col(|ui| {
                        ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                            ui.strong("Value");
                        });
                    });
                })
                .body(|body| {
                    body.rows(18.0, rows.len(), |mut row| {
                        let Some((id, value)) = rows.get(row.index()) else {
                            return;
                        };
                        row.col(|ui| {
                            ui.label(id.as_str());
                        });
                        row.col(|ui| {
                            ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                                ui.label(value.as_str());
                            });
                        });
                    });
                });
        });
        ui.add_space(4.0);
    }
}

/// The `(correlation id, value)` texts of an entry's instances.
fn instance_rows(entry: &Entry) -> Vec<(String, String)> {
    entry
        .instances
        .iter()
        .flatten()
        .enumerate()
        .map(|(index, (id, value))| {
            let id = match id {
                Some(MetricValue::Uint32(v)) => correlation_text(u64::from(*v)),
                Some(MetricValue::Uint64(v)) => correlation_text(*v),
                Some(MetricValue::String(s)) => s.clone(),
                Some(v @ (MetricValue::Float(_) | MetricValue::Double(_))) => {
                    format_with_unit(v, "", None)
                }
                Some(MetricValue::None) | None => format!("#{index}"),
            };
            (id, format_with_unit(value, &entry.unit, None))
        })
        .collect()
}

/// A correlation id: decimal when small, hexadecimal (an address or a handle) when large.
fn correlation_text(id: u64) -> String {
    if id > 0xFFFF {
        format!("{id:#x}")
    } else {
        id.to_string()
    }
}
