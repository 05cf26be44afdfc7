//! The "Analysis summary" tab of the summary panel: an Nsight Systems export's Analysis
//! Summary (`nsys::summary_info`) as its Analysis Summary page gives it — the capture (start,
//! analysed span, settings), each launched process's command line, the CPU, the GPUs, NICs,
//! CUDA contexts and streams, the CUDA devices each process saw, the environment (searchable
//! with the shared filter field) with the target system's properties, the processes' output,
//! the files the analysis kept and the export's metadata. Key/value
//! sections are the shared [`pairs_grid`]; a merged timeline picks one file's.

use eframe::egui;
use sightline_model::timeline::{SessionInfo, Timeline};

use super::view::format_duration;
use crate::widgets::filter::filter_field;
use crate::widgets::pairs::pairs_grid;

/// The widest a value column gets.
const VALUE_WIDTH: f32 = 720.0;

/// The tab's state: the environment filter and the file shown of a merged timeline.
#[derive(Debug, Default)]
pub struct AnalysisSummaryPanel {
    /// The environment filter (names and values containing it, ignoring case).
    pub filter: String,
    /// The file shown (an index into `Timeline::parts`) when several are merged.
    pub part: usize,
}

/// Whether `timeline` (or one of its files) has an Analysis Summary to show.
pub fn has_summary(timeline: &Timeline) -> bool {
    let any = |s: &SessionInfo| !s.summary.is_empty() || !s.gpus.is_empty();
    any(&timeline.session) || timeline.parts().iter().any(|p| any(&p.session))
}

impl AnalysisSummaryPanel {
    /// Draws the tab.
    pub fn ui(&mut self, ui: &mut egui::Ui, timeline: &Timeline) {
        let parts = timeline.parts();
        let session = if parts.is_empty() {
            &timeline.session
        } else {
            self.part = self.part.min(parts.len() - 1);
            egui::ComboBox::from_label("File")
                .selected_text(&parts[self.part].label)
                .show_ui(ui, |ui| {
                    for (k, p) in parts.iter().enumerate() {
                        ui.selectable_value(&mut self.part, k, &p.label)
                            .on_hover_text(p.source.display().to_string());
                    }
                });
            &parts[self.part].session
        };
        egui::ScrollArea::vertical()
            .id_salt("analysis-summary")
            .auto_shrink([false, false])
            .show(ui, |ui| self.sections_ui(ui, session));
    }

    /// Every section, each collapsible.
    fn sections_ui(&mut self, ui: &mut egui::Ui, session: &SessionInfo) {
        let s = &session.summary;
        section(ui, "Capture", true, |ui| capture_ui(ui, session));
        for launch in &s.launches {
            let title = format!("Process {}: {}", launch.index, launch.command_line());
            section(ui, &title, true, |ui| {
                let mut rows = vec![("Command line".to_owned(), launch.command_line())];
                if let Some(dir) = &launch.working_dir {
                    rows.push(("Working folder".into(), dir.clone()));
                }
                if let Some(pid) = &launch.pid {
                    rows.push(("PID".into(), pid.clone()));
                }
                rows.extend(launch.settings.iter().cloned());
                pairs_grid(ui, ("launch", launch.index), VALUE_WIDTH, &rows, mono);
            });
        }
        section(ui, "CPU", true, |ui| cpu_ui(ui, session));
        section(ui, &format!("GPUs ({})", session.gpus.len()), true, |ui| {
            gpus_ui(ui, session);
        });
        if !s.nics.is_empty() {
            section(ui, &format!("NICs ({})", s.nics.len()), false, |ui| {
                nics_ui(ui, session)
            });
        }
        if !s.streams.is_empty() || !s.contexts.is_empty() {
            let title = format!("CUDA contexts and streams ({} streams)", s.streams.len());
            section(ui, &title, false, |ui| streams_ui(ui, session));
        }
        let vars = s.environment.variables.len() + s.environment.system.len();
        section(ui, &format!("Environment ({vars})"), true, |ui| {
            self.environment_ui(ui, session);
        });
        if !s.outputs.is_empty() {
            section(ui, "Process output", false, |ui| {
                for (i, o) in s.outputs.iter().enumerate() {
                    ui.monospace(&o.file);
                    let mut text = o.content.as_str();
                    egui::ScrollArea::vertical()
                        .id_salt(("output", i))
                        .max_height(160.0)
                        .show(ui, |ui| {
                            ui.add(egui::TextEdit::multiline(&mut text).code_editor())
                        });
                }
            });
        }
        if !s.files.is_empty() {
            let title = format!("Analysis files ({})", s.files.len());
            section(ui, &title, false, |ui| files_ui(ui, session));
        }
        let title = format!(
            "Export ({})",
            s.export_table.as_deref().unwrap_or("no metadata")
        );
        section(ui, &title, false, |ui| {
            pairs_grid(ui, "export-meta", VALUE_WIDTH, &s.export, mono);
            if !s.views.is_empty() {
                ui.label(format!(
                    "Views not read (a tool's own): {}",
                    s.views.join(", ")
                ));
            }
        });
    }

