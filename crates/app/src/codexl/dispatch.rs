//! The joins of one CodeXL session, as widgets any document can use: the bar that offers a
//! session's other files ([`offer_session_ui`], at the top of the counters and occupancy
//! documents and the `.atp` timeline), and the counters and occupancy of one kernel dispatch
//! selected on the timeline ([`dispatch_details_ui`]).

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use eframe::egui;

use crate::widgets::pairs::pairs_grid;

use super::occupancy_charts::{KernelCharts, curve_ui};
use super::table::value_text;
use sightline_model::codexl::{
    CodexlError, CounterFile, OccupancyFile, Resource, SessionData, SessionFiles,
};
use sightline_model::problem::Problem;

/// A file's name for display.
fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The session bar: "Same session: S.atp, S.occupancy [Open]" for the files of `files` other
/// than `path` (the file this document shows). Clicking Open pushes those paths onto
/// `open_files` — pass `&mut services.open_files` and the shell opens each in a tab of its own
/// (or focuses the tab that already shows it). Draws nothing when the session has no other file.
pub fn offer_session_ui(
    ui: &mut egui::Ui,
    path: &Path,
    files: &SessionFiles,
    open_files: &mut Vec<PathBuf>,
) {
    let others = files.others(path);
    if others.is_empty() {
        return;
    }
    let names: Vec<String> = others.iter().map(|p| file_name(p)).collect();
    let full: Vec<String> = others.iter().map(|p| p.display().to_string()).collect();
    ui.horizontal(|ui| {
        ui.label(format!("Same session: {}", names.join(", ")))
            .on_hover_text(full.join("\n"));
        if ui
            .button("Open")
            .on_hover_text("Open the session's other files in tabs of their own")
            .clicked()
        {
            open_files.extend(others.iter().cloned());
        }
    });
}

/// Opens `path` (when there is one) with `open`; its warnings, or why it cannot be read, go to
/// `problems` as `FILE:LINE: message` text.
fn open_noting<F>(
    path: Option<&Path>,
    open: fn(&Path) -> Result<F, CodexlError>,
    warnings: fn(&F) -> &[Problem],
    problems: &mut Vec<String>,
) -> Option<F> {
    let path = path?;
    match open(path) {
        Ok(file) => {
            problems.extend(warnings(&file).iter().map(|w| w.plain_in(path).to_string()));
            Some(file)
        }
        Err(error) => {
            problems.push(error.to_string());
            None
        }
    }
}

/// Reads the counter and occupancy files of a session (what [`dispatch_details_ui`] joins), with
/// every problem as `FILE:LINE: message` text (read warnings, or a file that cannot be read: the
/// other one still loads). Reads whole files: call it on a loader thread, once per session.
pub fn load_session_data(files: &SessionFiles) -> (SessionData, Vec<String>) {
    let mut problems = Vec::new();
    let counters = open_noting(
        files.counters.as_deref(),
        CounterFile::open,
        CounterFile::warnings,
        &mut problems,
    );
    let occupancy = open_noting(
        files.occupancy.as_deref(),
        OccupancyFile::open,
        OccupancyFile::warnings,
        &mut problems,
    );
    (
        SessionData {
            counters,
            occupancy,
        },
        problems,
    )
}

/// A name → value grid that stays within the panel's width (long names and values wrap).
fn names_grid(ui: &mut egui::Ui, id: impl egui::AsIdSalt, pairs: &[(Cow<'_, str>, Cow<'_, str>)]) {
    let width = (ui.available_width() * 0.5).max(60.0);
    pairs_grid(ui, id, width, pairs, |ui, name| {
        ui.add(egui::Label::new(name).wrap());
    });
}

