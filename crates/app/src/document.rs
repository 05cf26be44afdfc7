//! Documents: what one tab of the window shows. The shell ([`super::SightlineApp`]) knows a tab
//! only through the [`Document`] interface — its file and title, load progress with Cancel, its
//! error, the status message it wants shown, and `ui` — so new kinds (Gainsight logs, CodeXL
//! traces...) plug in without the shell learning about them. [`route`] decides which kind opens
//! a file: Nsight Compute reports become a [`ReportTab`], Nsight Systems exports and reports a
//! [`TimelineDoc`].

use std::any::Any;
use std::path::Path;

use eframe::egui;

use super::codexl::{CountersDoc, OccupancyDoc};
use super::gainsight::GainsightDoc;
use super::ncu::report_tab::ReportTab;
use super::ncu::rule_runner::RuleRunner;
use super::ncu::section_state::SectionState;
use super::timeline::TimelineDoc;

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
}

/// Extensions opened as Nsight Compute reports.
pub const REPORT_EXTENSIONS: &[&str] = &["ncu-rep", "ncu-repz"];
/// Extensions opened as timelines.
pub const TIMELINE_EXTENSIONS: &[&str] = &["sqlite", "nsys-rep", "qdrep", "nvtxt", "atp"];

/// Extensions opened as CodeXL performance counters (names ending `.sim.csv`, `.sim_l1.csv`,
/// `.sim_l2.csv` excepted: those are Gainsight's).
pub const COUNTERS_EXTENSIONS: &[&str] = &["csv"];
/// Extensions opened as CodeXL occupancy files.
pub const OCCUPANCY_EXTENSIONS: &[&str] = &["occupancy"];

/// Whether `path` names a Gainsight CSV (`NAME.sim.csv`, `NAME.sim_l1.csv`, `NAME.sim_l2.csv`),
/// which is not a counter file.
fn is_gainsight_csv(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    [".sim.csv", ".sim_l1.csv", ".sim_l2.csv"]
        .iter()
        .any(|suffix| name.ends_with(suffix))
}

/// Extensions opened as Gainsight inputs (besides folders and the `.sim*.csv` outputs).
pub const GAINSIGHT_EXTENSIONS: &[&str] = &["log", "traceg", "json"];

/// Whether the first 64 KiB of `path` name GPGPU-Sim (a simulator log of any name).
fn is_gpgpusim_log(path: &Path) -> bool {
    let mut head = Vec::with_capacity(64 * 1024);
    std::fs::File::open(path)
        .and_then(|f| std::io::Read::read_to_end(&mut std::io::Read::take(f, 64 * 1024), &mut head))
        .is_ok_and(|_| memchr::memmem::find(&head, b"GPGPU-Sim").is_some())
}

/// The first 16 bytes of every SQLite database.
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// The kind of document that opens `path`: by extension (case-insensitive), else by content
/// (an SQLite database is a timeline), else a report (whose reader names what is wrong).
pub fn route(path: &Path) -> DocumentKind {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some(e) if REPORT_EXTENSIONS.contains(&e) => DocumentKind::Report,
        Some(e) if TIMELINE_EXTENSIONS.contains(&e) => DocumentKind::Timeline,
        _ if path.is_dir() || is_gainsight_csv(path) => DocumentKind::Gainsight,
        Some(e) if GAINSIGHT_EXTENSIONS.contains(&e) => DocumentKind::Gainsight,
        Some(e) if OCCUPANCY_EXTENSIONS.contains(&e) => DocumentKind::Occupancy,
        Some(e) if COUNTERS_EXTENSIONS.contains(&e) && !is_gainsight_csv(path) => {
            DocumentKind::Counters
        }
        _ => {
            let mut head = [0u8; 16];
            let sqlite = std::fs::File::open(path)
                .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
                .is_ok_and(|()| &head == SQLITE_MAGIC);
            if sqlite {
                DocumentKind::Timeline
            } else if is_gpgpusim_log(path) {
                DocumentKind::Gainsight
            } else {
                DocumentKind::Report
            }
        }
    }
}

/// Opens `path` as the document kind [`route`] picks; `wake` requests a repaint when its
/// background work progresses.
/// `nsys` is the executable that exports Nsight Systems reports (`None`: the first on `PATH`).
pub fn open_document(
    path: &Path,
    nsys: Option<std::path::PathBuf>,
    wake: impl Fn() + Send + Sync + 'static,
) -> Box<dyn Document> {
    match route(path) {
        DocumentKind::Report => Box::new(ReportTab::open(path.to_path_buf(), wake)),
        DocumentKind::Timeline => Box::new(TimelineDoc::open(path.to_path_buf(), nsys, wake)),
        DocumentKind::Counters => Box::new(CountersDoc::open(path.to_path_buf(), wake)),
        DocumentKind::Occupancy => Box::new(OccupancyDoc::open(path.to_path_buf(), wake)),
        DocumentKind::Gainsight => Box::new(GainsightDoc::open(path.to_path_buf(), wake)),
    }
}

/// The file-dialog filters: `(label, extensions)`, the first one every supported file.
pub fn open_filters() -> Vec<(&'static str, Vec<&'static str>)> {
    let all: Vec<&str> = REPORT_EXTENSIONS
        .iter()
        .chain(TIMELINE_EXTENSIONS)
        .chain(COUNTERS_EXTENSIONS)
        .chain(OCCUPANCY_EXTENSIONS)
        .chain(GAINSIGHT_EXTENSIONS)
        .copied()
        .collect();
    vec![
        ("All supported files", all),
        ("Nsight Compute reports", REPORT_EXTENSIONS.to_vec()),
        (
            "Nsight Systems exports and reports",
            vec!["sqlite", "nsys-rep", "qdrep"],
        ),
        ("NVTXT annotations", vec!["nvtxt"]),
        ("CodeXL sessions", vec!["atp", "csv", "occupancy"]),
        (
            "Gainsight logs and outputs",
            GAINSIGHT_EXTENSIONS
                .iter()
                .chain(COUNTERS_EXTENSIONS)
                .copied()
                .collect(),
        ),
        ("All files", vec!["*"]),
    ]
}

impl Document for ReportTab {
    fn path(&self) -> &Path {
        &self.path
    }

    fn title(&self) -> String {
        ReportTab::title(self)
    }

    fn loading(&self) -> bool {
        ReportTab::loading(self)
    }

    fn progress(&self) -> Option<(f32, String)> {
        self.progress.clone()
    }

    fn cancel(&mut self) {
        ReportTab::cancel(self);
    }

    fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    fn poll(&mut self) -> Option<(String, bool)> {
        let was_loading = ReportTab::loading(self);
        if let Some(error) = ReportTab::poll(self) {
            return Some((error, true));
        }
        match &self.report {
            Some(report) if was_loading && !ReportTab::loading(self) => Some((
                format!(
                    "Opened {}: {} result(s)",
                    self.path.display(),
                    report.num_actions()
                ),
                false,
            )),
            _ => None,
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, services: &mut Services<'_>) {
        if ReportTab::ui(self, ui, services.sections, services.runner) {
            services.open_metric_selection = true;
        }
    }

    fn shortcuts(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("Ctrl+F", "Filter the kernel list"),
            ("Up / Down", "Previous / next kernel"),
            ("Ctrl+R", "Apply all rules to the kernel"),
        ]
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
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
