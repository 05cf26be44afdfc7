//! Independent checks on every core: the corpus tests compare file after file, and one thread
//! left the second core idle for most of their run.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// `f` of every item, in the items' order, with as many named threads (`{name}-N`) as there are
/// cores taking the next item when done with one. After a result for which `stop` holds, no
/// new item starts: the items not started are `None`. A panic in `f` fails the caller (the
/// scope re-raises it).
pub fn map_on_every_core<T: Sync, R: Send>(
    name: &str,
    items: &[T],
    f: impl Fn(&T) -> R + Sync,
    stop: impl Fn(&R) -> bool + Sync,
) -> Vec<Option<R>> {
    let results: Mutex<Vec<Option<R>>> = Mutex::new(items.iter().map(|_| None).collect());
    let next = AtomicUsize::new(0);
    let stopped = AtomicBool::new(false);
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len());
    std::thread::scope(|scope| {
        for w in 0..workers {
            std::thread::Builder::new()
                .name(format!("{name}-{w}"))
                .spawn_scoped(scope, || {
                    while !stopped.load(Ordering::Relaxed) {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        let result = f(item);
                        stopped.fetch_or(stop(&result), Ordering::Relaxed);
                        results.lock().expect("results")[i] = Some(result);
                    }
                })
                .expect("thread");
        }
    });
    results.into_inner().expect("results")
}

/// [`map_on_every_core`] to the end: every item's result, in the items' order.
pub fn map_all_on_every_core<T: Sync, R: Send>(
    name: &str,
    items: &[T],
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    map_on_every_core(name, items, f, |_| false)
        .into_iter()
        .map(|r| r.expect("every item runs when none stops"))
        .collect()
}
