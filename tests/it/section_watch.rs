//! Live reload (`sightline::section::FolderWatcher`) on a real temporary folder: create,
//! modify, an editor's swap-and-rename save, delete, files of other types, bursts, nested
//! folders and the waker.
//!
//! Every wait is a deadline (poll with short sleeps for up to `DEADLINE`), never an assertion on
//! how fast events arrive: the machine may be busy.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::sleep;
use std::time::{Duration, Instant};

use sightline::section::{FolderWatcher, WatchError};

const DEBOUNCE: Duration = Duration::from_millis(250);
const DEADLINE: Duration = Duration::from_secs(5);
const TICK: Duration = Duration::from_millis(25);

/// A canonical temporary folder (so that reported paths compare equal on every platform) and a
/// watcher over it.
fn watched() -> (tempfile::TempDir, PathBuf, FolderWatcher) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let watcher = FolderWatcher::new(std::slice::from_ref(&root), DEBOUNCE).unwrap();
    (dir, root, watcher)
}

/// Polls until `path` is reported, collecting everything reported meanwhile; panics at the
/// deadline.
fn wait_for(watcher: &FolderWatcher, path: &Path) -> Vec<PathBuf> {
    let start = Instant::now();
    let mut seen = Vec::new();
    loop {
        let batch = watcher.poll();
        let mut sorted = batch.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(batch, sorted, "poll must be sorted and deduplicated");
        seen.extend(batch);
        if seen.iter().any(|p| p == path) {
            return seen;
        }
        assert!(
            start.elapsed() < DEADLINE,
            "no change reported for {} within {DEADLINE:?}; saw {seen:?}; errors {:?}",
            path.display(),
            watcher.errors()
        );
        sleep(TICK);
    }
}

/// Waits until nothing new is reported for two debounce periods, returning what was.
fn drain(watcher: &FolderWatcher) -> Vec<PathBuf> {
    let mut seen = Vec::new();
    let mut quiet_since = Instant::now();
    let start = Instant::now();
    while quiet_since.elapsed() < DEBOUNCE * 2 && start.elapsed() < DEADLINE {
        let batch = watcher.poll();
        if !batch.is_empty() {
            seen.extend(batch);
            quiet_since = Instant::now();
        }
        sleep(TICK);
    }
    seen
}

#[test]
fn create_modify_swap_save_and_delete_are_reported() {
    let (_dir, root, watcher) = watched();
    assert_eq!(watcher.folders(), std::slice::from_ref(&root));
    assert!(watcher.poll().is_empty());
    let section = root.join("Custom.section");

    // Create.
    fs::write(&section, "Identifier: \"Custom\"\n").unwrap();
    let seen = wait_for(&watcher, &section);
    assert!(seen.iter().all(|p| p == &section), "{seen:?}");
    drain(&watcher);

    // Modify in place.
    fs::write(
        &section,
        "Identifier: \"Custom\"\nDisplayName: \"Custom\"\n",
    )
    .unwrap();
    wait_for(&watcher, &section);
    drain(&watcher);

    // An editor's save: write a swap file, then rename it over the real one. The swap file's
    // name is not a watched extension; the real name is what must be reported.
    let swap = root.join(".Custom.section.swp");
    fs::write(&swap, "Identifier: \"Custom\"\nDisplayName: \"Renamed\"\n").unwrap();
    fs::rename(&swap, &section).unwrap();
    let seen = wait_for(&watcher, &section);
    assert!(!seen.contains(&swap), "{seen:?}");
    drain(&watcher);

    // Delete.
    fs::remove_file(&section).unwrap();
    wait_for(&watcher, &section);
    assert!(!section.exists());
    assert!(watcher.errors().is_empty());
}

#[test]
fn other_file_types_are_not_reported() {
    let (_dir, root, watcher) = watched();
    let text = root.join("notes.txt");
    let chart = root.join("Roofline.chart");
    let rule = root.join("rules").join("Occupancy.py");
    fs::write(&text, "not a section").unwrap();
    fs::write(root.join("Custom.section.bak"), "backup").unwrap();
    fs::create_dir(root.join("rules")).unwrap();
    fs::write(&rule, "def apply(handle): pass\n").unwrap();
    // Written last: once it is reported, the earlier files' events have been seen too.
    sleep(DEBOUNCE);
    fs::write(&chart, "Identifier: \"Roofline\"\n").unwrap();

    let mut seen = wait_for(&watcher, &chart);
    if !seen.contains(&rule) {
        seen.extend(wait_for(&watcher, &rule));
    }
    seen.extend(drain(&watcher));
    seen.sort();
    seen.dedup();
    assert_eq!(seen, [chart, rule]);
}

