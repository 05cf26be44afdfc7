//! The details page (`ncu --import R --page details`): per kernel, each section's header
//! metrics (with `--print-details all` also its body items' metrics) followed by the stored
//! rule results that belong to the section.

use super::body::{BodyRow, body_entries, value_with_instances, with_group_members};
use super::chip::ChipLibrary;
use super::header::header_entries;
use super::launch::LaunchColumns;
use super::number::{UnitScale, entry_cli_unit, fixed, plain_text, resolved_entry_unit, scaled};
use super::raw::NO_DATA;
use super::resolved::ResolvedUnits;
use super::{Table, UnitMode};
use crate::ncu::rule_result::{MsgType, StoredMessage, rule_messages};
use crate::ncu::{Action, MetricValue, Report};
use crate::section::details::{DetailsSection, Entry, Item, KernelDetails};
use crate::section::system::SystemWidget;

/// Options of the details page.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DetailsOptions {
    /// `--print-units`.
    pub units: UnitMode,
    /// `--print-details all`: body items too, with a `Body Item Label` column.
    pub all: bool,
    /// `--print-metric-name name`: metric names instead of labels.
    pub metric_names: bool,
    /// `--print-nvtx-rename kernel`.
    pub nvtx_rename: bool,
}

/// The rule columns of the details page.
pub const RULE_COLUMNS: [&str; 5] = [
    "Rule Name",
    "Rule Type",
    "Rule Description",
    "Estimated Speedup Type",
    "Estimated Speedup",
];

/// The details page: its table, and the plain text lines the CLI writes between its rows.
#[derive(Debug, Clone, PartialEq)]
pub struct DetailsPage {
    /// The CSV table.
    pub table: Table,
    /// `(row, text)`: `text` (with its line ends) is written before row `row` (or at the end
    /// when `row` is the row count).
    pub lines: Vec<(usize, String)>,
}

/// What `--print-details all` writes, unquoted, where an NVLink topology without logical
/// links is (once per kernel, in every corpus report with the NVLink sections, 2021.2 to
/// 2024.2).
pub const NO_NVLINK: &str = "    The system does not have any NVLink connections.\n\n";

/// The details page of `actions` with their resolved pages (same order, same length). Rows
/// that carry no rule are shorter than the header when the page has rule columns (NVIDIA
/// writes them with a trailing comma); [`Table::rows`] keeps them short.
pub fn details_page(
    report: &Report,
    actions: &[Action],
    pages: &[KernelDetails],
    options: DetailsOptions,
) -> DetailsPage {
    let mut lines = Vec::new();
    let mut launch = LaunchColumns::for_actions(actions);
    launch.nvtx_rename = options.nvtx_rename;
    let with_rules = actions
        .iter()
        .any(|a| !rule_messages(a.rule_results()).is_empty());
    let header = details_header(&launch, options, with_rules);
    let mut rows = Vec::new();
    // Units resolve in the order the page prints, across kernels (see [`ResolvedUnits`]).
    let mut resolved = ResolvedUnits::default();
    for (action, page) in actions.iter().zip(pages) {
        let kernel = KernelRows {
            action,
            cells: launch.cells(report, action),
            library: ChipLibrary::of(action),
            options,
        };
        // The CLI prints no row for an entry without a message (a rule item that is only a
        // table or source markers: ee384's and sharedmem's `UncoalescedGlobalAccess`).
        let messages: Vec<StoredMessage<'_>> = rule_messages(action.rule_results())
            .into_iter()
            .filter(|m| !m.message.message.is_empty())
            .collect();
        let mut sections: Vec<&DetailsSection> = Vec::new();
        for section in page_order(page) {
            sections.push(section);
            sections.extend(section.children.iter());
        }
        for section in sections {
            let out = PageRows {
                rows: &mut rows,
                lines: &mut lines,
                resolved: &mut resolved,
            };
            kernel.section_rows(section, &messages, out);
        }
    }
    DetailsPage {
        table: Table {
            title: String::new(),
            header,
            rows,
        },
        lines,
    }
}

