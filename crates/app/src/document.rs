//! Documents: what one tab of the window shows. The shell ([`super::SightlineApp`]) knows a tab
//! only through the [`Document`] interface — its file and title, load progress with Cancel, its
//! error, the status message it wants shown, and `ui` — so new kinds plug in without the shell
//! learning about them. Each kind is a folder of the app with a [`DocumentType`] (its name, the
//! [`FileKind`]s it opens, how to open one), listed once in [`DOCUMENT_TYPES`]; the model's
//! [`FileKind::of_path`] says what kind of file a path is, for every caller. What a kind keeps
//! for the whole window (Nsight Compute's sections, rules and Metric Selection window; the
//! timeline's `nsys` executable) is its [`KindState`], which the shell holds without knowing it.

use std::any::Any;
use std::path::Path;

use eframe::egui;

use std::path::PathBuf;
use std::sync::Arc;

use sightline_model::kind::FileKind;

use super::sightline_app::{Settings, StartOptions};

/// The `as_any` and `as_any_mut` methods of a [`Document`] or [`KindState`] impl: Rust cannot
/// give them as default methods (a default method cannot turn `Self` into a `dyn Any`).
macro_rules! any_methods {
    () => {
        fn as_any(&self) -> &dyn std::any::Any {
            self
        }

        fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
            self
        }
    };
}
pub(crate) use any_methods;

/// What the shell lends a document while it draws: the kinds' window-wide states, and what
/// the document asks of the shell.
pub struct Services<'a> {
    /// The state each kind keeps for the whole window (a document takes its own kind's with
    /// [`Services::state`]).
    pub states: &'a mut KindStates,
    /// Files a document asks the shell to open in tabs of their own (the other files of a
    /// CodeXL session, an NVTXT file beside an export...).
    pub open_files: Vec<PathBuf>,
    /// Items of other tabs a document asks the shell to show ([`Navigate`]).
    pub navigate: Vec<Navigate>,
}

impl<'a> Services<'a> {
    /// The services of one call, with nothing asked of the shell yet.
    pub fn new(states: &'a mut KindStates) -> Services<'a> {
        Services {
            states,
            open_files: Vec::new(),
            navigate: Vec::new(),
        }
    }

    /// The window-wide state of kind `T`, when the window has one.
    pub fn state<T: KindState>(&mut self) -> Option<&mut T> {
        self.states.get_mut::<T>()
    }
}

/// Something a document offers the other tabs, under a key both kinds agree on (the keys and
/// their payload types are listed in [`crate::links`]): the shell passes these between tabs
/// without knowing what they are.
#[derive(Clone)]
pub struct Published {
    /// What it is (a key of [`crate::links`]).
    pub key: &'static str,
    /// The payload; the kinds that read the key know its type.
    pub value: Arc<dyn Any + Send + Sync>,
}

impl Published {
    /// The payload as `T`, when it is one.
    pub fn get<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.value.downcast_ref()
    }
}

/// Another tab as a document sees it: its file and what it publishes.
#[derive(Clone)]
pub struct Peer {
    /// The tab's file.
    pub path: PathBuf,
    /// The tab's title.
    pub title: String,
    /// What the tab publishes ([`Document::published`]).
    pub published: Vec<Published>,
}

/// A request to show an item of another tab: the shell finds the tab of `document`, asks it
/// to show `item` ([`Document::navigate`]) and makes it the active tab when it could.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Navigate {
    /// The file of the tab to show.
    pub document: PathBuf,
    /// The item, in the target kind's numbering (a report's result index, a timeline's event
    /// id).
    pub item: u64,
}

/// What one kind of document keeps for the whole window and shares among its documents:
/// Nsight Compute's section folders, rules, rule runner and Metric Selection window; the
/// timeline's `nsys` executable. The shell holds one per kind that has one
/// ([`DocumentType::state`]) and calls it at fixed points of each frame.
pub trait KindState: Any {
    /// Called at the start of each frame, before the documents are polled: applies what the
    /// kind's background work sent, and may tell its documents (`tabs` are all of the window's;
    /// the kind picks its own). Returns a status message `(text, is_error)` worth showing.
    fn poll(
        &mut self,
        _ctx: &egui::Context,
        _tabs: &mut [Box<dyn Document>],
    ) -> Option<(String, bool)> {
        None
    }

    /// Items the kind adds to the View menu.
    fn view_menu_ui(&mut self, _ui: &mut egui::Ui) {}

    /// Items the kind adds to the File menu (Nsight Compute's baselines files).
    fn file_menu_ui(&mut self, _ui: &mut egui::Ui) {}

    /// Windows of the kind's own, drawn after the active document (`active`: its index in
    /// `tabs`, when there is one). Returns a status message worth showing.
    fn windows_ui(
        &mut self,
        _ctx: &egui::Context,
        _tabs: &mut [Box<dyn Document>],
        _active: Option<usize>,
    ) -> Option<(String, bool)> {
        None
    }

    /// Whether background work of the kind is running (rules being applied).
    fn busy(&self) -> bool {
        false
    }

    /// Writes what the kind keeps into the settings to persist.
    fn save(&self, _settings: &mut Settings) {}

