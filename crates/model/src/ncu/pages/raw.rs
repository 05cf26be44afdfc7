//! The raw page (`ncu --import R --page raw`): one column per metric name of any action
//! (sorted by name, after the launch columns), a row of units, one row per action.

use std::collections::BTreeSet;

use super::chip::ChipLibrary;
use super::launch::LaunchColumns;
use super::number::{UnitScale, fixed, magnitude, plain_text, scaled};
use super::resolved::ResolvedUnits;
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
    /// What the column's largest magnitude makes of its values ([`Degenerate`]).
    pub degenerate: Degenerate,
}

/// A scaled column (a unit, auto units) whose largest magnitude is not a positive finite
/// number: the 2024.1 CLI then prints its cells otherwise. Checked on sglang (2023.3, H800,
/// five results; the only corpus report with NaN or infinite values), raw.csv against
/// raw-base.csv:
/// - every non-NaN value 0 (or none): a NaN prints `0.000000` (383 cells of the fifth result,
///   in `%`, `sector`, `inst`, ... columns; the `pmsampling:*` columns whose other cells are
///   `no data`), while a column without a unit keeps `nan` (24 columns);
/// - an infinite value in the column: every number prints `-nan`, zeros too
///   (`lts__average_gcomp_input_sector_success_rate.pct`: `inf`, `0`, `0`, `0`, `nan` print
///   `-nan` five times).
///
/// A NaN in any other column prints as it is stored (`nan`, `-nan` for the negative NaNs of
/// `gpu__time_duration.sum` and three more).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Degenerate {
    /// A positive finite largest magnitude: values print as they are.
    #[default]
    No,
    /// Every non-NaN value is 0, or there is none: NaN prints as 0.
    Zero,
    /// The largest magnitude is infinite: every number prints `-nan`.
    Infinite,
}

impl Degenerate {
    /// The case of a column whose values (aggregates, NaN included) are `values`.
    pub fn of<'a>(values: impl IntoIterator<Item = &'a MetricValue>) -> Degenerate {
        let peak = values
            .into_iter()
            .filter_map(MetricValue::as_f64)
            .filter(|v| !v.is_nan())
            .map(f64::abs)
            .reduce(f64::max);
        match peak {
            None | Some(0.0) => Degenerate::Zero,
            Some(p) if p.is_infinite() => Degenerate::Infinite,
            Some(_) => Degenerate::No,
        }
    }
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
    /// with the units of `library` (the unit by name alone; a page's columns take theirs from
    /// [`ResolvedUnits`] and [`ColumnFormat::with_unit`]; the unit tests use it).
    #[cfg(test)]
    pub fn new(
        name: &str,
        max: Option<f64>,
        units: UnitMode,
        library: ChipLibrary,
    ) -> ColumnFormat {
        ColumnFormat::with_unit(name, library.metric_unit(name), max, units)
    }

    /// The format of metric `name`'s column in base unit `base` whose values have the largest
    /// magnitude `max`.
    pub fn with_unit(name: &str, base: String, max: Option<f64>, units: UnitMode) -> ColumnFormat {
        let hex_ids = hex_correlation_ids(name);
        if units == UnitMode::Base || base.is_empty() {
            return ColumnFormat {
                six_decimals: false,
                unit: base,
                divisor: 1.0,
                hex_ids,
                degenerate: Degenerate::No,
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
                    degenerate: Degenerate::No,
                }
            }
            None => ColumnFormat {
                unit: base,
                divisor: 1.0,
                six_decimals: true,
                hex_ids,
                degenerate: Degenerate::No,
            },
        }
    }

    /// One value in this column's format.
    pub fn value_text(&self, value: &MetricValue) -> String {
        match value {
            MetricValue::None => String::new(),
            MetricValue::String(s) => s.clone(),
            _ if self.six_decimals => {
                let v = value.as_f64().unwrap_or(f64::NAN);
                match self.degenerate {
                    Degenerate::Infinite => "-nan".to_owned(),
                    Degenerate::Zero if v.is_nan() => fixed(0.0, 6),
                    _ => fixed(scaled(v, self.divisor), 6),
                }
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
    // Columns resolve their units in order: a derived metric's may follow an earlier one's.
    let mut resolved = ResolvedUnits::default();
    let formats: Vec<ColumnFormat> = names
        .iter()
        .map(|name| {
            let values = || {
                actions
                    .iter()
                    .filter_map(|a| a.metric(name))
                    // The step comes from the aggregates; instances count only for a metric
                    // without one (sglang's `profiler__pmsampler_buffer_size_bytes`: aggregates
                    // 0, instances in the millions, printed in `byte`).
                    .flat_map(|m| {
                        let instances = matches!(m.stored, MetricValue::None)
                            .then_some(m.instances.iter().map(|i| &i.value))
                            .into_iter()
                            .flatten();
                        std::iter::once(&m.stored).chain(instances)
                    })
            };
            let max = values().filter_map(magnitude).reduce(f64::max);
            let base = resolved.resolve(library, name);
            let mut format = ColumnFormat::with_unit(name, base, max, options.units);
            if cli && format.six_decimals {
                format.degenerate = Degenerate::of(values());
            }
            format
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

#[cfg(test)]
mod tests {
    use super::{ColumnFormat, Degenerate};
    use crate::ncu::MetricValue;
    use crate::ncu::pages::UnitMode;
    use crate::ncu::pages::chip::ChipLibrary;

    /// sglang's rules: an all-zero scaled column prints its NaN as 0, a column with an
    /// infinite value prints `-nan` everywhere; other NaNs print as stored.
    #[test]
    fn degenerate_columns_print_as_the_cli() {
        let d = MetricValue::Double;
        assert_eq!(Degenerate::of(&[d(0.0), d(f64::NAN)]), Degenerate::Zero);
        assert_eq!(Degenerate::of(&[d(f64::NAN)]), Degenerate::Zero);
        assert_eq!(
            Degenerate::of(&[d(f64::INFINITY), d(0.0), d(f64::NAN)]),
            Degenerate::Infinite
        );
        assert_eq!(Degenerate::of(&[d(2.0), d(f64::NAN)]), Degenerate::No);
        let name = "lts__average_gcomp_input_sector_success_rate.pct";
        let mut format = ColumnFormat::new(name, Some(0.0), UnitMode::Auto, ChipLibrary::default());
        format.degenerate = Degenerate::Zero;
        assert_eq!(format.value_text(&d(f64::NAN)), "0.000000");
        assert_eq!(format.value_text(&d(0.0)), "0.000000");
        format.degenerate = Degenerate::Infinite;
        assert_eq!(format.value_text(&d(0.0)), "-nan");
        assert_eq!(format.value_text(&d(f64::INFINITY)), "-nan");
        format.degenerate = Degenerate::No;
        assert_eq!(format.value_text(&d(-f64::NAN)), "-nan");
        assert_eq!(format.value_text(&d(f64::NAN)), "nan");
    }
}