/// The header: the launch columns, the section (and with `all` the body item label), the
/// metric's name, unit and value, and the rule columns when any kernel has rule results.
fn details_header(
    launch: &LaunchColumns,
    options: DetailsOptions,
    with_rules: bool,
) -> Vec<String> {
    let mut header = launch.header();
    header.push("Section Name".to_owned());
    if options.all {
        header.push("Body Item Label".to_owned());
    }
    header.extend(["Metric Name", "Metric Unit", "Metric Value"].map(str::to_owned));
    if with_rules {
        header.extend(RULE_COLUMNS.map(str::to_owned));
    }
    header
}

/// Where a section's rows go: the table's rows, the text lines between them, and the units
/// resolved so far.
struct PageRows<'a> {
    rows: &'a mut Vec<Vec<String>>,
    lines: &'a mut Vec<(usize, String)>,
    resolved: &'a mut ResolvedUnits,
}

/// One kernel's rows: its launch cells, its chip's number formats, and the page options.
struct KernelRows<'a> {
    action: &'a Action,
    cells: Vec<String>,
    library: ChipLibrary,
    options: DetailsOptions,
}

impl KernelRows<'_> {
    /// One section's rows: its header metrics, with `all` its body items' metrics (and the
    /// text lines of an NVLink topology without links and of NUMA tables), then the messages
    /// of the rules that belong to it.
    fn section_rows(
        &self,
        section: &DetailsSection,
        messages: &[StoredMessage<'_>],
        out: PageRows<'_>,
    ) {
        let PageRows {
            rows,
            lines,
            resolved,
        } = out;
        let (action, options) = (self.action, self.options);
        if options.all && section.body.iter().any(empty_topology) {
            lines.push((rows.len(), NO_NVLINK.to_owned()));
        }
        for entry in header_entries(section, action, options.all) {
            rows.extend(self.metric_row(section, None, &entry, resolved));
        }
        if options.all {
            // The PM sampling timeline prints no rows (2024.1: the sections' header only, in
            // vec_add, T4 and sharedmem).
            for item in section.body.iter().filter(|i| !i.kind.is_timeline()) {
                let item = with_group_members(item, action);
                for row in body_entries(&item, options.units, self.library) {
                    rows.extend(self.metric_row(section, Some(row), row.entry, resolved));
                }
                if let Some(text) = numa_table_text(&item) {
                    lines.push((rows.len(), text));
                }
            }
        }
        for message in messages
            .iter()
            .filter(|m| m.rule.section_identifier == Some(section.identifier.as_str()))
        {
            let mut row = self.cells.clone();
            row.push(section.identifier.clone());
            if options.all {
                row.push(String::new());
            }
            row.extend([String::new(), String::new(), String::new()]);
            row.extend(rule_cells(message));
            rows.push(row);
        }
    }

    /// The row of one metric entry (of the header when `body` is `None`); `None` for an entry
    /// whose options left no metric for this architecture.
    fn metric_row(
        &self,
        section: &DetailsSection,
        body: Option<BodyRow<'_>>,
        entry: &Entry,
        resolved: &mut ResolvedUnits,
    ) -> Option<Vec<String>> {
        let (action, options) = (self.action, self.options);
        if entry.metric.is_empty() {
            return None;
        }
        // Entries resolve their units in print order (see [`ResolvedUnits`]): headers and
        // body items alike (yanni's `no_instructions` samples are `inst` after the Warp State
        // bar chart's rows in `inst`).
        let (format, value) = entry_format_by(entry, options.units, || {
            resolved_entry_unit(entry, self.library, resolved)
        });
        // A source metric stored only per instruction (`memory_access_type`: no
        // aggregate) prints an empty value, as the raw page's aggregate cell.
        let per_instruction_only = action
            .metric(&entry.metric)
            .is_some_and(|m| matches!(m.stored, MetricValue::None) && !m.instances.is_empty());
        let value = match body {
            _ if per_instruction_only => String::new(),
            Some(row) if row.instances => value_with_instances(action, entry, &format, value),
            // A section metric marked `ShowInstances` lists its instances too (the NUMA
            // section's `numa__cpu_affinity`: `1 (0-4)`, vec_add, T4, sharedmem).
            None if entry.instances.is_some() => {
                value_with_instances(action, entry, &format, value)
            }
            _ => value,
        };
        let mut row = self.cells.clone();
        row.push(section.display_name.clone());
        if options.all {
            row.push(body.map(|b| b.item).unwrap_or_default().to_owned());
        }
        row.push(if options.metric_names {
            entry.metric.clone()
        } else if entry.blank_label {
            String::new()
        } else {
            body.map_or(entry.label.as_str(), |b| b.label).to_owned()
        });
        row.push(format.unit);
        row.push(value);
        Some(row)
    }
}

