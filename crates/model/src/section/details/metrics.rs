//! The metric lookup of a Details page (stored metrics, derived ones, `regex:` names, filters)
//! and the ordering of table entries.

use std::collections::HashMap;

use regex::Regex;

use super::*;

/// Metric lookup for one action: stored metrics, plus metrics derived from the sections'
/// `MetricDefinitions` when the report does not store them.
pub(super) struct MetricSource<'a> {
    action: &'a Action,
    derived: HashMap<String, Metric>,
    regex_cache: HashMap<String, Option<Regex>>,
    target: Target,
}

impl<'a> MetricSource<'a> {
    pub(super) fn new(action: &'a Action, set: &SectionSet, target: Target) -> Self {
        let mut definitions: Vec<(String, Expression)> = Vec::new();
        for loaded in &set.sections {
            let section_filter = loaded.section.filter.as_ref();
            for def in loaded
                .section
                .metric_definitions
                .iter()
                .flat_map(|d| &d.metric_definitions)
            {
                let filter = combine(section_filter, def.filter.as_ref());
                if action.metric(&def.name).is_some() || !passes(filter.as_ref(), target) {
                    continue;
                }
                if let Ok(expr) = derived::parse_expression(&def.expression) {
                    definitions.push((def.name.clone(), expr));
                }
            }
        }
        let semantics = derived::Semantics::for_action(action);
        let derived =
            derived::derive_all_with(&definitions, |name| action.metric(name).cloned(), semantics)
                .into_iter()
                .filter_map(|(name, result)| result.ok().map(|m| (name, m)))
                .collect();
        MetricSource {
            action,
            derived,
            regex_cache: HashMap::new(),
            target,
        }
    }

    fn lookup(&self, name: &str) -> Option<(&Metric, bool)> {
        self.action
            .metric(name)
            .map(|m| (m, false))
            .or_else(|| self.derived.get(name).map(|m| (m, true)))
    }

    pub(super) fn instances(&self, name: &str) -> Option<Vec<(Option<MetricValue>, MetricValue)>> {
        self.lookup(name).map(|(m, _)| {
            m.instances
                .iter()
                .map(|i| (i.correlation_id.clone(), i.value.clone()))
                .collect()
        })
    }

    /// The entries one section metric produces: none (filtered out), one, or one per metric a
    /// `regex:` name matches (body items only).
    pub(super) fn entries(
        &mut self,
        metric: &ProfilerSectionMetric,
        section_filter: Option<&MetricOptionFilter>,
        allow_regex: bool,
    ) -> Vec<Entry> {
        let Some(name) = resolve_name(metric, section_filter, self.target) else {
            return Vec::new();
        };
        if let Some(pattern) = name.strip_prefix("regex:").filter(|_| allow_regex) {
            if let Some(names) = self.stored_matches(name) {
                return names
                    .into_iter()
                    .map(|n| self.entry(metric, &n, true))
                    .collect();
            }
            let regex = self
                .regex_cache
                .entry(pattern.to_owned())
                .or_insert_with(|| Regex::new(&format!("^(?:{pattern})$")).ok())
                .clone();
            let Some(regex) = regex else {
                return Vec::new();
            };
            let mut names: Vec<String> = self
                .action
                .metric_names()
                .filter(|n| regex.is_match(n))
                .map(str::to_owned)
                .collect();
            names.extend(self.derived.keys().filter(|n| regex.is_match(n)).cloned());
            names.sort();
            names.dedup();
            return names
                .into_iter()
                .map(|n| self.entry(metric, &n, true))
                .collect();
        }
        if let Some(total) = name.strip_prefix("breakdown:").filter(|_| allow_regex) {
            return self.breakdown_entries(metric, name, total);
        }
        let mut entry = self.entry(metric, name, false);
        // The chosen option's own `Label` names the entry ("FMA (FP16)" for
        // `sm__inst_executed_pipe_fma_type_fp16` on 8.6, "FP16" for the base metric): NVIDIA's
        // CLI prints it.
        if let Some(label) = metric
            .options
            .iter()
            .find(|o| o.name == name)
            .and_then(|o| o.label.as_ref())
            .filter(|l| !l.is_empty())
        {
            entry.label = label.clone();
        }
        vec![entry]
    }

    /// The metrics a `regex:` name matched when the report was collected, sorted and once
    /// each: the report stores the name as a string metric listing them, comma-separated (as
    /// for a header's `regex:` metric). NVIDIA's CLI lists those; the pattern itself may use
    /// look-around, which the `regex` crate cannot compile (smemTranspose's "L1 Level Miss
    /// stage to L2": `regex:^(?=.*l1tex)(?=.*m_)(?=.*lsu)(?!.*mem).*.sum$` stores the four
    /// `l1tex__m_*_pipe_lsu.sum` metrics). `None` when the report does not store the list.
    fn stored_matches(&self, name: &str) -> Option<Vec<String>> {
        let MetricValue::String(list) = self.action.metric(name)?.value() else {
            return None;
        };
        let mut names: Vec<String> = list
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
            .collect();
        names.sort();
        names.dedup();
        Some(names)
    }