    /// The environment: the filter, then the variables by where they were recorded, then
    /// the target system's properties — each row whose name or value holds the filter text.
    fn environment_ui(&mut self, ui: &mut egui::Ui, session: &SessionInfo) {
        let env = &session.summary.environment;
        ui.horizontal(|ui| {
            filter_field(ui, "Filter", &mut self.filter, "name or value", 260.0);
        });
        let needle = self.filter.to_lowercase();
        let keep = |name: &str, value: &str| {
            needle.is_empty()
                || name.to_lowercase().contains(&needle)
                || value.to_lowercase().contains(&needle)
        };
        let mut sources: Vec<_> = env.variables.iter().map(|v| v.source).collect();
        sources.sort();
        sources.dedup();
        for source in sources {
            let rows: Vec<(&str, &str)> = env
                .variables
                .iter()
                .filter(|v| v.source == source && keep(&v.name, &v.value))
                .map(|v| (v.name.as_str(), v.value.as_str()))
                .collect();
            ui.strong(format!(
                "Variables of the {} ({})",
                source.label(),
                rows.len()
            ));
            pairs_grid(ui, ("env", source), VALUE_WIDTH, &rows, mono);
        }
        let rows: Vec<(&str, &str)> = env
            .system
            .iter()
            .filter(|p| keep(&p.name, &p.value))
            .map(|p| (p.name.as_str(), p.value.as_str()))
            .collect();
        ui.strong(format!("Target system properties ({})", rows.len()));
        pairs_grid(ui, "system-props", VALUE_WIDTH, &rows, mono);
    }
}

/// A collapsible section.
fn section(ui: &mut egui::Ui, title: &str, open: bool, body: impl FnOnce(&mut egui::Ui)) {
    egui::CollapsingHeader::new(title)
        .default_open(open)
        .show(ui, body);
}

/// A key in monospace.
fn mono(ui: &mut egui::Ui, key: &str) {
    ui.monospace(key);
}

