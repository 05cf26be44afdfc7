//! The sections and rules the app shows: the search path, the loaded set, which sections the
//! user disabled, and live reload.
//!
//! The folder set is what the Metric Selection window edits and what the watcher reloads; a
//! report's embedded sections are used instead when the user prefers them (the default, as in
//! the `details` command) and the report has them: the model's rule,
//! [`SectionSource::for_action`]. A reload keeps the last good version of a file that now
//! fails, so a half-written file never blanks the page.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use sightline_model::ncu::Action;
use sightline_model::section::{FolderWatcher, SectionFolder, SectionSet, search_path};
use sightline_rules::scan::{RuleScan, scan_bundled, scan_rules};

/// Debounce of the live-reload watcher.
pub const WATCH_DEBOUNCE: Duration = Duration::from_millis(150);

pub use sightline_model::section::SectionSource;

/// The app's sections and rules.
pub struct SectionState {
    /// The folders searched (the deployed default folder when none was configured).
    pub folders: Vec<SectionFolder>,
    /// Whether `folders` was configured (command line or settings) rather than the default.
    pub configured: bool,
    /// The sections of `folders` (or the bundled copies when there is no folder).
    pub set: Arc<SectionSet>,
    /// The rules found in `folders`.
    pub rules: RuleScan,
    /// Identifiers of sections the user switched off.
    pub disabled: BTreeSet<String>,
    /// Use a report's embedded sections when it has them.
    pub prefer_embedded: bool,
    /// Bumped by every reload and every change of `disabled`/`prefer_embedded`; pages resolved
    /// under another generation are resolved again.
    pub generation: u64,
    /// When the last reload happened and which files caused it (empty for a manual reload).
    pub last_reload: Option<(Instant, Vec<PathBuf>)>,
    /// Why live reload is not running, if it is not.
    pub watch_error: Option<String>,
    watcher: Option<FolderWatcher>,
    waker: Option<Waker>,
}

/// A repaint request shared with the watcher thread.
type Waker = Arc<dyn Fn() + Send + Sync>;

impl SectionState {
    /// Loads `folders` (the deployed default folder when empty) and starts watching them.
    pub fn new(
        folders: &[SectionFolder],
        prefer_embedded: bool,
        disabled: BTreeSet<String>,
    ) -> SectionState {
        let configured = !folders.is_empty();
        let folders = search_path(folders);
        let mut state = SectionState {
            set: Arc::new(SectionSet::default()),
            rules: RuleScan::default(),
            folders,
            configured,
            disabled,
            prefer_embedded,
            generation: 0,
            last_reload: None,
            watch_error: None,
            watcher: None,
            waker: None,
        };
        state.load(Vec::new());
        state.restart_watcher();
        state
    }

    /// Replaces the search path (an empty list restores the default folder).
    pub fn set_folders(&mut self, folders: &[SectionFolder]) {
        let disabled = std::mem::take(&mut self.disabled);
        let mut next = SectionState::new(folders, self.prefer_embedded, disabled);
        next.generation = self.generation + 1;
        if let Some(waker) = self.waker.take() {
            next.set_waker(move || waker());
        }
        *self = next;
    }

    /// Reloads every folder now (the Reload button).
    pub fn reload(&mut self) {
        self.load(Vec::new());
    }

    /// Reloads if the watcher saw changes; returns whether it did.
    pub fn poll(&mut self) -> bool {
        let Some(watcher) = &self.watcher else {
            return false;
        };
        let errors = watcher.errors();
        if !errors.is_empty() {
            self.watch_error = Some(errors.join("; "));
        }
        let changed = watcher.poll();
        if changed.is_empty() {
            return false;
        }
        self.load(changed);
        true
    }

    /// Asks the watcher to call `wake` when files change (the GUI passes a repaint request).
    pub fn set_waker(&mut self, wake: impl Fn() + Send + Sync + 'static) {
        let waker: Waker = Arc::new(wake);
        if let Some(watcher) = &self.watcher {
            let shared = Arc::clone(&waker);
            watcher.set_waker(move || shared());
        }
        self.waker = Some(waker);
    }

    /// Switches section `identifier` on or off.
    pub fn set_enabled(&mut self, identifier: &str, enabled: bool) {
        let changed = if enabled {
            self.disabled.remove(identifier)
        } else {
            self.disabled.insert(identifier.to_owned())
        };
        if changed {
            self.generation += 1;
        }
    }

    /// Chooses whether reports' embedded sections are preferred.
    pub fn set_prefer_embedded(&mut self, prefer: bool) {
        if self.prefer_embedded != prefer {
            self.prefer_embedded = prefer;
            self.generation += 1;
        }
    }

    /// Where the page of `action` takes its sections from.
    pub fn source_for(&self, action: &Action) -> SectionSource {
        SectionSource::for_action(action, self.prefer_embedded)
    }

    /// The sections to resolve `action` against, before disabled sections are removed (the
    /// Metric Selection window lists those too). When the embedded sections cannot be decoded,
    /// the folder sections are used and the error is returned beside them.
    pub fn sections_for(&self, action: &Action) -> (Arc<SectionSet>, Option<String>) {
        match self.source_for(action) {
            SectionSource::Embedded => match action.sections() {
                Ok(embedded) => (Arc::new(SectionSet::from_embedded(embedded)), None),
                Err(error) => (
                    Arc::clone(&self.set),
                    Some(format!("embedded sections: {error}")),
                ),
            },
            SectionSource::Folders => (Arc::clone(&self.set), None),
        }
    }

    fn load(&mut self, changed: Vec<PathBuf>) {
        let mut set = SectionSet::load_search_path(&self.folders);
        set.keep_last_good(&self.set);
        self.set = Arc::new(set);
        self.rules = if self.folders.is_empty() {
            scan_bundled()
        } else {
            scan_rules(&self.folders)
        };
        self.generation += 1;
        self.last_reload = Some((Instant::now(), changed));
    }

    fn restart_watcher(&mut self) {
        self.watcher = None;
        self.watch_error = None;
        if self.folders.is_empty() {
            return;
        }
        let paths: Vec<PathBuf> = self.folders.iter().map(|f| f.path.clone()).collect();
        match FolderWatcher::new(&paths, WATCH_DEBOUNCE) {
            Ok(watcher) => self.watcher = Some(watcher),
            Err(error) => self.watch_error = Some(error.to_string()),
        }
    }

    /// Whether live reload is running.
    pub fn watching(&self) -> bool {
        self.watcher.is_some()
    }
}
