//! The Source page of a report tab: a kernel's CUDA-C source, SASS and PTX with the report's
//! per-instruction metrics.
//!
//! Data flow: the page of a kernel is built once on a background job ([`build`]: the model's
//! `SourcePage`, nvdisasm's text when installed, the source files on this machine) into plain
//! rows ([`data::PageData`]) and kept for the last few kernels; a frame draws only the rows on
//! screen ([`grid`]). Hot spots, search matches, correlated rows and rule markers are computed
//! when what they depend on changes ([`nav`], [`markers`]), never per frame.
//!
//! One view, or two side by side: selecting a row in one highlights the rows of the other that
//! share its instructions and scrolls to them. The function/file selector ([`navigator`]) lists
//! per-function and per-file sums; the toolbar ([`toolbar`]) switches views, the heatmap's
//! column, % of the launch or absolute values, steps through hot spots and searches.

pub mod build;
pub mod data;
pub mod grid;
pub mod markers;
pub mod nav;
pub mod navigator;
pub mod toolbar;

use std::path::PathBuf;
use std::sync::Arc;

use eframe::egui::{self, Ui};

use sightline_model::ncu::source::FileLine;
use sightline_model::ncu::source::nvdisasm::{self, NvdisasmOptions};
use sightline_model::ncu::{Action, Report};
use sightline_model::proto::nv::rule_system::RuleResult;

use self::build::{BuildJob, PageCache};
use self::data::{FileText, PageData, Row, View};
use self::grid::{Grid, GridCache, GridResponse};
use self::markers::Markers;
use crate::ncu::rule_state::PageRules;
use crate::widgets::dialog::{Answer, Dialog, take_answer};

/// One of the (one or two) views shown.
#[derive(Debug, Clone)]
struct Pane {
    view: View,
    /// The file of the Source view.
    file: usize,
    selected: Option<usize>,
    /// Rows correlated with the other pane's selection (sorted).
    highlighted: Vec<usize>,
    scroll_to: Option<usize>,
    h_offset: f32,
    cache: GridCache,
}

impl Pane {
    fn new(view: View) -> Pane {
        Pane {
            view,
            file: 0,
            selected: None,
            highlighted: Vec::new(),
            scroll_to: None,
            h_offset: 0.0,
            cache: GridCache::default(),
        }
    }
}

/// A cached computation and the key it was made under.
type Keyed<K, T> = Option<(K, T)>;

/// The state of a tab's Source page.
pub struct SourcePageState {
    /// How nvdisasm is found and where its output is cached (tests point the cache at a
    /// temporary folder).
    pub nvdisasm: NvdisasmOptions,
    cache: PageCache,
    build: Option<BuildJob>,
    /// A failed build `(kernel, message)`.
    error: Option<(usize, String)>,
    kernel: Option<usize>,
    panes: [Pane; 2],
    /// Whether the second view is shown beside the first.
    pub side_by_side: bool,
    /// The pane the toolbar's hot spot and find buttons act on.
    active: usize,
    /// The column of the heatmap and the hot spots.
    column: Option<usize>,
    /// % of the launch (else absolute values).
    pub percent: bool,
    /// Only the heatmap's column (else every column with values).
    pub compact: bool,
    /// The search text.
    pub find: String,
    matches: Keyed<(usize, View, usize, String), Vec<usize>>,
    hot: Keyed<(usize, View, usize, usize), Vec<usize>>,
    markers: Keyed<(usize, u64, usize), Markers>,
    /// A PC to show once the page is built (a link from the Details page).
    pending_pc: Option<u64>,
    /// A source line to show once the page is built (a link from the Details page).
    pending_line: Option<FileLine>,
    /// A file-dialog or read error of Resolve….
    resolve_error: Option<String>,
    /// The Resolve… dialog being shown: its answer is the file for (kernel, file).
    resolve_dialog: Option<Dialog<(usize, usize, Option<PathBuf>)>>,
    /// Scroll both views to their first row with instructions (a newly shown kernel).
    initial_scroll: bool,
}

impl Default for SourcePageState {
    fn default() -> Self {
        Self::new()
    }
}

