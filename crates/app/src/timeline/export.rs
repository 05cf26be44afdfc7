//! File → Export timeline…: writes the shown timeline as a Perfetto or Chrome JSON trace
//! ([`sightline_model::timeline::export`]) on a background [`Job`] with progress and Cancel.
//!
//! The window takes the output path typed in (the fallback where no file dialog exists) or
//! chosen with Browse… (an rfd save dialog on its own thread), the format (by the
//! extension, or chosen), and "only the selected range" when a range is selected.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use eframe::egui;
use sightline_model::core::Progress;
use sightline_model::timeline::Timeline;
use sightline_model::timeline::export::{
    ExportError, ExportFormat, ExportOptions, ExportSummary, export,
};

use crate::job::{Job, JobCtx, Polled, poll_job};
use crate::widgets::dialog::{Answer, Dialog, take_answer};

/// Why an export failed (cancelled included: the model's [`ExportError::Cancelled`]).
#[derive(Debug, thiserror::Error)]
pub enum ExportJobError {
    /// The export's thread could not be started.
    #[error("cannot start the export thread: {0}")]
    Spawn(#[source] std::io::Error),
    /// The output file could not be created.
    #[error("{}: cannot create: {source}", path.display())]
    Create {
        /// The output file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// Writing the trace failed, or was cancelled.
    #[error("{}: {source}", path.display())]
    Export {
        /// The output file.
        path: PathBuf,
        /// What the exporter said.
        #[source]
        source: ExportError,
    },
}

/// The export window and its running job.
#[derive(Default)]
pub struct ExportPanel {
    /// Whether the window is shown.
    pub open: bool,
    /// The output path as typed.
    pub path: String,
    /// The chosen format.
    pub format: Option<ExportFormat>,
    /// Export only the selected range.
    pub only_range: bool,
    dialog: Option<Dialog<Option<PathBuf>>>,
    job: Option<Job<(PathBuf, ExportSummary), ExportJobError>>,
    /// `(fraction, stage)` while exporting.
    pub progress: Option<(f32, String)>,
}

impl ExportPanel {
    /// Opens the window with a path beside `source` (its name with the format's extension).
    pub fn show(&mut self, source: &Path) {
        self.open = true;
        if self.path.is_empty() {
            let format = self.format.unwrap_or(ExportFormat::Perfetto);
            self.path = source
                .with_extension(format.extension())
                .display()
                .to_string();
        }
    }

    /// Whether an export is running.
    pub fn running(&self) -> bool {
        self.job.is_some()
    }

    /// Stops the running export.
    pub fn cancel(&mut self) {
        if let Some(job) = self.job.take() {
            job.cancel();
        }
        self.progress = None;
    }

    /// The format the window would write: the chosen one, else by the path's extension.
    pub fn effective_format(&self) -> ExportFormat {
        self.format
            .or_else(|| ExportFormat::from_path(Path::new(self.path.trim())))
            .unwrap_or(ExportFormat::Perfetto)
    }

    /// Starts writing `timeline` to the window's path; `wake` requests a repaint.
    pub fn start(
        &mut self,
        timeline: Arc<Timeline>,
        range: Option<(i64, i64)>,
        wake: impl Fn() + Send + Sync + 'static,
    ) {
        let path = PathBuf::from(self.path.trim());
        let format = self.effective_format();
        let range = range.filter(|_| self.only_range);
        self.progress = Some((0.0, format!("exporting to {}", path.display())));
        self.job = Some(Job::start_named(
            "sightline-export",
            wake,
            ExportJobError::Spawn,
            move |ctx| run(&timeline, format, range, &path, ctx),
        ));
    }

    /// Progress, and the status line when the export ended (`(message, is_error)`).
    pub fn poll(&mut self) -> Option<(String, bool)> {
        if let Some(Answer {
            value: Some(path), ..
        }) = take_answer(&mut self.dialog)
        {
            self.path = path.display().to_string();
        }
        match poll_job(&mut self.job, &mut self.progress)? {
            Polled::Done((path, s)) => Some((
                format!(
                    "Exported {} events, {} tracks, {} flows ({} bytes) to {}",
                    s.events,
                    s.tracks,
                    s.flows,
                    s.bytes,
                    path.display()
                ),
                false,
            )),
            Polled::Failed(error) => Some((error.to_string(), true)),
            Polled::Sent(never) => match never {},
        }
    }

    /// The window (when open): path, Browse…, format, range, Export.
    pub fn window_ui(
        &mut self,
        ctx: &egui::Context,
        timeline: &Arc<Timeline>,
        range: Option<(i64, i64)>,
        wake: impl Fn() + Send + Sync + Clone + 'static,
    ) {
        if !self.open {
            return;
        }
        let mut open = true;
        let mut start = false;
        egui::Window::new("Export timeline")
            .open(&mut open)
            .collapsible(false)
            .resizable(false)
            .show(ctx, |ui| {
                ui.horizontal(|ui| {
                    ui.label("File:");
                    ui.add(
                        egui::TextEdit::singleline(&mut self.path)
                            .hint_text("/path/to/trace.perfetto-trace")
                            .desired_width(380.0),
                    );
                    if ui
                        .add_enabled(self.dialog.is_none(), egui::Button::new("Browse…"))
                        .clicked()
                    {
                        self.browse(wake.clone());
                    }
                });
                ui.horizontal(|ui| {
                    ui.label("Format:");
                    let mut chosen = self.effective_format();
                    for f in ExportFormat::ALL {
                        ui.radio_value(&mut chosen, f, f.label());
                    }
                    if chosen != self.effective_format() {
                        self.format = Some(chosen);
                        let path = Path::new(self.path.trim()).with_extension(chosen.extension());
                        self.path = path.display().to_string();
                    }
                });
                let label = match range {
                    Some((a, b)) => format!("Only the selected range ({a} – {b} ns)"),
                    None => "Only the selected range (drag on the timeline to select one)".into(),
                };
                ui.add_enabled(
                    range.is_some(),
                    egui::Checkbox::new(&mut self.only_range, label),
                );
                ui.horizontal(|ui| {
                    let ready = !self.path.trim().is_empty() && !self.running();
                    if ui.add_enabled(ready, egui::Button::new("Export")).clicked() {
                        start = true;
                    }
                    if self.running() {
                        ui.spinner();
                        if ui.button("Cancel").clicked() {
                            self.cancel();
                        }
                    }
                });
            });
        if start {
            self.start(timeline.clone(), range, wake);
            open = false;
        }
        self.open = open;
    }

    /// The save dialog on its own thread (an empty answer keeps the typed path).
    fn browse(&mut self, wake: impl Fn() + Send + 'static) {
        let current = PathBuf::from(self.path.trim());
        let format = self.effective_format();
        let pick = move || {
            let mut dialog = rfd::FileDialog::new()
                .set_title("Export timeline")
                .add_filter(format.label(), &[format.extension(), "pftrace"]);
            if let Some(dir) = current.parent().filter(|d| d.is_dir()) {
                dialog = dialog.set_directory(dir);
            }
            if let Some(name) = current.file_name() {
                dialog = dialog.set_file_name(name.to_string_lossy());
            }
            dialog.save_file()
        };
        self.dialog = Dialog::spawn("file", wake, pick).ok();
    }
}

/// The export thread's work.
fn run(
    timeline: &Timeline,
    format: ExportFormat,
    range: Option<(i64, i64)>,
    path: &Path,
    ctx: &JobCtx,
) -> Result<(PathBuf, ExportSummary), ExportJobError> {
    let mut file = std::fs::File::create(path).map_err(|source| ExportJobError::Create {
        path: path.to_path_buf(),
        source,
    })?;
    let stage = format!("exporting to {}", path.display());
    let options = ExportOptions {
        range,
        progress: Progress::new(ctx).named(&stage),
    };
    let summary = export(timeline, format, options, &mut file).map_err(|source| {
        // A cancelled or failed export leaves no half-written trace behind.
        drop(std::fs::remove_file(path));
        ExportJobError::Export {
            path: path.to_path_buf(),
            source,
        }
    })?;
    Ok((path.to_path_buf(), summary))
}
