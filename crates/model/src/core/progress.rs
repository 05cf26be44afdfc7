//! The one progress and cancel protocol of the model: every reader, loader, exporter and
//! analysis that reports how far it got or can be stopped takes a [`Progress`].
//!
//! A [`Progress`] is a small `Copy` value: an optional [`ProgressSink`] (whoever listens: the
//! app's background job, a test, the command line), the part of the whole job this task covers
//! (so a caller gives part `i` of `n` to each of `n` files, [`Progress::part`]) and an optional
//! name the caller gives the task ([`Progress::named`]). A task reports [`Step`]s
//! ([`Progress::report`], [`Progress::report_bytes`]) and checks for Cancel
//! ([`Progress::check`] → [`Cancelled`], which the readers' error types wrap). Reporting is
//! cheap but not free: readers report every few thousand rows or few MB ([`Ticker`] counts for
//! a loop that goes row by row), and the sink throttles what it shows.
//!
//! Ready sinks: an [`AtomicBool`] is a cancel-only sink (`Progress::new(&flag)`); a
//! [`CancelFlag`] is one that can be shared with other threads and kept past a call (the app's
//! jobs, the rules' watchdog); [`FnSink`] calls a closure per step (with an optional cancel
//! flag), for the command line and tests; [`Progress::none`] reports nowhere and is never
//! cancelled.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// The user asked to stop: what [`Progress::check`] returns once the sink says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("cancelled")]
pub struct Cancelled;

/// What a step's `done` and `total` count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Rows, events, lines: things.
    Items,
    /// Bytes of a file.
    Bytes,
}

/// One report of a task's progress.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step<'s> {
    /// What the task is working through, as the reader names it: a table of an export,
    /// `NVTXT lines`, `trace lines`, `events`...
    pub stage: &'s str,
    /// The caller's name for the task ([`Progress::named`]), to show instead of the stage.
    pub task: Option<&'s str>,
    /// How much of the stage is done.
    pub done: u64,
    /// How much there is in all (0 while unknown).
    pub total: u64,
    /// What `done` and `total` count.
    pub unit: Unit,
    /// How far the whole job is, in `0..=1`: `done / total` mapped onto the task's part.
    pub fraction: f32,
}

impl Step<'_> {
    /// The caller's name for the task when it gave one, else the reader's stage.
    pub fn label(&self) -> &str {
        self.task.unwrap_or(self.stage)
    }
}

/// Whoever listens to a task: told every [`Step`], asked whether to stop. Called from the
/// task's threads (an analysis reports from each of its workers), hence `Sync`.
pub trait ProgressSink: Sync {
    /// One step of progress (the sink throttles what it shows; this must stay cheap).
    fn report(&self, step: &Step<'_>);
    /// Whether the task should stop.
    fn is_cancelled(&self) -> bool;
}

/// A cancel flag is a sink that shows nothing.
impl ProgressSink for AtomicBool {
    fn report(&self, _: &Step<'_>) {}

    fn is_cancelled(&self) -> bool {
        self.load(Ordering::Relaxed)
    }
}

/// A cancel flag shared by its clones: cancelling one cancels them all. A sink that shows
/// nothing, for work that outlives a borrowed [`Progress`] or runs on other threads (a job's
/// thread, the rules' watchdog, which polls it while a rule runs).
#[derive(Debug, Clone, Default)]
pub struct CancelFlag(Arc<AtomicBool>);

impl CancelFlag {
    /// A flag not set.
    pub fn new() -> CancelFlag {
        CancelFlag::default()
    }

    /// Sets the flag: every clone is cancelled from now on.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// Whether the flag was set.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    /// A progress that reports nowhere and is cancelled with this flag.
    pub fn progress(&self) -> Progress<'_> {
        Progress::new(self)
    }
}

impl ProgressSink for CancelFlag {
    fn report(&self, _: &Step<'_>) {}

    fn is_cancelled(&self) -> bool {
        CancelFlag::is_cancelled(self)
    }
}

/// A sink that calls a closure per step, and is cancelled when its flag (if any) is set.
pub struct FnSink<'c, F> {
    report: Mutex<F>,
    cancel: Option<&'c AtomicBool>,
}

impl<F: FnMut(&Step<'_>) + Send> FnSink<'static, F> {
    /// Calls `report` per step; never cancelled.
    pub fn new(report: F) -> Self {
        FnSink {
            report: Mutex::new(report),
            cancel: None,
        }
    }
}

impl<F> FnSink<'_, F> {
    /// The same sink, cancelled once `cancel` is set.
    pub fn with_cancel(self, cancel: &AtomicBool) -> FnSink<'_, F> {
        FnSink {
            report: self.report,
            cancel: Some(cancel),
        }
    }
}

impl<F: FnMut(&Step<'_>) + Send> ProgressSink for FnSink<'_, F> {
    fn report(&self, step: &Step<'_>) {
        // A closure that panicked once is not called again.
        if let Ok(mut report) = self.report.lock() {
            (*report)(step);
        }
    }

    fn is_cancelled(&self) -> bool {
        self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
    }
}

/// Where a task reports its progress and learns that it should stop (the protocol is described
/// in `core/progress.rs`).
#[derive(Clone, Copy)]
pub struct Progress<'a> {
    sink: Option<&'a dyn ProgressSink>,
    /// The task's part of the whole job, as fractions of it.
    from: f64,
    to: f64,
    task: Option<&'a str>,
}

