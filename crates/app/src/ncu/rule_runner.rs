//! Applying rules from the GUI without blocking it: a client thread (`sightline-rule-client`)
//! starts the rule engine when warmed up (the app does it when the first report opens) or on the
//! first request, and serves apply requests one after another, each with its own cancel flag;
//! results come back through a channel and a repaint request.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::time::Duration;

use sightline_model::core::CancelFlag;
use sightline_model::ncu::Report;
use sightline_rules::{RuleEngine, RulesError, RunOptions, RunOutput};

/// Which rules a request applies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleSelection {
    /// Every rule.
    All,
    /// One rule (with the rules it depends on, whose results are not reported).
    One(String),
}

impl RuleSelection {
    /// Whether rule `identifier` is among those applied.
    pub fn includes(&self, identifier: &str) -> bool {
        match self {
            RuleSelection::All => true,
            RuleSelection::One(id) => id == identifier,
        }
    }
}

/// A request to apply rules to one kernel of a report.
pub struct ApplyRequest {
    /// The tab the request came from ([`super::report_tab::ReportTab::id`]).
    pub tab: u64,
    /// The report.
    pub report: Arc<Report>,
    /// The kernel.
    pub kernel: usize,
    /// Which rules.
    pub selection: RuleSelection,
    /// Engine options (folders, sections); `kernels`, `only` and `cancel` are set by the runner.
    pub options: RunOptions,
}

/// Why an [`ApplyRequest`] produced no [`RunOutput`].
#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    /// The request was cancelled before it started.
    #[error("cancelled")]
    Cancelled,
    /// The engine could not start, or failed the run (including
    /// [`RulesError::EngineGone`] when the client thread is gone).
    #[error(transparent)]
    Engine(#[from] RulesError),
    /// There is no engine to run the request on.
    #[error("the rule engine is not running")]
    NotRunning,
}

/// The answer to an [`ApplyRequest`].
#[derive(Debug)]
pub struct ApplyResult {
    /// The request's id (from [`RuleRunner::submit`]).
    pub id: u64,
    /// The tab it came from.
    pub tab: u64,
    /// The kernel.
    pub kernel: usize,
    /// Which rules were applied.
    pub selection: RuleSelection,
    /// The engine's output, or why the engine could not run.
    pub outcome: Result<RunOutput, ApplyError>,
    /// How long the interpreter took to start, when this request started it.
    pub engine_started: Option<Duration>,
}

/// What the client thread is asked to do.
enum Message {
    /// Start the engine now, so that the first request does not wait for it.
    WarmUp,
    /// Apply rules.
    Apply(Box<Job>),
}

struct Job {
    id: u64,
    request: ApplyRequest,
    cancel: CancelFlag,
}

/// A request submitted and not answered yet.
struct InFlight {
    id: u64,
    tab: u64,
    kernel: usize,
    selection: RuleSelection,
    cancel: CancelFlag,
}

/// The client thread and its queue.
pub struct RuleRunner {
    jobs: Option<Sender<Message>>,
    warmed_up: bool,
    results: Receiver<ApplyResult>,
    next_id: u64,
    in_flight: Vec<InFlight>,
}

impl RuleRunner {
    /// Starts the client thread; `wake` is called whenever a result is ready.
    pub fn new(wake: impl Fn() + Send + 'static) -> RuleRunner {
        let (jobs, job_rx) = channel::<Message>();
        let (result_tx, results) = channel::<ApplyResult>();
        // The thread is not joined on drop, so a rule stuck in native code cannot hold up
        // closing the window; it ends once its current request is answered.
        let started = std::thread::Builder::new()
            .name("sightline-rule-client".into())
            .spawn(move || serve(&job_rx, &result_tx, wake))
            .is_ok();
        RuleRunner {
            jobs: started.then_some(jobs),
            warmed_up: false,
            results,
            next_id: 0,
            in_flight: Vec::new(),
        }
    }

    /// Starts the rule interpreter in the background (once), e.g. when a report is opened, so
    /// that applying rules does not wait for it.
    pub fn warm_up(&mut self) {
        if !self.warmed_up
            && let Some(jobs) = &self.jobs
        {
            self.warmed_up = jobs.send(Message::WarmUp).is_ok();
        }
    }