impl SourcePageState {
    /// A page showing the Source view, nvdisasm searched as the model does, its output cached
    /// in the user's cache folder.
    pub fn new() -> SourcePageState {
        SourcePageState {
            nvdisasm: NvdisasmOptions {
                cache_dir: Some(nvdisasm::default_cache_dir()),
                ..NvdisasmOptions::default()
            },
            cache: PageCache::default(),
            build: None,
            error: None,
            kernel: None,
            panes: [Pane::new(View::Source), Pane::new(View::Sass)],
            side_by_side: false,
            active: 0,
            column: None,
            percent: true,
            compact: false,
            find: String::new(),
            matches: None,
            hot: None,
            markers: None,
            pending_pc: None,
            pending_line: None,
            resolve_error: None,
            resolve_dialog: None,
            initial_scroll: true,
        }
    }

    /// The built page of the kernel shown, if ready.
    pub fn page(&self) -> Option<&PageData> {
        self.cache.get(self.kernel?).map(|p| p.as_ref())
    }

    /// Whether a build is running.
    pub fn is_building(&self) -> bool {
        self.build.is_some()
    }

    /// The view of pane `pane` (0: the first, 1: the one beside it).
    pub fn view(&self, pane: usize) -> Option<View> {
        self.panes.get(pane).map(|p| p.view)
    }

    /// Shows `view` in pane `pane` (the other pane changes view if it showed the same).
    pub fn set_view(&mut self, pane: usize, view: View) {
        let other = 1 - pane.min(1);
        if self.panes[other].view == view {
            self.panes[other] = Pane::new(self.panes[pane.min(1)].view);
        }
        if let Some(p) = self.panes.get_mut(pane)
            && p.view != view
        {
            *p = Pane::new(view);
        }
        self.clear_highlights();
    }

    /// The name of pane `pane`'s selected row (`Source kernel.cu:4`, `SASS 0x…`).
    pub fn selected_name(&self, pane: usize) -> Option<String> {
        let p = self.panes.get(pane)?;
        let row = self.rows_of(p)?.get(p.selected?)?;
        Some(row.name(p.view, self.file_name(p)))
    }

    /// The path of the file a pane's Source view shows.
    fn file_name(&self, pane: &Pane) -> Option<&str> {
        let page = self.page()?;
        Some(page.files.get(pane.file)?.name.as_str())
    }

    /// The names of pane `pane`'s rows highlighted by the other pane's selection.
    pub fn highlighted_names(&self, pane: usize) -> Vec<String> {
        let Some(p) = self.panes.get(pane) else {
            return Vec::new();
        };
        let rows = self.rows_of(p).unwrap_or(&[]);
        let file = self.file_name(p);
        p.highlighted
            .iter()
            .filter_map(|&r| rows.get(r).map(|r| r.name(p.view, file)))
            .collect()
    }

    /// The column of the heatmap, by label.
    pub fn heat_column(&self) -> Option<String> {
        Some(self.page()?.columns.get(self.column?)?.label.clone())
    }

    /// Opens the page at absolute PC `pc` (its source line beside its instruction when the
    /// binary has line info) once the page is built.
    pub fn go_to_pc(&mut self, pc: u64) {
        self.pending_pc = Some(pc);
        self.pending_line = None;
    }

    /// Opens the page at source line `location` in the Source view (selected, with its
    /// instructions highlighted in the view beside it) once the page is built.
    pub fn go_to_line(&mut self, location: FileLine) {
        self.pending_line = Some(location);
        self.pending_pc = None;
    }

    fn rows_of(&self, pane: &Pane) -> Option<&[Row]> {
        Some(self.page()?.rows(pane.view, pane.file))
    }

    fn clear_highlights(&mut self) {
        for p in &mut self.panes {
            p.highlighted.clear();
        }
    }

