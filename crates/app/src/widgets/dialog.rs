//! Native file dialogs on their own thread. rfd's dialogs block the thread that shows them: on
//! the UI thread the window would stop drawing until the dialog closed. [`Dialog::spawn`] shows
//! one on a named thread, and its answer requests a repaint when it arrives (an idle window
//! would otherwise show it only at the next mouse move).

use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::time::{Duration, Instant};

/// Nobody picks a file this quickly: an empty answer within it means no dialog could appear
/// (no xdg-desktop-portal file chooser on the desktop).
const AT_ONCE: Duration = Duration::from_millis(300);

/// What a dialog answered.
#[derive(Debug)]
pub struct Answer<T> {
    /// What the dialog call returned.
    pub value: T,
    /// Whether it answered at once ([`AT_ONCE`]): with nothing picked, no dialog appeared.
    pub at_once: bool,
}

/// A dialog shown on its own thread, until its answer is taken.
#[derive(Debug)]
pub struct Dialog<T> {
    answer: Receiver<Answer<T>>,
}

impl<T: Send + 'static> Dialog<T> {
    /// Shows `pick` (the rfd call) on a thread named `sightline-dialog`; `wake` runs when it
    /// answered. The error names `what` ("file", "folder") for the status line.
    pub fn spawn(
        what: &str,
        wake: impl Fn() + Send + 'static,
        pick: impl FnOnce() -> T + Send + 'static,
    ) -> Result<Dialog<T>, String> {
        let (tx, answer) = channel();
        std::thread::Builder::new()
            .name("sightline-dialog".into())
            .spawn(move || {
                let asked = Instant::now();
                let value = pick();
                let at_once = asked.elapsed() < AT_ONCE;
                let _ = tx.send(Answer { value, at_once });
                wake();
            })
            .map(|_| Dialog { answer })
            .map_err(|error| format!("cannot open the {what} dialog: {error}"))
    }
}

/// The answer of the dialog in `slot`, once it came; the slot is emptied then (and when the
/// dialog's thread ended without one), so another dialog may open.
pub fn take_answer<T>(slot: &mut Option<Dialog<T>>) -> Option<Answer<T>> {
    let answered = match slot.as_ref()?.answer.try_recv() {
        Ok(answer) => Some(answer),
        Err(TryRecvError::Empty) => return None,
        Err(TryRecvError::Disconnected) => None,
    };
    *slot = None;
    answered
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::{Dialog, take_answer};

    fn wait<T>(slot: &mut Option<Dialog<T>>) -> Option<super::Answer<T>> {
        // Up to 10 s: a loaded machine may start the thread late.
        for _ in 0..5000 {
            if let Some(answer) = take_answer(slot) {
                return Some(answer);
            }
            if slot.is_none() {
                return None;
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        None
    }

    #[test]
    fn the_answer_wakes_the_ui_and_empties_the_slot() {
        let woken = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&woken);
        let mut slot = Some(
            Dialog::spawn(
                "file",
                move || {
                    counter.fetch_add(1, Ordering::SeqCst);
                },
                || vec![std::path::PathBuf::from("/tmp/a.ncu-rep")],
            )
            .expect("thread"),
        );
        let answer = wait(&mut slot).expect("an answer");
        assert_eq!(answer.value, [std::path::PathBuf::from("/tmp/a.ncu-rep")]);
        assert!(answer.at_once);
        assert!(slot.is_none());
        assert_eq!(woken.load(Ordering::SeqCst), 1);
        assert!(take_answer(&mut slot).is_none());
    }

    #[test]
    fn a_slow_answer_is_not_at_once() {
        let mut slot = Some(
            Dialog::spawn(
                "folder",
                || {},
                || {
                    std::thread::sleep(std::time::Duration::from_millis(350));
                    None::<std::path::PathBuf>
                },
            )
            .expect("thread"),
        );
        assert!(take_answer(&mut slot).is_none(), "not yet answered");
        assert!(slot.is_some());
        let answer = wait(&mut slot).expect("an answer");
        assert!(answer.value.is_none());
        assert!(!answer.at_once);
    }
}
