//! Loading a CodeXL counter or occupancy file on a `sightline-loader` thread: the file is read
//! by the model (progress by bytes, Cancel checked as it goes), prepared for the view
//! (aggregates, column lists) and the session's sibling files are looked up, all off the GUI
//! thread. [`LoadState`] is the document side: it polls the thread and keeps the progress, the
//! error and the result.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sightline_model::codexl::CodexlError;
use sightline_model::codexl::session::SessionFiles;
use sightline_model::core::Progress;

use eframe::egui;

use super::table::TABLE_KEYS;
use crate::document::{Document, Services, opening_panel};
use crate::job::{Job, JobCtx, Polled, poll_job};

/// Reads a file into what its view shows, reporting to the progress and stopping on Cancel.
pub type ReadFn<T> = fn(&Path, Progress<'_>) -> Result<T, CodexlError>;

/// What a finished load hands to the document.
pub struct Loaded<T> {
    /// The parsed and prepared file.
    pub data: T,
    /// The session's files in the same folder (the file itself included).
    pub session: SessionFiles,
    /// How long reading and parsing took.
    pub elapsed: Duration,
}

/// Why a CodeXL file could not be loaded. The message names the file.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The loader thread could not be started.
    #[error("{}: cannot start the loader thread: {source}", path.display())]
    Spawn {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file could not be read.
    #[error("{}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The load was cancelled (the document says so itself: see [`LoadState::cancel`]).
    #[error("{}: loading cancelled", path.display())]
    Cancelled {
        /// The file.
        path: PathBuf,
    },
}

/// A running load: `Done` with the file, or `Failed`.
pub type LoadJob<T> = Job<Box<Loaded<T>>, LoadError>;

/// Reads `path` into `T` with `read` on a new `sightline-loader` thread; `wake` requests a
/// repaint when something arrives.
pub fn start_load<T: Send + 'static>(
    path: &Path,
    read: ReadFn<T>,
    wake: impl Fn() + Send + Sync + 'static,
) -> LoadJob<T> {
    let file = path.to_path_buf();
    let failed = path.to_path_buf();
    Job::start(
        wake,
        move |source| LoadError::Spawn {
            path: failed,
            source,
        },
        move |ctx| run(&file, read, ctx).map(Box::new),
    )
}

/// The loader thread's work.
fn run<T>(path: &Path, read: ReadFn<T>, ctx: &JobCtx) -> Result<Loaded<T>, LoadError> {
    let started = Instant::now();
    let cancelled = || LoadError::Cancelled {
        path: path.to_path_buf(),
    };
    let data = read(path, Progress::new(ctx).named("reading")).map_err(|error| match error {
        CodexlError::Io { source, .. } => LoadError::Read {
            path: path.to_path_buf(),
            source,
        },
        CodexlError::Cancelled(_) => cancelled(),
    })?;
    if ctx.is_cancelled() {
        return Err(cancelled());
    }
    let session = SessionFiles::find(path);
    Ok(Loaded {
        data,
        session,
        elapsed: started.elapsed(),
    })
}

/// The document side of a load: the job while it runs, its progress, the error, the result.
pub struct LoadState<T> {
    /// The file.
    pub path: PathBuf,
    job: Option<LoadJob<T>>,
    /// Progress `(fraction, stage)` while loading.
    pub progress: Option<(f32, String)>,
    /// Why the file could not be shown.
    pub error: Option<String>,
    /// The loaded file, with its session.
    pub loaded: Option<Loaded<T>>,
}

impl<T: Send + 'static> LoadState<T> {
    /// Starts loading `path` (see [`start_load`]).
    pub fn start(
        path: PathBuf,
        read: ReadFn<T>,
        wake: impl Fn() + Send + Sync + 'static,
    ) -> LoadState<T> {
        let job = start_load(&path, read, wake);
        LoadState {
            path,
            job: Some(job),
            progress: Some((0.0, "starting".into())),
            error: None,
            loaded: None,
        }
    }
}

impl<T> LoadState<T> {
    /// Whether the load is still running.
    pub fn loading(&self) -> bool {
        self.job.is_some() && self.loaded.is_none() && self.error.is_none()
    }

    /// Stops the load; the document then says it was cancelled.
    pub fn cancel(&mut self) {
        if let Some(job) = self.job.take() {
            job.cancel();
            if self.loaded.is_none() {
                self.error = Some(format!("{}: loading cancelled", self.path.display()));
            }
        }
        self.progress = None;
    }

    /// Applies what the thread sent. Returns `Some(Ok(()))` when the file has just loaded,
    /// `Some(Err(error))` when it has just failed.
    pub fn poll(&mut self) -> Option<Result<(), LoadError>> {
        let mut outcome = None;
        while let Some(event) = poll_job(&mut self.job, &mut self.progress) {
            match event {
                Polled::Done(loaded) => {
                    self.loaded = Some(*loaded);
                    outcome = Some(Ok(()));
                }
                Polled::Failed(error) => {
                    self.error = Some(error.to_string());
                    outcome = Some(Err(error));
                }
            }
        }
        outcome
    }
}

/// A CodeXL document: a [`LoadState`] and the view it draws once the file has loaded. Every
/// such type is a [`Document`] that loads, cancels, reports and waits through its load state.
pub trait LoadStateDoc: 'static {
    /// What the loader thread prepares.
    type Data;

    /// The document's load.
    fn load(&self) -> &LoadState<Self::Data>;

    /// The document's load, mutable.
    fn load_mut(&mut self) -> &mut LoadState<Self::Data>;

    /// Sets the view up for the file that has just loaded; returns what the file holds for the
    /// status message (`"3 dispatch(es)"`) and its number of warnings.
    fn opened(&mut self) -> Option<(String, usize)>;

    /// Draws the loaded file; files the user asks to open go to `open_files`.
    fn loaded_ui(&mut self, ui: &mut egui::Ui, open_files: &mut Vec<PathBuf>);
}

impl<D: LoadStateDoc> Document for D {
    fn path(&self) -> &Path {
        &self.load().path
    }

    fn loading(&self) -> bool {
        self.load().loading()
    }

    fn progress(&self) -> Option<(f32, String)> {
        self.load().progress.clone()
    }

    fn cancel(&mut self) {
        self.load_mut().cancel();
    }

    fn error(&self) -> Option<&str> {
        self.load().error.as_deref()
    }

    fn poll(&mut self) -> Option<(String, bool)> {
        match self.load_mut().poll()? {
            Err(error) => Some((error.to_string(), true)),
            Ok(()) => {
                let (what, warnings) = self.opened()?;
                let load = self.load();
                let elapsed = load.loaded.as_ref()?.elapsed;
                Some((
                    format!(
                        "Opened {}: {what}{} in {:.0} ms",
                        load.path.display(),
                        if warnings > 0 {
                            format!(", {warnings} warning(s)")
                        } else {
                            String::new()
                        },
                        elapsed.as_secs_f64() * 1e3
                    ),
                    false,
                ))
            }
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, services: &mut Services<'_>) {
        if self.load().loaded.is_some() {
            self.loaded_ui(ui, &mut services.open_files);
            return;
        }
        opening_panel(ui, self, |_, _| {});
    }

    fn shortcuts(&self) -> &'static [(&'static str, &'static str)] {
        TABLE_KEYS
    }

    crate::document::any_methods!();
}
