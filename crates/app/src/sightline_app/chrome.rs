//! The window's chrome: the menu bar, the tab strip, the status bar, the welcome page and the
//! Open Path prompt.

use super::*;

impl SightlineApp {
    pub(super) fn menu_ui(&mut self, ui: &mut egui::Ui) {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                if ui.button("Open…  (Ctrl+O)").clicked() {
                    self.open_dialog(ui.ctx());
                    ui.close();
                }
                if ui
                    .button("Open Folder…")
                    .on_hover_text(
                        "A folder of Nsight Systems exports (ranks, runs: recipes and Compare) \
                         or of GPGPU-Sim logs (Gainsight)",
                    )
                    .clicked()
                {
                    self.open_folder_dialog(ui.ctx());
                    ui.close();
                }
                if ui.button("Open Path…").clicked() {
                    self.path_prompt = Some((String::new(), None));
                    ui.close();
                }
                ui.menu_button("Open Recent", |ui| {
                    if self.settings.recent.is_empty() {
                        ui.label("No recent files");
                    }
                    if self.recent_files_ui(ui, |ui, path| ui.button(path)) {
                        ui.close();
                    }
                });
                // The active document's own items (a timeline's Add NVTXT…).
                if let Some(tab) = self.tabs.get_mut(self.active) {
                    tab.file_menu_ui(ui);
                }
                for state in self.states.iter_mut() {
                    state.file_menu_ui(ui);
                }
                if ui
                    .add_enabled(!self.tabs.is_empty(), egui::Button::new("Close  (Ctrl+W)"))
                    .clicked()
                {
                    self.close(self.active);
                    ui.close();
                }
                ui.separator();
                if ui.button("Quit").clicked() {
                    ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
                }
            });
            ui.menu_button("View", |ui| {
                for state in self.states.iter_mut() {
                    state.view_menu_ui(ui);
                }
                if ui.checkbox(&mut self.settings.dark, "Dark theme").changed() {
                    ui.close();
                }
            });
            ui.menu_button("Help", |ui| {
                if ui.button("Keyboard shortcuts  (F1)").clicked() {
                    self.show_shortcuts = true;
                    ui.close();
                }
            });
        });
    }

    pub(super) fn tabs_ui(&mut self, ui: &mut egui::Ui) {
        let mut close = None;
        ui.horizontal_wrapped(|ui| {
            for (index, tab) in self.tabs.iter().enumerate() {
                let title = if tab.loading() {
                    format!("{} …", tab.title())
                } else {
                    tab.title()
                };
                if ui
                    .selectable_label(index == self.active, title)
                    .on_hover_text(tab.path().display().to_string())
                    .clicked()
                {
                    self.active = index;
                }
                if ui
                    .small_button("×")
                    .on_hover_text(format!("Close {}", tab.title()))
                    .clicked()
                {
                    close = Some(index);
                }
                ui.separator();
            }
        });
        if let Some(index) = close {
            self.close(index);
        }
    }

    pub(super) fn status_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            if let Some(tab) = self.tabs.get_mut(self.active)
                && let Some((fraction, stage)) = tab.progress()
            {
                ui.add(
                    egui::ProgressBar::new(fraction)
                        .desired_width(200.0)
                        .text(stage),
                );
                if ui
                    .button("Cancel")
                    .on_hover_text("Stop loading this file")
                    .clicked()
                    && let Some(status) = tab.cancel()
                {
                    let path = tab.path().to_path_buf();
                    self.say_for_tab(&path, status, true);
                }
            }
            if let Some((message, error)) = self.status() {
                if error {
                    ui.colored_label(ui.visuals().error_fg_color, message);
                } else {
                    ui.label(message);
                }
            }
        });
    }

    pub(super) fn welcome_ui(&mut self, ui: &mut egui::Ui) {
        ui.vertical_centered(|ui| {
            ui.add_space(ui.available_height() * 0.25);
            ui.heading("Sightline");
            ui.label(
                "Open an Nsight Compute report (.ncu-rep, .ncu-repz) or an Nsight Systems \
                 export (.sqlite, .nsys-rep, .qdrep): File > Open, Ctrl+O, or drop a file here.",
            );
            if ui.button("Open…").clicked() {
                self.open_dialog(ui.ctx());
            }
            if !self.settings.recent.is_empty() {
                ui.add_space(12.0);
                ui.strong("Recent");
                self.recent_files_ui(ui, |ui, path| ui.link(path));
            }
        });
    }

    /// The recent files, each drawn by `entry` (a button, a link); opens the one clicked and
    /// returns whether it did.
    fn recent_files_ui(
        &mut self,
        ui: &mut egui::Ui,
        entry: impl Fn(&mut egui::Ui, String) -> egui::Response,
    ) -> bool {
        let mut chosen = None;
        for path in &self.settings.recent {
            if entry(ui, path.display().to_string()).clicked() {
                chosen = Some(path.clone());
            }
        }
        let Some(path) = chosen else {
            return false;
        };
        self.open(&path, ui.ctx());
        true
    }

    pub(super) fn path_prompt_ui(&mut self, ctx: &egui::Context) {
        let Some((text, note)) = &mut self.path_prompt else {
            return;
        };
        let mut open = true;
        let mut chosen = None;
        egui::Window::new("Open Path")
            .open(&mut open)
            .collapsible(false)
            .resizable(false)
            .show(ctx, |ui| {
                if let Some(note) = note {
                    ui.label(note.as_str());
                }
                ui.horizontal(|ui| {
                    ui.label("Report:");
                    let edit = ui.add(
                        egui::TextEdit::singleline(text)
                            .hint_text("/path/to/report.ncu-rep")
                            .desired_width(420.0),
                    );
                    let entered =
                        edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                    if (ui.button("Open").clicked() || entered) && !text.trim().is_empty() {
                        chosen = Some(PathBuf::from(text.trim()));
                    }
                });
            });
        if let Some(path) = chosen {
            self.path_prompt = None;
            self.open(&path, ctx);
        } else if !open {
            self.path_prompt = None;
        }
    }
}
