//! The changes between two summarized runs, their verdicts and the gate a CI job reads.

use std::collections::HashMap;
use std::path::PathBuf;

use super::{Category, GroupKey, GroupRow, RunSummary, Side, Verdict, sample_sd};

/// A group whose time is at least this share of its category's (in either run) is gated: a
/// kernel of 0.1 % of the GPU time that is 50 % slower does not fail a build.
pub const MATERIAL_SHARE: f64 = 0.01;

/// One group's change between the runs (or a category's total: `name` is empty).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Change {
    /// The category.
    pub category: Category,
    /// The group's name; empty for the category's total.
    pub name: String,
    /// Run A's figures (`None`: not in run A).
    pub a: Option<Side>,
    /// Run B's figures.
    pub b: Option<Side>,
    /// Change of the total per rank, ns (a missing side counts 0).
    pub delta: f64,
    /// The change in percent of A's total (`None` when A's is 0).
    pub delta_pct: Option<f64>,
    /// The change of the median in percent of A's (groups in both runs).
    pub median_pct: Option<f64>,
    /// Twice the combined standard error, in percent of A's total: changes within it are not
    /// significant.
    pub noise_pct: Option<f64>,
    /// The group's largest share of its category's time in either run (1 for a total).
    pub share: f64,
    /// What the change amounts to at the comparison's threshold.
    pub verdict: Verdict,
}

impl Change {
    /// Whether the gate looks at this change: a category total, or a group present in both
    /// runs with at least [`MATERIAL_SHARE`] of its category's time in either.
    pub fn gated(&self) -> bool {
        self.a.is_some()
            && self.b.is_some()
            && (self.name.is_empty() || self.share >= MATERIAL_SHARE)
    }
}

/// The outcome a CI job gates on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Gate {
    /// No gated change is slower by the threshold, and none could be for all the spread says.
    Pass,
    /// A gated change is significantly slower by at least the threshold.
    Regressed,
    /// None is significantly slower, but the spread of one hides whether it is.
    Inconclusive,
}

/// Two runs compared.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Comparison {
    /// Run A's files.
    pub a_files: Vec<PathBuf>,
    /// Run B's files.
    pub b_files: Vec<PathBuf>,
    /// The threshold, percent.
    pub threshold_pct: f64,
    /// Each category's total (categories whose groups add up: not NVTX), where a run has any.
    pub totals: Vec<Change>,
    /// Every group's change, by impact (the absolute change of the total per rank, largest
    /// first).
    pub changes: Vec<Change>,
    /// The verdict over the totals and the material groups.
    pub gate: Gate,
}

/// Compares run `b` with run `a` at `threshold_pct` percent.
pub fn compare(a: &RunSummary, b: &RunSummary, threshold_pct: f64) -> Comparison {
    let a_rows: HashMap<&GroupKey, &[Option<GroupRow>]> =
        a.groups.iter().map(|(k, r)| (k, r.as_slice())).collect();
    let b_rows: HashMap<&GroupKey, &[Option<GroupRow>]> =
        b.groups.iter().map(|(k, r)| (k, r.as_slice())).collect();
    let a_category = category_rows(a);
    let b_category = category_rows(b);
    // The largest group (NVTX) or the total (the others) of each category, per run.
    let scale = |rows: &HashMap<Category, Vec<Option<GroupRow>>>, run: &RunSummary, c: Category| {
        if c.has_total() {
            rows.get(&c).map_or(0.0, |r| Side::of(r).total)
        } else {
            run.groups
                .iter()
                .filter(|((cat, _), _)| *cat == c)
                .map(|(_, r)| Side::of(r).total)
                .fold(0.0, f64::max)
        }
    };
    let mut keys: Vec<&GroupKey> = a.groups.iter().map(|(k, _)| k).collect();
    keys.extend(
        b.groups
            .iter()
            .map(|(k, _)| k)
            .filter(|k| !a_rows.contains_key(k)),
    );
    let mut changes: Vec<Change> = keys
        .into_iter()
        .map(|key| {
            let (ra, rb) = (a_rows.get(key).copied(), b_rows.get(key).copied());
            let (sa, sb) = (ra.map(Side::of), rb.map(Side::of));
            let scale_a = scale(&a_category, a, key.0);
            let scale_b = scale(&b_category, b, key.0);
            let share = sa
                .map_or(0.0, |s| ratio(s.total, scale_a))
                .max(sb.map_or(0.0, |s| ratio(s.total, scale_b)));
            let noise = noise(ra, rb, a.files.len(), b.files.len());
            change(key.0, key.1.clone(), (sa, sb), noise, share, threshold_pct)
        })
        .collect();
    changes.sort_by(|x, y| {
        y.delta
            .abs()
            .total_cmp(&x.delta.abs())
            .then_with(|| x.category.cmp(&y.category))
            .then_with(|| x.name.cmp(&y.name))
    });
    let totals: Vec<Change> = Category::ALL
        .into_iter()
        .filter(|c| c.has_total())
        .filter_map(|c| {
            let side = |rows: &HashMap<Category, Vec<Option<GroupRow>>>| {
                rows.get(&c).map(|r| Side {
                    median: None,
                    ..Side::of(r)
                })
            };
            let (sa, sb) = (side(&a_category), side(&b_category));
            let (ra, rb) = (a_category.get(&c), b_category.get(&c));
            let (ra, rb) = (ra.map(Vec::as_slice), rb.map(Vec::as_slice));
            let noise = noise(ra, rb, a.files.len(), b.files.len());
            (sa.is_some() || sb.is_some())
                .then(|| change(c, String::new(), (sa, sb), noise, 1.0, threshold_pct))
        })
        .collect();
    let gate = gate(totals.iter().chain(&changes), threshold_pct);
    Comparison {
        a_files: a.files.clone(),
        b_files: b.files.clone(),
        threshold_pct,
        totals,
        changes,
        gate,
    }
}

