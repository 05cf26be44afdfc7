//! One open report: its loader, kernel list, selected kernel and Details page.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use eframe::egui;

use super::baselines::bar::baselines_bar;
use super::baselines::{BaselineStore, ComparedBaseline, resolve_page};
use super::details::{DetailsPanel, RuleRequest, SourceLink};
use super::kernel_list::KernelList;
use super::loader::{LoadError, LoadEvent, start_load};
use super::raw_page::RawPage;
use super::rule_runner::{ApplyRequest, RuleRunner, RuleSelection};
use super::rule_state::{PageRules, TabRules};
use super::section_state::{SectionSource, SectionState};
use super::source_page::SourcePageState;
use super::summary_page::{SummaryAction, SummaryPage};
use super::view_ctx::ViewCtx;
use crate::document::{Services, Wake};
use crate::lifecycle::{DocumentView, Load, LoadJob, Opened, STARTING};
use crate::widgets::problems::ProblemList;
use sightline_model::ncu::{Action, Report};
use sightline_model::problem::Problem;
use sightline_model::section::{DetailsSection, KernelDetails, SectionSet, resolve_action};
use sightline_rules::{RunOptions, SectionBinding};

/// Which page of a report is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Page {
    /// The Details page of the selected kernel.
    Details,
    /// Session information: device, versions, command line, process.
    Session,
    /// The selected kernel's CUDA-C source, SASS and PTX with per-instruction metrics.
    Source,
    /// One row per result, sortable and filterable.
    Summary,
    /// Every metric of the selected result.
    Raw,
}

/// The selected kernel, decoded and resolved.
struct Current {
    /// Shared with the Source page's build.
    action: Arc<Action>,
    details: KernelDetails,
    /// The sections the page was resolved against (before disabled ones were removed).
    sections: Arc<SectionSet>,
    source: SectionSource,
    /// [`SectionState::generation`] at resolution.
    generation: u64,
}

/// Source of tab ids.
static NEXT_TAB_ID: AtomicU64 = AtomicU64::new(1);

/// An open report tab.
pub struct ReportTab {
    /// Unique id (rule requests name the tab they came from).
    pub(super) id: u64,
    /// The report's file; the report once indexed.
    load: Load<ReportTab>,
    /// The kernel list.
    pub(super) list: KernelList,
    /// Selected action index.
    pub(super) selected: usize,
    /// What went wrong with the report once loaded (a section folder, a rule request, a
    /// baseline), shown above the page.
    problem: Option<String>,
    /// Why the selected kernel could not be decoded (cleared when another one is selected).
    kernel_error: Option<String>,
    current: Option<Current>,
    /// The Details page panel.
    pub(super) panel: DetailsPanel,
    /// The page shown.
    pub(super) page: Page,
    /// The Summary page.
    pub(super) summary: SummaryPage,
    /// The Raw page.
    pub(super) raw: RawPage,
    /// Rules applied in this session.
    pub(super) rules: TabRules,
    /// The Source page.
    pub(super) source: SourcePageState,
    /// The rules of the shown page, with the key they were made under
    /// `(kernel, rules version, sections generation, running)`.
    page_rules: Option<((usize, u64, u64, bool), PageRules)>,
    /// The timelines open beside the report that linked its results.
    pub(super) timeline_links: super::timeline_links::TimelineLinks,
    /// "Show on timeline" requests, handed to the shell after drawing.
    pub(super) navigate: Vec<crate::document::Navigate>,
}

impl ReportTab {
    /// Starts loading `path`; `wake` requests a repaint when loading progresses.
    pub fn open(path: PathBuf, wake: impl Fn() + Send + Sync + 'static) -> ReportTab {
        let mut tab = ReportTab {
            id: NEXT_TAB_ID.fetch_add(1, Ordering::Relaxed),
            load: Load::new(path, Arc::new(wake)),
            list: KernelList::default(),
            selected: 0,
            problem: None,
            kernel_error: None,
            current: None,
            panel: DetailsPanel::new(),
            page: Page::Details,
            summary: SummaryPage::default(),
            raw: RawPage::default(),
            rules: TabRules::default(),
            source: SourcePageState::new(),
            page_rules: None,
            timeline_links: Default::default(),
            navigate: Vec::new(),
        };
        crate::lifecycle::start(&mut tab, STARTING);
        tab
    }

