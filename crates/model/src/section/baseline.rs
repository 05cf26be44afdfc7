//! Baselines: another result (of this report or another one) whose values are shown beside a
//! result's, with the difference.
//!
//! - Results are matched by kernel name and launch order: the k-th launch of a name in the
//!   report matches the k-th launch of that name in the baseline's report
//!   ([`match_by_name`]), unless a result is picked by index (`OTHER:KERNEL`,
//!   [`BaselineSpec`]).
//! - Each side is resolved with its own report's sections (across tool versions the sections
//!   differ), and entries match by **section identifier and metric name**
//!   ([`BaselineEntries`]): a metric the baseline lacks, or has no value for, is
//!   [`Compared::Missing`] ("N/A"), never another metric's value.
//! - The difference is `value - baseline` in the metric's base unit, and relative to the
//!   baseline in percent (none when the baseline is 0).

use std::collections::HashMap;
use std::path::PathBuf;
use std::str::FromStr;

use super::details::{DetailsSection, Entry, Item, KernelDetails, RooflinePoint};
use crate::format::format_with_unit;
use crate::ncu::MetricValue;

/// What the text of a missing baseline value says.
pub const NOT_AVAILABLE: &str = "N/A";

/// A baseline given on the command line: `OTHER[:KERNEL]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaselineSpec {
    /// The baseline's report.
    pub path: PathBuf,
    /// The result picked by index; `None`: matched by kernel name and launch order.
    pub kernel: Option<usize>,
}

/// Why a baseline argument is not understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BaselineSpecError {
    /// The argument is empty.
    #[error("empty baseline: expected REPORT or REPORT:KERNEL")]
    Empty,
}

impl FromStr for BaselineSpec {
    type Err = BaselineSpecError;

    /// `REPORT` or `REPORT:N`: a suffix of digits after the last `:` is the result index (a
    /// path that itself ends in `:digits` can be written `PATH:N` with its index).
    fn from_str(text: &str) -> Result<BaselineSpec, BaselineSpecError> {
        if text.is_empty() {
            return Err(BaselineSpecError::Empty);
        }
        if let Some((path, kernel)) = text.rsplit_once(':')
            && !path.is_empty()
            && !kernel.is_empty()
            && kernel.bytes().all(|b| b.is_ascii_digit())
            && let Ok(kernel) = kernel.parse()
        {
            return Ok(BaselineSpec {
                path: PathBuf::from(path),
                kernel: Some(kernel),
            });
        }
        Ok(BaselineSpec {
            path: PathBuf::from(text),
            kernel: None,
        })
    }
}

/// The result of `baseline_names` that matches result `index` of `names`: the same kernel
/// name, the same launch order among the results of that name.
pub fn match_by_name<S: AsRef<str>, T: AsRef<str>>(
    names: &[S],
    index: usize,
    baseline_names: &[T],
) -> Option<usize> {
    let name = names.get(index)?.as_ref();
    let occurrence = names[..index].iter().filter(|n| n.as_ref() == name).count();
    baseline_names
        .iter()
        .enumerate()
        .filter(|(_, n)| n.as_ref() == name)
        .nth(occurrence)
        .map(|(i, _)| i)
}

/// [`match_by_name`] for every result of `names` at once (in one pass over each list, where
/// `match_by_name` for each result would count the launches before it every time).
pub fn match_all<S: AsRef<str>, T: AsRef<str>>(
    names: &[S],
    baseline_names: &[T],
) -> Vec<Option<usize>> {
    let mut launches: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, name) in baseline_names.iter().enumerate() {
        launches.entry(name.as_ref()).or_default().push(i);
    }
    let mut seen: HashMap<&str, usize> = HashMap::new();
    names
        .iter()
        .map(|name| {
            let name = name.as_ref();
            let occurrence = seen.entry(name).or_insert(0);
            let found = launches.get(name).and_then(|l| l.get(*occurrence)).copied();
            *occurrence += 1;
            found
        })
        .collect()
}

/// A value's difference to its baseline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Difference {
    /// `value - baseline`, in the metric's base unit.
    pub absolute: f64,
    /// `(value - baseline) / |baseline|` in percent; `None` when the baseline is 0.
    pub relative: Option<f64>,
}

impl Difference {
    /// The difference of `value` to `baseline`.
    pub fn of(value: f64, baseline: f64) -> Difference {
        let absolute = value - baseline;
        Difference {
            absolute,
            relative: (baseline != 0.0 && baseline.is_finite())
                .then(|| absolute / baseline.abs() * 100.0),
        }
    }

    /// `+12.34%`, `-5.00%`, `0.00%`; `N/A` without a relative difference.
    pub fn relative_text(&self) -> String {
        match self.relative {
            Some(r) if r.is_finite() => signed(&format!("{:.2}", r.abs()), r) + "%",
            _ => NOT_AVAILABLE.to_owned(),
        }
    }

