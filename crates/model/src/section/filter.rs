//! Metric options and filters: which metric name a section entry shows for one action.
//!
//! A filter (`MetricOptionFilter`) passes an action when its compute capability lies in
//! `MinArch..=MaxArch` (either bound optional), and in at least one of the `Items` ranges if any
//! are given, and when the action's collection scope is listed in `CollectionFilter.
//! CollectionScopes` (if any are listed). A section-level filter and a metric's own filter are
//! combined field by field, the metric's fields winning. A metric entry resolves to the first of
//! its `Options` whose filter passes, else to its base name if the base filter passes, else to
//! nothing (the entry does not apply to this action and is not shown).

use crate::ncu::WorkloadKind;
use crate::proto::nv::profiler::ProfilerSectionMetric;
use crate::proto::nv::profiler::messages::{CollectionFilter, MetricOptionFilter};

/// `CollectionScope` values of the schema.
pub const SCOPE_LAUNCH: i32 = 1;
/// Range replay.
pub const SCOPE_RANGE: i32 = 2;
/// Command lists.
pub const SCOPE_CMDLIST: i32 = 3;

/// What a filter is evaluated against: one action's architecture and collection scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target {
    /// Compute capability as `major * 10 + minor` (86 for 8.6); `None` when unknown, in which
    /// case architecture bounds do not exclude anything.
    pub compute_capability: Option<u32>,
    /// `CollectionScope` value of the action.
    pub scope: i32,
    /// The last `GpuArch` value the reader of the filters knows (`None`: all). A bound above
    /// it is a value the reader's schema lacks, which protobuf keeps as an unknown field: the
    /// bound is absent for that reader (NVIDIA's 2024.1 CLI knows up to `CC_90`).
    pub last_known_arch: Option<i32>,
}

impl Target {
    /// The target of an action of the given kind and compute capability.
    pub fn new(kind: WorkloadKind, compute_capability: Option<u32>) -> Self {
        let scope = match kind {
            WorkloadKind::Kernel | WorkloadKind::Graph => SCOPE_LAUNCH,
            WorkloadKind::Range => SCOPE_RANGE,
            WorkloadKind::Cmdlist => SCOPE_CMDLIST,
        };
        Target {
            compute_capability,
            scope,
            last_known_arch: None,
        }
    }

    /// This target for a reader whose `GpuArch` enum ends at `last` ([`Target::last_known_arch`]).
    pub fn with_last_known_arch(self, last: i32) -> Self {
        Target {
            last_known_arch: Some(last),
            ..self
        }
    }
}

/// Combines a section-level filter with a metric's own, the metric's fields winning.
pub fn combine(
    section: Option<&MetricOptionFilter>,
    metric: Option<&MetricOptionFilter>,
) -> Option<MetricOptionFilter> {
    match (section, metric) {
        (None, None) => None,
        (Some(f), None) | (None, Some(f)) => Some(f.clone()),
        (Some(s), Some(m)) => Some(MetricOptionFilter {
            min_arch: m.min_arch.or(s.min_arch),
            max_arch: m.max_arch.or(s.max_arch),
            items: if m.items.is_empty() {
                s.items.clone()
            } else {
                m.items.clone()
            },
            collection_filter: Some(combine_collection(
                s.collection_filter.as_ref(),
                m.collection_filter.as_ref(),
            )),
        }),
    }
}

fn combine_collection(
    section: Option<&CollectionFilter>,
    metric: Option<&CollectionFilter>,
) -> CollectionFilter {
    let empty = CollectionFilter::default();
    let (s, m) = (section.unwrap_or(&empty), metric.unwrap_or(&empty));
    CollectionFilter {
        collection_scopes: if m.collection_scopes.is_empty() {
            s.collection_scopes.clone()
        } else {
            m.collection_scopes.clone()
        },
        importance: m.importance.or(s.importance),
    }
}

/// Whether `filter` passes `target` (no filter passes everything).
pub fn passes(filter: Option<&MetricOptionFilter>, target: Target) -> bool {
    let Some(filter) = filter else { return true };
    if let Some(cc) = target.compute_capability.map(|cc| cc as i32) {
        let known = |bound: &i32| *bound > 0 && target.last_known_arch.is_none_or(|l| *bound <= l);
        let in_range = |min: Option<i32>, max: Option<i32>| {
            min.filter(known).is_none_or(|m| cc >= m) && max.filter(known).is_none_or(|m| cc <= m)
        };
        if !in_range(filter.min_arch, filter.max_arch) {
            return false;
        }
        if !filter.items.is_empty()
            && !filter
                .items
                .iter()
                .any(|i| in_range(i.min_arch, i.max_arch))
        {
            return false;
        }
    }
    filter.collection_filter.as_ref().is_none_or(|collection| {
        collection.collection_scopes.is_empty()
            || collection.collection_scopes.contains(&target.scope)
    })
}

/// The metric name `metric` shows for `target`, or `None` when it does not apply.
pub fn resolve_name<'a>(
    metric: &'a ProfilerSectionMetric,
    section_filter: Option<&MetricOptionFilter>,
    target: Target,
) -> Option<&'a str> {
    for option in &metric.options {
        let filter = combine(
            section_filter,
            option.filter.as_ref().or(metric.filter.as_ref()),
        );
        if option.filter.is_some() && passes(filter.as_ref(), target) {
            return Some(&option.name);
        }
    }
    let filter = combine(section_filter, metric.filter.as_ref());
    passes(filter.as_ref(), target).then_some(metric.name.as_str())
}

