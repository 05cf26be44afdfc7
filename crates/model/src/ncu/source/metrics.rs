//! The Source page's columns and per-PC values.
//!
//! The columns are those of the `SourceCounters` section embedded in the result
//! (`SourceMetrics` from 2024.1, `Metrics` before), in its order and with its labels (the
//! section lists every stall reason itself: `stall_long_sb`...), keeping the metrics the result
//! holds per PC (instances whose correlation id is the absolute PC; 0 at PCs without an
//! instance), derived metrics the result does not store included (evaluated per PC from their
//! instanced operands, [`super::values`]). A `group:` entry (warp stall reasons) is the per-PC sum of its members, which the
//! report stores as a `group:NAME` string metric (comma-separated names); it is shown whenever
//! a member exists, with zeros when the kernel had no samples. Without an embedded section every per-PC metric becomes a column
//! named after itself.
//!
//! The memory access columns (`memory_type`, `memory_access_type`, `memory_access_size_type`)
//! hold codes; they are shown as NVIDIA's labels ("Global", "Load", "32").

use std::collections::HashMap;

use super::page::Cell;
use super::values::{PcMetrics, PcValues, empty_sum};
use crate::core::num::float_to_u64;
use crate::ncu::Action;
use crate::proto::nv::profiler::ProfilerSection;

/// What a column shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColumnKind {
    /// One metric's per-PC values.
    Metric(String),
    /// The per-PC sum of several metrics (a `group:` entry).
    Sum(Vec<String>),
    /// A memory access code shown as a label (which of the three is the metric's name).
    MemoryLabel(String),
}

/// One column of the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// The header (the section's label, else the metric name).
    pub label: String,
    /// Where its values come from.
    pub kind: ColumnKind,
}

impl Column {
    /// Whether line aggregates of this column are sums (labels are not aggregated).
    pub fn is_numeric(&self) -> bool {
        !matches!(self.kind, ColumnKind::MemoryLabel(_))
    }
}

/// The members of a `group:` entry: the report's `group:NAME` string metric (comma-separated
/// metric names), else the warp stall metrics by name (`smsp__pcsamp_warps_issue_stalled_*`,
/// `_not_issued` or not); only those the result holds, in the stored order.
pub(super) fn group_members(action: &Action, group: &str) -> Vec<String> {
    const STALL_PREFIX: &str = "smsp__pcsamp_warps_issue_stalled_";
    const NOT_ISSUED: &str = "_not_issued";
    if let Some(list) = action
        .metric(&format!("group:{group}"))
        .and_then(|m| m.stored.as_str().map(str::to_owned))
    {
        return list
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty() && action.metric(n).is_some())
            .map(str::to_owned)
            .collect();
    }
    if !group.starts_with("smsp__pcsamp_warp_stall_reasons") {
        return Vec::new();
    }
    let not_issued = group.ends_with(NOT_ISSUED);
    let mut members: Vec<String> = action
        .metric_names()
        .filter(|n| n.starts_with(STALL_PREFIX) && n.ends_with(NOT_ISSUED) == not_issued)
        .map(str::to_owned)
        .collect();
    members.sort();
    members
}

/// The label of a memory access code (`memory_type` 4 → `Global`), `None` for 0 (an empty
/// cell). Codes not seen in the corpus show as `(N)`.
pub fn memory_label(metric: &str, code: u64) -> Option<String> {
    if code == 0 {
        return None;
    }
    let known = match (metric, code) {
        ("memory_type", 4) => "Global",
        ("memory_type", 8) => "Local",
        ("memory_type", 16) => "Shared",
        ("memory_access_type", 2) => "Load",
        ("memory_access_type", 4) => "Store",
        // 2: the 8-bit accesses (`LDG.E.U8`) of the 2022.4 RTX 3080 Ti report.
        ("memory_access_size_type", 2) => "8",
        ("memory_access_size_type", 8) => "16",
        ("memory_access_size_type", 32) => "32",
        ("memory_access_size_type", 64) => "64",
        ("memory_access_size_type", 128) => "128",
        // NVIDIA's 2024.1 page prints the explicit evict policy codes of the corpus as empty
        // labels; their names are not known here.
        (EVICT_TYPE, _) => "",
        _ => return Some(format!("({code})")),
    };
    Some(known.to_owned())
}

/// The explicit L2 evict policy of memory instructions (a code, shown as a label).
const EVICT_TYPE: &str = "smsp__sass_inst_executed_memdesc_explicit_evict_type";

