//! The raw page (`ncu --import R --page raw`): one column per metric name of any action
//! (sorted by name, after the launch columns), a row of units, one row per action.

use std::collections::BTreeSet;

use super::chip::ChipLibrary;
use super::launch::LaunchColumns;
use super::number::{UnitScale, fixed, magnitude, plain_text, scaled};
use super::{InstanceMode, UnitMode};
use crate::ncu::{Action, Metric, MetricValue, Report, SAMPLER_CATEGORY};

/// Prefixes of the pseudo-metrics sections store beside the real ones; the raw page leaves
/// them out.
pub const SECTION_PSEUDO_METRICS: &[&str] = &["breakdown:", "group:", "regex:"];

/// What a metric stored with neither a value nor instances prints.
pub const NO_DATA: &str = "no data";

/// Options of the raw page.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RawOptions {
    /// `--print-units`.
    pub units: UnitMode,
    /// `--print-metric-instances`.
    pub instances: InstanceMode,
}

/// The raw page: a header, a row of units (empty under the launch columns) and one row per
/// action.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawPage {
    /// Launch column names, then metric names.
    pub header: Vec<String>,
    /// The unit of each column.
    pub units: Vec<String>,
    /// One row per action.
    pub rows: Vec<Vec<String>>,
}

/// How one metric column is printed: its display unit and the divisor of its values.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnFormat {
    /// The unit printed in the units row.
    pub unit: String,
    /// What values are divided by (1 unscaled).
    pub divisor: f64,
    /// Whether values print with 6 decimals (a unit in auto mode).
    pub six_decimals: bool,
    /// Whether integer correlation ids print in hex ([`hex_correlation_ids`]).
    pub hex_ids: bool,
}

/// Whether the CLI prints the integer correlation ids (PCs) of metric `name` in hex: the
/// metrics of SASS patching (the legacy `memory_*` source counters, `*sass*` counters,
/// `*branch_targets*`) print `0x7fd524fb89f0`, all others (PC sampling's
/// `smsp__pcsamp_sample_count`, `launch__*`, `nvlink__*`) decimal. Checked on every
/// `raw-instances-details.csv` of the corpus.
pub fn hex_correlation_ids(name: &str) -> bool {
    let (_, counter) = name.split_once("__").unwrap_or(("", name));
    (!name.contains("__") && name.starts_with("memory_"))
        || name.starts_with("sass__")
        || counter.starts_with("sass_")
        || counter.contains("branch_targets")
}

impl ColumnFormat {
    /// The format of metric `name`'s column whose values have the largest magnitude `max`,
    /// with the units of `library`.
    pub fn new(
        name: &str,
        max: Option<f64>,
        units: UnitMode,
        library: ChipLibrary,
    ) -> ColumnFormat {
        let base = library.metric_unit(name);
        let hex_ids = hex_correlation_ids(name);
        if units == UnitMode::Base || base.is_empty() {
            return ColumnFormat {
                six_decimals: false,
                unit: base,
                divisor: 1.0,
                hex_ids,
            };
        }
        match UnitScale::of(&base) {
            Some(scale) => {
                let step = scale.step_for(max.unwrap_or(0.0));
                ColumnFormat {
                    unit: scale.unit(step).to_owned(),
                    divisor: scale.divisor(step),
                    six_decimals: true,
                    hex_ids,
                }
            }
            None => ColumnFormat {
                unit: base,
                divisor: 1.0,
                six_decimals: true,
                hex_ids,
            },
        }
    }

    /// One value in this column's format.
    pub fn value_text(&self, value: &MetricValue) -> String {
        match value {
            MetricValue::None => String::new(),
            MetricValue::String(s) => s.clone(),
            _ if self.six_decimals => {
                fixed(scaled(value.as_f64().unwrap_or(f64::NAN), self.divisor), 6)
            }
            _ => plain_text(value),
        }
    }

