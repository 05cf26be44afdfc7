//! The document lifecycle, once for every kind: the shell's side of opening a file in a tab.
//!
//! A [`Load`] holds what every document has while it opens and after: its path, the running
//! [`Job`], its progress, why it failed, the loaded value, when it started and the repaint
//! request its background work uses. [`poll`] drains the job — progress on the way, the
//! intermediate results it sends (a timeline's previews, a report's kernel-list rows) and its
//! result handed to the kind — and writes the status messages once: "Opened <path>: <what>[, N
//! warning(s)] in X ms" when the kind says its file is shown ([`Opened`]), the job's error, and
//! "<path>: loading cancelled" when [`cancel`] stops it. [`ui`] draws the spinner or the error until
//! something is loaded.
//!
//! A kind writes only its view, as the egui demo's `View` and rerun's `DataLoader` separate
//! them: it implements [`DocumentView`] (what to start, what to do with what the job sends and
//! returns, what the loaded value says for the status line, how to draw it), keeps a
//! [`Load<Self>`] as a field, and puts [`lifecycle_methods!`] in its
//! [`Document`](crate::document::Document) impl.

use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use eframe::egui;

use crate::document::{Services, Wake, opening_ui};
use crate::job::{Job, Polled, poll_job};

/// A status message and whether it is an error.
pub type Status = (String, bool);

/// The load job of a kind: its result, error and intermediate messages.
pub type LoadJob<V> =
    Job<<V as DocumentView>::Done, <V as DocumentView>::Error, <V as DocumentView>::Sent>;

/// The stage shown before the job's first progress message.
pub const STARTING: &str = "starting";

/// What a kind says about its file once it is shown, for the status line: "Opened <path>:
/// <what>[, N warning(s)] in X ms[; <then>]" ("Reading" instead of "Opened" while what is shown
/// is a preview).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opened {
    /// What the file holds ("4 result(s)", "3 dispatch(es), 2 kernel(s)").
    pub what: String,
    /// How many warnings reading it gave.
    pub warnings: usize,
    /// How long loading took as the loader measured it; `None`: since the job started.
    pub elapsed: Option<Duration>,
    /// Whether what is shown is a preview of a load that goes on.
    pub partial: bool,
    /// What was opened when it is not the path ("3 files").
    pub subject: Option<String>,
    /// What is still being done ("reading the CPU samples' call stacks").
    pub then: Option<String>,
}

impl Opened {
    /// A file holding `what`, without warnings, timed by the lifecycle.
    pub fn new(what: impl Into<String>) -> Opened {
        Opened {
            what: what.into(),
            warnings: 0,
            elapsed: None,
            partial: false,
            subject: None,
            then: None,
        }
    }

    /// With `warnings` warnings.
    pub fn warnings(mut self, warnings: usize) -> Opened {
        self.warnings = warnings;
        self
    }

    /// Timed by the loader.
    pub fn elapsed(mut self, elapsed: Duration) -> Opened {
        self.elapsed = Some(elapsed);
        self
    }

    /// A preview (when `partial`): "Reading" instead of "Opened".
    pub fn partial(mut self, partial: bool) -> Opened {
        self.partial = partial;
        self
    }

    /// Names what was opened instead of the path.
    pub fn subject(mut self, subject: impl Into<String>) -> Opened {
        self.subject = Some(subject.into());
        self
    }

    /// What is still being done, after the time.
    pub fn then(mut self, then: Option<String>) -> Opened {
        self.then = then;
        self
    }

    /// The status line of `path`, loaded in `elapsed` unless the loader timed it.
    pub fn message(&self, path: &Path, elapsed: Duration) -> String {
        let verb = if self.partial { "Reading" } else { "Opened" };
        let subject = self
            .subject
            .clone()
            .unwrap_or_else(|| path.display().to_string());
        let warnings = match self.warnings {
            0 => String::new(),
            n => format!(", {n} warning(s)"),
        };
        let ms = self.elapsed.unwrap_or(elapsed).as_secs_f64() * 1e3;
        let then = self
            .then
            .as_ref()
            .map_or(String::new(), |t| format!("; {t}"));
        format!(
            "{verb} {subject}: {}{warnings} in {ms:.0} ms{then}",
            self.what
        )
    }
}