/// The metric names of memory access codes.
const MEMORY_METRICS: [&str; 4] = [
    "memory_type",
    "memory_access_type",
    "memory_access_size_type",
    EVICT_TYPE,
];

/// The columns of one result and its per-PC values.
#[derive(Debug, Clone, Default)]
pub struct SourceColumns {
    columns: Vec<Column>,
    values: HashMap<String, PcValues>,
}

/// Whether per-PC values look like PCs: correlation ids that are small integers are not PCs
/// (occupancy tables indexed by block size, register count, shared memory size).
fn are_pcs(values: &PcValues) -> bool {
    values.pcs().all(|pc| pc >= 0x1_0000)
}

impl SourceColumns {
    /// The columns of `action` (see the module documentation).
    pub fn of(action: &Action) -> SourceColumns {
        SourceColumns::with_sections(action, &action.sections().unwrap_or_default())
    }

    /// The columns of `action` with its embedded sections already decoded.
    pub fn with_sections(action: &Action, sections: &[ProfilerSection]) -> SourceColumns {
        let metrics = PcMetrics::new(action, sections);
        let mut values: HashMap<String, PcValues> = HashMap::new();
        // Reads `name`'s per-PC values once; whether it has any.
        let read = |values: &mut HashMap<String, PcValues>, name: &str| -> bool {
            if values.contains_key(name) {
                return true;
            }
            match metrics
                .metric(action, name)
                .and_then(PcValues::of_metric)
                .filter(are_pcs)
            {
                Some(v) => {
                    values.insert(name.to_owned(), v);
                    true
                }
                None => false,
            }
        };
        let mut columns: Vec<Column> = Vec::new();
        let entries = section_entries(sections);
        let have_section = !entries.is_empty();
        for (name, label) in entries {
            let label = label.unwrap_or_else(|| name.clone());
            if columns
                .iter()
                .any(|c| c.label == label || matches!(&c.kind, ColumnKind::Metric(n) | ColumnKind::MemoryLabel(n) if *n == name))
            {
                continue;
            }
            if let Some(group) = name.strip_prefix("group:") {
                let members = group_members(action, group);
                // The group's list stored without any of its members (the 2021.1 raytracer
                // report's `trace`): NVIDIA still shows the column, with zeros.
                if !members.is_empty() || action.metric(&name).is_some() {
                    for member in &members {
                        read(&mut values, member);
                    }
                    columns.push(Column {
                        label,
                        kind: ColumnKind::Sum(members),
                    });
                }
                continue;
            }
            // Only metrics with per-PC values (a kernel without warp samples stores its stall
            // metrics as plain zeros: NVIDIA shows the group sums, not the members).
            if !read(&mut values, &name) {
                continue;
            }
            let kind = if MEMORY_METRICS.contains(&name.as_str()) {
                ColumnKind::MemoryLabel(name.clone())
            } else {
                ColumnKind::Metric(name.clone())
            };
            columns.push(Column { label, kind });
        }
        if !have_section {
            // Every stored per-PC metric, by name.
            for (name, _) in action.metrics_by_name() {
                if !read(&mut values, name) {
                    continue;
                }
                columns.push(Column {
                    label: name.to_owned(),
                    kind: if MEMORY_METRICS.contains(&name) {
                        ColumnKind::MemoryLabel(name.to_owned())
                    } else {
                        ColumnKind::Metric(name.to_owned())
                    },
                });
            }
        }
        SourceColumns { columns, values }
    }

    /// The columns, in the page's order.
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// The per-PC values of a metric a column reads.
    pub fn metric(&self, name: &str) -> Option<&PcValues> {
        self.values.get(name)
    }

    /// Every PC that has a value in some column.
    pub fn pcs(&self) -> Vec<u64> {
        let mut pcs: Vec<u64> = self
            .columns
            .iter()
            .flat_map(|c| c.kind_names())
            .filter_map(|n| self.values.get(&n))
            .flat_map(PcValues::pcs)
            .collect();
        pcs.sort_unstable();
        pcs.dedup();
        pcs
    }

    /// A numeric column's value at `pc` (`None`: the metric has no value there).
    pub fn number(&self, column: &Column, pc: u64) -> Option<f64> {
        match &column.kind {
            // A metric the result holds shows 0 where it has no instance (NVIDIA's page).
            // Group members without per-PC values (no samples) show 0 too.
            ColumnKind::Metric(name) => Some(
                self.values
                    .get(name)
                    .map_or(0.0, |v| v.get(pc).unwrap_or(0.0)),
            ),
            ColumnKind::Sum(names) => Some(
                names
                    .iter()
                    .filter_map(|n| self.values.get(n)?.get(pc))
                    .sum(),
            ),
            ColumnKind::MemoryLabel(_) => None,
        }
    }

