//! The chip as NVIDIA's 2024.1 CLI sees it: whether its metric library knows the chip (units),
//! and what the section filters are evaluated against.

use super::number::cli_base_unit;
use crate::ncu::Action;
use crate::ncu::units::infer_cli_unit;
use crate::section::filter::Target;

/// Whether the 2024.1 CLI has the metric library of a result's chip.
///
/// The CLI knows the chips up to compute capability 9.x (Hopper). For a later chip (the sm_120
/// reports of the corpus, where it warns "Failed to detect compute capability, assuming 50")
/// every metric of the chip's library has no unit and nothing scales; only the outputs of its
/// own occupancy calculator keep theirs (`CHIP_INDEPENDENT_UNITS`). Checked on both sm_120
/// reports (2025.2.1, 2026.2.1): raw, details and summary pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChipLibrary {
    /// The CLI knows the chip: units by `infer_cli_unit` and the few chip-dependent ones of
    /// `CHIP_UNITS` and `CHIP_ID_UNITS`.
    Known {
        /// The compute capability, `major * 10 + minor` (`None`: not stored).
        cc: Option<u32>,
        /// `device__attribute_chip`, the chip's id (`None`: not stored).
        chip: Option<u64>,
    },
    /// The CLI does not know the chip: no units but `CHIP_INDEPENDENT_UNITS`.
    Unknown,
}

impl Default for ChipLibrary {
    fn default() -> Self {
        ChipLibrary::Known {
            cc: None,
            chip: None,
        }
    }
}

/// Units of the 2024.1 CLI that depend on the chip: `(metric, compute capability, unit)`.
/// On Turing (7.5: the GTX 1660 SUPER and T4 reports) the L2 compression success rate
/// `lts__average_gcomp_input_sector_success_rate.pct` is in `sector` (NVIDIA's Python reader
/// agrees); every other chip of the corpus says `%`.
pub const CHIP_UNITS: &[(&str, u32, &str)] = &[(
    "lts__average_gcomp_input_sector_success_rate.pct",
    75,
    "sector",
)];

/// Units of the 2024.1 CLI that depend on the chip itself, not on its compute capability:
/// `(metric, device__attribute_chip, unit)`. The NVLink byte rates `nvlrx__bytes.sum.per_second`
/// and `nvltx__bytes.sum.per_second` are in `byte` on TU116 (chip 0x168, the GTX 1660 SUPER of
/// vec_add, 2024.1.1) and in `byte/second` on TU104 (0x164, T4, the same compute capability
/// 7.5), GA106 (0x176), GH100 (0x180: H800, GH200). NVIDIA's Python reader (the goldens) gives
/// the same units per chip (`byte` and `byte/s`): it is the chip's metric library. The corpus
/// holds no other TU116 report with these metrics.
pub const CHIP_ID_UNITS: &[(&str, u64, &str)] = &[
    ("nvlrx__bytes.sum.per_second", 0x168, "byte"),
    ("nvltx__bytes.sum.per_second", 0x168, "byte"),
];

/// The compute capability the 2024.1 CLI assumes for a chip it does not know.
const ASSUMED_CC: u32 = 50;

/// The last `GpuArch` value of the 2024.1 CLI's schema (`CC_90`).
const LAST_KNOWN_ARCH: i32 = 90;

/// The last compute capability major the 2024.1 CLI knows.
const LAST_KNOWN_CC_MAJOR: u64 = 9;

/// The metrics whose units the 2024.1 CLI prints without the chip's metric library (its
/// occupancy calculator's results; `launch__occupancy_limit_barriers`, newer than 2024.1, is
/// not one of them).
pub const CHIP_INDEPENDENT_UNITS: &[&str] = &[
    "launch__cluster_max_active",
    "launch__cluster_max_potential_size",
    "launch__occupancy_limit_blocks",
    "launch__occupancy_limit_registers",
    "launch__occupancy_limit_shared_mem",
    "launch__occupancy_limit_warps",
    "launch__sm_count",
    "sm__maximum_warps_avg_per_active_cycle",
    "smsp__maximum_warps_avg_per_active_cycle",
];

