//! Nsight Compute's fixed memory widgets (body item kinds 101–107 and 111): the memory chart and
//! the shared-memory, L1/TEX, L2, L2 eviction-policy and device-memory tables.
//!
//! Their metric lists are built into Nsight Compute, not written in the section files. This
//! module holds them as data: for every node and link of the chart and every cell of a table,
//! the metric (or the formula over metrics) that feeds it. Sources:
//!
//! - NVIDIA Nsight Compute, *Kernel Profiling Guide*, "Memory Chart" and "Memory Tables"
//!   (<https://docs.nvidia.com/nsight-compute/ProfilingGuide/index.html#memory-chart>,
//!   `#memory-tables`): logical units (Kernel, Global, Local, Texture, Surface, Shared) linked
//!   by executed instructions; logical to physical units (L1/TEX cache, shared memory, L2
//!   cache, device, system and peer memory) linked by requests; physical links by the amount
//!   of data moved, coloured by their share of the peak; table columns Instructions, Requests,
//!   Wavefronts, % Peak, Bank Conflicts, Sectors, Sectors/Req, Hit Rate, Bytes and Sector
//!   Misses per access kind. The same page is summarised in
//!   <https://blog.csdn.net/UCAS_HMM/article/details/126521832>.
//! - The metric names themselves: the full-set reports of the corpus, which hold exactly the
//!   metrics these widgets were collected for (Nsight Compute 2022.1 on an A40, CC 8.6, and
//!   2024.1 on a GTX 1660 SUPER, CC 7.5). Names that changed between tool versions are listed
//!   as alternatives, newest first; the first one the report holds is shown (e.g.
//!   `smsp__sass_inst_executed_op_global_ld.sum` in 2024.1, `sass__inst_executed_global_loads`
//!   in 2022.1). Rows that only exist on some architectures carry a minimum compute capability
//!   (LDSM and LDGSTS from 8.0, the eviction-policy table from 8.0 through the section file).
//!
//! Derived cells use one formula each, checked against the corpus in `tests/it/memory_widgets.rs`:
//! sectors per request = sectors / requests; hit rate = sector lookup hits / sectors × 100 (the
//! stored `lts__t_sector_hit_rate.pct` equals `lts__t_sectors_lookup_hit.sum /
//! lts__t_sectors.sum`); bytes = sectors × 32 (a sector is 32 bytes); a total = the sum of its
//! parts (the stored `gpu__dram_throughput` % of peak equals read % + write %).
//!
//! Every node, link and cell is an [`Entry`] (value, unit, text, "N/A" when missing), collected
//! in the item's entry list; the layout refers to entries by index.

mod chart;
mod source;
mod tables;

use super::details::Entry;
use crate::proto::nv::profiler::ProfilerSectionBodyItem;
use source::Resolver;
pub use source::SECTOR_BYTES;

/// A resolved memory widget: where its entries go.
#[derive(Debug, Clone, PartialEq)]
pub enum MemoryWidget {
    /// The memory chart.
    Chart(MemoryChart),
    /// One of the memory tables.
    Table(MemoryTable),
}

/// The memory chart: units and the links between them.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryChart {
    /// Logical and physical units.
    pub nodes: Vec<ChartNode>,
    /// Links, in drawing order.
    pub links: Vec<ChartLink>,
}

/// A unit of the memory chart.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartNode {
    /// Stable identifier (`kernel`, `global`, `l1tex`, `l2`, `device`...).
    pub id: &'static str,
    /// Display name.
    pub label: &'static str,
    /// A physical (hardware) unit rather than a logical memory space.
    pub physical: bool,
    /// Entries shown inside the unit (hit rate, compression success rate), as indices into
    /// the item's entries.
    pub entries: Vec<usize>,
}

/// A link of the memory chart, from `from` to `to` in the direction data or requests flow.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartLink {
    /// Source node id.
    pub from: &'static str,
    /// Target node id.
    pub to: &'static str,
    /// What is counted: `Inst`, `Req`, `Wavefronts`, `Read`, `Write`.
    pub label: &'static str,
    /// The amount (instructions, requests, bytes, sectors), an index into the item's entries.
    pub amount: usize,
    /// The throughput per second, when the report has one.
    pub rate: Option<usize>,
    /// The share of the peak in percent, when the report has one.
    pub peak: Option<usize>,
}

/// A memory table: rows of access kinds, columns of counters.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryTable {
    /// The widget (`memory_shared_table`, `memory_l1tex_cache_table`, ...).
    pub widget: &'static str,
    /// Column headings.
    pub columns: Vec<&'static str>,
    /// Rows.
    pub rows: Vec<TableRow>,
}

/// A row of a memory table.
#[derive(Debug, Clone, PartialEq)]
pub struct TableRow {
    /// The access kind ("Shared Load", "L1/TEX Store", "Total").
    pub label: &'static str,
    /// One cell per column: an index into the item's entries, or `None` where the column does
    /// not apply to the row.
    pub cells: Vec<Option<usize>>,
}

