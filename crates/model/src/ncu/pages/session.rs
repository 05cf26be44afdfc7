//! The session page (`ncu --import R --page session`): the launch settings, the session's
//! host and target, the processes and the devices' main attributes.

use super::Table;
use crate::ncu::{DEVICE_ATTRIBUTE_PREFIX, MetricValue, Report};
use crate::proto::nv::profiler::messages as pb;

/// The device attributes the session page lists, when the report stores them; they are
/// printed in the order the report stores them, without the `device__attribute_` prefix.
pub const SESSION_DEVICE_ATTRIBUTES: &[&str] = &[
    "confidential_computing_mode",
    "multiprocessor_count",
    "display_name",
    "compute_capability_major",
    "compute_capability_minor",
    "total_memory",
];

/// The session page's tables: "Launch Settings", "Session Info", "Processes" and
/// "Device Attributes" (one value column per device).
pub fn session_page(report: &Report) -> Vec<Table> {
    let session = report.session();
    let mut launch = Table {
        title: "Launch Settings".to_owned(),
        header: vec!["Launch Attribute".to_owned(), "Value".to_owned()],
        rows: Vec::new(),
    };
    if let Some(cmdline) = &session.profiler_cmdline {
        launch
            .rows
            .push(vec!["Profiler Command Line".to_owned(), cmdline.clone()]);
    }
    let mut info = Table {
        title: "Session Info".to_owned(),
        header: vec!["Session Attribute".to_owned(), "Value".to_owned()],
        rows: Vec::new(),
    };
    let mut row = |name: &str, value: String| info.rows.push(vec![name.to_owned(), value]);
    if let Some(created) = session.creation_time {
        row("Created", format_creation_time(created));
    }
    if let Some(host) = &session.host_system_info {
        system_rows("Host", host, false, &mut row);
    }
    if let Some(target) = &session.target_system_info {
        system_rows("Target", target, true, &mut row);
    }
    for version in &session.version_info {
        row(&version.provider, version.version.clone());
    }
    let mut processes = Table {
        title: "Processes".to_owned(),
        header: vec!["Process Id".to_owned(), "Process Name".to_owned()],
        rows: Vec::new(),
    };
    let mut seen = Vec::new();
    for process in report.processes() {
        if seen.contains(&process.process_id) {
            continue;
        }
        seen.push(process.process_id);
        processes.rows.push(vec![
            process.process_id.to_string(),
            process
                .process_name
                .as_deref()
                .map_or_else(String::new, |n| super::launch::trim_name(n).to_owned()),
        ]);
    }
    vec![
        launch,
        info,
        processes,
        device_table(&session.device_attributes),
    ]
}

/// `Name`, `[IP Addresses]`, `OS`, `Architecture`, `Processor` of a host or target.
fn system_rows(
    prefix: &str,
    system: &pb::SystemInfo,
    addresses: bool,
    row: &mut impl FnMut(&str, String),
) {
    if let Some(name) = &system.computer_name {
        row(&format!("{prefix} Name"), c_text(name));
    }
    if addresses && !system.ip_addresses.is_empty() {
        let list: Vec<&str> = system
            .ip_addresses
            .iter()
            .map(|a| a.address.as_str())
            .collect();
        row(&format!("{prefix} IP Addresses"), list.join(", "));
    }
    if let Some(os) = &system.os_name {
        let text = match &system.build {
            Some(build) => format!("{} - {}", c_text(os), c_text(build)),
            None => c_text(os),
        };
        row(&format!("{prefix} OS"), text);
    }
    if let Some(arch) = &system.architecture {
        row(&format!("{prefix} Architecture"), c_text(arch));
    }
    if let Some(processor) = &system.processor {
        row(&format!("{prefix} Processor"), c_text(processor));
    }
}

/// A stored text as the CLI prints it: as a C string, up to its first NUL (a 2021.2 Windows
/// report stores the computer name as 16 NUL bytes; the CLI prints an empty field).
fn c_text(text: &str) -> String {
    text.split('\0').next().unwrap_or_default().to_owned()
}

fn device_table(devices: &[pb::DeviceAttributes]) -> Table {
    let mut header = vec!["Device Attribute".to_owned()];
    header.extend(devices.iter().map(|d| format!("Device {}", d.id)));
    let mut names: Vec<&str> = Vec::new();
    for device in devices {
        for attribute in &device.attributes {
            let short = attribute
                .name
                .strip_prefix(DEVICE_ATTRIBUTE_PREFIX)
                .unwrap_or(&attribute.name);
            if SESSION_DEVICE_ATTRIBUTES.contains(&short) && !names.contains(&short) {
                names.push(short);
            }
        }
    }
    let rows = names
        .iter()
        .map(|name| {
            let mut row = vec![(*name).to_owned()];
            for device in devices {
                let value = device.attributes.iter().rev().find(|a| {
                    a.name
                        .strip_prefix(DEVICE_ATTRIBUTE_PREFIX)
                        .unwrap_or(&a.name)
                        == *name
                });
                row.push(value.map_or_else(String::new, |a| {
                    attribute_text(&MetricValue::from_message(&a.value))
                }));
            }
            row
        })
        .collect();
    Table {
        title: "Device Attributes".to_owned(),
        header,
        rows,
    }
}

fn attribute_text(value: &MetricValue) -> String {
    match value {
        MetricValue::None => String::new(),
        MetricValue::String(s) => s.clone(),
        MetricValue::Uint32(v) => v.to_string(),
        MetricValue::Uint64(v) => v.to_string(),
        MetricValue::Float(v) => format!("{:.2}", f64::from(*v)),
        MetricValue::Double(v) => format!("{v:.2}"),
    }
}

/// `CreationTime` (seconds since the Unix epoch) as the session page prints it, in UTC:
/// `2025-Sep-06 19:16:49`.
pub fn format_creation_time(seconds: u64) -> String {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let (year, month, day, rest) =
        crate::format::civil_utc(i64::try_from(seconds).unwrap_or(i64::MAX));
    format!(
        "{year}-{}-{day:02} {:02}:{:02}:{:02}",
        // `civil_utc` gives months 1 to 12.
        usize::try_from(month - 1)
            .ok()
            .and_then(|m| MONTHS.get(m))
            .unwrap_or(&"?"),
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    use super::{c_text, format_creation_time};

    #[test]
    fn stored_text_ends_at_its_first_nul() {
        assert_eq!(c_text("\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"), "");
        assert_eq!(c_text("host\0junk"), "host");
        assert_eq!(c_text("host"), "host");
    }

    #[test]
    fn creation_time_is_utc() {
        assert_eq!(format_creation_time(1_757_186_209), "2025-Sep-06 19:16:49");
        assert_eq!(format_creation_time(0), "1970-Jan-01 00:00:00");
        assert_eq!(format_creation_time(951_782_400), "2000-Feb-29 00:00:00");
    }
}