impl ChipLibrary {
    /// The library for `action`, from its compute capability (a result without one: known).
    pub fn of(action: &Action) -> ChipLibrary {
        let major = action
            .metric("device__attribute_compute_capability_major")
            .and_then(|m| m.value().as_u64());
        match major {
            Some(major) if major > LAST_KNOWN_CC_MAJOR => ChipLibrary::Unknown,
            _ => ChipLibrary::Known {
                cc: action.compute_capability(),
                chip: action
                    .metric("device__attribute_chip")
                    .and_then(|m| m.value().as_u64()),
            },
        }
    }

    /// What the CLI evaluates `action`'s section filters against: its compute capability, or
    /// 5.0 for a chip the CLI does not know ("assuming 50": the sm_120 reports' pages leave out
    /// the entries of `MinArch` 9.0, such as "Cluster Size"); `GpuArch` bounds after `CC_90`
    /// are values the 2024.1 schema lacks and do not count (sm_120's "Preferred Cluster Size",
    /// `MinArch` 10.0, is listed; the MC channel entries for 8.7 and 10.1 are `n/a` rows on
    /// every chip).
    pub fn target(action: &Action) -> Target {
        let cc = match ChipLibrary::of(action) {
            ChipLibrary::Unknown => Some(ASSUMED_CC),
            ChipLibrary::Known { cc, .. } => cc,
        };
        Target::new(action.kind(), cc).with_last_known_arch(LAST_KNOWN_ARCH)
    }

    /// The library for a column of several results: the first known chip's; unknown only when
    /// no result's chip is known (and there is at least one result).
    pub fn of_all<'a>(actions: impl IntoIterator<Item = &'a Action>) -> ChipLibrary {
        let mut any = false;
        for action in actions {
            any = true;
            let library = ChipLibrary::of(action);
            if library != ChipLibrary::Unknown {
                return library;
            }
        }
        if any {
            ChipLibrary::Unknown
        } else {
            ChipLibrary::default()
        }
    }

    /// The CLI base unit of metric `name` (see `cli_base_unit`).
    pub fn metric_unit(self, name: &str) -> String {
        match self {
            ChipLibrary::Unknown if !CHIP_INDEPENDENT_UNITS.contains(&name) => String::new(),
            ChipLibrary::Known { cc, chip } => {
                let by_cc = CHIP_UNITS
                    .iter()
                    .find(|(metric, on, _)| *metric == name && Some(*on) == cc)
                    .map(|(_, _, unit)| *unit);
                let by_chip = CHIP_ID_UNITS
                    .iter()
                    .find(|(metric, on, _)| *metric == name && Some(*on) == chip)
                    .map(|(_, _, unit)| *unit);
                by_chip
                    .or(by_cc)
                    .map_or_else(|| cli_base_unit(&infer_cli_unit(name)), str::to_owned)
            }
            ChipLibrary::Unknown => cli_base_unit(&infer_cli_unit(name)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ChipLibrary;

    /// The NVLink byte rates are `byte` on TU116 (0x168) and `byte/second` on TU104 (0x164),
    /// both compute capability 7.5; the L2 compression rate is `sector` on every 7.5 chip.
    #[test]
    fn units_by_chip_id_and_by_compute_capability() {
        let on = |chip| ChipLibrary::Known {
            cc: Some(75),
            chip: Some(chip),
        };
        let rate = "nvlrx__bytes.sum.per_second";
        assert_eq!(on(0x168).metric_unit(rate), "byte");
        assert_eq!(on(0x164).metric_unit(rate), "byte/second");
        assert_eq!(ChipLibrary::default().metric_unit(rate), "byte/second");
        let gcomp = "lts__average_gcomp_input_sector_success_rate.pct";
        assert_eq!(on(0x168).metric_unit(gcomp), "sector");
        assert_eq!(on(0x164).metric_unit(gcomp), "sector");
        assert_eq!(ChipLibrary::default().metric_unit(gcomp), "%");
    }
}
