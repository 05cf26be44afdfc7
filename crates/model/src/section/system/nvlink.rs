//! The NVLink widgets: the property table (one row per logical link with the fields CUPTI
//! reports for it), the throughput table (received and transmitted bytes per second per link)
//! and the topology (devices joined by their logical links).
//!
//! The number of logical links is `nvlink__count_logical`; each per-link metric holds one
//! instance per logical link, matched by correlation id (the link index), else by position when
//! the metric has exactly one instance per link (checked on a real H800 report: 28 logical links
//! with correlation ids 0–27, device type 1 = GPU). A metric without instances gives its value
//! to the only link of a one-link system. On a system of several links such a metric is not
//! split across them: a flag holds for every link (the H800 report stores
//! `nvlink__is_nvswitch_connected` = 1 once for its 28 links), a count or a rate has no
//! per-link cell (the same report stores `nvlrx__bytes.sum.per_second` = 0 without instances:
//! only the "All Links" row shows it). Zero links is an explicit state that names
//! `nvlink__count_logical`, never an empty table.

use std::collections::HashMap;

use super::{
    EmptyState, Entries, Instances, NvlinkTopology, SystemRow, SystemTable, TopologyDevice,
    TopologyLink, correlation_u64,
};
use crate::core::num::float_to_u64;
use crate::ncu::MetricValue;

/// The number of logical links.
const COUNT_LOGICAL: &str = "nvlink__count_logical";
/// The number of physical links (per logical link when instanced).
const COUNT_PHYSICAL: &str = "nvlink__count_physical";
/// Device names, one instance per device index.
const DEVICE_NAMES: &str = "nvlink__dev_display_name_all";
/// Received bytes per second.
const RECEIVED: &str = "nvlrx__bytes.sum.per_second";
/// Transmitted bytes per second.
const TRANSMITTED: &str = "nvltx__bytes.sum.per_second";
/// Per-device properties shown in the topology's summary: `(label, metric)`.
const DEVICE_PROPERTIES: &[(&str, &str)] = &[
    ("Enabled Link Mask", "nvlink__enabled_mask"),
    ("Maximum Links", "nvlink__max_count"),
];
/// More links than any system has: a corrupt count is not looped over.
const MAX_LINKS: usize = 4096;

/// How a cell's value reads.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Display {
    /// The value with its unit.
    Value,
    /// 0 = "No", anything else "Yes".
    Flag,
    /// A `CUpti_DevType`.
    DeviceType,
}

/// `(column heading, metric)` of the property table, in CUPTI's order of the fields of a
/// logical link.
pub const PROPERTY_COLUMNS: &[(&str, &str)] = &[
    ("Device 0 ID", "nvlink__dev0Id"),
    ("Device 0 Type", "nvlink__dev0type"),
    ("Device 1 ID", "nvlink__dev1Id"),
    ("Device 1 Type", "nvlink__dev1type"),
    ("Physical Links", COUNT_PHYSICAL),
    ("Bandwidth", "nvlink__bandwidth"),
    ("Direct Link", "nvlink__is_direct_link"),
    ("NVSwitch Connected", "nvlink__is_nvswitch_connected"),
    ("Peer Access", "nvlink__peer_access"),
    ("Peer Atomics", "nvlink__peer_atomic"),
    ("System Access", "nvlink__system_access"),
    ("System Atomics", "nvlink__system_atomic"),
    ("Source Ports", "nvlink__source_ports"),
    ("Destination Ports", "nvlink__destination_ports"),
];

/// `(column heading, metric)` of the throughput table.
pub const THROUGHPUT_COLUMNS: &[(&str, &str)] =
    &[("Received", RECEIVED), ("Transmitted", TRANSMITTED)];

