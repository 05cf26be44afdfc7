//! The Details page panel: the selected kernel's sections rendered like Nsight Compute's Details
//! page.
//!
//! Each section is a collapsible block (open/closed state kept in egui memory under a stable id
//! per section identifier, so it survives kernel switches) with its header as a label/value grid,
//! its body items (tables, bar/line charts, histograms, horizontal containers, roofline charts,
//! source metric and suffix tables, Nsight's fixed widgets), the rule results stored for it (or
//! applied in this session, which replace the stored ones rule by rule), a line per rule with its
//! state and an Apply button, and the sections that extend it. Rule messages render their link
//! markup ([`parse_markup`]): `@section:` links scroll the page to the section. "Apply Rules" at
//! the top applies every rule to the kernel; the panel hands such requests to its tab
//! ([`DetailsPanel::take_rule_requests`]).
//!
//! Everything derived from the page (parsed markup, chart series, the section tree's index) is
//! computed once per page and cached in the panel; a frame only walks the page and hands text to
//! egui.

use std::collections::{HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};

use eframe::egui::{
    self, Align, Color32, Layout, RichText, Role, Sense, Stroke, Ui, UiBuilder, WidgetInfo,
};
use egui_extras::{Column, TableBuilder};
use egui_plot::{
    Bar, BarChart, GridInput, GridMark, HoverPosition, Legend, Line, LineStyle, MarkerShape, Plot,
    PlotPoint, PlotPoints, Points, VLine,
};

use super::memory_chart::{MemoryChartView, memory_chart_ui};
use super::memory_tables::{MemoryTableView, memory_table_ui};
use super::nvlink_topology::{TopologyView, topology_ui};
use super::pm_sampling_chart::{PmTimelineView, pm_timeline_ui};
use super::rule_state::{PageRules, RuleRow, RuleStatus};
use super::system_tables::{SystemTableView, system_table_ui};
use super::view_ctx::ViewCtx;
use crate::ncu::MetricValue;
use crate::ncu::rule_result::{MsgType, RuleMessage, rule_messages};
use crate::proto::nv::rule_system::RuleResult;
use crate::rules::model::{CellStyle, ColumnConfig, RuleTable, TableCell};
use crate::section::details::{ChartAxes, ChartAxis, DetailsSection, Entry, Item, KernelDetails};
use crate::section::format::format_with_unit;
use crate::section::memory::MemoryWidget;
use crate::section::system::SystemWidget;

/// One piece of a rule message after its link markup is parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Span {
    /// Plain text.
    Text(String),
    /// `@url:TEXT:LINK@`: a hyperlink.
    Url {
        /// The text shown.
        text: String,
        /// The link target (may contain `:`).
        link: String,
    },
    /// `@section:ID:TEXT@`: a link to another section of the page.
    Section {
        /// The section identifier.
        id: String,
        /// The text shown.
        text: String,
    },
    /// `@sass:ADDRESS:TEXT@`: a reference to a SASS instruction.
    Sass {
        /// The instruction address.
        address: String,
        /// The text shown.
        text: String,
    },
    /// `@source:FILE:LINE:TEXT@`: a reference to a source line.
    Source {
        /// The source file.
        file: String,
        /// The line number.
        line: u32,
        /// The text shown.
        text: String,
    },
}

/// Parses the link markup of a rule message into spans.
///
/// Recognized markup: `@url:TEXT:LINK@` (TEXT ends at the first `:`, LINK may contain `:`; a
/// bare `@url:https://…@` is a link showing itself), `@section:ID:TEXT@`, `@sass:ADDRESS:TEXT@`
/// and `@source:FILE:LINE:TEXT@` (the text may be left out: `@section:ID@` shows ID). Anything
/// else — a literal `@`, an unknown tag, an unclosed `@…` — stays plain text. Adjacent text is
/// merged into one [`Span::Text`].
pub fn parse_markup(text: &str) -> Vec<Span> {
    let mut out = Vec::new();
    let mut literal = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('@') {
        literal.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        match parse_tag(after) {
            Some((span, consumed)) => {
                if !literal.is_empty() {
                    out.push(Span::Text(std::mem::take(&mut literal)));
                }
                out.push(span);
                rest = &after[consumed..];
            }
            None => {
                literal.push('@');
                rest = after;
            }
        }
    }
    literal.push_str(rest);
    if !literal.is_empty() {
        out.push(Span::Text(literal));
    }
    out
}

/// Parses one markup element starting right after its opening `@`; returns the span and the
/// number of bytes consumed (including the closing `@`).
fn parse_tag(s: &str) -> Option<(Span, usize)> {
    let (tag, body_start) = ["url", "section", "sass", "source"]
        .into_iter()
        .find_map(|tag| {
            s.strip_prefix(tag)
                .and_then(|r| r.strip_prefix(':'))
                .map(|_| (tag, tag.len() + 1))
        })?;
    let body_len = s[body_start..].find('@')?;
    let body = &s[body_start..body_start + body_len];
    let consumed = body_start + body_len + 1;
    let or_default = |text: &str, default: &str| {
        if text.is_empty() {
            default.to_owned()
        } else {
            text.to_owned()
        }
    };
    let span = match tag {
        "url" => {
            let (text, link) = match body.split_once(':') {
                // `https://…` with no text: the whole body is the link.
                Some((_, link)) if link.starts_with("//") => (body, body),
                Some((text, link)) => (text, link),
                None => (body, body),
            };
            if link.is_empty() {
                return None;
            }
            Span::Url {
                text: or_default(text, link),
                link: link.to_owned(),
            }
        }
        "section" => {
            let (id, text) = body.split_once(':').unwrap_or((body, ""));
            if id.is_empty() || id.contains(char::is_whitespace) {
                return None;
            }
            Span::Section {
                id: id.to_owned(),
                text: or_default(text, id),
            }
        }
        "sass" => {
            let (address, text) = body.split_once(':').unwrap_or((body, ""));
            if address.is_empty() {
                return None;
            }
            Span::Sass {
                address: address.to_owned(),
                text: or_default(text, address),
            }
        }
        _ => {
            let (file, line, text) = split_source(body)?;
            Span::Source {
                file: file.to_owned(),
                line,
                text: if text.is_empty() {
                    format!("{file}:{line}")
                } else {
                    text.to_owned()
                },
            }
        }
    };
    Some((span, consumed))
}

/// Splits `FILE:LINE:TEXT` (or `FILE:LINE`) at the first `:<digits>:` (or a final `:<digits>`),
/// so that a file name may itself contain `:` (`C:\src\a.cu`).
fn split_source(body: &str) -> Option<(&str, u32, &str)> {
    for (colon, _) in body.match_indices(':') {
        if colon == 0 {
            continue;
        }
        let after = &body[colon + 1..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            continue;
        }
        let rest = &after[digits..];
        let text = if rest.is_empty() {
            ""
        } else if let Some(text) = rest.strip_prefix(':') {
            text
        } else {
            continue;
        };
        let line = after[..digits].parse().ok()?;
        return Some((&body[..colon], line, text));
    }
    None
}

/// The Details page panel. Create it once per report tab and call [`DetailsPanel::ui`] every
/// frame with the selected kernel.
pub struct DetailsPanel {
    /// A section to scroll to (and open) on the next frame.
    scroll_to: Option<String>,
    /// Frames spent on the pending scroll (it waits for opening animations).
    scroll_frames: u32,
    /// The section the last completed scroll went to.
    last_scrolled: Option<String>,
    /// Open (`true`) or close (`false`) every section on the next frame.
    force_open: Option<bool>,
    /// Which instance tables are expanded (kept across kernels).
    open_instances: HashSet<u64>,
    /// Derived data of the page shown.
    cache: Option<PageCache>,
    /// Rule requests made this frame.
    requests: Vec<RuleRequest>,
}

impl Default for DetailsPanel {
    fn default() -> Self {
        Self::new()
    }
}

impl DetailsPanel {
    /// A panel with every section open and nothing cached.
    pub fn new() -> Self {
        DetailsPanel {
            scroll_to: None,
            scroll_frames: 0,
            last_scrolled: None,
            force_open: None,
            open_instances: HashSet::new(),
            cache: None,
            requests: Vec::new(),
        }
    }

    /// Scrolls the page to section `id` (opening it and its parent) on the next frame.
    pub fn scroll_to_section(&mut self, id: &str) {
        self.scroll_to = Some(id.to_owned());
        self.scroll_frames = 0;
    }