    /// Selects `row` in pane `pane` and highlights (and scrolls to) its correlated rows in
    /// the other pane.
    fn select(&mut self, pane: usize, row: usize, scroll: bool) {
        self.active = pane;
        self.panes[pane].selected = Some(row);
        if scroll {
            self.panes[pane].scroll_to = Some(row);
        }
        let Some(page) = self.kernel.and_then(|k| self.cache.get(k)).cloned() else {
            return;
        };
        self.panes[pane].highlighted.clear();
        let other = 1 - pane;
        let pcs: Vec<u32> = page
            .rows(self.panes[pane].view, self.panes[pane].file)
            .get(row)
            .map(|r| r.pcs.clone())
            .unwrap_or_default();
        if self.panes[other].view == View::Source
            && let Some(&first) = pcs.first()
            && let Some(file) = page
                .files
                .iter()
                .position(|f| f.rows.iter().any(|r| r.pcs.contains(&first)))
            && file != self.panes[other].file
        {
            self.panes[other].file = file;
            self.panes[other].selected = None;
        }
        let to = page.rows(self.panes[other].view, self.panes[other].file);
        let highlighted = nav::correlated(to, &pcs);
        self.panes[other].scroll_to = highlighted.first().copied();
        self.panes[other].highlighted = highlighted;
    }

    /// Starts the build of `kernel` unless built or building; picks up a finished build.
    fn ensure_built(&mut self, ctx: &egui::Context, report: &Arc<Report>, action: &Arc<Action>) {
        let kernel = action.index();
        if self.kernel != Some(kernel) {
            self.kernel = Some(kernel);
            let views = (self.panes[0].view, self.panes[1].view);
            self.panes = [Pane::new(views.0), Pane::new(views.1)];
            self.matches = None;
            self.hot = None;
            self.initial_scroll = true;
        }
        if let Some(job) = &mut self.build {
            if let Some(result) = job.poll() {
                let built = job.kernel;
                self.build = None;
                match result {
                    Ok(page) => {
                        self.cache.insert(built, Arc::new(page));
                        if built == kernel {
                            self.on_built();
                        }
                    }
                    Err(e) => self.error = Some((built, e.to_string())),
                }
            } else if job.kernel != kernel {
                // Another kernel was selected: dropping the job cancels it.
                self.build = None;
            }
        }
        let failed = self.error.as_ref().is_some_and(|(k, _)| *k == kernel);
        if self.cache.get(kernel).is_none() && self.build.is_none() && !failed {
            let wake_ctx = ctx.clone();
            self.build = Some(BuildJob::start(
                report.clone(),
                action.clone(),
                self.nvdisasm.clone(),
                move || wake_ctx.request_repaint(),
            ));
        }
    }

    /// Picks defaults for a freshly built page: the first column with values, the SASS view
    /// when there is no line info.
    fn on_built(&mut self) {
        let Some(page) = self.page() else { return };
        let column = page
            .columns
            .iter()
            .position(|c| c.numeric && c.total > 0.0)
            .or_else(|| page.columns.iter().position(|c| c.numeric));
        let no_lines = !page.has_line_info;
        if self.column.is_none_or(|c| c >= page.columns.len()) {
            self.column = column;
        }
        if no_lines && self.panes[0].view == View::Source {
            self.panes[0] = Pane::new(View::Sass);
            self.panes[1] = Pane::new(View::Ptx);
        }
    }

    /// Applies a pending Details link: the source line in the first pane and the instruction
    /// beside it (or the instruction alone without line info).
    fn apply_pending_pc(&mut self) {
        let Some(pc) = self.pending_pc else { return };
        let Some(page) = self.page() else { return };
        let (found, has_line_info) = (page.sass_row_of(pc), page.has_line_info);
        self.pending_pc = None;
        let Some(row) = found else {
            self.resolve_error = Some(format!(
                "{pc:#x} is not an instruction of this kernel's page"
            ));
            return;
        };
        if has_line_info {
            self.panes[0] = Pane::new(View::Source);
            self.panes[1] = Pane::new(View::Sass);
            self.side_by_side = true;
            self.select(1, row, true);
            // Select the source line too (its first line), keeping the SASS highlight.
            if let Some(&line) = self.panes[0].highlighted.first() {
                self.panes[0].selected = Some(line);
                self.panes[0].scroll_to = Some(line);
                self.panes[0].highlighted.clear();
                self.panes[1].highlighted = vec![row];
            }
        } else {
            self.panes[0] = Pane::new(View::Sass);
            self.select(0, row, true);
        }
    }