    /// The absolute difference with its unit, formatted as the Details page formats values:
    /// `+1.20 usecond`, `-3`.
    pub fn absolute_text(&self, unit: &str) -> String {
        let magnitude = format_with_unit(&MetricValue::Double(self.absolute.abs()), unit, None);
        signed(&magnitude, self.absolute)
    }
}

/// `text` (a magnitude) with the sign of `value`: `+` above zero, `-` below.
fn signed(text: &str, value: f64) -> String {
    if value > 0.0 {
        format!("+{text}")
    } else if value < 0.0 {
        format!("-{text}")
    } else {
        text.to_owned()
    }
}

/// What a baseline says about one entry of a page.
#[derive(Debug, Clone, PartialEq)]
pub enum Compared<'a> {
    /// The baseline has no such metric in that section, or no value for it: "N/A".
    Missing,
    /// The baseline's entry, and the difference when both values are numbers.
    Value {
        /// The baseline's entry (its `text` is its value as its own page prints it).
        entry: &'a Entry,
        /// The difference of the compared value to it.
        difference: Option<Difference>,
    },
}

impl Compared<'_> {
    /// The baseline's value as text, `N/A` when missing.
    pub fn text(&self) -> &str {
        match self {
            Compared::Missing => NOT_AVAILABLE,
            Compared::Value { entry, .. } => &entry.text,
        }
    }

    /// The difference, when there is one.
    pub fn difference(&self) -> Option<Difference> {
        match self {
            Compared::Missing => None,
            Compared::Value { difference, .. } => *difference,
        }
    }
}

/// A baseline's page, indexed by section identifier and metric name: header and body entries
/// of every section and child section; the first entry of a metric in a section wins. Also the
/// achieved points of its roofline charts, by section identifier and chart label.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BaselineEntries {
    sections: HashMap<String, HashMap<String, Entry>>,
    /// Section → chart label → its achieved points (`None`: two charts of the section have the
    /// label, so neither is matched).
    rooflines: HashMap<String, HashMap<String, Option<Vec<RooflinePoint>>>>,
}

impl BaselineEntries {
    /// The index of `page`.
    pub fn of(page: &KernelDetails) -> BaselineEntries {
        let mut index = BaselineEntries::default();
        for section in &page.sections {
            index.add_section(section);
        }
        index
    }

    fn add_section(&mut self, section: &DetailsSection) {
        let entries = self.sections.entry(section.identifier.clone()).or_default();
        let mut add = |entry: &Entry| {
            entries
                .entry(entry.metric.clone())
                .or_insert_with(|| entry.clone());
        };
        section.header.iter().for_each(&mut add);
        fn items<'a>(item: &'a Item, all: &mut Vec<&'a Item>) {
            all.push(item);
            item.items.iter().for_each(|i| items(i, all));
        }
        let mut all = Vec::new();
        section.body.iter().for_each(|i| items(i, &mut all));
        for item in &all {
            item.entries.iter().for_each(&mut add);
        }
        let charts = self
            .rooflines
            .entry(section.identifier.clone())
            .or_default();
        for (item, roofline) in all.iter().filter_map(|i| Some((i, i.roofline()?))) {
            charts
                .entry(item.label.clone())
                .and_modify(|seen| *seen = None)
                .or_insert_with(|| Some(roofline.points.clone()));
        }
        for child in &section.children {
            self.add_section(child);
        }
    }

    /// The baseline's achieved points on the roofline chart labelled `chart` of section
    /// `section`; none when it lacks the chart or has two of that label.
    pub fn roofline_points(&self, section: &str, chart: &str) -> &[RooflinePoint] {
        self.rooflines
            .get(section)
            .and_then(|charts| charts.get(chart))
            .and_then(Option::as_deref)
            .unwrap_or_default()
    }

    /// The baseline's entry of `metric` in section `section`.
    pub fn get(&self, section: &str, metric: &str) -> Option<&Entry> {
        self.sections.get(section)?.get(metric)
    }

    /// What the baseline says about `entry` of section `section`.
    pub fn compare(&self, section: &str, entry: &Entry) -> Compared<'_> {
        match self.get(section, &entry.metric) {
            Some(base) if base.value.is_some() => Compared::Value {
                entry: base,
                difference: number(entry.value.as_ref())
                    .zip(number(base.value.as_ref()))
                    .map(|(v, b)| Difference::of(v, b)),
            },
            _ => Compared::Missing,
        }
    }
}