    /// The section a scroll is pending for, if any.
    pub fn pending_scroll(&self) -> Option<&str> {
        self.scroll_to.as_deref()
    }

    /// The section the last completed scroll brought into view.
    pub fn last_scrolled(&self) -> Option<&str> {
        self.last_scrolled.as_deref()
    }

    /// Opens (`true`) or collapses (`false`) every section on the next frame.
    pub fn set_all_open(&mut self, open: bool) {
        self.force_open = Some(open);
    }

    /// How many instance tables are expanded (the state is kept across kernels).
    pub fn expanded_instance_tables(&self) -> usize {
        self.open_instances.len()
    }

    /// Rule requests made on the page since the last call (Apply Rules, Apply one, Cancel).
    pub fn take_rule_requests(&mut self) -> Vec<RuleRequest> {
        std::mem::take(&mut self.requests)
    }

    /// Draws the Details page of `ctx.details` (with the rule results of `ctx.action`, or those
    /// applied in this session).
    pub fn ui(&mut self, ui: &mut Ui, ctx: &ViewCtx<'_>) {
        let results = ctx.action.rule_results();
        let fingerprint = fingerprint(ctx.details, results, ctx.rules);
        let cache = match &mut self.cache {
            Some(cache) if cache.fingerprint == fingerprint => cache,
            slot => slot.insert(PageCache::build(
                ctx.details,
                results,
                ctx.rules,
                fingerprint,
            )),
        };

        let mut force_open = self.force_open.take();
        let show_failed = top_bar(
            ui,
            ctx.details,
            &cache.title,
            &mut force_open,
            ctx.rules,
            &mut self.requests,
        );
        if let Some(id) = show_failed.filter(|id| cache.known.contains(id)) {
            self.scroll_to = Some(id);
            self.scroll_frames = 0;
        }

        // A pending scroll whose section is not on this page is dropped.
        if self
            .scroll_to
            .as_ref()
            .is_some_and(|id| !cache.known.contains(id))
        {
            self.scroll_to = None;
        }
        let open_path = match &self.scroll_to {
            Some(id) => cache.path_to(id),
            None => Vec::new(),
        };

        let PageCache {
            sections,
            rules,
            other_rules,
            other_rule_rows,
            rule_rows,
            known,
            instance_rows,
            ..
        } = cache;
        let mut render = Render {
            rules,
            rule_rows,
            requests: &mut self.requests,
            known,
            instance_rows,
            open_instances: &mut self.open_instances,
            target: self.scroll_to.as_deref(),
            open_path: &open_path,
            force_open,
            clicked_section: None,
            target_seen: false,
            settling: false,
        };
        let details = ctx.details;
        egui::ScrollArea::vertical()
            .id_salt("details-page")
            .auto_shrink([false, false])
            // Keep right-aligned values clear of the (floating) scroll bar.
            .content_margin(egui::Margin {
                left: 0,
                right: 14,
                top: 0,
                bottom: 8,
            })
            .show(ui, |ui| {
                if details.sections.is_empty() {
                    ui.weak("No section applies to this kernel.");
                }
                for (section, view) in details.sections.iter().zip(sections.iter()) {
                    section_ui(ui, section, view, &mut render);
                }
                if !other_rules.is_empty() || !other_rule_rows.is_empty() {
                    let response = egui::CollapsingHeader::new(
                        RichText::new("Other rules").strong().size(15.0),
                    )
                    .id_salt("details-other-rule-results")
                    .default_open(true)
                    .open(render.force_open)
                    .show(ui, |ui| {
                        for &index in other_rules.iter() {
                            if let Some(rule) = render.rules.get(index) {
                                rule_ui(ui, rule, &mut render);
                            }
                        }
                        rule_rows_ui(ui, other_rule_rows, &mut render);
                    });
                    response.header_response.on_hover_text(
                        "Independent rules, and rules whose section is not shown on this page",
                    );
                }
            });

        let Render {
            clicked_section,
            target_seen,
            settling,
            ..
        } = render;
        if let Some(target) = self.scroll_to.take() {
            self.scroll_frames += 1;
            if target_seen && !settling {
                self.last_scrolled = Some(target);
            } else if self.scroll_frames < 120 {
                // Wait for the sections to open, then scroll again.
                self.scroll_to = Some(target);
                ui.ctx().request_repaint();
            }
        }
        if let Some(id) = clicked_section {
            self.scroll_to_section(&id);
            ui.ctx().request_repaint();
        }
    }
}

/// A request the page makes of its tab.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleRequest {
    /// Apply every rule to the kernel.
    ApplyAll,
    /// Apply one rule (by identifier) to the kernel.
    Apply(String),
    /// Cancel applying.
    Cancel,
}

/// The kernel's name, Apply Rules, the expand/collapse buttons and a line about failed rules.
/// Returns the section of a failed rule when the user asked to see it.
fn top_bar(
    ui: &mut Ui,
    details: &KernelDetails,
    title: &str,
    force_open: &mut Option<bool>,
    rules: &PageRules,
    requests: &mut Vec<RuleRequest>,
) -> Option<String> {
    ui.horizontal(|ui| {
        ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
            if rules.running {
                if ui
                    .small_button("Cancel")
                    .on_hover_text("Stop applying rules")
                    .clicked()
                {
                    requests.push(RuleRequest::Cancel);
                }
                ui.label("Applying rules…");
                ui.spinner();
            } else {
                let applicable = rules.rows.iter().filter(|r| r.can_apply).count();
                let button = ui
                    .add_enabled(applicable > 0, egui::Button::new("Apply Rules").small())
                    .on_hover_text(format!(
                        "Apply all {applicable} rule(s) of the search path to this kernel (Ctrl+R); \
                         their results replace the stored ones"
                    ))
                    .on_disabled_hover_text("No rule file on the search path");
                if button.clicked() {
                    requests.push(RuleRequest::ApplyAll);
                }
            }
            ui.separator();
            if ui
                .small_button("Collapse all")
                .on_hover_text("Collapse every section")
                .clicked()
            {
                *force_open = Some(false);
            }
            if ui
                .small_button("Expand all")
                .on_hover_text("Expand every section")
                .clicked()
            {
                *force_open = Some(true);
            }
            ui.with_layout(Layout::left_to_right(Align::Center), |ui| {
                ui.weak(title);
                ui.add(egui::Label::new(RichText::new(&details.name).strong()).truncate());
            });
        });
    });
    let failed: Vec<&RuleRow> = rules
        .rows
        .iter()
        .filter(|r| matches!(r.status, RuleStatus::Failed(_)))
        .collect();
    let mut show = None;
    if let Some(error) = &rules.request_error {
        ui.colored_label(ui.visuals().error_fg_color, error);
    } else if let Some(first) = failed.first() {
        ui.horizontal_wrapped(|ui| {
            let names: Vec<&str> = failed.iter().map(|r| r.name.as_str()).collect();
            ui.colored_label(
                ui.visuals().error_fg_color,
                format!(
                    "{} rule(s) failed on this kernel: {}.",
                    failed.len(),
                    names.join(", ")
                ),
            );
            if let Some(section) = &first.section
                && ui
                    .link("Show the error")
                    .on_hover_text("Scroll to the rule and its traceback")
                    .clicked()
            {
                show = Some(section.clone());
            }
        });
    }
    ui.separator();
    show
}

/// Per-frame rendering state: the cache's data and what the frame found out.
struct Render<'s> {
    rules: &'s [RuleView],
    /// Rule lines per section identifier.
    rule_rows: &'s HashMap<String, Vec<RuleLine>>,
    requests: &'s mut Vec<RuleRequest>,
    known: &'s HashSet<String>,
    instance_rows: &'s mut HashMap<u64, Vec<(String, String)>>,
    open_instances: &'s mut HashSet<u64>,
    /// The section a scroll is pending for.
    target: Option<&'s str>,
    /// The target and its ancestors (forced open).
    open_path: &'s [String],
    force_open: Option<bool>,
    /// A `@section:` link clicked this frame.
    clicked_section: Option<String>,
    /// Whether the target's header was drawn this frame.
    target_seen: bool,
    /// Whether an ancestor of the target is still animating open.
    settling: bool,
}

