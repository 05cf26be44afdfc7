//! What-if: retention times (per gain-cell type) and the clock as sliders, and the refresh
//! projection recomputed from the lifetimes in memory whenever one moves. The projection is
//! cached per cell type by its inputs, so a frame that changes nothing computes nothing and a
//! moved retention slider recomputes only its own cell type; a change costs the model's
//! [`LevelLifetimes::refreshes`](sightline_model::gainsight::LevelLifetimes::refreshes) and
//! `covered_share` per level (milliseconds on 10 M lifetimes).

use std::time::{Duration, Instant};

use eframe::egui;

use sightline_model::core::join_two;
use sightline_model::gainsight::{Level, LifetimeStore, LogHistogram, Params, Selection};

/// Histogram bins per power of ten.
pub const BINS_PER_DECADE: u32 = 10;
/// Slider range of retention times, µs (10 ns .. 10 s).
pub const RETENTION_RANGE_US: std::ops::RangeInclusive<f64> = 0.01..=1.0e7;
/// Slider range of the clock, MHz.
pub const CLOCK_RANGE_MHZ: std::ops::RangeInclusive<f64> = 100.0..=5000.0;

/// Lifetimes from which both levels are projected on two threads.
const PARALLEL_FROM: u64 = 1_000_000;

/// The refresh projection of one selection at one setting of the sliders.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Projection {
    /// Refreshes per level (L1, L2) and cell type (the parameters' order).
    pub refreshes: [Vec<u64>; 2],
    /// Share of lifetimes each retention covers (needs no refresh), per level and cell type.
    pub covered: [Vec<f64>; 2],
    /// Lifetimes per level.
    pub lifetimes: [u64; 2],
}

/// The sliders' state and the cached projections.
#[derive(Debug, Default)]
pub struct WhatIf {
    /// Retention time per cell type, µs (the parameters' order).
    pub retention_us: Vec<f64>,
    /// Clock, MHz.
    pub clock_mhz: f64,
    projection: Projection,
    /// What each cell type's figures in `projection` were computed for.
    cell_keys: Vec<Option<CellKey>>,
    histograms: Option<(Selection, u64, [LogHistogram; 2])>,
    /// How long the last recomputation took (refreshes and shares of both levels).
    pub last_compute: Option<Duration>,
    /// How many times the projection was recomputed (tests check that a slider move does it).
    pub computations: u64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct CellKey {
    selection: Selection,
    retention_bits: u64,
    clock_bits: u64,
}

impl WhatIf {
    /// Sliders at the parameters' values.
    pub fn from_params(params: &Params) -> WhatIf {
        WhatIf {
            retention_us: params.retention.iter().map(|c| c.retention_us).collect(),
            clock_mhz: params.clock_mhz,
            ..WhatIf::default()
        }
    }

    /// Whether the sliders differ from `params`.
    pub fn differs_from(&self, params: &Params) -> bool {
        self.clock_mhz != params.clock_mhz
            || self.retention_us.len() != params.retention.len()
            || self
                .retention_us
                .iter()
                .zip(&params.retention)
                .any(|(a, c)| *a != c.retention_us)
    }

    /// The projection for `selection` at the sliders' values; only the cell types whose
    /// retention, the clock or the selection changed are recomputed.
    pub fn projection(&mut self, store: &LifetimeStore, selection: Selection) -> &Projection {
        let cells = self.retention_us.len();
        if self.cell_keys.len() != cells {
            self.cell_keys = vec![None; cells];
            self.projection = Projection {
                refreshes: [vec![0; cells], vec![0; cells]],
                covered: [vec![0.0; cells], vec![0.0; cells]],
                lifetimes: [0, 0],
            };
        }
        let started = Instant::now();
        let clock_mhz = self.clock_mhz;
        let stale: Vec<(usize, f64, CellKey)> = self
            .retention_us
            .iter()
            .enumerate()
            .map(|(index, &retention_us)| {
                let key = CellKey {
                    selection,
                    retention_bits: retention_us.to_bits(),
                    clock_bits: clock_mhz.to_bits(),
                };
                (index, retention_us, key)
            })
            .filter(|(index, _, key)| self.cell_keys[*index] != Some(*key))
            .collect();
        let recomputed = !stale.is_empty();
        // Each level's stale cells: (refreshes, share) in `stale`'s order.
        let level_figures = |level: Level| -> Vec<(u64, f64)> {
            let lifetimes = store.level(level);
            stale
                .iter()
                .map(|&(_, r, _)| {
                    (
                        lifetimes.refreshes(selection, r, clock_mhz),
                        lifetimes.covered_share(selection, r, clock_mhz),
                    )
                })
                .collect()
        };
        let large = store.level(Level::L1).count(selection)
            + store.level(Level::L2).count(selection)
            >= PARALLEL_FROM;
        let figures: [Vec<(u64, f64)>; 2] = if recomputed && large {
            // Big stores: both levels at once, on two threads.
            let (l1, l2) = join_two(
                "sightline-whatif",
                || level_figures(Level::L1),
                || level_figures(Level::L2),
            );
            [l1, l2]
        } else if recomputed {
            [level_figures(Level::L1), level_figures(Level::L2)]
        } else {
            [Vec::new(), Vec::new()]
        };
        for (level, figures) in figures.iter().enumerate() {
            for (&(index, _, _), &(refreshes, covered)) in stale.iter().zip(figures) {
                self.projection.refreshes[level][index] = refreshes;
                self.projection.covered[level][index] = covered;
            }
        }
        for &(index, _, key) in &stale {
            self.cell_keys[index] = Some(key);
        }
        if recomputed {
            self.projection.lifetimes = Level::ALL.map(|level| store.level(level).count(selection));
            self.last_compute = Some(started.elapsed());
            self.computations += 1;
        }
        &self.projection
    }

