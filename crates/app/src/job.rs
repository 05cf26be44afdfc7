//! One background job type for every document kind: work on a named thread (the
//! `sightline-loader` thread unless told otherwise) with throttled progress, intermediate
//! results, a cancel flag, and a repaint request after every message, so a background source
//! that changes the screen is seen at once. The GUI thread only polls.
//!
//! The work is a closure given a [`JobCtx`]: [`JobCtx::progress`] (at most one message per
//! [`PROGRESS_INTERVAL`], except the last), [`JobCtx::progress_now`] (a new stage, never
//! dropped), [`JobCtx::send`] (an intermediate result: a batch of kernel list rows, a timeline
//! on screen while its summary tables are computed...) and [`JobCtx::is_cancelled`]. What it
//! returns is the job's last event, [`JobEvent::Done`] or [`JobEvent::Failed`]; a thread that
//! cannot be started is a `Failed` event too.
//!
//! A [`JobCtx`] is the model's [`ProgressSink`]: the work hands `Progress::new(ctx)` to any
//! reader, loader, exporter or analysis, whose steps become the job's progress (a new stage
//! at once, the rest throttled) and which stops when the job is cancelled. The job's cancel
//! flag is the model's [`CancelFlag`] ([`JobCtx::cancel_flag`]), for work that polls it from
//! another thread (the rules' watchdog).

use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sightline_model::core::{CancelFlag, ProgressSink, Step, Unit};

/// The name of a job's thread unless told otherwise.
pub const THREAD_NAME: &str = "sightline-loader";

/// The shortest time between two throttled progress messages.
pub const PROGRESS_INTERVAL: Duration = Duration::from_millis(40);

/// What a job tells the GUI thread: `T` is its result, `E` its error, `M` what it sends on the
/// way (nothing by default).
#[derive(Debug)]
pub enum JobEvent<T, E, M = Infallible> {
    /// Progress `(fraction in 0..=1, stage)`.
    Progress(f32, String),
    /// An intermediate result ([`JobCtx::send`]).
    Sent(M),
    /// The work returned its result (the last event).
    Done(T),
    /// The work failed, or its thread could not be started (the last event).
    Failed(E),
}

/// What the work sends through its context.
enum Update<M> {
    Progress(f32, String),
    Sent(M),
}

/// What a job's work sees: progress, intermediate results, the cancel flag.
pub struct JobCtx<M = Infallible> {
    /// Sends an update and requests a repaint; `false` once nobody listens.
    out: Box<dyn Fn(Update<M>) -> bool + Send + Sync>,
    cancel: CancelFlag,
    /// When the last progress message was sent.
    last_progress: Mutex<Option<Instant>>,
    /// The label of the last step reported through [`ProgressSink`].
    last_step: Mutex<String>,
}

impl<M> JobCtx<M> {
    /// A context whose messages go nowhere and which is never cancelled, for running a job's
    /// work on the calling thread (tests, tools).
    pub fn detached() -> JobCtx<M> {
        JobCtx::new(Box::new(|_| false), CancelFlag::new())
    }

    fn new(out: Box<dyn Fn(Update<M>) -> bool + Send + Sync>, cancel: CancelFlag) -> Self {
        JobCtx {
            out,
            cancel,
            last_progress: Mutex::new(None),
            last_step: Mutex::new(String::new()),
        }
    }

    /// Sends progress, at most one message per [`PROGRESS_INTERVAL`]: the first, and the last
    /// (`fraction >= 1`), always go. Returns `false` once nobody listens.
    pub fn progress(&self, fraction: f32, stage: &str) -> bool {
        let now = Instant::now();
        if let Ok(mut last) = self.last_progress.lock() {
            // Checked and set under one lock: the work may report from several threads.
            if fraction < 1.0
                && last.is_some_and(|t| now.saturating_duration_since(t) < PROGRESS_INTERVAL)
            {
                return true;
            }
            *last = Some(now);
        }
        self.emit_progress(fraction, stage)
    }

