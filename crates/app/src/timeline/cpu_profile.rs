//! The bottom panel's "CPU profile": the CPU samples of one thread or all of them, over the
//! selected time range or the whole timeline, as a Top-Down or Bottom-Up call tree, a Flat
//! function table (all in the shared [`crate::widgets::table`]) or a flame graph. Selecting a
//! function outlines on the timeline every sample whose call stack holds it.

use std::collections::HashSet;

use eframe::egui::{self, Align2, Color32, FontId, Pos2, Rect, Sense, Stroke, StrokeKind, Vec2};
use egui_extras::Column;

use sightline_model::timeline::{
    CallTree, EventKind, FlatRow, FrameId, StackCounts, Timeline, TrackId, TrackKind, flat,
    stacks_holding,
};

use crate::widgets::table::{Header, SortableTable, Table, cell_text};

/// How the profile is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProfileView {
    /// Callers above callees, from the threads' entry points.
    #[default]
    TopDown,
    /// The functions samples ended in, each with the paths that called it.
    BottomUp,
    /// Every function with its self and total samples.
    Flat,
    /// The top-down tree drawn as nested bars, widths by samples.
    FlameGraph,
}

impl ProfileView {
    const ALL: [ProfileView; 4] = [
        ProfileView::TopDown,
        ProfileView::BottomUp,
        ProfileView::Flat,
        ProfileView::FlameGraph,
    ];

    fn label(self) -> &'static str {
        match self {
            ProfileView::TopDown => "Top-Down",
            ProfileView::BottomUp => "Bottom-Up",
            ProfileView::Flat => "Flat",
            ProfileView::FlameGraph => "Flame graph",
        }
    }
}

/// Which samples the profile counts: a thread (or all) and a time range (or all).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Scope {
    thread: Option<TrackId>,
    range: Option<(i64, i64)>,
}

/// What one scope's samples give, built once per scope (each view when first shown).
#[derive(Debug)]
struct Built {
    scope: Scope,
    counts: StackCounts,
    top_down: Option<CallTree>,
    bottom_up: Option<CallTree>,
    flat: Option<Vec<FlatRow>>,
}

/// The CPU profile's state.
#[derive(Debug, Default)]
pub struct CpuProfile {
    /// The view shown.
    pub view: ProfileView,
    /// The thread whose samples are counted (`None`: every thread).
    pub thread: Option<TrackId>,
    /// Count only the samples of the selected time range.
    pub in_range: bool,
    /// The selected function.
    pub selected: Option<FrameId>,
    /// Per call-stack node: whether its stack holds the selected function (what the canvas
    /// outlines).
    pub highlight: Vec<bool>,
    built: Option<Built>,
    /// Expanded tree nodes, per tree view.
    expanded: [HashSet<u32>; 2],
    /// The flame graph's focused node (its width fills the graph).
    focus: u32,
    tree_table: SortableTable,
    flat_table: SortableTable,
}

/// Whether `timeline` has CPU samples (the profile is offered only then).
pub fn has_samples(timeline: &Timeline) -> bool {
    timeline
        .tracks
        .iter()
        .any(|t| t.kind == TrackKind::Series && t.name == SAMPLES_ROW)
}

/// The name of a thread's samples row.
const SAMPLES_ROW: &str = "CPU samples";

impl CpuProfile {
    /// Selects `frame` (or nothing) and outlines its samples.
    pub fn select(&mut self, timeline: &Timeline, frame: Option<FrameId>) {
        self.selected = frame;
        self.highlight = frame.map_or_else(Vec::new, |f| stacks_holding(&timeline.stacks, f));
    }

    /// Forgets what was built (the timeline's call stacks changed).
    pub fn reset(&mut self) {
        self.built = None;
        self.selected = None;
        self.highlight.clear();
    }