    /// Applies a pending Details link to a source line: its file in the first pane's Source
    /// view, the line selected and scrolled to.
    fn apply_pending_line(&mut self) {
        let Some(location) = self.pending_line.take() else {
            return;
        };
        let Some(page) = self.page() else {
            self.pending_line = Some(location);
            return;
        };
        let found = page
            .files
            .iter()
            .position(|f| f.name == location.file)
            .and_then(|file| {
                let line = location.line.to_string();
                let row = page.files[file]
                    .rows
                    .iter()
                    .position(|r| r.location == line)?;
                Some((file, row))
            });
        let Some((file, row)) = found else {
            self.resolve_error = Some(format!(
                "{}:{} is not a line of this kernel's page",
                location.file, location.line
            ));
            return;
        };
        if self.panes[0].view != View::Source {
            self.set_view(0, View::Source);
        }
        self.panes[0].file = file;
        self.select(0, row, true);
    }

    /// Draws the page of kernel result `action`. `results` are its stored rule results,
    /// `rules` those applied in this session.
    pub fn ui(
        &mut self,
        ui: &mut Ui,
        report: &Arc<Report>,
        action: &Arc<Action>,
        results: &[RuleResult],
        rules: Option<&PageRules>,
    ) {
        let Some(page) = self.built_page(ui, report, action) else {
            return;
        };
        self.prepare_frame(&page, action.index(), results, rules);
        let action = toolbar::toolbar(ui, self, &page);
        self.apply(action, &page);
        for message in &page.messages {
            ui.label(egui::RichText::new(message.as_str()).weak());
        }
        if let Some(e) = &self.resolve_error {
            ui.colored_label(ui.visuals().warn_fg_color, e.as_str());
        }
        if page.sass.is_empty() {
            ui.label("The report holds no instructions for this kernel.");
            return;
        }

        let action = navigator::navigator(ui, self, &page);
        self.apply(action, &page);
        let panes = if self.side_by_side { 2 } else { 1 };
        let shown = self.shown_columns(&page);
        let mut clicks: Vec<(usize, GridResponse)> = Vec::new();
        let mut resolve: Option<usize> = None;
        ui.columns(panes, |columns| {
            for (index, column_ui) in columns.iter_mut().enumerate() {
                let (response, resolve_clicked) = self.pane_ui(column_ui, index, &page, &shown);
                if resolve_clicked {
                    resolve = Some(index);
                }
                if let Some(response) = response {
                    clicks.push((index, response));
                }
            }
        });
        if let Some(index) = resolve {
            self.resolve(ui.ctx(), index);
        }
        for (index, response) in clicks {
            self.panes[index].scroll_to = None;
            self.panes[index].h_offset = response.h_offset;
            if let Some(c) = response.column_clicked {
                self.column = Some(c);
                self.hot = None;
            }
            if let Some(row) = response.clicked {
                self.select(index, row, false);
            }
        }
    }

    /// The page of kernel result `action` once built: reads a resolved file the dialog
    /// answered, starts the build if needed, and shows the build's error or progress instead
    /// while there is no page.
    fn built_page(
        &mut self,
        ui: &mut Ui,
        report: &Arc<Report>,
        action: &Arc<Action>,
    ) -> Option<Arc<PageData>> {
        let kernel = action.index();
        if let Some(Answer {
            value: (k, file, Some(path)),
            ..
        }) = take_answer(&mut self.resolve_dialog)
        {
            self.resolve_path(k, file, path);
        }
        self.ensure_built(ui.ctx(), report, action);
        if let Some((k, error)) = &self.error
            && *k == kernel
        {
            ui.colored_label(ui.visuals().error_fg_color, error.as_str());
            return None;
        }
        let page = self.cache.get(kernel).cloned();
        if page.is_none() {
            ui.horizontal(|ui| {
                ui.spinner();
                let stage = self
                    .build
                    .as_ref()
                    .and_then(|b| b.progress.as_ref())
                    .map_or("starting", |(_, s)| s.as_str());
                ui.label(format!("Building the Source page: {stage}…"));
            });
        }
        page
    }