#[test]
fn a_burst_of_rewrites_arrives_in_at_most_two_batches() {
    let (_dir, root, watcher) = watched();
    let section = root.join("Burst.section");
    fs::write(&section, "Identifier: \"Burst\"\n").unwrap();
    wait_for(&watcher, &section);
    drain(&watcher);

    // Batches are counted by the waker: it is called once per debounced delivery that holds a
    // watched change.
    let batches = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&batches);
    watcher.set_waker(move || {
        counter.fetch_add(1, Ordering::SeqCst);
    });
    assert_eq!(batches.load(Ordering::SeqCst), 0, "nothing was pending");

    for i in 0..20 {
        fs::write(&section, format!("Identifier: \"Burst\"\n# rewrite {i}\n")).unwrap();
    }
    let seen = wait_for(&watcher, &section);
    assert_eq!(seen, std::slice::from_ref(&section));
    let rest = drain(&watcher);
    assert!(rest.iter().all(|p| p == &section), "{rest:?}");
    let count = batches.load(Ordering::SeqCst);
    assert!(
        (1..=2).contains(&count),
        "20 rapid rewrites arrived in {count} batches"
    );
}

#[test]
fn nested_folders_and_several_roots_are_watched() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let a_root = a.path().canonicalize().unwrap();
    let b_root = b.path().canonicalize().unwrap();
    let nested = a_root.join("deep").join("er");
    fs::create_dir_all(&nested).unwrap();
    let watcher = FolderWatcher::new(&[a_root.clone(), b_root.clone()], DEBOUNCE).unwrap();

    let deep = nested.join("Deep.section");
    fs::write(&deep, "Identifier: \"Deep\"\n").unwrap();
    wait_for(&watcher, &deep);
    let other = b_root.join("rule.py");
    fs::write(&other, "").unwrap();
    wait_for(&watcher, &other);

    // A folder moved in whole: its files raised no events of their own.
    let outside = tempfile::tempdir_in(a_root.parent().unwrap()).unwrap();
    fs::write(outside.path().join("Moved.section"), "").unwrap();
    let moved_dir = a_root.join("moved");
    fs::rename(outside.path(), &moved_dir).unwrap();
    wait_for(&watcher, &moved_dir.join("Moved.section"));
}

#[test]
fn waker_is_called_from_the_watch_thread() {
    let (_dir, root, watcher) = watched();
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&calls);
    watcher.set_waker(move || {
        assert_eq!(std::thread::current().name(), Some("sightline-watch"));
        counter.fetch_add(1, Ordering::SeqCst);
    });
    let wait_calls = |n: usize| {
        let start = Instant::now();
        while calls.load(Ordering::SeqCst) < n {
            assert!(start.elapsed() < DEADLINE, "waker not called {n} times");
            sleep(TICK);
        }
    };

    let chart = root.join("x.chart");
    fs::write(&chart, "").unwrap();
    wait_calls(1);
    // The change is stored before the waker is called.
    assert_eq!(watcher.poll(), std::slice::from_ref(&chart));
    assert!(
        watcher.errors().is_empty(),
        "the waker's assertion held (a panic would be recorded as an error)"
    );

    // The write's last events may come a debounce later in a batch of their own (seen on a
    // loaded machine, with a second waker call): they are taken before the next file is written.
    sleep(2 * DEBOUNCE);
    let late = watcher.poll();
    assert!(late.iter().all(|p| p == &chart), "{late:?}");
    let before = calls.load(Ordering::SeqCst);

    // A waker set while changes wait is called at once, on the caller's thread.
    let late_chart = root.join("y.chart");
    fs::write(&late_chart, "").unwrap();
    wait_calls(before + 1);
    let late = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&late);
    watcher.set_waker(move || {
        counter.fetch_add(1, Ordering::SeqCst);
    });
    assert_eq!(late.load(Ordering::SeqCst), 1);
    assert_eq!(watcher.poll(), [late_chart]);
}

#[test]
fn a_missing_folder_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("absent");
    let err = FolderWatcher::new(std::slice::from_ref(&missing), DEBOUNCE).unwrap_err();
    assert!(matches!(&err, WatchError::Watch { path, .. } if path == &missing));
    assert!(err.to_string().contains("absent"), "{err}");
}

#[test]
fn dropping_the_watcher_stops_its_thread() {
    let (_dir, root, watcher) = watched();
    let alive = Arc::new(());
    let held = Arc::clone(&alive);
    watcher.set_waker(move || {
        let _ = &held;
    });
    drop(watcher);
    fs::write(root.join("late.section"), "").unwrap();
    // The waker (and with it `held`) is dropped when the forwarding thread ends.
    let start = Instant::now();
    while Arc::strong_count(&alive) > 1 && start.elapsed() < DEADLINE {
        sleep(TICK);
    }
    assert_eq!(
        Arc::strong_count(&alive),
        1,
        "the watch thread outlived its watcher"
    );
}
