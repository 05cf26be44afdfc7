//! The Session page: device attributes, versions, command line, process.

use eframe::egui;

use sightline_model::ncu::{MetricValue, Report};
use sightline_model::proto::nv::profiler::messages::DeviceAttributes;

/// Draws the session information of `report`.
pub fn session_ui(ui: &mut egui::Ui, report: &Report) {
    let session = report.session();
    egui::ScrollArea::vertical()
        .auto_shrink([false, false])
        .show(ui, |ui| {
            egui::CollapsingHeader::new("Session")
                .default_open(true)
                .show(ui, |ui| session_grid(ui, report));
            for device in &session.device_attributes {
                let title = format!(
                    "Device {} {}",
                    device.id,
                    device.name.as_deref().unwrap_or("")
                );
                egui::CollapsingHeader::new(title)
                    .default_open(true)
                    .show(ui, |ui| device_grid(ui, report, device));
            }
        });
}

/// The session's grid: the file, the results, the process, the command line, the host and
/// target systems, the tools' versions and each process profiled (once).
fn session_grid(ui: &mut egui::Ui, report: &Report) {
    let session = report.session();
    egui::Grid::new("session-grid")
        .striped(true)
        .num_columns(2)
        .show(ui, |ui| {
            let mut row = |label: &str, value: String| {
                ui.label(label);
                ui.add(egui::Label::new(value).wrap());
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
            for (which, system) in [
                ("Host", &session.host_system_info),
                ("Target", &session.target_system_info),
            ] {
                let Some(system) = system else { continue };
                if let Some(os) = &system.os_name {
                    row(&format!("{which} operating system"), os.clone());
                }
                if let Some(name) = &system.computer_name {
                    row(&format!("{which} computer"), name.clone());
                }
            }
            for version in &session.version_info {
                row(&version.provider, version.version.clone());
            }
            // Every block repeats its process: list each process once.
            let mut seen = std::collections::HashSet::new();
            for process in report.processes() {
                if !seen.insert((process.process_id, process.process_name.clone())) {
                    continue;
                }
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
}

/// A device's grid: its compute capability and SM count first, then every attribute.
fn device_grid(ui: &mut egui::Ui, report: &Report, device: &DeviceAttributes) {
    egui::Grid::new(("device-grid", device.id))
        .striped(true)
        .num_columns(2)
        .show(ui, |ui| {
            let number = |name: &str| {
                report
                    .device_attribute(device.id, name)
                    .and_then(|v| v.as_f64())
            };
            if let (Some(major), Some(minor)) = (
                number("compute_capability_major"),
                number("compute_capability_minor"),
            ) {
                ui.strong("Compute capability");
                ui.strong(format!("{major}.{minor}"));
                ui.end_row();
            }
            if let Some(sms) = number("multiprocessor_count") {
                ui.strong("Multiprocessors (SMs)");
                ui.strong(format!("{sms}"));
                ui.end_row();
            }
            for attribute in &device.attributes {
                ui.label(
                    attribute
                        .name
                        .strip_prefix(sightline_model::ncu::DEVICE_ATTRIBUTE_PREFIX)
                        .unwrap_or(&attribute.name),
                );
                ui.label(MetricValue::from_message(&attribute.value).plain_text());
                ui.end_row();
            }
        });
}
