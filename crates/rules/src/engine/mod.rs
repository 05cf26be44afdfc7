//! The rule engine: one Python interpreter on a dedicated worker thread (`sightline-rules`),
//! reused for every run; callers talk to it through channels.
//!
//! A run loads the rule files of the given folders (cached while the folders stay the same),
//! orders them (parents first), and applies them to each requested kernel. Every rule call has
//! a time budget enforced by a watchdog thread that interrupts the interpreter through
//! RustPython's user-signal channel; timeouts, exceptions, `RecursionError`s and failed imports
//! become that rule's error, never a crash or a hang of the caller.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rustpython_vm::builtins::{PyBaseExceptionRef, PyTypeRef};
use rustpython_vm::signal::{UserSignalSender, user_signal_channel};
use rustpython_vm::{AsObject, Interpreter, PyObjectRef, PyPayload, PyResult, VirtualMachine};
use sightline_model::core::{CancelFlag, ProgressSink};

use super::model::{KernelRules, PythonError, RuleError, RuleResult, RulesError, StartupError};
use super::nvrules::action::ActionData;
use super::nvrules::context::IContext;
use super::nvrules::controller::{ControllerState, IController, IEvaluator, Requirements};
use super::nvrules::frontend::{IFrontend, KernelShared, RuleOutput};
use super::nvrules::{HandleTarget, register_handle, release_handle};
use super::order::{RuleNode, run_order};
use sightline_model::ncu::Report;

mod kernel;
mod timeline;
mod watchdog;
pub(crate) mod worker;

use watchdog::*;
use worker::*;

/// Default time budget of one rule call.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(2);

/// Which sections count as present when deciding whether a section-bound rule runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SectionBinding {
    /// The sections embedded in each action of the report.
    Embedded,
    /// A fixed set of section identifiers (from section folders).
    Identifiers(HashSet<String>),
}

/// What to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Rule folders, searched in order (each is also put on `sys.path`).
    pub rule_folders: Vec<PathBuf>,
    /// Extra folders searched by `IFrontend.load_chart_from_file` after the rule's folder.
    pub chart_folders: Vec<PathBuf>,
    /// Section binding.
    pub sections: SectionBinding,
    /// Actions to run on (`None` = all).
    pub kernels: Option<Vec<usize>>,
    /// Time budget of one rule call.
    pub timeout: Duration,
    /// Also load Sightline's bundled rules from memory, after the folders (for when they are
    /// not deployed to a folder).
    pub bundled_from_memory: bool,
    /// Run only these rules (with the rules they depend on, whose results are not reported);
    /// `None` runs every rule.
    pub only: Option<Vec<String>>,
    /// Cancelling this flag (from any thread, the model's one cancel protocol) cancels the
    /// run: the rule running is interrupted, the rest are skipped, and the run returns what
    /// finished with `cancelled` set.
    pub cancel: Option<CancelFlag>,
    /// How rules get SASS text (`IAction.sass_by_pc`): `None` (the default) gives empty
    /// strings; with options, nvdisasm is searched and run on the functions rules ask about.
    pub nvdisasm: Option<sightline_model::ncu::source::nvdisasm::NvdisasmOptions>,
}

impl RunOptions {
    /// Options for the given rule folders with the defaults (all kernels, embedded sections,
    /// 2 s budget).
    pub fn new(rule_folders: Vec<PathBuf>) -> RunOptions {
        RunOptions {
            rule_folders,
            chart_folders: Vec::new(),
            sections: SectionBinding::Embedded,
            kernels: None,
            timeout: DEFAULT_TIMEOUT,
            bundled_from_memory: false,
            only: None,
            cancel: None,
            nvdisasm: None,
        }
    }
}

/// The result of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutput {
    /// Per kernel, in the order requested.
    pub kernels: Vec<KernelRules>,
    /// Rule files that failed to load and ordering problems (cycles).
    pub load_errors: Vec<RuleError>,
    /// Number of rules loaded.
    pub rules_loaded: usize,
    /// Time spent applying rules (excluding loading).
    pub apply_time: Duration,
    /// Time spent loading rule files in this run (zero when the loaded set was reused).
    pub load_time: Duration,
    /// Whether the run was cancelled ([`RunOptions::cancel`]); `kernels` holds what finished.
    pub cancelled: bool,
}

enum Request {
    Run {
        report: Arc<Report>,
        options: RunOptions,
        reply: Sender<Result<RunOutput, RulesError>>,
    },
    Eval {
        source: String,
        reply: Sender<Result<String, PythonError>>,
    },
    Timeline {
        trace: Arc<sightline_model::timeline::nsys::trace::Trace>,
        options: crate::timeline::TimelineRunOptions,
        reply: Sender<Result<crate::timeline::TimelineRunOutput, RulesError>>,
    },
}

/// Handle to the worker thread and its interpreter.
pub struct RuleEngine {
    tx: Option<Sender<Request>>,
    worker: Option<JoinHandle<()>>,
    watchdog: Arc<Watchdog>,
    watchdog_thread: Option<JoinHandle<()>>,
    ready_time: Duration,
    /// Set when a rule stayed stuck past its budget plus `stuck_grace` (native code the
    /// interrupt cannot reach): the worker is abandoned.
    stuck: AtomicBool,
    /// How long past its budget a rule call may stay uninterruptible ([`STUCK_GRACE`] unless
    /// set with [`RuleEngine::with_stuck_grace`]).
    stuck_grace: Duration,
}

/// How long past its budget a rule call may stay uninterruptible before the engine gives up on
/// the worker thread instead of waiting for it.
pub const STUCK_GRACE: Duration = Duration::from_secs(5);

