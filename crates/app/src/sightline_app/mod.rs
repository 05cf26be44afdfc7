//! The application: tabs of open documents (reports, timelines; see [`super::document`]), menus,
//! shortcuts, file dialogs, drag & drop, status bar, persisted settings.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use eframe::egui;

use super::document::{
    Document, KindState, KindStates, Navigate, Peer, Services, open_document, open_filters,
};
use crate::lifecycle::Status;
use crate::widgets::dialog::{Answer, Dialog, take_answer};

mod chrome;
mod settings;

use settings::{SETTINGS_KEY, StartupTrace};
pub use settings::{STARTUP_TRACE_ENV, Settings, StartOptions};

/// A status message, numbered in the order said.
struct Said {
    text: String,
    error: bool,
    at: u64,
}

/// The Sightline window.
pub struct SightlineApp {
    /// Open documents (reports, timelines), one per tab.
    pub tabs: Vec<Box<dyn Document>>,
    /// Index of the visible tab.
    pub active: usize,
    /// Persisted settings.
    pub settings: Settings,
    /// The last window-wide status message (a dialog, rules applied, a tab no longer open).
    status: Option<Said>,
    /// Each tab's last status message (opened, failed, linked...), by the tab's file: the
    /// status bar shows the active tab's, or a newer window-wide one.
    tab_status: HashMap<PathBuf, Said>,
    /// Messages said so far (what numbers them).
    said: u64,
    /// Whether the shortcut list (F1) is open.
    pub show_shortcuts: bool,
    /// What each kind of document keeps for the whole window (Nsight Compute's sections and
    /// rules, the timeline's `nsys`), reached by type with [`SightlineApp::kind_state`].
    pub states: KindStates,
    trace: Option<StartupTrace>,
    /// The Open / Open Folder dialog being shown: the files it answers open.
    dialog: Option<Dialog<Vec<PathBuf>>>,
    /// The "Open path" prompt (File → Open Path…, or when no file dialog is available): the
    /// path typed so far and the note shown above it.
    pub path_prompt: Option<(String, Option<String>)>,
    pending: Vec<PathBuf>,
    /// Open `pending` as one merged timeline (`--merge`).
    merge_pending: bool,
}

impl SightlineApp {
    /// An app with `settings` that opens `options.files` on its first frame.
    pub fn new(mut settings: Settings, options: StartOptions) -> Self {
        let states = KindStates::new(&settings, &options);
        // What the kinds took from the command line (`--nsys`) is kept in the settings.
        for state in states.iter() {
            state.save(&mut settings);
        }
        SightlineApp {
            tabs: Vec::new(),
            active: 0,
            settings,
            status: None,
            tab_status: HashMap::new(),
            said: 0,
            show_shortcuts: false,
            states,
            trace: options.trace_startup_from.map(|start| StartupTrace {
                start,
                first_frame: false,
                first_page: false,
                all_listed: false,
            }),
            dialog: None,
            path_prompt: None,
            pending: options.files,
            merge_pending: options.merge,
        }
    }

    /// Creates the app from eframe's creation context (restores settings).
    pub fn from_creation_context(cc: &eframe::CreationContext<'_>, options: StartOptions) -> Self {
        let settings = cc
            .storage
            .and_then(|s| eframe::get_value(s, SETTINGS_KEY))
            .unwrap_or_default();
        SightlineApp::new(settings, options)
    }

    /// The settings to persist, updated from the section state.
    pub fn settings_to_save(&self) -> Settings {
        let mut settings = self.settings.clone();
        for state in self.states.iter() {
            state.save(&mut settings);
        }
        settings
    }

    /// Opens `path` in a new tab (or focuses its tab), as the kind of document its type calls
    /// for ([`super::document::route`]).
    pub fn open(&mut self, path: &Path, ctx: &egui::Context) {
        if let Some(existing) = self.tabs.iter().position(|t| t.path() == path) {
            self.active = existing;
            return;
        }
        self.settings.remember(path);
        let repaint = ctx.clone();
        let opening = (format!("Opening {}", path.display()), false);
        self.say_for_tab(path, opening, true);
        self.tabs.push(open_document(path, &self.states, move || {
            repaint.request_repaint()
        }));
        self.active = self.tabs.len() - 1;
    }

    /// The window-wide state of a kind of document, of type `T` (for tests and tools that
    /// drive a kind; the shell itself knows states only as [`KindState`]).
    pub fn kind_state<T: KindState>(&self) -> Option<&T> {
        self.states.get()
    }

