//! The Details page of one action: every section resolved against the action's metrics.
//!
//! For each section (in `Order`) the header and body items are resolved: metric options and
//! filters pick the metric name for the action's architecture and collection scope
//! ([`super::filter`]), `regex:` names expand to every matching metric (full match, sorted by
//! name), body items with a failing `Filter` are dropped, metrics defined by `MetricDefinitions`
//! are computed when the report does not store them ([`super::derived`]), and each entry gets its
//! raw value (as NVIDIA's reader gives it), unit (section `Unit`, else inferred from the name) and
//! display text (after `Multiplier` and unit scaling, [`crate::format`]); a metric the report
//! lacks shows "N/A". Sections that `Extends` another are resolved as its children.

mod metrics;

use metrics::{MetricSource, own_metrics, sort_entries};

use super::derived::{self, Expression};
use super::filter::{Target, combine, passes, resolve_name};
use super::memory::{self, MemoryWidget};
use super::registry::SectionSet;
use super::system::{self, SystemWidget};
use crate::format::format_with_unit;
use crate::ncu::units::infer_unit;
use crate::ncu::{Action, Metric, MetricValue, NameBase};
use crate::proto::nv::profiler::messages::MetricOptionFilter;
use crate::proto::nv::profiler::{
    ProfilerSection, ProfilerSectionBodyItem, ProfilerSectionMetric, ProfilerSectionRooflineValue,
    SortDirections, profiler_section_roofline_value::RooflineValue,
};

pub use super::breakdown::breakdown_label;

/// One metric shown on the page.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The label (the metric name when the section gives none).
    pub label: String,
    /// The resolved metric name.
    pub metric: String,
    /// The raw value as NVIDIA's reader gives it; `None` when the report lacks the metric.
    pub value: Option<MetricValue>,
    /// The unit: the section's `Unit`, else inferred from the metric name.
    pub unit: String,
    /// The display text after `Multiplier` and scaling ("N/A" when missing).
    pub text: String,
    /// A custom description from the section.
    pub description: Option<String>,
    /// `HWUnit` of the entry, if given.
    pub hw_unit: Option<i32>,
    /// Instance values `(correlation id, value)` when the entry has `ShowInstances`.
    pub instances: Option<Vec<(Option<MetricValue>, MetricValue)>>,
    /// Whether the value was computed from a `MetricDefinitions` expression.
    pub derived: bool,
    /// Whether the section gives the metric an explicit empty `Label` (2020.2-2022.3's
    /// `inst_executed` and `sass__inst_executed_per_opcode` in "Instruction Statistics"):
    /// `label` is then the metric name, while NVIDIA's CLI prints an empty `Metric Name`.
    pub blank_label: bool,
}

/// A point or line of a roofline chart.
#[derive(Debug, Clone, PartialEq)]
pub struct RooflinePoint {
    /// Label from the section's options.
    pub label: String,
    /// Work (e.g. FLOP/s); `None` when an input is missing.
    pub work: Option<f64>,
    /// Traffic (e.g. byte/s); `None` when an input is missing.
    pub traffic: Option<f64>,
}

/// Which of a roofline chart's `entries` belong to one roofline or achieved value: NVIDIA's
/// CLI lists them under that roofline's label, the work inputs then the traffic inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RooflinePart {
    /// The roofline's or achieved value's label ("Single Precision Roofline").
    pub label: String,
    /// The entries of its work value.
    pub work: std::ops::Range<usize>,
    /// The entries of its traffic value.
    pub traffic: std::ops::Range<usize>,
}

