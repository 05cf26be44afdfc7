//! Where the value of a node, link or cell comes from, and its resolution into an [`Entry`].

use std::collections::HashSet;

use super::RowFilter;
use crate::core::num::exact_u64;
use crate::format::format_with_unit;
use crate::ncu::MetricValue;
use crate::section::details::Entry;

/// Bytes in one sector of the L1/TEX and L2 caches and of device memory.
pub const SECTOR_BYTES: f64 = 32.0;

/// The kind of access a row counts, for [`RowFilter`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Access {
    Load,
    Store,
    Atomic,
    Reduction,
    Total,
}

impl RowFilter {
    pub(super) fn shows(self, access: Access) -> bool {
        match access {
            Access::Load => self.loads,
            Access::Store => self.stores,
            Access::Atomic => self.atomics,
            Access::Reduction => self.reductions,
            Access::Total => self.totals,
        }
    }
}

/// Where a value comes from.
#[derive(Debug, Clone)]
pub(super) enum Source {
    /// A stored metric; alternative names (newest first) when the name changed across tool
    /// versions.
    Metric(Vec<String>),
    /// The sum of several sources (the total of a column, a link over several access kinds).
    Sum(Vec<Source>),
    /// `numerator / denominator × scale`, in `unit`.
    Ratio(Box<Source>, Box<Source>, f64, &'static str),
    /// `source × factor`, in `unit`.
    Scaled(Box<Source>, f64, &'static str),
}

pub(super) fn metric(name: impl Into<String>) -> Source {
    Source::Metric(vec![name.into()])
}

pub(super) fn either(names: &[&str]) -> Source {
    Source::Metric(names.iter().map(|n| (*n).to_owned()).collect())
}

pub(super) fn sum(parts: Vec<Source>) -> Source {
    Source::Sum(parts)
}

/// Sectors per request.
pub(super) fn per_request(sectors: Source, requests: Source) -> Source {
    Source::Ratio(Box::new(sectors), Box::new(requests), 1.0, "")
}

/// Hit rate in percent: sector lookup hits / sectors × 100.
pub(super) fn hit_rate(hits: Source, sectors: Source) -> Source {
    Source::Ratio(Box::new(hits), Box::new(sectors), 100.0, "%")
}

/// Bytes of a sector count.
pub(super) fn bytes(sectors: Source) -> Source {
    Source::Scaled(Box::new(sectors), SECTOR_BYTES, "byte")
}

/// Resolves metric names to entries for one action; builds derived entries.
pub(super) struct Resolver<'a> {
    lookup: &'a dyn Fn(&str) -> Entry,
    /// The metrics the report's tool version collected for this widget (its `group:` metric),
    /// when the report records them.
    collected: Option<HashSet<String>>,
    entries: Vec<Entry>,
}

impl<'a> Resolver<'a> {
    pub(super) fn new(
        lookup: &'a dyn Fn(&str) -> Entry,
        collected: Option<HashSet<String>>,
    ) -> Self {
        Resolver {
            lookup,
            collected,
            entries: Vec::new(),
        }
    }

    /// Whether `source` is a part the report's tool version does not have for this widget:
    /// a metric (under every alternative name) that the report lacks and the widget's group
    /// does not list. Without a group nothing is known, and nothing is left out.
    fn not_collected(&self, source: &Source) -> bool {
        let Some(collected) = &self.collected else {
            return false;
        };
        match source {
            Source::Metric(names) => names
                .iter()
                .all(|n| !collected.contains(n) && (self.lookup)(n).value.is_none()),
            Source::Sum(parts) => parts.iter().all(|p| self.not_collected(p)),
            Source::Ratio(numerator, denominator, ..) => {
                self.not_collected(numerator) || self.not_collected(denominator)
            }
            Source::Scaled(inner, ..) => self.not_collected(inner),
        }
    }

    pub(super) fn into_entries(self) -> Vec<Entry> {
        self.entries
    }

    /// Adds the entry of `source` labelled `label` and returns its index.
    pub(super) fn add(&mut self, label: String, source: &Source) -> usize {
        let mut entry = self.entry(source);
        entry.label = label;
        self.entries.push(entry);
        self.entries.len() - 1
    }