    /// The report's file.
    pub fn path(&self) -> &std::path::Path {
        self.load.path()
    }

    /// The report, once indexed.
    pub fn report(&self) -> Option<&Arc<Report>> {
        self.load.loaded()
    }

    /// The kernel list.
    pub fn list(&self) -> &KernelList {
        &self.list
    }

    /// The selected result's index.
    pub fn selected(&self) -> usize {
        self.selected
    }

    /// Why the report or something done with it failed: the load's error, else the problem
    /// shown above the page.
    pub fn error(&self) -> Option<&str> {
        self.load.error().or(self.problem.as_deref())
    }

    /// Selects action `index` (decoded and resolved on the next frame that shows it).
    pub fn select(&mut self, index: usize) {
        if self.selected != index {
            self.selected = index;
            self.current = None;
            self.kernel_error = None;
        }
    }

    /// Drops the resolved page so that it is resolved again (sections changed).
    pub fn invalidate(&mut self) {
        self.current = None;
    }

    /// Decodes and resolves the selected kernel if needed (or when the sections changed).
    fn ensure_current(&mut self, sections: &SectionState) {
        if self.current.as_ref().is_some_and(|c| {
            c.action.index() == self.selected && c.generation == sections.generation
        }) {
            return;
        }
        let Some(report) = self.load.loaded() else {
            return;
        };
        if self.selected >= report.num_actions() {
            return;
        }
        let action = match self.current.take() {
            Some(current) if current.action.index() == self.selected => Ok(current.action),
            _ => report.action(self.selected).map(Arc::new),
        };
        let action = match action {
            Ok(action) => action,
            Err(error) => {
                self.kernel_error = Some(error.to_string());
                return;
            }
        };
        let source = sections.source_for(&action);
        let (set, problem) = sections.sections_for(&action);
        if problem.is_some() {
            self.problem = problem;
        }
        let details = if sections.disabled.is_empty() {
            resolve_action(&action, &set)
        } else {
            resolve_action(&action, &set.without(&sections.disabled))
        };
        self.current = Some(Current {
            action,
            details,
            sections: set,
            source,
            generation: sections.generation,
        });
    }

    /// The sections the shown page uses and where they come from.
    pub fn sections_in_use(&self) -> Option<(SectionSource, &SectionSet)> {
        self.current
            .as_ref()
            .map(|c| (c.source, c.sections.as_ref()))
    }

    /// The Details page of the selected kernel, once resolved.
    pub fn details(&self) -> Option<&KernelDetails> {
        self.current.as_ref().map(|c| &c.details)
    }

    /// The rules of the shown page (made again when something they depend on changed).
    pub fn page_rules(
        &mut self,
        sections: &SectionState,
        runner: &RuleRunner,
    ) -> Option<&PageRules> {
        let current = self.current.as_ref()?;
        let kernel = current.action.index();
        let running = runner.pending(self.id, kernel);
        let key = (
            kernel,
            self.rules.version,
            sections.generation,
            !running.is_empty(),
        );
        if self.page_rules.as_ref().is_none_or(|(k, _)| *k != key) {
            let page = self.rules.page(&current.action, &sections.rules, &running);
            self.page_rules = Some((key, page));
        }
        self.page_rules.as_ref().map(|(_, page)| page)
    }

    /// The rules of the page last shown, with their states.
    pub fn shown_page_rules(&self) -> Option<&PageRules> {
        self.page_rules.as_ref().map(|(_, page)| page)
    }

