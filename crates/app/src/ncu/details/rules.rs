//! Rule results on the Details page: the per-rule lines with their state and Apply button, the
//! messages with their icons, focus metrics and tables, prepared once per page (`RuleView`,
//! `MessageData`, `TableView`).

use super::*;

/// One line per rule: its name, its state on this kernel and an Apply button; a failed rule's
/// error below it.
pub(super) fn rule_rows_ui(ui: &mut Ui, lines: &[RuleLine], render: &mut Render<'_>) {
    if lines.is_empty() {
        return;
    }
    ui.add_space(2.0);
    for RuleLine { row, ambiguous } in lines {
        ui.horizontal(|ui| {
            ui.weak("Rule:");
            ui.label(&row.name).on_hover_text(&row.identifier);
            if *ambiguous {
                ui.weak(format!("({})", row.identifier));
            }
            let visuals = ui.visuals();
            let (color, hover) = match &row.status {
                RuleStatus::Stored => (
                    visuals.weak_text_color(),
                    "Results stored in the report by the profiler".to_owned(),
                ),
                RuleStatus::NotApplied => (
                    visuals.weak_text_color(),
                    "No results: the rule was not applied to this kernel".to_owned(),
                ),
                RuleStatus::Running => (visuals.text_color(), "Being applied now".to_owned()),
                RuleStatus::Applied => (
                    Color32::from_rgb(0x4c, 0xaf, 0x50),
                    "Applied in this session; its results replace the stored ones".to_owned(),
                ),
                RuleStatus::Failed(error) => (visuals.error_fg_color, error.clone()),
            };
            ui.label(RichText::new(row.status.label()).color(color))
                .on_hover_text(hover);
            if row.can_apply {
                let button = ui
                    .add_enabled(
                        row.status != RuleStatus::Running,
                        egui::Button::new(format!("Apply {}", row.name)).small(),
                    )
                    .on_hover_text(format!("Apply rule {} to this kernel", row.identifier));
                if button.clicked() {
                    render
                        .requests
                        .push(RuleRequest::Apply(row.identifier.clone()));
                }
            }
        });
        if let RuleStatus::Failed(error) = &row.status {
            egui::Frame::new()
                .inner_margin(egui::Margin::symmetric(8, 4))
                .show(ui, |ui| {
                    ui.add(
                        egui::Label::new(
                            RichText::new(error)
                                .monospace()
                                .color(ui.visuals().error_fg_color),
                        )
                        .wrap(),
                    );
                });
        }
    }
}

pub(super) fn rule_ui(ui: &mut Ui, rule: &RuleView, render: &mut Render<'_>) {
    let visuals = ui.visuals();
    let color = match rule.msg_type {
        MsgType::Ok => Color32::from_rgb(0x4c, 0xaf, 0x50),
        MsgType::Optimization => visuals.hyperlink_color,
        MsgType::Warning => visuals.warn_fg_color,
        MsgType::Error => visuals.error_fg_color,
        MsgType::None => visuals.weak_text_color(),
    };
    let fill = visuals.faint_bg_color;
    ui.add_space(4.0);
    egui::Frame::new()
        .fill(fill)
        .stroke(Stroke::new(1.0, color.gamma_multiply(0.6)))
        .corner_radius(4.0)
        .inner_margin(8.0)
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            ui.horizontal(|ui| {
                rule_icon(ui, rule.msg_type, color, rule.kind_name);
                ui.label(RichText::new(&rule.name).strong());
                if !rule.title.is_empty() {
                    ui.label(RichText::new(&rule.title).strong().color(color));
                }
                if let Some(speedup) = &rule.speedup {
                    ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                        ui.label(RichText::new(speedup).strong())
                            .on_hover_text(rule.speedup_hint);
                    });
                }
            });
            ui.horizontal_wrapped(|ui| {
                ui.spacing_mut().item_spacing.x = 0.0;
                for span in &rule.spans {
                    span_ui(ui, span, render);
                }
            });
            if !rule.focus.is_empty() {
                egui::CollapsingHeader::new(rule.focus_title.as_str())
                    .id_salt(("focus-metrics", rule.key))
                    .default_open(false)
                    .show(ui, |ui| {
                        egui::Grid::new("focus")
                            .num_columns(3)
                            .striped(true)
                            .show(ui, |ui| {
                                for row in &rule.focus {
                                    ui.monospace(row.name.as_str());
                                    ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                                        ui.label(row.value.as_str());
                                    });
                                    ui.label(row.info.as_str());
                                    ui.end_row();
                                }
                            });
                    });
            }
            for (index, table) in rule.tables.iter().enumerate() {
                rule_table_ui(ui, table, (rule.key, index));
            }
            for (index, (item, view)) in rule.charts.iter().enumerate() {
                ui.push_id(("rule-chart", rule.key, index), |ui| {
                    item_ui(ui, NOT_COMPARED, item, view, render)
                });
            }
        });
}

