//! Units and numbers as `ncu --import --csv` (2024.1) prints them.
//!
//! This is not the Details page's display formatter ([`crate::format`]): the CLI spells base
//! units out (`nsecond`, `cycle/second`), scales a rate of anything but bytes by its time
//! denominator (`cycle/nsecond`, `sector/usecond`), chooses one step for a whole column of
//! the raw page (from its largest value), and prints numbers without thousands separators
//! with a fixed number of decimals per page.

use super::chip::ChipLibrary;
use super::resolved::ResolvedUnits;
use crate::ncu::MetricValue;
use crate::ncu::units::infer_unit;
use crate::section::details::Entry;

/// The CLI base unit of a Details entry: the section's own `Unit` when it gives one, else the
/// unit the 2024.1 CLI's metric library has for the metric ([`infer_cli_unit`]). An entry
/// whose unit is the inferred one is taken as having no section unit. Without the chip's
/// library ([`ChipLibrary::Unknown`]) only [`CHIP_INDEPENDENT_UNITS`] have a unit.
///
/// On these pages a derived count of thread instructions
/// (`derived__sm__sass_thread_inst_executed_op_ffma_pred_on_x2`, the rooflines' FMA operations)
/// is in `inst` in every corpus report (27 kernels of the corpus' `details-all*.csv`), where
/// the raw page mostly says `thread`: the details page prints the rooflines before
/// SourceCounters' `derived__avg_thread_executed` ([`resolved_entry_unit`]).
pub fn entry_cli_unit(entry: &Entry, library: ChipLibrary) -> String {
    fixed_entry_unit(entry, library).unwrap_or_else(|| library.metric_unit(&entry.metric))
}

/// [`entry_cli_unit`] as the details page resolves it, in the order it prints: a metric the
/// CLI's library lacks (a derived metric, a stall sample) takes a unit printed before it when
/// its name holds one ([`ResolvedUnits`]); every printed entry's unit counts for the later
/// ones (manual_nvtx: the `no_instructions` stall samples in `warp`, where an earlier section
/// printed no entry in `inst`).
pub fn resolved_entry_unit(
    entry: &Entry,
    library: ChipLibrary,
    resolved: &mut ResolvedUnits,
) -> String {
    match fixed_entry_unit(entry, library) {
        Some(unit) => {
            if library != ChipLibrary::Unknown {
                resolved.remember(&entry.metric, &unit);
            }
            unit
        }
        None => resolved.resolve(library, &entry.metric),
    }
}

/// The unit of an entry that does not depend on the units printed before (the section's own
/// `Unit`, [`DETAILS_BYTE_METRICS`], a chip the CLI does not know), or `None` when the CLI's
/// library decides.
fn fixed_entry_unit(entry: &Entry, library: ChipLibrary) -> Option<String> {
    if library == ChipLibrary::Unknown {
        return Some(library.metric_unit(&entry.metric));
    }
    if entry.unit != infer_unit(&entry.metric) {
        return Some(cli_base_unit(&entry.unit));
    }
    DETAILS_BYTE_METRICS
        .iter()
        .any(|p| entry.metric.starts_with(p))
        .then(|| "byte".to_owned())
}

/// Source-level metrics the details page gives `byte` while the raw page says `warp` or `inst`
/// (both `mem`-prefixed words): the `membar` stall samples (every corpus report from 2020.2 to
/// 2024.2, header and source-table rows) and 2022.1's `smsp__inst_executed_memdesc_explicit_*`
/// (indexspaces; their later `smsp__sass_inst_executed_memdesc_*` names stay `inst`).
const DETAILS_BYTE_METRICS: &[&str] = &[
    "smsp__pcsamp_warps_issue_stalled_membar",
    "smsp__inst_executed_memdesc_",
];