/// Which row groups a table shows (the widget's `Show*` options; unset means shown).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowFilter {
    /// Load rows.
    pub loads: bool,
    /// Store rows.
    pub stores: bool,
    /// Atomic rows.
    pub atomics: bool,
    /// Reduction rows.
    pub reductions: bool,
    /// Total rows.
    pub totals: bool,
}

impl Default for RowFilter {
    fn default() -> Self {
        RowFilter {
            loads: true,
            stores: true,
            atomics: true,
            reductions: true,
            totals: true,
        }
    }
}

/// The item kind of a resolved widget in the Details model.
pub fn item_kind(widget: &MemoryWidget) -> &'static str {
    match widget {
        MemoryWidget::Chart(_) => "memory_chart",
        MemoryWidget::Table(_) => "memory_table",
    }
}

/// The pseudo-metric in which Nsight Compute records the metrics it collected for a widget
/// (`group:memory__chart`: a string of comma-separated metric names, written since 2020.2).
pub fn group_metric(widget: &str) -> Option<&'static str> {
    Some(match widget {
        "memory_chart" => "group:memory__chart",
        "memory_shared_table" => "group:memory__shared_table",
        "memory_l1tex_cache_table" | "memory_first_level_cache_table" => {
            "group:memory__first_level_cache_table"
        }
        "memory_l2_cache_table" | "memory_second_level_cache_table" => {
            "group:memory__l2_cache_table"
        }
        "memory_l2_cache_evict_policy_table" => "group:memory__l2_cache_evict_policy_table",
        "memory_device_memory_table" => "group:memory__dram_table",
        _ => return None,
    })
}

/// Builds the memory widget `widget` (a fixed-widget kind such as `memory_chart` or
/// `memory_l2_cache_table`) for an action of compute capability `compute_capability`
/// (`major * 10 + minor`), resolving metric names through `lookup` (which returns an "N/A"
/// entry for a metric the report lacks). Returns the widget and its entries, or `None` when
/// `widget` is not a memory widget.
///
/// The widget's [`group_metric`], when the report has it, names the metrics the writing tool
/// version collected for the widget: a part of a sum (a link over several access kinds, a
/// total) that the report lacks and that version did not collect is left out of the sum,
/// since that version's widget has no such part (2020.2 has no LDSM count in the chart's
/// Kernel → Shared instructions); a part it collected but the report lacks still makes the
/// sum "N/A". A metric with alternative names that the report lacks under every name (a
/// launch whose measurement failed) is named as the group lists it, so the "N/A" cell names
/// the metric that version collects.
pub fn build(
    widget: &str,
    compute_capability: Option<u32>,
    rows: RowFilter,
    lookup: &dyn Fn(&str) -> Entry,
) -> Option<(MemoryWidget, Vec<Entry>)> {
    let cc = compute_capability.unwrap_or(u32::MAX);
    let collected = group_metric(widget)
        .and_then(|group| match lookup(group).value {
            Some(crate::ncu::MetricValue::String(list)) => Some(list),
            _ => None,
        })
        .map(|list| list.split(',').map(|n| n.trim().to_owned()).collect());
    let mut resolver = Resolver::new(lookup, collected);
    let built = match widget {
        "memory_chart" => MemoryWidget::Chart(chart::chart(cc, &mut resolver)),
        _ => MemoryWidget::Table(tables::table(widget, cc, rows, &mut resolver)?),
    };
    Some((built, resolver.into_entries()))
}

/// The memory widget a body item holds: its fixed-widget kind, its label and the row groups it
/// asks for; `None` for any other body item.
pub fn widget_of(
    item: &ProfilerSectionBodyItem,
) -> Option<(&'static str, Option<String>, RowFilter)> {
    let on = |flag: Option<bool>| flag != Some(false);
    let filter = |loads, stores, atomics, reductions, totals| RowFilter {
        loads: on(loads),
        stores: on(stores),
        atomics: on(atomics),
        reductions: on(reductions),
        totals: on(totals),
    };
    if let Some(w) = &item.memory_chart {
        return Some(("memory_chart", w.label.clone(), RowFilter::default()));
    }
    // Which of the five `show_*` flags (loads, stores, atomics, reductions, totals) each table
    // widget's message has: `y` reads the flag, `-` (a flag the message lacks) counts as shown.
    macro_rules! flag {
        ($w:ident . $name:ident y) => {
            $w.$name
        };
        ($w:ident . $name:ident -) => {
            None
        };
    }
    macro_rules! tables {
        ($($field:ident: $l:tt $s:tt $a:tt $r:tt $t:tt;)*) => {
            $(if let Some(w) = &item.$field {
                let rows = filter(
                    flag!(w.show_loads $l),
                    flag!(w.show_stores $s),
                    flag!(w.show_atomics $a),
                    flag!(w.show_reductions $r),
                    flag!(w.show_totals $t),
                );
                return Some((stringify!($field), w.label.clone(), rows));
            })*
        };
    }
    tables! {
        memory_shared_table: y y y - y;
        memory_l1tex_cache_table: y y y y y;
        memory_first_level_cache_table: y y y y y;
        memory_l2_cache_table: y y y y -;
        memory_second_level_cache_table: y y y y y;
        memory_l2_cache_evict_policy_table: y y y - -;
        memory_device_memory_table: y y - - y;
    }
    None
}
