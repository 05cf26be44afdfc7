//! Summary tables computed from the timeline itself, for sources without `nsys stats` (CodeXL
//! traces, NVTXT files): kernels, host API calls, memory transfers and annotated ranges by total
//! time, in the same shape, rounding and order as the `nsys stats` tables
//! ([`super::nsys::stats`]): one row per name with time share, total, count, mean, median,
//! min, max and sample standard deviation.

use std::collections::HashMap;

use super::nsys::stats::{ReportOutcome, time_table};
use super::{EventKind, Timeline};

/// One table computed from the timeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelReport {
    /// The report's name (what `sightline` and the app call it).
    pub name: &'static str,
    /// The event kinds it summarizes.
    pub kinds: &'static [EventKind],
    /// The count column's header.
    pub count_header: &'static str,
    /// The name column's header.
    pub name_header: &'static str,
    /// Kernel order (ties by count, then name) rather than name order.
    pub kernel_order: bool,
}

/// The tables computed from a timeline, in the order they are offered.
pub const MODEL_REPORTS: &[ModelReport] = &[
    ModelReport {
        name: "kernel_sum",
        kinds: &[EventKind::Kernel],
        count_header: "Instances",
        name_header: "Name",
        kernel_order: true,
    },
    ModelReport {
        name: "api_sum",
        kinds: &[EventKind::HostApi],
        count_header: "Num Calls",
        name_header: "Name",
        kernel_order: false,
    },
    ModelReport {
        name: "device_mem_sum",
        kinds: &[EventKind::Memcpy, EventKind::DeviceCommand],
        count_header: "Count",
        name_header: "Operation",
        kernel_order: false,
    },
    ModelReport {
        name: "range_sum",
        kinds: &[EventKind::Range],
        count_header: "Instances",
        name_header: "Range",
        kernel_order: false,
    },
];

/// The `ModelReport` called `name`.
pub fn model_report(name: &str) -> Option<&'static ModelReport> {
    MODEL_REPORTS.iter().find(|r| r.name == name)
}

/// Computes `report` over every event of its kinds; `Skipped` when the timeline has none.
pub fn run_model_report(timeline: &Timeline, report: &ModelReport) -> ReportOutcome {
    let mut groups: HashMap<u32, Vec<i64>> = HashMap::new();
    for e in timeline.events() {
        if report.kinds.contains(&e.kind) {
            groups
                .entry(e.name.0)
                .or_default()
                .push(e.end.saturating_sub(e.start));
        }
    }
    if groups.is_empty() {
        return ReportOutcome::Skipped(format!(
            "{} does not contain {} events.",
            timeline.source.display(),
            report
                .kinds
                .iter()
                .map(|k| k.as_str())
                .collect::<Vec<_>>()
                .join(" or ")
        ));
    }
    let named = groups
        .into_iter()
        .map(|(id, v)| (timeline.name(super::StrId(id)).to_string(), v))
        .collect();
    ReportOutcome::Table(time_table(
        report.name,
        report.count_header,
        report.name_header,
        named,
        report.kernel_order,
    ))
}

/// Every `MODEL_REPORTS` table the timeline has events for.
pub fn model_reports(timeline: &Timeline) -> Vec<(String, ReportOutcome)> {
    MODEL_REPORTS
        .iter()
        .map(|r| (r.name.to_string(), run_model_report(timeline, r)))
        .filter(|(_, outcome)| matches!(outcome, ReportOutcome::Table(_)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::nsys::stats::Cell;
    use crate::timeline::{NewEvent, TimelineBuilder, TrackKind};

    #[test]
    fn kernels_by_total_time_with_nsys_rounding() {
        let mut b = TimelineBuilder::new("t");
        let q = b.track(None, TrackKind::Queue, 0, || "q".into());
        let a = b.intern("a");
        let c = b.intern("c");
        for (name, start, len) in [(a, 0, 10), (a, 20, 15), (c, 40, 30), (a, 80, 4)] {
            b.push(
                q,
                NewEvent::new(EventKind::Kernel, start, start + len, name, 0),
            );
        }
        let t = b.finish();
        let ReportOutcome::Table(table) = run_model_report(&t, &MODEL_REPORTS[0]) else {
            panic!("no table");
        };
        assert_eq!(table.columns[2], "Instances");
        let text = |r: usize, c: usize| table.rows.cell(r, c).unwrap().as_str().to_string();
        // a: 29 ns over 3 (mean 9.7, median 10.0, stddev 5.5); c: 30 ns.
        assert_eq!(text(0, 8), "c");
        assert_eq!(text(1, 8), "a");
        assert_eq!(text(1, 1), "29");
        assert_eq!(text(1, 3), "9.7");
        assert_eq!(text(1, 4), "10.0");
        assert_eq!(text(1, 7), "5.5");
        assert_eq!(*table.rows.cell(0, 0).unwrap(), Cell::Number("50.8".into()));
        assert!(matches!(
            run_model_report(&t, &MODEL_REPORTS[1]),
            ReportOutcome::Skipped(_)
        ));
        assert_eq!(model_reports(&t).len(), 1);
    }
}
