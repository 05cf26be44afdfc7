//! What is computed once per page and kept between frames: the section tree's views
//! (`PageCache`, `SectionView`, `EntryView`, `ItemView` per body item) and the page's
//! fingerprint, so a frame only walks the page.

use super::*;

/// The ranked instructions of source metric tables by (metric, rows, ascending).
pub(super) type HotSpotRows = HashMap<(String, u32, bool), Vec<source_tables::HotSpotRow>>;

/// Derived data of one page, rebuilt when the page (or its rule results) change.
pub(super) struct PageCache {
    pub(super) fingerprint: u64,
    /// "ID 3" under the kernel's name.
    pub(super) title: String,
    pub(super) sections: Vec<SectionView>,
    pub(super) rules: Vec<RuleView>,
    /// Rules whose section is not on the page.
    pub(super) other_rules: Vec<usize>,
    /// Rule lines per section identifier.
    pub(super) rule_rows: HashMap<String, Vec<RuleLine>>,
    /// Lines of independent rules and of rules whose section is not on the page.
    pub(super) other_rule_rows: Vec<RuleLine>,
    /// Every section identifier on the page (children included).
    pub(super) known: HashSet<String>,
    /// Child section → parent section.
    pub(super) parents: HashMap<String, String>,
    /// Formatted instance rows, filled when a table is first expanded.
    pub(super) instance_rows: HashMap<u64, Vec<(String, String)>>,
    /// The ranked instructions of source metric tables, filled when first drawn.
    pub(super) hot_spot_rows: HotSpotRows,
    /// What those tables read (per-PC metrics, the kernel's module), made when first needed.
    pub(super) hot_spot_source: source_tables::HotSpotSource,
}

impl PageCache {
    pub(super) fn build(
        details: &KernelDetails,
        results: &[RuleResult],
        page_rules: &PageRules,
        fingerprint: u64,
        baselines: &[ComparedBaseline],
    ) -> PageCache {
        let (known, parents) = section_ids(details);
        let messages = page_messages(results, page_rules);
        let mut rules = Vec::with_capacity(messages.len());
        let mut by_section: HashMap<String, Vec<usize>> = HashMap::new();
        let mut other_rules = Vec::new();
        for (index, message) in messages.iter().enumerate() {
            rules.push(RuleView::new(message, index));
            match message
                .section_identifier
                .as_deref()
                .filter(|id| known.contains(*id))
            {
                Some(id) => by_section.entry(id.to_owned()).or_default().push(index),
                None => other_rules.push(index),
            }
        }
        let (rule_rows, other_rule_rows) = rule_lines(page_rules, &known);
        let sections = details
            .sections
            .iter()
            .map(|s| SectionView::build(s, &mut by_section, baselines))
            .collect();
        PageCache {
            fingerprint,
            title: format!("ID {}", details.index),
            sections,
            rules,
            other_rules,
            rule_rows,
            other_rule_rows,
            known,
            parents,
            instance_rows: HashMap::new(),
            hot_spot_rows: HashMap::new(),
            hot_spot_source: source_tables::HotSpotSource::default(),
        }
    }

    /// Section `id` and its ancestors.
    pub(super) fn path_to(&self, id: &str) -> Vec<String> {
        let mut path = vec![id.to_owned()];
        let mut current = id;
        while let Some(parent) = self.parents.get(current) {
            if path.contains(parent) {
                break;
            }
            path.push(parent.clone());
            current = parent;
        }
        path
    }
}

/// Every section identifier on the page (children included), and each child's parent.
fn section_ids(details: &KernelDetails) -> (HashSet<String>, HashMap<String, String>) {
    let mut known = HashSet::new();
    let mut parents = HashMap::new();
    fn walk(
        section: &DetailsSection,
        parent: Option<&str>,
        known: &mut HashSet<String>,
        parents: &mut HashMap<String, String>,
    ) {
        known.insert(section.identifier.clone());
        if let Some(parent) = parent {
            parents
                .entry(section.identifier.clone())
                .or_insert_with(|| parent.to_owned());
        }
        for child in &section.children {
            walk(child, Some(&section.identifier), known, parents);
        }
    }
    for section in &details.sections {
        walk(section, None, &mut known, &mut parents);
    }
    (known, parents)
}

