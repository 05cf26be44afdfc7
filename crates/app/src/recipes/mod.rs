//! What works on many runs at once, shared by the timeline's summary panel and the folder of
//! rank exports ([`crate::runs`]): [`compare`] (this run against another) and the Recipes panel.
//!
//! The Recipes panel: NVIDIA's multi-report recipes (what `sightline recipe` computes) over a
//! timeline's exports or a folder of rank exports — the recipes with their options, a run on
//! every core in the background with progress and Cancel, the recipe's tables in the shared
//! sortable table ([`tables`]) — a heat map's also as the heat map ([`heatmap`]) — and Save as
//! CSV and Parquet (the files `sightline recipe` writes, its `.nsys-analysis` file included).

pub mod beside;
pub mod compare;
pub mod heatmap;
pub mod tables;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

use eframe::egui;

use sightline_model::core::Progress;
use sightline_model::timeline::recipe::nsys_analysis::{self, Mode};
use sightline_model::timeline::recipe::{
    self, Kind, RECIPES, Recipe, RecipeOptions, RecipeOutput, heatmap_plot,
};

use crate::document::Wake;
use crate::job::{Job, Polled, poll_job};
use crate::widgets::dialog::{Dialog, take_answer};
use crate::widgets::table::SortableTable;

/// The name of a recipe run's thread.
pub const THREAD: &str = "sightline-recipe";

/// The panel's state: the recipe picked, its options as typed, the run and its result.
pub struct RecipesPanel {
    /// The recipe picked.
    pub recipe: &'static Recipe,
    /// Its options as typed, one per option it takes, in its order.
    pub texts: Vec<String>,
    job: Option<Job<RecipeOutput, String>>,
    progress: Option<(f32, String)>,
    /// The last run's result.
    pub output: Option<Arc<RecipeOutput>>,
    /// When the running run started.
    run_started: SystemTime,
    /// When the last run's (`output`'s) started.
    output_started: SystemTime,
    /// The table shown (an index into the output's tables).
    pub shown: usize,
    /// The shown table's sort and selection.
    pub table: SortableTable,
    /// Whether a heat-map recipe's table is shown as its table rather than its heat map.
    pub as_table: bool,
    /// Why the last run or save failed.
    pub error: Option<String>,
    /// What the last save wrote.
    pub saved: Option<String>,
    save_dialog: Option<Dialog<Option<PathBuf>>>,
    save_job: Option<Job<Vec<PathBuf>, String>>,
    save_progress: Option<(f32, String)>,
}

impl Default for RecipesPanel {
    fn default() -> Self {
        let recipe = recipe::find("cuda_gpu_kern_sum").unwrap_or(&RECIPES[0]);
        RecipesPanel {
            recipe,
            texts: vec![String::new(); recipe.options.len()],
            job: None,
            progress: None,
            output: None,
            run_started: SystemTime::UNIX_EPOCH,
            output_started: SystemTime::UNIX_EPOCH,
            shown: 0,
            table: SortableTable::default(),
            as_table: false,
            error: None,
            saved: None,
            save_dialog: None,
            save_job: None,
            save_progress: None,
        }
    }
}

impl std::fmt::Debug for RecipesPanel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecipesPanel")
            .field("recipe", &self.recipe.name)
            .field("texts", &self.texts)
            .field("busy", &self.busy())
            .finish_non_exhaustive()
    }
}

impl RecipesPanel {
    /// Whether a recipe is running or its tables are being saved.
    pub fn busy(&self) -> bool {
        self.job.is_some() || self.save_job.is_some()
    }

    /// Picks `recipe` (its options emptied when it is another).
    pub fn pick(&mut self, recipe: &'static Recipe) {
        if recipe.name != self.recipe.name {
            self.recipe = recipe;
            self.texts = vec![String::new(); recipe.options.len()];
        }
    }

    /// The options as typed, parsed; the error names the option.
    pub fn options(&self) -> Result<RecipeOptions, String> {
        let mut options = RecipeOptions::default();
        for (option, text) in self.recipe.options.iter().zip(&self.texts) {
            options.set_text(*option, text)?;
        }
        Ok(options)
    }