/// Whether a missing metric was marked `Required` (`CollectionImportance_Required`).
#[cfg(test)]
pub fn is_required(
    metric: &ProfilerSectionMetric,
    section_filter: Option<&MetricOptionFilter>,
) -> bool {
    combine(section_filter, metric.filter.as_ref())
        .and_then(|f| f.collection_filter)
        .and_then(|c| c.importance)
        == Some(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::nv::profiler::ProfilerSectionMetricOption;
    use crate::proto::nv::profiler::messages::MetricOptionFilterItem;

    fn arch(min: Option<i32>, max: Option<i32>) -> MetricOptionFilter {
        MetricOptionFilter {
            min_arch: min,
            max_arch: max,
            ..Default::default()
        }
    }

    fn target(cc: u32) -> Target {
        Target {
            compute_capability: Some(cc),
            scope: SCOPE_LAUNCH,
            last_known_arch: None,
        }
    }

    /// The seed's example: collected on 7.0 and on 7.5-8.6 under the same name.
    fn dram_frequency() -> ProfilerSectionMetric {
        ProfilerSectionMetric {
            name: "dram__cycles_elapsed.avg.per_second".into(),
            filter: Some(arch(None, Some(70))),
            options: vec![ProfilerSectionMetricOption {
                name: "dram__cycles_elapsed.avg.per_second".into(),
                label: None,
                filter: Some(arch(Some(75), Some(86))),
            }],
            ..Default::default()
        }
    }

    #[test]
    fn options_replace_the_base_metric_by_architecture() {
        let m = dram_frequency();
        assert_eq!(
            resolve_name(&m, None, target(70)),
            Some("dram__cycles_elapsed.avg.per_second")
        );
        assert_eq!(resolve_name(&m, None, target(72)), None);
        assert_eq!(
            resolve_name(&m, None, target(86)),
            Some("dram__cycles_elapsed.avg.per_second")
        );
        assert_eq!(resolve_name(&m, None, target(90)), None);
        let mut renamed = dram_frequency();
        renamed.options[0].name = "new__name".into();
        assert_eq!(resolve_name(&renamed, None, target(80)), Some("new__name"));
    }

    #[test]
    fn metric_filters_win_over_the_section_filter() {
        let section = arch(Some(80), None);
        let plain = ProfilerSectionMetric {
            name: "a".into(),
            ..Default::default()
        };
        assert_eq!(resolve_name(&plain, Some(&section), target(75)), None);
        assert_eq!(resolve_name(&plain, Some(&section), target(86)), Some("a"));
        let own = ProfilerSectionMetric {
            name: "b".into(),
            filter: Some(arch(Some(70), None)),
            ..Default::default()
        };
        assert_eq!(resolve_name(&own, Some(&section), target(75)), Some("b"));
    }

    #[test]
    fn items_are_alternative_ranges_and_scopes_must_match() {
        let filter = MetricOptionFilter {
            items: vec![
                MetricOptionFilterItem {
                    min_arch: Some(90),
                    max_arch: Some(90),
                },
                MetricOptionFilterItem {
                    min_arch: Some(100),
                    max_arch: Some(100),
                },
            ],
            ..Default::default()
        };
        assert!(passes(Some(&filter), target(90)));
        assert!(!passes(Some(&filter), target(89)));
        assert!(passes(Some(&filter), target(100)));
        let launch_only = MetricOptionFilter {
            collection_filter: Some(CollectionFilter {
                collection_scopes: vec![SCOPE_LAUNCH],
                importance: Some(1),
            }),
            ..Default::default()
        };
        assert!(passes(Some(&launch_only), target(86)));
        assert!(!passes(
            Some(&launch_only),
            Target {
                compute_capability: Some(86),
                scope: SCOPE_RANGE,
                last_known_arch: None,
            }
        ));
        let metric = ProfilerSectionMetric {
            name: "r".into(),
            filter: Some(launch_only),
            ..Default::default()
        };
        assert!(is_required(&metric, None));
    }

    #[test]
    fn unknown_architecture_excludes_nothing() {
        let m = dram_frequency();
        let unknown = Target {
            compute_capability: None,
            scope: SCOPE_LAUNCH,
            last_known_arch: None,
        };
        assert_eq!(
            resolve_name(&m, None, unknown),
            Some("dram__cycles_elapsed.avg.per_second")
        );
    }

    #[test]
    fn bounds_unknown_to_the_reader_are_absent() {
        // ps1_100's and wsl_gui's "Average MC Channel Active Cycles": items 8.7 and 10.1; the
        // 2024.1 CLI lacks `CC_101`, so the second item has no bounds and passes every chip.
        let filter = MetricOptionFilter {
            items: vec![
                MetricOptionFilterItem {
                    min_arch: Some(87),
                    max_arch: Some(87),
                },
                MetricOptionFilterItem {
                    min_arch: Some(101),
                    max_arch: Some(101),
                },
            ],
            ..Default::default()
        };
        assert!(!passes(Some(&filter), target(75)));
        assert!(passes(Some(&filter), target(75).with_last_known_arch(90)));
        // A known bound still excludes: MinArch 9.0 on a chip taken as 5.0.
        let cluster = arch(Some(90), None);
        assert!(!passes(Some(&cluster), target(50).with_last_known_arch(90)));
        assert!(passes(
            Some(&arch(Some(100), None)),
            target(50).with_last_known_arch(90)
        ));
    }
}
