//! The Expert tab of the timeline's bottom panel: the timeline rules (Sightline's, which equal
//! `nsys analyze`'s, and the user's in the timeline-rules folder) applied to the export on a
//! background thread, each rule's findings with its explanation; a click on a finding selects
//! and reveals its event, or zooms to its range.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use eframe::egui;
use egui_extras::Column;

use sightline_model::timeline::nsys::stats::ReportTable;
use sightline_model::timeline::nsys::trace::Trace;
use sightline_model::timeline::{EventId, EventKind, Timeline};
use sightline_rules::{
    RuleEngine, TimelineFinding, TimelineOutcome, TimelineRule, TimelineRunOptions,
    TimelineRunOutput,
};

use sightline_model::section::FolderWatcher;

use crate::job::{Job, Polled, poll_job};

/// How long after the last write to a rule file the rules are applied again.
const WATCH_DEBOUNCE: std::time::Duration = std::time::Duration::from_millis(200);
use crate::widgets::table::{Header, SortableTable, Table, cell_text};

/// Where a finding points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// An event: select it and bring it into view.
    Event(EventId),
    /// A time range (ns): select it and zoom to it.
    Range(i64, i64),
}

/// What the rules run on: the export, and the folder of the user's timeline rules.
#[derive(Debug, Clone)]
pub struct ExpertSource {
    /// The SQLite export.
    pub export: PathBuf,
    /// The user's rules, run beside Sightline's when the folder exists
    /// ([`sightline_model::section::timeline_rules_folder`]).
    pub folder: Option<PathBuf>,
}

type RunJob = Job<TimelineRunOutput, RunError>;

/// Why a run of the expert rules stopped.
#[derive(Debug, thiserror::Error)]
enum RunError {
    /// The rules thread could not be started.
    #[error("cannot start the rules thread: {0}")]
    Spawn(#[from] std::io::Error),
    /// The export's trace could not be read.
    #[error(transparent)]
    Trace(#[from] sightline_model::timeline::nsys::NsysError),
    /// The rule engine failed (start, a rule, cancel).
    #[error(transparent)]
    Rules(#[from] sightline_rules::RulesError),
}

/// The Expert tab's state.
#[derive(Default)]
pub struct ExpertPanel {
    job: Option<RunJob>,
    /// What is running: `None` for every rule, else the rule's name.
    running: Option<Option<String>>,
    progress: Option<(f32, String)>,
    /// The rules loaded by the last run.
    pub rules: Vec<TimelineRule>,
    /// The latest result of each rule, by name.
    pub results: BTreeMap<String, TimelineFinding>,
    /// Rule files that failed to load, and engine errors.
    pub errors: Vec<String>,
    /// The rule whose findings are shown.
    pub shown: Option<String>,
    table: SortableTable,
    /// The finding clicked: rule and row.
    pub selected: Option<(String, usize)>,
    /// Watches the user's rules folder once rules were applied: a saved rule applies them again.
    watcher: Option<FolderWatcher>,
    /// What the last run read, and its repaint request (for applying again on a save).
    last: Option<(ExpertSource, Arc<dyn Fn() + Send + Sync>)>,
}

impl std::fmt::Debug for ExpertPanel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExpertPanel")
            .field("rules", &self.rules.len())
            .field("results", &self.results.len())
            .finish_non_exhaustive()
    }
}

/// The event of `timeline` read from row `rowid` of export table `table`.
pub fn event_of_source(timeline: &Timeline, table: &str, rowid: i64) -> Option<EventId> {
    let kind = match table {
        "CUPTI_ACTIVITY_KIND_KERNEL" => EventKind::Kernel,
        "CUPTI_ACTIVITY_KIND_MEMCPY" => EventKind::Memcpy,
        "CUPTI_ACTIVITY_KIND_MEMSET" => EventKind::Memset,
        "CUPTI_ACTIVITY_KIND_RUNTIME" => EventKind::CudaApi,
        _ => return None,
    };
    let rowid = u32::try_from(rowid).ok()?;
    timeline
        .events()
        .find(|e| e.kind == kind && e.source == rowid)
        .map(|e| e.id)
}

impl ExpertPanel {
    /// Whether rules are running.
    pub fn busy(&self) -> bool {
        self.job.is_some()
    }