/// A body item, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// `table`, `bar_chart`, `line_chart`, `histogram`, `container`, `roofline`,
    /// `source_metric_table`, `suffix_table`, or a fixed widget (`memory_chart`, ...).
    pub kind: &'static str,
    /// The item's label.
    pub label: String,
    /// The item's description.
    pub description: Option<String>,
    /// The metrics it shows.
    pub entries: Vec<Entry>,
    /// Nested items (horizontal containers).
    pub items: Vec<Item>,
    /// Table columns (tables only).
    pub columns: Option<u32>,
    /// Whether a table is laid out column by column.
    pub column_major: bool,
    /// Roofline lines (peaks) of a roofline chart.
    pub rooflines: Vec<RooflinePoint>,
    /// Achieved points of a roofline chart.
    pub points: Vec<RooflinePoint>,
    /// Roofline charts: the entries of each roofline, then of each achieved value.
    pub roofline_parts: Vec<RooflinePart>,
    /// The axes of a line chart, bar chart or histogram as the section file gives them.
    pub axes: ChartAxes,
    /// Line charts: the kernel's own values on the x axis (`HighlightX`), e.g. its block size
    /// on "Impact of Varying Block Size".
    pub highlights: Vec<Entry>,
    /// Memory chart and memory tables: the layout of `entries` ([`super::memory`]).
    pub memory: Option<MemoryWidget>,
    /// NUMA and NVLink widgets, PM sampling timeline: the layout of `entries`
    /// ([`super::system`]).
    pub system: Option<SystemWidget>,
    /// Source metric tables: how many instructions to list and in which order.
    pub hot_spots: Option<HotSpots>,
    /// Tables and bar charts: `(SortKey, descending)` as the section gives them (`SortKey` 0
    /// by label, 1 by value); `entries` are already in that order.
    pub sort: Option<(i32, bool)>,
    /// Suffix tables: each entry's row label (its base metric's), parallel to `entries`.
    pub row_labels: Vec<String>,
}

/// How a source metric table lists its instructions (`Rows`, `SortDirection`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HotSpots {
    /// How many instructions (`Rows`; 5 when the section gives none).
    pub rows: u32,
    /// Lowest values first (`SortDirection: Ascending`); highest first otherwise.
    pub ascending: bool,
}

/// One chart axis: its label and the range it must show (`Range { Min Max }`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChartAxis {
    /// `Label`, if given.
    pub label: Option<String>,
    /// `Range.Min`: the axis shows at least down to this value.
    pub min: Option<f64>,
    /// `Range.Max`: the axis shows at least up to this value.
    pub max: Option<f64>,
}

/// The axes of a chart: `x` is horizontal, `y` vertical. Bar charts are drawn with horizontal
/// bars, so their value axis is `x` and their category axis `y`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChartAxes {
    /// The horizontal axis.
    pub x: ChartAxis,
    /// The vertical axis.
    pub y: ChartAxis,
}

impl ChartAxis {
    fn labelled(label: Option<&String>) -> ChartAxis {
        ChartAxis {
            label: label.filter(|l| !l.is_empty()).cloned(),
            min: None,
            max: None,
        }
    }

    fn value(
        axis: Option<&crate::proto::nv::profiler::ProfilerSectionChartValueAxis>,
    ) -> ChartAxis {
        let Some(axis) = axis else {
            return ChartAxis::default();
        };
        let range = axis.range.as_ref();
        ChartAxis {
            min: range.and_then(|r| r.min).map(|v| v as f64),
            max: range.and_then(|r| r.max).map(|v| v as f64),
            ..ChartAxis::labelled(axis.label.as_ref())
        }
    }
}

impl Item {
    fn new(kind: &'static str, label: Option<&String>, description: Option<&String>) -> Item {
        Item {
            description: description.cloned(),
            ..Item::empty(kind, label.map_or("", String::as_str))
        }
    }

    /// An item of `kind` labelled `label` with nothing in it (fill what a view needs with
    /// `Item { entries, ..Item::empty(kind, label) }`).
    pub fn empty(kind: &'static str, label: &str) -> Item {
        Item {
            kind,
            label: label.to_owned(),
            description: None,
            entries: Vec::new(),
            items: Vec::new(),
            columns: None,
            column_major: false,
            rooflines: Vec::new(),
            points: Vec::new(),
            roofline_parts: Vec::new(),
            axes: ChartAxes::default(),
            highlights: Vec::new(),
            memory: None,
            system: None,
            hot_spots: None,
            sort: None,
            row_labels: Vec::new(),
        }
    }
}

