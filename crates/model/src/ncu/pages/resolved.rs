//! Units of derived metrics as the 2024.1 CLI resolves them: they depend on the units it has
//! resolved before.
//!
//! A `derived__*` metric (a section's `MetricDefinitions` result) is not in the CLI's metric
//! library, so the CLI guesses its unit from the name, and the guess remembers: when the name
//! contains a unit the CLI has already given to an earlier column, it takes that unit (the
//! alphabetically first such unit), else its own word rules (which Sightline's
//! [`infer_cli_unit`](crate::ncu::units::infer_cli_unit) follows). The raw page resolves its
//! columns in order, sorted by name, so
//! `derived__sm__sass_thread_inst_executed_op_ffma_pred_on_x2` is in `thread` when an earlier
//! column is in `thread` and none in `inst` (SourceCounters' `derived__avg_thread_executed`
//! sorts before it: ten corpus reports), and in `inst` otherwise (esmm, without SourceCounters,
//! has `derived__sm__inst_executed_pipe_tensor_x512` in `inst` before it; without either, the
//! word rules give `inst`).
//!
//! Found with reports written by Sightline's writer and run through the CLI
//! (`notes/ncu-import-csv.md`, "Derived FMA counts"; `fixtures/derived_units_*.ncu-rep`): one
//! `derived__aaa_thread` column makes the counts `thread`, `derived__zzz_thread` (sorting
//! after them) does not, `derived__aaa_thread` with `derived__aab_inst` gives `inst`, a known
//! metric counts too (`launch__thread_count` sorting before an unknown name), a rate's unit
//! (`inst/cycle`) never matches a name, and a name ending in `pct` stays `%` whatever came
//! before. The sections stored in the report play no part (the same result without any).

use std::collections::{BTreeMap, BTreeSet};

use super::chip::ChipLibrary;

/// The prefix of the metrics a section's `MetricDefinitions` compute.
const DERIVED: &str = "derived__";

/// The prefix of the derived memory metrics (`derived__memory_l2_theoretical_sectors_global_excessive`,
/// `byte` by the CLI's word rules): they take an earlier unit only when it was given to a name
/// the library lacks. On the raw page `derived__aaa_sector` before it made it `sector`; on
/// the details page of nine corpus reports the memory chart's and Memory Workload Analysis
/// Chart's `lts__t_sectors*` rows (known metrics, `sector`) printed before it leave it `byte`,
/// while known metrics in `inst` and `thread` do change the stall samples and FMA counts
/// (`fixtures/details_units_*.ncu-rep`). Found by comparison, not explained further.
const MEMORY: &str = "derived__memory_";

/// The prefix of the warp stall samples (PC sampling), which the CLI's metric library does not
/// know either: their unit is guessed as a derived metric's is. Only
/// `..._no_instructions{,_not_issued}` holds two unit words (`warp`, `inst`), so it is the one
/// whose unit depends on what came before: `inst` after an entry in `inst`, else `warp`
/// (manual_nvtx's details page, `notes/ncu-import-csv.md`, "The no_instructions stall
/// samples"; `fixtures/details_units_*.ncu-rep`).
const STALL_SAMPLES: &str = "smsp__pcsamp_warps_issue_stalled_";

/// The units resolved so far, in the order the CLI resolves a page's columns.
#[derive(Debug, Clone, Default)]
pub struct ResolvedUnits {
    /// The units given so far.
    seen: BTreeSet<String>,
    /// The units given so far to names the CLI's library lacks (derived metrics, stall
    /// samples): the only ones a `derived__memory_*` name takes (see [`MEMORY`]).
    seen_guessed: BTreeSet<String>,
    /// The unit given to each derived name: it keeps its first unit (the raw summary's later
    /// groups print `derived__memory_*` in the `byte` of the first group, though `sectors`
    /// came between: manual_nvtx's summary-raw.csv).
    by_name: BTreeMap<String, String>,
}

impl ResolvedUnits {
    /// The base unit of column `name` in `library`, given the columns resolved before it, and
    /// remembers it for the next ones.
    pub fn resolve(&mut self, library: ChipLibrary, name: &str) -> String {
        if let Some(unit) = self.by_name.get(name) {
            return unit.clone();
        }
        let by_name = library.metric_unit(name);
        let unit = if guessed(name, &by_name) {
            let seen = if name.starts_with(MEMORY) {
                &self.seen_guessed
            } else {
                &self.seen
            };
            seen.iter()
                .find(|seen| name.contains(seen.as_str()))
                .cloned()
                .unwrap_or_else(|| word_rules(name, by_name))
        } else {
            by_name
        };
        self.remember(name, &unit);
        unit
    }

