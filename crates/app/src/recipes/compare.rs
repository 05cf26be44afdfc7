//! The Compare tab (a timeline's summary panel, File → Compare with…; a folder of rank
//! exports): this run (its exports) against another — an export, a report or a folder of rank exports — per kernel, GPU memory
//! operation, NVTX range and CUDA API function, as `sightline compare` computes it: both runs'
//! total per rank and median, the change, the noise band of the rank-to-rank (or instance)
//! spread and the verdict, sorted by impact, with the gate a CI job would read. The other run
//! can be opened in a tab of its own, or — on a timeline — shown on it beside this one
//! ([`super::beside`]).

use std::cmp::Ordering;
use std::path::PathBuf;
use std::sync::Arc;

use eframe::egui;
use egui_extras::Column;

use sightline_model::core::Progress;
use sightline_model::format::DurationFormat;
use sightline_model::timeline::compare::{
    Change, Comparison, Gate, compare, run_exports, summarize,
};
use sightline_model::timeline::nsys::default_cache_dir;

use super::beside::Beside;
use crate::document::Wake;
use crate::job::{Job, Polled, poll_job};
use crate::widgets::dialog::{Dialog, take_answer};
use crate::widgets::table::{Header, SortableTable, Table, cell_text};

/// The columns of the comparison table.
const COLUMNS: [&str; 9] = [
    "Category",
    "Name",
    "A total/rank",
    "B total/rank",
    "Change",
    "Change %",
    "Median %",
    "Noise ± %",
    "Verdict",
];

/// The Compare tab's state.
#[derive(Default)]
pub struct ComparePane {
    /// Run B: what this timeline is compared with.
    pub other: Option<PathBuf>,
    /// The change (percent) a verdict calls slower or faster.
    pub threshold: f64,
    job: Option<Job<Comparison, String>>,
    progress: Option<(f32, String)>,
    /// The last comparison.
    pub result: Option<Arc<Comparison>>,
    /// The table's sort.
    pub table: SortableTable,
    /// Why the last comparison failed.
    pub error: Option<String>,
    dialog: Option<Dialog<Option<PathBuf>>>,
    /// A run the user asked to open in a tab of its own (the shell takes it).
    pub open_request: Option<PathBuf>,
    /// Run A's exports as first compared (kept when run B's files join the timeline).
    a: Option<Vec<PathBuf>>,
    /// Run B beside run A on the timeline (`None`: the host has no timeline).
    pub beside: Option<Beside>,
    /// Run B's path as typed (for desktops without a file dialog).
    pub typed: String,
}

impl std::fmt::Debug for ComparePane {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ComparePane")
            .field("other", &self.other)
            .field("busy", &self.busy())
            .finish_non_exhaustive()
    }
}

impl ComparePane {
    /// Whether a comparison is being computed.
    pub fn busy(&self) -> bool {
        self.job.is_some()
    }

    /// The threshold in use (5 % until the user sets one).
    fn threshold(&self) -> f64 {
        if self.threshold > 0.0 {
            self.threshold
        } else {
            5.0
        }
    }

    /// Compares `exports` (run A, this timeline's) with `other` (run B) on a background job;
    /// reports are exported with `nsys` (`None`: the first on `PATH`).
    pub fn start(
        &mut self,
        exports: Vec<PathBuf>,
        other: PathBuf,
        nsys: Option<PathBuf>,
        wake: Wake,
    ) {
        self.job = None;
        self.error = None;
        self.other = Some(other.clone());
        self.a = Some(exports.clone());
        let threshold = self.threshold();
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        self.job = Some(Job::start_named(
            "sightline-compare",
            move || wake(),
            |e| format!("cannot start the compare thread: {e}"),
            move |ctx| {
                let fail = |e: sightline_model::timeline::compare::CompareError| e.to_string();
                let a = summarize('A', &exports, threads, Progress::new(ctx)).map_err(fail)?;
                let files = run_exports(
                    'B',
                    &other,
                    nsys.as_deref(),
                    &default_cache_dir(),
                    Progress::new(ctx),
                )
                .map_err(fail)?;
                let b = summarize('B', &files, threads, Progress::new(ctx)).map_err(fail)?;
                Ok(compare(&a, &b, threshold))
            },
        ));
    }