    /// A label column's text at `pc`: `None` when the metric has no value there, `Some("")`
    /// for the code 0.
    pub fn label(&self, column: &Column, pc: u64) -> Option<String> {
        let ColumnKind::MemoryLabel(name) = &column.kind else {
            return None;
        };
        let code = self.values.get(name)?.get(pc)?;
        // Label codes are small whole numbers stored as reals.
        Some(memory_label(name, float_to_u64(code)).unwrap_or_default())
    }

    /// The cells of the instructions at `pcs`, one row per PC with one cell per column: what
    /// [`SourceColumns::number`] and [`SourceColumns::label`] give, gathered in one pass over
    /// each metric's values instead of one lookup per cell.
    pub fn cells(&self, pcs: &[u64]) -> Vec<Vec<Cell>> {
        let sorted = pcs.windows(2).all(|w| w[0] < w[1]);
        let index: HashMap<u64, usize> = if sorted {
            HashMap::new()
        } else {
            pcs.iter().enumerate().map(|(i, &pc)| (pc, i)).collect()
        };
        let row_of = |pc: u64| -> Option<usize> {
            if sorted {
                pcs.binary_search(&pc).ok()
            } else {
                index.get(&pc).copied()
            }
        };
        let values_of = |name: &str| self.values.get(name).into_iter().flat_map(PcValues::iter);
        let mut rows: Vec<Vec<Cell>> = (0..pcs.len())
            .map(|_| Vec::with_capacity(self.columns.len()))
            .collect();
        let mut column: Vec<Option<f64>> = Vec::with_capacity(pcs.len());
        for kind in self.columns.iter().map(|c| &c.kind) {
            column.clear();
            match kind {
                // 0 where the metric has no value (see `number`).
                ColumnKind::Metric(_) => column.resize(pcs.len(), Some(0.0)),
                ColumnKind::Sum(_) => column.resize(pcs.len(), Some(empty_sum())),
                ColumnKind::MemoryLabel(_) => column.resize(pcs.len(), None),
            }
            match kind {
                ColumnKind::Metric(name) | ColumnKind::MemoryLabel(name) => {
                    for (pc, v) in values_of(name) {
                        if let Some(r) = row_of(pc) {
                            column[r] = Some(v);
                        }
                    }
                }
                // Added in the members' order, as `number` sums them.
                ColumnKind::Sum(names) => {
                    for name in names {
                        for (pc, v) in values_of(name) {
                            if let Some(Some(sum)) = row_of(pc).map(|r| &mut column[r]) {
                                *sum += v;
                            }
                        }
                    }
                }
            }
            for (row, value) in rows.iter_mut().zip(&column) {
                row.push(match (kind, value) {
                    (_, None) => Cell::Empty,
                    (ColumnKind::MemoryLabel(name), Some(code)) => {
                        Cell::Text(memory_label(name, float_to_u64(*code)).unwrap_or_default())
                    }
                    (_, Some(v)) => Cell::Number(*v),
                });
            }
        }
        rows
    }
}

impl Column {
    /// The metric names the column reads.
    pub fn kind_names(&self) -> Vec<String> {
        match &self.kind {
            ColumnKind::Metric(n) | ColumnKind::MemoryLabel(n) => vec![n.clone()],
            ColumnKind::Sum(names) => names.clone(),
        }
    }
}