/// Whether `item` (or an item it contains) is an NVLink topology without logical links.
fn empty_topology(item: &Item) -> bool {
    matches!(item.system(), Some(SystemWidget::Topology(t)) if t.links.is_empty())
        || item.items.iter().any(empty_topology)
}

/// The header line of the NUMA ID table as `--print-details all` writes it.
const NUMA_HEADER: [&str; 5] = [
    "GPU ID",
    "GPU Name",
    "NUMA ID by CPU Affinity",
    "CPU Affinity",
    "NUMA ID by Memory Affinity",
];

/// The metrics of [`NUMA_HEADER`]'s columns after the first (the device's correlation id).
const NUMA_METRICS: [&str; 4] = [
    "numa__dev_display_name_all",
    "numa__id_cpu",
    "numa__cpu_affinity",
    "numa__id_memory",
];

/// The NUMA ID table of `item` (or of an item it contains) as the CLI writes it where the item
/// is: a small CSV of its own, its header then one line per device, the device's id (the
/// instances' correlation id) then its name, NUMA node by CPU affinity, CPU affinity and NUMA
/// node by memory affinity, each instance's value as it is (vec_add: `"0","NVIDIA GeForce GTX
/// 1660 SUPER","0","0-4","0"`; the same in T4 and the seven sharedmem kernels, 2024.1..2024.2).
fn numa_table_text(item: &Item) -> Option<String> {
    let Some(SystemWidget::Table(table)) = item.system() else {
        return item.items.iter().find_map(numa_table_text);
    };
    if table.widget != "numa_id_table" {
        return None;
    }
    let quoted = |cells: &[String]| {
        let cells: Vec<String> = cells.iter().map(|c| format!("\"{c}\"")).collect();
        cells.join(",") + "\n"
    };
    let mut text = quoted(&NUMA_HEADER.map(str::to_owned));
    for row in &table.rows {
        let entries: Vec<&Entry> = row
            .cells
            .iter()
            .flatten()
            .filter_map(|&i| item.entries.get(i))
            .collect();
        let instance = |metric: &str| {
            entries
                .iter()
                .find(|e| e.metric == metric)
                .and_then(|e| e.instances.as_ref()?.first())
        };
        let device = NUMA_METRICS
            .iter()
            .find_map(|m| instance(m)?.0.as_ref())
            .map(plain_text)
            .unwrap_or_default();
        let mut cells = vec![device];
        cells.extend(
            NUMA_METRICS
                .iter()
                .map(|m| instance(m).map(|(_, v)| plain_text(v)).unwrap_or_default()),
        );
        text.push_str(&quoted(&cells));
    }
    Some(text)
}

/// The page's sections in the CLI's order: the page's order (`Order`, sections without one
/// last), sections of equal `Order` by display name (vec_add: "GPU and Memory Workload
/// Distribution" before "Source Counters", both 100).
pub fn page_order(page: &KernelDetails) -> Vec<&DetailsSection> {
    let mut sections: Vec<&DetailsSection> = page.sections.iter().collect();
    for run in sections.chunk_by_mut(|a, b| a.order == b.order) {
        run.sort_by(|a, b| a.display_name.cmp(&b.display_name));
    }
    sections
}

/// What the CLI prints for a metric the report lacks (with an empty unit).
pub const NOT_AVAILABLE: &str = "n/a";

/// How an entry's numbers print: the unit cell and the divisor of the scale step the value
/// reached (`None`: unscaled).
#[derive(Debug, Clone, PartialEq)]
pub struct EntryFormat {
    /// The `Metric Unit` cell.
    pub unit: String,
    /// What values are divided by after scaling.
    pub divisor: Option<f64>,
}

