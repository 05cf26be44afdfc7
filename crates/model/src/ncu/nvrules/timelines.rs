//! `IAction.timelines()` / `ITimelines.aligned_metric()`: PM sampling metrics aligned to the
//! workload, as NVIDIA's reader aligns them.
//!
//! A result with PM sampling stores, besides the sampled metrics (instances whose correlation
//! ids are GPU timestamps):
//! - `profiler__pmsampler_pass_groups`: one string instance per pass group, the comma-separated
//!   names of the metrics sampled in that pass;
//! - `profiler__pmsampler_ctxsw_G`: the context switches seen while group `G` was sampled,
//!   one instance per switch (value 1.0: the profiled context switched in, 0.0: out; the
//!   correlation id is the switch's timestamp).
//!
//! The aligned metric keeps the samples taken while the context was in (none before the
//! first switch) and shifts their timestamps so that the first kept sample lands on the
//! group's first sample: samples of different passes then share one time axis starting at
//! the workload. Checked against NVIDIA's reader on every sampled metric of the corpus
//! (204 of 206 equal; the other two are `profiler__timestamp_workload_*_1` of a GH200
//! report, for which NVIDIA's reader answers differently for group 0 and group 1).

use std::collections::HashMap;

use crate::ncu::{Action, Instance, MetricValue};

/// The pass groups' metric names, one string instance per group.
const PASS_GROUPS: &str = "profiler__pmsampler_pass_groups";
/// The context switches of pass group `G`: this prefix followed by `G`.
const CONTEXT_SWITCH_PREFIX: &str = "profiler__pmsampler_ctxsw_";
/// Workload start and end timestamps (one instance each): aligned as they are.
const WORKLOAD_TIMESTAMP_PREFIX: &str = "profiler__timestamp_workload_";

/// A context switch while a pass group was sampled.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Switch {
    /// When (GPU timestamp, ns).
    at: u64,
    /// Whether the profiled context switched in (else out).
    switched_in: bool,
}

/// One result's sampling timelines: which pass group sampled which metric, and the context
/// switches of every group.
#[derive(Debug, Clone, Default)]
pub struct Timelines {
    group_of: HashMap<String, usize>,
    switches: HashMap<usize, Vec<Switch>>,
}

impl Timelines {
    /// The timelines of `action` (empty when it has no PM sampling).
    pub fn of(action: &Action) -> Timelines {
        let mut group_of = HashMap::new();
        if let Some(groups) = action.metric(PASS_GROUPS) {
            for (group, instance) in groups.instances.iter().enumerate() {
                if let MetricValue::String(names) = &instance.value {
                    for name in names.split(',').filter(|n| !n.is_empty()) {
                        group_of.entry(name.to_owned()).or_insert(group);
                    }
                }
            }
        }
        let mut switches = HashMap::new();
        for (name, metric) in action.metrics_by_name() {
            let Some(group) = name
                .strip_prefix(CONTEXT_SWITCH_PREFIX)
                .and_then(|g| g.parse::<usize>().ok())
            else {
                continue;
            };
            let mut list: Vec<Switch> = metric
                .instances
                .iter()
                .filter_map(|i| {
                    Some(Switch {
                        at: i.correlation_id.as_ref()?.as_u64()?,
                        switched_in: i.value.as_f64()? != 0.0,
                    })
                })
                .collect();
            list.sort_by_key(|s| s.at);
            switches.insert(group, list);
        }
        Timelines { group_of, switches }
    }

    /// Whether the result has PM sampling pass groups.
    pub fn is_empty(&self) -> bool {
        self.group_of.is_empty()
    }