/// The unit the CLI prints in base mode for a unit spelled as Sightline's unit inference
/// spells it ([`crate::ncu::units::infer_unit`]): `ns` → `nsecond`, `hz` → `cycle/second`,
/// `X/s` → `X/second`; other units unchanged.
pub fn cli_base_unit(unit: &str) -> String {
    let spell = |u: &str| -> String {
        match u {
            "ns" => "nsecond".to_owned(),
            "us" => "usecond".to_owned(),
            "ms" => "msecond".to_owned(),
            "s" => "second".to_owned(),
            "hz" => "cycle/second".to_owned(),
            other => other.to_owned(),
        }
    };
    match unit.split_once('/') {
        Some((num, den)) => format!("{}/{}", spell(num), spell(den)),
        None => spell(unit),
    }
}

/// How a unit scales: by its numerator (time, bytes) or by its time denominator (a rate of
/// anything but bytes), in steps of 1000.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitScale {
    /// The display unit at each step, smallest first.
    steps: Vec<String>,
    /// The factor the base value is divided by at each step.
    divisors: Vec<f64>,
}

impl UnitScale {
    /// The scale of a CLI base unit (see [`cli_base_unit`]), or `None` when it does not scale.
    pub fn of(base_unit: &str) -> Option<UnitScale> {
        const TIME: [&str; 4] = ["nsecond", "usecond", "msecond", "second"];
        const BYTES: [&str; 6] = ["byte", "Kbyte", "Mbyte", "Gbyte", "Tbyte", "Pbyte"];
        let (num, den) = match base_unit.split_once('/') {
            Some((n, d)) => (n, Some(d)),
            None => (base_unit, None),
        };
        let powers = |n: usize| {
            (0..n)
                .map(|i| 1000f64.powi(crate::core::num::saturating_i32(i)))
                .collect::<Vec<_>>()
        };
        if num == "byte" {
            let rest = den.map(|d| format!("/{d}")).unwrap_or_default();
            return Some(UnitScale {
                steps: BYTES.iter().map(|b| format!("{b}{rest}")).collect(),
                divisors: powers(BYTES.len()),
            });
        }
        if den == Some("byte") {
            // A quantity per byte scales its byte denominator as if it were a byte count:
            // `derived__pct_occupancy_per_shared_mem_size` 2006 `%/byte` prints 2.006
            // `%/Kbyte` (wsl_gui, silu).
            return Some(UnitScale {
                steps: BYTES.iter().map(|b| format!("{num}/{b}")).collect(),
                divisors: powers(BYTES.len()),
            });
        }
        match den {
            None if num == "nsecond" => Some(UnitScale {
                steps: TIME.iter().map(|t| (*t).to_owned()).collect(),
                divisors: powers(TIME.len()),
            }),
            Some("second") if !num.contains('%') => {
                // A rate: per second, per msecond, per usecond, per nsecond.
                let steps = TIME.iter().rev().map(|t| format!("{num}/{t}")).collect();
                Some(UnitScale {
                    steps,
                    divisors: powers(TIME.len()),
                })
            }
            _ => None,
        }
    }

    /// The step for values whose largest magnitude is `max`: the largest step the value
    /// reaches (at least 1 in that step).
    pub fn step_for(&self, max: f64) -> usize {
        let mut step = 0;
        if !max.is_finite() {
            return 0;
        }
        while step + 1 < self.divisors.len() && max.abs() >= self.divisors[step + 1] {
            step += 1;
        }
        step
    }

    /// The display unit at `step`.
    pub fn unit(&self, step: usize) -> &str {
        self.steps.get(step).map_or("", String::as_str)
    }

    /// The divisor at `step`.
    pub fn divisor(&self, step: usize) -> f64 {
        self.divisors.get(step).copied().unwrap_or(1.0)
    }
}

/// `v` in a step whose unit is `divisor` base units. The CLI multiplies by the step's factor
/// rather than dividing by its size, which rounds differently in the last bit: 5342187500
/// sector/second is 5.342188 sector/nsecond (`5342187500 * 1e-9` = 5.34218750000000053),
/// not 5.342187 (`5342187500 / 1e9` = 5.34218749999999964; ee384's raw.csv).
pub fn scaled(v: f64, divisor: f64) -> f64 {
    v * (1.0 / divisor)
}

/// A value's magnitude for choosing a step (strings and missing values: none).
pub fn magnitude(value: &MetricValue) -> Option<f64> {
    value.as_f64().filter(|v| v.is_finite()).map(f64::abs)
}

