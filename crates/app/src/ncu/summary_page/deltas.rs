//! The Summary page's baseline columns: for every shown baseline, each row's duration
//! difference to the baseline's result that matches it — the same kernel name and launch order,
//! or the result picked in the baselines bar, as on the Details page — and "N/A" where none
//! matches, never another kernel. Computed once per change of the rows or the baselines.

use std::path::Path;

use sightline_model::section::{Difference, OverviewRow};

use super::super::baselines::{Baseline, Pick};

/// A row's comparison with one baseline: the baseline's result it matched and the duration
/// difference (`None` when a duration is missing).
pub type Delta = Option<(usize, Option<Difference>)>;

/// What the differences were computed for: per baseline its id, pick and known results, and
/// the row count.
type Key = (Vec<(u64, Pick, usize)>, usize);

/// Each shown baseline's differences, per row.
#[derive(Debug, Default)]
pub struct Deltas {
    key: Option<Key>,
    /// Per baseline (in the bar's order), per row.
    values: Vec<Vec<Delta>>,
    /// The baselines' names, for the headers.
    pub names: Vec<String>,
}

impl Deltas {
    /// Computes the differences of `rows` (of report `shown`) to `baselines` unless they are
    /// known; returns whether they changed.
    pub fn update(&mut self, shown: &Path, rows: &[OverviewRow], baselines: &[&Baseline]) -> bool {
        let key = (
            baselines
                .iter()
                .map(|b| (b.id, b.pick, b.names.len()))
                .collect(),
            rows.len(),
        );
        if self.key.as_ref() == Some(&key) {
            return false;
        }
        let names: Vec<&str> = rows.iter().map(|r| r.launch.name.as_str()).collect();
        self.values = baselines
            .iter()
            .map(|baseline| {
                baseline
                    .results_for(shown, &names)
                    .into_iter()
                    .zip(rows)
                    .map(|(matched, row)| {
                        let matched = matched?;
                        let base = baseline.durations.get(matched).copied().flatten();
                        let difference = row
                            .launch
                            .duration_ns
                            .zip(base)
                            .map(|(value, base)| Difference::of(value, base));
                        Some((matched, difference))
                    })
                    .collect()
            })
            .collect();
        self.names = baselines.iter().map(|b| b.name.clone()).collect();
        self.key = Some(key);
        true
    }

    /// How many baselines.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there is no baseline.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Row `row`'s comparison with baseline `baseline` (in the bar's order).
    pub fn get(&self, baseline: usize, row: usize) -> Delta {
        self.values.get(baseline)?.get(row).copied().flatten()
    }
}