/// A resolved section.
#[derive(Debug, Clone, PartialEq)]
pub struct DetailsSection {
    /// `Identifier`.
    pub identifier: String,
    /// `DisplayName`.
    pub display_name: String,
    /// `Order`.
    pub order: u32,
    /// `Description`.
    pub description: String,
    /// Header entries (a two-column label/value table).
    pub header: Vec<Entry>,
    /// Body items of all bodies, in order.
    pub body: Vec<Item>,
    /// The section's own `Metrics` and `SourceMetrics` (collected with it, not shown on its page).
    pub metrics: Vec<Entry>,
    /// Sections that extend this one.
    pub children: Vec<DetailsSection>,
}

/// The Details page of one action.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelDetails {
    /// The action's index in the report.
    pub index: usize,
    /// The action's function name.
    pub name: String,
    /// Sections in order.
    pub sections: Vec<DetailsSection>,
}

/// Resolves every section of `set` for `action`.
pub fn resolve_action(action: &Action, set: &SectionSet) -> KernelDetails {
    resolve_action_for(
        action,
        set,
        Target::new(action.kind(), action.compute_capability()),
    )
}

/// Resolves every section of `set` for `action` against `target` (the architecture and scope
/// filters are evaluated for it): NVIDIA's 2024.1 CLI takes a chip it does not know as compute
/// capability 5.0 and ignores `GpuArch` bounds after `CC_90`
/// ([`crate::ncu::pages::chip::ChipLibrary::target`]).
pub fn resolve_action_for(action: &Action, set: &SectionSet, target: Target) -> KernelDetails {
    let mut metrics = MetricSource::new(action, set, target);
    let children = set.children();
    let mut sections = Vec::new();
    for loaded in &set.sections {
        let section = &loaded.section;
        if section
            .extends
            .as_deref()
            .is_some_and(|p| set.get(p).is_some())
        {
            continue;
        }
        let Some(mut resolved) = resolve_section(section, target, &mut metrics) else {
            continue;
        };
        for child in children
            .get(section.identifier.as_str())
            .into_iter()
            .flatten()
        {
            if let Some(child) = resolve_section(&child.section, target, &mut metrics) {
                resolved.children.push(child);
            }
        }
        sections.push(resolved);
    }
    KernelDetails {
        index: action.index(),
        name: action.name(NameBase::Function).to_owned(),
        sections,
    }
}

/// Resolves one body item outside a section (a chart a rule loaded from a `.chart` file), or
/// `None` when its filter excludes the action.
pub fn resolve_chart(action: &Action, item: &ProfilerSectionBodyItem) -> Option<Item> {
    let target = Target::new(action.kind(), action.compute_capability());
    let mut metrics = MetricSource::new(action, &SectionSet::default(), target);
    resolve_item(item, None, target, &mut metrics)
}

/// Resolves one section, or `None` when its own filter excludes the action.
fn resolve_section(
    section: &ProfilerSection,
    target: Target,
    metrics: &mut MetricSource<'_>,
) -> Option<DetailsSection> {
    let filter = section.filter.as_ref();
    if !passes(filter, target) {
        return None;
    }
    let header = section
        .header
        .iter()
        .flat_map(|h| &h.metrics)
        .flat_map(|m| metrics.entries(m, filter, false))
        .collect();
    let body = section
        .body
        .iter()
        .flat_map(|b| &b.items)
        .filter_map(|item| resolve_item(item, filter, target, metrics))
        .collect();
    let own = own_metrics(section);
    let own = own
        .flat_map(|m| metrics.entries(m, filter, false))
        .collect();
    Some(DetailsSection {
        identifier: section.identifier.clone(),
        display_name: section.display_name.clone(),
        order: section.order.unwrap_or(0),
        description: section.description.clone().unwrap_or_default(),
        header,
        body,
        metrics: own,
        children: Vec::new(),
    })
}