/// An optional number as text ("" when absent).
fn num(v: Option<i64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

/// When the session started, the analysed span, the versions and the capture settings.
fn capture_ui(ui: &mut egui::Ui, session: &SessionInfo) {
    let s = &session.summary;
    let mut rows: Vec<(String, String)> = Vec::new();
    if let Some(utc) = &s.start_time.0 {
        rows.push(("Started (UTC)".into(), utc.clone()));
    }
    if let Some(local) = &s.start_time.1 {
        rows.push(("Started (target's local time)".into(), local.clone()));
    }
    for a in &s.analysis {
        if let Some(d) = a.duration {
            let span = match (a.start, a.stop) {
                (Some(t0), Some(t1)) => format!(" (from {t0} to {t1} ns)"),
                _ => String::new(),
            };
            rows.push((
                "Analysed span".into(),
                format!("{}{span}", format_duration(d as f64)),
            ));
        }
    }
    if let Some(v) = &session.product_version {
        rows.push(("Nsight Systems".into(), v.clone()));
    }
    rows.extend(s.capture.iter().cloned());
    if rows.is_empty() {
        ui.weak("The export does not say how it was captured.");
    }
    pairs_grid(ui, "capture", VALUE_WIDTH, &rows, mono);
}

/// The CPU.
fn cpu_ui(ui: &mut egui::Ui, session: &SessionInfo) {
    let cpu = &session.summary.cpu;
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut push = |k: &str, v: Option<String>| {
        if let Some(v) = v {
            rows.push((k.to_owned(), v));
        }
    };
    push("Description", cpu.description.clone());
    push("Architecture", cpu.architecture.clone());
    push("Logical cores", cpu.cores.map(|n| n.to_string()));
    push("Speed", cpu.speed_mhz.map(|n| format!("{n:.0} MHz")));
    let sockets = cpu.sockets();
    push(
        "Sockets",
        (!sockets.is_empty()).then(|| sockets.len().to_string()),
    );
    let fastest = cpu.logical.iter().filter_map(|c| c.max_freq_hz).max();
    push(
        "Highest frequency",
        fastest.map(|hz| format!("{:.2} GHz", hz as f64 / 1e9)),
    );
    if rows.is_empty() {
        ui.weak("The export does not describe the CPU.");
    }
    pairs_grid(ui, "cpu", VALUE_WIDTH, &rows, mono);
}

/// The GPUs, each with its properties, then the CUDA devices each process saw.
fn gpus_ui(ui: &mut egui::Ui, session: &SessionInfo) {
    for g in &session.gpus {
        egui::CollapsingHeader::new(format!("GPU {}: {}", g.id, g.name))
            .id_salt(("gpu", g.id))
            .show(ui, |ui| {
                pairs_grid(ui, ("gpu-props", g.id), VALUE_WIDTH, &g.properties, mono);
            });
    }
    let devices = &session.summary.cuda_devices;
    if devices.is_empty() {
        return;
    }
    ui.strong(format!("CUDA devices ({})", devices.len()));
    egui::Grid::new("cuda-devices")
        .striped(true)
        .show(ui, |ui| {
            for h in ["Process", "CUDA device", "GPU", "SMs", "UUID"] {
                ui.strong(h);
            }
            ui.end_row();
            for d in devices {
                ui.label(num(d.pid));
                ui.label(num(d.cuda_id));
                let gpu = session
                    .gpus
                    .iter()
                    .find(|g| Some(i64::from(g.id)) == d.gpu_id);
                ui.label(match gpu {
                    Some(g) => format!("{}: {}", g.id, g.name),
                    None => num(d.gpu_id),
                });
                ui.label(num(d.multiprocessors));
                ui.monospace(d.uuid.as_deref().unwrap_or(""));
                ui.end_row();
            }
        });
}

/// The files the analysis kept (the processes' captured output), each with its text.
fn files_ui(ui: &mut egui::Ui, session: &SessionInfo) {
    for (i, f) in session.summary.files.iter().enumerate() {
        ui.horizontal(|ui| {
            ui.monospace(&f.file);
            ui.weak(format!("{} bytes", f.content.len()));
        });
        if f.content.is_empty() {
            continue;
        }
        let mut text = f.content.as_str();
        egui::ScrollArea::vertical()
            .id_salt(("analysis-file", i))
            .max_height(160.0)
            .show(ui, |ui| {
                ui.add(egui::TextEdit::multiline(&mut text).code_editor())
            });
    }
}

/// The NICs as a grid.
fn nics_ui(ui: &mut egui::Ui, session: &SessionInfo) {
    egui::Grid::new("nics").striped(true).show(ui, |ui| {
        for h in [
            "Id",
            "Name",
            "Device",
            "Vendor",
            "Link layer",
            "GUID",
            "State",
        ] {
            ui.strong(h);
        }
        ui.end_row();
        for n in &session.summary.nics {
            ui.label(num(n.id));
            ui.monospace(&n.name);
            ui.label(&n.device);
            ui.label(&n.vendor);
            ui.label(&n.link_layer);
            ui.monospace(
                n.guid
                    .map(|g| format!("{:#018x}", g as u64))
                    .unwrap_or_default(),
            );
            ui.label(&n.state);
            ui.end_row();
        }
    });
}

/// The CUDA contexts, then the streams, as grids.
fn streams_ui(ui: &mut egui::Ui, session: &SessionInfo) {
    let s = &session.summary;
    if !s.contexts.is_empty() {
        ui.strong("Contexts");
        egui::Grid::new("contexts").striped(true).show(ui, |ui| {
            for h in [
                "Process",
                "Context",
                "Device",
                "Null stream",
                "Green (parent)",
            ] {
                ui.strong(h);
            }
            ui.end_row();
            for c in &s.contexts {
                for v in [c.process_id, c.context_id, c.device_id, c.null_stream_id] {
                    ui.label(num(v));
                }
                ui.label(if c.green {
                    format!("yes ({})", num(c.parent_context_id))
                } else {
                    "no".to_owned()
                });
                ui.end_row();
            }
        });
    }
    ui.strong("Streams");
    egui::Grid::new("streams").striped(true).show(ui, |ui| {
        for h in [
            "Process",
            "Context",
            "Stream",
            "Priority",
            "Type",
            "Name (NVTX)",
        ] {
            ui.strong(h);
        }
        ui.end_row();
        for st in &s.streams {
            for v in [st.process_id, st.context_id, st.stream_id, st.priority] {
                ui.label(num(v));
            }
            ui.label(&st.kind);
            ui.label(st.name.as_deref().unwrap_or(""));
            ui.end_row();
        }
    });
}
