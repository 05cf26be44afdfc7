//! The watchdog: interrupts a rule call that exceeds its time budget (and a cancelled run), and
//! says which rule is stuck when the interpreter does not come back.

use super::*;

/// Interrupts rule calls that exceed their budget.
#[derive(Default)]
pub(super) struct Watchdog {
    pub(super) state: Mutex<WatchState>,
    pub(super) wake: Condvar,
    /// The call being interrupted (compared by the signal handler on the worker).
    pub(super) cancel: Arc<AtomicU64>,
    pub(super) current: Arc<AtomicU64>,
}

#[derive(Default)]
pub(super) struct WatchState {
    pub(super) call: u64,
    /// The cancel flag of the run the current call belongs to (polled while the call runs).
    pub(super) cancel: Option<CancelFlag>,
    pub(super) deadline: Option<Instant>,
    pub(super) shutdown: bool,
    /// When the watchdog will wake up by itself (`None`: it waits to be notified).
    pub(super) sleeping_until: Option<Instant>,
}

/// How often the watchdog looks at the cancel flag of a running call.
pub(super) const CANCEL_POLL: Duration = Duration::from_millis(50);

thread_local! {
    pub(super) static TIMEOUT_TYPE: RefCell<Option<(PyTypeRef, Duration)>> = const { RefCell::new(None) };
}

impl Watchdog {
    pub(super) fn begin(&self, budget: Duration, cancel: Option<CancelFlag>) -> u64 {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.call += 1;
        let deadline = Instant::now() + budget;
        state.deadline = Some(deadline);
        // A cancellable call is polled, so the watchdog must not sleep until the deadline.
        let wake_at = if cancel.is_some() {
            deadline.min(Instant::now() + CANCEL_POLL)
        } else {
            deadline
        };
        state.cancel = cancel;
        self.current.store(state.call, Ordering::SeqCst);
        // Wake the watchdog only when it would otherwise sleep past this point (a wake-up per
        // rule call costs two context switches).
        if state.sleeping_until.is_none_or(|until| wake_at < until) {
            self.wake.notify_all();
        }
        state.call
    }

    pub(super) fn end(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.deadline = None;
        self.current.store(0, Ordering::SeqCst);
    }

    /// How long the current call has been past its deadline, if it is.
    pub(super) fn overdue(&self) -> Option<Duration> {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let deadline = state.deadline?;
        Instant::now().checked_duration_since(deadline)
    }

    pub(super) fn shutdown(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.shutdown = true;
        self.wake.notify_all();
    }

    pub(super) fn watch(&self, signals: &UserSignalSender) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if state.shutdown {
                return;
            }
            let Some(deadline) = state.deadline else {
                state.sleeping_until = None;
                state = self.wake.wait(state).unwrap_or_else(|e| e.into_inner());
                continue;
            };
            let now = Instant::now();
            let cancelled = state
                .cancel
                .as_ref()
                .is_some_and(ProgressSink::is_cancelled);
            if now < deadline && !cancelled {
                let wake_at = if state.cancel.is_some() {
                    deadline.min(now + CANCEL_POLL)
                } else {
                    deadline
                };
                state.sleeping_until = Some(wake_at);
                state = self
                    .wake
                    .wait_timeout(state, wake_at - now)
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
                continue;
            }
            // Past the deadline: interrupt, and repeat every 50 ms until the call ends (another
            // interpreter in this process may consume the shared "signal pending" flag).
            let call = state.call;
            self.cancel.store(call, Ordering::SeqCst);
            let current = self.current.clone();
            let cancel = self.cancel.clone();
            let _ = signals.send(Box::new(move |vm: &VirtualMachine| -> PyResult<()> {
                let target = cancel.load(Ordering::SeqCst);
                if target == 0 || current.load(Ordering::SeqCst) != target {
                    return Ok(());
                }
                Err(TIMEOUT_TYPE.with(|t| match &*t.borrow() {
                    Some((typ, budget)) => vm.new_exception_msg(
                        typ.clone(),
                        format!("rule exceeded its time budget of {}", seconds(*budget)).into(),
                    ),
                    None => vm.new_runtime_error("rule timed out"),
                }))
            }));
            let retry = Duration::from_millis(50);
            state.sleeping_until = Some(Instant::now() + retry);
            state = self
                .wake
                .wait_timeout(state, retry)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

pub(super) fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s} s")
    }
}