    /// The log-axis histograms (L1, L2) for `selection` at the slider's clock.
    pub fn histograms(
        &mut self,
        store: &LifetimeStore,
        selection: Selection,
    ) -> &[LogHistogram; 2] {
        let clock_bits = self.clock_mhz.to_bits();
        let stale = self
            .histograms
            .as_ref()
            .is_none_or(|(s, c, _)| *s != selection || *c != clock_bits);
        if stale {
            let histograms = Level::ALL.map(|level| {
                store
                    .level(level)
                    .histogram(selection, self.clock_mhz, BINS_PER_DECADE)
            });
            self.histograms = Some((selection, clock_bits, histograms));
        }
        match &self.histograms {
            Some((_, _, h)) => h,
            None => unreachable_histograms(),
        }
    }

    /// Draws the sliders; returns whether one moved.
    pub fn sliders_ui(&mut self, ui: &mut egui::Ui, params: &Params) -> bool {
        let mut changed = false;
        if self.retention_us.len() != params.retention.len() {
            *self = WhatIf::from_params(params);
        }
        ui.spacing_mut().slider_width = (ui.available_width() - 230.0).clamp(120.0, 360.0);
        for (cell, value) in params.retention.iter().zip(&mut self.retention_us) {
            changed |= ui
                .add(
                    egui::Slider::new(value, RETENTION_RANGE_US)
                        .logarithmic(true)
                        .suffix(" µs")
                        .max_decimals(3)
                        .text(format!("{} retention", cell.name)),
                )
                .on_hover_text(format!(
                    "Retention time of {} cells (parameters: {} µs)",
                    cell.name, cell.retention_us
                ))
                .changed();
        }
        changed |= ui
            .add(
                egui::Slider::new(&mut self.clock_mhz, CLOCK_RANGE_MHZ)
                    .suffix(" MHz")
                    .max_decimals(1)
                    .text("Clock"),
            )
            .on_hover_text(format!(
                "Core clock: one cycle = 1000 / clock ns (parameters: {} MHz)",
                params.clock_mhz
            ))
            .changed();
        ui.horizontal(|ui| {
            if ui
                .add_enabled(
                    self.differs_from(params),
                    egui::Button::new("Reset sliders"),
                )
                .on_hover_text("Back to the parameters' retention times and clock")
                .clicked()
            {
                *self = WhatIf::from_params(params);
                changed = true;
            }
            if let Some(t) = self.last_compute {
                ui.weak(format!("recomputed in {:.2} ms", t.as_secs_f64() * 1e3));
            }
        });
        changed
    }
}

/// The projection of `selection` at `retention_us` (per cell type) and `clock_mhz`.
pub fn project(
    store: &LifetimeStore,
    selection: Selection,
    retention_us: &[f64],
    clock_mhz: f64,
) -> Projection {
    let per_level = |level: Level| {
        let lifetimes = store.level(level);
        let refreshes = retention_us
            .iter()
            .map(|&r| lifetimes.refreshes(selection, r, clock_mhz))
            .collect();
        let covered = retention_us
            .iter()
            .map(|&r| lifetimes.covered_share(selection, r, clock_mhz))
            .collect();
        (refreshes, covered, lifetimes.count(selection))
    };
    let (r1, c1, n1) = per_level(Level::L1);
    let (r2, c2, n2) = per_level(Level::L2);
    Projection {
        refreshes: [r1, r2],
        covered: [c1, c2],
        lifetimes: [n1, n2],
    }
}

// The cache is filled just above its read; this keeps the accessor free of panics.
fn unreachable_histograms() -> &'static [LogHistogram; 2] {
    static EMPTY: [LogHistogram; 2] = [
        LogHistogram {
            edges_us: Vec::new(),
            counts: Vec::new(),
            zero: 0,
        },
        LogHistogram {
            edges_us: Vec::new(),
            counts: Vec::new(),
            zero: 0,
        },
    ];
    &EMPTY
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_projection_equals_a_full_recomputation() {
        let store = LifetimeStore::from_cycles(&[
            (1, vec![0, 5, 2235, 4470, 22350, 90000], vec![100, 200_000]),
            (2, vec![3000, 3000, 7], vec![]),
        ]);
        let params = Params::default();
        let mut w = WhatIf::from_params(&params);
        let moves: [(usize, f64, f64); 5] = [
            (0, 1.0, 2235.0),
            (0, 0.5, 2235.0),
            (2, 3.0, 2235.0),
            (2, 3.0, 1000.0),
            (1, 0.01, 1000.0),
        ];
        for selection in [Selection::All, Selection::Kernel(0), Selection::Kernel(1)] {
            for &(cell, retention, clock) in &moves {
                w.retention_us[cell] = retention;
                w.clock_mhz = clock;
                let cached = w.projection(&store, selection).clone();
                assert_eq!(cached, project(&store, selection, &w.retention_us, clock));
            }
        }
        // Nothing changed: nothing recomputed.
        let n = w.computations;
        w.projection(&store, Selection::Kernel(1));
        assert_eq!(w.computations, n);
    }
}