fn resolve_item(
    item: &ProfilerSectionBodyItem,
    section_filter: Option<&MetricOptionFilter>,
    target: Target,
    metrics: &mut MetricSource<'_>,
) -> Option<Item> {
    if !passes(
        combine(section_filter, item.filter.as_ref()).as_ref(),
        target,
    ) {
        return None;
    }
    let entries = |list: &[ProfilerSectionMetric], metrics: &mut MetricSource<'_>| -> Vec<Entry> {
        list.iter()
            .flat_map(|m| metrics.entries(m, section_filter, true))
            .collect()
    };
    if let Some(table) = &item.table {
        let mut out = Item::new("table", table.label.as_ref(), table.description.as_ref());
        out.entries = entries(&table.metrics, metrics);
        sort_entries(&mut out.entries, table.sort_key, table.sort_direction);
        out.sort = table.sort_key.map(|k| (k, table.sort_direction == Some(1)));
        out.columns = Some(table.columns);
        out.column_major = table.order == Some(1);
        return Some(out);
    }
    if let Some(chart) = &item.bar_chart {
        let mut out = Item::new(
            "bar_chart",
            chart.label.as_ref(),
            chart.description.as_ref(),
        );
        out.entries = entries(&chart.metrics, metrics);
        sort_entries(&mut out.entries, chart.sort_key, chart.sort_direction);
        out.sort = chart.sort_key.map(|k| (k, chart.sort_direction == Some(1)));
        out.axes = ChartAxes {
            x: ChartAxis::value(chart.value_axis.as_ref()),
            y: ChartAxis::labelled(chart.category_axis.as_ref().and_then(|a| a.label.as_ref())),
        };
        return Some(out);
    }
    if let Some(chart) = &item.line_chart {
        let mut out = Item::new(
            "line_chart",
            chart.label.as_ref(),
            chart.description.as_ref(),
        );
        out.entries = entries(&chart.metrics, metrics);
        out.axes = ChartAxes {
            x: ChartAxis::value(chart.axis_x.as_ref()),
            y: ChartAxis::value(chart.axis_y.as_ref()),
        };
        if let Some(highlight) = &chart.highlight_x {
            out.highlights = entries(&highlight.metrics, metrics);
        }
        return Some(out);
    }
    if let Some(chart) = &item.histogram_chart {
        let mut out = Item::new(
            "histogram",
            chart.label.as_ref(),
            chart.description.as_ref(),
        );
        out.entries = entries(std::slice::from_ref(&chart.metric), metrics);
        for entry in &mut out.entries {
            if entry.instances.is_none() {
                entry.instances = metrics.instances(&entry.metric);
            }
        }
        out.axes = ChartAxes {
            x: ChartAxis::labelled(chart.histogram_axis.as_ref().and_then(|a| a.label.as_ref())),
            y: ChartAxis::value(chart.value_axis.as_ref()),
        };
        return Some(out);
    }
    if let Some(container) = &item.horizontal_container {
        let mut out = Item::new("container", None, None);
        out.items = container
            .items
            .iter()
            .filter_map(|i| resolve_item(i, section_filter, target, metrics))
            .collect();
        return Some(out);
    }
    if let Some(chart) = &item.roofline_chart {
        let mut out = Item::new("roofline", chart.label.as_ref(), chart.description.as_ref());
        for roofline in &chart.rooflines {
            let label = roofline
                .options
                .as_ref()
                .and_then(|o| o.label.clone())
                .unwrap_or_default();
            let start = out.entries.len();
            let work =
                metrics.roofline_value(&roofline.peak_work, section_filter, &mut out.entries);
            let middle = out.entries.len();
            let traffic =
                metrics.roofline_value(&roofline.peak_traffic, section_filter, &mut out.entries);
            out.roofline_parts.push(RooflinePart {
                label: label.clone(),
                work: start..middle,
                traffic: middle..out.entries.len(),
            });
            out.rooflines.push(RooflinePoint {
                label,
                work,
                traffic,
            });
        }
        for achieved in &chart.achieved_values {
            let label = achieved
                .options
                .as_ref()
                .and_then(|o| o.label.clone())
                .unwrap_or_default();
            let start = out.entries.len();
            let work =
                metrics.roofline_value(&achieved.achieved_work, section_filter, &mut out.entries);
            let middle = out.entries.len();
            let traffic = metrics.roofline_value(
                &achieved.achieved_traffic,
                section_filter,
                &mut out.entries,
            );
            out.roofline_parts.push(RooflinePart {
                label: label.clone(),
                work: start..middle,
                traffic: middle..out.entries.len(),
            });
            out.points.push(RooflinePoint {
                label,
                work,
                traffic,
            });
        }
        return Some(out);
    }
    if let Some(table) = &item.source_metric_table {
        let mut out = Item::new(
            "source_metric_table",
            table.label.as_ref(),
            table.description.as_ref(),
        );
        out.entries = entries(&table.metrics, metrics);
        out.hot_spots = Some(HotSpots {
            rows: table.rows.filter(|r| *r > 0).unwrap_or(5),
            ascending: table.sort_direction == Some(SortDirections::Ascending as i32),
        });
        return Some(out);
    }
    if let Some(table) = &item.suffix_table {
        let mut out = Item::new(
            "suffix_table",
            table.label.as_ref(),
            table.description.as_ref(),
        );
        for base in &table.base_names.base_name {
            for suffix in &table.suffixes.suffix {
                let mut metric = base.clone();
                metric.name = format!("{}{}", base.name, suffix.name);
                let row = base.label.as_deref().unwrap_or(&base.name);
                let column = suffix.label.as_deref().unwrap_or(&suffix.name);
                metric.label = Some(format!("{row} {column}"));
                metric.options.clear();
                let new = metrics.entries(&metric, section_filter, true);
                out.row_labels.extend(new.iter().map(|_| row.to_owned()));
                out.entries.extend(new);
            }
        }
        return Some(out);
    }
    if let Some((widget, label, rows)) = memory::widget_of(item) {
        let lookup = |name: &str| metrics.metric_entry(name);
        if let Some((layout, entries)) =
            memory::build(widget, target.compute_capability, rows, &lookup)
        {
            let mut out = Item::new(memory::item_kind(&layout), label.as_ref(), None);
            out.entries = entries;
            out.memory = Some(layout);
            return Some(out);
        }
    }
    if let Some(out) = system_item(item, section_filter, metrics) {
        return Some(out);
    }
    // The body item's fixed widgets, each named as its field, in the order they are looked for.
    macro_rules! widgets {
        ($($field:ident),* $(,)?) => {
            [$((item.$field.is_some(), stringify!($field))),*]
        };
    }
    let fixed = widgets![
        memory_shared_table,
        memory_first_level_cache_table,
        memory_second_level_cache_table,
        memory_device_memory_table,
        memory_chart,
        memory_l1tex_cache_table,
        memory_l2_cache_table,
        nvlink_topology,
        nvlink_property_table,
        nvlink_throughput_table,
        memory_l2_cache_evict_policy_table,
        numa_id_table,
        timeline,
        gfx_metrics_widget,
    ];
    fixed
        .iter()
        .find(|(present, _)| *present)
        .map(|(_, kind)| Item::new(kind, None, None))
}

