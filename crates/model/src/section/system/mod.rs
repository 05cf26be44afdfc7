//! Nsight Compute's fixed system widgets: the NUMA ID table (body item kind 112), the NVLink
//! topology, property and throughput tables (108–110) and the PM sampling timeline (113).
//!
//! Like the memory widgets ([`super::memory`]), the NUMA and NVLink widgets carry no metric list
//! in their section files: Nsight Compute builds it into the tool. This module holds it as data
//! and resolves every cell from the action's metrics like any other entry (value, unit, text,
//! "N/A" when the report lacks the metric). The timeline does carry its metrics in the section
//! file (`Timeline { MetricGroups { MetricRows { Metrics } } }`), already chosen by architecture
//! through the item's `Filter` and each metric's `Filter`/`Options`; this module turns each
//! resolved metric's instances into a time series.
//!
//! Sources:
//! - NVIDIA's stock section files of Nsight Compute 2024.1 (`NumaAffinity.section`: "NUMA
//!   affinities based on compute and memory distances for all GPUs", with the metrics
//!   `numa__dev_display_name_all`, `numa__cpu_affinity`, `numa__id_cpu`, `numa__id_memory`
//!   labelled Device Names, CPU Affinity, NUMA ID by CPU Affinity, NUMA ID by Memory Affinity;
//!   `Nvlink_Topology.section`: "logical NVLink connections with transmit/receive
//!   throughput"; `Nvlink_Tables.section`: "properties for each NVLink" and "Logical NVLink
//!   Throughput"; `PmSampling.section`: "PM metrics sampled periodically over the workload
//!   duration", pass groups `sampling_N`).
//! - CUPTI's description of a logical NVLink (`CUpti_ActivityNvLink4`,
//!   <https://docs.nvidia.com/cupti/12.8/api/structCUpti__ActivityNvLink4.html>): the two
//!   devices it joins with their types (`CUpti_DevType`: 1 GPU, 2 NPU), its physical link count,
//!   the ports on either side, its capability flags (peer access, system-memory access, peer
//!   and system atomics), its bandwidth and whether it goes through an NVSwitch. The report's
//!   `nvlink__*` metrics carry these fields, one instance per logical link.
//! - NVML's CPU and memory affinity (<https://docs.nvidia.com/deploy/nvml-api/api/group__nvmlAffinity.html>):
//!   the ideal CPUs and NUMA nodes of a device.
//! - The corpus: the 2024.1 full-set report (GTX 1660 SUPER, CC 7.5) holds exactly these
//!   metrics; `tests/it/system_widgets.rs` compares every cell with NVIDIA's reader.
//!
//! Every cell is an [`Entry`] in the item's entry list; the layout refers to entries by index.
//! A cell showing one instance of an instanced metric keeps that instance (correlation id and
//! value) in its entry's `instances`.

mod numa;
mod nvlink;
mod timeline;

use super::details::Entry;
use crate::format::format_with_unit;
use crate::ncu::MetricValue;
use crate::proto::nv::profiler::ProfilerSectionBodyItem;

pub use timeline::{TimelineMetric, build_timeline};

/// Instance values `(correlation id, value)` of a metric.
pub type Instances = Vec<(Option<MetricValue>, MetricValue)>;

/// How the widgets read the action's metrics.
pub struct MetricLookup<'a> {
    /// The entry of a metric as a plain section metric shows it ("N/A" when missing).
    pub entry: &'a dyn Fn(&str) -> Entry,
    /// The metric's instances, `None` when the report lacks the metric.
    pub instances: &'a dyn Fn(&str) -> Option<Instances>,
}

/// A resolved system widget: where its entries go.
#[derive(Debug, Clone, PartialEq)]
pub enum SystemWidget {
    /// The NUMA ID table, the NVLink property table or the NVLink throughput table.
    Table(SystemTable),
    /// The NVLink topology diagram.
    Topology(NvlinkTopology),
    /// The PM sampling timeline.
    Timeline(PmTimeline),
}