fn display_of(metric: &str) -> Display {
    match metric {
        "nvlink__dev0type" | "nvlink__dev1type" => Display::DeviceType,
        "nvlink__is_direct_link"
        | "nvlink__is_nvswitch_connected"
        | "nvlink__peer_access"
        | "nvlink__peer_atomic"
        | "nvlink__system_access"
        | "nvlink__system_atomic" => Display::Flag,
        _ => Display::Value,
    }
}

/// The name of a `CUpti_DevType`.
pub fn device_type_name(device_type: u64) -> &'static str {
    match device_type {
        1 => "GPU",
        2 => "NPU",
        _ => "Device",
    }
}

/// The logical links: their indices, or the state that says there are none.
struct Links {
    ids: Vec<u64>,
    empty: Option<EmptyState>,
}

fn links(entries: &mut Entries<'_>, per_link: &[&str]) -> Links {
    let count = entries.lookup(COUNT_LOGICAL);
    let known = count
        .value
        .as_ref()
        .and_then(MetricValue::as_f64)
        .filter(|v| v.is_finite() && *v >= 0.0);
    let ids: Vec<u64> = match known {
        // A count stored as a real: its whole part (n ≥ 0), at most MAX_LINKS.
        Some(n) => (0..float_to_u64(n).min(MAX_LINKS as u64)).collect(),
        None => {
            let mut ids: Vec<u64> = per_link
                .iter()
                .flat_map(|m| entries.instances(m))
                .filter_map(|(id, _)| correlation_u64(id.as_ref()))
                .collect();
            ids.sort_unstable();
            ids.dedup();
            ids.truncate(MAX_LINKS);
            ids
        }
    };
    let empty = ids.is_empty().then(|| {
        let message = match (known, &count.value) {
            (Some(_), _) => format!("No NVLink links: {COUNT_LOGICAL} = {}", count.text),
            (None, Some(_)) => format!("No NVLink data: {COUNT_LOGICAL} = {}", count.text),
            (None, None) => format!("No NVLink data: {COUNT_LOGICAL} was not collected"),
        };
        EmptyState {
            message,
            entry: entries.add("Logical Links".to_owned(), COUNT_LOGICAL),
        }
    });
    Links { ids, empty }
}

/// A per-link metric with its instances indexed by correlation id (read once per widget, so a
/// widget costs O(links × columns)).
struct PerLink<'m> {
    metric: &'m str,
    instances: Instances,
    by_id: HashMap<u64, usize>,
}

impl<'m> PerLink<'m> {
    fn new(entries: &Entries<'_>, metric: &'m str) -> Self {
        let instances = entries.instances(metric);
        let mut by_id = HashMap::new();
        for (position, (id, _)) in instances.iter().enumerate() {
            if let Some(id) = correlation_u64(id.as_ref()) {
                by_id.entry(id).or_insert(position);
            }
        }
        PerLink {
            metric,
            instances,
            by_id,
        }
    }

    /// The instance for link `link`, the `position`-th of `count` links.
    fn instance(
        &self,
        link: u64,
        position: usize,
        count: usize,
    ) -> Option<(Option<MetricValue>, MetricValue)> {
        let at = self
            .by_id
            .get(&link)
            .copied()
            .or_else(|| (self.instances.len() == count).then_some(position))?;
        self.instances.get(at).cloned()
    }

    /// The numeric value for link `link`: its instance, or the metric's own value on a one-link
    /// system when the metric has no instances.
    fn number(
        &self,
        entries: &Entries<'_>,
        link: u64,
        position: usize,
        count: usize,
    ) -> Option<u64> {
        let value = if self.instances.is_empty() && count == 1 {
            entries.lookup(self.metric).value
        } else {
            self.instance(link, position, count).map(|(_, v)| v)
        };
        value.as_ref().and_then(MetricValue::as_u64)
    }
}