/// The NUMA and NVLink widgets and the PM sampling timeline ([`super::system`]), or `None` for
/// any other body item.
fn system_item(
    item: &ProfilerSectionBodyItem,
    section_filter: Option<&MetricOptionFilter>,
    metrics: &mut MetricSource<'_>,
) -> Option<Item> {
    if let Some(timeline) = &item.timeline {
        let mut resolve = |metric: &ProfilerSectionMetric| {
            metrics
                .entries(metric, section_filter, false)
                .into_iter()
                .map(|entry| system::TimelineMetric {
                    instances: metrics.instances(&entry.metric),
                    entry,
                })
                .collect()
        };
        let (layout, entries) = system::build_timeline(timeline, &mut resolve);
        let mut out = Item::new("timeline", timeline.label.as_ref(), None);
        out.entries = entries;
        out.system = Some(SystemWidget::Timeline(layout));
        return Some(out);
    }
    let (widget, label) = system::widget_of(item)?;
    let entry = |name: &str| metrics.metric_entry(name);
    let instances = |name: &str| metrics.instances(name);
    let lookup = system::MetricLookup {
        entry: &entry,
        instances: &instances,
    };
    let (layout, entries) = system::build(widget, &lookup)?;
    let mut out = Item::new(system::item_kind(&layout), label.as_ref(), None);
    out.entries = entries;
    out.system = Some(layout);
    Some(out)
}