    /// Applies what the comparison sent (call every frame).
    pub fn poll(&mut self) {
        match poll_job(&mut self.job, &mut self.progress) {
            Some(Polled::Done(result)) => {
                self.result = Some(Arc::new(result));
                self.table = SortableTable::default();
            }
            Some(Polled::Failed(message)) => self.error = Some(message),
            Some(Polled::Sent(never)) => match never {},
            None => {}
        }
    }

    /// Shows the file (`folder`: folder) dialog whose answer becomes run B.
    pub fn pick(&mut self, folder: bool, wake: &Wake) {
        if self.dialog.is_some() {
            return;
        }
        let wake = wake.clone();
        let spawned = Dialog::spawn(
            if folder { "folder" } else { "file" },
            move || wake(),
            move || {
                let dialog = rfd::FileDialog::new().set_title("Compare with another run");
                if folder {
                    dialog.pick_folder()
                } else {
                    dialog
                        .add_filter(
                            "Nsight Systems exports and reports",
                            &["sqlite", "nsys-rep", "qdrep"],
                        )
                        .pick_file()
                }
            },
        );
        match spawned {
            Ok(dialog) => self.dialog = Some(dialog),
            Err(e) => self.error = Some(e),
        }
    }

    /// Draws the tab: the runs, the threshold, the gate and the table. `exports` is run A.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        exports: &[PathBuf],
        nsys: Option<&PathBuf>,
        wake: &Wake,
    ) {
        self.poll();
        // Run A stays what was first compared, whatever joins the timeline later.
        let exports = self.a.clone().unwrap_or_else(|| exports.to_vec());
        let exports = exports.as_slice();
        if let Some(answer) = take_answer(&mut self.dialog)
            && let Some(other) = answer.value
        {
            self.start(exports.to_vec(), other, nsys.cloned(), wake.clone());
        }
        self.header_ui(ui, exports, nsys, wake);
        if let Some(beside) = &mut self.beside {
            beside.ui(ui, self.other.as_ref());
        }
        if let Some(e) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, e);
        }
        if let Some(result) = self.result.clone() {
            gate_ui(ui, &result);
            self.table_ui(ui, &result);
        } else if self.job.is_none() && self.error.is_none() {
            ui.label(
                "Compare this run with another (before/after a change): an export, a report, \
                 or a folder of rank exports.",
            );
        }
    }

    /// The runs, Compare with…, the threshold, the progress.
    fn header_ui(
        &mut self,
        ui: &mut egui::Ui,
        exports: &[PathBuf],
        nsys: Option<&PathBuf>,
        wake: &Wake,
    ) {
        ui.horizontal_wrapped(|ui| {
            ui.label(format!("A: this run ({})", files(exports.len())));
            if let Some(other) = &self.other {
                ui.label(format!("B: {}", other.display()));
            }
            let idle = self.job.is_none() && self.dialog.is_none();
            if ui
                .add_enabled(idle, egui::Button::new("Compare with…"))
                .on_hover_text("Pick run B: an export or report")
                .clicked()
            {
                self.pick(false, wake);
            }
            if ui
                .add_enabled(idle, egui::Button::new("Compare with folder…"))
                .on_hover_text("Pick run B: a folder of rank exports")
                .clicked()
            {
                self.pick(true, wake);
            }
            let typed = ui.add(
                egui::TextEdit::singleline(&mut self.typed)
                    .hint_text("or type run B's path")
                    .desired_width(220.0),
            );
            let entered = typed.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            let compare = ui.add_enabled(
                idle && !self.typed.trim().is_empty(),
                egui::Button::new("Compare"),
            );
            if (entered || compare.clicked()) && idle && !self.typed.trim().is_empty() {
                let other = PathBuf::from(self.typed.trim());
                self.start(exports.to_vec(), other, nsys.cloned(), wake.clone());
            }
            let label = ui.label("threshold %");
            let mut threshold = self.threshold();
            ui.add(
                egui::DragValue::new(&mut threshold)
                    .range(0.1..=1000.0)
                    .speed(0.5),
            )
            .labelled_by(label.id);
            if threshold != self.threshold() {
                self.threshold = threshold;
                if let (Some(other), true) = (self.other.clone(), idle) {
                    self.start(exports.to_vec(), other, nsys.cloned(), wake.clone());
                }
            }
            if let Some(other) = &self.other
                && ui
                    .button("Open run B")
                    .on_hover_text("Open it in a tab of its own")
                    .clicked()
            {
                self.open_request = Some(other.clone());
            }
            if self.job.is_some() {
                let (fraction, stage) = self.progress.clone().unwrap_or((0.0, "starting".into()));
                ui.add(
                    egui::ProgressBar::new(fraction)
                        .desired_width(200.0)
                        .text(stage),
                );
                if ui.button("Cancel").clicked()
                    && let Some(job) = &self.job
                {
                    job.cancel();
                }
            }
        });
    }

    /// The totals and groups, sortable (impact order by default).
    fn table_ui(&mut self, ui: &mut egui::Ui, result: &Comparison) {
        let rows: Vec<&Change> = result.totals.iter().chain(&result.changes).collect();
        let headers = COLUMNS
            .iter()
            .map(|&c| {
                let width = if c == "Name" {
                    Column::remainder().at_least(220.0).clip(true)
                } else {
                    Column::auto().at_least(70.0)
                };
                Header::new(c, width)
            })
            .collect();
        let compare = |col: usize, a: usize, b: usize| compare_rows(rows[a], rows[b], col);
        Table::new("compare-table", headers, "impact order")
            .header_height(20.0)
            .max_height(ui.available_height())
            .show(
                ui,
                &mut self.table,
                rows.len(),
                &compare,
                &mut |ui, r, c| {
                    cell_text(ui, &cell(rows[r], c));
                },
            );
    }
}