/// The page's rule messages: the stored ones, except those of rules applied in this session,
/// then the applied ones (a rule's charts with its first message).
fn page_messages(results: &[RuleResult], page_rules: &PageRules) -> Vec<MessageData> {
    let mut messages: Vec<MessageData> = rule_messages(results)
        .into_iter()
        .filter(|m| !page_rules.replaced.contains(m.rule.identifier))
        .map(MessageData::stored)
        .collect();
    for result in &page_rules.applied {
        let mut applied: Vec<MessageData> = MessageData::applied(result).collect();
        // A rule's charts go with its first message (or stand alone).
        if let Some(charts) = page_rules.charts.get(&result.identifier)
            && !charts.is_empty()
        {
            if applied.is_empty() {
                applied.push(MessageData::chart_holder(result));
            }
            applied[0].charts = charts.clone();
        }
        messages.extend(applied);
    }
    messages
}

/// The rule lines per section identifier on the page, and the lines of independent rules
/// and of rules whose section is not on the page.
fn rule_lines(
    page_rules: &PageRules,
    known: &HashSet<String>,
) -> (HashMap<String, Vec<RuleLine>>, Vec<RuleLine>) {
    let mut rule_rows: HashMap<String, Vec<RuleLine>> = HashMap::new();
    let mut other_rule_rows = Vec::new();
    for row in &page_rules.rows {
        let line = RuleLine {
            row: row.clone(),
            // Two rules of one name (the profiler's stored one and a local one).
            ambiguous: page_rules
                .rows
                .iter()
                .filter(|other| other.name == row.name && other.section == row.section)
                .count()
                > 1,
        };
        match row.section.as_deref().filter(|id| known.contains(*id)) {
            Some(id) => rule_rows.entry(id.to_owned()).or_default().push(line),
            // A rule bound to a section that is not on the page does not run here; it is
            // listed only when it has something to show.
            None if row.section.is_some() && row.status == RuleStatus::NotApplied => {}
            None => other_rule_rows.push(line),
        }
    }
    (rule_rows, other_rule_rows)
}

pub(super) struct SectionView {
    pub(super) header: Vec<EntryView>,
    pub(super) body: Vec<ItemView>,
    pub(super) rules: Vec<usize>,
    pub(super) children: Vec<SectionView>,
}

impl SectionView {
    pub(super) fn build(
        section: &DetailsSection,
        rules: &mut HashMap<String, Vec<usize>>,
        baselines: &[ComparedBaseline],
    ) -> SectionView {
        let id = section.identifier.as_str();
        SectionView {
            header: entry_views(id, "header", &section.header),
            body: section
                .body
                .iter()
                .enumerate()
                .map(|(index, item)| ItemView::build(id, &format!("body{index}"), item, baselines))
                .collect(),
            rules: rules.remove(id).unwrap_or_default(),
            children: section
                .children
                .iter()
                .map(|child| SectionView::build(child, rules, baselines))
                .collect(),
        }
    }
}

pub(super) struct EntryView {
    /// Not collected: greyed.
    pub(super) na: bool,
    pub(super) instances: Option<InstanceView>,
}

pub(super) struct InstanceView {
    pub(super) key: u64,
    pub(super) count: usize,
    pub(super) closed_text: String,
    pub(super) open_text: String,
    pub(super) title: String,
}

pub(super) fn entry_views(section: &str, place: &str, entries: &[Entry]) -> Vec<EntryView> {
    entries
        .iter()
        .enumerate()
        .map(|(index, entry)| {
            let na = matches!(entry.value, None | Some(MetricValue::None)) || entry.text == "N/A";
            let instances = entry
                .instances
                .as_ref()
                .filter(|list| !list.is_empty())
                .map(|list| {
                    let count = list.len();
                    let noun = if count == 1 { "instance" } else { "instances" };
                    InstanceView {
                        key: hash_of(&("details-instances", section, place, index, &entry.metric)),
                        count,
                        closed_text: format!("{count} {noun}"),
                        open_text: format!("{count} {noun}"),
                        title: format!("{} — {count} {noun}", entry.label),
                    }
                });
            EntryView { na, instances }
        })
        .collect()
}

