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
use std::sync::Arc;

use eframe::egui::{
    self, Align, Color32, Layout, RichText, Role, Sense, Stroke, Ui, UiBuilder, WidgetInfo,
};
use egui_extras::{Column, TableBuilder};
use egui_plot::{
    Bar, BarChart, GridInput, GridMark, HoverPosition, Legend, Line, LineStyle, MarkerShape, Plot,
    PlotPoint, PlotPoints, Points, VLine,
};

use super::baselines::ComparedBaseline;
use super::memory_chart::{MemoryChartView, memory_chart_ui};
use super::memory_tables::{MemoryTableView, memory_table_ui};
use super::nvlink_topology::{TopologyView, topology_ui};
use super::pm_sampling_chart::{PmTimelineView, pm_timeline_ui};
use super::rule_state::{PageRules, RuleRow, RuleStatus};
use super::system_tables::{SystemTableView, system_table_ui};
use super::view_ctx::ViewCtx;
use sightline_model::format::format_with_unit;
use sightline_model::ncu::{
    Action, CellStyle, ColumnConfig, MetricValue, MsgType, Report, RuleMessage, RuleTable,
    StoredMessage, TableCell, rule_messages,
};
use sightline_model::proto::nv::rule_system::RuleResult;
use sightline_model::section::memory::MemoryWidget;
use sightline_model::section::system::SystemWidget;
use sightline_model::section::{
    ChartAxes, ChartAxis, DetailsSection, Entry, FixedWidget, Item, ItemKind, KernelDetails,
    RooflinePoint, TableLayout,
};

mod baseline;
mod charts;
mod instances;
mod markup;
mod page;
mod rules;
mod source_tables;