/// "3 files".
fn files(n: usize) -> String {
    if n == 1 {
        "1 file".into()
    } else {
        format!("{n} files")
    }
}

/// The gate line: what a CI job gating at this threshold would say.
fn gate_ui(ui: &mut egui::Ui, result: &Comparison) {
    let (text, colour) = match result.gate {
        Gate::Pass => ("passes", ui.visuals().text_color()),
        Gate::Regressed => ("regressed", ui.visuals().error_fg_color),
        Gate::Inconclusive => ("inconclusive", ui.visuals().warn_fg_color),
    };
    ui.horizontal(|ui| {
        ui.label(format!(
            "A: {} · B: {} · at {} %, the gate",
            files(result.a_files.len()),
            files(result.b_files.len()),
            result.threshold_pct
        ));
        ui.colored_label(colour, text);
    });
}

/// Column `col` of a change as the table shows it.
pub fn cell(change: &Change, col: usize) -> String {
    let time = |ns: f64| DurationFormat::LIST.format(ns);
    let pct = |p: Option<f64>| p.map_or_else(|| "-".to_owned(), |p| format!("{p:+.1}"));
    match col {
        0 => change.category.label().to_owned(),
        1 if change.name.is_empty() => "(total)".to_owned(),
        1 => change.name.clone(),
        2 => change.a.map_or_else(|| "-".to_owned(), |s| time(s.total)),
        3 => change.b.map_or_else(|| "-".to_owned(), |s| time(s.total)),
        4 => {
            let sign = if change.delta >= 0.0 { "+" } else { "-" };
            format!("{sign}{}", time(change.delta.abs()))
        }
        5 => pct(change.delta_pct),
        6 => pct(change.median_pct),
        7 => change
            .noise_pct
            .map_or_else(|| "-".to_owned(), |p| format!("{p:.1}")),
        _ => change.verdict.word().to_owned(),
    }
}

/// Orders two changes by column `col` (numbers as numbers, missing ones first).
fn compare_rows(a: &Change, b: &Change, col: usize) -> Ordering {
    let num = |c: &Change| -> Option<f64> {
        match col {
            2 => c.a.map(|s| s.total),
            3 => c.b.map(|s| s.total),
            4 => Some(c.delta),
            5 => c.delta_pct,
            6 => c.median_pct,
            7 => c.noise_pct,
            _ => None,
        }
    };
    match col {
        2..=7 => match (num(a), num(b)) {
            (Some(x), Some(y)) => x.total_cmp(&y),
            (x, y) => x.is_some().cmp(&y.is_some()),
        },
        _ => cell(a, col).cmp(&cell(b, col)),
    }
}