impl Default for Progress<'_> {
    fn default() -> Self {
        Progress::none()
    }
}

impl std::fmt::Debug for Progress<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Progress")
            .field("sink", &self.sink.map(|_| "…"))
            .field("from", &self.from)
            .field("to", &self.to)
            .field("task", &self.task)
            .finish()
    }
}

impl<'a> Progress<'a> {
    /// Reports nowhere, never cancelled.
    pub const fn none() -> Progress<'static> {
        Progress {
            sink: None,
            from: 0.0,
            to: 1.0,
            task: None,
        }
    }

    /// Reports to `sink`, the task being the whole job.
    pub fn new(sink: &'a dyn ProgressSink) -> Self {
        Progress {
            sink: Some(sink),
            ..Progress::none()
        }
    }

    /// Reports to `sink` when there is one, else nowhere.
    pub fn from_option(sink: Option<&'a dyn ProgressSink>) -> Self {
        Progress {
            sink,
            ..Progress::none()
        }
    }

    /// The sub-task covering `from..to` of this task (fractions of it, clamped to `0..=1`).
    #[must_use]
    pub fn scaled(self, from: f64, to: f64) -> Self {
        let span = self.to - self.from;
        let (from, to) = (from.clamp(0.0, 1.0), to.clamp(0.0, 1.0));
        Progress {
            from: self.from + span * from,
            to: self.from + span * to.max(from),
            ..self
        }
    }

    /// Part `index` of `count` equal parts of this task (one per file of several).
    #[must_use]
    pub fn part(self, index: usize, count: usize) -> Self {
        if count == 0 {
            return self;
        }
        let n = count as f64;
        self.scaled(index as f64 / n, (index + 1) as f64 / n)
    }

    /// The same task under the caller's name `task`, shown instead of the reader's stages. A
    /// name an outer caller gave already is kept.
    #[must_use]
    pub fn named(self, task: &'a str) -> Self {
        Progress {
            task: self.task.or(Some(task)),
            ..self
        }
    }

    /// Whether anybody listens (a reader may skip work that only feeds progress).
    pub fn is_reported(&self) -> bool {
        self.sink.is_some()
    }

    /// Where this task's part of the whole job starts and ends, in `0..=1`.
    pub fn range(&self) -> (f64, f64) {
        (self.from, self.to)
    }

    /// Reports `done` of `total` items of `stage` (`total` 0: not known yet).
    pub fn report(&self, stage: &str, done: u64, total: u64) {
        self.step(stage, done, total, Unit::Items);
    }

    /// Reports `done` of `total` bytes of `stage`.
    pub fn report_bytes(&self, stage: &str, done: u64, total: u64) {
        self.step(stage, done, total, Unit::Bytes);
    }

    fn step(&self, stage: &str, done: u64, total: u64, unit: Unit) {
        let Some(sink) = self.sink else {
            return;
        };
        let share = if total == 0 {
            0.0
        } else {
            (done as f64 / total as f64).min(1.0)
        };
        sink.report(&Step {
            stage,
            task: self.task,
            done,
            total,
            unit,
            fraction: super::num::to_f32(self.from + (self.to - self.from) * share),
        });
    }

    /// Whether the task should stop.
    pub fn is_cancelled(&self) -> bool {
        self.sink.is_some_and(|s| s.is_cancelled())
    }

    /// `Err(Cancelled)` once the task should stop.
    pub fn check(&self) -> Result<(), Cancelled> {
        if self.is_cancelled() {
            Err(Cancelled)
        } else {
            Ok(())
        }
    }
}

/// Counts the items of a loop that goes one at a time, and every `every` items reports how
/// many are done and checks for Cancel (so a per-row call costs an addition and a comparison).
#[derive(Debug)]
pub struct Ticker<'a> {
    progress: Progress<'a>,
    stage: &'a str,
    unit: Unit,
    done: u64,
    total: u64,
    every: u64,
    next: u64,
}

impl<'a> Ticker<'a> {
    /// A ticker for `total` items of `stage`, reporting every `every` items (at least 1).
    pub fn new(progress: Progress<'a>, stage: &'a str, total: u64, every: u64) -> Self {
        let every = every.max(1);
        Ticker {
            progress,
            stage,
            unit: Unit::Items,
            done: 0,
            total,
            every,
            next: every,
        }
    }

    /// The same ticker counting bytes.
    #[must_use]
    pub fn in_bytes(self) -> Self {
        Ticker {
            unit: Unit::Bytes,
            ..self
        }
    }

    /// One more item done; `Err(Cancelled)` when the task should stop (checked with each
    /// report).
    #[inline]
    pub fn tick(&mut self) -> Result<(), Cancelled> {
        self.advance(1)
    }

