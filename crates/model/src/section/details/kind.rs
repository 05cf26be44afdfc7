//! What only some body item kinds carry: a table's layout and order ([`TableLayout`],
//! [`Sort`]), a roofline chart's lines and points ([`Roofline`]) and the fixed widgets
//! ([`FixedWidget`]).

use super::{RooflinePart, RooflinePoint};
use crate::proto::nv::profiler::ProfilerSectionBodyItem;

/// How a table lays out its entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableLayout {
    /// Columns (`Columns`; 0 when the section gives none).
    pub columns: u32,
    /// Whether the table is laid out column by column (`Order: ColumnMajor`).
    pub column_major: bool,
    /// The order of `entries`, as the section gives it.
    pub sort: Option<Sort>,
}

impl Default for TableLayout {
    fn default() -> TableLayout {
        TableLayout {
            columns: 1,
            column_major: false,
            sort: None,
        }
    }
}

/// The order a table's or bar chart's entries are in (`SortKey`, `SortDirection`); the entries
/// are already sorted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sort {
    /// What the entries are sorted by.
    pub key: SortKey,
    /// Highest first (`SortDirection: Descending`).
    pub descending: bool,
}

/// What entries are sorted by (the section file's `SortKey`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    /// By label (`SortKey` 0, and any value other than 1).
    Label,
    /// By value (`SortKey` 1).
    Value,
}

impl Sort {
    /// The order a section file gives: `SortKey` (1 by value, anything else by label) and
    /// `SortDirection` (1 descending); `None` without a `SortKey`.
    pub(super) fn from_file(key: Option<i32>, direction: Option<i32>) -> Option<Sort> {
        key.map(|key| Sort {
            key: if key == 1 {
                SortKey::Value
            } else {
                SortKey::Label
            },
            descending: direction == Some(1),
        })
    }
}

/// A roofline chart's lines and points.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Roofline {
    /// Roofline lines (peaks).
    pub rooflines: Vec<RooflinePoint>,
    /// Achieved points.
    pub points: Vec<RooflinePoint>,
    /// The entries of each roofline, then of each achieved value.
    pub parts: Vec<RooflinePart>,
}

/// A fixed Nsight Compute widget (a body item field with no metric list of its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FixedWidget {
    /// `memory_shared_table`.
    MemorySharedTable,
    /// `memory_first_level_cache_table`.
    MemoryFirstLevelCacheTable,
    /// `memory_second_level_cache_table`.
    MemorySecondLevelCacheTable,
    /// `memory_device_memory_table`.
    MemoryDeviceMemoryTable,
    /// `memory_chart`.
    MemoryChart,
    /// `memory_l1tex_cache_table`.
    MemoryL1texCacheTable,
    /// `memory_l2_cache_table`.
    MemoryL2CacheTable,
    /// `nvlink_topology`.
    NvlinkTopology,
    /// `nvlink_property_table`.
    NvlinkPropertyTable,
    /// `nvlink_throughput_table`.
    NvlinkThroughputTable,
    /// `memory_l2_cache_evict_policy_table`.
    MemoryL2CacheEvictPolicyTable,
    /// `numa_id_table`.
    NumaIdTable,
    /// `timeline`.
    Timeline,
    /// `gfx_metrics_widget`.
    GfxMetricsWidget,
}

impl FixedWidget {
    /// The body item's field name (`memory_chart`, `numa_id_table`...).
    pub fn name(self) -> &'static str {
        match self {
            FixedWidget::MemorySharedTable => "memory_shared_table",
            FixedWidget::MemoryFirstLevelCacheTable => "memory_first_level_cache_table",
            FixedWidget::MemorySecondLevelCacheTable => "memory_second_level_cache_table",
            FixedWidget::MemoryDeviceMemoryTable => "memory_device_memory_table",
            FixedWidget::MemoryChart => "memory_chart",
            FixedWidget::MemoryL1texCacheTable => "memory_l1tex_cache_table",
            FixedWidget::MemoryL2CacheTable => "memory_l2_cache_table",
            FixedWidget::NvlinkTopology => "nvlink_topology",
            FixedWidget::NvlinkPropertyTable => "nvlink_property_table",
            FixedWidget::NvlinkThroughputTable => "nvlink_throughput_table",
            FixedWidget::MemoryL2CacheEvictPolicyTable => "memory_l2_cache_evict_policy_table",
            FixedWidget::NumaIdTable => "numa_id_table",
            FixedWidget::Timeline => "timeline",
            FixedWidget::GfxMetricsWidget => "gfx_metrics_widget",
        }
    }

    /// The fixed widget a body item holds, in the order they are looked for.
    pub(super) fn of(item: &ProfilerSectionBodyItem) -> Option<FixedWidget> {
        use FixedWidget::*;
        [
            (item.memory_shared_table.is_some(), MemorySharedTable),
            (
                item.memory_first_level_cache_table.is_some(),
                MemoryFirstLevelCacheTable,
            ),
            (
                item.memory_second_level_cache_table.is_some(),
                MemorySecondLevelCacheTable,
            ),
            (
                item.memory_device_memory_table.is_some(),
                MemoryDeviceMemoryTable,
            ),
            (item.memory_chart.is_some(), MemoryChart),
            (
                item.memory_l1tex_cache_table.is_some(),
                MemoryL1texCacheTable,
            ),
            (item.memory_l2_cache_table.is_some(), MemoryL2CacheTable),
            (item.nvlink_topology.is_some(), NvlinkTopology),
            (item.nvlink_property_table.is_some(), NvlinkPropertyTable),
            (
                item.nvlink_throughput_table.is_some(),
                NvlinkThroughputTable,
            ),
            (
                item.memory_l2_cache_evict_policy_table.is_some(),
                MemoryL2CacheEvictPolicyTable,
            ),
            (item.numa_id_table.is_some(), NumaIdTable),
            (item.timeline.is_some(), Timeline),
            (item.gfx_metrics_widget.is_some(), GfxMetricsWidget),
        ]
        .into_iter()
        .find_map(|(present, widget)| present.then_some(widget))
    }
}
