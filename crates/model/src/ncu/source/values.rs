//! Per-PC values of a kernel result's metrics: one implementation for the Source page's
//! columns ([`super::metrics`]) and the Details page's source metric tables
//! ([`super::hotspots`]).
//!
//! A metric is kept per PC when it has instances whose correlation ids are the absolute PCs
//! (of several instances at one PC the last counts). A metric the result does not store is
//! evaluated from the derived-metric definitions of the result's embedded sections
//! (`MetricDefinitions`, e.g. SourceCounters' `derived__avg_thread_executed =
//! thread_inst_executed / inst_executed`) by the rules of the Nsight Compute version that
//! wrote the report ([`crate::section::derived`]): with instanced operands the result has one
//! element per PC. A `group:NAME` metric is the per-PC sum of its members.

use std::collections::HashMap;

use crate::ncu::{Action, Metric};
use crate::proto::nv::profiler::ProfilerSection;
use crate::section::derived::{self, Semantics};

/// One metric's values by PC, sorted by PC.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PcValues {
    by_pc: Vec<(u64, f64)>,
}

impl PcValues {
    /// The per-PC values of `metric`: `None` without instances, or when an instance has no
    /// integer correlation id or no numeric value (the metric is not kept per PC).
    pub fn of_metric(metric: &Metric) -> Option<PcValues> {
        if metric.instances.is_empty() {
            return None;
        }
        let mut by_pc = Vec::with_capacity(metric.instances.len());
        for instance in &metric.instances {
            let pc = instance.correlation_id.as_ref()?.as_u64()?;
            by_pc.push((pc, instance.value.as_f64()?));
        }
        // Stable, so that of several instances at one PC the last one counts.
        by_pc.sort_by_key(|e| e.0);
        by_pc.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                kept.1 = later.1;
            }
            same
        });
        Some(PcValues { by_pc })
    }

    /// The per-PC sum of `parts` over every PC any of them has, added in the order of `parts`
    /// (as [`Iterator::sum`] adds them).
    pub fn sum<'a>(parts: impl IntoIterator<Item = &'a PcValues>) -> PcValues {
        let mut all: Vec<(u64, usize, f64)> = Vec::new();
        for (index, part) in parts.into_iter().enumerate() {
            all.extend(part.by_pc.iter().map(|&(pc, v)| (pc, index, v)));
        }
        all.sort_by_key(|e| (e.0, e.1));
        let mut by_pc: Vec<(u64, f64)> = Vec::new();
        for (pc, _, v) in all {
            match by_pc.last_mut() {
                Some(last) if last.0 == pc => last.1 += v,
                _ => by_pc.push((pc, empty_sum() + v)),
            }
        }
        PcValues { by_pc }
    }

    /// The value at `pc`.
    pub fn get(&self, pc: u64) -> Option<f64> {
        self.by_pc
            .binary_search_by_key(&pc, |e| e.0)
            .ok()
            .map(|i| self.by_pc[i].1)
    }

    /// The PCs with a value, ascending.
    pub fn pcs(&self) -> impl Iterator<Item = u64> + '_ {
        self.by_pc.iter().map(|e| e.0)
    }

    /// `(pc, value)` pairs, by PC.
    pub fn iter(&self) -> impl Iterator<Item = (u64, f64)> + '_ {
        self.by_pc.iter().copied()
    }

    /// How many PCs have a value.
    pub fn len(&self) -> usize {
        self.by_pc.len()
    }

    /// Whether no PC has a value.
    pub fn is_empty(&self) -> bool {
        self.by_pc.is_empty()
    }
}

/// The value [`Iterator::sum`] starts from (a sum of nothing), so that sums built one value
/// at a time equal those of `sum()`.
pub(super) fn empty_sum() -> f64 {
    std::iter::empty::<f64>().sum()
}

/// An action's metrics as the Source page reads them: stored metrics, else derived metrics
/// evaluated from the embedded sections' definitions (see the module documentation).
#[derive(Debug, Clone, Default)]
pub struct PcMetrics {
    derived: HashMap<String, Metric>,
}

impl PcMetrics {
    /// The metrics of `action` with the derived definitions of its embedded sections.
    pub fn of(action: &Action) -> PcMetrics {
        PcMetrics::new(action, &action.sections().unwrap_or_default())
    }

    /// The metrics of `action` with the derived definitions of `sections` (definitions of
    /// metrics the result stores are not evaluated: the stored values win).
    pub fn new(action: &Action, sections: &[ProfilerSection]) -> PcMetrics {
        let definitions: Vec<(String, derived::Expression)> =
            derived::section_definitions(sections)
                .into_iter()
                .filter(|(name, _)| action.metric(name).is_none())
                .filter_map(|(name, expression)| Some((name, expression.ok()?)))
                .collect();
        if definitions.is_empty() {
            return PcMetrics::default();
        }
        let semantics = Semantics::for_action(action);
        let derived =
            derived::derive_all_with(&definitions, |name| action.metric(name).cloned(), semantics)
                .into_iter()
                .filter_map(|(name, result)| Some((name, result.ok()?)))
                .collect();
        PcMetrics { derived }
    }

    /// The metric `name`: stored in `action`, else derived.
    pub fn metric<'a>(&'a self, action: &'a Action, name: &str) -> Option<&'a Metric> {
        action.metric(name).or_else(|| self.derived.get(name))
    }

    /// The per-PC values of `name` (a `group:NAME` metric: the sum of its members, see
    /// `super::metrics::group_members`); `None` when the result holds none per PC.
    pub fn values(&self, action: &Action, name: &str) -> Option<PcValues> {
        if let Some(group) = name.strip_prefix("group:") {
            let members = super::metrics::group_members(action, group);
            let parts: Vec<PcValues> = members
                .iter()
                .filter_map(|m| self.values(action, m))
                .collect();
            return (!members.is_empty()).then(|| PcValues::sum(&parts));
        }
        PcValues::of_metric(self.metric(action, name)?)
    }
}