pub(super) enum ItemView {
    Table {
        entries: Vec<EntryView>,
        columns: usize,
    },
    Bars(BarsView),
    Lines(LinesView),
    Histogram(HistogramView),
    Roofline(RooflineView),
    Container(Vec<ItemView>),
    MemoryChart(MemoryChartView),
    MemoryTable(MemoryTableView),
    SystemTable(SystemTableView),
    Topology(TopologyView),
    PmTimeline(PmTimelineView),
    Fixed {
        entries: Vec<EntryView>,
        note: String,
    },
}

pub(super) fn value_f64(value: Option<&MetricValue>) -> Option<f64> {
    value
        .and_then(MetricValue::as_f64)
        .filter(|v| v.is_finite())
}

pub(super) fn empty_note(item: &Item) -> String {
    if item.label.is_empty() {
        "Chart: no values were collected for this kernel.".to_owned()
    } else {
        // The item's title is shown above the note.
        "No values were collected for this kernel.".to_owned()
    }
}

impl ItemView {
    pub(super) fn build(
        section: &str,
        place: &str,
        item: &Item,
        baselines: &[ComparedBaseline],
    ) -> ItemView {
        // Where a widget with its own grid or plot id stands in the page.
        let id_place = || format!("{section}.{place}");
        match &item.kind {
            ItemKind::Memory(MemoryWidget::Chart(chart)) => {
                ItemView::MemoryChart(MemoryChartView::build(item, chart, section, baselines))
            }
            ItemKind::Memory(MemoryWidget::Table(table)) => {
                let view = MemoryTableView::build(&id_place(), item, table, section, baselines);
                ItemView::MemoryTable(view)
            }
            ItemKind::System(SystemWidget::Table(table)) => {
                ItemView::SystemTable(SystemTableView::build(&id_place(), item, table))
            }
            ItemKind::System(SystemWidget::Topology(topology)) => {
                ItemView::Topology(TopologyView::build(item, topology))
            }
            ItemKind::System(SystemWidget::Timeline(timeline)) => {
                ItemView::PmTimeline(PmTimelineView::build(&id_place(), item, timeline))
            }
            ItemKind::Table(TableLayout { columns, .. }) => ItemView::Table {
                entries: entry_views(section, place, &item.entries),
                columns: (*columns).clamp(1, 8) as usize,
            },
            ItemKind::SourceMetricTable(_) | ItemKind::SuffixTable { .. } => ItemView::Table {
                entries: entry_views(section, place, &item.entries),
                columns: 1,
            },
            ItemKind::BarChart { .. } => ItemView::Bars(BarsView::build(item, section, baselines)),
            ItemKind::LineChart { .. } => {
                ItemView::Lines(LinesView::build(item, section, baselines))
            }
            ItemKind::Histogram { .. } => ItemView::Histogram(HistogramView::build(item)),
            ItemKind::Roofline(_) => {
                ItemView::Roofline(RooflineView::build(item, section, baselines))
            }
            ItemKind::Container => ItemView::Container(
                item.items
                    .iter()
                    .enumerate()
                    .map(|(index, nested)| {
                        ItemView::build(section, &format!("{place}.{index}"), nested, baselines)
                    })
                    .collect(),
            ),
            ItemKind::Fixed(widget) => ItemView::Fixed {
                entries: entry_views(section, place, &item.entries),
                note: format!(
                    "{}: this Nsight Compute widget has no metric list in the section file.",
                    widget_name(*widget)
                ),
            },
        }
    }
}

