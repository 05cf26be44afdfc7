//! `ITimelines`: a result's PM sampling timelines, which align its sampled metrics to the
//! workload (`aligned_metric`).

use std::sync::Arc;

use pyo3::prelude::*;

use crate::metric::IMetric;
use crate::report::ResultData;

/// `ncu_report.ITimelines`: the timelines of a result (`IAction.timelines()`). Metrics
/// sampled in different passes are aligned to one time axis that starts at the workload, with
/// the samples taken while another context ran left out.
#[pyclass(module = "ncu_report", name = "ITimelines", frozen)]
#[derive(Debug)]
pub struct ITimelines {
    action: Arc<ResultData>,
}

impl ITimelines {
    /// The timelines of `action`.
    pub(crate) fn new(action: Arc<ResultData>) -> ITimelines {
        ITimelines { action }
    }
}

#[pymethods]
impl ITimelines {
    /// The timeline-aligned form of `metric`: its instances kept while the profiled context
    /// ran, their correlation ids (timestamps) shifted to start with the first sample of the
    /// metric's pass. `None` when the metric cannot be aligned (it is not a sampled metric of
    /// this result, or it has no instances with timestamps). The aligned metric has the
    /// metric's name, kind and unit; with no sample kept it has no value.
    fn aligned_metric(&self, metric: &IMetric) -> Option<IMetric> {
        metric.aligned_in(&self.action)
    }

    fn __repr__(&self) -> String {
        format!(
            "<ncu_report.ITimelines of result {}>",
            self.action.action.index()
        )
    }
}