    /// Applies every rule (`rule: None`) or one, on a background thread; `wake` requests a
    /// repaint when it is done.
    pub fn apply(
        &mut self,
        source: &ExpertSource,
        rule: Option<String>,
        wake: Arc<dyn Fn() + Send + Sync>,
    ) {
        if self.job.is_some() {
            return;
        }
        self.watch(source, &wake);
        self.last = Some((source.clone(), wake.clone()));
        let wake = move || wake();
        let export = source.export.clone();
        let folder = source.folder.clone();
        let requests = rule.clone().map(|r| vec![r]);
        self.running = Some(rule);
        self.progress = Some((0.0, "reading the export".into()));
        self.job = Some(Job::start(wake, RunError::Spawn, move |ctx| {
            let trace = Trace::open(&export)?;
            ctx.progress_now(0.5, "applying the rules");
            let folders: Vec<PathBuf> = folder.into_iter().filter(|f| f.is_dir()).collect();
            let engine = RuleEngine::start()?;
            let options = TimelineRunOptions {
                folders,
                requests,
                cancel: Some(ctx.cancel_flag().clone()),
                ..TimelineRunOptions::bundled()
            };
            Ok(engine.run_timeline(Arc::new(trace), options)?)
        }));
    }

    /// Starts watching the user's rules folder (when it exists and is not watched yet).
    fn watch(&mut self, source: &ExpertSource, wake: &Arc<dyn Fn() + Send + Sync>) {
        let Some(folder) = source.folder.as_ref().filter(|f| f.is_dir()) else {
            return;
        };
        if self
            .watcher
            .as_ref()
            .is_some_and(|w| w.folders().first() == Some(folder))
        {
            return;
        }
        match FolderWatcher::new(std::slice::from_ref(folder), WATCH_DEBOUNCE) {
            Ok(watcher) => {
                let wake = wake.clone();
                watcher.set_waker(move || wake());
                self.watcher = Some(watcher);
            }
            Err(e) => self.errors.push(format!("{}: {e}", folder.display())),
        }
    }

    /// Stops the rules running.
    pub fn cancel(&mut self) {
        if let Some(job) = self.job.take() {
            job.cancel();
        }
        self.running = None;
        self.progress = None;
    }

    /// Takes the result of a finished run, and applies the rules again when a file of the user's
    /// rules folder was saved (call every frame).
    pub fn poll(&mut self) {
        let changed = self.watcher.as_ref().is_some_and(|w| !w.poll().is_empty());
        if changed
            && self.job.is_none()
            && let Some((source, wake)) = self.last.clone()
        {
            self.apply(&source, None, wake);
        }
        match poll_job(&mut self.job, &mut self.progress) {
            Some(Polled::Done(out)) => {
                self.running = None;
                self.rules = out.rules;
                self.errors = out
                    .load_errors
                    .into_iter()
                    .map(|e| format!("{}: {}", e.rule, e.message))
                    .collect();
                for finding in out.findings {
                    self.results.insert(finding.rule.clone(), finding);
                }
                if self.shown.is_none() {
                    self.shown = self
                        .results
                        .iter()
                        .find(|(_, f)| findings(f).is_some_and(|t| !t.rows.is_empty()))
                        .map(|(n, _)| n.clone());
                }
            }
            Some(Polled::Failed(error)) => {
                self.running = None;
                self.errors = vec![error.to_string()];
            }
            Some(Polled::Sent(never)) => match never {},
            None => {}
        }
    }

    /// Clicks row `row` of rule `rule`'s findings: where it points.
    pub fn click(&mut self, timeline: &Timeline, rule: &str, row: usize) -> Option<Target> {
        self.selected = Some((rule.to_string(), row));
        let TimelineOutcome::Table { events, ranges, .. } = &self.results.get(rule)?.outcome else {
            return None;
        };
        if let Some(Some((table, rowid))) = events.get(row)
            && let Some(e) = event_of_source(timeline, table, *rowid)
        {
            return Some(Target::Event(e));
        }
        match ranges.get(row) {
            Some(Some((s, e))) => Some(Target::Range(*s, *e)),
            _ => None,
        }
    }