    /// Sends progress now (a new stage: never dropped). Returns `false` once nobody listens.
    pub fn progress_now(&self, fraction: f32, stage: &str) -> bool {
        if let Ok(mut last) = self.last_progress.lock() {
            *last = Some(Instant::now());
        }
        self.emit_progress(fraction, stage)
    }

    fn emit_progress(&self, fraction: f32, stage: &str) -> bool {
        (self.out)(Update::Progress(fraction.clamp(0.0, 1.0), stage.to_owned()))
    }

    /// Sends an intermediate result. Returns `false` once nobody listens.
    pub fn send(&self, message: M) -> bool {
        (self.out)(Update::Sent(message))
    }

    /// Whether the job was cancelled (or dropped).
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// The job's cancel flag, to hand to work that runs on other threads (the rules' engine).
    pub fn cancel_flag(&self) -> &CancelFlag {
        &self.cancel
    }
}

/// The model's steps as the job's progress: the fraction of the whole job, and the caller's
/// name for the task when it gave one ([`Progress::named`](sightline_model::core::Progress::named)),
/// else `reading STAGE` (with the MB read of a stage counted in bytes). A step of a new task or
/// stage is sent at once, the others at most once per [`PROGRESS_INTERVAL`].
impl<M> ProgressSink for JobCtx<M> {
    fn report(&self, step: &Step<'_>) {
        let text = match (step.task, step.unit) {
            (Some(task), _) => task.to_owned(),
            (None, Unit::Bytes) => {
                let mb = |b: u64| b as f64 / 1e6;
                format!(
                    "reading {}: {:.0} of {:.0} MB",
                    step.stage,
                    mb(step.done),
                    mb(step.total)
                )
            }
            (None, Unit::Items) => format!("reading {}", step.stage),
        };
        let new_stage = self.last_step.lock().is_ok_and(|mut last| {
            let new = *last != step.label();
            if new {
                step.label().clone_into(&mut last);
            }
            new
        });
        if new_stage {
            self.progress_now(step.fraction, &text);
        } else {
            self.progress(step.fraction, &text);
        }
    }

    fn is_cancelled(&self) -> bool {
        JobCtx::is_cancelled(self)
    }
}

/// A job running on its own thread. Dropping it cancels it.
pub struct Job<T, E, M = Infallible> {
    events: Receiver<JobEvent<T, E, M>>,
    cancel: CancelFlag,
    /// Set once [`Job::poll`] found the thread gone and every event read.
    ended: AtomicBool,
}

impl<T: Send + 'static, E: Send + 'static, M: Send + 'static> Job<T, E, M> {
    /// Runs `work` on a new [`THREAD_NAME`] thread; see [`Job::start_named`].
    pub fn start(
        wake: impl Fn() + Send + Sync + 'static,
        spawn_failed: impl FnOnce(std::io::Error) -> E,
        work: impl FnOnce(&JobCtx<M>) -> Result<T, E> + Send + 'static,
    ) -> Job<T, E, M> {
        Job::start_named(THREAD_NAME, wake, spawn_failed, work)
    }

    /// Runs `work` on a new thread named `name`; `wake` (a repaint request) is called after every
    /// message. When the thread cannot be started, the job's one event is
    /// `Failed(spawn_failed(error))`.
    pub fn start_named(
        name: &str,
        wake: impl Fn() + Send + Sync + 'static,
        spawn_failed: impl FnOnce(std::io::Error) -> E,
        work: impl FnOnce(&JobCtx<M>) -> Result<T, E> + Send + 'static,
    ) -> Job<T, E, M> {
        let (tx, events) = channel();
        let cancel = CancelFlag::new();
        let wake = Arc::new(wake);
        let updates = tx.clone();
        let woken = wake.clone();
        let ctx = JobCtx::new(
            Box::new(move |update| {
                let event = match update {
                    Update::Progress(fraction, stage) => JobEvent::Progress(fraction, stage),
                    Update::Sent(message) => JobEvent::Sent(message),
                };
                let listening = updates.send(event).is_ok();
                woken();
                listening
            }),
            cancel.clone(),
        );
        let last = tx.clone();
        let spawned = std::thread::Builder::new()
            .name(name.to_owned())
            .spawn(move || {
                // Declared first, dropped last: the repaint request comes after the channel's
                // senders are gone, also when `work` panics, so the GUI's next poll sees the
                // job ended without waiting for input.
                let _wake_on_exit = WakeOnExit(wake);
                let (ctx, last) = (ctx, last);
                let event = match work(&ctx) {
                    Ok(value) => JobEvent::Done(value),
                    Err(error) => JobEvent::Failed(error),
                };
                let _ = last.send(event);
            });
        if let Err(error) = spawned {
            let _ = tx.send(JobEvent::Failed(spawn_failed(error)));
        }
        Job {
            events,
            cancel,
            ended: AtomicBool::new(false),
        }
    }
}