/// A table of the NUMA or NVLink widgets: one row per device or logical link.
#[derive(Debug, Clone, PartialEq)]
pub struct SystemTable {
    /// The widget (`numa_id_table`, `nvlink_property_table`, `nvlink_throughput_table`).
    pub widget: &'static str,
    /// Column headings.
    pub columns: Vec<&'static str>,
    /// Rows.
    pub rows: Vec<SystemRow>,
    /// Why the table has no per-link rows (no NVLink links), when it has none.
    pub empty: Option<EmptyState>,
}

/// A row of a system table.
#[derive(Debug, Clone, PartialEq)]
pub struct SystemRow {
    /// "Device 0", "Link 1", "All Links".
    pub label: String,
    /// One cell per column: an index into the item's entries.
    pub cells: Vec<Option<usize>>,
}

/// An explicit "nothing to show" state, naming the metric that says so.
#[derive(Debug, Clone, PartialEq)]
pub struct EmptyState {
    /// The sentence shown ("No NVLink links: nvlink__count_logical = 0").
    pub message: String,
    /// The entry of the metric behind it.
    pub entry: usize,
}

/// The NVLink topology: devices as nodes, logical links as edges.
#[derive(Debug, Clone, PartialEq)]
pub struct NvlinkTopology {
    /// Devices, in order of their index.
    pub devices: Vec<TopologyDevice>,
    /// Logical links.
    pub links: Vec<TopologyLink>,
    /// Summary entries: logical and physical link counts, then each device's enabled-link mask
    /// and maximum link count (`nvlink__enabled_mask`, `nvlink__max_count`) where the report
    /// holds them (2021.2 did not collect them).
    pub summary: Vec<usize>,
    /// Set when there are no links: the devices are drawn alone.
    pub empty: Option<EmptyState>,
}

/// A device of the topology.
#[derive(Debug, Clone, PartialEq)]
pub struct TopologyDevice {
    /// "GPU 0", "NPU 1".
    pub label: String,
    /// The device type as `CUpti_DevType` numbers it (1 GPU, 2 NPU).
    pub device_type: u64,
    /// The device index.
    pub id: u64,
    /// The device's display name, an index into the item's entries.
    pub name: Option<usize>,
}

/// A logical NVLink between two devices.
#[derive(Debug, Clone, PartialEq)]
pub struct TopologyLink {
    /// The logical link's index.
    pub link: u64,
    /// Index into `devices` of the first device.
    pub from: usize,
    /// Index into `devices` of the second device.
    pub to: usize,
    /// Entries shown on the edge: bandwidth, physical links, received and transmitted
    /// throughput.
    pub entries: Vec<usize>,
}

/// The PM sampling timeline: metric groups of rows, each row one or more sampled series.
#[derive(Debug, Clone, PartialEq)]
pub struct PmTimeline {
    /// The earliest sample time (ns) of all series: the common origin of the time axis.
    pub start_ns: Option<u64>,
    /// The latest sample time (ns).
    pub end_ns: Option<u64>,
    /// Metric groups in section order.
    pub groups: Vec<TimelineGroup>,
}

/// A metric group of the timeline ("SM", "DRAM", "L1 Cache").
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineGroup {
    /// The group's label.
    pub label: String,
    /// Whether the section shows the group expanded.
    pub expanded: bool,
    /// Rows.
    pub rows: Vec<TimelineRow>,
}

/// A row of the timeline: usually one metric; several for a stacked row.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineRow {
    /// The row's label (its own, else its metrics' labels joined by commas).
    pub label: String,
    /// The section draws the row's metrics as stacked bars.
    pub stacked: bool,
    /// One series per metric.
    pub series: Vec<TimelineSeries>,
}

/// One sampled metric.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineSeries {
    /// The metric's entry (its aggregate value, unit and label), an index into the item's
    /// entries.
    pub entry: usize,
    /// The pass groups the section assigns the metric to (`sampling_0`...).
    pub pass_groups: Vec<String>,
    /// Samples `(timestamp ns, value)`, sorted by time (NaN values kept as the report holds
    /// them); samples without a timestamp or a numeric value are left out.
    pub samples: Vec<(u64, f64)>,
}

/// The item kind of a resolved widget in the Details model: the fixed widget's own name.
pub fn item_kind(widget: &SystemWidget) -> &'static str {
    match widget {
        SystemWidget::Table(table) => table.widget,
        SystemWidget::Topology(_) => "nvlink_topology",
        SystemWidget::Timeline(_) => "timeline",
    }
}