    /// A metric's cell: its aggregate, with its instances in `mode`.
    pub fn cell(&self, metric: &Metric, mode: InstanceMode) -> String {
        // A sampler metric without samples (normalized to 0 as NVIDIA's Python reader gives it)
        // is `no data` to the CLI too (sglang's `pmsampling:*`).
        let empty_sampler = metric.category == SAMPLER_CATEGORY;
        if metric.instances.is_empty()
            && (empty_sampler || matches!(metric.stored, MetricValue::None))
        {
            return NO_DATA.to_owned();
        }
        let aggregate = self.value_text(&metric.stored);
        let no_aggregate = matches!(metric.stored, MetricValue::None);
        if mode == InstanceMode::None || metric.instances.is_empty() {
            return aggregate;
        }
        // A sampler's correlation ids are timestamps: each prints with its offset from the
        // first (`1348398796768 (+7680): 0`, the T4's `FBPA.TriageA.*`).
        let first_timestamp = match metric.instances.first().map(|i| &i.correlation_id) {
            Some(Some(MetricValue::Uint64(t))) if metric.category == SAMPLER_CATEGORY => Some(*t),
            _ => None,
        };
        let list: Vec<String> = metric
            .instances
            .iter()
            .map(|i| {
                // Without an aggregate, instances print unscaled, as plain numbers (the
                // sampler's `FBPA.TriageA.dramc__*.pct_of_peak_sustained_elapsed`: `0.01`).
                let value = if no_aggregate {
                    plain_text(&i.value)
                } else {
                    self.value_text(&i.value)
                };
                match (&i.correlation_id, mode) {
                    (Some(MetricValue::Uint64(id)), InstanceMode::Details) if self.hex_ids => {
                        format!("{id:#x}: {value}")
                    }
                    (Some(MetricValue::Uint64(id)), InstanceMode::Details)
                        if first_timestamp.is_some() =>
                    {
                        let offset = id.wrapping_sub(first_timestamp.unwrap_or(*id));
                        format!("{id} (+{offset}): {value}")
                    }
                    (Some(id), InstanceMode::Details) => {
                        format!("{}: {value}", plain_text(id))
                    }
                    _ => value,
                }
            })
            .collect();
        if aggregate.is_empty() {
            format!("({})", list.join("; "))
        } else {
            format!("{aggregate} ({})", list.join("; "))
        }
    }
}

/// The raw page of `actions` (in report order), every instanced metric with its instances in
/// `options.instances` (the app's Raw page).
pub fn raw_page(report: &Report, actions: &[Action], options: RawOptions) -> RawPage {
    build(report, actions, options, false)
}

/// The raw page as `ncu --import R --page raw --csv` (2024.1) prints it: only metrics without
/// a unit list their instances (`launch__occupancy_per_*`, `sass__*_per_opcode`); a metric with a
/// unit prints its aggregate alone, or its instances when it has no aggregate
/// (`notes/ncu-import-csv.md`).
pub fn raw_csv_page(report: &Report, actions: &[Action], options: RawOptions) -> RawPage {
    build(report, actions, options, true)
}

fn build(report: &Report, actions: &[Action], options: RawOptions, cli: bool) -> RawPage {
    let launch = LaunchColumns::for_actions(actions);
    // The sections' pseudo-metrics (`breakdown:`, `group:`, `regex:`) are not columns.
    let names: BTreeSet<&str> = actions
        .iter()
        .flat_map(|a| a.metric_names())
        .filter(|n| !SECTION_PSEUDO_METRICS.iter().any(|p| n.starts_with(p)))
        .collect();
    let mut header = launch.header();
    let mut units = vec![String::new(); header.len()];
    let library = ChipLibrary::of_all(actions);
    let formats: Vec<ColumnFormat> = names
        .iter()
        .map(|name| {
            let max = actions
                .iter()
                .filter_map(|a| a.metric(name))
                // The step comes from the aggregates; instances count only for a metric
                // without one (sglang's `profiler__pmsampler_buffer_size_bytes`: aggregates 0,
                // instances in the millions, printed in `byte`).
                .flat_map(|m| {
                    let instances = matches!(m.stored, MetricValue::None)
                        .then_some(m.instances.iter().map(|i| &i.value))
                        .into_iter()
                        .flatten();
                    std::iter::once(&m.stored).chain(instances)
                })
                .filter_map(magnitude)
                .reduce(f64::max);
            ColumnFormat::new(name, max, options.units, library)
        })
        .collect();
    for (name, format) in names.iter().zip(&formats) {
        header.push((*name).to_owned());
        units.push(format.unit.clone());
    }
    let rows = actions
        .iter()
        .map(|action| {
            let mut row = launch.cells(report, action);
            for (name, format) in names.iter().zip(&formats) {
                let Some(metric) = action.metric(name) else {
                    row.push(String::new());
                    continue;
                };
                // The CLI lists the instances of a metric with a unit only when it has no
                // aggregate (the PM sampler's `FBPA.TriageA.*` percentages).
                let mode = if cli
                    && !format.unit.is_empty()
                    && !matches!(metric.stored, MetricValue::None)
                {
                    InstanceMode::None
                } else {
                    options.instances
                };
                row.push(format.cell(metric, mode));
            }
            row
        })
        .collect();
    RawPage {
        header,
        units,
        rows,
    }
}