/// Requests a repaint when dropped: at the end of a job's thread, however it ends.
struct WakeOnExit<W: Fn()>(Arc<W>);

impl<W: Fn()> Drop for WakeOnExit<W> {
    fn drop(&mut self) {
        (self.0)();
    }
}

impl<T, E, M> Job<T, E, M> {
    /// The next event, if one arrived (call until `None` to drain the channel).
    pub fn poll(&self) -> Option<JobEvent<T, E, M>> {
        match self.events.try_recv() {
            Ok(event) => Some(event),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => {
                self.ended.store(true, Ordering::Relaxed);
                None
            }
        }
    }

    /// Asks the work to stop (it sees [`JobCtx::is_cancelled`]).
    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    /// Whether the job may still send something: `false` once [`Job::poll`] found its thread
    /// ended and every event read.
    pub fn is_running(&self) -> bool {
        !self.ended.load(Ordering::Relaxed)
    }
}

/// What [`poll_job`] hands on: every event but progress.
#[derive(Debug)]
pub enum Polled<T, E, M = Infallible> {
    /// An intermediate result ([`JobCtx::send`]).
    Sent(M),
    /// The work's result (the job is gone, the progress cleared).
    Done(T),
    /// The work's error (the job is gone, the progress cleared).
    Failed(E),
}

/// The next event of `job` that is not progress; progress goes to `progress` on the way. The
/// last event (`Done` or `Failed`) drops the job and clears the progress before it is handed on.
pub fn poll_job<T, E, M>(
    job: &mut Option<Job<T, E, M>>,
    progress: &mut Option<(f32, String)>,
) -> Option<Polled<T, E, M>> {
    loop {
        let last = match job.as_ref()?.poll()? {
            JobEvent::Progress(fraction, stage) => {
                *progress = Some((fraction, stage));
                continue;
            }
            JobEvent::Sent(message) => return Some(Polled::Sent(message)),
            JobEvent::Done(value) => Polled::Done(value),
            JobEvent::Failed(error) => Polled::Failed(error),
        };
        *job = None;
        *progress = None;
        return Some(last);
    }
}

