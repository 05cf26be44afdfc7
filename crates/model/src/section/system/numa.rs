//! The NUMA ID table: for every device of the system, its name, the CPUs it has affinity to,
//! and the NUMA node closest to it by CPU affinity and by memory affinity. Each metric holds one
//! string instance per device, the correlation id being the device index (checked on the 2024.1
//! corpus report: `numa__dev_display_name_all` = {0: "NVIDIA GeForce GTX 1660 SUPER"},
//! `numa__cpu_affinity` = {0: "0-4"}).

use std::collections::HashMap;

use super::{EmptyState, Entries, SystemRow, SystemTable, correlation_u64};
use crate::ncu::MetricValue;

/// `(column heading, metric)`; headings are the labels NVIDIA's `NumaAffinity.section` gives
/// these metrics.
pub const COLUMNS: &[(&str, &str)] = &[
    ("Device Name", "numa__dev_display_name_all"),
    ("CPU Affinity", "numa__cpu_affinity"),
    ("NUMA ID by CPU Affinity", "numa__id_cpu"),
    ("NUMA ID by Memory Affinity", "numa__id_memory"),
];

/// Resolves the table: one row per device index found in any of the metrics' instances.
pub(super) fn table(entries: &mut Entries<'_>) -> SystemTable {
    // Per column: device index → instance (the first one of an index wins).
    let by_device: Vec<HashMap<u64, (Option<MetricValue>, MetricValue)>> = COLUMNS
        .iter()
        .map(|(_, m)| {
            let mut map = HashMap::new();
            for instance in entries.instances(m) {
                if let Some(id) = correlation_u64(instance.0.as_ref()) {
                    map.entry(id).or_insert(instance);
                }
            }
            map
        })
        .collect();
    let mut devices: Vec<u64> = by_device.iter().flat_map(|m| m.keys().copied()).collect();
    devices.sort_unstable();
    devices.dedup();
    let mut rows = Vec::new();
    for &device in &devices {
        let label = format!("Device {device}");
        let cells = COLUMNS
            .iter()
            .zip(&by_device)
            .map(|((column, metric), instances)| {
                Some(entries.add_instance(
                    format!("{label}: {column}"),
                    metric,
                    instances.get(&device).cloned(),
                ))
            })
            .collect();
        rows.push(SystemRow { label, cells });
    }
    let empty = devices.is_empty().then(|| {
        let (_, metric) = COLUMNS[0];
        let entry = entries.add("Devices".to_owned(), metric);
        let state = match entries.list.get(entry).and_then(|e| e.value.as_ref()) {
            Some(_) => "has no per-device instances",
            None => "was not collected",
        };
        EmptyState {
            message: format!("No NUMA affinity data: {metric} {state}"),
            entry,
        }
    });
    SystemTable {
        widget: "numa_id_table",
        columns: COLUMNS.iter().map(|(c, _)| *c).collect(),
        rows,
        empty,
    }
}
