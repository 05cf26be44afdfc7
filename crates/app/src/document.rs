//! Documents: what one tab of the window shows. The shell ([`super::SightlineApp`]) knows a tab
//! only through the [`Document`] interface — its file and title, load progress with Cancel, its
//! error, the status message it wants shown, and `ui` — so new kinds plug in without the shell
//! learning about them. Each kind is a folder of the app with a [`DocumentType`] (its name, the
//! [`FileKind`]s it opens, how to open one), listed once in [`DOCUMENT_TYPES`]; the model's
//! [`FileKind::of_path`] says what kind of file a path is, for every caller.

use std::any::Any;
use std::path::Path;

use eframe::egui;

use std::path::PathBuf;
use std::sync::Arc;

use sightline_model::kind::FileKind;

use super::ncu::metric_selection::InUse;
use super::ncu::rule_runner::{ApplyResult, RuleRunner};
use super::ncu::section_state::SectionState;

/// What the shell lends a document while it draws: the services shared by every tab.
pub struct Services<'a> {
    /// Sections and rules (used by report tabs).
    pub sections: &'a SectionState,
    /// The background rule runner (used by report tabs).
    pub runner: &'a mut RuleRunner,
    /// Set by a document that wants the Metric Selection window opened.
    pub open_metric_selection: bool,
    /// Files a document asks the shell to open in tabs of their own (the other files of a
    /// CodeXL session, an NVTXT file beside an export...).
    pub open_files: Vec<std::path::PathBuf>,
    /// The `nsys` executable of the settings (`None`: the first on `PATH`).
    pub nsys: Option<std::path::PathBuf>,
    /// Set by a document to change the settings' `nsys` executable.
    pub set_nsys: Option<std::path::PathBuf>,
}

/// One open file in a tab of the window.
pub trait Document: Any {
    /// The file the document shows.
    fn path(&self) -> &Path;

    /// The tab's title (the file name).
    fn title(&self) -> String {
        let path = self.path();
        path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    }

    /// Whether a background load is still running.
    fn loading(&self) -> bool;

    /// Load progress `(fraction 0..=1, stage)` while loading.
    fn progress(&self) -> Option<(f32, String)>;

    /// Stops the background load (what was read so far stays when the kind supports it).
    fn cancel(&mut self);

    /// Why the file could not be shown, when it could not.
    fn error(&self) -> Option<&str>;

    /// Applies what the background threads sent; returns a status message `(text, is_error)`
    /// when something worth telling happened (loaded, failed).
    fn poll(&mut self) -> Option<(String, bool)>;