    /// Builds the profile of the current scope when the scope changed.
    fn ensure_built(&mut self, timeline: &Timeline, range: Option<(i64, i64)>) {
        let scope = Scope {
            thread: self.thread,
            range: range.filter(|_| self.in_range),
        };
        if self.built.as_ref().is_some_and(|b| b.scope != scope) {
            self.built = None;
        }
        if self.built.is_none() {
            self.expanded = Default::default();
            self.focus = 0;
            self.tree_table = SortableTable::default();
            self.flat_table = SortableTable::default();
        }
        let _ = self.built.get_or_insert_with(|| {
            let (t0, t1) = scope
                .range
                .or_else(|| timeline.time_range())
                .unwrap_or((0, 0));
            let tracks: Vec<TrackId> = scope.thread.into_iter().collect();
            Built {
                counts: timeline.sample_counts(t0, t1, &tracks),
                scope,
                top_down: None,
                bottom_up: None,
                flat: None,
            }
        });
    }

    /// Draws the profile; `range` is the timeline's selected range.
    pub fn ui(&mut self, ui: &mut egui::Ui, timeline: &Timeline, range: Option<(i64, i64)>) {
        if stacks_pending_ui(ui, timeline) {
            return;
        }
        self.controls_ui(ui, timeline, range);
        let view = self.view;
        self.ensure_built(timeline, range);
        let CpuProfile {
            built,
            expanded,
            focus,
            tree_table,
            flat_table,
            selected,
            ..
        } = self;
        let Some(built) = built.as_mut() else {
            return;
        };
        let selected = *selected;
        let samples = built.counts.samples;
        if samples == 0 {
            ui.weak("No CPU samples in this scope.");
            return;
        }
        let stacks = &timeline.stacks;
        let picked = match view {
            ProfileView::TopDown | ProfileView::BottomUp => {
                let bottom_up = view == ProfileView::BottomUp;
                let tree = if bottom_up {
                    built
                        .bottom_up
                        .get_or_insert_with(|| CallTree::bottom_up(stacks, &built.counts))
                } else {
                    built
                        .top_down
                        .get_or_insert_with(|| CallTree::top_down(stacks, &built.counts))
                };
                tree_ui(
                    ui,
                    timeline,
                    tree,
                    &mut expanded[usize::from(bottom_up)],
                    tree_table,
                    selected,
                    bottom_up,
                )
            }
            ProfileView::Flat => {
                let rows = built
                    .flat
                    .get_or_insert_with(|| flat(stacks, &built.counts));
                flat_ui(ui, timeline, rows, samples, flat_table, selected)
            }
            ProfileView::FlameGraph => {
                let tree = built
                    .top_down
                    .get_or_insert_with(|| CallTree::top_down(stacks, &built.counts));
                flame_graph_ui(ui, timeline, tree, focus, selected)
            }
        };
        if let Some(frame) = picked {
            self.select(timeline, frame);
        }
    }

    /// The controls: the views, the thread and Selected range only (enabled with a range).
    fn controls_ui(&mut self, ui: &mut egui::Ui, timeline: &Timeline, range: Option<(i64, i64)>) {
        ui.horizontal(|ui| {
            for view in ProfileView::ALL {
                if ui
                    .selectable_label(self.view == view, view.label())
                    .clicked()
                {
                    self.view = view;
                }
            }
            ui.separator();
            let threads = sampled_threads(timeline);
            let name = |t: Option<TrackId>| {
                t.and_then(|t| timeline.track(t))
                    .map_or("All threads".to_owned(), |t| t.name.clone())
            };
            egui::ComboBox::new("profile-thread", "Thread")
                .selected_text(name(self.thread))
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut self.thread, None, "All threads");
                    for t in threads {
                        ui.selectable_value(&mut self.thread, Some(t), name(Some(t)));
                    }
                });
            ui.add_enabled(
                range.is_some(),
                egui::Checkbox::new(&mut self.in_range, "Selected range only"),
            )
            .on_disabled_hover_text("Shift+drag on the timeline to select a range");
        });
    }
}