    /// Before drawing `page` of `kernel`: the first scroll to the first row with code, the
    /// PC or line asked for from elsewhere, and the rule markers (rebuilt when the rules or
    /// results changed).
    fn prepare_frame(
        &mut self,
        page: &PageData,
        kernel: usize,
        results: &[RuleResult],
        rules: Option<&PageRules>,
    ) {
        if std::mem::take(&mut self.initial_scroll) {
            for pane in &mut self.panes {
                pane.scroll_to = page
                    .rows(pane.view, pane.file)
                    .iter()
                    .position(|r| !r.pcs.is_empty());
            }
        }
        self.apply_pending_pc();
        self.apply_pending_line();
        let rules_key = (kernel, rules.map_or(0, |r| r.version), results.len());
        if self.markers.as_ref().is_none_or(|(k, _)| *k != rules_key) {
            self.markers = Some((rules_key, Markers::build(results, rules, page)));
        }
    }

    /// The columns the grids show: in compact mode only the heatmap's column, else all but
    /// the numeric columns without a value in the launch (a stall reason never sampled).
    fn shown_columns(&self, page: &PageData) -> Vec<usize> {
        page.columns
            .iter()
            .enumerate()
            .filter(|&(c, info)| {
                if self.compact {
                    Some(c) == self.column
                } else {
                    !info.numeric || info.total != 0.0 || Some(c) == self.column
                }
            })
            .map(|(c, _)| c)
            .collect()
    }

    /// Draws pane `index`: a Source view's missing-file line (with its Resolve… button) above
    /// the grid, or only the no-line-info message. Returns the grid's response (none without
    /// a grid) and whether Resolve… was clicked.
    fn pane_ui(
        &mut self,
        ui: &mut Ui,
        index: usize,
        page: &PageData,
        shown: &[usize],
    ) -> (Option<GridResponse>, bool) {
        let mut cache = std::mem::take(&mut self.panes[index].cache);
        let pane = &self.panes[index];
        let file = page.files.get(pane.file);
        let mut resolve = false;
        if pane.view == View::Source {
            if !page.has_line_info {
                ui.label(data::NO_LINE_INFO);
                return (None, false);
            }
            if let Some(file) = file
                && file.text == FileText::Missing
            {
                ui.horizontal(|ui| {
                    ui.label(format!("{}: file not in report", file.name));
                    if ui
                        .button("Resolve…")
                        .on_hover_text("Choose this file on this machine")
                        .clicked()
                    {
                        resolve = true;
                    }
                });
            }
        }
        let matches: &[usize] = match &self.matches {
            Some((key, m)) if index == self.active && key.1 == pane.view => m,
            _ => &[],
        };
        let empty = Markers::default();
        let markers = self.markers.as_ref().map_or(&empty, |(_, m)| m);
        let id = format!("source-pane-{index}");
        let response = Grid {
            id: &id,
            rows: page.rows(pane.view, pane.file),
            columns: &page.columns,
            shown,
            view: pane.view,
            heat: self.column,
            percent: self.percent,
            selected: pane.selected,
            highlighted: &pane.highlighted,
            matches,
            markers,
            file: (pane.view == View::Source)
                .then(|| file.map(|f| f.name.as_str()))
                .flatten(),
            scroll_to: pane.scroll_to,
            h_offset: pane.h_offset,
            cache: &mut cache,
        }
        .show(ui);
        self.panes[index].cache = cache;
        (Some(response), resolve)
    }

    /// Asks for the file of pane `pane`'s Source view (a dialog on its own thread; the file
    /// is read when it answers, see [`SourcePageState::ui`]).
    fn resolve(&mut self, ctx: &egui::Context, pane: usize) {
        let Some(kernel) = self.kernel else { return };
        if self.resolve_dialog.is_some() {
            return;
        }
        let file = self.panes[pane].file;
        let Some(name) = self
            .page()
            .and_then(|p| p.files.get(file))
            .map(|f| f.name.clone())
        else {
            return;
        };
        let short = data::short_name(&name).to_owned();
        let pick = move || {
            let path = rfd::FileDialog::new()
                .set_title(format!("Where is {name}?"))
                .set_file_name(short)
                .pick_file();
            (kernel, file, path)
        };
        let repaint = ctx.clone();
        match Dialog::spawn("file", move || repaint.request_repaint(), pick) {
            Ok(dialog) => self.resolve_dialog = Some(dialog),
            Err(error) => self.resolve_error = Some(error),
        }
    }