    /// Draws the document in the window's remaining space.
    fn ui(&mut self, ui: &mut egui::Ui, services: &mut Services<'_>);

    /// The document's own keys, for the shortcut list: `(keys, what they do)`.
    fn shortcuts(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }

    /// Reads the document's own keys while it is the active tab, before the shell reads its
    /// global ones (Ctrl+O, Ctrl+W, F1). A document may instead read its keys while drawing.
    fn keys(&mut self, _ctx: &egui::Context, _services: &mut Services<'_>) {}

    /// Items the document adds to the File menu while it is the active tab.
    fn file_menu_ui(&mut self, _ui: &mut egui::Ui) {}

    /// Whether the document applies rules (the shell starts the rule interpreter early, in the
    /// background, when one is open).
    fn uses_rules(&self) -> bool {
        false
    }

    /// An answer of the rule runner: every document sees every answer and keeps those of its
    /// own requests.
    fn rules_answered(&mut self, _result: &ApplyResult) {}

    /// The rule files were reloaded: apply again what was applied, so the page shows what the
    /// edited rules say.
    fn rules_reloaded(&mut self, _services: &mut Services<'_>) {}

    /// The sections and rules of the page shown, for the Metric Selection window.
    fn sections_in_use(&self) -> Option<InUse<'_>> {
        None
    }

    /// Startup milestones for `SIGHTLINE_STARTUP_TRACE`: whether the first page is shown, and
    /// what was listed once everything is (`"all 4 kernels listed"`); nothing for a document
    /// without such stages.
    fn startup_milestones(&self) -> (bool, Option<String>) {
        (false, None)
    }

    /// The document as [`Any`], to reach its concrete kind.
    fn as_any(&self) -> &dyn Any;

    /// The document as mutable [`Any`], to reach its concrete kind.
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

/// What a document shows until it has something to show: its error, or a spinner with the
/// file and the load stage.
pub fn opening_ui(
    ui: &mut egui::Ui,
    path: &Path,
    error: Option<&str>,
    progress: Option<&(f32, String)>,
) {
    if let Some(error) = error {
        ui.colored_label(ui.visuals().error_fg_color, error);
    } else {
        ui.horizontal(|ui| {
            ui.spinner();
            let stage = progress.map_or("starting", |(_, s)| s.as_str());
            ui.label(format!("Opening {} — {stage}", path.display()));
        });
    }
}

impl<'a> Services<'a> {
    /// The services of one call: the section state, the rule runner and the settings' `nsys`,
    /// with nothing asked of the shell yet.
    pub fn new(
        sections: &'a SectionState,
        runner: &'a mut RuleRunner,
        nsys: Option<std::path::PathBuf>,
    ) -> Services<'a> {
        Services {
            sections,
            runner,
            open_metric_selection: false,
            open_files: Vec::new(),
            nsys,
            set_nsys: None,
        }
    }
}

/// Which kind of document opens a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocumentKind {
    /// An Nsight Compute report (`.ncu-rep`, `.ncu-repz`).
    Report,
    /// A timeline: an Nsight Systems `.sqlite` export (`.nsys-rep`/`.qdrep` exported first),
    /// an NVTXT file (`.nvtxt`) or a CodeXL trace (`.atp`).
    Timeline,
    /// CodeXL / RCP performance counters (`.csv`).
    Counters,
    /// CodeXL / RCP kernel occupancy (`.occupancy`).
    Occupancy,
    /// Gainsight: GPGPU-Sim logs (a file or a folder) or the frontend's outputs.
    Gainsight,
}

/// Requests a repaint: given to a document's background work.
pub type Wake = Arc<dyn Fn() + Send + Sync>;

/// A kind of document: what it is called, which files it opens, and how it opens one. Each
/// kind's folder defines its own; [`DOCUMENT_TYPES`] lists them.
pub struct DocumentType {
    /// The kind.
    pub kind: DocumentKind,
    /// What the file dialogs call its files ("Nsight Compute reports").
    pub name: &'static str,
    /// The kinds of file it opens.
    pub file_kinds: &'static [FileKind],
    /// Opens `path` (`nsys`: the executable that exports Nsight Systems reports, `None` for
    /// the first on `PATH`); `wake` requests a repaint when background work progresses.
    pub open: fn(path: PathBuf, nsys: Option<PathBuf>, wake: Wake) -> Box<dyn Document>,
}

/// Every kind of document, once: adding a kind adds its folder and one entry here.
pub const DOCUMENT_TYPES: &[DocumentType] = &[
    super::ncu::document::DOCUMENT,
    super::timeline::DOCUMENT,
    super::codexl::COUNTERS_DOCUMENT,
    super::codexl::OCCUPANCY_DOCUMENT,
    super::gainsight::DOCUMENT,
];

/// The document type that opens files of `kind`.
pub fn document_type(kind: FileKind) -> &'static DocumentType {
    DOCUMENT_TYPES
        .iter()
        .find(|t| t.file_kinds.contains(&kind))
        .unwrap_or(&DOCUMENT_TYPES[0])
}

/// The kind of document that opens `path` ([`FileKind::of_path`]: by name, then content; a
/// file of no known kind goes to the report reader, which names what is wrong).
pub fn route(path: &Path) -> DocumentKind {
    document_type(FileKind::of_path(path)).kind
}

/// Opens `path` as the document kind [`route`] picks; `wake` requests a repaint when its
/// background work progresses.
/// `nsys` is the executable that exports Nsight Systems reports (`None`: the first on `PATH`).
pub fn open_document(
    path: &Path,
    nsys: Option<PathBuf>,
    wake: impl Fn() + Send + Sync + 'static,
) -> Box<dyn Document> {
    let document = document_type(FileKind::of_path(path));
    (document.open)(path.to_path_buf(), nsys, Arc::new(wake))
}

/// The file-dialog filters: `(label, extensions)`, the first one every supported file, then one
/// per tool whose files Sightline opens ([`sightline_model::kind::DIALOG_GROUPS`]), then all
/// files.
pub fn open_filters() -> Vec<(&'static str, Vec<&'static str>)> {
    sightline_model::kind::dialog_filters()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_by_extension_then_content() {
        assert_eq!(route(Path::new("a.ncu-rep")), DocumentKind::Report);
        assert_eq!(route(Path::new("a.NCU-REPZ")), DocumentKind::Report);
        assert_eq!(route(Path::new("a.sqlite")), DocumentKind::Timeline);
        assert_eq!(route(Path::new("a.nsys-rep")), DocumentKind::Timeline);
        assert_eq!(route(Path::new("a.qdrep")), DocumentKind::Timeline);
        assert_eq!(route(Path::new("/no/such/file")), DocumentKind::Report);
        assert_eq!(route(Path::new("s.csv")), DocumentKind::Counters);
        assert_eq!(route(Path::new("s.OCCUPANCY")), DocumentKind::Occupancy);
        assert_ne!(route(Path::new("k.sim_l1.csv")), DocumentKind::Counters);
        let dir = std::env::temp_dir().join(format!("sightline-route-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let db = dir.join("export.db");
        let _ = std::fs::write(&db, b"SQLite format 3\0rest of the header");
        assert_eq!(route(&db), DocumentKind::Timeline);
        let other = dir.join("other.bin");
        let _ = std::fs::write(&other, b"NVR\0");
        assert_eq!(route(&other), DocumentKind::Report);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