/// `x / of`, 0 when `of` is 0.
fn ratio(x: f64, of: f64) -> f64 {
    if of > 0.0 { x / of } else { 0.0 }
}

/// Per category with a total, one row per file: the sum of its groups' totals and instances,
/// with the spread of a sum of independent groups (`sqrt(sum(count * stddev^2))`).
fn category_rows(run: &RunSummary) -> HashMap<Category, Vec<Option<GroupRow>>> {
    let mut out: HashMap<Category, Vec<Option<GroupRow>>> = HashMap::new();
    // Per file: total, count, sum of count * stddev^2.
    type Sums = Vec<Option<(f64, f64, f64)>>;
    let mut sums: HashMap<Category, Sums> = HashMap::new();
    for ((category, _), rows) in &run.groups {
        if !category.has_total() {
            continue;
        }
        let per_file = sums
            .entry(*category)
            .or_insert_with(|| vec![None; run.files.len()]);
        for (slot, row) in per_file.iter_mut().zip(rows) {
            if let Some(r) = row {
                let (t, c, v) = slot.unwrap_or((0.0, 0.0, 0.0));
                *slot = Some((t + r.total, c + r.count, v + r.count * r.stddev * r.stddev));
            }
        }
    }
    for (category, per_file) in sums {
        let rows = per_file
            .into_iter()
            .map(|s| {
                s.map(|(total, count, var)| GroupRow {
                    total,
                    count,
                    median: 0.0,
                    stddev: if count > 0.0 {
                        (var / count).sqrt()
                    } else {
                        0.0
                    },
                })
            })
            .collect();
        out.insert(category, rows);
    }
    out
}

/// Twice the standard error of the change of a group's total per rank (`rows` per file of each
/// run; `None`: not in that run). Runs of the same number of files (two or more) are paired
/// rank by rank, files in name order: rank `k` of one run does rank `k`'s share of the other's
/// work, so the imbalance between ranks, the same in both, is not noise; otherwise the runs'
/// standard errors combine.
fn noise(
    a: Option<&[Option<GroupRow>]>,
    b: Option<&[Option<GroupRow>]>,
    a_files: usize,
    b_files: usize,
) -> f64 {
    let total = |rows: Option<&[Option<GroupRow>]>, k: usize| {
        rows.and_then(|r| r.get(k).copied().flatten())
            .map_or(0.0, |r| r.total)
    };
    if a_files == b_files && a_files >= 2 {
        let d: Vec<f64> = (0..a_files).map(|k| total(b, k) - total(a, k)).collect();
        let mean = d.iter().sum::<f64>() / d.len() as f64;
        return 2.0 * sample_sd(&d, mean) / (d.len() as f64).sqrt();
    }
    let se = |rows: Option<&[Option<GroupRow>]>| rows.map_or(0.0, |r| Side::of(r).std_error);
    2.0 * (se(a).powi(2) + se(b).powi(2)).sqrt()
}

