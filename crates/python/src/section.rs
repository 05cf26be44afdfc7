//! `ISection`: a section embedded in a result (its identifier, names, order, the stored metrics
//! of its header and body, and the rule results that belong to it).

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyTuple;
use sightline_model::ncu::nvrules::{body_metric_names, header_metric_names};
use sightline_model::proto::nv::profiler::ProfilerSection;

use crate::metric::IMetric;
use crate::report::ResultData;
use crate::rule::IRuleResult;

/// `ncu_report.ISection`: one embedded section of a result.
#[pyclass(module = "ncu_report", name = "ISection", frozen)]
#[derive(Debug)]
pub struct ISection {
    action: Arc<ResultData>,
    /// The result's decoded sections.
    sections: Arc<Vec<ProfilerSection>>,
    /// Position in `sections`.
    index: usize,
}

impl ISection {
    /// Every embedded section of `action`, in the report's order (as NVIDIA's reader lists
    /// them; Nsight Compute stores them by identifier).
    pub(crate) fn all(action: &Arc<ResultData>) -> PyResult<Vec<ISection>> {
        let sections = action.sections()?;
        Ok((0..sections.len())
            .map(|index| ISection {
                action: action.clone(),
                sections: sections.clone(),
                index,
            })
            .collect())
    }

    /// The decoded section.
    pub(crate) fn section(&self) -> &ProfilerSection {
        &self.sections[self.index]
    }

    fn metrics<'py>(&self, py: Python<'py>, names: &[&str]) -> PyResult<Bound<'py, PyTuple>> {
        let metrics: Vec<IMetric> = names
            .iter()
            .filter_map(|name| self.action.metric_index(name))
            .map(|index| IMetric::stored(self.action.clone(), index))
            .collect();
        PyTuple::new(py, metrics)
    }
}

#[pymethods]
impl ISection {
    /// The section's identifier.
    fn identifier(&self) -> String {
        self.section().identifier.clone()
    }

    /// The section's display name.
    fn name(&self) -> String {
        self.section().display_name.clone()
    }

    /// The section's order among the others.
    fn order(&self) -> u32 {
        self.section().order.unwrap_or(0)
    }

    /// The identifier of the section this one extends (empty for none).
    fn parent_identifier(&self) -> String {
        self.section().extends.clone().unwrap_or_default()
    }

    /// The section's description (empty for none).
    fn description(&self) -> String {
        self.section().description.clone().unwrap_or_default()
    }

    /// The stored metrics of the section's header, as a tuple of `IMetric`.
    fn header_metrics<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.metrics(
            py,
            &header_metric_names(self.section(), &self.action.action),
        )
    }

    /// The stored metrics of the section's body (tables, charts...), as a tuple of `IMetric`.
    fn body_metrics<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.metrics(py, &body_metric_names(self.section(), &self.action.action))
    }

    /// The stored rule results that belong to the section, as a tuple of `IRuleResult`.
    fn rules<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let identifier = &self.section().identifier;
        let rules: Vec<IRuleResult> = IRuleResult::all(&self.action)
            .into_iter()
            .filter(|r| r.section() == identifier)
            .collect();
        PyTuple::new(py, rules)
    }

    /// The section as HTML (Jupyter's rich display): its header and body as the Details page
    /// resolves them, as tables, with its rule messages.
    fn _repr_html_(&self, py: Python<'_>) -> String {
        let identifier = &self.section().identifier;
        let action = &self.action;
        let details = py.detach(|| action.details_section(identifier));
        match details {
            Some(details) => crate::html::section(&details, &IRuleResult::all(action)),
            None => format!("<div>{}</div>", crate::html::escape(&self.__str__())),
        }
    }

    fn __str__(&self) -> String {
        self.section().display_name.clone()
    }

    fn __repr__(&self) -> String {
        format!("<ncu_report.ISection {}>", self.section().identifier)
    }
}