/// A readable name of a fixed Nsight Compute widget.
pub(super) fn widget_name(widget: FixedWidget) -> String {
    let known = match widget {
        // The memory chart and tables (101–107, 111) are drawn by `memory_chart`/`memory_tables`;
        // NVLink (108–110), NUMA (112) and the timeline (113) by `system_tables`,
        // `nvlink_topology` and `pm_sampling_chart`.
        FixedWidget::NvlinkTopology => "NVLink topology",
        FixedWidget::NvlinkPropertyTable => "NVLink property table",
        FixedWidget::NvlinkThroughputTable => "NVLink throughput table",
        FixedWidget::NumaIdTable => "NUMA ID table",
        FixedWidget::Timeline => "Timeline",
        FixedWidget::GfxMetricsWidget => "Graphics metrics widget",
        _ => "",
    };
    if !known.is_empty() {
        return known.to_owned();
    }
    let mut name = widget.name().replace('_', " ");
    if let Some(first) = name.get(..1) {
        let upper = first.to_uppercase();
        name.replace_range(..1, &upper);
    }
    name
}

pub(super) fn hash_of(value: &impl Hash) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

/// A cheap fingerprint of what the cache is derived from (walked every frame, no allocation).
pub(super) fn fingerprint(
    details: &KernelDetails,
    results: &[RuleResult],
    rules: &PageRules,
    baselines: &[ComparedBaseline],
) -> u64 {
    pub(super) fn hash_entry(entry: &Entry, h: &mut DefaultHasher) {
        entry.label.hash(h);
        entry.metric.hash(h);
        entry.text.hash(h);
        entry.unit.hash(h);
        if let Some(list) = &entry.instances {
            list.len().hash(h);
            for (_, value) in list.iter().take(1).chain(list.last()) {
                value.as_f64().map(f64::to_bits).hash(h);
            }
        }
    }
    pub(super) fn hash_item(item: &Item, h: &mut DefaultHasher) {
        item.kind.name().hash(h);
        item.label.hash(h);
        item.entries.len().hash(h);
        item.entries.iter().for_each(|e| hash_entry(e, h));
        item.items.len().hash(h);
        item.items.iter().for_each(|i| hash_item(i, h));
        let roofline = item.roofline().into_iter();
        for point in roofline.flat_map(|r| r.rooflines.iter().chain(&r.points)) {
            point.label.hash(h);
            point.work.map(f64::to_bits).hash(h);
            point.traffic.map(f64::to_bits).hash(h);
        }
    }
    pub(super) fn hash_section(section: &DetailsSection, h: &mut DefaultHasher) {
        section.identifier.hash(h);
        section.display_name.hash(h);
        section.header.len().hash(h);
        section.header.iter().for_each(|e| hash_entry(e, h));
        section.body.len().hash(h);
        section.body.iter().for_each(|i| hash_item(i, h));
        section.children.len().hash(h);
        section.children.iter().for_each(|c| hash_section(c, h));
    }
    let mut h = DefaultHasher::new();
    details.index.hash(&mut h);
    details.name.hash(&mut h);
    details.sections.len().hash(&mut h);
    details
        .sections
        .iter()
        .for_each(|s| hash_section(s, &mut h));
    // The baselines compared with: which results, in which order, named and coloured how.
    for baseline in baselines {
        baseline.id.hash(&mut h);
        baseline.name.hash(&mut h);
        baseline.color.hash(&mut h);
        baseline.result.hash(&mut h);
        (Arc::as_ptr(&baseline.entries) as usize).hash(&mut h);
    }
    rules.version.hash(&mut h);
    rules.running.hash(&mut h);
    for row in &rules.rows {
        row.identifier.hash(&mut h);
        row.status.hash(&mut h);
    }
    results.len().hash(&mut h);
    for result in results {
        result.identifier.hash(&mut h);
        result.section_identifier.hash(&mut h);
        for body_item in result.body.iter().flat_map(|b| &b.items) {
            if let Some(message) = &body_item.message {
                message.message.hash(&mut h);
                message.name.hash(&mut h);
            }
        }
    }
    h.finish()
}