    /// The state as [`Any`], to reach its concrete type.
    fn as_any(&self) -> &dyn Any;

    /// The state as mutable [`Any`], to reach its concrete type.
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

/// The window-wide states of the kinds that have one, made from the settings and the command
/// line by [`KindStates::new`].
#[derive(Default)]
pub struct KindStates(Vec<Box<dyn KindState>>);

impl KindStates {
    /// One state per document type that has one, in [`DOCUMENT_TYPES`] order.
    pub fn new(settings: &Settings, options: &StartOptions) -> KindStates {
        KindStates(
            DOCUMENT_TYPES
                .iter()
                .filter_map(|t| t.state.map(|make| make(settings, options)))
                .collect(),
        )
    }

    /// The state of type `T`.
    pub fn get<T: KindState>(&self) -> Option<&T> {
        self.0.iter().find_map(|s| s.as_any().downcast_ref())
    }

    /// The state of type `T`, mutable.
    pub fn get_mut<T: KindState>(&mut self) -> Option<&mut T> {
        self.0
            .iter_mut()
            .find_map(|s| s.as_any_mut().downcast_mut())
    }

    /// Every state, in [`DOCUMENT_TYPES`] order.
    pub fn iter(&self) -> impl Iterator<Item = &dyn KindState> {
        self.0.iter().map(|s| s.as_ref())
    }

    /// Every state, mutable.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Box<dyn KindState>> {
        self.0.iter_mut()
    }
}

/// One open file in a tab of the window. Every kind gets `path`, `loading`, `progress`,
/// `cancel`, `error`, `poll` and `ui` from the shell's lifecycle
/// ([`crate::lifecycle::lifecycle_methods!`] over its [`crate::lifecycle::DocumentView`]) and
/// writes the rest when it has something to say.
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

    /// Stops the background load (what was read so far stays when the kind supports it), or the
    /// document's own background work; returns the status message of a cancelled load.
    fn cancel(&mut self) -> Option<(String, bool)>;

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

    /// Takes more files into this document (several files on one timeline); `false` when the
    /// kind cannot (the shell opens them as tabs of their own instead).
    fn add_files(&mut self, _paths: Vec<PathBuf>) -> bool {
        false
    }

    /// Startup milestones for `SIGHTLINE_STARTUP_TRACE`: whether the first page is shown, and
    /// what was listed once everything is (`"all 4 kernels listed"`); nothing for a document
    /// without such stages.
    fn startup_milestones(&self) -> (bool, Option<String>) {
        (false, None)
    }

    /// What the document offers the other tabs (its loaded model, links it computed), by key.
    fn published(&self) -> Vec<Published> {
        Vec::new()
    }

    /// Sees what the other tabs publish; called for every tab on every frame, after `poll`. A
    /// document that links with another kind starts (or drops) its links here, on a
    /// background job.
    fn see_peers(&mut self, _peers: &[Peer]) {}

    /// Shows `item` (in the kind's numbering, see [`Navigate`]) because another tab asked;
    /// returns whether the item exists.
    fn navigate(&mut self, _item: u64) -> bool {
        false
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
    /// A folder of Nsight Systems exports or reports: the recipes and Compare over them.
    Runs,
}

/// Makes a kind's window-wide state from the settings and the command line.
pub type MakeState = fn(&Settings, &StartOptions) -> Box<dyn KindState>;

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
    /// Opens `path`, with the window-wide states of the kinds at hand (the timeline takes its
    /// `nsys` executable from its own); `wake` requests a repaint when background work
    /// progresses.
    pub open: fn(path: PathBuf, states: &KindStates, wake: Wake) -> Box<dyn Document>,
    /// Makes the kind's window-wide state from the settings and the command line, for a kind
    /// that keeps one.
    pub state: Option<MakeState>,
}

/// Every kind of document, once: adding a kind adds its folder and one entry here.
pub const DOCUMENT_TYPES: &[DocumentType] = &[
    super::ncu::document::DOCUMENT,
    super::timeline::DOCUMENT,
    super::codexl::COUNTERS_DOCUMENT,
    super::codexl::OCCUPANCY_DOCUMENT,
    super::gainsight::DOCUMENT,
    super::runs::DOCUMENT,
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
/// `states` are the window's kind states (the timeline's holds the `nsys` executable).
pub fn open_document(
    path: &Path,
    states: &KindStates,
    wake: impl Fn() + Send + Sync + 'static,
) -> Box<dyn Document> {
    let document = document_type(FileKind::of_path(path));
    (document.open)(path.to_path_buf(), states, Arc::new(wake))
}

/// Opens `paths` (files, or folders of them) as one document: several files on one timeline.
pub fn open_merged(
    paths: Vec<PathBuf>,
    states: &KindStates,
    wake: impl Fn() + Send + Sync + 'static,
) -> Box<dyn Document> {
    let first = sightline_model::timeline::timeline_inputs(&paths)
        .ok()
        .and_then(|files| files.into_iter().next())
        .or_else(|| paths.first().cloned())
        .unwrap_or_default();
    let mut document = (document_type(FileKind::NsysExport).open)(first, states, Arc::new(wake));
    document.add_files(paths);
    document
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
