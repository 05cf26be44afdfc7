//! Live reload: a watcher over section and rule folders that reports which `.section`, `.chart`
//! and `.py` files changed, so that the GUI can reload them.
//!
//! [`FolderWatcher`] wraps a `notify-debouncer-full` debouncer: bursts of events on one file
//! (an editor's save, a script rewriting a file twenty times) arrive as one batch, `debounce`
//! after the last event. A forwarding thread (`sightline-watch`) filters each batch into a
//! shared set of changed paths, which [`FolderWatcher::poll`] takes without blocking, and calls
//! the optional waker ([`FolderWatcher::set_waker`]) so that a GUI can repaint and poll.
//!
//! What counts as a change of a watched file: it was created, modified (content, metadata or
//! name), removed, or closed after writing. Renames report both names, so an editor's
//! write-to-swap-then-rename save reports the real file name. A directory created in or moved
//! into a watched folder reports the watched files it holds; a directory removed or moved out
//! reports nothing for its files (the watcher keeps no listing). When the backend loses events
//! (an overflow: a rescan is needed), every watched file under the folders is reported.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::fmt;
use std::fs;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::Duration;

use notify_debouncer_full::notify::event::{AccessKind, AccessMode};
use notify_debouncer_full::notify::{self, EventKind, RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};

/// Extensions (without the dot, compared ignoring ASCII case) of the files the watcher reports.
pub const WATCHED_EXTENSIONS: [&str; 3] = ["section", "chart", "py"];

/// Shortest debounce accepted: a zero debounce would make the debouncer's thread spin.
const MIN_DEBOUNCE: Duration = Duration::from_millis(10);

/// How deep a rescan or a new directory is walked for watched files.
const MAX_WALK_DEPTH: usize = 16;

/// Why a [`FolderWatcher`] could not start. The message includes the underlying error (which
/// is therefore not also given as the error's `source`, so that chains do not repeat it).
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// The platform's file watcher (inotify, FSEvents, ReadDirectoryChangesW) could not start.
    #[error("cannot start the file watcher: {0}")]
    Start(notify::Error),
    /// One of the folders could not be watched (it does not exist, or the system's watch limit
    /// was reached).
    #[error("cannot watch {}: {error}", path.display())]
    Watch {
        /// The folder.
        path: PathBuf,
        /// The watcher's error.
        error: notify::Error,
    },
    /// The forwarding thread could not be spawned.
    #[error("cannot start the watcher thread: {0}")]
    Thread(std::io::Error),
}

/// A function called from the forwarding thread when changes or errors arrive.
type Waker = Box<dyn Fn() + Send + 'static>;

/// State shared by the [`FolderWatcher`] and its forwarding thread.
#[derive(Default)]
struct Shared {
    /// Changed watched files, not yet taken by [`FolderWatcher::poll`].
    changed: Mutex<BTreeSet<PathBuf>>,
    /// Watcher errors, not yet taken by [`FolderWatcher::errors`].
    errors: Mutex<Vec<String>>,
    /// Called when changes or errors arrive.
    waker: Mutex<Option<Waker>>,
}

impl Shared {
    /// Calls the waker, if any; a panicking waker is recorded as an error, not propagated.
    fn wake(&self) {
        let waker = lock(&self.waker);
        if let Some(waker) = waker.as_ref()
            && catch_unwind(AssertUnwindSafe(waker)).is_err()
        {
            lock(&self.errors).push("the live-reload waker panicked".to_owned());
        }
    }
}

/// Locks `mutex`, recovering the data if a holder panicked (the sets stay consistent: every
/// critical section is a single insertion, extension or take).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Watches section and rule folders (recursively) for changed `.section`, `.chart` and `.py`
/// files. Dropping it stops watching.
pub struct FolderWatcher {
    /// Kept alive: dropping it stops the watch, which ends the forwarding thread.
    _debouncer: Debouncer<RecommendedWatcher, RecommendedCache>,
    shared: Arc<Shared>,
    folders: Vec<PathBuf>,
}

impl fmt::Debug for FolderWatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FolderWatcher")
            .field("folders", &self.folders)
            .finish_non_exhaustive()
    }
}

impl FolderWatcher {
    /// Starts watching `folders` recursively; a burst of events on one file is reported once,
    /// `debounce` after its last event (at least 10 ms; 250 ms suits an editor's save).
    ///
    /// Every folder must exist: a folder that cannot be watched is an error (pass only the
    /// search-path folders that exist).
    pub fn new(folders: &[PathBuf], debounce: Duration) -> Result<FolderWatcher, WatchError> {
        FolderWatcher::with_extensions(folders, &WATCHED_EXTENSIONS, true, debounce)
    }