    /// The window-wide state of type `T`, mutable.
    pub fn kind_state_mut<T: KindState>(&mut self) -> Option<&mut T> {
        self.states.get_mut()
    }

    /// The document at `index` as its concrete kind `T`, when it is one (for tests and tools
    /// that drive a kind of document; the shell itself knows documents only as [`Document`]).
    pub fn document<T: Document>(&self, index: usize) -> Option<&T> {
        self.tabs.get(index)?.as_any().downcast_ref()
    }

    /// The document at `index` as its concrete kind `T`, mutable, when it is one.
    pub fn document_mut<T: Document>(&mut self, index: usize) -> Option<&mut T> {
        self.tabs.get_mut(index)?.as_any_mut().downcast_mut()
    }

    /// Number of open tabs.
    pub fn tab_count(&self) -> usize {
        self.tabs.len()
    }

    /// Closes tab `index`.
    pub fn close(&mut self, index: usize) {
        if index < self.tabs.len() {
            let mut tab = self.tabs.remove(index);
            tab.cancel();
            self.tab_status.remove(tab.path());
            self.active = self.active.min(self.tabs.len().saturating_sub(1));
        }
    }

    fn open_dialog(&mut self, ctx: &egui::Context) {
        self.spawn_dialog(ctx, "file", || {
            let mut dialog = rfd::FileDialog::new().set_title("Open a profiler report");
            for (label, extensions) in open_filters() {
                dialog = dialog.add_filter(label, &extensions);
            }
            dialog.pick_files().unwrap_or_default()
        });
    }

    /// File → Open Folder…: a folder picker whose answer arrives like the file dialog's (a
    /// folder of Nsight Systems exports opens as a folder of runs, one of logs as Gainsight).
    fn open_folder_dialog(&mut self, ctx: &egui::Context) {
        self.spawn_dialog(ctx, "folder", || {
            rfd::FileDialog::new()
                .set_title("Open a folder of Nsight Systems exports or GPGPU-Sim logs")
                .pick_folder()
                .into_iter()
                .collect()
        });
    }

    /// Shows `pick` (a system dialog) on its own thread ([`Dialog`]); its answer opens in
    /// [`SightlineApp::update`].
    fn spawn_dialog(
        &mut self,
        ctx: &egui::Context,
        what: &str,
        pick: impl FnOnce() -> Vec<std::path::PathBuf> + Send + 'static,
    ) {
        if self.dialog.is_some() {
            return;
        }
        let repaint = ctx.clone();
        match Dialog::spawn(what, move || repaint.request_repaint(), pick) {
            Ok(dialog) => self.dialog = Some(dialog),
            Err(error) => self.say((error, true)),
        }
    }