fn section_ui(ui: &mut Ui, section: &DetailsSection, view: &SectionView, render: &mut Render<'_>) {
    let on_path = render.open_path.contains(&section.identifier);
    let open = if on_path {
        Some(true)
    } else {
        render.force_open
    };
    let response =
        egui::CollapsingHeader::new(RichText::new(&section.display_name).strong().size(15.0))
            .id_salt(("details-section", &section.identifier))
            .default_open(true)
            .open(open)
            .show(ui, |ui| section_body(ui, section, view, render));
    let header = response.header_response;
    if render.target == Some(section.identifier.as_str()) {
        render.target_seen = true;
        header.scroll_to_me(Some(Align::TOP));
    } else if on_path && response.openness < 1.0 {
        render.settling = true;
    }
    if !section.description.is_empty() {
        header.on_hover_ui(|ui| {
            ui.set_max_width(420.0);
            ui.label(&section.description);
            ui.weak(&section.identifier);
        });
    }
    ui.add_space(4.0);
}

fn section_body(
    ui: &mut Ui,
    section: &DetailsSection,
    view: &SectionView,
    render: &mut Render<'_>,
) {
    if !section.header.is_empty() {
        let pairs = if ui.available_width() >= 640.0 { 2 } else { 1 };
        entries_grid(ui, &section.header, &view.header, pairs, false, render);
        instance_tables(ui, &section.header, &view.header, render);
    }
    for (index, (item, item_view)) in section.body.iter().zip(view.body.iter()).enumerate() {
        ui.push_id(("item", index), |ui| item_ui(ui, item, item_view, render));
    }
    for &index in &view.rules {
        if let Some(rule) = render.rules.get(index) {
            rule_ui(ui, rule, render);
        }
    }
    if let Some(rows) = render.rule_rows.get(&section.identifier) {
        rule_rows_ui(ui, rows, render);
    }
    for (child, child_view) in section.children.iter().zip(view.children.iter()) {
        section_ui(ui, child, child_view, render);
    }
}

/// A label/value grid with `pairs` pairs per row, filled row by row or column by column: in
/// each pair the label is on the left and the value right-aligned (numbers line up on their last
/// digit, as in Nsight Compute); long labels and values wrap inside their cell; odd rows are
/// striped.
fn entries_grid(
    ui: &mut Ui,
    entries: &[Entry],
    views: &[EntryView],
    pairs: usize,
    column_major: bool,
    render: &mut Render<'_>,
) {
    let pairs = pairs.max(1);
    let rows = entries.len().div_ceil(pairs);
    let spacing = ui.spacing().item_spacing.x;
    let gap = 28.0;
    let pair_width =
        ((ui.available_width() - gap * (pairs - 1) as f32) / pairs as f32).clamp(160.0, 620.0);
    let label_width = (pair_width * 0.58).floor();
    let value_width = pair_width - label_width - spacing;
    let cell_height = ui.spacing().interact_size.y;
    let stripe = ui.visuals().faint_bg_color;
    for row in 0..rows {
        let background = ui.painter().add(egui::Shape::Noop);
        let response = ui.horizontal(|ui| {
            for col in 0..pairs {
                if col > 0 {
                    ui.add_space(gap - spacing);
                }
                let index = if column_major {
                    col * rows + row
                } else {
                    row * pairs + col
                };
                let (Some(entry), Some(view)) = (entries.get(index), views.get(index)) else {
                    ui.add_space(pair_width);
                    continue;
                };
                ui.allocate_ui_with_layout(
                    egui::vec2(label_width, cell_height),
                    Layout::left_to_right(Align::Center),
                    |ui| {
                        ui.set_min_width(label_width);
                        entry_label(ui, entry, view);
                    },
                );
                ui.allocate_ui_with_layout(
                    egui::vec2(value_width, cell_height),
                    Layout::right_to_left(Align::Center),
                    |ui| {
                        ui.set_min_width(value_width);
                        entry_value(ui, entry, view, render);
                    },
                );
            }
        });
        if row % 2 == 1 {
            let rect = response.response.rect.expand2(egui::vec2(3.0, 1.0));
            ui.painter().set(
                background,
                egui::epaint::RectShape::filled(rect, 2.0, stripe),
            );
        }
    }
}

fn entry_label(ui: &mut Ui, entry: &Entry, view: &EntryView) {
    let mut text = RichText::new(&entry.label);
    if view.na {
        text = text.color(ui.visuals().weak_text_color());
    }
    ui.add(egui::Label::new(text).wrap()).on_hover_ui(|ui| {
        ui.set_max_width(420.0);
        if let Some(description) = &entry.description {
            ui.label(description);
        }
        ui.monospace(&entry.metric);
        if entry.derived {
            ui.weak("Computed from the section's metric definitions");
        }
        if view.na {
            ui.weak("Not collected for this kernel");
        }
    });
}

/// The value (in a right-to-left cell) and, left of it, the instances toggle.
fn entry_value(ui: &mut Ui, entry: &Entry, view: &EntryView, render: &mut Render<'_>) {
    let mut text = RichText::new(&entry.text);
    if view.na {
        text = text.color(ui.visuals().weak_text_color());
    }
    ui.add(egui::Label::new(text).wrap());
    if let Some(instances) = &view.instances {
        instance_toggle(ui, entry, instances, render);
    }
}