/// While the file or the CPU samples' call stacks are still being read, says so with a
/// spinner and returns true (there is no profile to draw yet).
fn stacks_pending_ui(ui: &mut egui::Ui, timeline: &Timeline) -> bool {
    if timeline.partial {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label("Reading the file… (the profile is made once it is read)");
        });
        return true;
    }
    if timeline.stacks_pending {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label("Reading the call stacks of the CPU samples… (the timeline is ready)");
        });
        return true;
    }
    false
}

/// The threads that have a samples row.
fn sampled_threads(timeline: &Timeline) -> Vec<TrackId> {
    timeline
        .tracks
        .iter()
        .filter(|t| t.kind == TrackKind::Series && t.name == SAMPLES_ROW)
        .filter_map(|t| t.parent)
        .collect()
}

/// `n` samples as a share of `of`.
fn percent(n: u64, of: u64) -> String {
    if of == 0 {
        return String::new();
    }
    format!("{:.1} %", n as f64 * 100.0 / of as f64)
}

/// A function's name and module.
fn frame_text(timeline: &Timeline, frame: Option<FrameId>) -> (String, String) {
    match frame.and_then(|f| timeline.stacks.frame(f)) {
        Some(f) => (
            timeline.name(f.symbol).to_owned(),
            timeline.name(f.module).to_owned(),
        ),
        None => ("[all samples]".to_owned(), String::new()),
    }
}

/// The Top-Down or Bottom-Up tree as a table of its expanded nodes; a click selects a
/// function and opens or closes its node. Returns the function picked.
fn tree_ui(
    ui: &mut egui::Ui,
    timeline: &Timeline,
    tree: &CallTree,
    expanded: &mut HashSet<u32>,
    table: &mut SortableTable,
    selected: Option<FrameId>,
    bottom_up: bool,
) -> Option<Option<FrameId>> {
    // The rows: the root's children and every expanded node's children, depth first.
    let mut rows: Vec<u32> = Vec::new();
    let mut stack: Vec<u32> = tree.nodes[0].children.iter().rev().copied().collect();
    while let Some(n) = stack.pop() {
        rows.push(n);
        if expanded.contains(&n) {
            stack.extend(tree.nodes[n as usize].children.iter().rev());
        }
    }
    let all = tree.nodes[0].total;
    let (total_tip, self_tip) = if bottom_up {
        (
            "Samples that ended in the path from this function up",
            "Samples whose whole stack is this path",
        )
    } else {
        (
            "Samples with this call path on the stack",
            "Samples taken while this function itself ran",
        )
    };
    let headers = vec![
        Header::new("Function", Column::remainder().at_least(240.0).clip(true)).fixed(),
        Header::new("Module", Column::initial(180.0).clip(true)).fixed(),
        Header::new("Total", Column::auto().at_least(60.0))
            .fixed()
            .tooltip(total_tip),
        Header::new("Total %", Column::auto().at_least(60.0)).fixed(),
        Header::new("Self", Column::auto().at_least(50.0))
            .fixed()
            .tooltip(self_tip),
        Header::new("Self %", Column::auto().at_least(60.0)).fixed(),
    ];
    let is_selected = |r: usize| {
        selected.is_some() && rows.get(r).map(|&n| tree.nodes[n as usize].frame) == Some(selected)
    };
    table.invalidate();
    let clicked = Table::new(("profile-tree", bottom_up), headers, "tree order")
        .header_height(20.0)
        .max_height(ui.available_height())
        .selected(&is_selected)
        .show(
            ui,
            table,
            rows.len(),
            &|_, _, _| std::cmp::Ordering::Equal,
            &mut |ui, r, c| {
                let node = &tree.nodes[rows[r] as usize];
                let (name, module) = frame_text(timeline, node.frame);
                match c {
                    0 => {
                        let arrow = match (node.children.is_empty(), expanded.contains(&rows[r])) {
                            (true, _) => "  ",
                            (false, true) => "- ",
                            (false, false) => "+ ",
                        };
                        let indent = "  ".repeat(node.depth.saturating_sub(1) as usize);
                        cell_text(ui, &format!("{indent}{arrow}{name}"))
                            .on_hover_text(format!("{name}\n{module}"));
                    }
                    1 => {
                        cell_text(ui, &module);
                    }
                    2 => {
                        cell_text(ui, &node.total.to_string());
                    }
                    3 => {
                        cell_text(ui, &percent(node.total, all));
                    }
                    4 => {
                        cell_text(ui, &node.self_count.to_string());
                    }
                    _ => {
                        cell_text(ui, &percent(node.self_count, all));
                    }
                }
            },
        )?;
    let node = rows[clicked];
    if !expanded.remove(&node) {
        expanded.insert(node);
    }
    Some(tree.nodes[node as usize].frame)
}