    /// Queues a request; returns its id.
    pub fn submit(&mut self, request: ApplyRequest) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        let cancel = CancelFlag::new();
        self.in_flight.push(InFlight {
            id,
            tab: request.tab,
            kernel: request.kernel,
            selection: request.selection.clone(),
            cancel: cancel.clone(),
        });
        // When the thread is gone the request stays in flight and `poll` answers it.
        if let Some(jobs) = &self.jobs {
            let _ = jobs.send(Message::Apply(Box::new(Job {
                id,
                request,
                cancel,
            })));
        }
        id
    }

    /// Cancels every request submitted so far (the rule running now is interrupted).
    pub fn cancel(&self) {
        for request in &self.in_flight {
            request.cancel.cancel();
        }
    }

    /// Results that arrived since the last call.
    pub fn poll(&mut self) -> Vec<ApplyResult> {
        let mut out = Vec::new();
        loop {
            match self.results.try_recv() {
                Ok(result) => {
                    self.in_flight.retain(|r| r.id != result.id);
                    out.push(result);
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    // The client thread is gone: answer what was waiting.
                    for request in self.in_flight.drain(..) {
                        out.push(ApplyResult {
                            id: request.id,
                            tab: request.tab,
                            kernel: request.kernel,
                            selection: request.selection,
                            outcome: Err(RulesError::EngineGone.into()),
                            engine_started: None,
                        });
                    }
                    break;
                }
            }
        }
        out
    }

    /// Whether a request of `tab` for `kernel` is waiting or running; with the rules it applies.
    pub fn pending(&self, tab: u64, kernel: usize) -> Vec<&RuleSelection> {
        self.in_flight
            .iter()
            .filter(|r| r.tab == tab && r.kernel == kernel)
            .map(|r| &r.selection)
            .collect()
    }

    /// Whether any request is waiting or running.
    pub fn busy(&self) -> bool {
        !self.in_flight.is_empty()
    }
}

impl Drop for RuleRunner {
    fn drop(&mut self) {
        self.cancel();
    }
}

fn serve(jobs: &Receiver<Message>, results: &Sender<ApplyResult>, wake: impl Fn()) {
    let mut engine: Option<RuleEngine> = None;
    // How long the engine took to start, reported with the first answer after it started.
    let mut warm_up_time = None;
    while let Ok(message) = jobs.recv() {
        let Job {
            id,
            request,
            cancel,
        } = match message {
            Message::WarmUp => {
                // A failure to start is reported by the first request, which tries again.
                if engine.is_none()
                    && let Ok(started) = RuleEngine::start()
                {
                    warm_up_time = Some(started.ready_time());
                    engine = Some(started);
                }
                continue;
            }
            Message::Apply(job) => *job,
        };
        let ApplyRequest {
            tab,
            report,
            kernel,
            selection,
            mut options,
        } = request;
        let mut engine_started = warm_up_time.take();
        let outcome = if cancel.is_cancelled() {
            Err(ApplyError::Cancelled)
        } else {
            if engine.is_none() {
                match RuleEngine::start() {
                    Ok(started) => {
                        engine_started = Some(started.ready_time());
                        engine = Some(started);
                    }
                    Err(error) => {
                        let _ = results.send(ApplyResult {
                            id,
                            tab,
                            kernel,
                            selection,
                            outcome: Err(error.into()),
                            engine_started: None,
                        });
                        wake();
                        continue;
                    }
                }
            }
            options.kernels = Some(vec![kernel]);
            options.cancel = Some(cancel);
            options.only = match &selection {
                RuleSelection::All => None,
                RuleSelection::One(id) => Some(vec![id.clone()]),
            };
            match engine.as_ref().map(|engine| engine.run(report, options)) {
                Some(Ok(output)) => Ok(output),
                Some(Err(error)) => {
                    // An engine that gave up on a stuck rule is replaced on the next request.
                    if matches!(error, RulesError::Unresponsive(_) | RulesError::EngineGone) {
                        engine = None;
                    }
                    Err(error.into())
                }
                None => Err(ApplyError::NotRunning),
            }
        };
        let _ = results.send(ApplyResult {
            id,
            tab,
            kernel,
            selection,
            outcome,
            engine_started,
        });
        wake();
    }
}