/// The message of a load cancelled by the user.
pub fn cancelled_message(path: &Path) -> String {
    format!("{}: loading cancelled", path.display())
}

/// A load job's error: its message (naming the file), and whether it only says that the load
/// was cancelled. The shell tells the two apart by this, not by the message: a cancelled load
/// is said once in the shell's words ([`cancelled_message`]), never shown as an error.
pub trait LoadFailure: Display {
    /// Whether the job stopped because it was cancelled.
    fn is_cancelled(&self) -> bool;
}

/// One kind of document's view: what the shell's lifecycle asks of it. The kind keeps a
/// [`Load<Self>`] (reached with [`DocumentView::load`]) and the state of its view.
pub trait DocumentView: Sized + 'static {
    /// The loaded value the lifecycle keeps ([`Load::loaded`]).
    type Loaded;
    /// What the job sends before it ends (`Infallible` when nothing).
    type Sent: Send + 'static;
    /// What the job ends with.
    type Done: Send + 'static;
    /// Why the job failed (its message names the file).
    type Error: LoadFailure + Send + 'static;

    /// The document's load.
    fn load(&self) -> &Load<Self>;

    /// The document's load, mutable.
    fn load_mut(&mut self) -> &mut Load<Self>;

    /// Starts the load job of the document's file (or files) as the view is set up now; `wake`
    /// requests a repaint.
    fn start(&mut self, wake: Wake) -> LoadJob<Self>;

    /// Takes something the job sent; returns what the file holds when this made it shown.
    fn sent(&mut self, message: Self::Sent) -> Option<Opened>;

    /// Takes the job's result; returns what the file holds when this made it shown.
    fn done(&mut self, done: Self::Done) -> Option<Opened>;

    /// Draws the document once something is loaded.
    fn loaded_ui(&mut self, ui: &mut egui::Ui, services: &mut Services<'_>);

    /// Drawn under the error or spinner while nothing is loaded (the timeline's `nsys` prompt).
    fn opening_ui(&mut self, _ui: &mut egui::Ui, _services: &mut Services<'_>) {}

    /// Applies what the view's own background work sent (an export, links with other tabs);
    /// returns a status message worth showing. Called before the load is polled.
    fn poll_view(&mut self) -> Option<Status> {
        None
    }

    /// The progress of the view's own background work (an export), shown when no load runs.
    fn view_progress(&self) -> Option<(f32, String)> {
        None
    }

    /// Cancels the view's own background work; `true` when the load is to go on (only the
    /// view's work was meant).
    fn cancel_view(&mut self) -> bool {
        false
    }

    /// The load was cancelled while something is shown: the view settles (no summary tables
    /// will come) and may say what stays.
    fn load_cancelled(&mut self) -> Option<&'static str> {
        None
    }
}

/// What the lifecycle keeps for one document: see the [module](self).
pub struct Load<V: DocumentView> {
    path: PathBuf,
    wake: Wake,
    job: Option<LoadJob<V>>,
    progress: Option<(f32, String)>,
    error: Option<String>,
    started: Instant,
    loaded: Option<V::Loaded>,
}

impl<V: DocumentView> Load<V> {
    /// A document of `path` with nothing loading yet.
    pub fn new(path: PathBuf, wake: Wake) -> Load<V> {
        Load {
            path,
            wake,
            job: None,
            progress: Some((0.0, STARTING.to_owned())),
            error: None,
            started: Instant::now(),
            loaded: None,
        }
    }

    /// The file shown.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The repaint request for background work.
    pub fn wake(&self) -> &Wake {
        &self.wake
    }

