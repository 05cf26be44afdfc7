//! What the app keeps between runs (`Settings`) and what a run starts with (`StartOptions`,
//! the startup trace).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use sightline_model::section::SectionFolder;

use crate::ncu::baselines::persist::BaselineSpec;

/// Key of the settings in eframe's storage.
pub(super) const SETTINGS_KEY: &str = "sightline-settings";
/// Most recent files kept.
pub(super) const MAX_RECENT: usize = 12;

/// Settings that survive restarts.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Settings {
    /// Recently opened reports, newest first.
    pub recent: Vec<PathBuf>,
    /// Dark (true) or light theme.
    pub dark: bool,
    /// Section folders chosen in the Metric Selection window (empty: the default folder).
    #[serde(default)]
    pub section_folders: Vec<PathBuf>,
    /// Use a report's embedded sections when it has them.
    #[serde(default = "yes")]
    pub prefer_embedded: bool,
    /// Sections switched off in the Metric Selection window.
    #[serde(default)]
    pub disabled_sections: BTreeSet<String>,
    /// The `nsys` executable that exports `.nsys-rep`/`.qdrep` reports (`None`: the first on
    /// `PATH`); set with `--nsys PATH` or in a report's tab when exporting failed.
    #[serde(default)]
    pub nsys: Option<PathBuf>,
    /// Nsight Compute baselines, in the bar's order (restored at start, their reports read in
    /// the background).
    #[serde(default)]
    pub baselines: Vec<BaselineSpec>,
}

pub(super) fn yes() -> bool {
    true
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            recent: Vec::new(),
            dark: true,
            section_folders: Vec::new(),
            prefer_embedded: true,
            disabled_sections: BTreeSet::new(),
            nsys: None,
            baselines: Vec::new(),
        }
    }
}

/// What the app is started with (command line).
#[derive(Debug, Clone, Default)]
pub struct StartOptions {
    /// Reports to open.
    pub files: Vec<PathBuf>,
    /// `--merge`: the files (or folders of them) on one timeline instead of a tab each.
    pub merge: bool,
    /// `--section-folder` / `--section-folder-recursive`: replaces the search path for this run
    /// (and the report's embedded sections), like the `details` command.
    pub section_folders: Vec<SectionFolder>,
    /// When set, startup milestones (first frame, first Details page, all kernels listed) are
    /// printed to stderr as milliseconds since this instant (`SIGHTLINE_STARTUP_TRACE=1`).
    pub trace_startup_from: Option<std::time::Instant>,
    /// `--nsys PATH`: the `nsys` executable for `.nsys-rep`/`.qdrep` reports (kept in the
    /// settings).
    pub nsys: Option<PathBuf>,
}

/// Environment variable that turns on the startup trace.
pub const STARTUP_TRACE_ENV: &str = "SIGHTLINE_STARTUP_TRACE";

/// Startup milestones already printed.
#[derive(Debug)]
pub(super) struct StartupTrace {
    pub(super) start: std::time::Instant,
    pub(super) first_frame: bool,
    pub(super) first_page: bool,
    pub(super) all_listed: bool,
}

impl StartupTrace {
    pub(super) fn mark(&self, what: &str) {
        eprintln!(
            "startup: {what} at {:.1} ms",
            self.start.elapsed().as_secs_f64() * 1e3
        );
    }
}

impl Settings {
    /// Records `path` as the most recent file.
    pub fn remember(&mut self, path: &Path) {
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        self.recent.retain(|p| p != &path);
        self.recent.insert(0, path);
        self.recent.truncate(MAX_RECENT);
    }
}