    /// The instances of metric `name` aligned to the workload, or `None` when the metric cannot
    /// be aligned: it has no instances with correlation ids (timestamps), or it is neither a
    /// sampled metric of a pass group nor a workload timestamp. The result may be empty (no
    /// sample was taken while the context was in).
    pub fn align(&self, name: &str, instances: &[Instance]) -> Option<Vec<Instance>> {
        let stamped: Option<Vec<u64>> = instances
            .iter()
            .map(|i| i.correlation_id.as_ref().and_then(MetricValue::as_u64))
            .collect();
        let stamps = stamped.filter(|s| !s.is_empty())?;
        if name.starts_with(WORKLOAD_TIMESTAMP_PREFIX) && !self.group_of.contains_key(name) {
            return Some(instances.to_vec());
        }
        let group = *self.group_of.get(name)?;
        let Some(switches) = self.switches.get(&group) else {
            return Some(instances.to_vec());
        };
        let kept: Vec<usize> = (0..stamps.len())
            .filter(|&k| context_in(switches, stamps[k]))
            .collect();
        let Some(&first) = kept.first() else {
            return Some(Vec::new());
        };
        let origin = stamps[0];
        Some(
            kept.iter()
                .map(|&k| Instance {
                    correlation_id: Some(MetricValue::Uint64(
                        origin.saturating_add(stamps[k].saturating_sub(stamps[first])),
                    )),
                    value: instances[k].value.clone(),
                })
                .collect(),
        )
    }
}

/// Whether the profiled context was in at `at`: the last switch at or before it switched in
/// (out before the first switch).
fn context_in(switches: &[Switch], at: u64) -> bool {
    switches
        .iter()
        .take_while(|s| s.at <= at)
        .last()
        .is_some_and(|s| s.switched_in)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(stamps: &[u64]) -> Vec<Instance> {
        stamps
            .iter()
            .enumerate()
            .map(|(k, &t)| Instance {
                correlation_id: Some(MetricValue::Uint64(t)),
                value: MetricValue::Double(k as f64),
            })
            .collect()
    }

    fn timelines(switches: &[(u64, bool)]) -> Timelines {
        let mut t = Timelines::default();
        t.group_of.insert("m".into(), 0);
        t.switches.insert(
            0,
            switches
                .iter()
                .map(|&(at, switched_in)| Switch { at, switched_in })
                .collect(),
        );
        t
    }

    fn stamps_and_values(aligned: &[Instance]) -> Vec<(u64, f64)> {
        aligned
            .iter()
            .map(|i| {
                let at = i.correlation_id.as_ref().and_then(MetricValue::as_u64);
                (at.unwrap(), i.value.as_f64().unwrap())
            })
            .collect()
    }

    #[test]
    fn samples_while_the_context_is_in_are_kept_and_shifted_to_the_first_sample() {
        let t = timelines(&[(2_500, true), (7_000, false)]);
        let aligned = t
            .align("m", &samples(&[1_000, 2_000, 3_000, 4_000, 8_000]))
            .unwrap();
        assert_eq!(stamps_and_values(&aligned), [(1_000, 2.0), (2_000, 3.0)]);
    }

    #[test]
    fn nothing_is_kept_before_the_first_switch_in() {
        let t = timelines(&[(1_500, false), (3_500, true)]);
        let aligned = t
            .align("m", &samples(&[1_000, 2_000, 3_000, 4_000]))
            .unwrap();
        assert_eq!(stamps_and_values(&aligned), [(1_000, 3.0)]);
        let late = timelines(&[(9_000, true)]);
        assert_eq!(late.align("m", &samples(&[1_000, 2_000])), Some(Vec::new()));
    }

    #[test]
    fn metrics_outside_the_pass_groups_or_without_timestamps_do_not_align() {
        let t = timelines(&[(0, true)]);
        assert_eq!(t.align("other", &samples(&[1_000])), None);
        assert_eq!(t.align("m", &[]), None);
        let unstamped = [Instance {
            correlation_id: None,
            value: MetricValue::Double(1.0),
        }];
        assert_eq!(t.align("m", &unstamped), None);
        let workload = samples(&[5]);
        let name = "profiler__timestamp_workload_start_0";
        assert_eq!(t.align(name, &workload), Some(workload.clone()));
    }
}