/// Adds the cell of `column` for the `position`-th of `count` links, `link`; returns its entry
/// index, or `None` where the column has no value per link (a count or rate without instances
/// on a system of several links, see the module documentation).
fn add_link_cell(
    entries: &mut Entries<'_>,
    label: String,
    column: &PerLink<'_>,
    link: u64,
    position: usize,
    count: usize,
) -> Option<usize> {
    let metric = column.metric;
    let index = if column.instances.is_empty() {
        let reported = entries.lookup(metric).value.is_some();
        if count == 1 || (reported && display_of(metric) == Display::Flag) {
            entries.add(label, metric)
        } else if reported {
            return None;
        } else {
            entries.add_instance(label, metric, None)
        }
    } else {
        let instance = column.instance(link, position, count);
        entries.add_instance(label, metric, instance)
    };
    if let Some(entry) = entries.get_mut(index) {
        let number = entry.value.as_ref().and_then(MetricValue::as_u64);
        match (display_of(metric), number) {
            (Display::Flag, Some(v)) => entry.text = if v == 0 { "No" } else { "Yes" }.to_owned(),
            (Display::DeviceType, Some(v)) => entry.text = device_type_name(v).to_owned(),
            _ => {}
        }
    }
    Some(index)
}

fn per_link_table(
    entries: &mut Entries<'_>,
    widget: &'static str,
    columns: &[(&'static str, &str)],
) -> SystemTable {
    let metrics: Vec<&str> = columns.iter().map(|(_, m)| *m).collect();
    let Links { ids, empty } = links(entries, &metrics);
    let per_link: Vec<PerLink<'_>> = metrics.iter().map(|m| PerLink::new(entries, m)).collect();
    let mut rows = Vec::new();
    for (position, &link) in ids.iter().enumerate() {
        let label = format!("Link {link}");
        let cells = columns
            .iter()
            .zip(&per_link)
            .map(|((column, _), metric)| {
                add_link_cell(
                    entries,
                    format!("{label}: {column}"),
                    metric,
                    link,
                    position,
                    ids.len(),
                )
            })
            .collect::<Vec<_>>();
        // A link row with no value at all (no column split per link) is not shown.
        if cells.iter().any(Option::is_some) {
            rows.push(SystemRow { label, cells });
        }
    }
    SystemTable {
        widget,
        columns: columns.iter().map(|(c, _)| *c).collect(),
        rows,
        empty,
    }
}

/// The property table: one row per logical link.
pub(super) fn property_table(entries: &mut Entries<'_>) -> SystemTable {
    per_link_table(entries, "nvlink_property_table", PROPERTY_COLUMNS)
}

/// The throughput table: one row per logical link, then "All Links" with the metrics' own
/// values (the sum over the links), when the report holds either of them.
pub(super) fn throughput_table(entries: &mut Entries<'_>) -> SystemTable {
    let mut table = per_link_table(entries, "nvlink_throughput_table", THROUGHPUT_COLUMNS);
    // Reports of tool versions that did not collect the throughput (2021.x) hold neither
    // metric: no "All Links" row of "N/A" cells then.
    if !THROUGHPUT_COLUMNS
        .iter()
        .any(|(_, metric)| entries.holds(metric))
    {
        return table;
    }
    let cells = THROUGHPUT_COLUMNS
        .iter()
        .map(|(column, metric)| Some(entries.add(format!("All Links: {column}"), metric)))
        .collect();
    table.rows.push(SystemRow {
        label: "All Links".to_owned(),
        cells,
    });
    table
}

/// The topology: every device named by `nvlink__dev_display_name_all`, plus any other endpoint
/// of a link, and one edge per logical link with its bandwidth, physical link count and
/// throughput; its summary holds the link counts and the per-device enabled-link mask and
/// maximum link count where the report holds them.
pub(super) fn topology(entries: &mut Entries<'_>) -> NvlinkTopology {
    let mut devices: Vec<TopologyDevice> = Vec::new();
    // Device index → name instance (the first one of an index wins), in index order.
    let mut names = std::collections::BTreeMap::new();
    for instance in entries.instances(DEVICE_NAMES) {
        if let Some(id) = correlation_u64(instance.0.as_ref()) {
            names.entry(id).or_insert(instance);
        }
    }
    for (id, instance) in names {
        let label = format!("GPU {id}");
        let name = entries.add_instance(format!("{label}: Name"), DEVICE_NAMES, Some(instance));
        devices.push(TopologyDevice {
            label,
            device_type: 1,
            id,
            name: Some(name),
        });
    }
    let mut summary = vec![
        entries.add("Logical Links".to_owned(), COUNT_LOGICAL),
        entries.add("Physical Links".to_owned(), COUNT_PHYSICAL),
    ];
    // Per-device NVLink properties, one instance each; the instance's correlation id is not
    // known to be the device index (the corpus has 8 for device 0), so it is named as it is.
    // A property the report does not hold (2021.2 collected neither) is left out, not shown
    // as "N/A".
    for (label, metric) in DEVICE_PROPERTIES {
        let instances = entries.instances(metric);
        if instances.is_empty() {
            if entries.holds(metric) {
                summary.push(entries.add((*label).to_owned(), metric));
            }
            continue;
        }
        for instance in instances.into_iter().take(MAX_LINKS) {
            let name = match correlation_u64(instance.0.as_ref()) {
                Some(id) => format!("{label} (instance {id})"),
                None => (*label).to_owned(),
            };
            summary.push(entries.add_instance(name, metric, Some(instance)));
        }
    }
    let endpoints = [
        "nvlink__dev0Id",
        "nvlink__dev0type",
        "nvlink__dev1Id",
        "nvlink__dev1type",
    ];
    let Links { ids, empty } = links(entries, &endpoints);
    let [id0, type0, id1, type1] = endpoints.map(|m| PerLink::new(entries, m));
    let edge = [
        ("Bandwidth", "nvlink__bandwidth"),
        ("Physical Links", COUNT_PHYSICAL),
        ("Received", RECEIVED),
        ("Transmitted", TRANSMITTED),
    ];
    let edge_columns: Vec<(&str, PerLink<'_>)> = edge
        .iter()
        .map(|(what, metric)| (*what, PerLink::new(entries, metric)))
        .collect();
    let mut links = Vec::new();
    let count = ids.len();
    for (position, &link) in ids.iter().enumerate() {
        let prefix = format!("Link {link}");
        let mut endpoint = |id: &PerLink<'_>, device_type: &PerLink<'_>| {
            let id = id.number(entries, link, position, count);
            let device_type = device_type.number(entries, link, position, count);
            device_index(&mut devices, device_type.unwrap_or(0), id)
        };
        let from = endpoint(&id0, &type0);
        let to = endpoint(&id1, &type1);
        let entries_of_edge = edge_columns
            .iter()
            .filter_map(|(what, column)| {
                add_link_cell(
                    entries,
                    format!("{prefix}: {what}"),
                    column,
                    link,
                    position,
                    count,
                )
            })
            .collect();
        links.push(TopologyLink {
            link,
            from,
            to,
            entries: entries_of_edge,
        });
    }
    NvlinkTopology {
        devices,
        links,
        summary,
        empty,
    }
}

/// The index of the device `(device_type, id)`, added when new; an endpoint without an id
/// becomes an "unknown" device of its own.
fn device_index(devices: &mut Vec<TopologyDevice>, device_type: u64, id: Option<u64>) -> usize {
    if let Some(id) = id
        && let Some(found) = devices
            .iter()
            .position(|d| d.device_type == device_type && d.id == id)
    {
        return found;
    }
    let label = match id {
        Some(id) => format!("{} {id}", device_type_name(device_type)),
        None => format!("Unknown {}", device_type_name(device_type)),
    };
    devices.push(TopologyDevice {
        label,
        device_type,
        id: id.unwrap_or(u64::MAX),
        name: None,
    });
    devices.len() - 1
}