impl<T, E, M> Drop for Job<T, E, M> {
    fn drop(&mut self) {
        self.cancel();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain<T, E, M>(job: &Job<T, E, M>) -> Vec<JobEvent<T, E, M>> {
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut events = Vec::new();
        while job.is_running() && Instant::now() < deadline {
            match job.poll() {
                Some(event) => events.push(event),
                None => std::thread::sleep(Duration::from_millis(1)),
            }
        }
        events
    }

    #[test]
    fn events_arrive_in_order_on_a_named_thread_with_a_wake_each() {
        let wakes = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = wakes.clone();
        let job: Job<String, String, u32> = Job::start(
            move || {
                counter.fetch_add(1, Ordering::Relaxed);
            },
            |e| e.to_string(),
            |ctx| {
                ctx.progress_now(0.1, "one");
                ctx.send(7);
                ctx.progress(1.0, "last");
                Ok(std::thread::current().name().unwrap_or_default().to_owned())
            },
        );
        let events = drain(&job);
        let shown: Vec<String> = events
            .iter()
            .map(|e| match e {
                JobEvent::Progress(f, s) => format!("{f} {s}"),
                JobEvent::Sent(m) => format!("sent {m}"),
                JobEvent::Done(name) => format!("done {name}"),
                JobEvent::Failed(e) => format!("failed {e}"),
            })
            .collect();
        assert_eq!(
            shown,
            ["0.1 one", "sent 7", "1 last", "done sightline-loader"]
        );
        assert_eq!(wakes.load(Ordering::Relaxed), 4);
        assert!(!job.is_running());
    }

    #[test]
    fn cancel_is_seen_by_the_work() {
        let job: Job<(), &str> = Job::start(
            || {},
            |_| "spawn",
            |ctx| {
                let deadline = Instant::now() + Duration::from_secs(10);
                while !ctx.is_cancelled() && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(1));
                }
                if ctx.is_cancelled() {
                    Err("cancelled")
                } else {
                    Ok(())
                }
            },
        );
        job.cancel();
        let events = drain(&job);
        assert!(matches!(events[..], [JobEvent::Failed("cancelled")]));
    }

    #[test]
    fn progress_is_throttled_except_the_first_and_the_last() {
        let sent = Arc::new(Mutex::new(Vec::new()));
        let log = sent.clone();
        let ctx: JobCtx = JobCtx::new(
            Box::new(move |update| {
                if let (Update::Progress(f, s), Ok(mut log)) = (update, log.lock()) {
                    log.push(format!("{f} {s}"));
                }
                true
            }),
            CancelFlag::new(),
        );
        ctx.progress(0.2, "first");
        // As if the last message had just gone out, however slow this machine is.
        if let Ok(mut last) = ctx.last_progress.lock() {
            *last = Some(Instant::now() + Duration::from_secs(3600));
        }
        ctx.progress(0.5, "dropped");
        ctx.progress(1.0, "last");
        ctx.progress_now(0.0, "new stage");
        let sent = sent.lock().map(|s| s.clone()).unwrap_or_default();
        assert_eq!(sent, ["0.2 first", "1 last", "0 new stage"]);
    }

    #[test]
    fn the_models_progress_becomes_the_jobs() {
        use sightline_model::core::{Cancelled, Progress};

        let sent = Arc::new(Mutex::new(Vec::new()));
        let log = sent.clone();
        let cancel = CancelFlag::new();
        let ctx: JobCtx = JobCtx::new(
            Box::new(move |update| {
                if let (Update::Progress(f, s), Ok(mut log)) = (update, log.lock()) {
                    log.push(format!("{f} {s}"));
                }
                true
            }),
            cancel.clone(),
        );
        let progress = Progress::new(&ctx);
        progress.report("NVTX_EVENTS", 1, 4);
        // As if the last message had just gone out: the same stage waits, a new one goes.
        if let Ok(mut last) = ctx.last_progress.lock() {
            *last = Some(Instant::now() + Duration::from_secs(3600));
        }
        progress.report("NVTX_EVENTS", 2, 4);
        progress
            .part(1, 2)
            .report_bytes("NVTXT lines", 1_000_000, 4_000_000);
        let name = "exporting to out.json".to_owned();
        progress.named(&name).report("events", 4, 4);
        assert_eq!(progress.check(), Ok(()));
        cancel.cancel();
        assert_eq!(progress.part(1, 2).check(), Err(Cancelled));
        let sent = sent.lock().map(|s| s.clone()).unwrap_or_default();
        assert_eq!(
            sent,
            [
                "0.25 reading NVTX_EVENTS",
                "0.625 reading NVTXT lines: 1 of 4 MB",
                "1 exporting to out.json",
            ]
        );
    }
}
