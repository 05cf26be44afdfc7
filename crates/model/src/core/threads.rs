//! One named two-thread join: run one closure on this thread and another on a named thread at
//! the same time, and get both results.
//!
//! Every place that splits a piece of work in two (two tables of a report, two halves of a
//! column, two cache levels) goes through [`join_two`], so the naming of the thread, the
//! fallback when no thread can be started and the handling of panics are the same everywhere.

use std::sync::Mutex;

/// Runs `here` on the calling thread and, at the same time, `there` on a thread named `name`;
/// returns `(here's result, there's result)`.
///
/// When the thread cannot be started (the system refuses one), `there` runs on the calling
/// thread after `here`: the results are the same, only later.
///
/// Panics: a panic in either closure reaches the caller, with its own payload. A panic of
/// `there` is resumed on the calling thread once `here` has returned; a panic of `here` is
/// resumed once `there` has finished (the thread is always joined before this returns).
pub fn join_two<H, T: Send>(
    name: &str,
    here: impl FnOnce() -> H,
    there: impl FnOnce() -> T + Send,
) -> (H, T) {
    // The closure waits in a slot the thread takes it from, so that it is still here to run
    // on this thread when the thread cannot be started.
    let slot = Mutex::new(Some(there));
    let take = || slot.lock().ok().and_then(|mut there| there.take());
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name(name.to_owned())
            .spawn_scoped(scope, || take().map(|there| there()));
        let h = here();
        let t = match spawned {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => None,
        };
        // `None`: the thread did not start (or did not get the closure), so it runs here.
        let t = match t {
            Some(t) => t,
            None => match take() {
                Some(there) => there(),
                None => unreachable_closure(),
            },
        };
        (h, t)
    })
}

/// The slot held the closure until one of the two takers took it, and a taker that took it
/// ran it; both taking nothing cannot happen.
#[cold]
fn unreachable_closure() -> ! {
    unreachable!("join_two: the closure was neither run on its thread nor left for this one")
}

#[cfg(test)]
mod tests {
    use super::join_two;

    #[test]
    fn both_results_in_order_and_the_thread_is_named() {
        let (here, there) = join_two(
            "sightline-test-join",
            || 1 + 1,
            || std::thread::current().name().map(str::to_owned),
        );
        assert_eq!(here, 2);
        assert_eq!(there.as_deref(), Some("sightline-test-join"));
    }

    #[test]
    fn there_may_borrow_and_move() {
        let shared = vec![1, 2, 3];
        let owned = String::from("moved");
        let borrowed = &shared;
        let (sum, len) = join_two(
            "sightline-test-join",
            || shared.iter().sum::<i32>(),
            move || owned.len() + borrowed.len(),
        );
        assert_eq!((sum, len), (6, 8));
    }

    #[test]
    fn a_panic_on_the_thread_reaches_the_caller_with_its_payload() {
        let caught = std::panic::catch_unwind(|| {
            join_two(
                "sightline-test-join",
                || 1,
                || -> i32 { panic!("there failed") },
            )
        });
        let payload = caught.expect_err("the thread's panic must propagate");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"there failed"));
    }

    #[test]
    fn a_panic_here_reaches_the_caller_after_the_thread_finished() {
        let finished = std::sync::atomic::AtomicBool::new(false);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            join_two(
                "sightline-test-join",
                || -> i32 { panic!("here failed") },
                || {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                    finished.store(true, std::sync::atomic::Ordering::SeqCst);
                },
            )
        }));
        let payload = caught.expect_err("the calling thread's panic must propagate");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"here failed"));
        assert!(finished.load(std::sync::atomic::Ordering::SeqCst));
    }
}