    /// `breakdown:<metric>`: the report stores the names of the metrics that make up `<metric>`
    /// as a comma-separated string; each becomes an entry, labelled by the section's template
    /// (`{UNIT}`: the hardware unit, `{COMPOUND_NAME}`: the counter's name in words, `{NAME}`:
    /// the metric name). Missing breakdown: one "N/A" entry.
    fn breakdown_entries(
        &self,
        metric: &ProfilerSectionMetric,
        name: &str,
        total: &str,
    ) -> Vec<Entry> {
        let parts = match self.lookup(name).map(|(m, _)| m.value()) {
            Some(MetricValue::String(list)) => list,
            _ => return vec![self.entry(metric, name, false)],
        };
        let template = metric
            .label
            .clone()
            .filter(|l| !l.is_empty())
            .unwrap_or_else(|| "{UNIT}: {COMPOUND_NAME}".to_owned());
        parts
            .split(',')
            .map(str::trim)
            .filter(|part| !part.is_empty() && *part != total)
            .map(|part| {
                let mut entry = self.entry(metric, part, false);
                entry.label = breakdown_label(&template, part);
                entry
            })
            .collect()
    }

    /// The entry of metric `name` as a plain section metric would show it.
    pub(super) fn metric_entry(&self, name: &str) -> Entry {
        let metric = ProfilerSectionMetric {
            name: name.to_owned(),
            ..Default::default()
        };
        self.entry(&metric, name, false)
    }

    fn entry(&self, metric: &ProfilerSectionMetric, name: &str, from_regex: bool) -> Entry {
        let found = self.lookup(name);
        let unit = metric
            .unit
            .clone()
            .filter(|u| !u.is_empty())
            .unwrap_or_else(|| infer_unit(name).into_owned());
        let value = found.map(|(m, _)| m.value());
        let text = match &value {
            Some(v) => format_with_unit(v, &unit, metric_multiplier(metric)),
            None => "N/A".to_owned(),
        };
        let label = if from_regex {
            name.to_owned()
        } else {
            metric
                .label
                .clone()
                .filter(|l| !l.is_empty())
                .unwrap_or_else(|| name.to_owned())
        };
        Entry {
            label,
            metric: name.to_owned(),
            value,
            unit,
            text,
            description: metric.description.clone().filter(|d| !d.is_empty()),
            hw_unit: metric.hw_unit,
            instances: if metric.show_instances == Some(true) {
                self.instances(name)
            } else {
                None
            },
            derived: found.is_some_and(|(_, d)| d),
            blank_label: !from_regex && metric.label.as_deref() == Some(""),
        }
    }

    pub(super) fn roofline_value(
        &mut self,
        value: &ProfilerSectionRooflineValue,
        section_filter: Option<&MetricOptionFilter>,
        entries: &mut Vec<Entry>,
    ) -> Option<f64> {
        match value.roofline_value.as_ref()? {
            RooflineValue::Constant(c) => Some(*c),
            RooflineValue::Metric(metric) => {
                let new = self.entries(metric, section_filter, false);
                let v = new
                    .first()
                    .and_then(|e| e.value.as_ref())
                    .and_then(MetricValue::as_f64);
                entries.extend(new);
                v
            }
            RooflineValue::ValueCyclesPerSecondExpression(expr) => {
                let mut per_cycle = 0.0;
                for metric in &expr.value_per_cycle_metrics {
                    let new = self.entries(metric, section_filter, false);
                    per_cycle += new
                        .first()
                        .and_then(|e| e.value.as_ref())
                        .and_then(MetricValue::as_f64)?;
                    entries.extend(new);
                }
                let cycles = expr.cycles_per_second_metric.as_ref()?;
                let new = self.entries(cycles, section_filter, false);
                let per_second = new
                    .first()
                    .and_then(|e| e.value.as_ref())
                    .and_then(MetricValue::as_f64)?;
                entries.extend(new);
                Some(per_cycle * per_second)
            }
        }
    }
}

/// Orders table entries by the table's `SortKey` (label or value) and `SortDirection`; entries
/// without a numeric value, and NaN values of either sign, go last.
pub(super) fn sort_entries(entries: &mut [Entry], sort: Option<Sort>) {
    let Some(Sort { key, descending }) = sort else {
        return;
    };
    if key == SortKey::Value {
        entries.sort_by(|a, b| {
            let value = |e: &Entry| {
                e.value
                    .as_ref()
                    .and_then(MetricValue::as_f64)
                    .filter(|v| !v.is_nan())
            };
            match (value(a), value(b)) {
                (Some(x), Some(y)) if descending => y.total_cmp(&x),
                (Some(x), Some(y)) => x.total_cmp(&y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            }
        });
    } else {
        entries.sort_by(|a, b| {
            if descending {
                b.label.cmp(&a.label)
            } else {
                a.label.cmp(&b.label)
            }
        });
    }
}

/// The entry's `Multiplier`, when it is a usable number.
fn metric_multiplier(metric: &ProfilerSectionMetric) -> Option<f64> {
    metric.multiplier.filter(|m| m.is_finite())
}

/// A section's own metrics, collected with it but not shown on its page: its `Metrics` list,
/// then its `SourceMetrics` (2023.3 and later moved the Source page's metrics there from
/// `Metrics`). NVIDIA's 2024.1 CLI lists both under `--print-details all`: the 2024.1 and
/// 2024.2 `SourceCounters` sections' "# Samples", "Avg. Threads Executed" and `stall_*` rows
/// (vec_add, T4, sharedmem), as 2022.4's `Metrics` list gives them (blsongpu).
pub(super) fn own_metrics(
    section: &ProfilerSection,
) -> impl Iterator<Item = &ProfilerSectionMetric> {
    section
        .metrics
        .iter()
        .chain(section.source_metrics.iter())
        .flat_map(|m| &m.metrics)
}