use charts::*;
use instances::*;
use markup::*;
pub use markup::{Span, parse_markup};
use page::*;
use rules::*;
pub use source_tables::SourceLink;
use source_tables::hot_spot_list;

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
    /// An instruction or source line of a source metric table clicked (open the Source page
    /// there).
    source_link: Option<SourceLink>,
    /// The shown baselines compared with the shown result (set by the tab each frame): header
    /// values, body tables, bar charts and the memory widgets compare with them.
    pub baselines: Vec<ComparedBaseline>,
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
            source_link: None,
            baselines: Vec::new(),
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

    /// The instruction or source line of a source metric table's row clicked since the last
    /// call: the tab opens the Source page there.
    pub fn take_source_link(&mut self) -> Option<SourceLink> {
        self.source_link.take()
    }

    /// Draws the Details page of `ctx.details` (with the rule results of `ctx.action`, or those
    /// applied in this session).
    pub fn ui(&mut self, ui: &mut Ui, ctx: &ViewCtx<'_>) {
        let results = ctx.action.rule_results();
        let fingerprint = fingerprint(ctx.details, results, ctx.rules, &self.baselines);
        let cache = match &mut self.cache {
            Some(cache) if cache.fingerprint == fingerprint => cache,
            slot => slot.insert(PageCache::build(
                ctx.details,
                results,
                ctx.rules,
                fingerprint,
                &self.baselines,
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
            hot_spot_rows,
            hot_spot_source,
            ..
        } = cache;
        let mut render = Render {
            baselines: &self.baselines,
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
            report: ctx.report,
            action: ctx.action,
            hot_spot_rows,
            hot_spot_source,
            source_link: None,
        };
        page_ui(
            ui,
            ctx.details,
            sections,
            other_rules,
            other_rule_rows,
            &mut render,
        );

        let Render {
            clicked_section,
            target_seen,
            settling,
            source_link,
            ..
        } = render;
        self.follow_up(ui, source_link, target_seen && !settling, clicked_section);
    }

    /// After the page was drawn: keeps a clicked source link, scrolls on to a pending target
    /// until it was seen settled (`target_shown`; for at most 120 frames) and to a clicked
    /// section.
    fn follow_up(
        &mut self,
        ui: &mut Ui,
        source_link: Option<SourceLink>,
        target_shown: bool,
        clicked_section: Option<String>,
    ) {
        if source_link.is_some() {
            self.source_link = source_link;
        }
        if let Some(target) = self.scroll_to.take() {
            self.scroll_frames += 1;
            if target_shown {
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

/// The scrolled page: each section, then the rules without a shown section ("Other rules").
fn page_ui(
    ui: &mut Ui,
    details: &KernelDetails,
    sections: &[SectionView],
    other_rules: &[usize],
    other_rule_rows: &[RuleLine],
    render: &mut Render<'_>,
) {
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
                section_ui(ui, section, view, render);
            }
            if !other_rules.is_empty() || !other_rule_rows.is_empty() {
                let response =
                    egui::CollapsingHeader::new(RichText::new("Other rules").strong().size(15.0))
                        .id_salt("details-other-rule-results")
                        .default_open(true)
                        .open(render.force_open)
                        .show(ui, |ui| {
                            for &index in other_rules.iter() {
                                if let Some(rule) = render.rules.get(index) {
                                    rule_ui(ui, rule, render);
                                }
                            }
                            rule_rows_ui(ui, other_rule_rows, render);
                        });
                response.header_response.on_hover_text(
                    "Independent rules, and rules whose section is not shown on this page",
                );
            }
        });
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
    /// The shown baselines.
    baselines: &'s [ComparedBaseline],
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
    /// The report shown (the kernel's module for source metric tables' lines).
    report: &'s Report,
    /// The kernel shown (per-instruction values of source metric tables).
    action: &'s Action,
    /// The ranked instructions of source metric tables, by (metric, rows, ascending).
    hot_spot_rows: &'s mut HotSpotRows,
    /// What source metric tables read.
    hot_spot_source: &'s mut source_tables::HotSpotSource,
    /// A source metric table's instruction or line clicked this frame.
    source_link: Option<SourceLink>,
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
        if render.baselines.is_empty() {
            let pairs = if ui.available_width() >= 640.0 { 2 } else { 1 };
            entries_grid(ui, &section.header, &view.header, pairs, false, render);
        } else {
            let id = (section.identifier.as_str(), "header");
            let section_id = &section.identifier;
            baseline::compared_grid(ui, id, section_id, &section.header, render.baselines);
        }
        instance_tables(ui, &section.header, &view.header, render);
    }
    for (index, (item, item_view)) in section.body.iter().zip(view.body.iter()).enumerate() {
        ui.push_id(("item", index), |ui| {
            item_ui(ui, &section.identifier, item, item_view, render)
        });
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

/// The section of body items not compared with the baselines (a rule's charts).
const NOT_COMPARED: &str = "";

/// Draws body item `item` of section `section` (compared with the baselines unless it is
/// [`NOT_COMPARED`]).
fn item_ui(ui: &mut Ui, section: &str, item: &Item, view: &ItemView, render: &mut Render<'_>) {
    ui.add_space(6.0);
    // A container's items have their own titles; a fixed table has one only when it has entries.
    if !matches!(view, ItemView::Container(_) | ItemView::Fixed { .. }) {
        item_title(ui, item);
    }
    let compared = section != NOT_COMPARED && !render.baselines.is_empty();
    match view {
        ItemView::Table { entries, columns } => {
            if item.entries.is_empty() {
                ui.weak("No metrics apply to this kernel.");
            } else if let ItemKind::SourceMetricTable(spec) = item.kind {
                hot_spot_list(ui, &item.entries, entries, spec, render);
            } else if compared {
                baseline::compared_grid(ui, "body", section, &item.entries, render.baselines);
                instance_tables(ui, &item.entries, entries, render);
            } else {
                entries_grid(
                    ui,
                    &item.entries,
                    entries,
                    *columns,
                    matches!(
                        item.kind,
                        ItemKind::Table(TableLayout {
                            column_major: true,
                            ..
                        })
                    ),
                    render,
                );
                instance_tables(ui, &item.entries, entries, render);
            }
        }
        ItemView::Bars(chart) => bar_chart_ui(ui, item, chart),
        ItemView::Lines(chart) => line_chart_ui(ui, item, chart),
        ItemView::Histogram(chart) => histogram_ui(ui, item, chart),
        ItemView::Roofline(chart) => roofline_ui(ui, chart),
        ItemView::Container(views) => container_ui(ui, section, item, views, render),
        ItemView::MemoryChart(chart) => memory_chart_ui(ui, chart),
        ItemView::MemoryTable(table) => memory_table_ui(ui, table),
        ItemView::SystemTable(table) => system_table_ui(ui, table),
        ItemView::Topology(topology) => topology_ui(ui, topology),
        ItemView::PmTimeline(timeline) => pm_timeline_ui(ui, timeline),
        ItemView::Fixed { entries, note } => {
            if item.entries.is_empty() {
                ui.weak(note.as_str());
            } else {
                item_title(ui, item);
                if !compared {
                    entries_grid(ui, &item.entries, entries, 1, false, render);
                } else {
                    baseline::compared_grid(ui, "fixed", section, &item.entries, render.baselines);
                }
                instance_tables(ui, &item.entries, entries, render);
            }
        }
    }
}

/// A horizontal container: nested items side by side (stacked when the panel is narrow).
fn container_ui(
    ui: &mut Ui,
    section: &str,
    item: &Item,
    views: &[ItemView],
    render: &mut Render<'_>,
) {
    let count = item.items.len().min(views.len());
    if count == 0 {
        return;
    }
    // Compared tables have a column per baseline: side by side they would not fit.
    let compared = section != NOT_COMPARED && !render.baselines.is_empty();
    if count == 1 || compared || ui.available_width() < 320.0 * count as f32 {
        for (index, (child, view)) in item.items.iter().zip(views).enumerate() {
            ui.push_id(("nested", index), |ui| {
                item_ui(ui, section, child, view, render)
            });
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
            column.push_id(("nested", index), |ui| {
                item_ui(ui, section, child, view, render)
            });
        }
    });
}