    /// `n` more items done; see [`Ticker::tick`].
    #[inline]
    pub fn advance(&mut self, n: u64) -> Result<(), Cancelled> {
        self.done += n;
        if self.done < self.next {
            return Ok(());
        }
        self.next = self.done - self.done % self.every + self.every;
        self.report_now();
        self.progress.check()
    }

    /// Reports how far the ticker got now (the end of a stage).
    pub fn report_now(&self) {
        self.progress
            .step(self.stage, self.done, self.total, self.unit);
    }

    /// Items done so far.
    pub fn done(&self) -> u64 {
        self.done
    }

    /// The progress the ticker reports to.
    pub fn progress(&self) -> Progress<'a> {
        self.progress
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Steps as `(label, done, total, fraction)`.
    fn recorded(run: impl FnOnce(Progress<'_>)) -> Vec<(String, u64, u64, f32)> {
        let mut steps = Vec::new();
        let sink = FnSink::new(|s: &Step<'_>| {
            steps.push((s.label().to_owned(), s.done, s.total, s.fraction));
        });
        run(Progress::new(&sink));
        steps
    }

    #[test]
    fn parts_map_their_fraction_onto_the_job() {
        let steps = recorded(|p| {
            p.report("whole", 1, 4);
            p.part(1, 4).report("second", 0, 10);
            p.part(1, 4).report("second", 5, 10);
            p.part(3, 4).report("last", 10, 10);
            // A part of a part; done past the total counts as the total.
            p.part(2, 4).scaled(0.5, 1.0).report("nested", 20, 10);
            p.part(1, 2).report("unknown total", 7, 0);
        });
        let fractions: Vec<f32> = steps.iter().map(|s| s.3).collect();
        assert_eq!(fractions, [0.25, 0.25, 0.375, 1.0, 0.75, 0.5]);
        assert_eq!(steps[1], ("second".to_owned(), 0, 10, 0.25));
        assert_eq!(Progress::none().part(1, 4).range(), (0.25, 0.5));
        assert_eq!(Progress::none().part(1, 0).range(), (0.0, 1.0));
        assert_eq!(Progress::none().scaled(0.8, 0.2).range(), (0.8, 0.8));
    }

    #[test]
    fn a_named_task_keeps_the_outer_name() {
        let steps = recorded(|p| {
            p.report("table", 1, 2);
            p.named("file 1 of 2").report("table", 1, 2);
            p.named("file 1 of 2").named("inner").report("table", 2, 2);
        });
        let labels: Vec<&str> = steps.iter().map(|s| s.0.as_str()).collect();
        assert_eq!(labels, ["table", "file 1 of 2", "file 1 of 2"]);
    }

    #[test]
    fn cancel_comes_from_the_sink() {
        assert_eq!(Progress::none().check(), Ok(()));
        let flag = AtomicBool::new(false);
        let p = Progress::new(&flag);
        assert_eq!(p.check(), Ok(()));
        p.report("nobody sees this", 1, 1);
        flag.store(true, Ordering::Relaxed);
        assert!(p.part(3, 4).is_cancelled());
        assert_eq!(p.check(), Err(Cancelled));
        assert_eq!(Cancelled.to_string(), "cancelled");
        let sink = FnSink::new(|_: &Step<'_>| {}).with_cancel(&flag);
        assert_eq!(Progress::new(&sink).check(), Err(Cancelled));
        assert!(!Progress::new(&FnSink::new(|_: &Step<'_>| {})).is_cancelled());
    }

    #[test]
    fn a_cancel_flag_is_shared_by_its_clones() {
        let flag = CancelFlag::new();
        let other = flag.clone();
        assert_eq!(other.progress().check(), Ok(()));
        flag.cancel();
        assert!(flag.is_cancelled() && other.is_cancelled());
        assert_eq!(other.progress().part(1, 2).check(), Err(Cancelled));
        assert!(ProgressSink::is_cancelled(&other));
    }

    #[test]
    fn a_ticker_reports_every_n_items_and_stops_on_cancel() {
        let flag = AtomicBool::new(false);
        let mut seen = Vec::new();
        let sink =
            FnSink::new(|s: &Step<'_>| seen.push((s.done, s.total, s.unit))).with_cancel(&flag);
        let mut ticker = Ticker::new(Progress::new(&sink), "rows", 10, 4);
        for _ in 0..9 {
            assert_eq!(ticker.tick(), Ok(()));
        }
        assert_eq!(ticker.advance(3), Ok(()));
        flag.store(true, Ordering::Relaxed);
        assert_eq!(ticker.tick(), Ok(()), "checked with the next report only");
        assert_eq!(ticker.advance(3), Err(Cancelled));
        assert_eq!(ticker.done(), 16);
        let at: Vec<u64> = seen.iter().map(|s| s.0).collect();
        assert_eq!(at, [4, 8, 12, 16]);
        assert!(seen.iter().all(|s| s.1 == 10 && s.2 == Unit::Items));
        let bytes = Ticker::new(Progress::none(), "log", 0, 1).in_bytes();
        assert_eq!(bytes.unit, Unit::Bytes);
    }
}
