//! A folder of Nsight Systems exports or reports (the ranks of a job, the runs of a sweep)
//! opened as one document (File → Open Folder…, a folder dropped or given on the command
//! line): its files listed (each opens on a timeline of its own), and the Recipes and Compare
//! tabs over all of them ([`crate::recipes`]). Opening lists the folder and exports its reports
//! with `nsys` on the loader thread; no file is read whole until a recipe runs.

use std::path::{Path, PathBuf};

use eframe::egui;
use egui_extras::Column;

use sightline_model::core::Progress;
use sightline_model::format::format_with_unit;
use sightline_model::kind::FileKind;
use sightline_model::ncu::MetricValue;
use sightline_model::timeline::nsys::{default_cache_dir, export_report};
use sightline_model::timeline::{TimelineFileKind, timeline_inputs};

use crate::document::{Document, DocumentKind, DocumentType, Services, Wake};
use crate::job::Job;
use crate::lifecycle::{DocumentView, Load, LoadFailure, LoadJob, Opened, STARTING};
use crate::recipes::RecipesPanel;
use crate::recipes::compare::ComparePane;
use crate::timeline::nsys_state::NsysState;
use crate::widgets::table::{Header, SortableTable, Table, cell_text};

/// The folder's runs: every export (reports exported), with the files as found.
#[derive(Debug, Clone, Default)]
pub struct RunFolder {
    /// The files found (exports and reports), by name, with their sizes.
    pub files: Vec<(PathBuf, u64)>,
    /// The exports the recipes read, one per file that could be used, in file order.
    pub exports: Vec<PathBuf>,
    /// Files that could not be used (a report that could not be exported), naming them.
    pub warnings: Vec<String>,
}

/// Why a folder could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    /// The folder could not be listed, or its thread started.
    #[error("{}: {message}", path.display())]
    Read {
        /// The folder.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The user cancelled.
    #[error("{}: cancelled", path.display())]
    Cancelled {
        /// The folder.
        path: PathBuf,
    },
}

impl LoadFailure for FolderError {
    fn is_cancelled(&self) -> bool {
        matches!(self, FolderError::Cancelled { .. })
    }
}

/// Lists `dir`'s exports and reports and exports the reports (`nsys`: the executable, `None`:
/// the first on `PATH`), reporting each file to `progress`.
pub fn read_folder(
    dir: &Path,
    nsys: Option<&Path>,
    progress: Progress<'_>,
) -> Result<RunFolder, FolderError> {
    let failed = |message: String| FolderError::Read {
        path: dir.to_path_buf(),
        message,
    };
    let found = timeline_inputs(&[dir.to_path_buf()]).map_err(|e| failed(e.to_string()))?;
    let mut folder = RunFolder::default();
    let runs: Vec<PathBuf> = found
        .into_iter()
        .filter(|p| {
            matches!(
                TimelineFileKind::of(p),
                Some(TimelineFileKind::NsysExport | TimelineFileKind::NsysReport)
            )
        })
        .collect();
    for (i, path) in runs.iter().enumerate() {
        progress.report("files", i as u64, runs.len() as u64);
        if progress.is_cancelled() {
            return Err(FolderError::Cancelled {
                path: dir.to_path_buf(),
            });
        }
        let size = std::fs::metadata(path).map_or(0, |m| m.len());
        folder.files.push((path.clone(), size));
        match TimelineFileKind::of(path) {
            Some(TimelineFileKind::NsysReport) => {
                match export_report(path, nsys, &default_cache_dir(), progress) {
                    Ok(export) => folder.exports.push(export),
                    Err(e) => folder.warnings.push(e.to_string()),
                }
            }
            _ => folder.exports.push(path.clone()),
        }
    }
    if folder.files.is_empty() {
        return Err(failed(
            "holds no Nsight Systems export or report (.sqlite, .nsys-rep, .qdrep)".into(),
        ));
    }
    Ok(folder)
}

/// `size` bytes as the app writes sizes (`1.38 MB`).
fn format_bytes(size: u64) -> String {
    format_with_unit(&MetricValue::Uint64(size), "byte", None)
}

/// Which tab the folder shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum FolderTab {
    /// The recipes.
    #[default]
    Recipes,
    /// This folder's run against another.
    Compare,
}

/// A folder of runs in a tab.
pub struct RunsDoc {
    load: Load<RunsDoc>,
    nsys: Option<PathBuf>,
    /// The tab shown.
    pub tab: FolderTab,
    /// The Recipes tab.
    pub recipes: RecipesPanel,
    /// The Compare tab.
    pub compare: ComparePane,
    files_table: SortableTable,
}

impl RunsDoc {
    /// Starts listing the folder `path`; `nsys` exports its reports.
    pub fn open(path: PathBuf, nsys: Option<PathBuf>, wake: Wake) -> RunsDoc {
        let mut doc = RunsDoc {
            load: Load::new(path, wake),
            nsys,
            tab: FolderTab::default(),
            recipes: RecipesPanel::default(),
            compare: ComparePane::default(),
            files_table: SortableTable::default(),
        };
        crate::lifecycle::start(&mut doc, STARTING);
        doc
    }

