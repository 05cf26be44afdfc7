//! Running any `nsys stats` report on demand from the timeline's bottom panel: the report and
//! its options (`cuda_gpu_kern_sum:base`, `um_sum:rows=10`) computed on the loader thread, the
//! result added as a tab of the panel; and where a trace report's row points on the timeline.

use std::path::PathBuf;

use eframe::egui;

use sightline_model::timeline::nsys::ExportDb;
use sightline_model::timeline::nsys::stats::{ReportTable, reports, run_report};
use sightline_model::timeline::{EventId, EventKind, Timeline};

use super::stats_panel::ReportResult;
use crate::job::{Job, Polled, poll_job};

/// A report asked for and what it gave.
pub type RunResult = (String, ReportResult);

/// The report picker and the report running.
#[derive(Default)]
pub struct ReportRunner {
    /// The report picked.
    pub report: String,
    /// Its options as typed (`nvtx-name`, `rows=10`; several separated by `:`).
    pub options: String,
    job: Option<Job<RunResult, String>>,
    progress: Option<(f32, String)>,
    /// Why the last run failed to start or finish.
    pub error: Option<String>,
}

impl std::fmt::Debug for ReportRunner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReportRunner")
            .field("report", &self.report)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl ReportRunner {
    /// Whether a report is being computed.
    pub fn busy(&self) -> bool {
        self.job.is_some()
    }

    /// The request as the model takes it: `name[:options]`.
    pub fn request(&self) -> String {
        let options = self.options.trim().trim_start_matches(':');
        if options.is_empty() {
            self.report.clone()
        } else {
            format!("{}:{options}", self.report)
        }
    }

    /// Computes `request` on `export` on the loader thread; `wake` requests a repaint.
    pub fn run(
        &mut self,
        export: PathBuf,
        request: String,
        wake: impl Fn() + Send + Sync + 'static,
    ) {
        if self.job.is_some() {
            return;
        }
        self.error = None;
        self.job = Some(Job::start(
            wake,
            |e| format!("cannot start the loader thread: {e}"),
            move |_| {
                let result =
                    ExportDb::open_salvaging(&export).and_then(|db| run_report(&db, &request));
                Ok((request, result))
            },
        ));
    }

    /// The finished report, if one finished (call every frame).
    pub fn poll(&mut self) -> Option<RunResult> {
        match poll_job(&mut self.job, &mut self.progress)? {
            Polled::Done(result) => Some(result),
            Polled::Failed(message) => {
                self.error = Some(message);
                None
            }
            Polled::Sent(never) => match never {},
        }
    }

    /// The picker: a report, its options, Run. Returns the request to run.
    pub fn ui(&mut self, ui: &mut egui::Ui) -> Option<String> {
        let all = reports();
        if self.report.is_empty() {
            self.report = "cuda_gpu_trace".into();
        }
        let mut run = None;
        ui.horizontal(|ui| {
            let label = ui.label("Run a report:");
            egui::ComboBox::from_id_salt("report-pick")
                .selected_text(&self.report)
                .height(400.0)
                .show_ui(ui, |ui| {
                    for r in &all {
                        ui.selectable_value(&mut self.report, r.name.to_string(), r.name)
                            .on_hover_text(r.about);
                    }
                })
                .response
                .labelled_by(label.id);
            let hint = all
                .iter()
                .find(|r| r.name == self.report)
                .map(|r| {
                    r.options
                        .iter()
                        .map(|o| match o.default {
                            Some(d) => format!("{}={d}", o.name()),
                            None => o.name().to_string(),
                        })
                        .collect::<Vec<_>>()
                        .join(":")
                })
                .unwrap_or_default();
            let takes_options = !hint.is_empty();
            let options_label = ui.label("options");
            ui.add_enabled(
                takes_options,
                egui::TextEdit::singleline(&mut self.options)
                    .hint_text(if takes_options {
                        hint.as_str()
                    } else {
                        "no options"
                    })
                    .desired_width(160.0),
            )
            .labelled_by(options_label.id);
            if ui
                .add_enabled(self.job.is_none(), egui::Button::new("Run"))
                .clicked()
            {
                run = Some(self.request());
            }
            if self.job.is_some() {
                ui.spinner();
            }
            if let Some(e) = &self.error {
                ui.colored_label(ui.visuals().error_fg_color, e);
            }
        });
        run
    }
}

/// The event kinds of a trace report's rows, and the column holding their start.
fn trace_columns(report: &str) -> Option<(&'static [EventKind], &'static str)> {
    Some(match report {
        "cuda_api_trace" => (&[EventKind::CudaApi], "Start (ns)"),
        "cuda_gpu_trace" => (
            &[EventKind::Kernel, EventKind::Memcpy, EventKind::Memset],
            "Start (ns)",
        ),
        "cuda_kern_exec_trace" => (&[EventKind::Kernel], "Kernel Start (ns)"),
        "nvtx_pushpop_trace" => (&[EventKind::NvtxPushPop], "Start (ns)"),
        "nvtx_gpu_proj_trace" => (
            &[EventKind::NvtxPushPop, EventKind::NvtxStartEnd],
            "Orig Start (ns)",
        ),
        "vulkan_api_trace" | "mpi_event_trace" => (&[], "Start (ns)"),
        _ => return None,
    })
}

/// The event a row of a trace report is (`None` for summary reports, or when no event of the
/// report's kinds starts at the row's start): of several, the one named as the row.
pub fn trace_event(timeline: &Timeline, table: &ReportTable, row: usize) -> Option<EventId> {
    let report = table.report.split(':').next().unwrap_or_default();
    let (kinds, start_column) = trace_columns(report)?;
    let cells = table.rows.get(row)?;
    let col = table.columns.iter().position(|c| c == start_column)?;
    let start: i64 = cells.get(col)?.as_str().parse().ok()?;
    let name = ["Name", "Kernel Name"]
        .iter()
        .find_map(|n| table.columns.iter().position(|c| c == n))
        .and_then(|c| cells.get(c))
        .map(|c| c.as_str());
    let mut first = None;
    for e in timeline.events() {
        if e.start != start || !(kinds.is_empty() || kinds.contains(&e.kind)) {
            continue;
        }
        let own = timeline.name(e.name);
        if name.is_some_and(|n| n == own || n.ends_with(own) || own.starts_with(n)) {
            return Some(e.id);
        }
        first = first.or(Some(e.id));
    }
    first
}
