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

mod kind;
mod metrics;

pub use kind::{FixedWidget, Roofline, Sort, SortKey, TableLayout};
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
    ProfilerSection, ProfilerSectionBarChart, ProfilerSectionBodyItem,
    ProfilerSectionHistogramChart, ProfilerSectionLineChart, ProfilerSectionMetric,
    ProfilerSectionRooflineChart, ProfilerSectionRooflineValue, ProfilerSectionTable,
    ProfilerSourceMetricTable, ProfilerSuffixTable, SortDirections,
    profiler_section_roofline_value::RooflineValue,
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

/// A body item, resolved: what every kind has (label, description, entries, nested items) and
/// its [`ItemKind`] with what is specific to it.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// What the item is, with what only that kind carries.
    pub kind: ItemKind,
    /// The item's label.
    pub label: String,
    /// The item's description.
    pub description: Option<String>,
    /// The metrics it shows.
    pub entries: Vec<Entry>,
    /// Nested items (horizontal containers).
    pub items: Vec<Item>,
}

/// The kind of a body item, with what only that kind carries.
#[derive(Debug, Clone, PartialEq)]
pub enum ItemKind {
    /// A table of entries.
    Table(TableLayout),
    /// A bar chart (horizontal bars).
    BarChart {
        /// The axes as the section file gives them.
        axes: ChartAxes,
        /// The order of `entries`, as the section gives it.
        sort: Option<Sort>,
    },
    /// A line chart.
    LineChart {
        /// The axes as the section file gives them.
        axes: ChartAxes,
        /// The kernel's own values on the x axis (`HighlightX`), e.g. its block size on
        /// "Impact of Varying Block Size".
        highlights: Vec<Entry>,
    },
    /// A histogram of one metric's instances.
    Histogram {
        /// The axes as the section file gives them.
        axes: ChartAxes,
    },
    /// A horizontal container of `items`.
    Container,
    /// A roofline chart.
    Roofline(Roofline),
    /// A source metric table: how many instructions to list and in which order.
    SourceMetricTable(HotSpots),
    /// A suffix table.
    SuffixTable {
        /// Each entry's row label (its base metric's), parallel to `entries`.
        row_labels: Vec<String>,
    },
    /// The memory chart or a memory table: the layout of `entries` ([`super::memory`]).
    Memory(MemoryWidget),
    /// NUMA and NVLink widgets, PM sampling timeline: the layout of `entries`
    /// ([`super::system`]).
    System(SystemWidget),
    /// A fixed Nsight Compute widget drawn from no metric list of the section file (or one
    /// whose layout this architecture does not have).
    Fixed(FixedWidget),
}