    fn handle_input(&mut self, ctx: &egui::Context) {
        use egui::{Key, Modifiers};
        // The active document reads its own keys first (a report's Ctrl+F, Up/Down and Ctrl+R;
        // a timeline reads its keys while drawing, its Ctrl+F searching its events).
        if let Some(tab) = self.tabs.get_mut(self.active) {
            let mut services = Services::new(&mut self.states);
            tab.keys(ctx, &mut services);
        }
        let (open, close, help) = ctx.input_mut(|i| {
            (
                i.consume_key(Modifiers::COMMAND, Key::O),
                i.consume_key(Modifiers::COMMAND, Key::W),
                i.consume_key(Modifiers::NONE, Key::F1),
            )
        });
        if open {
            self.open_dialog(ctx);
        }
        if close {
            self.close(self.active);
        }
        if help {
            self.show_shortcuts = !self.show_shortcuts;
        }
        let dropped: Vec<PathBuf> = ctx.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .collect()
        });
        for path in dropped {
            self.open(&path, ctx);
        }
    }

    fn trace_milestones(&mut self) {
        let Some(trace) = &mut self.trace else { return };
        if !trace.first_frame {
            trace.first_frame = true;
            trace.mark("first frame");
        }
        let Some(tab) = self.tabs.first() else {
            return;
        };
        let (first_page, all_listed) = tab.startup_milestones();
        if !trace.first_page && first_page {
            trace.first_page = true;
            trace.mark("first Details page");
        }
        if let Some(listed) = all_listed.filter(|_| !trace.all_listed) {
            trace.all_listed = true;
            trace.mark(&listed);
        }
    }

    /// Shows every tab what the others publish ([`Document::published`],
    /// [`Document::see_peers`]): how documents of different kinds find each other (a timeline
    /// and a report of the same program) without the shell knowing their kinds.
    fn share_between_tabs(&mut self) {
        let peers: Vec<Peer> = self
            .tabs
            .iter()
            .map(|t| Peer {
                path: t.path().to_path_buf(),
                title: t.title(),
                published: t.published(),
            })
            .collect();
        for (i, tab) in self.tabs.iter_mut().enumerate() {
            let others: Vec<Peer> = peers
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, p)| p.clone())
                .collect();
            tab.see_peers(&others);
        }
    }

    /// Shows the item a document asked for ([`Navigate`]): its tab shows it and becomes the
    /// active tab.
    pub fn navigate(&mut self, request: &Navigate) {
        let Some(index) = self.tabs.iter().position(|t| t.path() == request.document) else {
            self.say((
                format!("{} is no longer open", request.document.display()),
                true,
            ));
            return;
        };
        if self.tabs[index].navigate(request.item) {
            self.active = index;
        } else {
            self.say((
                format!("{}: no item {}", request.document.display(), request.item),
                true,
            ));
        }
    }

    /// Shows `status` for the whole window (until a newer message).
    fn say(&mut self, (text, error): Status) {
        self.said += 1;
        self.status = Some(Said {
            text,
            error,
            at: self.said,
        });
    }

    /// Shows `status` on the tab of `path`. An error stays on its tab until something else
    /// fails there or the user acts (`user`: what the user did says it).
    fn say_for_tab(&mut self, path: &Path, (text, error): Status, user: bool) {
        let shown = self.tab_status.get(path);
        if !error && !user && shown.is_some_and(|s| s.error) {
            return;
        }
        self.said += 1;
        let said = Said {
            text,
            error,
            at: self.said,
        };
        self.tab_status.insert(path.to_path_buf(), said);
    }

    /// What the status bar shows: the active tab's last message, or the window's when it is
    /// newer (`(text, is_error)`).
    pub fn status(&self) -> Option<Status> {
        let tab = self
            .tabs
            .get(self.active)
            .and_then(|t| self.tab_status.get(t.path()));
        let newest = match (tab, &self.status) {
            (Some(tab), Some(window)) if window.at > tab.at => window,
            (Some(tab), _) => tab,
            (None, window) => window.as_ref()?,
        };
        Some((newest.text.clone(), newest.error))
    }

    /// Whether a kind's background work is running (rules being applied).
    pub fn busy(&self) -> bool {
        self.states.iter().any(KindState::busy)
    }

    /// Draws one frame.
    pub fn frame_ui(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        ctx.set_theme(if self.settings.dark {
            egui::Theme::Dark
        } else {
            egui::Theme::Light
        });
        self.open_requested(&ctx);
        self.poll_work(&ctx);
        self.share_between_tabs();
        self.handle_input(&ctx);
        egui::Panel::top("menu").show(ui, |ui| self.menu_ui(ui));
        if !self.tabs.is_empty() {
            egui::Panel::top("tabs").show(ui, |ui| self.tabs_ui(ui));
        }
        egui::Panel::bottom("status").show(ui, |ui| self.status_ui(ui));
        self.active_tab_ui(ui, &ctx);
        self.kind_windows_ui(&ctx);
        self.shortcuts_ui(&ctx);
        self.path_prompt_ui(&ctx);
        self.trace_milestones();
        drop_overlay(&ctx);
    }

    /// Opens what was asked for since the last frame: the files to merge into one tab, the
    /// pending paths, and the open dialog's answer (or, when no dialog is available, the path
    /// prompt).
    fn open_requested(&mut self, ctx: &egui::Context) {
        if std::mem::take(&mut self.merge_pending) && !self.pending.is_empty() {
            let paths = std::mem::take(&mut self.pending);
            let repaint = ctx.clone();
            self.tabs.push(super::document::open_merged(
                paths,
                &self.states,
                move || repaint.request_repaint(),
            ));
            self.active = self.tabs.len() - 1;
        }
        for path in std::mem::take(&mut self.pending) {
            self.open(&path, ctx);
        }
        if let Some(Answer {
            value: files,
            at_once,
        }) = take_answer(&mut self.dialog)
        {
            if files.is_empty() && at_once {
                self.path_prompt = Some((
                    String::new(),
                    Some(
                        "No file dialog is available on this desktop (no xdg-desktop-portal file \
                         chooser). Type the report's path, drop the file on the window, or pass it \
                         on the command line."
                            .to_owned(),
                    ),
                ));
            }
            for path in files {
                self.open(&path, ctx);
            }
        }
    }

    /// Polls the kinds' background work and every tab's load, and says what they report.
    fn poll_work(&mut self, ctx: &egui::Context) {
        let mut said = Vec::new();
        for state in self.states.iter_mut() {
            said.extend(state.poll(ctx, &mut self.tabs));
        }
        for status in said {
            self.say(status);
        }
        for index in 0..self.tabs.len() {
            if let Some(status) = self.tabs[index].poll() {
                let path = self.tabs[index].path().to_path_buf();
                self.say_for_tab(&path, status, false);
            }
        }
    }

    /// Draws the active tab (and opens the files and follows the links it asks for), or the
    /// welcome page without tabs.
    fn active_tab_ui(&mut self, ui: &mut egui::Ui, ctx: &egui::Context) {
        match self.tabs.get_mut(self.active) {
            Some(tab) => {
                let mut services = Services::new(&mut self.states);
                tab.ui(ui, &mut services);
                let open_files = std::mem::take(&mut services.open_files);
                let navigate = std::mem::take(&mut services.navigate);
                for path in open_files {
                    self.open(&path, ctx);
                }
                for request in navigate {
                    self.navigate(&request);
                    ctx.request_repaint();
                }
            }
            None => {
                egui::CentralPanel::default().show(ui, |ui| self.welcome_ui(ui));
            }
        }
    }

    /// Draws the windows of the document kinds and says what they report.
    fn kind_windows_ui(&mut self, ctx: &egui::Context) {
        let active = (self.active < self.tabs.len()).then_some(self.active);
        let mut said = Vec::new();
        for state in self.states.iter_mut() {
            said.extend(state.windows_ui(ctx, &mut self.tabs, active));
        }
        for status in said {
            self.say(status);
        }
    }

    /// The Keyboard shortcuts window (F1): the common ones, then the active tab's.
    fn shortcuts_ui(&mut self, ctx: &egui::Context) {
        if !self.show_shortcuts {
            return;
        }
        let own: &[(&str, &str)] = match self.tabs.get(self.active) {
            Some(tab) => tab.shortcuts(),
            None => &[],
        };
        egui::Window::new("Keyboard shortcuts")
            .open(&mut self.show_shortcuts)
            .collapsible(false)
            .show(ctx, |ui| {
                egui::Grid::new("shortcuts").num_columns(2).show(ui, |ui| {
                    let common = [
                        ("Ctrl+O", "Open a report or timeline"),
                        ("Ctrl+W", "Close the current tab"),
                        ("F1", "Show this list"),
                    ];
                    for &(keys, what) in common.iter().chain(own) {
                        ui.monospace(keys);
                        ui.label(what);
                        ui.end_row();
                    }
                });
            });
    }
}