/// A table a rule attached to its message: rows in the rule's sort order, its styles, header
/// tooltips and relative column widths; numeric columns right-aligned.
pub(super) fn rule_table_ui(ui: &mut Ui, table: &TableView, salt: (u64, usize)) {
    if let Some(title) = &table.title {
        ui.label(RichText::new(title).strong());
    }
    if let Some(description) = &table.description {
        ui.weak(description);
    }
    let width = ui.available_width();
    let align = |numeric: bool| {
        if numeric {
            Layout::right_to_left(Align::Center)
        } else {
            Layout::left_to_right(Align::Center)
        }
    };
    ui.push_id(("rule-table", salt), |ui| {
        let mut builder = TableBuilder::new(ui)
            .id_salt("rule-table")
            .striped(true)
            .resizable(false)
            .vscroll(true)
            .max_scroll_height(320.0)
            .auto_shrink([true, true]);
        for config in &table.columns {
            builder = builder.column(match config.relative_width {
                Some(share) => Column::exact((width * share as f32 - 8.0).max(40.0)),
                None => Column::auto().at_least(60.0),
            });
        }
        builder
            .header(20.0, |mut header| {
                for (column, label) in table.header.iter().enumerate() {
                    let config = &table.columns[column];
                    header.col(|ui| {
                        ui.with_layout(align(table.numeric[column]), |ui| {
                            let text = styled(RichText::new(label).strong(), config.header_style);
                            let response = ui.label(text);
                            if let Some(tooltip) = &config.tooltip {
                                response.on_hover_text(tooltip);
                            }
                        });
                    });
                }
            })
            .body(|body| {
                body.rows(18.0, table.rows.len(), |mut row| {
                    let Some(cells) = table.rows.get(row.index()) else {
                        return;
                    };
                    for (column, cell) in cells.iter().enumerate() {
                        let style = table.columns.get(column).and_then(|c| c.data_style);
                        let numeric = table.numeric.get(column).copied().unwrap_or(false);
                        row.col(|ui| {
                            ui.with_layout(align(numeric), |ui| {
                                ui.label(styled(RichText::new(cell), style.or(table.style)));
                            });
                        });
                    }
                });
            });
    });
}

/// `text` in bold and/or italic as `style` asks.
pub(super) fn styled(text: RichText, style: Option<CellStyle>) -> RichText {
    let Some(style) = style else {
        return text;
    };
    let text = if style.bold { text.strong() } else { text };
    if style.italic { text.italics() } else { text }
}