impl std::fmt::Debug for RuleEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RuleEngine")
            .field("ready_time", &self.ready_time)
            .finish_non_exhaustive()
    }
}

/// Stack size of the worker: deep Python recursion must hit `RecursionError` before the native
/// stack runs out (debug builds use a lot of stack per Python frame).
const WORKER_STACK: usize = 256 * 1024 * 1024;

impl RuleEngine {
    /// Starts the worker thread and waits until its interpreter is ready.
    pub fn start() -> Result<RuleEngine, RulesError> {
        let started = Instant::now();
        let (tx, rx) = mpsc::channel::<Request>();
        let (signal_tx, signal_rx) = user_signal_channel();
        let watchdog = Arc::new(Watchdog::default());
        let (ready_tx, ready_rx) = mpsc::channel::<Result<(), PythonError>>();
        let worker_watchdog = watchdog.clone();
        let worker = std::thread::Builder::new()
            .name("sightline-rules".into())
            .stack_size(WORKER_STACK)
            .spawn(move || {
                let interpreter = super::interp::build(signal_rx);
                let timeout_type = interpreter.enter(super::interp::prepare);
                let timeout_type = match timeout_type {
                    Ok(t) => {
                        let _ = ready_tx.send(Ok(()));
                        t
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                let mut worker = Worker {
                    interpreter,
                    timeout_type,
                    watchdog: worker_watchdog,
                    loaded: None,
                    timeline: None,
                    cancel: None,
                };
                worker.serve(&rx);
            })
            .map_err(|e| RulesError::Startup(StartupError::Spawn(e)))?;
        let watchdog_thread = {
            let watchdog = watchdog.clone();
            std::thread::Builder::new()
                .name("sightline-rules-watchdog".into())
                .spawn(move || watchdog.watch(&signal_tx))
                .map_err(|e| RulesError::Startup(StartupError::Spawn(e)))?
        };
        match ready_rx.recv() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(RulesError::Startup(e.into())),
            Err(_) => return Err(RulesError::Startup(StartupError::WorkerDied)),
        }
        Ok(RuleEngine {
            tx: Some(tx),
            worker: Some(worker),
            watchdog,
            watchdog_thread: Some(watchdog_thread),
            ready_time: started.elapsed(),
            stuck: AtomicBool::new(false),
            stuck_grace: STUCK_GRACE,
        })
    }

    /// The engine, giving up on a rule call stuck in native code `grace` past its budget
    /// instead of [`STUCK_GRACE`].
    pub fn with_stuck_grace(mut self, grace: Duration) -> RuleEngine {
        self.stuck_grace = grace;
        self
    }

    /// How long the interpreter took to become ready (start-up, standard modules, sandbox).
    pub fn ready_time(&self) -> Duration {
        self.ready_time
    }

    /// Runs rules on a report. The rule files are loaded again when a file in the folders
    /// changed since the last run (so an edited rule takes effect).
    pub fn run(&self, report: Arc<Report>, options: RunOptions) -> Result<RunOutput, RulesError> {
        let (reply, rx) = mpsc::channel();
        self.send(Request::Run {
            report,
            options,
            reply,
        })?;
        self.wait(&rx)?
    }

    /// Waits for the worker's answer, giving up when a rule call is stuck in code the
    /// interrupt cannot reach (a long loop inside a native function).
    fn wait<T>(&self, rx: &Receiver<T>) -> Result<T, RulesError> {
        loop {
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(answer) => return Ok(answer),
                Err(mpsc::RecvTimeoutError::Disconnected) => return Err(RulesError::EngineGone),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if let Some(overdue) = self.watchdog.overdue()
                        && overdue > self.stuck_grace
                    {
                        self.stuck.store(true, Ordering::SeqCst);
                        return Err(RulesError::Unresponsive(overdue.as_secs()));
                    }
                }
            }
        }
    }

    /// Runs timeline rules on a trace (see [`crate::timeline`]). Rule files are loaded again
    /// when a file in the folders changed since the last run.
    pub fn run_timeline(
        &self,
        trace: Arc<sightline_model::timeline::nsys::trace::Trace>,
        options: crate::timeline::TimelineRunOptions,
    ) -> Result<crate::timeline::TimelineRunOutput, RulesError> {
        let (reply, rx) = mpsc::channel();
        self.send(Request::Timeline {
            trace,
            options,
            reply,
        })?;
        self.wait(&rx)?
    }

    /// Evaluates a Python expression in the engine's interpreter and returns its `repr` (or
    /// the exception it raised). For diagnostics and tests.
    pub fn eval(&self, source: &str) -> Result<Result<String, PythonError>, RulesError> {
        let (reply, rx) = mpsc::channel();
        self.send(Request::Eval {
            source: source.to_owned(),
            reply,
        })?;
        self.wait(&rx)
    }

    fn send(&self, request: Request) -> Result<(), RulesError> {
        if self.stuck.load(Ordering::SeqCst) {
            return Err(RulesError::EngineGone);
        }
        self.tx
            .as_ref()
            .ok_or(RulesError::EngineGone)?
            .send(request)
            .map_err(|_| RulesError::EngineGone)
    }
}

impl Drop for RuleEngine {
    fn drop(&mut self) {
        self.tx = None;
        if let Some(worker) = self.worker.take()
            && !self.stuck.load(Ordering::SeqCst)
        {
            let _ = worker.join();
        }
        self.watchdog.shutdown();
        if let Some(thread) = self.watchdog_thread.take() {
            let _ = thread.join();
        }
    }
}
