//! What timelines keep for the whole window: the `nsys` executable that exports Nsight Systems
//! reports (`.nsys-rep`, `.qdrep`) before they open, from `--nsys` or the settings, and changed
//! in a timeline tab when exporting failed.

use std::path::PathBuf;

use crate::document::KindState;
use crate::sightline_app::{Settings, StartOptions};

/// The window-wide state of timelines.
#[derive(Debug, Clone, Default)]
pub struct NsysState {
    /// The `nsys` executable (`None`: the first on `PATH`).
    pub nsys: Option<PathBuf>,
}

impl NsysState {
    /// `--nsys` when given (it is kept in the settings), else the settings' executable.
    pub fn new(settings: &Settings, options: &StartOptions) -> NsysState {
        NsysState {
            nsys: options.nsys.clone().or_else(|| settings.nsys.clone()),
        }
    }
}

impl KindState for NsysState {
    fn save(&self, settings: &mut Settings) {
        settings.nsys = self.nsys.clone();
    }

    crate::document::any_methods!();
}