/// The message type's icon, painted (the default fonts have no emoji): a check mark (ok), a
/// lightning bolt (optimization), a warning triangle, a cross (error), a dot (none).
pub(super) fn rule_icon(ui: &mut Ui, msg_type: MsgType, color: Color32, kind_name: &'static str) {
    let size = ui.text_style_height(&egui::TextStyle::Body).max(14.0);
    let (rect, response) = ui.allocate_exact_size(egui::vec2(size, size), Sense::hover());
    response.widget_info(|| WidgetInfo::labeled(Role::Image, true, kind_name));
    if ui.is_rect_visible(rect) {
        let painter = ui.painter();
        let c = rect.center();
        let r = size * 0.45;
        let at = |x: f32, y: f32| egui::pos2(c.x + x * r, c.y + y * r);
        let stroke = Stroke::new(1.6, color);
        match msg_type {
            MsgType::Ok => {
                painter.circle_stroke(c, r, stroke);
                painter.add(egui::Shape::line(
                    vec![at(-0.45, 0.0), at(-0.1, 0.38), at(0.48, -0.36)],
                    stroke,
                ));
            }
            MsgType::Optimization => {
                painter.circle_stroke(c, r, stroke);
                painter.add(egui::Shape::line(
                    vec![
                        at(0.18, -0.72),
                        at(-0.3, 0.08),
                        at(0.14, 0.08),
                        at(-0.14, 0.72),
                    ],
                    stroke,
                ));
            }
            MsgType::Warning => {
                painter.add(egui::Shape::convex_polygon(
                    vec![at(0.0, -1.0), at(1.0, 0.85), at(-1.0, 0.85)],
                    Color32::TRANSPARENT,
                    stroke,
                ));
                painter.line_segment([at(0.0, -0.4), at(0.0, 0.3)], stroke);
                painter.circle_filled(at(0.0, 0.58), 1.1, color);
            }
            MsgType::Error => {
                painter.circle_stroke(c, r, stroke);
                painter.line_segment([at(-0.42, -0.42), at(0.42, 0.42)], stroke);
                painter.line_segment([at(-0.42, 0.42), at(0.42, -0.42)], stroke);
            }
            MsgType::None => {
                painter.circle_filled(c, r * 0.4, color);
            }
        }
    }
    response.on_hover_text(kind_name);
}

pub(super) struct FocusRow {
    pub(super) name: String,
    pub(super) value: String,
    pub(super) info: String,
}

/// A rule's line on the page: its row and whether its name needs the identifier beside it.
pub(super) struct RuleLine {
    pub(super) row: RuleRow,
    pub(super) ambiguous: bool,
}

/// A rule message to show, stored in the report or applied in this session.
pub(super) struct MessageData {
    pub(super) rule_identifier: String,
    pub(super) name: String,
    pub(super) section_identifier: Option<String>,
    pub(super) message: RuleMessage,
    /// Charts the rule loaded, resolved against the kernel.
    pub(super) charts: Vec<Item>,
}

impl MessageData {
    pub(super) fn stored(stored: StoredMessage<'_>) -> MessageData {
        MessageData {
            rule_identifier: stored.rule.identifier.to_owned(),
            name: stored.rule.name.to_owned(),
            section_identifier: stored.rule.section_identifier.map(str::to_owned),
            message: stored.message,
            charts: Vec::new(),
        }
    }

    /// An entry for a rule that loaded charts but wrote no message.
    pub(super) fn chart_holder(result: &sightline_rules::RuleResult) -> MessageData {
        MessageData {
            rule_identifier: result.identifier.clone(),
            name: result.name.clone(),
            section_identifier: result.section_identifier.clone(),
            message: RuleMessage {
                title: String::new(),
                message: String::new(),
                msg_type: MsgType::None,
                speedup: None,
                focus_metrics: Vec::new(),
                tables: Vec::new(),
            },
            charts: Vec::new(),
        }
    }

    pub(super) fn applied(
        result: &sightline_rules::RuleResult,
    ) -> impl Iterator<Item = MessageData> + '_ {
        result.messages.iter().map(move |message| MessageData {
            rule_identifier: result.identifier.clone(),
            name: result.name.clone(),
            section_identifier: result.section_identifier.clone(),
            message: message.clone(),
            charts: Vec::new(),
        })
    }
}

/// A rule table with its cells formatted.
pub(super) struct TableView {
    pub(super) title: Option<String>,
    pub(super) description: Option<String>,
    pub(super) header: Vec<String>,
    /// One per header column.
    pub(super) columns: Vec<ColumnConfig>,
    /// Cell style of the whole table (`config["style"]`).
    pub(super) style: Option<CellStyle>,
    /// Per column: holds numbers (right-aligned).
    pub(super) numeric: Vec<bool>,
    /// Rows in display order (sorted as the rule asked).
    pub(super) rows: Vec<Vec<String>>,
}