fn instance_toggle(ui: &mut Ui, entry: &Entry, view: &InstanceView, render: &mut Render<'_>) {
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
fn instance_tables(ui: &mut Ui, entries: &[Entry], views: &[EntryView], render: &mut Render<'_>) {
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

fn item_title(ui: &mut Ui, item: &Item) {
    if item.label.is_empty() {
        return;
    }
    let response = ui.label(RichText::new(&item.label).strong());
    if let Some(description) = &item.description {
        response.on_hover_ui(|ui| {
            ui.set_max_width(420.0);
            ui.label(description);
        });
    }
}

fn item_ui(ui: &mut Ui, item: &Item, view: &ItemView, render: &mut Render<'_>) {
    ui.add_space(6.0);
    match view {
        ItemView::Table { entries, columns } => {
            item_title(ui, item);
            if item.entries.is_empty() {
                ui.weak("No metrics apply to this kernel.");
            } else {
                entries_grid(
                    ui,
                    &item.entries,
                    entries,
                    *columns,
                    item.column_major,
                    render,
                );
                instance_tables(ui, &item.entries, entries, render);
            }
        }
        ItemView::Bars(chart) => {
            item_title(ui, item);
            bar_chart_ui(ui, item, chart);
        }
        ItemView::Lines(chart) => {
            item_title(ui, item);
            line_chart_ui(ui, item, chart);
        }
        ItemView::Histogram(chart) => {
            item_title(ui, item);
            histogram_ui(ui, item, chart);
        }
        ItemView::Roofline(chart) => {
            item_title(ui, item);
            roofline_ui(ui, chart);
        }
        ItemView::Container(views) => container_ui(ui, item, views, render),
        ItemView::MemoryChart(chart) => {
            item_title(ui, item);
            memory_chart_ui(ui, chart);
        }
        ItemView::MemoryTable(table) => {
            item_title(ui, item);
            memory_table_ui(ui, table);
        }
        ItemView::SystemTable(table) => {
            item_title(ui, item);
            system_table_ui(ui, table);
        }
        ItemView::Topology(topology) => {
            item_title(ui, item);
            topology_ui(ui, topology);
        }
        ItemView::PmTimeline(timeline) => {
            item_title(ui, item);
            pm_timeline_ui(ui, timeline);
        }
        ItemView::Fixed { entries, note } => {
            if item.entries.is_empty() {
                ui.weak(note.as_str());
            } else {
                item_title(ui, item);
                entries_grid(ui, &item.entries, entries, 1, false, render);
                instance_tables(ui, &item.entries, entries, render);
            }
        }
    }
}

/// A horizontal container: nested items side by side (stacked when the panel is narrow).
fn container_ui(ui: &mut Ui, item: &Item, views: &[ItemView], render: &mut Render<'_>) {
    let count = item.items.len().min(views.len());
    if count == 0 {
        return;
    }
    if count == 1 || ui.available_width() < 320.0 * count as f32 {
        for (index, (child, view)) in item.items.iter().zip(views).enumerate() {
            ui.push_id(("nested", index), |ui| item_ui(ui, child, view, render));
        }
        return;
    }
    ui.columns(count, |columns| {
        for (index, ((child, view), column)) in item
            .items
            .iter()
            .zip(views)
            .zip(columns.iter_mut())
            .enumerate()
        {
            column.push_id(("nested", index), |ui| item_ui(ui, child, view, render));
        }
    });
}

/// Allocates a chart's area and calls `show` only when it is on screen (plots are the costliest
/// widgets of the page).
fn chart_area(ui: &mut Ui, height: f32, show: impl FnOnce(&mut Ui)) {
    let width = ui.available_width().max(120.0);
    let (rect, _) = ui.allocate_exact_size(egui::vec2(width, height), Sense::hover());
    if ui.is_rect_visible(rect) {
        let mut child = ui.new_child(UiBuilder::new().id_salt("chart").max_rect(rect));
        show(&mut child);
    }
}

/// A plot that does not take the page's scroll wheel or drags.
fn static_plot<'a>(id: &str, height: f32) -> Plot<'a> {
    Plot::new(id)
        .height(height)
        .allow_zoom(false)
        .allow_drag(false)
        .allow_scroll(false)
        .allow_boxed_zoom(false)
        .allow_double_click_reset(false)
        .allow_axis_zoom_drag(false)
        .show_crosshair(false)
}

fn bar_chart_ui(ui: &mut Ui, item: &Item, chart: &BarsView) {
    if chart.bars.is_empty() {
        ui.weak(chart.empty_note.as_str());
        return;
    }
    let height = (chart.labels.len() as f32 * 22.0 + 44.0).clamp(90.0, 640.0);
    let labels = &chart.labels;
    let count = labels.len();
    chart_area(ui, height, |ui| {
        let mut plot = static_plot("bar-chart", height)
            .show_grid([true, false])
            .y_axis_min_width(chart.axis_width)
            .y_grid_spacer(move |input: GridInput| category_marks(input, count))
            .y_axis_formatter(move |mark: GridMark, _| category_label(labels, mark.value))
            .x_axis_formatter(|mark: GridMark, _| si_text(mark.value))
            .label_formatter(|_: &HoverPosition<'_>| None)
            .include_x(0.0)
            .include_y(-0.5)
            .include_y(count as f64 - 0.5);
        // The section's value-axis label, else the unit of the values.
        let label = item.axes.x.label.as_deref().unwrap_or(chart.unit.as_str());
        if !label.is_empty() {
            plot = plot.x_axis_label(label);
        }
        plot = with_range(plot, &item.axes.x, Plot::include_x);
        let right = if chart.percent {
            chart.max_value.max(100.0)
        } else {
            chart.max_value
        };
        // Room for the value texts right of the longest bar.
        plot = plot.include_x(right * 1.15);
        let text_color = ui.visuals().text_color();
        plot.show(ui, |plot_ui| {
            plot_ui.bar_chart(
                BarChart::new("values", chart.bars.clone())
                    .horizontal()
                    .color(BAR_COLOR)
                    .element_formatter(Box::new(|bar: &Bar, _: &BarChart| bar.name.clone())),
            );
            for (position, text) in &chart.texts {
                plot_ui.text(
                    egui_plot::Text::new("values", *position, RichText::new(text).small())
                        .color(text_color)
                        .anchor(egui::Align2::LEFT_CENTER)
                        .allow_hover(false),
                );
            }
        });
    });
}

/// One grid mark per category (bar) of a horizontal bar chart.
fn category_marks(input: GridInput, count: usize) -> Vec<GridMark> {
    let (low, high) = input.bounds;
    (0..count)
        .map(|i| i as f64)
        .filter(|v| *v >= low && *v <= high)
        .map(|value| GridMark {
            value,
            step_size: 1.0,
        })
        .collect()
}

/// The label of the category at `value` (categories are drawn top to bottom).
fn category_label(labels: &[String], value: f64) -> String {
    let rounded = value.round();
    if (value - rounded).abs() > 1e-6 || rounded < 0.0 || rounded >= labels.len() as f64 {
        return String::new();
    }
    // In range: `rounded` is a whole number in `0..labels.len()`.
    let from_bottom = rounded as usize;
    labels
        .len()
        .checked_sub(from_bottom + 1)
        .and_then(|i| labels.get(i))
        .cloned()
        .unwrap_or_default()
}

fn line_chart_ui(ui: &mut Ui, item: &Item, chart: &LinesView) {
    if chart.lines.is_empty() {
        ui.weak(chart.empty_note.as_str());
        return;
    }
    let height = 200.0;
    chart_area(ui, height, |ui| {
        let mut plot = static_plot("line-chart", height)
            .x_axis_formatter(|mark: GridMark, _| si_text(mark.value))
            .y_axis_formatter(|mark: GridMark, _| si_text(mark.value));
        plot = with_axes(plot, &item.axes);
        if chart.lines.len() > 1 || !chart.highlights.is_empty() {
            plot = plot.legend(Legend::default());
        }
        let name = if item.label.is_empty() {
            "values"
        } else {
            item.label.as_str()
        };
        plot.show(ui, |plot_ui| {
            for (index, (line_name, points)) in chart.lines.iter().enumerate() {
                let line_name = if line_name.is_empty() {
                    name
                } else {
                    line_name
                };
                let color = series_color(index);
                plot_ui.line(
                    Line::new(line_name, PlotPoints::from(points.as_slice()))
                        .color(color)
                        .width(1.5),
                );
                plot_ui.points(
                    Points::new(line_name, PlotPoints::from(points.as_slice()))
                        .color(color)
                        .radius(2.5),
                );
            }
            // The kernel's own configuration: a dashed line, and a ring on the curve.
            for (label, x, y) in &chart.highlights {
                plot_ui.vline(
                    VLine::new(label.as_str(), *x)
                        .color(HIGHLIGHT_COLOR)
                        .style(LineStyle::dashed_loose()),
                );
                if let Some(y) = y {
                    plot_ui.points(
                        Points::new(label.as_str(), vec![[*x, *y]])
                            .color(HIGHLIGHT_COLOR)
                            .shape(MarkerShape::Circle)
                            .filled(false)
                            .radius(6.0),
                    );
                }
            }
        });
    });
}

/// `plot` with the labels and ranges of the section file's axes.
fn with_axes<'a>(mut plot: Plot<'a>, axes: &ChartAxes) -> Plot<'a> {
    if let Some(label) = &axes.x.label {
        plot = plot.x_axis_label(label.as_str());
    }
    if let Some(label) = &axes.y.label {
        plot = plot.y_axis_label(label.as_str());
    }
    let plot = with_range(plot, &axes.x, Plot::include_x);
    with_range(plot, &axes.y, Plot::include_y)
}

/// `plot` showing at least the range of `axis` (`include` is `Plot::include_x` or `_y`).
fn with_range<'a>(
    mut plot: Plot<'a>,
    axis: &ChartAxis,
    include: fn(Plot<'a>, f64) -> Plot<'a>,
) -> Plot<'a> {
    for bound in [axis.min, axis.max].into_iter().flatten() {
        plot = include(plot, bound);
    }
    plot
}

fn histogram_ui(ui: &mut Ui, item: &Item, chart: &HistogramView) {
    if chart.bars.is_empty() {
        ui.weak(chart.empty_note.as_str());
        return;
    }
    let height = 180.0;
    chart_area(ui, height, |ui| {
        let plot = static_plot("histogram", height)
            .y_axis_formatter(|mark: GridMark, _| si_text(mark.value))
            .include_y(0.0);
        with_axes(plot, &item.axes).show(ui, |plot_ui| {
            plot_ui.bar_chart(
                BarChart::new(chart.name.as_str(), chart.bars.clone())
                    .color(HISTOGRAM_COLOR)
                    .element_formatter(Box::new(|bar: &Bar, _: &BarChart| bar.name.clone())),
            );
        });
    });
}

const BAR_COLOR: Color32 = Color32::from_rgb(0x4a, 0x90, 0xd9);
const HISTOGRAM_COLOR: Color32 = Color32::from_rgb(0x6a, 0xb0, 0x4c);
const HIGHLIGHT_COLOR: Color32 = Color32::from_rgb(0xe0, 0x4a, 0x4a);

const SERIES_COLORS: [Color32; 6] = [
    Color32::from_rgb(0x4a, 0x90, 0xd9),
    Color32::from_rgb(0xe0, 0x7b, 0x39),
    Color32::from_rgb(0x5c, 0xb8, 0x5c),
    Color32::from_rgb(0xc0, 0x50, 0xb0),
    Color32::from_rgb(0xd9, 0xc2, 0x3a),
    Color32::from_rgb(0x3a, 0xb5, 0xb0),
];