    /// Adds an optional entry (a link's throughput or % of peak): none where the source is
    /// absent, or where the report's tool version did not collect it for this widget (2020.2
    /// collects no `.per_second` throughput for the chart).
    pub(super) fn add_opt(&mut self, label: String, source: Option<&Source>) -> Option<usize> {
        source
            .filter(|s| !self.not_collected(s))
            .map(|s| self.add(label, s))
    }

    fn entry(&self, source: &Source) -> Entry {
        match source {
            Source::Metric(names) => {
                let mut first = None;
                for name in names {
                    let entry = (self.lookup)(name);
                    if entry.value.is_some() {
                        return entry;
                    }
                    first.get_or_insert(entry);
                }
                // None held (a launch whose measurement failed): the "N/A" entry names the
                // alternative the report's tool version collects for the widget, when known.
                let collected_name = self.collected.as_ref().and_then(|collected| {
                    names
                        .iter()
                        .skip(1)
                        .find(|n| collected.contains(n.as_str()))
                });
                match collected_name {
                    Some(name) => (self.lookup)(name),
                    None => first.unwrap_or_else(|| derived_entry(String::new(), None, "")),
                }
            }
            Source::Sum(parts) => {
                let kept: Vec<&Source> = parts.iter().filter(|p| !self.not_collected(p)).collect();
                // A sum none of whose parts the version collected stays as it is ("N/A").
                let kept = if kept.is_empty() {
                    parts.iter().collect()
                } else {
                    kept
                };
                let entries: Vec<Entry> = kept.iter().map(|p| self.entry(p)).collect();
                let unit = entries.first().map_or("", |e| e.unit.as_str()).to_owned();
                let formula = entries
                    .iter()
                    .map(|e| e.metric.as_str())
                    .collect::<Vec<_>>()
                    .join(" + ");
                let value = entries
                    .iter()
                    .try_fold(0.0, |acc, e| Some(acc + value_of(e)?));
                let integral = entries.iter().all(|e| {
                    matches!(
                        e.value,
                        Some(MetricValue::Uint32(_) | MetricValue::Uint64(_))
                    )
                });
                // A sum of integers is a whole number: an integer when it fits in a u64.
                let value = value.map(|v| match exact_u64(v) {
                    Some(whole) if integral => MetricValue::Uint64(whole),
                    _ => MetricValue::Double(v),
                });
                derived_entry(formula, value, &unit)
            }
            Source::Ratio(numerator, denominator, scale, unit) => {
                let (n, d) = (self.entry(numerator), self.entry(denominator));
                let scale_text = if *scale == 1.0 {
                    String::new()
                } else {
                    format!(" * {scale}")
                };
                let formula = format!("{} / {}{scale_text}", n.metric, d.metric);
                let value = match (value_of(&n), value_of(&d)) {
                    (Some(n), Some(d)) if d != 0.0 => Some(MetricValue::Double(n / d * scale)),
                    // Nothing was counted: Nsight Compute shows 0, not a division by zero.
                    (Some(_), Some(_)) => Some(MetricValue::Double(0.0)),
                    _ => None,
                };
                derived_entry(formula, value, unit)
            }
            Source::Scaled(inner, factor, unit) => {
                let e = self.entry(inner);
                let formula = format!("{} * {factor}", e.metric);
                let value = value_of(&e).map(|v| {
                    let scaled = v * factor;
                    exact_u64(scaled).map_or(MetricValue::Double(scaled), MetricValue::Uint64)
                });
                derived_entry(formula, value, unit)
            }
        }
    }
}

/// The number of an entry; NaN (a counter that failed) stays NaN, so a derived cell over it
/// shows `NaN` as the stored cells beside it do.
fn value_of(entry: &Entry) -> Option<f64> {
    entry.value.as_ref().and_then(MetricValue::as_f64)
}

fn derived_entry(formula: String, value: Option<MetricValue>, unit: &str) -> Entry {
    let text = match &value {
        Some(v) => format_with_unit(v, unit, None),
        None => "N/A".to_owned(),
    };
    Entry {
        label: String::new(),
        metric: formula,
        value,
        unit: unit.to_owned(),
        text,
        description: None,
        hw_unit: None,
        instances: None,
        derived: true,
        blank_label: false,
    }
}