impl TableView {
    pub(super) fn new(table: &RuleTable) -> TableView {
        TableView {
            title: table.title.clone(),
            description: table.description.clone(),
            header: table.header.clone(),
            columns: (0..table.header.len()).map(|i| table.column(i)).collect(),
            style: table.style,
            numeric: (0..table.header.len())
                .map(|i| {
                    table
                        .rows
                        .first()
                        .and_then(|r| r.get(i))
                        .is_some_and(|c| matches!(c, TableCell::Int(_) | TableCell::Double(_)))
                })
                .collect(),
            rows: table
                .display_rows()
                .into_iter()
                .map(|row| {
                    row.iter()
                        .map(|cell| match cell {
                            TableCell::Int(i) => i.to_string(),
                            TableCell::Double(f) => short_number(*f),
                            TableCell::Text(t) => t.clone(),
                        })
                        .collect()
                })
                .collect(),
        }
    }
}

pub(super) struct RuleView {
    /// Stable id salt (rule identifier, message title and position).
    pub(super) key: u64,
    pub(super) msg_type: MsgType,
    pub(super) kind_name: &'static str,
    pub(super) name: String,
    pub(super) title: String,
    pub(super) spans: Vec<Span>,
    pub(super) speedup: Option<String>,
    pub(super) speedup_hint: &'static str,
    pub(super) focus_title: String,
    pub(super) focus: Vec<FocusRow>,
    pub(super) tables: Vec<TableView>,
    pub(super) charts: Vec<(Item, ItemView)>,
}

impl RuleView {
    pub(super) fn new(data: &MessageData, index: usize) -> RuleView {
        let message = &data.message;
        let kind_name = match message.msg_type {
            MsgType::Ok => "Information",
            MsgType::Optimization => "Optimization opportunity",
            MsgType::Warning => "Warning",
            MsgType::Error => "Error",
            MsgType::None => "Message",
        };
        let (speedup, speedup_hint) = match message.speedup.map(|s| (s.kind, s.value)) {
            Some((kind, value)) if value.is_finite() => {
                let (label, hint) = match kind {
                    1 => (
                        "Est. Local Speedup",
                        "Estimated speedup of the part of the kernel this rule looks at",
                    ),
                    2 => (
                        "Est. Global Speedup",
                        "Estimated speedup of the whole kernel",
                    ),
                    _ => ("Est. Speedup", "Estimated speedup"),
                };
                (Some(format!("{label}: {value:.2}%")), hint)
            }
            _ => (None, ""),
        };
        let focus: Vec<FocusRow> = message
            .focus_metrics
            .iter()
            .map(|metric| {
                let severity = match metric.severity {
                    1 => " (low severity)",
                    2 => " (high severity)",
                    _ => "",
                };
                FocusRow {
                    name: metric.name.clone(),
                    value: metric
                        .value
                        .map(|v| format!("= {}", short_number(v)))
                        .unwrap_or_else(|| "= N/A".to_owned()),
                    info: format!("{}{severity}", metric.info),
                }
            })
            .collect();
        RuleView {
            key: hash_of(&(&data.rule_identifier, &message.title, index)),
            msg_type: message.msg_type,
            kind_name,
            name: data.name.clone(),
            title: message.title.clone(),
            spans: parse_markup(&message.message),
            speedup,
            speedup_hint,
            focus_title: format!("Focus metrics ({})", focus.len()),
            focus,
            tables: message.tables.iter().map(TableView::new).collect(),
            charts: data
                .charts
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    let place = format!("rule-chart-{}-{index}-{i}", data.rule_identifier);
                    (item.clone(), ItemView::build("rules", &place, item, &[]))
                })
                .collect(),
        }
    }
}

/// A number with about four significant digits.
pub(super) fn short_number(value: f64) -> String {
    if !value.is_finite() {
        return value.to_string();
    }
    let magnitude = value.abs();
    if magnitude != 0.0 && !(1e-3..1e9).contains(&magnitude) {
        format!("{value:.3e}")
    } else if value.fract() == 0.0 {
        format!("{value:.0}")
    } else {
        let text = format!("{value:.4}");
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}