/// The NUMA or NVLink widget a body item holds: its kind and its label; `None` for any other
/// body item (the timeline included: it is built by [`build_timeline`]).
pub fn widget_of(item: &ProfilerSectionBodyItem) -> Option<(&'static str, Option<String>)> {
    if let Some(w) = &item.numa_id_table {
        return Some(("numa_id_table", w.label.clone()));
    }
    if let Some(w) = &item.nvlink_topology {
        return Some(("nvlink_topology", w.label.clone()));
    }
    if let Some(w) = &item.nvlink_property_table {
        return Some(("nvlink_property_table", w.label.clone()));
    }
    if let Some(w) = &item.nvlink_throughput_table {
        return Some(("nvlink_throughput_table", w.label.clone()));
    }
    None
}

/// Builds the NUMA or NVLink widget `widget` (a kind [`widget_of`] returns) from the action's
/// metrics. Returns the widget and its entries, or `None` for any other kind.
pub fn build(widget: &str, metrics: &MetricLookup<'_>) -> Option<(SystemWidget, Vec<Entry>)> {
    let mut entries = Entries::new(metrics);
    let built = match widget {
        "numa_id_table" => SystemWidget::Table(numa::table(&mut entries)),
        "nvlink_property_table" => SystemWidget::Table(nvlink::property_table(&mut entries)),
        "nvlink_throughput_table" => SystemWidget::Table(nvlink::throughput_table(&mut entries)),
        "nvlink_topology" => SystemWidget::Topology(nvlink::topology(&mut entries)),
        _ => return None,
    };
    Some((built, entries.list))
}

/// The entry list of a widget being built.
pub(crate) struct Entries<'a> {
    metrics: &'a MetricLookup<'a>,
    list: Vec<Entry>,
}

impl<'a> Entries<'a> {
    fn new(metrics: &'a MetricLookup<'a>) -> Self {
        Entries {
            metrics,
            list: Vec::new(),
        }
    }

    /// The metric's entry, without adding it.
    fn lookup(&self, metric: &str) -> Entry {
        (self.metrics.entry)(metric)
    }

    /// The metric's instances (empty when it has none or is missing).
    fn instances(&self, metric: &str) -> Instances {
        (self.metrics.instances)(metric).unwrap_or_default()
    }

    /// Whether the report holds the metric at all (a value or instances).
    fn holds(&self, metric: &str) -> bool {
        self.lookup(metric).value.is_some() || (self.metrics.instances)(metric).is_some()
    }

    /// Adds `entry` labelled `label`; returns its index.
    fn push(&mut self, label: String, mut entry: Entry) -> usize {
        entry.label = label;
        self.list.push(entry);
        self.list.len() - 1
    }

    /// Adds the metric's own entry (its regular value).
    fn add(&mut self, label: String, metric: &str) -> usize {
        let entry = self.lookup(metric);
        self.push(label, entry)
    }

    /// Adds the entry of one instance of `metric`: its value, formatted in the metric's unit,
    /// keeping the instance (correlation id and value) in `instances`. `None` as the instance
    /// gives the metric's "N/A" entry.
    fn add_instance(
        &mut self,
        label: String,
        metric: &str,
        instance: Option<(Option<MetricValue>, MetricValue)>,
    ) -> usize {
        let mut entry = self.lookup(metric);
        match instance {
            Some((id, value)) => {
                entry.text = format_with_unit(&value, &entry.unit, None);
                entry.instances = Some(vec![(id, value.clone())]);
                entry.value = Some(value);
            }
            None => {
                entry.value = None;
                entry.text = "N/A".to_owned();
                entry.instances = None;
            }
        }
        self.push(label, entry)
    }

    fn get_mut(&mut self, index: usize) -> Option<&mut Entry> {
        self.list.get_mut(index)
    }
}

/// A correlation id as an unsigned integer.
fn correlation_u64(id: Option<&MetricValue>) -> Option<u64> {
    match id? {
        MetricValue::String(s) => s.trim().parse().ok(),
        other => other.as_u64(),
    }
}