    /// Runs the recipe over `inputs` (exports) on every core, on a background job; `wake`
    /// requests a repaint.
    pub fn run(&mut self, inputs: Vec<PathBuf>, wake: Wake) {
        if self.job.is_some() {
            return;
        }
        let options = match self.options() {
            Ok(options) => options,
            Err(e) => {
                self.error = Some(e);
                return;
            }
        };
        self.error = None;
        self.saved = None;
        let recipe = self.recipe;
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        self.run_started = SystemTime::now();
        self.job = Some(Job::start_named(
            THREAD,
            move || wake(),
            |e| format!("cannot start the recipe thread: {e}"),
            move |ctx| {
                recipe::run(recipe, &inputs, &options, threads, Progress::new(ctx))
                    .map_err(|e| format!("{}: {e}", recipe.name))
            },
        ));
    }

    /// Stops the run (and a save in progress).
    pub fn cancel(&mut self) {
        if let Some(job) = &self.job {
            job.cancel();
        }
        if let Some(job) = &self.save_job {
            job.cancel();
        }
    }

    /// Applies what the run and the save sent (call every frame).
    pub fn poll(&mut self) {
        match poll_job(&mut self.job, &mut self.progress) {
            Some(Polled::Done(output)) => self.finished(output),
            Some(Polled::Failed(message)) => self.error = Some(message),
            Some(Polled::Sent(never)) => match never {},
            None => {}
        }
        match poll_job(&mut self.save_job, &mut self.save_progress) {
            Some(Polled::Done(files)) => {
                let dir = files
                    .first()
                    .and_then(|f| f.parent())
                    .map(|d| d.display().to_string())
                    .unwrap_or_default();
                self.saved = Some(format!("Saved {} file(s) in {dir}", files.len()));
            }
            Some(Polled::Failed(message)) => self.error = Some(message),
            Some(Polled::Sent(never)) => match never {},
            None => {}
        }
    }

    /// A run's result: shown, its first table first; a run without readable files is an error.
    fn finished(&mut self, output: RecipeOutput) {
        if output.readable == 0 {
            self.error = Some(format!(
                "{}: none of the {} input files could be read",
                output.recipe.name,
                output.inputs.len()
            ));
        }
        self.output = Some(Arc::new(output));
        self.output_started = self.run_started;
        self.shown = 0;
        self.table = SortableTable::default();
    }

    /// Writes the tables into `dir` as `sightline recipe` does (CSV where the recipe writes
    /// CSV, and Parquet, then the `.nsys-analysis` file), on a background job.
    pub fn save_to(&mut self, dir: PathBuf, wake: Wake) {
        let Some(output) = self.output.clone() else {
            return;
        };
        if self.save_job.is_some() {
            return;
        }
        self.saved = None;
        let started = self.output_started;
        self.save_job = Some(Job::start_named(
            THREAD,
            move || wake(),
            |e| format!("cannot start the save thread: {e}"),
            move |_| {
                nsys_analysis::save(&output, &dir, false, Mode::Concurrent, started)
                    .map_err(|e| e.to_string())
            },
        ));
    }