    /// Gives file `file` of `kernel`'s page the text of `path`.
    fn resolve_path(&mut self, kernel: usize, file: usize, path: PathBuf) {
        match build::read_local(&path) {
            Some(content) => {
                if let Some(page) = self.cache.get_mut(kernel) {
                    page.resolve_file(file, path, &content);
                }
                for pane in &mut self.panes {
                    pane.cache = GridCache::default();
                }
                self.resolve_error = None;
                self.matches = None;
                self.hot = None;
            }
            None => {
                self.resolve_error = Some(format!(
                    "{} could not be read (or is larger than 16 MB)",
                    path.display()
                ));
            }
        }
    }

    /// Resolves file `file` of the shown kernel's page from `path` without a dialog (what
    /// Resolve… does after the dialog; for tests and scripts).
    pub fn resolve_file(&mut self, file: usize, path: PathBuf) {
        if let Some(kernel) = self.kernel {
            self.resolve_path(kernel, file, path);
        }
    }

    /// Applies a toolbar or selector action.
    fn apply(&mut self, action: Option<toolbar::Action>, page: &Arc<PageData>) {
        use toolbar::Action;
        let Some(action) = action else { return };
        let active = self.active.min(if self.side_by_side { 1 } else { 0 });
        let (view, file, selected) = {
            let pane = &self.panes[active];
            (pane.view, pane.file, pane.selected)
        };
        let rows = page.rows(view, file);
        match action {
            Action::View(pane, view) => self.set_view(pane, view),
            Action::Column(c) => {
                self.column = Some(c);
                self.hot = None;
            }
            Action::HotSpot(forward) => {
                let Some(column) = self.column else { return };
                let key = (self.kernel.unwrap_or(0), view, file, column);
                if self.hot.as_ref().is_none_or(|(k, _)| *k != key) {
                    self.hot = Some((key, nav::hot_spots(rows, column)));
                }
                let ranking = self.hot.as_ref().map_or(&[][..], |(_, h)| h.as_slice());
                if let Some(row) = nav::step_hot_spot(ranking, selected, forward) {
                    self.select(active, row, true);
                }
            }
            Action::Find(forward) => {
                let key = (self.kernel.unwrap_or(0), view, file, self.find.clone());
                if self.matches.as_ref().is_none_or(|(k, _)| *k != key) {
                    self.matches = Some((key, nav::find(rows, &self.find)));
                }
                let matches = self.matches.as_ref().map_or(&[][..], |(_, m)| m.as_slice());
                if let Some(row) = nav::next_match(matches, selected, forward) {
                    self.select(active, row, true);
                }
            }
            Action::File(chosen) => {
                let target = if self.panes[0].view == View::Source {
                    0
                } else if self.side_by_side && self.panes[1].view == View::Source {
                    1
                } else {
                    self.set_view(0, View::Source);
                    0
                };
                if self.panes[target].file != chosen {
                    self.panes[target].file = chosen;
                    self.panes[target].selected = None;
                    self.panes[target].scroll_to = Some(0);
                }
                self.active = target;
            }
            Action::Function(row) => {
                let target = if self.panes[0].view == View::Sass {
                    0
                } else if self.side_by_side && self.panes[1].view == View::Sass {
                    1
                } else {
                    self.set_view(0, View::Sass);
                    0
                };
                self.select(target, row, true);
            }
        }
    }

    /// The number of search matches in the active view, and which one is selected.
    pub fn match_count(&self) -> (usize, Option<usize>) {
        let Some((_, matches)) = &self.matches else {
            return (0, None);
        };
        let selected = self.panes[self.active].selected;
        (
            matches.len(),
            selected.and_then(|s| matches.iter().position(|&m| m == s)),
        )
    }

    /// The column of the heatmap (index).
    fn column(&self) -> Option<usize> {
        self.column
    }

    /// The active pane's view.
    fn active_view(&self) -> View {
        self.panes[self.active].view
    }
}