fn series_color(index: usize) -> Color32 {
    SERIES_COLORS[index % SERIES_COLORS.len()]
}

fn roofline_ui(ui: &mut Ui, chart: &RooflineView) {
    if chart.lines.is_empty() && chart.points.is_empty() {
        ui.weak(chart.missing_note.as_str());
        return;
    }
    let height = 300.0;
    chart_area(ui, height, |ui| {
        static_plot("roofline", height)
            .legend(Legend::default())
            .x_axis_label("Arithmetic intensity [FLOP/byte]")
            .y_axis_label("Performance [FLOP/s]")
            .x_grid_spacer(decade_marks)
            .y_grid_spacer(decade_marks)
            .x_axis_formatter(|mark: GridMark, _| decade_label(mark.value))
            .y_axis_formatter(|mark: GridMark, _| decade_label(mark.value))
            .label_formatter(|hover: &HoverPosition<'_>| match hover {
                HoverPosition::NearDataPoint {
                    plot_name,
                    position,
                    ..
                } => Some(format!(
                    "{plot_name}\n{} FLOP/byte\n{} FLOP/s",
                    si_text(10f64.powf(position.x)),
                    si_text(10f64.powf(position.y))
                )),
                HoverPosition::Elsewhere { .. } => None,
            })
            .include_x(chart.x_range[0])
            .include_x(chart.x_range[1])
            .include_y(chart.y_range[0])
            .include_y(chart.y_range[1])
            .show(ui, |plot_ui| {
                for (index, (name, points)) in chart.lines.iter().enumerate() {
                    plot_ui.line(
                        Line::new(name.as_str(), PlotPoints::from(points.as_slice()))
                            .color(series_color(index))
                            .width(2.0),
                    );
                }
                for (index, (name, point)) in chart.points.iter().enumerate() {
                    plot_ui.points(
                        Points::new(name.as_str(), PlotPoints::from(std::slice::from_ref(point)))
                            .color(series_color(index))
                            .shape(MarkerShape::Diamond)
                            .filled(true)
                            .radius(6.0),
                    );
                }
            });
    });
    if !chart.missing_note.is_empty() {
        ui.weak(chart.missing_note.as_str());
    }
}

/// Grid marks at whole powers of ten (the roofline's axes are log10).
fn decade_marks(input: GridInput) -> Vec<GridMark> {
    let (low, high) = input.bounds;
    if !low.is_finite() || !high.is_finite() || high - low > 400.0 {
        return Vec::new();
    }
    let step = if high - low > 12.0 { 2.0 } else { 1.0 };
    let mut marks = Vec::new();
    let mut value = (low / step).ceil() * step;
    while value <= high {
        marks.push(GridMark {
            value,
            step_size: step,
        });
        value += step;
    }
    marks
}

fn decade_label(exponent: f64) -> String {
    let rounded = exponent.round();
    if (exponent - rounded).abs() > 1e-6 {
        return String::new();
    }
    si_text(10f64.powf(rounded))
}

/// A number with an SI prefix: `1.5G`, `12k`, `0.25`, `3m`.
fn si_text(value: f64) -> String {
    if !value.is_finite() {
        return String::new();
    }
    let magnitude = value.abs();
    if magnitude == 0.0 {
        return "0".to_owned();
    }
    const PREFIXES: [(f64, &str); 9] = [
        (1e18, "E"),
        (1e15, "P"),
        (1e12, "T"),
        (1e9, "G"),
        (1e6, "M"),
        (1e3, "k"),
        (1.0, ""),
        (1e-3, "m"),
        (1e-6, "µ"),
    ];
    for (scale, prefix) in PREFIXES {
        if magnitude >= scale * 0.999_999 {
            return trim_number(value / scale, prefix);
        }
    }
    format!("{value:.1e}")
}

fn trim_number(value: f64, suffix: &str) -> String {
    let text = format!("{value:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text}{suffix}")
}

/// One line per rule: its name, its state on this kernel and an Apply button; a failed rule's
/// error below it.
fn rule_rows_ui(ui: &mut Ui, lines: &[RuleLine], render: &mut Render<'_>) {
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

fn rule_ui(ui: &mut Ui, rule: &RuleView, render: &mut Render<'_>) {
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
                    item_ui(ui, item, view, render)
                });
            }
        });
}