    /// Draws the tab; returns where a clicked finding points.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        timeline: &Timeline,
        source: Option<&ExpertSource>,
        wake: Arc<dyn Fn() + Send + Sync>,
    ) -> Option<Target> {
        let Some(source) = source else {
            ui.weak("The expert rules read an Nsight Systems export; this timeline is not one.");
            return None;
        };
        let mut apply: Option<Option<String>> = None;
        ui.horizontal(|ui| {
            if ui
                .add_enabled(self.job.is_none(), egui::Button::new("Apply all"))
                .on_hover_text("Run every expert rule on the export")
                .clicked()
            {
                apply = Some(None);
            }
            if self.job.is_some() {
                ui.spinner();
                let what = match &self.running {
                    Some(Some(rule)) => format!("applying {rule}…"),
                    _ => "applying the rules…".to_string(),
                };
                ui.label(what);
                if ui.button("Cancel").clicked() {
                    self.cancel();
                }
            } else if self.results.is_empty() {
                ui.weak("Sightline's rules (nsys analyze's seven, written anew) and yours in");
                let folder = source
                    .folder
                    .as_ref()
                    .map_or("(no rules folder)".to_string(), |f| f.display().to_string());
                ui.monospace(folder);
            }
        });
        for e in &self.errors {
            ui.colored_label(ui.visuals().error_fg_color, e);
        }
        let mut target = None;
        ui.columns(2, |cols| {
            self.rule_list_ui(&mut cols[0], &mut apply);
            target = self.findings_ui(&mut cols[1], timeline);
        });
        if let Some(rule) = apply {
            self.apply(source, rule, wake);
        }
        target
    }

    /// The rules, one line each with their state and an Apply button.
    fn rule_list_ui(&mut self, ui: &mut egui::Ui, apply: &mut Option<Option<String>>) {
        egui::ScrollArea::vertical()
            .id_salt("expert-rules")
            .show(ui, |ui| {
                for rule in &self.rules {
                    ui.horizontal(|ui| {
                        if ui
                            .add_enabled(self.job.is_none(), egui::Button::new("Apply").small())
                            .clicked()
                        {
                            *apply = Some(Some(rule.name.clone()));
                        }
                        let state = self.results.get(&rule.name).map(state_text);
                        let shown = self.shown.as_deref() == Some(rule.name.as_str());
                        let label = format!(
                            "{} — {}",
                            rule.title,
                            state.as_deref().unwrap_or("not applied")
                        );
                        let response = ui.selectable_label(shown, label);
                        if response.clicked() {
                            self.shown = Some(rule.name.clone());
                            self.table = SortableTable::default();
                        }
                        response.on_hover_text(format!("{}\n{}", rule.name, rule.file));
                    });
                }
            });
    }

    /// The shown rule's explanation and findings.
    fn findings_ui(&mut self, ui: &mut egui::Ui, timeline: &Timeline) -> Option<Target> {
        let name = self.shown.clone()?;
        if let Some(rule) = self.rules.iter().find(|r| r.name == name) {
            ui.strong(&rule.title);
            ui.label(&rule.description);
        }
        let finding = self.results.get(&name)?;
        let table = match &finding.outcome {
            TimelineOutcome::Table { table, .. } if table.rows.is_empty() => {
                ui.weak("Nothing found.");
                return None;
            }
            TimelineOutcome::Table { table, .. } => table,
            TimelineOutcome::Skipped(why) => {
                ui.weak(format!("SKIPPED: {why}"));
                return None;
            }
            TimelineOutcome::Error(e) => {
                ui.colored_label(ui.visuals().error_fg_color, e);
                return None;
            }
        };
        let selected_row = self
            .selected
            .as_ref()
            .filter(|(r, _)| *r == name)
            .map(|(_, row)| *row);
        let last = table.columns.len().saturating_sub(1);
        let headers = table
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let width = if i == last {
                    Column::remainder().at_least(120.0).clip(true)
                } else {
                    Column::auto().at_least(60.0)
                };
                Header::new(c, width)
            })
            .collect();
        let clicked = Table::new(
            ("expert-findings", name.as_str()),
            headers,
            "the rule's order",
        )
        .header_height(20.0)
        .max_height(ui.available_height())
        .selected(&|r| Some(r) == selected_row)
        .show(
            ui,
            &mut self.table,
            table.rows.len(),
            &super::stats_panel::row_order(table),
            &mut |ui, r, c| {
                if let Some(cell) = table.rows.cell(r, c) {
                    cell_text(ui, cell.as_str());
                }
            },
        )?;
        self.click(timeline, &name, clicked)
    }
}

/// A rule's state as the rule list shows it.
pub fn state_text(finding: &TimelineFinding) -> String {
    match &finding.outcome {
        TimelineOutcome::Table { table, .. } if table.rows.is_empty() => "nothing found".into(),
        TimelineOutcome::Table { table, .. } => format!("{} finding(s)", table.rows.len()),
        TimelineOutcome::Skipped(_) => "skipped".into(),
        TimelineOutcome::Error(_) => "error".into(),
    }
}

fn findings(f: &TimelineFinding) -> Option<&ReportTable> {
    match &f.outcome {
        TimelineOutcome::Table { table, .. } => Some(table),
        _ => None,
    }
}