/// An entry's format and value cell (empty unit and `n/a` when the report lacks the metric,
/// `no data` when it stores the metric without a value).
/// A value scaled into a larger unit prints as any double does: integral without decimals
/// (`144` usecond), else with 2 (`131.07` Kbyte).
pub fn entry_format(entry: &Entry, units: UnitMode, library: ChipLibrary) -> (EntryFormat, String) {
    entry_format_by(entry, units, || entry_cli_unit(entry, library))
}

/// [`entry_format`] with the entry's base unit from `base_unit` (called once, and only when
/// the report stores the metric).
pub fn entry_format_by(
    entry: &Entry,
    units: UnitMode,
    base_unit: impl FnOnce() -> String,
) -> (EntryFormat, String) {
    let unscaled = |unit: String| EntryFormat {
        unit,
        divisor: None,
    };
    let value = match entry.value.as_ref() {
        None => return (unscaled(String::new()), NOT_AVAILABLE.to_owned()),
        // A metric stored without a value (a derived metric whose inputs were not collected,
        // raytracer's `derived__smsp__inst_executed_op_branch_pct`) has its unit and `no data`,
        // as on the raw page.
        Some(MetricValue::None) => {
            return (unscaled(base_unit()), NO_DATA.to_owned());
        }
        Some(value) => value,
    };
    let base = base_unit();
    if let MetricValue::String(s) = value {
        return (unscaled(base), s.clone());
    }
    if units == UnitMode::Auto
        && let Some(scale) = UnitScale::of(&base)
        && let Some(v) = value.as_f64()
    {
        let step = scale.step_for(v.abs());
        if step > 0 {
            let divisor = scale.divisor(step);
            let format = EntryFormat {
                unit: scale.unit(step).to_owned(),
                divisor: Some(divisor),
            };
            return (format, plain_text(&MetricValue::Double(scaled(v, divisor))));
        }
        return (unscaled(scale.unit(0).to_owned()), plain_text(value));
    }
    (unscaled(base), plain_text(value))
}

/// `Rule Name`, `Rule Type`, `Rule Description`, `Estimated Speedup Type`,
/// `Estimated Speedup`.
pub fn rule_cells(stored: &StoredMessage<'_>) -> [String; 5] {
    let message = &stored.message;
    let kind = match message.msg_type {
        MsgType::Optimization => "OPT",
        MsgType::Warning => "WRN",
        MsgType::Error => "ERR",
        MsgType::Ok => "INF",
        MsgType::None => "",
    };
    let (speedup_type, speedup) = match message.speedup.map(|s| (s.kind, s.value)) {
        Some((1, v)) => ("local", significant(v, 4)),
        Some((2, v)) => ("global", significant(v, 4)),
        _ => ("", String::new()),
    };
    [
        stored.rule.identifier.to_owned(),
        kind.to_owned(),
        crate::ncu::markup::plain(&message.message),
        speedup_type.to_owned(),
        speedup,
    ]
}

/// `v` with `digits` significant digits and no trailing zeros (C's `%.*g` without the
/// exponent form for ordinary magnitudes): `93.57`, `8.323`, `50`.
pub fn significant(v: f64, digits: i32) -> String {
    if !v.is_finite() {
        return fixed(v, 0);
    }
    if v == 0.0 {
        return "0".to_owned();
    }
    // The exponent after rounding to `digits` significant digits (99.99951 → 1.000e2).
    let precision = (digits - 1).max(0) as usize;
    let scientific = format!("{v:.precision$e}");
    let exponent: i32 = scientific
        .split_once('e')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0);
    let decimals = (digits - 1 - exponent).max(0) as usize;
    let mut text = format!("{v:.decimals$}");
    if text.contains('.') {
        text = text.trim_end_matches('0').trim_end_matches('.').to_owned();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::significant;

    #[test]
    fn four_significant_digits_without_trailing_zeros() {
        assert_eq!(significant(93.5712, 4), "93.57");
        assert_eq!(significant(8.32251, 4), "8.323");
        assert_eq!(significant(5.43, 4), "5.43");
        assert_eq!(significant(50.0, 4), "50");
        assert_eq!(significant(0.0123456, 4), "0.01235");
        assert_eq!(significant(99.99951, 4), "100");
    }
}