/// The change from `a` to `b` (the two sides), with its noise band (ns), and its verdict.
fn change(
    category: Category,
    name: String,
    (a, b): (Option<Side>, Option<Side>),
    noise: f64,
    share: f64,
    threshold_pct: f64,
) -> Change {
    let (ta, tb) = (a.map_or(0.0, |s| s.total), b.map_or(0.0, |s| s.total));
    let delta = tb - ta;
    let pct = |new: f64, old: f64| (old > 0.0).then(|| (new - old) / old * 100.0);
    let delta_pct = pct(tb, ta);
    let median_pct = match (a.and_then(|s| s.median), b.and_then(|s| s.median)) {
        (Some(ma), Some(mb)) => pct(mb, ma),
        _ => None,
    };
    let noise_pct = (ta > 0.0).then(|| noise / ta * 100.0);
    let verdict = match (a, b, delta_pct, noise_pct) {
        (None, Some(_), ..) => Verdict::New,
        (Some(_), None, ..) => Verdict::Gone,
        (_, _, Some(p), Some(n)) => verdict(p, n, threshold_pct),
        _ => Verdict::Unchanged,
    };
    Change {
        category,
        name,
        a,
        b,
        delta,
        delta_pct,
        median_pct,
        noise_pct,
        share,
        verdict,
    }
}

/// The verdict on a change of `pct` percent with a noise band of `noise_pct` percent.
fn verdict(pct: f64, noise_pct: f64, threshold_pct: f64) -> Verdict {
    if pct.abs() > noise_pct {
        if pct >= threshold_pct {
            Verdict::Slower
        } else if pct <= -threshold_pct {
            Verdict::Faster
        } else {
            Verdict::Unchanged
        }
    } else if noise_pct >= threshold_pct {
        Verdict::Inconclusive
    } else {
        Verdict::Unchanged
    }
}