    /// A repaint request usable from other threads.
    pub fn waker(&self) -> impl Fn() + Send + Sync + Clone + 'static {
        let wake = self.wake.clone();
        move || wake()
    }

    /// Whether the load job is running.
    pub fn loading(&self) -> bool {
        self.job.is_some()
    }

    /// Load progress `(fraction, stage)` while it is known.
    pub fn progress(&self) -> Option<&(f32, String)> {
        self.progress.as_ref()
    }

    /// Forgets the progress (the job goes on without telling: the rest is quick or optional).
    pub fn clear_progress(&mut self) {
        self.progress = None;
    }

    /// Why the file could not be shown.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// The loaded value.
    pub fn loaded(&self) -> Option<&V::Loaded> {
        self.loaded.as_ref()
    }

    /// The loaded value, mutable.
    pub fn loaded_mut(&mut self) -> Option<&mut V::Loaded> {
        self.loaded.as_mut()
    }

    /// Replaces the loaded value; returns the one before.
    pub fn set_loaded(&mut self, loaded: Option<V::Loaded>) -> Option<V::Loaded> {
        std::mem::replace(&mut self.loaded, loaded)
    }

    /// Runs `job`, started at `started`, as the document's load (a running one is cancelled),
    /// from `stage`. What is loaded stays until the kind replaces it.
    fn begin(&mut self, job: LoadJob<V>, stage: &str, started: Instant) {
        if let Some(old) = self.job.take() {
            old.cancel();
        }
        self.job = Some(job);
        self.progress = Some((0.0, stage.to_owned()));
        self.error = None;
        self.started = started;
    }
}

/// Starts (or starts again) the load of `doc`, its progress at `stage`.
pub fn start<V: DocumentView>(doc: &mut V, stage: &str) {
    let started = Instant::now();
    let wake = doc.load().wake.clone();
    let job = doc.start(wake);
    doc.load_mut().begin(job, stage, started);
}

/// The progress shown: the load's, else the view's own work's.
pub fn progress<V: DocumentView>(doc: &V) -> Option<(f32, String)> {
    let load = doc.load();
    match (&load.job, &load.progress) {
        (Some(_), Some(progress)) => Some(progress.clone()),
        _ => doc.view_progress(),
    }
}

/// Cancels the view's own work, or the load: what was loaded stays; with nothing loaded the
/// cancel is the document's error. Returns the status message of a cancelled load.
pub fn cancel<V: DocumentView>(doc: &mut V) -> Option<Status> {
    if doc.cancel_view() {
        return None;
    }
    let load = doc.load_mut();
    load.progress = None;
    let job = load.job.take()?;
    job.cancel();
    Some(settle_cancelled(doc))
}

/// The load was cancelled: with nothing loaded that is the document's error, else the view
/// settles and says what stays. Returns the status message.
fn settle_cancelled<V: DocumentView>(doc: &mut V) -> Status {
    let load = doc.load_mut();
    let mut message = cancelled_message(&load.path);
    if load.loaded.is_none() {
        load.error = Some(message.clone());
    } else if let Some(stays) = doc.load_cancelled() {
        message = format!("{message}; {stays}");
    }
    (message, false)
}

/// Applies what the view's work and the load job sent; returns the status message to show.
pub fn poll<V: DocumentView>(doc: &mut V) -> Option<Status> {
    let mut status = doc.poll_view();
    loop {
        let load = doc.load_mut();
        let Some(event) = poll_job(&mut load.job, &mut load.progress) else {
            break;
        };
        let opened = match event {
            Polled::Sent(message) => doc.sent(message),
            Polled::Done(done) => doc.done(done),
            Polled::Failed(error) if error.is_cancelled() => {
                status = Some(settle_cancelled(doc));
                None
            }
            Polled::Failed(error) => {
                let message = error.to_string();
                let load = doc.load_mut();
                if load.loaded.is_none() {
                    load.error = Some(message.clone());
                }
                status = Some((message, true));
                None
            }
        };
        if let Some(opened) = opened {
            let load = doc.load();
            let text = opened.message(&load.path, load.started.elapsed());
            status = Some((text, false));
        }
    }
    // A thread that ended without a word (it panicked) finished loading too.
    let load = doc.load_mut();
    if load.job.as_ref().is_some_and(|job| !job.is_running()) {
        load.job = None;
        load.progress = None;
        if load.loaded.is_none() && load.error.is_none() {
            let message = format!(
                "{}: the loader stopped without a result",
                load.path.display()
            );
            load.error = Some(message.clone());
            status = Some((message, true));
        }
    }
    status
}

