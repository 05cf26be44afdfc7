//! Turning calls into events: push/pop nesting per thread, start/end checks, ranges left open.

use rustc_hash::FxHashMap;

use super::diagnostic::{Diagnostic, ErrorClass, Severity};
use super::model::{Event, EventKind};

/// A push waiting for its pop: the event's index and the call's column.
#[derive(Debug, Clone, Copy)]
struct OpenPush {
    event: usize,
    column: u32,
}

/// Collects the events of one file.
#[derive(Debug, Default)]
pub(crate) struct Loader {
    /// The events so far, in the order of their calls.
    pub events: Vec<Event>,
    /// Open pushes per (pid, tid), innermost last.
    stacks: FxHashMap<(u32, u32), Vec<OpenPush>>,
    /// The latest time any event mentions.
    last_time: Option<i64>,
}

/// A loading problem found while adding an event.
pub(crate) struct LoadProblem {
    pub severity: Severity,
    pub message: String,
}

impl Loader {
    fn note_time(&mut self, time: i64) {
        self.last_time = Some(self.last_time.map_or(time, |last| last.max(time)));
    }

    /// Adds a marker (`start == end`).
    pub fn marker(&mut self, event: Event) {
        self.note_time(event.start);
        self.events.push(event);
    }

    /// Opens a push/pop range on the event's thread; its depth is the number of ranges open there.
    pub fn push(&mut self, mut event: Event, column: u32) {
        self.note_time(event.start);
        let stack = self.stacks.entry((event.pid, event.tid)).or_default();
        event.depth = u32::try_from(stack.len()).unwrap_or(u32::MAX);
        stack.push(OpenPush {
            event: self.events.len(),
            column,
        });
        self.events.push(event);
    }

    /// Closes the innermost open push of (pid, tid) at `time`.
    pub fn pop(&mut self, pid: u32, tid: u32, time: i64) -> Result<(), LoadProblem> {
        self.note_time(time);
        let Some(open) = self
            .stacks
            .get_mut(&(pid, tid))
            .and_then(|stack| stack.pop())
        else {
            return Err(LoadProblem {
                severity: Severity::Warning,
                message: format!(
                    "RangePop with no open RangePush on process {pid}, thread {tid}: ignored"
                ),
            });
        };
        let event = &mut self.events[open.event];
        if time < event.start {
            event.end = event.start;
            return Err(LoadProblem {
                severity: Severity::Error,
                message: format!(
                    "RangePop at {time} is before its RangePush at {} (line {}): the range is \
                     shown empty",
                    event.start, event.line
                ),
            });
        }
        event.end = time;
        Ok(())
    }

    /// Adds a start/end range; `Start >= End` skips it.
    pub fn range(&mut self, event: Event) -> Result<(), LoadProblem> {
        if event.start >= event.end {
            return Err(LoadProblem {
                severity: Severity::Warning,
                message: format!(
                    "Start ({}) >= End ({}): the range is skipped",
                    event.start, event.end
                ),
            });
        }
        self.note_time(event.start);
        self.note_time(event.end);
        self.events.push(event);
        Ok(())
    }

    /// Ends the ranges left open at the file's last timestamp, marks them open and reports each.
    pub fn finish(mut self, diagnostics: &mut Vec<Diagnostic>) -> (Vec<Event>, Option<i64>) {
        let last = self.last_time;
        let mut open: Vec<OpenPush> = self.stacks.drain().flat_map(|(_, stack)| stack).collect();
        open.sort_by_key(|push| push.event);
        for push in open {
            let event = &mut self.events[push.event];
            debug_assert_eq!(event.kind, EventKind::PushPop);
            event.end = last.unwrap_or(event.start).max(event.start);
            event.open = true;
            diagnostics.push(Diagnostic::new(
                event.line,
                push.column,
                Severity::Warning,
                ErrorClass::Loading,
                format!(
                    "RangePush never popped (process {}, thread {}): shown open until the file's \
                     last timestamp {}",
                    event.pid, event.tid, event.end
                ),
            ));
        }
        (self.events, last)
    }
}