    /// The folder's runs, once listed.
    pub fn folder(&self) -> Option<&RunFolder> {
        self.load.loaded()
    }

    /// The files list; a click on Open asks the shell for the file's own tab.
    fn files_ui(
        ui: &mut egui::Ui,
        folder: &RunFolder,
        table: &mut SortableTable,
    ) -> Option<PathBuf> {
        let mut open = None;
        let headers = vec![
            Header::new("File", Column::remainder().at_least(160.0).clip(true)),
            Header::new("Size", Column::auto().at_least(70.0)),
            Header::new("", Column::auto().at_least(50.0)).fixed(),
        ];
        let files = &folder.files;
        let compare = |col: usize, a: usize, b: usize| match col {
            1 => files[a].1.cmp(&files[b].1),
            _ => files[a].0.file_name().cmp(&files[b].0.file_name()),
        };
        Table::new("run-files", headers, "file order")
            .max_height(ui.available_height())
            .show(ui, table, files.len(), &compare, &mut |ui, r, c| {
                let (path, size) = &files[r];
                match c {
                    0 => {
                        let name = path.file_name().unwrap_or_default().to_string_lossy();
                        cell_text(ui, &name);
                    }
                    1 => {
                        cell_text(ui, &format_bytes(*size));
                    }
                    _ => {
                        if ui
                            .small_button("Open")
                            .on_hover_text("Open on a timeline")
                            .clicked()
                        {
                            open = Some(path.clone());
                        }
                    }
                }
            });
        open
    }
}

impl DocumentView for RunsDoc {
    type Loaded = RunFolder;
    type Sent = std::convert::Infallible;
    type Done = RunFolder;
    type Error = FolderError;

    fn load(&self) -> &Load<RunsDoc> {
        &self.load
    }

    fn load_mut(&mut self) -> &mut Load<RunsDoc> {
        &mut self.load
    }

    fn start(&mut self, wake: Wake) -> LoadJob<Self> {
        let (dir, nsys) = (self.load.path().to_path_buf(), self.nsys.clone());
        let failed = dir.clone();
        Job::start(
            move || wake(),
            move |e| FolderError::Read {
                path: failed,
                message: format!("cannot start the loader thread: {e}"),
            },
            move |ctx| read_folder(&dir, nsys.as_deref(), Progress::new(ctx).named("listing")),
        )
    }

    fn sent(&mut self, message: std::convert::Infallible) -> Option<Opened> {
        match message {}
    }

    fn done(&mut self, folder: RunFolder) -> Option<Opened> {
        let opened = Opened::new(format!("{} run file(s)", folder.files.len()))
            .warnings(folder.warnings.len());
        self.load.set_loaded(Some(folder));
        Some(opened)
    }

    fn loaded_ui(&mut self, ui: &mut egui::Ui, services: &mut Services<'_>) {
        let Some(folder) = self.load.loaded().cloned() else {
            return;
        };
        let wake = self.load.wake().clone();
        egui::Panel::left("run-files-panel")
            .resizable(true)
            .default_size(320.0)
            .show(ui, |ui| {
                let total: u64 = folder.files.iter().map(|(_, s)| s).sum();
                ui.strong(format!(
                    "{} file(s), {}",
                    folder.files.len(),
                    format_bytes(total)
                ));
                for w in &folder.warnings {
                    ui.colored_label(ui.visuals().warn_fg_color, w);
                }
                if let Some(path) = RunsDoc::files_ui(ui, &folder, &mut self.files_table) {
                    services.open_files.push(path);
                }
            });
        egui::CentralPanel::default().show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.selectable_value(&mut self.tab, FolderTab::Recipes, "Recipes");
                ui.selectable_value(&mut self.tab, FolderTab::Compare, "Compare");
            });
            ui.separator();
            match self.tab {
                FolderTab::Recipes => self.recipes.ui(ui, &folder.exports, &wake),
                FolderTab::Compare => {
                    self.compare
                        .ui(ui, &folder.exports, self.nsys.as_ref(), &wake);
                    services.open_files.extend(self.compare.open_request.take());
                }
            }
        });
    }

    fn cancel_view(&mut self) -> bool {
        if self.recipes.busy() {
            self.recipes.cancel();
            return true;
        }
        false
    }
}

impl Document for RunsDoc {
    crate::lifecycle::lifecycle_methods!();

    crate::document::any_methods!();
}

/// Folders of Nsight Systems exports and reports.
pub const DOCUMENT: DocumentType = DocumentType {
    kind: DocumentKind::Runs,
    name: "Folders of Nsight Systems runs",
    file_kinds: &[FileKind::NsysFolder],
    open: |path, states, wake| {
        let nsys = states.get::<NsysState>().and_then(|s| s.nsys.clone());
        Box::new(RunsDoc::open(path, nsys, wake))
    },
    state: None,
};