/// A value as a number, when it is one (strings are not).
pub fn number(value: Option<&MetricValue>) -> Option<f64> {
    match value? {
        MetricValue::String(_) | MetricValue::None => None,
        other => other.as_f64(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::section::details::{ChartAxes, FixedWidget, ItemKind};

    #[test]
    fn match_all_agrees_with_match_by_name() {
        let names = ["a", "b", "a", "c", "a", "b"];
        let baseline = ["b", "a", "a", "b", "d"];
        let each: Vec<Option<usize>> = (0..names.len())
            .map(|i| match_by_name(&names, i, &baseline))
            .collect();
        assert_eq!(match_all(&names, &baseline), each);
        assert_eq!(each, vec![Some(1), Some(0), Some(2), None, None, Some(3)]);
    }

    #[test]
    fn specs_split_a_trailing_index() {
        let spec: BaselineSpec = "a/b.ncu-rep:3".parse().unwrap_or_else(|_| unreachable!());
        assert_eq!(spec.path, PathBuf::from("a/b.ncu-rep"));
        assert_eq!(spec.kernel, Some(3));
        let spec: BaselineSpec = "C:/x.ncu-rep".parse().unwrap_or_else(|_| unreachable!());
        assert_eq!(spec.kernel, None);
        assert_eq!(spec.path, PathBuf::from("C:/x.ncu-rep"));
        assert!("".parse::<BaselineSpec>().is_err());
    }

    #[test]
    fn results_match_by_name_and_launch_order() {
        let ours = ["a", "b", "a", "c"];
        let theirs = ["b", "a", "a", "a"];
        assert_eq!(match_by_name(&ours, 0, &theirs), Some(1));
        assert_eq!(match_by_name(&ours, 2, &theirs), Some(2));
        assert_eq!(match_by_name(&ours, 1, &theirs), Some(0));
        assert_eq!(match_by_name(&ours, 3, &theirs), None);
    }

    #[test]
    fn differences_and_their_text() {
        let d = Difference::of(150.0, 100.0);
        assert_eq!(d.absolute, 50.0);
        assert_eq!(d.relative_text(), "+50.00%");
        assert_eq!(Difference::of(75.0, 100.0).relative_text(), "-25.00%");
        assert_eq!(Difference::of(1.0, 0.0).relative_text(), "N/A");
        assert_eq!(
            Difference::of(1200.0, 0.0).absolute_text("nsecond"),
            "+1.20 usecond"
        );
        assert_eq!(Difference::of(0.0, 3.0).absolute_text(""), "-3");
    }

    fn entry(metric: &str, value: Option<f64>) -> Entry {
        Entry {
            label: metric.to_owned(),
            metric: metric.to_owned(),
            value: value.map(MetricValue::Double),
            unit: String::new(),
            text: value.map_or_else(|| NOT_AVAILABLE.to_owned(), |v| v.to_string()),
            description: None,
            hw_unit: None,
            instances: None,
            derived: false,
            blank_label: false,
        }
    }

    fn item(kind: ItemKind, entries: Vec<Entry>, items: Vec<Item>) -> Item {
        Item {
            entries,
            items,
            ..Item::empty(kind, "")
        }
    }

    fn section(id: &str, header: Vec<Entry>, body: Vec<Item>) -> DetailsSection {
        DetailsSection {
            identifier: id.to_owned(),
            display_name: id.to_owned(),
            order: 0,
            description: String::new(),
            header,
            body,
            children: Vec::new(),
            metrics: Vec::new(),
        }
    }

    #[test]
    fn body_items_match_by_section_and_metric_name() {
        // The baseline: a bar chart and a container's table in "A", a child section "A2"
        // extending it, and a metric of "B" that "A" shows too.
        let mut a = section(
            "A",
            vec![entry("h", Some(1.0))],
            vec![
                item(
                    ItemKind::BarChart {
                        axes: ChartAxes::default(),
                        sort: None,
                    },
                    vec![entry("bar", Some(50.0))],
                    Vec::new(),
                ),
                item(
                    ItemKind::Container,
                    Vec::new(),
                    vec![item(
                        ItemKind::table(),
                        vec![entry("nested", Some(4.0))],
                        Vec::new(),
                    )],
                ),
                item(
                    ItemKind::Fixed(FixedWidget::MemoryL2CacheTable),
                    vec![entry("cell", None)],
                    Vec::new(),
                ),
            ],
        );
        a.children
            .push(section("A2", vec![entry("child", Some(8.0))], Vec::new()));
        let page = KernelDetails {
            index: 0,
            name: "k".to_owned(),
            sections: vec![
                a,
                section("B", vec![entry("only_b", Some(9.0))], Vec::new()),
            ],
        };
        let index = BaselineEntries::of(&page);
        let compared = index.compare("A", &entry("bar", Some(75.0)));
        assert_eq!(compared.text(), "50");
        assert_eq!(compared.difference(), Some(Difference::of(75.0, 50.0)));
        assert_eq!(index.compare("A", &entry("nested", Some(2.0))).text(), "4");
        assert_eq!(index.compare("A2", &entry("child", Some(8.0))).text(), "8");
        // A cell the baseline has no value for, a metric of another section, a metric it
        // lacks: "N/A", never another entry's value.
        assert_eq!(
            index.compare("A", &entry("cell", Some(1.0))),
            Compared::Missing
        );
        assert_eq!(
            index.compare("A", &entry("only_b", Some(9.0))),
            Compared::Missing
        );
        assert_eq!(
            index.compare("A", &entry("absent", Some(1.0))),
            Compared::Missing
        );
        assert_eq!(index.compare("B", &entry("only_b", Some(9.0))).text(), "9");
    }
}