/// `v` with `decimals` decimals as C's `printf("%.*f")` prints it (`nan`, `-nan`, `inf`).
pub fn fixed(v: f64, decimals: usize) -> String {
    if v.is_nan() {
        return if v.is_sign_negative() { "-nan" } else { "nan" }.to_owned();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf" } else { "-inf" }.to_owned();
    }
    format!("{v:.decimals$}")
}

/// A value as the CLI prints it unscaled (details page, raw page in base units or without a
/// unit): integers exactly; a floating-point value that is integral as an integer, any other
/// with 2 decimals (NaN as `nan`); strings as they are.
pub fn plain_text(value: &MetricValue) -> String {
    match value {
        MetricValue::None => String::new(),
        MetricValue::String(s) => s.clone(),
        MetricValue::Uint32(v) => v.to_string(),
        MetricValue::Uint64(v) => v.to_string(),
        MetricValue::Float(v) => float_text(f64::from(*v)),
        MetricValue::Double(v) => float_text(*v),
    }
}

fn float_text(v: f64) -> String {
    // Unscaled values print NaN without its sign (sglang's raw-base.csv: `nan` where the
    // scaled raw.csv says `-nan`).
    if v.is_nan() {
        return "nan".to_owned();
    }
    // An integral double prints as an integer, also past 1e15 (GH200's
    // `sm__ops_path_*.peak_sustained_elapsed.per_second`: `12990962038444346`); the bound is
    // the 64-bit integer range.
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 9.2e18 {
        format!("{v:.0}")
    } else {
        fixed(v, 2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_units_are_spelled_out() {
        assert_eq!(cli_base_unit("ns"), "nsecond");
        assert_eq!(cli_base_unit("hz"), "cycle/second");
        assert_eq!(cli_base_unit("byte/s"), "byte/second");
        assert_eq!(cli_base_unit("sector/s"), "sector/second");
        assert_eq!(cli_base_unit("inst/cycle"), "inst/cycle");
    }

    #[test]
    fn steps_of_1000_by_numerator_or_time_denominator() {
        let bytes = UnitScale::of("byte").unwrap();
        assert_eq!(bytes.unit(bytes.step_for(999.0)), "byte");
        assert_eq!(bytes.unit(bytes.step_for(131_072.0)), "Kbyte");
        assert_eq!(bytes.divisor(bytes.step_for(1.69e9)), 1e9);
        let per_block = UnitScale::of("byte/block").unwrap();
        assert_eq!(per_block.unit(per_block.step_for(1024.0)), "Kbyte/block");
        let time = UnitScale::of("nsecond").unwrap();
        assert_eq!(time.unit(time.step_for(6.9e9)), "second");
        let cycles = UnitScale::of("cycle/second").unwrap();
        assert_eq!(cycles.unit(cycles.step_for(0.0)), "cycle/second");
        assert_eq!(cycles.unit(cycles.step_for(111_000.84)), "cycle/msecond");
        assert_eq!(cycles.unit(cycles.step_for(5.4e8)), "cycle/usecond");
        assert_eq!(cycles.unit(cycles.step_for(2.05e11)), "cycle/nsecond");
        assert_eq!(cycles.divisor(cycles.step_for(2.05e11)), 1e9);
        assert!(UnitScale::of("%").is_none());
        assert!(UnitScale::of("inst/cycle").is_none());
    }

    #[test]
    fn numbers_as_the_cli_prints_them() {
        assert_eq!(plain_text(&MetricValue::Double(100.0)), "100");
        assert_eq!(plain_text(&MetricValue::Double(0.000716)), "0.00");
        assert_eq!(plain_text(&MetricValue::Double(57873.954)), "57873.95");
        assert_eq!(plain_text(&MetricValue::Double(-f64::NAN)), "nan");
        assert_eq!(
            plain_text(&MetricValue::Uint64(18_446_744_073_709_551_615)),
            "18446744073709551615"
        );
        assert_eq!(fixed(4587.0, 6), "4587.000000");
        assert_eq!(fixed(-f64::NAN, 6), "-nan");
    }
}