    /// Like [`FolderWatcher::new`], for files with one of `extensions` (case-insensitive), in
    /// the folders only unless `recursive` (e.g. the `.nvtxt` files beside an export).
    pub fn with_extensions(
        folders: &[PathBuf],
        extensions: &'static [&'static str],
        recursive: bool,
        debounce: Duration,
    ) -> Result<FolderWatcher, WatchError> {
        let (tx, rx) = mpsc::channel::<DebounceEventResult>();
        let mut debouncer =
            new_debouncer(debounce.max(MIN_DEBOUNCE), None, tx).map_err(WatchError::Start)?;
        let shared = Arc::new(Shared::default());
        let thread_shared = Arc::clone(&shared);
        let roots = folders.to_vec();
        thread::Builder::new()
            .name("sightline-watch".to_owned())
            .spawn(move || {
                let depth = if recursive { MAX_WALK_DEPTH } else { 0 };
                forward(&rx, &thread_shared, &roots, extensions, depth);
            })
            .map_err(WatchError::Thread)?;
        for folder in folders {
            debouncer
                .watch(
                    folder,
                    if recursive {
                        RecursiveMode::Recursive
                    } else {
                        RecursiveMode::NonRecursive
                    },
                )
                .map_err(|error| WatchError::Watch {
                    path: folder.clone(),
                    error,
                })?;
        }
        Ok(FolderWatcher {
            _debouncer: debouncer,
            shared,
            folders: folders.to_vec(),
        })
    }

    /// The watched folders, as given to [`FolderWatcher::new`].
    pub fn folders(&self) -> &[PathBuf] {
        &self.folders
    }

    /// The watched files that changed since the last call: deduplicated, sorted, and under the
    /// folders as they were given (relative folders give relative paths). Never blocks on the
    /// file system; an empty vector when nothing changed.
    pub fn poll(&self) -> Vec<PathBuf> {
        std::mem::take(&mut *lock(&self.shared.changed))
            .into_iter()
            .collect()
    }

    /// The watcher's errors (as text) since the last call, oldest first.
    pub fn errors(&self) -> Vec<String> {
        std::mem::take(&mut *lock(&self.shared.errors))
    }

    /// Calls `waker` (from the `sightline-watch` thread) whenever changes or errors arrive,
    /// replacing any previous waker; called once at once if some are already waiting. The GUI
    /// passes a repaint request, then polls in its next frame. The waker must be quick and must
    /// not call `set_waker` itself; if it panics, the panic is caught and reported by
    /// [`FolderWatcher::errors`].
    pub fn set_waker(&self, waker: impl Fn() + Send + 'static) {
        *lock(&self.shared.waker) = Some(Box::new(waker));
        let pending =
            !lock(&self.shared.changed).is_empty() || !lock(&self.shared.errors).is_empty();
        if pending {
            self.shared.wake();
        }
    }
}

/// The forwarding thread: filters each debounced batch into `shared` until the debouncer (and
/// with it the sender) is dropped.
fn forward(
    rx: &Receiver<DebounceEventResult>,
    shared: &Shared,
    roots: &[PathBuf],
    extensions: &[&str],
    depth: usize,
) {
    for result in rx {
        match result {
            Ok(events) => {
                let mut changed = BTreeSet::new();
                for event in &events {
                    if event.need_rescan() {
                        for root in roots {
                            collect_files(root, extensions, depth, &mut changed);
                        }
                    }
                    if !is_change(&event.kind) {
                        continue;
                    }
                    for path in &event.paths {
                        if has_extension(path, extensions) {
                            changed.insert(path.clone());
                        } else if matches!(event.kind, EventKind::Create(_) | EventKind::Modify(_))
                            && path.is_dir()
                            && depth > 0
                        {
                            // A folder created or moved in: its files raised no events.
                            collect_files(path, extensions, depth - 1, &mut changed);
                        }
                    }
                }
                if !changed.is_empty() {
                    lock(&shared.changed).extend(changed);
                    shared.wake();
                }
            }
            Err(errors) => {
                lock(&shared.errors).extend(errors.iter().map(ToString::to_string));
                shared.wake();
            }
        }
    }
}

/// Whether an event of this kind changes a file's content or existence.
fn is_change(kind: &EventKind) -> bool {
    match kind {
        EventKind::Create(_)
        | EventKind::Modify(_)
        | EventKind::Remove(_)
        | EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) | EventKind::Any | EventKind::Other => false,
    }
}

/// Whether `path` has one of the `WATCHED_EXTENSIONS`.
pub fn is_watched_file(path: &Path) -> bool {
    has_extension(path, &WATCHED_EXTENSIONS)
}

/// Whether `path` has one of `extensions` (case-insensitive).
fn has_extension(path: &Path, extensions: &[&str]) -> bool {
    path.extension()
        .and_then(OsStr::to_str)
        .is_some_and(|ext| extensions.iter().any(|w| ext.eq_ignore_ascii_case(w)))
}

/// Adds the files with `extensions` under `dir` (to `depth` levels; symbolic links not
/// followed).
fn collect_files(dir: &Path, extensions: &[&str], depth: usize, out: &mut BTreeSet<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() && depth > 0 => collect_files(&path, extensions, depth - 1, out),
            Ok(t) if t.is_file() && has_extension(&path, extensions) => {
                out.insert(path);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watched_extensions() {
        assert!(is_watched_file(Path::new("/a/b/SpeedOfLight.section")));
        assert!(is_watched_file(Path::new("x.CHART")));
        assert!(is_watched_file(Path::new("rules/Occupancy.py")));
        assert!(!is_watched_file(Path::new("notes.txt")));
        assert!(!is_watched_file(Path::new("a.section.swp")));
        assert!(!is_watched_file(Path::new("__pycache__/r.cpython-311.pyc")));
        assert!(!is_watched_file(Path::new("section")));
    }

    #[test]
    fn change_kinds() {
        use notify::event::{CreateKind, ModifyKind, RemoveKind, RenameMode};
        assert!(is_change(&EventKind::Create(CreateKind::File)));
        assert!(is_change(&EventKind::Modify(ModifyKind::Name(
            RenameMode::Both
        ))));
        assert!(is_change(&EventKind::Remove(RemoveKind::File)));
        assert!(is_change(&EventKind::Access(AccessKind::Close(
            AccessMode::Write
        ))));
        assert!(!is_change(&EventKind::Access(AccessKind::Close(
            AccessMode::Read
        ))));
        assert!(!is_change(&EventKind::Access(AccessKind::Open(
            AccessMode::Any
        ))));
    }
}