    /// Queues `selection` for `kernel` on the rule engine, with the rules of the search path
    /// (the bundled ones from memory when there is no folder) and the sections of the page.
    pub fn apply_rules(
        &mut self,
        kernel: usize,
        selection: RuleSelection,
        sections: &SectionState,
        runner: &mut RuleRunner,
    ) {
        let Some(report) = self.load.loaded().cloned() else {
            return;
        };
        let mut ids = HashSet::new();
        fn walk(section: &DetailsSection, ids: &mut HashSet<String>) {
            ids.insert(section.identifier.clone());
            section.children.iter().for_each(|c| walk(c, ids));
        }
        match &self.current {
            Some(current) if current.action.index() == kernel => {
                current
                    .details
                    .sections
                    .iter()
                    .for_each(|s| walk(s, &mut ids));
            }
            _ => match report.action(kernel) {
                Ok(action) => {
                    let (set, _) = sections.sections_for(&action);
                    let details = resolve_action(&action, &set.without(&sections.disabled));
                    details.sections.iter().for_each(|s| walk(s, &mut ids));
                }
                Err(error) => {
                    self.problem = Some(error.to_string());
                    return;
                }
            },
        }
        let folders: Vec<PathBuf> = sections.folders.iter().map(|f| f.path.clone()).collect();
        let mut options = RunOptions::new(folders.clone());
        options.chart_folders = folders;
        options.bundled_from_memory = sections.folders.is_empty();
        options.sections = SectionBinding::Identifiers(ids);
        runner.submit(ApplyRequest {
            tab: self.id,
            report,
            kernel,
            selection,
            options,
        });
    }

    /// Applies again what was applied, on every kernel that has applied rules (rule files
    /// changed).
    pub fn reapply_rules(&mut self, sections: &SectionState, runner: &mut RuleRunner) {
        for kernel in self.rules.applied_kernels() {
            for selection in self.rules.to_reapply(kernel) {
                self.apply_rules(kernel, selection, sections, runner);
            }
        }
    }

    /// Adds result `index` (decoded and resolved as its Details page is) to `baselines`.
    pub fn add_baseline(
        &mut self,
        index: usize,
        sections: &SectionState,
        baselines: &mut BaselineStore,
    ) {
        let Some(report) = self.load.loaded().cloned() else {
            return;
        };
        let path = self.load.path();
        if let Some(current) = self.current.as_ref().filter(|c| c.action.index() == index) {
            let page = (&current.details, current.generation);
            baselines.add(path, &current.action, page, &self.list.rows, Some(report));
            return;
        }
        match report.action(index) {
            Ok(action) => {
                let details = resolve_page(&action, sections);
                let page = (&details, sections.generation);
                baselines.add(path, &action, page, &self.list.rows, Some(report));
            }
            Err(error) => self.problem = Some(format!("cannot add result {index}: {error}")),
        }
    }

    /// The shown baselines compared with the selected result.
    fn compared_baselines(
        &self,
        sections: &SectionState,
        baselines: &mut BaselineStore,
    ) -> Vec<ComparedBaseline> {
        let names: Vec<&str> = self.list.rows.iter().map(|r| r.name.as_str()).collect();
        baselines.compared_with(self.load.path(), &names, self.selected, sections)
    }

    /// Draws the tab: kernel list on the left, the page in the center.
    /// Returns true when the user asked for the Metric Selection window.
    fn report_ui(
        &mut self,
        ui: &mut egui::Ui,
        sections: &SectionState,
        runner: &mut RuleRunner,
        baselines: &mut BaselineStore,
    ) -> bool {
        let mut open_selection = false;
        egui::Panel::left("kernel-list")
            .resizable(true)
            .default_size(360.0)
            .show(ui, |ui| {
                if let Some(clicked) = self.list.ui(ui, self.selected) {
                    self.select(clicked);
                }
            });
        if let Some(index) = self.list.add_baseline.take() {
            self.add_baseline(index, sections, baselines);
        }
        egui::CentralPanel::default().show(ui, |ui| {
            open_selection = self.page_bar_ui(ui, sections, baselines);
            let compared = self.compared_baselines(sections, baselines);
            baselines_bar(ui, baselines, &compared);
            ui.separator();
            if matches!(self.page, Page::Details | Page::Source | Page::Raw) {
                self.ensure_current(sections);
            }
            for error in self.problem.iter().chain(&self.kernel_error) {
                ui.colored_label(ui.visuals().error_fg_color, error);
            }
            let Some(report) = self.load.loaded().cloned() else {
                return;
            };
            read_warnings_ui(
                ui,
                &report,
                self.current.as_ref().map(|c| c.action.as_ref()),
            );
            match self.page {
                Page::Session => super::session_page::session_ui(ui, &report),
                Page::Source => {
                    self.page_rules(sections, runner);
                    if let Some(current) = &self.current {
                        let rules = self.page_rules.as_ref().map(|(_, p)| p);
                        let results = current.action.rule_results();
                        self.source.ui(ui, &report, &current.action, results, rules);
                    } else if report.num_actions() == 0 {
                        ui.label("This report contains no results.");
                    }
                }
                Page::Summary => self.summary_page_ui(ui, &report, sections, baselines),
                Page::Raw => match &self.current {
                    Some(current) => self.raw.ui(ui, &report, &current.action),
                    None if report.num_actions() == 0 => {
                        ui.label("This report contains no results.");
                    }
                    None => {}
                },
                Page::Details => {
                    self.details_page_ui(ui, &report, compared, sections, runner);
                }
            }
        });
        open_selection
    }