/// A table a rule attached to its message: rows in the rule's sort order, its styles, header
/// tooltips and relative column widths; numeric columns right-aligned.
fn rule_table_ui(ui: &mut Ui, table: &TableView, salt: (u64, usize)) {
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
fn styled(text: RichText, style: Option<CellStyle>) -> RichText {
    let Some(style) = style else {
        return text;
    };
    let text = if style.bold { text.strong() } else { text };
    if style.italic { text.italics() } else { text }
}

/// The message type's icon, painted (the default fonts have no emoji): a check mark (ok), a
/// lightning bolt (optimization), a warning triangle, a cross (error), a dot (none).
fn rule_icon(ui: &mut Ui, msg_type: MsgType, color: Color32, kind_name: &'static str) {
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

fn span_ui(ui: &mut Ui, span: &Span, render: &mut Render<'_>) {
    match span {
        Span::Text(text) => {
            ui.label(text.as_str());
        }
        Span::Url { text, link } => {
            ui.hyperlink_to(text.as_str(), link.as_str())
                .on_hover_text(link.as_str());
        }
        Span::Section { id, text } => {
            if render.known.contains(id) {
                let response = ui.link(text.as_str());
                if response.clicked() {
                    render.clicked_section = Some(id.clone());
                }
                response.on_hover_ui(|ui| {
                    ui.label("Go to section");
                    ui.monospace(id.as_str());
                });
            } else {
                ui.label(RichText::new(text.as_str()).italics())
                    .on_hover_ui(|ui| {
                        ui.label("This section is not on the page");
                        ui.monospace(id.as_str());
                    });
            }
        }
        Span::Sass { address, text } => {
            ui.label(RichText::new(text.as_str()).italics().strong())
                .on_hover_ui(|ui| {
                    ui.label("SASS instruction");
                    ui.monospace(address.as_str());
                });
        }
        Span::Source { file, line, text } => {
            ui.label(RichText::new(text.as_str()).italics().strong())
                .on_hover_ui(|ui| {
                    ui.label("Source line");
                    ui.monospace(format!("{file}:{line}"));
                });
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The cache: everything derived from one page.

/// Derived data of one page, rebuilt when the page (or its rule results) change.
struct PageCache {
    fingerprint: u64,
    /// "ID 3" under the kernel's name.
    title: String,
    sections: Vec<SectionView>,
    rules: Vec<RuleView>,
    /// Rules whose section is not on the page.
    other_rules: Vec<usize>,
    /// Rule lines per section identifier.
    rule_rows: HashMap<String, Vec<RuleLine>>,
    /// Lines of independent rules and of rules whose section is not on the page.
    other_rule_rows: Vec<RuleLine>,
    /// Every section identifier on the page (children included).
    known: HashSet<String>,
    /// Child section → parent section.
    parents: HashMap<String, String>,
    /// Formatted instance rows, filled when a table is first expanded.
    instance_rows: HashMap<u64, Vec<(String, String)>>,
}

impl PageCache {
    fn build(
        details: &KernelDetails,
        results: &[RuleResult],
        page_rules: &PageRules,
        fingerprint: u64,
    ) -> PageCache {
        let mut known = HashSet::new();
        let mut parents = HashMap::new();
        fn walk(
            section: &DetailsSection,
            parent: Option<&str>,
            known: &mut HashSet<String>,
            parents: &mut HashMap<String, String>,
        ) {
            known.insert(section.identifier.clone());
            if let Some(parent) = parent {
                parents
                    .entry(section.identifier.clone())
                    .or_insert_with(|| parent.to_owned());
            }
            for child in &section.children {
                walk(child, Some(&section.identifier), known, parents);
            }
        }
        for section in &details.sections {
            walk(section, None, &mut known, &mut parents);
        }

        // Stored messages, except those of rules applied in this session, then the applied ones.
        let mut messages: Vec<MessageData> = rule_messages(results)
            .iter()
            .filter(|m| !page_rules.replaced.contains(m.rule_identifier))
            .map(MessageData::stored)
            .collect();
        for result in &page_rules.applied {
            let mut applied: Vec<MessageData> = MessageData::applied(result).collect();
            // A rule's charts go with its first message (or stand alone).
            if let Some(charts) = page_rules.charts.get(&result.identifier)
                && !charts.is_empty()
            {
                if applied.is_empty() {
                    applied.push(MessageData::chart_holder(result));
                }
                applied[0].charts = charts.clone();
            }
            messages.extend(applied);
        }
        let mut rules = Vec::with_capacity(messages.len());
        let mut by_section: HashMap<String, Vec<usize>> = HashMap::new();
        let mut other_rules = Vec::new();
        for (index, message) in messages.iter().enumerate() {
            rules.push(RuleView::new(message, index));
            match message
                .section_identifier
                .as_deref()
                .filter(|id| known.contains(*id))
            {
                Some(id) => by_section.entry(id.to_owned()).or_default().push(index),
                None => other_rules.push(index),
            }
        }
        let mut rule_rows: HashMap<String, Vec<RuleLine>> = HashMap::new();
        let mut other_rule_rows = Vec::new();
        for row in &page_rules.rows {
            let line = RuleLine {
                row: row.clone(),
                // Two rules of one name (the profiler's stored one and a local one).
                ambiguous: page_rules
                    .rows
                    .iter()
                    .filter(|other| other.name == row.name && other.section == row.section)
                    .count()
                    > 1,
            };
            match row.section.as_deref().filter(|id| known.contains(*id)) {
                Some(id) => rule_rows.entry(id.to_owned()).or_default().push(line),
                // A rule bound to a section that is not on the page does not run here; it is
                // listed only when it has something to show.
                None if row.section.is_some() && row.status == RuleStatus::NotApplied => {}
                None => other_rule_rows.push(line),
            }
        }
        let sections = details
            .sections
            .iter()
            .map(|s| SectionView::build(s, &mut by_section))
            .collect();
        PageCache {
            fingerprint,
            title: format!("ID {}", details.index),
            sections,
            rules,
            other_rules,
            rule_rows,
            other_rule_rows,
            known,
            parents,
            instance_rows: HashMap::new(),
        }
    }

    /// Section `id` and its ancestors.
    fn path_to(&self, id: &str) -> Vec<String> {
        let mut path = vec![id.to_owned()];
        let mut current = id;
        while let Some(parent) = self.parents.get(current) {
            if path.contains(parent) {
                break;
            }
            path.push(parent.clone());
            current = parent;
        }
        path
    }
}

struct SectionView {
    header: Vec<EntryView>,
    body: Vec<ItemView>,
    rules: Vec<usize>,
    children: Vec<SectionView>,
}

impl SectionView {
    fn build(section: &DetailsSection, rules: &mut HashMap<String, Vec<usize>>) -> SectionView {
        let id = section.identifier.as_str();
        SectionView {
            header: entry_views(id, "header", &section.header),
            body: section
                .body
                .iter()
                .enumerate()
                .map(|(index, item)| ItemView::build(id, &format!("body{index}"), item))
                .collect(),
            rules: rules.remove(id).unwrap_or_default(),
            children: section
                .children
                .iter()
                .map(|child| SectionView::build(child, rules))
                .collect(),
        }
    }
}

struct EntryView {
    /// Not collected: greyed.
    na: bool,
    instances: Option<InstanceView>,
}

struct InstanceView {
    key: u64,
    count: usize,
    closed_text: String,
    open_text: String,
    title: String,
}

fn entry_views(section: &str, place: &str, entries: &[Entry]) -> Vec<EntryView> {
    entries
        .iter()
        .enumerate()
        .map(|(index, entry)| {
            let na = matches!(entry.value, None | Some(MetricValue::None)) || entry.text == "N/A";
            let instances = entry
                .instances
                .as_ref()
                .filter(|list| !list.is_empty())
                .map(|list| {
                    let count = list.len();
                    let noun = if count == 1 { "instance" } else { "instances" };
                    InstanceView {
                        key: hash_of(&("details-instances", section, place, index, &entry.metric)),
                        count,
                        closed_text: format!("{count} {noun}"),
                        open_text: format!("{count} {noun}"),
                        title: format!("{} — {count} {noun}", entry.label),
                    }
                });
            EntryView { na, instances }
        })
        .collect()
}

enum ItemView {
    Table {
        entries: Vec<EntryView>,
        columns: usize,
    },
    Bars(BarsView),
    Lines(LinesView),
    Histogram(HistogramView),
    Roofline(RooflineView),
    Container(Vec<ItemView>),
    MemoryChart(MemoryChartView),
    MemoryTable(MemoryTableView),
    SystemTable(SystemTableView),
    Topology(TopologyView),
    PmTimeline(PmTimelineView),
    Fixed {
        entries: Vec<EntryView>,
        note: String,
    },
}

struct BarsView {
    bars: Vec<Bar>,
    /// Value texts at the end of each bar ("N/A" at zero for missing values).
    texts: Vec<(PlotPoint, String)>,
    /// The largest value (room is left right of it for its text).
    max_value: f64,
    labels: Vec<String>,
    axis_width: f32,
    unit: String,
    percent: bool,
    empty_note: String,
}

struct LinesView {
    lines: Vec<(String, Vec<PlotPoint>)>,
    /// The kernel's own x values (`HighlightX`): legend text, x, and the first line's y there.
    highlights: Vec<(String, f64, Option<f64>)>,
    empty_note: String,
}

struct HistogramView {
    name: String,
    bars: Vec<Bar>,
    empty_note: String,
}

struct RooflineView {
    /// Peak lines in log10 space.
    lines: Vec<(String, Vec<PlotPoint>)>,
    /// Achieved points in log10 space.
    points: Vec<(String, PlotPoint)>,
    x_range: [f64; 2],
    y_range: [f64; 2],
    /// What could not be drawn (empty when everything was).
    missing_note: String,
}

fn value_f64(value: Option<&MetricValue>) -> Option<f64> {
    value
        .and_then(MetricValue::as_f64)
        .filter(|v| v.is_finite())
}

fn empty_note(item: &Item) -> String {
    if item.label.is_empty() {
        "Chart: no values were collected for this kernel.".to_owned()
    } else {
        // The item's title is shown above the note.
        "No values were collected for this kernel.".to_owned()
    }
}

impl ItemView {
    fn build(section: &str, place: &str, item: &Item) -> ItemView {
        match &item.memory {
            Some(MemoryWidget::Chart(chart)) => {
                return ItemView::MemoryChart(MemoryChartView::build(item, chart));
            }
            Some(MemoryWidget::Table(table)) => {
                let place = format!("{section}.{place}");
                return ItemView::MemoryTable(MemoryTableView::build(&place, item, table));
            }
            None => {}
        }
        match &item.system {
            Some(SystemWidget::Table(table)) => {
                let place = format!("{section}.{place}");
                return ItemView::SystemTable(SystemTableView::build(&place, item, table));
            }
            Some(SystemWidget::Topology(topology)) => {
                return ItemView::Topology(TopologyView::build(item, topology));
            }
            Some(SystemWidget::Timeline(timeline)) => {
                let place = format!("{section}.{place}");
                return ItemView::PmTimeline(PmTimelineView::build(&place, item, timeline));
            }
            None => {}
        }
        match item.kind {
            "table" | "source_metric_table" | "suffix_table" => ItemView::Table {
                entries: entry_views(section, place, &item.entries),
                columns: item.columns.map_or(1, |c| c.clamp(1, 8) as usize),
            },
            "bar_chart" => ItemView::Bars(BarsView::build(item)),
            "line_chart" => ItemView::Lines(LinesView::build(item)),
            "histogram" => ItemView::Histogram(HistogramView::build(item)),
            "roofline" => ItemView::Roofline(RooflineView::build(item)),
            "container" => ItemView::Container(
                item.items
                    .iter()
                    .enumerate()
                    .map(|(index, nested)| {
                        ItemView::build(section, &format!("{place}.{index}"), nested)
                    })
                    .collect(),
            ),
            kind => ItemView::Fixed {
                entries: entry_views(section, place, &item.entries),
                note: format!(
                    "{}: this Nsight Compute widget has no metric list in the section file.",
                    widget_name(kind)
                ),
            },
        }
    }
}

/// A readable name of a fixed Nsight Compute widget.
fn widget_name(kind: &str) -> String {
    let known = match kind {
        // The memory chart and tables (101–107, 111) are drawn by `memory_chart`/`memory_tables`;
        // NVLink (108–110), NUMA (112) and the timeline (113) by `system_tables`,
        // `nvlink_topology` and `pm_sampling_chart`.
        "nvlink_topology" => "NVLink topology",
        "nvlink_property_table" => "NVLink property table",
        "nvlink_throughput_table" => "NVLink throughput table",
        "numa_id_table" => "NUMA ID table",
        "timeline" => "Timeline",
        "gfx_metrics_widget" => "Graphics metrics widget",
        _ => "",
    };
    if !known.is_empty() {
        return known.to_owned();
    }
    let mut name = kind.replace('_', " ");
    if let Some(first) = name.get(..1) {
        let upper = first.to_uppercase();
        name.replace_range(..1, &upper);
    }
    name
}

impl BarsView {
    fn build(item: &Item) -> BarsView {
        let count = item.entries.len();
        let mut bars = Vec::new();
        let mut texts = Vec::with_capacity(count);
        let mut labels = Vec::with_capacity(count);
        let mut max_value: f64 = 0.0;
        for (index, entry) in item.entries.iter().enumerate() {
            labels.push(entry.label.clone());
            let argument = (count - 1 - index) as f64;
            match value_f64(entry.value.as_ref()) {
                Some(value) => {
                    max_value = max_value.max(value);
                    bars.push(
                        Bar::new(argument, value)
                            .width(0.7)
                            .fill(BAR_COLOR.gamma_multiply(0.7))
                            .stroke(Stroke::new(1.0, BAR_COLOR))
                            .name(format!("{}: {}", entry.label, entry.text)),
                    );
                    texts.push((
                        PlotPoint {
                            x: value.max(0.0),
                            y: argument,
                        },
                        format!(" {}", entry.text),
                    ));
                }
                None => texts.push((
                    PlotPoint {
                        x: 0.0,
                        y: argument,
                    },
                    format!(" {}", entry.text),
                )),
            }
        }
        let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
        let first_unit = item.entries.first().map(|e| e.unit.as_str()).unwrap_or("");
        let same_unit = item.entries.iter().all(|e| e.unit == first_unit);
        let unit = if same_unit {
            first_unit.to_owned()
        } else {
            String::new()
        };
        BarsView {
            bars,
            texts,
            max_value,
            labels,
            axis_width: (longest as f32 * 6.8 + 12.0).clamp(40.0, 300.0),
            percent: same_unit && first_unit == "%",
            unit,
            empty_note: empty_note(item),
        }
    }
}

/// The x coordinates of instances: their correlation ids when all are numbers, else positions.
fn instance_xs(instances: &[(Option<MetricValue>, MetricValue)]) -> Vec<f64> {
    let ids: Option<Vec<f64>> = instances
        .iter()
        .map(|(id, _)| value_f64(id.as_ref()))
        .collect();
    ids.unwrap_or_else(|| (0..instances.len()).map(|i| i as f64).collect())
}

impl LinesView {
    fn build(item: &Item) -> LinesView {
        let mut lines = Vec::new();
        let mut scalar = Vec::new();
        for (index, entry) in item.entries.iter().enumerate() {
            match entry.instances.as_ref().filter(|list| !list.is_empty()) {
                Some(instances) => {
                    let mut points: Vec<PlotPoint> = instance_xs(instances)
                        .into_iter()
                        .zip(instances)
                        .filter_map(|(x, (_, value))| {
                            value_f64(Some(value)).map(|y| PlotPoint { x, y })
                        })
                        .collect();
                    points.sort_by(|a, b| a.x.total_cmp(&b.x));
                    if !points.is_empty() {
                        lines.push((entry.label.clone(), points));
                    }
                }
                None => {
                    if let Some(y) = value_f64(entry.value.as_ref()) {
                        scalar.push(PlotPoint { x: index as f64, y });
                    }
                }
            }
        }
        if !scalar.is_empty() {
            lines.push((item.label.clone(), scalar));
        }
        let highlights = item
            .highlights
            .iter()
            .filter_map(|entry| {
                let x = value_f64(entry.value.as_ref())?;
                let y = lines
                    .first()
                    .and_then(|(_, points)| points.iter().find(|p| p.x == x).map(|p| p.y));
                Some((format!("{}: {}", entry.label, entry.text), x, y))
            })
            .collect();
        LinesView {
            lines,
            highlights,
            empty_note: empty_note(item),
        }
    }
}

impl HistogramView {
    fn build(item: &Item) -> HistogramView {
        let mut bars = Vec::new();
        let mut name = item.label.clone();
        if let Some(entry) = item.entries.first() {
            if name.is_empty() {
                name = entry.label.clone();
            }
            let instances = entry.instances.as_deref().unwrap_or_default();
            let xs = instance_xs(instances);
            let width = bar_width(&xs);
            for (x, (_, value)) in xs.into_iter().zip(instances) {
                if let Some(y) = value_f64(Some(value)) {
                    bars.push(
                        Bar::new(x, y)
                            .width(width)
                            .fill(HISTOGRAM_COLOR.gamma_multiply(0.7))
                            .stroke(Stroke::new(1.0, HISTOGRAM_COLOR))
                            .name(format!(
                                "{}: {}",
                                si_text(x),
                                format_with_unit(value, &entry.unit, None)
                            )),
                    );
                }
            }
        }
        if name.is_empty() {
            name = "values".to_owned();
        }
        HistogramView {
            name,
            bars,
            empty_note: empty_note(item),
        }
    }
}

/// A bar width that leaves a gap between neighbouring bars.
fn bar_width(xs: &[f64]) -> f64 {
    let mut sorted: Vec<f64> = xs.to_vec();
    sorted.sort_by(f64::total_cmp);
    let gap = sorted
        .windows(2)
        .map(|w| w[1] - w[0])
        .filter(|d| *d > 0.0)
        .fold(f64::INFINITY, f64::min);
    if gap.is_finite() { gap * 0.8 } else { 0.8 }
}

impl RooflineView {
    fn build(item: &Item) -> RooflineView {
        let positive = |v: Option<f64>| v.filter(|v| v.is_finite() && *v > 0.0);
        let mut missing = Vec::new();
        let mut peaks = Vec::new();
        for (index, roofline) in item.rooflines.iter().enumerate() {
            let name = or_placeholder(&roofline.label, "Peak", index);
            match (positive(roofline.work), positive(roofline.traffic)) {
                (Some(work), Some(traffic)) => peaks.push((name, work, traffic)),
                _ => missing.push(name),
            }
        }
        let mut achieved = Vec::new();
        for (index, point) in item.points.iter().enumerate() {
            let name = or_placeholder(&point.label, "Achieved", index);
            match (positive(point.work), positive(point.traffic)) {
                (Some(work), Some(traffic)) => achieved.push((name, work / traffic, work)),
                _ => missing.push(name),
            }
        }
        let intensities = peaks
            .iter()
            .map(|(_, work, traffic)| work / traffic)
            .chain(achieved.iter().map(|(_, intensity, _)| *intensity))
            .map(f64::log10);
        let (low, high) = intensities.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
        let (x_low, x_high) = if low.is_finite() {
            (low.floor() - 2.0, high.ceil() + 2.0)
        } else {
            (-2.0, 2.0)
        };
        let mut lines = Vec::new();
        let mut y_low = f64::INFINITY;
        let mut y_high = f64::NEG_INFINITY;
        for (name, work, traffic) in peaks {
            let ridge = (work / traffic).log10();
            let (log_work, log_traffic) = (work.log10(), traffic.log10());
            let start = log_traffic + x_low;
            y_low = y_low.min(start);
            y_high = y_high.max(log_work);
            lines.push((
                name,
                vec![
                    PlotPoint { x: x_low, y: start },
                    PlotPoint {
                        x: ridge,
                        y: log_work,
                    },
                    PlotPoint {
                        x: x_high,
                        y: log_work,
                    },
                ],
            ));
        }
        let points: Vec<(String, PlotPoint)> = achieved
            .into_iter()
            .map(|(name, intensity, work)| {
                let y = work.log10();
                y_low = y_low.min(y);
                y_high = y_high.max(y);
                (
                    name,
                    PlotPoint {
                        x: intensity.log10(),
                        y,
                    },
                )
            })
            .collect();
        let y_range = if y_low.is_finite() {
            [y_low.floor() - 1.0, y_high.ceil() + 1.0]
        } else {
            [0.0, 1.0]
        };
        let missing_note = if missing.is_empty() {
            String::new()
        } else if lines.is_empty() && points.is_empty() {
            let what = if item.label.is_empty() {
                "Roofline: the"
            } else {
                "The"
            };
            format!(
                "{what} metrics of {} were not collected for this kernel.",
                missing.join(", ")
            )
        } else {
            format!("Not drawn (metrics not collected): {}", missing.join(", "))
        };
        RooflineView {
            lines,
            points,
            x_range: [x_low, x_high],
            y_range,
            missing_note,
        }
    }
}

fn or_placeholder(label: &str, kind: &str, index: usize) -> String {
    if label.is_empty() {
        format!("{kind} {}", index + 1)
    } else {
        label.to_owned()
    }
}

struct FocusRow {
    name: String,
    value: String,
    info: String,
}

/// A rule's line on the page: its row and whether its name needs the identifier beside it.
struct RuleLine {
    row: RuleRow,
    ambiguous: bool,
}

/// A rule message to show, stored in the report or applied in this session.
struct MessageData {
    rule_identifier: String,
    name: String,
    section_identifier: Option<String>,
    title: String,
    message: String,
    msg_type: MsgType,
    /// `(type, value)`: type 1 local, 2 global.
    speedup: Option<(i64, f64)>,
    focus: Vec<FocusData>,
    tables: Vec<RuleTable>,
    /// Charts the rule loaded, resolved against the kernel.
    charts: Vec<Item>,
}

struct FocusData {
    name: String,
    value: Option<f64>,
    /// `IFrontend.Severity_*`: 1 low, 2 high.
    severity: Option<i64>,
    info: String,
}

impl MessageData {
    fn stored(message: &RuleMessage<'_>) -> MessageData {
        MessageData {
            rule_identifier: message.rule_identifier.to_owned(),
            name: message.name.to_owned(),
            section_identifier: message.section_identifier.map(str::to_owned),
            title: message.title.to_owned(),
            message: message.message.to_owned(),
            msg_type: message.msg_type,
            speedup: message
                .speedup
                .map(|(kind, value)| (i64::from(kind), value)),
            focus: message
                .focus_metrics
                .iter()
                .map(|metric| FocusData {
                    name: metric.metric_name.clone().unwrap_or_default(),
                    value: metric.metric_value,
                    severity: metric.severity.map(i64::from),
                    info: metric.info.clone().unwrap_or_default(),
                })
                .collect(),
            tables: Vec::new(),
            charts: Vec::new(),
        }
    }

    /// An entry for a rule that loaded charts but wrote no message.
    fn chart_holder(result: &crate::rules::RuleResult) -> MessageData {
        MessageData {
            rule_identifier: result.identifier.clone(),
            name: result.name.clone(),
            section_identifier: result.section_identifier.clone(),
            title: String::new(),
            message: String::new(),
            msg_type: MsgType::None,
            speedup: None,
            focus: Vec::new(),
            tables: Vec::new(),
            charts: Vec::new(),
        }
    }

    fn applied(result: &crate::rules::RuleResult) -> impl Iterator<Item = MessageData> + '_ {
        result.messages.iter().map(move |message| MessageData {
            rule_identifier: result.identifier.clone(),
            name: result.name.clone(),
            section_identifier: result.section_identifier.clone(),
            title: message.title.clone(),
            message: message.message.clone(),
            msg_type: MsgType::from_api(message.msg_type),
            speedup: message.speedup.map(|s| (s.kind, s.value)),
            focus: message
                .focus_metrics
                .iter()
                .map(|metric| FocusData {
                    name: metric.name.clone(),
                    value: Some(metric.value),
                    severity: Some(metric.severity),
                    info: metric.info.clone(),
                })
                .collect(),
            tables: message.tables.clone(),
            charts: Vec::new(),
        })
    }
}

/// A rule table with its cells formatted.
struct TableView {
    title: Option<String>,
    description: Option<String>,
    header: Vec<String>,
    /// One per header column.
    columns: Vec<ColumnConfig>,
    /// Cell style of the whole table (`config["style"]`).
    style: Option<CellStyle>,
    /// Per column: holds numbers (right-aligned).
    numeric: Vec<bool>,
    /// Rows in display order (sorted as the rule asked).
    rows: Vec<Vec<String>>,
}

impl TableView {
    fn new(table: &RuleTable) -> TableView {
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

struct RuleView {
    /// Stable id salt (rule identifier, message title and position).
    key: u64,
    msg_type: MsgType,
    kind_name: &'static str,
    name: String,
    title: String,
    spans: Vec<Span>,
    speedup: Option<String>,
    speedup_hint: &'static str,
    focus_title: String,
    focus: Vec<FocusRow>,
    tables: Vec<TableView>,
    charts: Vec<(Item, ItemView)>,
}

impl RuleView {
    fn new(message: &MessageData, index: usize) -> RuleView {
        let kind_name = match message.msg_type {
            MsgType::Ok => "Information",
            MsgType::Optimization => "Optimization opportunity",
            MsgType::Warning => "Warning",
            MsgType::Error => "Error",
            MsgType::None => "Message",
        };
        let (speedup, speedup_hint) = match message.speedup {
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
            .focus
            .iter()
            .map(|metric| {
                let severity = match metric.severity {
                    Some(1) => " (low severity)",
                    Some(2) => " (high severity)",
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
            key: hash_of(&(&message.rule_identifier, &message.title, index)),
            msg_type: message.msg_type,
            kind_name,
            name: message.name.clone(),
            title: message.title.clone(),
            spans: parse_markup(&message.message),
            speedup,
            speedup_hint,
            focus_title: format!("Focus metrics ({})", focus.len()),
            focus,
            tables: message.tables.iter().map(TableView::new).collect(),
            charts: message
                .charts
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    let place = format!("rule-chart-{}-{index}-{i}", message.rule_identifier);
                    (item.clone(), ItemView::build("rules", &place, item))
                })
                .collect(),
        }
    }
}

/// A number with about four significant digits.
fn short_number(value: f64) -> String {
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

fn hash_of(value: &impl Hash) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

/// A cheap fingerprint of what the cache is derived from (walked every frame, no allocation).
fn fingerprint(details: &KernelDetails, results: &[RuleResult], rules: &PageRules) -> u64 {
    fn hash_entry(entry: &Entry, h: &mut DefaultHasher) {
        entry.label.hash(h);
        entry.metric.hash(h);
        entry.text.hash(h);
        entry.unit.hash(h);
        if let Some(list) = &entry.instances {
            list.len().hash(h);
            for (_, value) in list.iter().take(1).chain(list.last()) {
                value.as_f64().map(f64::to_bits).hash(h);
            }
        }
    }
    fn hash_item(item: &Item, h: &mut DefaultHasher) {
        item.kind.hash(h);
        item.label.hash(h);
        item.entries.len().hash(h);
        item.entries.iter().for_each(|e| hash_entry(e, h));
        item.items.len().hash(h);
        item.items.iter().for_each(|i| hash_item(i, h));
        for point in item.rooflines.iter().chain(&item.points) {
            point.label.hash(h);
            point.work.map(f64::to_bits).hash(h);
            point.traffic.map(f64::to_bits).hash(h);
        }
    }
    fn hash_section(section: &DetailsSection, h: &mut DefaultHasher) {
        section.identifier.hash(h);
        section.display_name.hash(h);
        section.header.len().hash(h);
        section.header.iter().for_each(|e| hash_entry(e, h));
        section.body.len().hash(h);
        section.body.iter().for_each(|i| hash_item(i, h));
        section.children.len().hash(h);
        section.children.iter().for_each(|c| hash_section(c, h));
    }
    let mut h = DefaultHasher::new();
    details.index.hash(&mut h);
    details.name.hash(&mut h);
    details.sections.len().hash(&mut h);
    details
        .sections
        .iter()
        .for_each(|s| hash_section(s, &mut h));
    rules.version.hash(&mut h);
    rules.running.hash(&mut h);
    for row in &rules.rows {
        row.identifier.hash(&mut h);
        row.status.hash(&mut h);
    }
    results.len().hash(&mut h);
    for result in results {
        result.identifier.hash(&mut h);
        result.section_identifier.hash(&mut h);
        for body_item in result.body.iter().flat_map(|b| &b.items) {
            if let Some(message) = &body_item.message {
                message.message.hash(&mut h);
                message.name.hash(&mut h);
            }
        }
    }
    h.finish()
}