    /// Records that column `name` was given `unit` (as [`ResolvedUnits::resolve`] does), for a
    /// unit decided otherwise (a section's own unit).
    pub fn remember(&mut self, name: &str, unit: &str) {
        if !unit.is_empty() {
            self.seen.insert(unit.to_owned());
        }
        if unknown_to_library(name) {
            if !unit.is_empty() {
                self.seen_guessed.insert(unit.to_owned());
            }
            self.by_name.insert(name.to_owned(), unit.to_owned());
        }
    }
}

/// Whether the CLI's metric library lacks `name`, so that it guesses its unit.
fn unknown_to_library(name: &str) -> bool {
    name.starts_with(DERIVED) || name.starts_with(STALL_SAMPLES)
}

/// Whether the CLI guesses the unit of `name` (its name rules gave `by_name`) from the units
/// it resolved before: a derived metric or a stall sample whose name rules give a plain unit
/// (not a percentage, not a ratio such as `%/register`, not none).
fn guessed(name: &str, by_name: &str) -> bool {
    unknown_to_library(name) && !by_name.is_empty() && by_name != "%" && !by_name.contains('/')
}

/// The CLI's word rules for a guessed name without an earlier unit in it: Sightline's name
/// rules, but a stall sample counts warps (`no_instructions` too: the CLI printed `warp` for an
/// unknown `e.smsp__pcsamp_warps_issue_stalled_no_instructions` column, and on the details
/// page when no entry in `inst` printed before).
fn word_rules(name: &str, by_name: String) -> String {
    if name.starts_with(STALL_SAMPLES) {
        "warp".to_owned()
    } else {
        by_name
    }
}

#[cfg(test)]
mod tests {
    use super::{ChipLibrary, ResolvedUnits};

    fn resolve_all(names: &[&str]) -> Vec<String> {
        let mut resolved = ResolvedUnits::default();
        names
            .iter()
            .map(|n| resolved.resolve(ChipLibrary::default(), n))
            .collect()
    }

    const FMA: &str = "derived__sm__sass_thread_inst_executed_op_ffma_pred_on_x2";

    #[test]
    fn derived_counts_take_a_unit_resolved_before() {
        // Alone: the CLI's word rules, `inst`.
        assert_eq!(resolve_all(&[FMA]), ["inst"]);
        // After a column in `thread`: `thread`.
        assert_eq!(
            resolve_all(&["derived__avg_thread_executed", FMA]),
            ["thread", "thread"]
        );
        // After columns in `thread` and `inst`: the first alphabetically, `inst`.
        assert_eq!(
            resolve_all(&[
                "derived__aaa_thread",
                "derived__aab_inst_executed",
                FMA,
                "derived__smsp__sass_thread_inst_executed_op_ffma_pred_on_x2"
            ])[2..],
            ["inst", "inst"]
        );
        // A rate never matches a name; a percentage keeps its unit.
        assert_eq!(
            resolve_all(&[
                "derived__avg_thread_executed",
                "derived__smsp__inst_executed_op_branch_pct",
                "sm__inst_executed.avg.per_cycle_active",
                FMA
            ]),
            ["thread", "%", "inst/cycle", "thread"]
        );
        // A name keeps the unit it was first given.
        assert_eq!(
            resolve_all(&[FMA, "derived__aaa_thread", FMA]),
            ["inst", "thread", "inst"]
        );
        // The `no_instructions` stall samples: `inst` after an entry in `inst`, else `warp`
        // (the word rules), whatever the other stall samples gave.
        const NO_INST: &str = "smsp__pcsamp_warps_issue_stalled_no_instructions";
        assert_eq!(
            resolve_all(&[
                "smsp__inst_executed.sum",
                "smsp__pcsamp_warps_issue_stalled_barrier",
                NO_INST
            ]),
            ["inst", "warp", "inst"]
        );
        assert_eq!(
            resolve_all(&["launch__thread_count", NO_INST]),
            ["thread", "warp"]
        );
        // A derived memory metric takes an earlier unit given to a guessed name only.
        const MEMORY: &str = "derived__memory_l2_theoretical_sectors_global_excessive";
        assert_eq!(
            resolve_all(&["lts__t_sectors.sum", MEMORY]),
            ["sector", "byte"]
        );
        assert_eq!(
            resolve_all(&["derived__aaa_sector", MEMORY]),
            ["sector", "sector"]
        );
        // Known metrics keep their unit whatever came before.
        assert_eq!(
            resolve_all(&["launch__thread_count", "smsp__thread_inst_executed.sum"]),
            ["thread", "inst"]
        );
    }
}