/// Draws the document: its view once something is loaded, else the error or a spinner with
/// the load stage (and what the view adds under it).
pub fn ui<V: DocumentView>(doc: &mut V, ui: &mut egui::Ui, services: &mut Services<'_>) {
    if doc.load().loaded.is_some() {
        doc.loaded_ui(ui, services);
        return;
    }
    egui::CentralPanel::default().show(ui, |ui| {
        let load = doc.load();
        opening_ui(ui, &load.path, load.error(), load.progress.as_ref());
        doc.opening_ui(ui, services);
    });
}

/// The lifecycle's methods of [`Document`](crate::document::Document) (path, loading,
/// progress, cancel, error, poll, ui) for a kind that implements [`DocumentView`]: put in its
/// `impl Document` block.
macro_rules! lifecycle_methods {
    () => {
        fn path(&self) -> &std::path::Path {
            $crate::lifecycle::DocumentView::load(self).path()
        }

        fn loading(&self) -> bool {
            $crate::lifecycle::DocumentView::load(self).loading()
        }

        fn progress(&self) -> Option<(f32, String)> {
            $crate::lifecycle::progress(self)
        }

        fn cancel(&mut self) -> Option<(String, bool)> {
            $crate::lifecycle::cancel(self)
        }

        fn error(&self) -> Option<&str> {
            $crate::lifecycle::DocumentView::load(self).error()
        }

        fn poll(&mut self) -> Option<(String, bool)> {
            $crate::lifecycle::poll(self)
        }

        fn ui(&mut self, ui: &mut eframe::egui::Ui, services: &mut $crate::document::Services<'_>) {
            $crate::lifecycle::ui(self, ui, services)
        }
    };
}
pub(crate) use lifecycle_methods;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::JobCtx;
    use std::sync::Arc;

    /// The probe's job error: a message, or the job saw Cancel.
    #[derive(Debug, thiserror::Error)]
    enum ProbeError {
        #[error("{0}")]
        Failed(&'static str),
        #[error("the job's own word, never shown")]
        Cancelled,
        #[error("cannot start: {0}")]
        Spawn(std::io::Error),
    }

    impl LoadFailure for ProbeError {
        fn is_cancelled(&self) -> bool {
            matches!(self, ProbeError::Cancelled)
        }
    }

    type Work = fn(&JobCtx<u32>) -> Result<u32, ProbeError>;

    /// A kind whose job runs `work`: it keeps what the job sent and loads what it returns.
    struct Probe {
        load: Load<Probe>,
        work: Work,
        sent: Vec<u32>,
    }

    impl Probe {
        fn open(work: Work) -> Probe {
            let mut probe = Probe {
                load: Load::new(PathBuf::from("/data/x.bin"), Arc::new(|| {})),
                work,
                sent: Vec::new(),
            };
            start(&mut probe, STARTING);
            probe
        }

        /// Polls until the load ends; the status messages said on the way.
        fn finish(&mut self) -> Vec<Status> {
            let deadline = Instant::now() + Duration::from_secs(10);
            let mut said = Vec::new();
            while self.load.loading() && Instant::now() < deadline {
                said.extend(poll(self));
                std::thread::sleep(Duration::from_millis(1));
            }
            said
        }
    }

    impl DocumentView for Probe {
        type Loaded = u32;
        type Sent = u32;
        type Done = u32;
        type Error = ProbeError;

        fn load(&self) -> &Load<Probe> {
            &self.load
        }

        fn load_mut(&mut self) -> &mut Load<Probe> {
            &mut self.load
        }

        fn start(&mut self, wake: Wake) -> LoadJob<Self> {
            let work = self.work;
            Job::start(move || wake(), ProbeError::Spawn, work)
        }

        fn sent(&mut self, message: u32) -> Option<Opened> {
            self.sent.push(message);
            None
        }

        fn done(&mut self, done: u32) -> Option<Opened> {
            self.load.set_loaded(Some(done));
            Some(Opened::new(format!("{done} thing(s)")).elapsed(Duration::from_millis(5)))
        }

        fn loaded_ui(&mut self, _ui: &mut egui::Ui, _services: &mut Services<'_>) {}
    }

    #[test]
    fn a_load_hands_on_what_it_sends_and_says_opened_once() {
        let mut probe = Probe::open(|ctx| {
            ctx.progress_now(0.5, "half");
            ctx.send(1);
            ctx.send(2);
            Ok(3)
        });
        assert!(probe.load.loading());
        let said = probe.finish();
        assert_eq!(
            said,
            [("Opened /data/x.bin: 3 thing(s) in 5 ms".into(), false)]
        );
        assert_eq!(probe.sent, [1, 2]);
        assert_eq!(probe.load.loaded(), Some(&3));
        assert_eq!((probe.load.error(), progress(&probe)), (None, None));
    }

    #[test]
    fn a_failed_load_is_the_error_and_the_status() {
        let mut probe = Probe::open(|_| Err(ProbeError::Failed("/data/x.bin: not a thing")));
        let said = probe.finish();
        assert_eq!(said, [("/data/x.bin: not a thing".into(), true)]);
        assert_eq!(probe.load.error(), Some("/data/x.bin: not a thing"));
        assert!(probe.load.loaded().is_none());
    }

    #[test]
    fn a_cancelled_load_says_so_once_and_ends() {
        let mut probe = Probe::open(|ctx| {
            let deadline = Instant::now() + Duration::from_secs(10);
            while !ctx.is_cancelled() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(1));
            }
            Err(ProbeError::Cancelled)
        });
        let said = cancel(&mut probe);
        assert_eq!(said, Some(("/data/x.bin: loading cancelled".into(), false)));
        assert_eq!(probe.load.error(), Some("/data/x.bin: loading cancelled"));
        assert!(!probe.load.loading() && progress(&probe).is_none());
        assert_eq!(poll(&mut probe), None);
        assert_eq!(cancel(&mut probe), None, "nothing left to cancel");
    }

    #[test]
    fn a_job_that_stops_on_cancel_is_told_apart_by_its_error_type() {
        // The job saw Cancel (here of its own accord): the shell's words, not an error.
        let mut probe = Probe::open(|_| Err(ProbeError::Cancelled));
        let said = probe.finish();
        let cancelled = "/data/x.bin: loading cancelled";
        assert_eq!(said, [(cancelled.into(), false)]);
        assert_eq!(probe.load.error(), Some(cancelled));
    }

    #[test]
    fn a_loader_that_dies_without_a_word_ends_the_load_with_an_error() {
        let mut probe = Probe::open(|_| panic!("the loader thread panics (expected)"));
        let said = probe.finish();
        let stopped = "/data/x.bin: the loader stopped without a result";
        assert_eq!(said, [(stopped.into(), true)]);
        assert_eq!(probe.load.error(), Some(stopped));
    }

    #[test]
    fn one_frame_for_every_opened_message() {
        let path = Path::new("/data/a.csv");
        let ms = Duration::from_millis(12);
        assert_eq!(
            Opened::new("3 dispatch(es)").message(path, ms),
            "Opened /data/a.csv: 3 dispatch(es) in 12 ms"
        );
        let timed = Opened::new("4 result(s)")
            .warnings(2)
            .elapsed(Duration::from_millis(40));
        assert_eq!(
            timed.message(path, ms),
            "Opened /data/a.csv: 4 result(s), 2 warning(s) in 40 ms"
        );
        let preview = Opened::new("9 events on 2 tracks so far")
            .partial(true)
            .subject("3 files")
            .then(Some("reading the call stacks".into()));
        assert_eq!(
            preview.message(path, ms),
            "Reading 3 files: 9 events on 2 tracks so far in 12 ms; reading the call stacks"
        );
        assert_eq!(cancelled_message(path), "/data/a.csv: loading cancelled");
    }
}