impl ItemKind {
    /// The kind's name, as the JSON and CSV outputs print it: `table`, `bar_chart`,
    /// `line_chart`, `histogram`, `container`, `roofline`, `source_metric_table`,
    /// `suffix_table`, `memory_chart`, `memory_table`, a system widget's or a fixed widget's
    /// field name (`numa_id_table`, `timeline`...).
    pub fn name(&self) -> &'static str {
        match self {
            ItemKind::Table(_) => "table",
            ItemKind::BarChart { .. } => "bar_chart",
            ItemKind::LineChart { .. } => "line_chart",
            ItemKind::Histogram { .. } => "histogram",
            ItemKind::Container => "container",
            ItemKind::Roofline(_) => "roofline",
            ItemKind::SourceMetricTable(_) => "source_metric_table",
            ItemKind::SuffixTable { .. } => "suffix_table",
            ItemKind::Memory(widget) => memory::item_kind(widget),
            ItemKind::System(widget) => system::item_kind(widget),
            ItemKind::Fixed(widget) => widget.name(),
        }
    }

    /// Whether the item is the PM sampling timeline (laid out or not).
    pub fn is_timeline(&self) -> bool {
        matches!(
            self,
            ItemKind::System(SystemWidget::Timeline(_)) | ItemKind::Fixed(FixedWidget::Timeline)
        )
    }

    /// A table of one row-major column, unsorted.
    pub fn table() -> ItemKind {
        ItemKind::Table(TableLayout::default())
    }
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
    fn new(kind: ItemKind, label: Option<&String>, description: Option<&String>) -> Item {
        Item {
            description: description.cloned(),
            ..Item::empty(kind, label.map_or("", String::as_str))
        }
    }

    /// An item of `kind` labelled `label` with nothing in it (fill what a view needs with
    /// `Item { entries, ..Item::empty(kind, label) }`).
    pub fn empty(kind: ItemKind, label: &str) -> Item {
        Item {
            kind,
            label: label.to_owned(),
            description: None,
            entries: Vec::new(),
            items: Vec::new(),
        }
    }

    /// The axes of a bar chart, line chart or histogram.
    pub fn axes(&self) -> Option<&ChartAxes> {
        match &self.kind {
            ItemKind::BarChart { axes, .. }
            | ItemKind::LineChart { axes, .. }
            | ItemKind::Histogram { axes } => Some(axes),
            _ => None,
        }
    }

    /// The order of a table's or bar chart's entries, as the section gives it.
    pub fn sort(&self) -> Option<Sort> {
        match &self.kind {
            ItemKind::Table(TableLayout { sort, .. }) | ItemKind::BarChart { sort, .. } => *sort,
            _ => None,
        }
    }

    /// A roofline chart's lines and points.
    pub fn roofline(&self) -> Option<&Roofline> {
        match &self.kind {
            ItemKind::Roofline(roofline) => Some(roofline),
            _ => None,
        }
    }

    /// The layout of a memory chart or table.
    pub fn memory(&self) -> Option<&MemoryWidget> {
        match &self.kind {
            ItemKind::Memory(widget) => Some(widget),
            _ => None,
        }
    }

    /// The layout of a NUMA or NVLink widget or the PM sampling timeline.
    pub fn system(&self) -> Option<&SystemWidget> {
        match &self.kind {
            ItemKind::System(widget) => Some(widget),
            _ => None,
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
    if let Some(table) = &item.table {
        return Some(table_item(table, section_filter, metrics));
    }
    if let Some(chart) = &item.bar_chart {
        return Some(bar_chart_item(chart, section_filter, metrics));
    }
    if let Some(chart) = &item.line_chart {
        return Some(line_chart_item(chart, section_filter, metrics));
    }
    if let Some(chart) = &item.histogram_chart {
        return Some(histogram_item(chart, section_filter, metrics));
    }
    if let Some(container) = &item.horizontal_container {
        let mut out = Item::new(ItemKind::Container, None, None);
        out.items = container
            .items
            .iter()
            .filter_map(|i| resolve_item(i, section_filter, target, metrics))
            .collect();
        return Some(out);
    }
    if let Some(chart) = &item.roofline_chart {
        return Some(roofline_item(chart, section_filter, metrics));
    }
    if let Some(table) = &item.source_metric_table {
        return Some(source_metric_table_item(table, section_filter, metrics));
    }
    if let Some(table) = &item.suffix_table {
        return Some(suffix_table_item(table, section_filter, metrics));
    }
    if let Some(out) = memory_item(item, target, metrics) {
        return Some(out);
    }
    if let Some(out) = system_item(item, section_filter, metrics) {
        return Some(out);
    }
    FixedWidget::of(item).map(|widget| Item::new(ItemKind::Fixed(widget), None, None))
}

/// The entries of a list of section metrics, in order, with `ShowInstances` honoured.
fn item_entries(
    list: &[ProfilerSectionMetric],
    section_filter: Option<&MetricOptionFilter>,
    metrics: &mut MetricSource<'_>,
) -> Vec<Entry> {
    list.iter()
        .flat_map(|m| metrics.entries(m, section_filter, true))
        .collect()
}

/// A metric table: its column layout and its entries in the table's sort order.
fn table_item(
    table: &ProfilerSectionTable,
    section_filter: Option<&MetricOptionFilter>,
    metrics: &mut MetricSource<'_>,
) -> Item {
    let sort = Sort::from_file(table.sort_key, table.sort_direction);
    let layout = TableLayout {
        columns: table.columns,
        column_major: table.order == Some(1),
        sort,
    };
    let mut out = Item::new(
        ItemKind::Table(layout),
        table.label.as_ref(),
        table.description.as_ref(),
    );
    out.entries = item_entries(&table.metrics, section_filter, metrics);
    sort_entries(&mut out.entries, sort);
    out
}

/// A bar chart: its value and category axes and its entries in the chart's sort order.
fn bar_chart_item(
    chart: &ProfilerSectionBarChart,
    section_filter: Option<&MetricOptionFilter>,
    metrics: &mut MetricSource<'_>,
) -> Item {
    let sort = Sort::from_file(chart.sort_key, chart.sort_direction);
    let axes = ChartAxes {
        x: ChartAxis::value(chart.value_axis.as_ref()),
        y: ChartAxis::labelled(chart.category_axis.as_ref().and_then(|a| a.label.as_ref())),
    };
    let mut out = Item::new(
        ItemKind::BarChart { axes, sort },
        chart.label.as_ref(),
        chart.description.as_ref(),
    );
    out.entries = item_entries(&chart.metrics, section_filter, metrics);
    sort_entries(&mut out.entries, sort);
    out
}

/// A line chart: its axes, its entries and the entries of its highlighted x values.
fn line_chart_item(
    chart: &ProfilerSectionLineChart,
    section_filter: Option<&MetricOptionFilter>,
    metrics: &mut MetricSource<'_>,
) -> Item {
    let axes = ChartAxes {
        x: ChartAxis::value(chart.axis_x.as_ref()),
        y: ChartAxis::value(chart.axis_y.as_ref()),
    };
    let entries_of_chart = item_entries(&chart.metrics, section_filter, metrics);
    let highlights = match &chart.highlight_x {
        Some(highlight) => item_entries(&highlight.metrics, section_filter, metrics),
        None => Vec::new(),
    };
    let mut out = Item::new(
        ItemKind::LineChart { axes, highlights },
        chart.label.as_ref(),
        chart.description.as_ref(),
    );
    out.entries = entries_of_chart;
    out
}

/// A histogram: its axes and its one metric, whose instances are always read.
fn histogram_item(
    chart: &ProfilerSectionHistogramChart,
    section_filter: Option<&MetricOptionFilter>,
    metrics: &mut MetricSource<'_>,
) -> Item {
    let axes = ChartAxes {
        x: ChartAxis::labelled(chart.histogram_axis.as_ref().and_then(|a| a.label.as_ref())),
        y: ChartAxis::value(chart.value_axis.as_ref()),
    };
    let mut out = Item::new(
        ItemKind::Histogram { axes },
        chart.label.as_ref(),
        chart.description.as_ref(),
    );
    out.entries = item_entries(std::slice::from_ref(&chart.metric), section_filter, metrics);
    for entry in &mut out.entries {
        if entry.instances.is_none() {
            entry.instances = metrics.instances(&entry.metric);
        }
    }
    out
}

/// A source metric table: how many hot spots it shows, in which order, and its entries.
fn source_metric_table_item(
    table: &ProfilerSourceMetricTable,
    section_filter: Option<&MetricOptionFilter>,
    metrics: &mut MetricSource<'_>,
) -> Item {
    let hot_spots = HotSpots {
        rows: table.rows.filter(|r| *r > 0).unwrap_or(5),
        ascending: table.sort_direction == Some(SortDirections::Ascending as i32),
    };
    let mut out = Item::new(
        ItemKind::SourceMetricTable(hot_spots),
        table.label.as_ref(),
        table.description.as_ref(),
    );
    out.entries = item_entries(&table.metrics, section_filter, metrics);
    out
}

/// A suffix table: one entry per base name and suffix (labelled "row column"), and the row
/// label of each entry.
fn suffix_table_item(
    table: &ProfilerSuffixTable,
    section_filter: Option<&MetricOptionFilter>,
    metrics: &mut MetricSource<'_>,
) -> Item {
    let mut out = Item::new(
        ItemKind::SuffixTable {
            row_labels: Vec::new(),
        },
        table.label.as_ref(),
        table.description.as_ref(),
    );
    let mut row_labels = Vec::new();
    for base in &table.base_names.base_name {
        for suffix in &table.suffixes.suffix {
            let mut metric = base.clone();
            metric.name = format!("{}{}", base.name, suffix.name);
            let row = base.label.as_deref().unwrap_or(&base.name);
            let column = suffix.label.as_deref().unwrap_or(&suffix.name);
            metric.label = Some(format!("{row} {column}"));
            metric.options.clear();
            let new = metrics.entries(&metric, section_filter, true);
            row_labels.extend(new.iter().map(|_| row.to_owned()));
            out.entries.extend(new);
        }
    }
    out.kind = ItemKind::SuffixTable { row_labels };
    out
}

/// A memory workload widget (chart or table) laid out for the target's compute capability;
/// `None` when the item is no memory widget or the layout does not apply.
fn memory_item(
    item: &ProfilerSectionBodyItem,
    target: Target,
    metrics: &mut MetricSource<'_>,
) -> Option<Item> {
    let (widget, label, rows) = memory::widget_of(item)?;
    let lookup = |name: &str| metrics.metric_entry(name);
    let (layout, entries) = memory::build(widget, target.compute_capability, rows, &lookup)?;
    let mut out = Item::new(ItemKind::Memory(layout), label.as_ref(), None);
    out.entries = entries;
    Some(out)
}

/// A roofline chart: each roofline's and achieved value's work and traffic, and the entries
/// they were computed from.
fn roofline_item(
    chart: &ProfilerSectionRooflineChart,
    section_filter: Option<&MetricOptionFilter>,
    metrics: &mut MetricSource<'_>,
) -> Item {
    let mut entries = Vec::new();
    let mut roofline = Roofline::default();
    let peaks = chart.rooflines.iter().map(|r| {
        let label = r.options.as_ref().and_then(|o| o.label.clone());
        (label, &r.peak_work, &r.peak_traffic, true)
    });
    let achieved = chart.achieved_values.iter().map(|a| {
        let label = a.options.as_ref().and_then(|o| o.label.clone());
        (label, &a.achieved_work, &a.achieved_traffic, false)
    });
    for (label, work, traffic, peak) in peaks.chain(achieved) {
        let label = label.unwrap_or_default();
        let start = entries.len();
        let work = metrics.roofline_value(work, section_filter, &mut entries);
        let middle = entries.len();
        let traffic = metrics.roofline_value(traffic, section_filter, &mut entries);
        roofline.parts.push(RooflinePart {
            label: label.clone(),
            work: start..middle,
            traffic: middle..entries.len(),
        });
        let point = RooflinePoint {
            label,
            work,
            traffic,
        };
        if peak {
            roofline.rooflines.push(point);
        } else {
            roofline.points.push(point);
        }
    }
    Item {
        entries,
        ..Item::new(
            ItemKind::Roofline(roofline),
            chart.label.as_ref(),
            chart.description.as_ref(),
        )
    }
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
        let kind = ItemKind::System(SystemWidget::Timeline(layout));
        let mut out = Item::new(kind, timeline.label.as_ref(), None);
        out.entries = entries;
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
    let mut out = Item::new(ItemKind::System(layout), label.as_ref(), None);
    out.entries = entries;
    Some(out)
}
