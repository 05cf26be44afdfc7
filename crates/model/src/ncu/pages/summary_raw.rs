//! The raw page's summary (`ncu --import R --page raw --csv --print-summary per-kernel|per-gpu`):
//! per group of launches (as the details summary groups them, [`super::summary`]), every metric
//! of the raw page with its minimum, maximum and average.
//!
//! Checked on the corpus's summary-raw.csv files: the device attributes, then the other
//! metrics, each sorted by name; the sections'
//! pseudo-metrics and string metrics left out, except the device attributes, which print their
//! value as the average with empty minimum, maximum and unit; the other numbers with 6 decimals
//! in the unit the raw page would choose for the group's values (`Kbyte`, `cycle/nsecond`),
//! metrics without a unit too (`1.000000`).

use std::collections::{BTreeMap, BTreeSet};

use super::chip::ChipLibrary;
use super::launch::LaunchColumns;
use super::number::{fixed, plain_text, scaled};
use super::raw::{ColumnFormat, SECTION_PSEUDO_METRICS};
use super::resolved::ResolvedUnits;
use super::summary::{SummaryPer, group_key, key_cells, min_max_avg, summary_header};
use super::{Table, UnitMode};
use crate::ncu::{Action, DEVICE_ATTRIBUTE_PREFIX, MetricValue, Report};

/// The raw summary of `actions` grouped `per` kernel or GPU.
pub fn raw_summary_page(
    report: &Report,
    actions: &[Action],
    per: SummaryPer,
    units: UnitMode,
) -> Table {
    let launch = LaunchColumns::default();
    let mut groups: BTreeMap<Vec<String>, Vec<&Action>> = BTreeMap::new();
    for action in actions {
        if let Some(key) = group_key(per, action, &launch.cells(report, action)) {
            groups.entry(key).or_default().push(action);
        }
    }
    let header = summary_header(per, false);
    let mut rows = Vec::new();
    // Units resolve in the order the rows print, across groups (see [`ResolvedUnits`]).
    let mut resolved = ResolvedUnits::default();
    for (key, members) in &groups {
        let library = ChipLibrary::of_all(members.iter().copied());
        // The device attributes first, then the other metrics; each by name.
        let names: BTreeSet<(bool, &str)> = members
            .iter()
            .flat_map(|a| a.metric_names())
            .filter(|n| !SECTION_PSEUDO_METRICS.iter().any(|p| n.starts_with(p)))
            .map(|n| (!n.starts_with(DEVICE_ATTRIBUTE_PREFIX), n))
            .collect();
        for (_, name) in names {
            let stored: Vec<&MetricValue> = members
                .iter()
                .filter_map(|a| a.metric(name))
                .map(|m| &m.stored)
                .collect();
            let cells = if name.starts_with(DEVICE_ATTRIBUTE_PREFIX) {
                let value = stored.first().map(|v| plain_text(v)).unwrap_or_default();
                [String::new(), String::new(), String::new(), value]
            } else {
                let values: Vec<f64> = stored
                    .iter()
                    .filter(|v| !matches!(v, MetricValue::String(_)))
                    .filter_map(|v| v.as_f64())
                    .collect();
                if values.is_empty() {
                    continue;
                }
                let [min, max, avg] = min_max_avg(&values);
                let largest = values
                    .iter()
                    .filter(|v| v.is_finite())
                    .map(|v| v.abs())
                    .reduce(f64::max);
                let base = resolved.resolve(library, name);
                let format = ColumnFormat::with_unit(name, base, largest, units);
                let [min, max, avg] = [min, max, avg].map(|v| fixed(scaled(v, format.divisor), 6));
                [format.unit, min, max, avg]
            };
            let mut row = key_cells(per, key);
            row.push(members.len().to_string());
            row.push(name.to_owned());
            row.extend(cells);
            rows.push(row);
        }
    }
    Table {
        title: String::new(),
        header,
        rows,
    }
}