/// `(name, label)` of the Source page's metrics, in the page's order (the label `None` when
/// the entry has none: the header is then the metric's name).
///
/// - A `SourceCounters` section with `SourceMetrics` (2023.3 and later): those, in order.
/// - Before, only `Metrics` lists (NVIDIA's 2024.1 page reads them this way): the
///   `SourceCounters` section's `group:` entries first, then the entries of every embedded
///   section's `Metrics`, sections by their `Order`. The caller keeps those with per-PC
///   values, the first entry of a metric defining its column (so `InstructionStats`, order
///   60, places `inst_executed` before `SourceCounters`' own entries, with that section's
///   label or, without one, its name). An entry whose label is present but empty is not a
///   column (2021.x and 2022.1 `InstructionStats` list `inst_executed` that way).
fn section_entries(sections: &[ProfilerSection]) -> Vec<(String, Option<String>)> {
    let Some(section) = sections.iter().find(|s| s.identifier == "SourceCounters") else {
        return Vec::new();
    };
    let entry = |e: &crate::proto::nv::profiler::ProfilerSectionMetric| {
        (e.name.clone(), e.label.clone().filter(|l| !l.is_empty()))
    };
    if let Some(list) = section
        .source_metrics
        .as_ref()
        .filter(|m| !m.metrics.is_empty())
    {
        return list.metrics.iter().map(entry).collect();
    }
    let metrics_of = |s: &ProfilerSection| {
        s.metrics
            .iter()
            .flat_map(|m| m.metrics.iter())
            .filter(|e| e.label.as_deref() != Some(""))
            .cloned()
            .collect::<Vec<_>>()
    };
    let own = metrics_of(section);
    let mut entries: Vec<(String, Option<String>)> = own
        .iter()
        .filter(|e| e.name.starts_with("group:"))
        .map(entry)
        .collect();
    let mut ordered: Vec<&ProfilerSection> = sections.iter().collect();
    ordered.sort_by_key(|s| s.order.unwrap_or(u32::MAX));
    for s in ordered {
        entries.extend(
            metrics_of(s)
                .iter()
                .filter(|e| !e.name.starts_with("group:"))
                .map(entry),
        );
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::section_entries;
    use crate::proto::nv::profiler::{
        ProfilerSection, ProfilerSectionMetric, ProfilerSectionMetrics,
    };

    fn entry(name: &str, label: Option<&str>) -> ProfilerSectionMetric {
        ProfilerSectionMetric {
            name: name.into(),
            label: label.map(str::to_owned),
            ..Default::default()
        }
    }

    fn section(
        id: &str,
        order: u32,
        metrics: Vec<ProfilerSectionMetric>,
        source: bool,
    ) -> ProfilerSection {
        let list = Some(ProfilerSectionMetrics {
            metrics,
            order: None,
        });
        ProfilerSection {
            identifier: id.into(),
            display_name: id.into(),
            order: Some(order),
            metrics: if source { None } else { list.clone() },
            source_metrics: if source { list } else { None },
            ..Default::default()
        }
    }

    fn names(entries: &[(String, Option<String>)]) -> Vec<String> {
        entries
            .iter()
            .map(|(n, l)| l.clone().unwrap_or_else(|| n.clone()))
            .collect()
    }

    /// Sections with only `Metrics` (before 2023.3), as the 2022.4.0 RTX 3080 Ti report embeds
    /// them: the `group:` columns first, then every section's entries by `Order`
    /// (InstructionStats' unlabelled `inst_executed` before SourceCounters' own); an empty
    /// label hides an entry (2021.x InstructionStats).
    #[test]
    fn legacy_sections_order_as_ncu_2024_1() {
        let counters = section(
            "SourceCounters",
            100,
            vec![
                entry("group:stalls", Some("Warp Stall Sampling (All Cycles)")),
                entry("smsp__pcsamp_sample_count", Some("# Samples")),
                entry("inst_executed", Some("Instructions Executed")),
                entry("thread_inst_executed", Some("Thread Instructions Executed")),
            ],
            false,
        );
        let stats = |label: Option<&str>| {
            section(
                "InstructionStats",
                60,
                vec![entry("inst_executed", label)],
                false,
            )
        };
        let got = section_entries(&[stats(None), counters.clone()]);
        assert_eq!(
            names(&got)[..3],
            [
                "Warp Stall Sampling (All Cycles)",
                "inst_executed",
                "# Samples"
            ]
        );
        let got = section_entries(&[stats(Some("Instructions Executed")), counters.clone()]);
        assert_eq!(
            names(&got)[..3],
            [
                "Warp Stall Sampling (All Cycles)",
                "Instructions Executed",
                "# Samples"
            ]
        );
        let got = section_entries(&[stats(Some("")), counters.clone()]);
        assert_eq!(
            names(&got)[..3],
            [
                "Warp Stall Sampling (All Cycles)",
                "# Samples",
                "Instructions Executed"
            ]
        );
        // `SourceMetrics` (2023.3 and later): that list alone, in its order.
        let mut current = counters;
        current.source_metrics = current.metrics.take();
        let got = section_entries(&[stats(None), current]);
        assert_eq!(
            names(&got)[..3],
            [
                "Warp Stall Sampling (All Cycles)",
                "# Samples",
                "Instructions Executed"
            ]
        );
    }
}