    /// Draws the panel over `inputs` (what Run reads; none: Run is disabled).
    pub fn ui(&mut self, ui: &mut egui::Ui, inputs: &[PathBuf], wake: &Wake) {
        self.poll();
        if let Some(answer) = take_answer(&mut self.save_dialog)
            && let Some(dir) = answer.value
        {
            self.save_to(dir, wake.clone());
        }
        self.picker_ui(ui);
        self.options_ui(ui);
        self.run_row_ui(ui, inputs, wake);
        if let Some(e) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, e);
        }
        if let Some(output) = self.output.clone() {
            self.output_ui(ui, &output, wake);
        }
    }

    /// The recipe picker and what the recipe gives.
    fn picker_ui(&mut self, ui: &mut egui::Ui) {
        let mut picked = self.recipe;
        ui.horizontal(|ui| {
            let label = ui.label("Recipe:");
            egui::ComboBox::from_id_salt("recipe-pick")
                .selected_text(self.recipe.name)
                .height(400.0)
                .show_ui(ui, |ui| {
                    for r in RECIPES {
                        let chosen = picked.name == r.name;
                        if ui
                            .selectable_label(chosen, r.name)
                            .on_hover_text(r.about)
                            .clicked()
                        {
                            picked = r;
                        }
                    }
                })
                .response
                .labelled_by(label.id);
            ui.label(self.recipe.about);
        });
        self.pick(picked);
    }

    /// One field per option the recipe takes.
    fn options_ui(&mut self, ui: &mut egui::Ui) {
        if self.recipe.options.is_empty() {
            return;
        }
        ui.horizontal_wrapped(|ui| {
            for (option, text) in self.recipe.options.iter().zip(&mut self.texts) {
                if option.is_flag() {
                    let mut on = text == "true";
                    ui.checkbox(&mut on, format!("--{}", option.flag()))
                        .on_hover_text(option.about());
                    *text = if on { "true".into() } else { String::new() };
                    continue;
                }
                let label = ui.label(format!("--{}", option.flag()));
                ui.add(
                    egui::TextEdit::singleline(text)
                        .hint_text(option.value_name())
                        .desired_width(110.0),
                )
                .on_hover_text(option.about())
                .labelled_by(label.id);
            }
        });
    }

    /// Run (or the progress and Cancel), and what the last save did.
    fn run_row_ui(&mut self, ui: &mut egui::Ui, inputs: &[PathBuf], wake: &Wake) {
        ui.horizontal(|ui| {
            let files = match inputs.len() {
                1 => "1 file".to_owned(),
                n => format!("{n} files"),
            };
            if self.job.is_some() {
                let (fraction, stage) = self.progress.clone().unwrap_or((0.0, "starting".into()));
                ui.add(
                    egui::ProgressBar::new(fraction)
                        .desired_width(220.0)
                        .text(stage),
                );
                if ui
                    .button("Cancel")
                    .on_hover_text("Stop the recipe")
                    .clicked()
                {
                    self.cancel();
                }
            } else if ui
                .add_enabled(!inputs.is_empty(), egui::Button::new("Run"))
                .on_hover_text(format!("Run {} over {files}", self.recipe.name))
                .clicked()
            {
                self.run(inputs.to_vec(), wake.clone());
            }
            ui.label(format!("over {files}"));
            if let Some(saved) = &self.saved {
                ui.label(saved.as_str());
            }
        });
    }

    /// The output: warnings, the tables' tabs, Save, the table shown.
    fn output_ui(&mut self, ui: &mut egui::Ui, output: &RecipeOutput, wake: &Wake) {
        if !output.warnings.is_empty() {
            egui::CollapsingHeader::new(format!("{} warning(s)", output.warnings.len()))
                .id_salt("recipe-warnings")
                .show(ui, |ui| {
                    for w in &output.warnings {
                        ui.label(w.as_str());
                    }
                });
        }
        if output.tables.is_empty() {
            if output.readable > 0 {
                ui.label(format!(
                    "{}: no input holds data for the recipe",
                    output.recipe.name
                ));
            }
            return;
        }
        ui.horizontal(|ui| {
            ui.strong(output.recipe.name);
            for (i, table) in output.tables.iter().enumerate() {
                if ui.selectable_label(self.shown == i, table.stem).clicked() && self.shown != i {
                    self.shown = i;
                    self.table = SortableTable::default();
                }
            }
            ui.separator();
            let saving = self.save_job.is_some() || self.save_dialog.is_some();
            if ui
                .add_enabled(!saving, egui::Button::new("Save as CSV and Parquet…"))
                .on_hover_text("Write the tables into a folder, as `sightline recipe` writes them")
                .clicked()
            {
                self.save_dialog = Dialog::spawn("folder", wake_fn(wake), || {
                    rfd::FileDialog::new()
                        .set_title("Save the recipe's tables into a folder")
                        .pick_folder()
                })
                .map_err(|e| self.error = Some(e))
                .ok();
            }
            if self.save_job.is_some() {
                ui.spinner();
            }
        });
        let Some(table) = output.tables.get(self.shown) else {
            return;
        };
        if let Kind::HeatMap(map) = &output.recipe.kind {
            ui.horizontal(|ui| {
                ui.selectable_value(&mut self.as_table, false, "Heat map");
                ui.selectable_value(&mut self.as_table, true, "Table");
            });
            if !self.as_table {
                heatmap::heatmap_ui(ui, &heatmap_plot::grid(table, map));
                return;
            }
        }
        tables::table_ui(ui, table, &mut self.table);
    }
}

/// `wake` as a dialog's answer callback.
fn wake_fn(wake: &Wake) -> impl Fn() + Send + 'static {
    let wake = wake.clone();
    move || wake()
}