/// Key values of an occupancy row, as `(label, value)`.
fn occupancy_entries(row: &sightline_model::codexl::OccupancyRow) -> Vec<(&'static str, String)> {
    let n = |v: Option<u64>| v.map_or_else(|| "-".to_string(), |v| v.to_string());
    let of = |used: Option<u64>, max: Option<u64>| format!("{} of {}", n(used), n(max));
    vec![
        (
            "Kernel occupancy",
            row.occupancy_percent
                .map_or_else(|| "-".to_string(), |p| format!("{p:.2}%")),
        ),
        ("VGPRs", of(row.vgprs, row.max_vgprs)),
        ("SGPRs", of(row.sgprs, row.max_sgprs)),
        ("LDS bytes", of(row.lds, row.max_lds)),
        (
            "Work-group size",
            of(row.work_group_size, row.max_work_group_size),
        ),
        (
            "Waves limited by VGPR / SGPR / LDS / WG",
            format!(
                "{} / {} / {} / {}",
                n(row.vgpr_limited_waves),
                n(row.sgpr_limited_waves),
                n(row.lds_limited_waves),
                n(row.wg_limited_waves)
            ),
        ),
        ("Max waves per CU", n(row.max_waves_per_cu)),
        ("Device", row.device_name.clone()),
    ]
}

/// The counters and occupancy of one kernel dispatch selected on a session's timeline: the
/// counter row made by call `call_index` (0-based within its thread) of thread `thread_id`
/// (joined on the file's `ThreadID`/`CallIndex` columns) as a counter → value grid, and the
/// occupancy row of the `nth` (0-based) dispatch of `kernel` by that thread, with its key values
/// and a small occupancy-vs-VGPRs chart with the kernel's point marked. When the session has no
/// such file or the file no such row, it says so plainly. For the timeline's details panel
/// (`src/app/timeline/details.rs`); `data` is the session's files as `SessionData` loaded once.
pub fn dispatch_details_ui(
    ui: &mut egui::Ui,
    data: &SessionData,
    thread_id: u64,
    call_index: u64,
    kernel: &str,
    nth: usize,
) {
    ui.strong("Performance counters");
    match (
        &data.counters,
        data.counters_for_call(thread_id, call_index),
    ) {
        (None, _) => {
            ui.weak("This session has no counter file (.csv).");
        }
        (Some(_), None) => {
            ui.weak(format!(
                "The session's counter file has no row for thread {thread_id}, call {call_index}."
            ));
        }
        (Some(file), Some(row)) => {
            let method = file.table.column("Method");
            let mut pairs = vec![("Kernel".into(), row.kernel.to_string().into())];
            pairs.extend(
                file.table
                    .columns
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| Some(*i) != method)
                    .map(|(i, name)| {
                        let value = row
                            .values
                            .get(i)
                            .map_or("".into(), |v| value_text(&file.values, v));
                        (name.as_str().into(), value)
                    }),
            );
            names_grid(
                ui,
                ("codexl-dispatch-counters", thread_id, call_index),
                &pairs,
            );
            ui.weak(format!("line {} of the counter file", row.line));
        }
    }
    ui.separator();
    ui.strong("Occupancy");
    match (&data.occupancy, data.occupancy_for(thread_id, kernel, nth)) {
        (None, _) => {
            ui.weak("This session has no occupancy file (.occupancy).");
        }
        (Some(_), None) => {
            ui.weak(format!(
                "The session's occupancy file has no row for dispatch {} of {kernel} on thread \
                 {thread_id}.",
                nth + 1
            ));
        }
        (Some(file), Some(row)) => {
            let pairs: Vec<(Cow<'_, str>, Cow<'_, str>)> = occupancy_entries(row)
                .into_iter()
                .map(|(label, value)| (label.into(), value.into()))
                .collect();
            names_grid(
                ui,
                ("codexl-dispatch-occupancy", thread_id, call_index),
                &pairs,
            );
            let index = file
                .rows
                .iter()
                .position(|r| std::ptr::eq(r, row))
                .unwrap_or(0);
            let charts = KernelCharts::new(index, row);
            match charts.curve(Resource::Vgprs) {
                Some(view) => {
                    let size = egui::vec2(ui.available_width().max(200.0), 170.0);
                    curve_ui(ui, view, size);
                }
                None => {
                    ui.weak("The row lacks a limit the occupancy charts need.");
                }
            }
            ui.weak(format!("line {} of the occupancy file", row.line));
        }
    }
}
