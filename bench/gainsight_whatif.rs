//! `cargo bench --bench gainsight_whatif`: the what-if recomputation of Gainsight's panel on
//! 10 M lifetimes — refreshes for four retention times on both levels, the share each retention
//! covers and the log-axis histograms, after a change of retention or clock. Target ≤ 16 ms. On a busy
//! machine the median includes waiting for a core; the best of the 15 is the computation's cost.
//!
//! Lifetimes are drawn from a log-uniform distribution (1 cycle to 2 M cycles, ~1 µs median),
//! 5 M per level over 200 kernels; a second case makes every lifetime distinct (worst case for
//! the compact form). Median of 15 recomputations with varying retention and clock.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Test code: a failed unwrap is a failed test.

use std::time::Instant;

use sightline::gainsight::{Level, LifetimeStore, Selection};

fn lifetimes(n: usize, seed: u64, distinct: bool) -> Vec<u64> {
    let mut state = seed | 1;
    (0..n)
        .map(|i| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            if distinct {
                i as u64 * 3 + (state % 3)
            } else {
                let u = (state >> 11) as f64 / (1u64 << 53) as f64;
                (2_000_000f64.powf(u)) as u64
            }
        })
        .collect()
}

fn store(total: usize, distinct: bool) -> LifetimeStore {
    let kernels = 200;
    let per = total / 2 / kernels;
    let data: Vec<(u64, Vec<u64>, Vec<u64>)> = (0..kernels)
        .map(|k| {
            let k64 = k as u64;
            let mut l1 = lifetimes(per, k64 * 2 + 1, distinct);
            let mut l2 = lifetimes(per, k64 * 2 + 2, distinct);
            if distinct {
                let offset = k64 * per as u64 * 3;
                l1.iter_mut().for_each(|v| *v += offset);
                l2.iter_mut().for_each(|v| *v += offset + 1);
            }
            (k64, l1, l2)
        })
        .collect();
    LifetimeStore::from_cycles(&data)
}

/// One what-if step: everything the panel redraws after a slider move.
fn recompute(store: &LifetimeStore, retentions: &[f64; 4], clock_mhz: f64) -> u64 {
    let mut checksum = 0;
    for level in Level::ALL {
        let l = store.level(level);
        for &r in retentions {
            checksum += l.refreshes(Selection::All, r, clock_mhz);
            checksum += (l.covered_share(Selection::All, r, clock_mhz) * 1e6) as u64;
        }
        checksum += l.histogram(Selection::All, clock_mhz, 10).counts.len() as u64;
    }
    checksum
}

fn run(label: &str, total: usize, distinct: bool) {
    let built = Instant::now();
    let store = store(total, distinct);
    let build_ms = built.elapsed().as_secs_f64() * 1e3;
    let count: u64 = Level::ALL
        .iter()
        .map(|&l| store.level(l).count(Selection::All))
        .sum();
    let distinct_values: usize = Level::ALL.iter().map(|&l| store.level(l).distinct()).sum();
    let mut times = Vec::new();
    let mut checksum = 0;
    for step in 0..15 {
        let f = 1.0 + step as f64 * 0.37;
        let retentions = [1.0 * f, 100.0 * f, 10.0 * f, 1_000_000.0];
        let clock = 2235.0 / f;
        let t = Instant::now();
        checksum += recompute(&store, &retentions, clock);
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "{label}: {count} lifetimes ({distinct_values} stored values), built in {build_ms:.0} ms; \
         what-if recompute median {:.2} ms, best {:.2} ms, max {:.2} ms (target <= 16 ms) [checksum {checksum}]",
        times[times.len() / 2],
        times[0],
        times[times.len() - 1]
    );
}

fn main() {
    run("log-uniform lifetimes", 10_000_000, false);
    run("all distinct (worst case)", 10_000_000, true);
}