/// The Flat table, sortable; a click selects the function. Returns the function picked.
fn flat_ui(
    ui: &mut egui::Ui,
    timeline: &Timeline,
    rows: &[FlatRow],
    samples: u64,
    table: &mut SortableTable,
    selected: Option<FrameId>,
) -> Option<Option<FrameId>> {
    let headers = vec![
        Header::new("Function", Column::remainder().at_least(240.0).clip(true)),
        Header::new("Module", Column::initial(180.0).clip(true)),
        Header::new("Self", Column::auto().at_least(50.0))
            .tooltip("Samples taken while the function itself ran"),
        Header::new("Self %", Column::auto().at_least(60.0)),
        Header::new("Total", Column::auto().at_least(60.0))
            .tooltip("Samples with the function anywhere on the stack"),
        Header::new("Total %", Column::auto().at_least(60.0)),
    ];
    let texts: Vec<(String, String)> = rows
        .iter()
        .map(|r| frame_text(timeline, Some(r.frame)))
        .collect();
    let is_selected = |r: usize| selected.is_some() && Some(rows[r].frame) == selected;
    let compare = |c: usize, a: usize, b: usize| match c {
        0 => texts[a].0.cmp(&texts[b].0),
        1 => texts[a].1.cmp(&texts[b].1),
        2 | 3 => rows[a].self_count.cmp(&rows[b].self_count),
        _ => rows[a].total.cmp(&rows[b].total),
    };
    let clicked = Table::new("profile-flat", headers, "total samples")
        .header_height(20.0)
        .max_height(ui.available_height())
        .selected(&is_selected)
        .show(ui, table, rows.len(), &compare, &mut |ui, r, c| {
            let row = &rows[r];
            let text = match c {
                0 => texts[r].0.clone(),
                1 => texts[r].1.clone(),
                2 => row.self_count.to_string(),
                3 => percent(row.self_count, samples),
                4 => row.total.to_string(),
                _ => percent(row.total, samples),
            };
            let cell = cell_text(ui, &text);
            if c == 0 {
                cell.on_hover_text(format!("{}\n{}", texts[r].0, texts[r].1));
            }
        })?;
    Some(Some(rows[clicked].frame))
}

/// Height of a flame graph bar.
const BAR: f32 = 18.0;