    /// The bar above the page: the page tabs, and at the right Metric Selection… and (on the
    /// Details page) Add as baseline. True when Metric Selection… was clicked.
    fn page_bar_ui(
        &mut self,
        ui: &mut egui::Ui,
        sections: &SectionState,
        baselines: &mut BaselineStore,
    ) -> bool {
        let mut open_selection = false;
        ui.horizontal(|ui| {
            ui.selectable_value(&mut self.page, Page::Details, "Details");
            ui.selectable_value(&mut self.page, Page::Session, "Session");
            ui.selectable_value(&mut self.page, Page::Source, "Source");
            ui.selectable_value(&mut self.page, Page::Summary, "Summary");
            ui.selectable_value(&mut self.page, Page::Raw, "Raw");
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui
                    .button("Metric Selection…")
                    .on_hover_text("Sections and rules: load errors, Reload, enable/disable")
                    .clicked()
                {
                    open_selection = true;
                }
                if self.page == Page::Details
                    && ui
                        .button("Add as baseline")
                        .on_hover_text("Compare every report's Details page with this result")
                        .clicked()
                {
                    self.add_baseline(self.selected, sections, baselines);
                }
            });
        });
        open_selection
    }

    /// The Summary page: opening a result shows its Details page; a result can be added as
    /// a baseline.
    fn summary_page_ui(
        &mut self,
        ui: &mut egui::Ui,
        report: &Arc<Report>,
        sections: &SectionState,
        baselines: &mut BaselineStore,
    ) {
        let shown = baselines.shown();
        match self.summary.ui(
            ui,
            (self.load.path(), report),
            sections,
            self.selected,
            &shown,
        ) {
            Some(SummaryAction::Open(index)) => {
                self.select(index);
                self.page = Page::Details;
            }
            Some(SummaryAction::AddBaseline(index)) => {
                self.add_baseline(index, sections, baselines);
            }
            None => {}
        }
    }

    /// The Details page of the selected result, compared with the `compared` baselines, with
    /// its timeline links; follows a link to the Source page and runs the rules it asks for.
    fn details_page_ui(
        &mut self,
        ui: &mut egui::Ui,
        report: &Arc<Report>,
        compared: Vec<ComparedBaseline>,
        sections: &SectionState,
        runner: &mut RuleRunner,
    ) {
        self.ensure_current(sections);
        self.page_rules(sections, runner);
        let mut requests = Vec::new();
        let mut kernel = 0;
        if let (Some(current), Some((_, page_rules))) = (&self.current, &self.page_rules) {
            kernel = current.action.index();
            self.timeline_links.ui(ui, kernel, &mut self.navigate);
            self.panel.baselines = compared;
            let ctx = ViewCtx {
                report,
                action: &current.action,
                details: &current.details,
                rules: page_rules,
            };
            self.panel.ui(ui, &ctx);
            requests = self.panel.take_rule_requests();
            if let Some(link) = self.panel.take_source_link() {
                match link {
                    SourceLink::Instruction(pc) => self.source.go_to_pc(pc),
                    SourceLink::Line(location) => self.source.go_to_line(location),
                }
                self.page = Page::Source;
                ui.ctx().request_repaint();
            }
        } else if report.num_actions() == 0 {
            ui.label("This report contains no results.");
        }
        for request in requests {
            match request {
                RuleRequest::ApplyAll => {
                    self.apply_rules(kernel, RuleSelection::All, sections, runner)
                }
                RuleRequest::Apply(id) => {
                    self.apply_rules(kernel, RuleSelection::One(id), sections, runner)
                }
                RuleRequest::Cancel => runner.cancel(),
            }
        }
    }
}

