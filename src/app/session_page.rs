//! The Session page: device attributes, versions, command line, process.

use eframe::egui;

use crate::ncu::{MetricValue, Report};

fn text(value: &MetricValue) -> String {
    match value {
        MetricValue::None => String::new(),
        MetricValue::String(s) => s.clone(),
        MetricValue::Float(v) => v.to_string(),
        MetricValue::Double(v) => v.to_string(),
        MetricValue::Uint32(v) => v.to_string(),
        MetricValue::Uint64(v) => v.to_string(),
    }
}

/// Draws the session information of `report`.
pub fn session_ui(ui: &mut egui::Ui, report: &Report) {
    let session = report.session();
    egui::ScrollArea::vertical()
        .auto_shrink([false, false])
        .show(ui, |ui| {
            egui::CollapsingHeader::new("Session")
                .default_open(true)
                .show(ui, |ui| {
                    egui::Grid::new("session-grid")
                        .striped(true)
                        .num_columns(2)
                        .show(ui, |ui| {
                            let mut row = |label: &str, value: String| {
                                ui.label(label);
                                ui.label(value);
                                ui.end_row();
                            };
                            row("File", report.path().display().to_string());
                            row("Results", report.num_actions().to_string());
                            if let Some(pid) = session.process_id {
                                row("Process ID", pid.to_string());
                            }
                            if let Some(cmd) = &session.profiler_cmdline {
                                row("Profiler command line", cmd.clone());
                            }
                            if let Some(exe) = &session.executable_settings {
                                row("Executable", exe.executable_path.clone());
                                if let Some(args) = &exe.cmdline_agruments {
                                    row("Arguments", args.clone());
                                }
                            }
                            for host in [&session.host_system_info, &session.target_system_info]
                                .into_iter()
                                .flatten()
                            {
                                if let Some(os) = &host.os_name {
                                    row("Operating system", os.clone());
                                }
                                if let Some(name) = &host.computer_name {
                                    row("Computer", name.clone());
                                }
                            }
                            for version in &session.version_info {
                                row(&version.provider, version.version.clone());
                            }
                            for process in report.processes() {
                                row(
                                    "Process",
                                    format!(
                                        "{} {}",
                                        process.process_id,
                                        process.process_name.as_deref().unwrap_or("")
                                    ),
                                );
                            }
                        });
                });
            for device in &session.device_attributes {
                let title = format!(
                    "Device {} {}",
                    device.id,
                    device.name.as_deref().unwrap_or("")
                );
                egui::CollapsingHeader::new(title)
                    .default_open(true)
                    .show(ui, |ui| {
                        egui::Grid::new(("device-grid", device.id))
                            .striped(true)
                            .num_columns(2)
                            .show(ui, |ui| {
                                for attribute in &device.attributes {
                                    ui.label(
                                        attribute
                                            .name
                                            .strip_prefix(crate::ncu::DEVICE_ATTRIBUTE_PREFIX)
                                            .unwrap_or(&attribute.name),
                                    );
                                    ui.label(text(&MetricValue::from_message(&attribute.value)));
                                    ui.end_row();
                                }
                            });
                    });
            }
        });
}