/// The flame graph: the focused node across the whole width, callees below their callers,
/// widths by samples. A click on a bar focuses it and selects its function; a click on the
/// top bar (or the root) goes back up. Returns the function picked.
fn flame_graph_ui(
    ui: &mut egui::Ui,
    timeline: &Timeline,
    tree: &CallTree,
    focus: &mut u32,
    selected: Option<FrameId>,
) -> Option<Option<FrameId>> {
    let focus_node = tree.nodes.get(*focus as usize).map_or(0, |_| *focus);
    let depth = max_depth(tree, focus_node);
    let height = (depth as f32 + 1.0) * BAR;
    let mut picked = None;
    ui.weak(if focus_node == 0 {
        "Click a bar to zoom to it and outline its samples on the timeline."
    } else {
        "Zoomed in: click the top bar to go back up."
    });
    egui::ScrollArea::vertical()
        .id_salt("flame-graph")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            let width = ui.available_width();
            let (rect, response) = ui.allocate_exact_size(Vec2::new(width, height), Sense::click());
            response.widget_info(|| {
                egui::WidgetInfo::labeled(egui::Role::Image, true, "Flame graph bars")
            });
            let painter = ui.painter_at(rect);
            let visuals = ui.visuals().clone();
            let base = tree.nodes[focus_node as usize].depth;
            let total = tree.nodes[focus_node as usize].total.max(1) as f32;
            let scale = width / total;
            let hover = response.hover_pos();
            let mut hovered: Option<u32> = None;
            // (node, x) to draw; children start at their parent's x.
            let mut todo: Vec<(u32, f32)> = vec![(focus_node, rect.left())];
            while let Some((n, x)) = todo.pop() {
                let node = &tree.nodes[n as usize];
                let w = node.total as f32 * scale;
                if w < 1.0 {
                    continue;
                }
                let y = rect.top() + (node.depth - base) as f32 * BAR;
                let bar = Rect::from_min_size(Pos2::new(x, y), Vec2::new(w, BAR - 1.0));
                let fill = flame_fill(&visuals, timeline, node.frame);
                painter.rect_filled(bar, 1.0, fill);
                if selected.is_some() && node.frame == selected {
                    painter.rect_stroke(
                        bar,
                        1.0,
                        Stroke::new(2.0, super::colors::highlight(&visuals)),
                        StrokeKind::Inside,
                    );
                }
                if w > 30.0 {
                    let (name, _) = frame_text(timeline, node.frame);
                    painter.with_clip_rect(bar.shrink(2.0)).text(
                        Pos2::new(x + 3.0, bar.center().y),
                        Align2::LEFT_CENTER,
                        name,
                        FontId::proportional(11.0),
                        super::colors::text_on(fill),
                    );
                }
                if hover.is_some_and(|p| bar.contains(p)) {
                    hovered = Some(n);
                }
                let mut cx = x;
                for &c in &node.children {
                    todo.push((c, cx));
                    cx += tree.nodes[c as usize].total as f32 * scale;
                }
            }
            if let Some(n) = hovered {
                let node = &tree.nodes[n as usize];
                let (name, module) = frame_text(timeline, node.frame);
                let all = tree.nodes[0].total;
                response.clone().on_hover_text(format!(
                    "{name}\n{module}\n{} samples ({}), {} self",
                    node.total,
                    percent(node.total, all),
                    node.self_count
                ));
            }
            if response.clicked() {
                match hovered {
                    Some(n) if n == focus_node => {
                        *focus = tree.nodes[n as usize].parent.unwrap_or(0);
                    }
                    Some(n) => {
                        *focus = n;
                        picked = Some(tree.nodes[n as usize].frame);
                    }
                    None => {}
                }
            }
        });
    picked
}

/// The deepest node below `node`, as a depth relative to it.
fn max_depth(tree: &CallTree, node: u32) -> u32 {
    let base = tree.nodes[node as usize].depth;
    let mut deepest = 0;
    let mut todo = vec![node];
    while let Some(n) = todo.pop() {
        let node = &tree.nodes[n as usize];
        deepest = deepest.max(node.depth - base);
        todo.extend(&node.children);
    }
    deepest
}

/// A bar's fill: the samples' hue, varied by function; unresolved frames grey.
fn flame_fill(visuals: &egui::Visuals, timeline: &Timeline, frame: Option<FrameId>) -> Color32 {
    match frame.and_then(|f| timeline.stacks.frame(f)) {
        Some(f) if f.unresolved => visuals.widgets.inactive.bg_fill,
        Some(f) => super::colors::event_fill(visuals, EventKind::CpuSample, f.symbol, None),
        None => visuals.widgets.noninteractive.bg_fill,
    }
}