/// Darkens the window with "Drop to open" while files are dragged over it.
fn drop_overlay(ctx: &egui::Context) {
    let hovering = ctx.input(|i| !i.raw.hovered_files.is_empty());
    if hovering {
        let screen = ctx.content_rect();
        let painter = ctx.layer_painter(egui::LayerId::new(
            egui::Order::Foreground,
            egui::Id::unique("drop-overlay"),
        ));
        painter.rect_filled(screen, 0.0, egui::Color32::from_black_alpha(160));
        painter.text(
            screen.center(),
            egui::Align2::CENTER_CENTER,
            "Drop to open",
            egui::FontId::proportional(28.0),
            egui::Color32::WHITE,
        );
    }
}

impl eframe::App for SightlineApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.frame_ui(ui);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, SETTINGS_KEY, &self.settings_to_save());
    }
}

/// Why the GUI could not run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// eframe could not open the window or run its event loop. (eframe's error is neither
    /// `Send` nor `Sync`: a caller using `anyhow` formats it.)
    #[error("cannot start the window: {0}")]
    Window(#[source] eframe::Error),
}

/// Runs the GUI with `options.files` opened.
pub fn run(start: StartOptions) -> Result<(), RunError> {
    let options = eframe::NativeOptions {
        renderer: eframe::Renderer::Glow,
        viewport: egui::ViewportBuilder::default()
            .with_title("Sightline")
            .with_app_id("sightline")
            .with_inner_size([1400.0, 900.0])
            .with_drag_and_drop(true),
        persist_window: true,
        ..Default::default()
    };
    eframe::run_native(
        "sightline",
        options,
        Box::new(move |cc| Ok(Box::new(SightlineApp::from_creation_context(cc, start)))),
    )
    .map_err(RunError::Window)
}