/// What the GUI tests read and set of a report tab; the app itself goes through the methods
/// above.
impl ReportTab {
    /// The page shown.
    #[doc(hidden)]
    pub fn page(&self) -> Page {
        self.page
    }

    /// Shows `page`.
    #[doc(hidden)]
    pub fn set_page(&mut self, page: Page) {
        self.page = page;
    }

    /// The Details page panel.
    #[doc(hidden)]
    pub fn panel(&self) -> &DetailsPanel {
        &self.panel
    }

    /// The Details page panel, mutable (to open or scroll to a section).
    #[doc(hidden)]
    pub fn panel_mut(&mut self) -> &mut DetailsPanel {
        &mut self.panel
    }

    /// The Summary page.
    #[doc(hidden)]
    pub fn summary(&self) -> &SummaryPage {
        &self.summary
    }

    /// The Summary page, mutable (to sort it).
    #[doc(hidden)]
    pub fn summary_mut(&mut self) -> &mut SummaryPage {
        &mut self.summary
    }

    /// The Raw page.
    #[doc(hidden)]
    pub fn raw(&self) -> &RawPage {
        &self.raw
    }

    /// The Source page.
    #[doc(hidden)]
    pub fn source(&self) -> &SourcePageState {
        &self.source
    }

    /// The Source page, mutable.
    #[doc(hidden)]
    pub fn source_mut(&mut self) -> &mut SourcePageState {
        &mut self.source
    }
}

impl DocumentView for ReportTab {
    type Loaded = Arc<Report>;
    type Sent = LoadEvent;
    type Done = ();
    type Error = LoadError;

    fn load(&self) -> &Load<ReportTab> {
        &self.load
    }

    fn load_mut(&mut self) -> &mut Load<ReportTab> {
        &mut self.load
    }

    fn start(&mut self, wake: Wake) -> LoadJob<Self> {
        start_load(self.load.path(), move || wake())
    }

    fn sent(&mut self, message: LoadEvent) -> Option<Opened> {
        match message {
            LoadEvent::Opened(report) => {
                self.load.set_loaded(Some(report));
            }
            LoadEvent::Rows(rows) => self.list.extend(rows),
        }
        None
    }

    fn done(&mut self, (): ()) -> Option<Opened> {
        let report = self.load.loaded()?;
        Some(Opened::new(format!("{} result(s)", report.num_actions())))
    }

    fn loaded_ui(&mut self, ui: &mut egui::Ui, services: &mut Services<'_>) {
        let Some(state) = services.state::<super::state::NcuState>() else {
            return;
        };
        let Some((sections, runner, baselines)) = state.parts_with_baselines() else {
            return;
        };
        if self.report_ui(ui, sections, runner, baselines) {
            state.selection.open = true;
        }
        services.navigate.append(&mut self.navigate);
    }
}

/// The problems the reader worked around in this report and in the shown kernel, under a
/// collapsed "N read warning(s)" line: what was skipped, at which byte of which file.
fn read_warnings_ui(ui: &mut egui::Ui, report: &Report, action: Option<&Action>) {
    let warnings: Vec<&Problem> = report
        .warnings()
        .iter()
        .chain(action.map_or(&[][..], Action::warnings))
        .collect();
    let title = format!(
        "{} read warning(s): parts of this report were skipped",
        warnings.len()
    );
    ProblemList::new(&warnings)
        .file(report.path())
        .show_collapsed(ui, "read-warnings", title);
}