/// The gate over the gated changes: regressed when one is slower; inconclusive when one's
/// noise band reaches the threshold on the slow side.
fn gate<'c>(changes: impl Iterator<Item = &'c Change>, threshold_pct: f64) -> Gate {
    let mut gate = Gate::Pass;
    for c in changes.filter(|c| c.gated()) {
        match c.verdict {
            Verdict::Slower => return Gate::Regressed,
            Verdict::Inconclusive
                if c.delta_pct.unwrap_or(0.0) + c.noise_pct.unwrap_or(0.0) >= threshold_pct =>
            {
                gate = Gate::Inconclusive;
            }
            _ => {}
        }
    }
    gate
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(total: f64, count: f64, median: f64, stddev: f64) -> Option<GroupRow> {
        Some(GroupRow {
            total,
            count,
            median,
            stddev,
        })
    }

    fn run(groups: Vec<(Category, &str, Vec<Option<GroupRow>>)>) -> RunSummary {
        let files = groups.first().map_or(0, |g| g.2.len());
        RunSummary {
            files: (0..files)
                .map(|i| PathBuf::from(format!("r{i}.sqlite")))
                .collect(),
            groups: groups
                .into_iter()
                .map(|(c, n, r)| ((c, n.to_owned()), r))
                .collect(),
            warnings: Vec::new(),
        }
    }

    #[test]
    fn a_steady_kernel_twenty_percent_slower_on_every_rank_regresses() {
        let a = run(vec![
            (
                Category::Kernel,
                "gemm",
                vec![row(1000.0, 10.0, 100.0, 1.0), row(1010.0, 10.0, 101.0, 1.0)],
            ),
            (
                Category::Kernel,
                "copy",
                vec![row(500.0, 5.0, 100.0, 1.0), row(500.0, 5.0, 100.0, 1.0)],
            ),
        ]);
        let b = run(vec![
            (
                Category::Kernel,
                "gemm",
                vec![row(1200.0, 10.0, 120.0, 1.0), row(1212.0, 10.0, 121.0, 1.0)],
            ),
            (
                Category::Kernel,
                "copy",
                vec![row(500.0, 5.0, 100.0, 1.0), row(501.0, 5.0, 100.0, 1.0)],
            ),
        ]);
        let c = compare(&a, &b, 10.0);
        assert_eq!(c.changes[0].name, "gemm");
        assert_eq!(c.changes[0].verdict, Verdict::Slower);
        assert!((c.changes[0].delta - 201.0).abs() < 1e-9);
        assert!((c.changes[0].delta_pct.unwrap_or(0.0) - 20.0).abs() < 1e-9);
        assert_eq!(c.changes[1].verdict, Verdict::Unchanged);
        assert_eq!(c.gate, Gate::Regressed);
        // The other way round the kernel is faster, and nothing regresses.
        let back = compare(&b, &a, 10.0);
        assert_eq!(back.changes[0].verdict, Verdict::Faster);
        assert_eq!(back.gate, Gate::Pass);
    }

    #[test]
    fn a_change_the_rank_to_rank_spread_hides_is_inconclusive() {
        let a = run(vec![(
            Category::Kernel,
            "k",
            vec![
                row(1000.0, 1.0, 1000.0, 0.0),
                row(2000.0, 1.0, 2000.0, 0.0),
                row(600.0, 1.0, 600.0, 0.0),
            ],
        )]);
        let b = run(vec![(
            Category::Kernel,
            "k",
            vec![
                row(1900.0, 1.0, 1900.0, 0.0),
                row(900.0, 1.0, 900.0, 0.0),
                row(1500.0, 1.0, 1500.0, 0.0),
            ],
        )]);
        let c = compare(&a, &b, 10.0);
        assert_eq!(c.changes[0].verdict, Verdict::Inconclusive);
        assert_eq!(c.gate, Gate::Inconclusive);
    }

    #[test]
    fn one_file_runs_take_the_spread_of_the_instances() {
        // 100 instances of sd 50 ns: a total's noise of 500 ns, 5 % of 10 us; 2 x 5 % x sqrt(2).
        let a = run(vec![(
            Category::Kernel,
            "k",
            vec![row(10_000.0, 100.0, 100.0, 50.0)],
        )]);
        let b = run(vec![(
            Category::Kernel,
            "k",
            vec![row(11_000.0, 100.0, 110.0, 50.0)],
        )]);
        let c = compare(&a, &b, 5.0);
        let noise = c.changes[0].noise_pct.unwrap_or(0.0);
        assert!((noise - 2.0 * 50.0 * 10.0 * 2f64.sqrt() / 10_000.0 * 100.0).abs() < 1e-9);
        assert_eq!(c.changes[0].verdict, Verdict::Inconclusive);
        let quiet_a = run(vec![(
            Category::Kernel,
            "k",
            vec![row(10_000.0, 100.0, 100.0, 1.0)],
        )]);
        let quiet_b = run(vec![(
            Category::Kernel,
            "k",
            vec![row(11_000.0, 100.0, 110.0, 1.0)],
        )]);
        assert_eq!(
            compare(&quiet_a, &quiet_b, 5.0).changes[0].verdict,
            Verdict::Slower
        );
        assert_eq!(
            compare(&quiet_a, &quiet_b, 5.0).changes[0].median_pct,
            Some(10.0)
        );
    }

    #[test]
    fn new_and_gone_groups_and_small_groups_do_not_gate_but_the_total_does() {
        let a = run(vec![
            (
                Category::Kernel,
                "big",
                vec![row(10_000.0, 10.0, 1000.0, 0.0)],
            ),
            (Category::Kernel, "old", vec![row(50.0, 1.0, 50.0, 0.0)]),
            (Category::Kernel, "tiny", vec![row(20.0, 1.0, 20.0, 0.0)]),
        ]);
        let b = run(vec![
            (
                Category::Kernel,
                "big",
                vec![row(10_000.0, 10.0, 1000.0, 0.0)],
            ),
            (Category::Kernel, "tiny", vec![row(40.0, 1.0, 40.0, 0.0)]),
            (
                Category::Kernel,
                "fused",
                vec![row(5_000.0, 1.0, 5000.0, 0.0)],
            ),
        ]);
        let c = compare(&a, &b, 10.0);
        let find = |n: &str| c.changes.iter().find(|x| x.name == n).map(|x| x.verdict);
        assert_eq!(find("fused"), Some(Verdict::New));
        assert_eq!(find("old"), Some(Verdict::Gone));
        assert_eq!(find("tiny"), Some(Verdict::Slower));
        assert_eq!(c.totals.len(), 1);
        assert_eq!(c.totals[0].verdict, Verdict::Slower);
        assert_eq!(c.gate, Gate::Regressed);
        // Without the new kernel, the tiny one's regression does not fail the run.
        let mut b2 = b.clone();
        b2.groups.retain(|((_, n), _)| n != "fused");
        assert_eq!(compare(&a, &b2, 10.0).gate, Gate::Pass);
    }

    #[test]
    fn nvtx_ranges_have_no_category_total() {
        let a = run(vec![(
            Category::Nvtx,
            "step",
            vec![row(1000.0, 1.0, 1000.0, 0.0)],
        )]);
        let c = compare(&a, &a, 5.0);
        assert!(c.totals.is_empty());
        assert_eq!(c.changes[0].verdict, Verdict::Unchanged);
        assert_eq!(c.changes[0].share, 1.0);
        assert_eq!(c.gate, Gate::Pass);
    }
}
