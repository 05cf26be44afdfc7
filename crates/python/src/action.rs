//! `IAction`: one profiled result (a kernel, range, command list or graph) and its metrics.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use sightline_model::ncu::NameBase;
use sightline_model::ncu::nvrules::{self, name_base};

use crate::report::ResultData;

use crate::metric::{Form, IMetric};
use crate::nvtx::INvtxState;
use crate::rule::IRuleResult;
use crate::section::ISection;
use crate::source::{self, ISourceInfo};
use crate::timelines::ITimelines;

/// `ncu_report.IAction`: a result of the report.
#[pyclass(module = "ncu_report", name = "IAction", frozen)]
#[derive(Debug)]
pub struct IAction {
    action: Arc<ResultData>,
}

impl IAction {
    /// The object of a decoded result.
    pub(crate) fn new(action: Arc<ResultData>) -> IAction {
        IAction { action }
    }

    /// The kernel's source module (`None` for other results).
    fn module(&self, py: Python<'_>) -> Option<&sightline_model::ncu::source::SourceModule> {
        self.action.source.module(py, &self.action)
    }

    /// Metric `name` of this result in form `form` ([`Form`]), for unpickling.
    pub(crate) fn restore_metric(&self, name: &str, form: u8) -> PyResult<IMetric> {
        let form = Form::of(form)
            .ok_or_else(|| PyValueError::new_err(format!("unknown metric form {form}")))?;
        self.__getitem__(name)?
            .in_form(form)
            .ok_or_else(|| PyValueError::new_err(format!("metric '{name}' has no aligned form")))
    }
}

#[pymethods]
impl IAction {
    /// The result's name: the function name, or the demangled or mangled name
    /// (`NameBase_*`).
    #[pyo3(signature = (name_base = name_base::FUNCTION))]
    fn name(&self, name_base: i64) -> PyResult<String> {
        let base = nvrules::name_base_of(name_base)
            .ok_or_else(|| PyValueError::new_err(format!("invalid name base {name_base}")))?;
        Ok(self.action.action.name(base).to_owned())
    }

    fn __str__(&self) -> String {
        self.action.action.name(NameBase::Function).to_owned()
    }

    fn __repr__(&self) -> String {
        format!(
            "<ncu_report.IAction {} (result {})>",
            self.action.action.name(NameBase::Function),
            self.action.action.index()
        )
    }

    /// The `WorkloadType_*` of the result.
    fn workload_type(&self) -> i64 {
        nvrules::workload_code(self.action.action.kind())
    }

    /// The names of the result's metrics, sorted.
    fn metric_names<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let data = &self.action;
        let names = data
            .action
            .metrics_by_name()
            .map(|(name, metric)| data.names.get(py, metric.name_id, name))
            .collect::<Vec<_>>();
        PyTuple::new(py, names)
    }

    /// The metric named `name`, or `None`.
    fn metric_by_name(&self, name: &str) -> Option<IMetric> {
        self.action
            .metric_index(name)
            .map(|index| IMetric::stored(self.action.clone(), index))
    }

    /// The NVTX state at the result's launch, or `None` when none was collected.
    fn nvtx_state(&self) -> Option<INvtxState> {
        self.action.action.nvtx()?;
        Some(INvtxState::new(self.action.clone()))
    }

    /// The sections embedded in the result, in the report's order, as a tuple of `ISection`.
    fn sections<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, ISection::all(&self.action)?)
    }

    /// The rule results stored with the result, one `IRuleResult` per message, as a tuple.
    fn rule_results<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, IRuleResult::all(&self.action))
    }

    /// The rule results stored with the result as a list of dictionaries (`rule_identifier`,
    /// `name`, `section_identifier`, `rule_message`, and `focus_metrics` and
    /// `speedup_estimation` when the message has them).
    fn rule_results_as_dicts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for rule in IRuleResult::all(&self.action) {
            list.append(rule.as_dict(py)?)?;
        }
        Ok(list)
    }

    /// The source files imported into the report for the kernel: `{path: content}` (empty
    /// for other results and kernels without imported sources).
    fn source_files<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        source::source_files(py, self.module(py))
    }

    /// The source file and line of `address` (`None` without line info there, or for results
    /// that are not kernels).
    fn source_info(&self, py: Python<'_>, address: u64) -> Option<ISourceInfo> {
        ISourceInfo::at(self.module(py)?, address)
    }

    /// The PTX line of `address` (empty when the cubin has no PTX line info there).
    fn ptx_by_pc(&self, py: Python<'_>, address: u64) -> String {
        self.module(py)
            .map(|m| m.ptx_by_pc(address).to_owned())
            .unwrap_or_default()
    }

    /// The SASS instruction at `address` as NVIDIA's reader writes it, disassembled by the
    /// user's nvdisasm (found as the Source page finds it); empty without nvdisasm or outside
    /// the kernel's functions.
    fn sass_by_pc(&self, py: Python<'_>, address: u64) -> String {
        self.module(py)
            .map(|m| self.action.source.sass(py, m, address))
            .unwrap_or_default()
    }

    /// The source markers stored with the result's rule results, as a tuple of dictionaries
    /// (`rule_identifier`, `section_identifier`, `kind`, `message_type`, `message`, and
    /// `source_address` or `source_location`).
    fn source_markers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        source::source_markers(py, &self.action.action)
    }

    /// The result's timelines: what aligns its PM sampling metrics to the workload
    /// (`ITimelines.aligned_metric`).
    fn timelines(&self) -> ITimelines {
        ITimelines::new(Arc::clone(&self.action))
    }

    /// The result's timed warp samples, as a list of dictionaries (`timestamp`, `pc`,
    /// `stall_reason`, `not_issued`). The report format Sightline reads (NVIDIA's schema up
    /// to 2024.1) has no field for them, and NVIDIA's reader returns none for any corpus
    /// report (2020.2 to 2026.2): an empty list.
    #[expect(
        clippy::unused_self,
        reason = "NVIDIA's method of a result; the reports' schema stores no timed samples"
    )]
    fn timed_warp_samples<'py>(&self, py: Python<'py>) -> Bound<'py, PyList> {
        PyList::empty(py)
    }

    /// Adds no metric and returns `None`, as NVIDIA's module does for the results of a loaded
    /// report (which stay as read; rules add metrics through the rule system).
    #[expect(
        clippy::unused_self,
        reason = "NVIDIA's method of a result: it reads its arguments and changes nothing"
    )]
    fn add_metric(&self, value_name: &str) -> Option<IMetric> {
        let _ = value_name;
        None
    }

    /// [`IAction::add_metric`] with a float value: `None`, nothing added.
    #[expect(
        clippy::unused_self,
        reason = "NVIDIA's method of a result: it reads its arguments and changes nothing"
    )]
    fn add_double_metric(&self, value_name: &str, value_kind: i64, value: f64) -> Option<IMetric> {
        let _ = (value_name, value_kind, value);
        None
    }

    /// [`IAction::add_metric`] with an unsigned integer value: `None`, nothing added.
    #[expect(
        clippy::unused_self,
        reason = "NVIDIA's method of a result: it reads its arguments and changes nothing"
    )]
    fn add_integer_metric(&self, value_name: &str, value_kind: i64, value: u64) -> Option<IMetric> {
        let _ = (value_name, value_kind, value);
        None
    }

    /// [`IAction::add_metric`] with a string value: `None`, nothing added.
    #[expect(
        clippy::unused_self,
        reason = "NVIDIA's method of a result: it reads its arguments and changes nothing"
    )]
    fn add_string_metric(&self, value_name: &str, value_kind: i64, value: &str) -> Option<IMetric> {
        let _ = (value_name, value_kind, value);
        None
    }

    /// The result's metrics as an HTML table (Jupyter's rich display): name, unit and value
    /// as the Details page formats them.
    fn _repr_html_(&self) -> String {
        let title = format!(
            "{} (result {})",
            self.action.action.name(NameBase::Function),
            self.action.action.index()
        );
        crate::html::action_table(&self.action.action, &title, |name| self.action.unit(name))
    }

    fn __len__(&self) -> usize {
        self.action.action.metrics().len()
    }

    /// Pickles as the report's path and the result's index.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<crate::Reduced<'py, (PathBuf, usize)>> {
        let arguments = (self.action.path.to_path_buf(), self.action.action.index());
        crate::reduce(py, "_result", arguments)
    }

    fn __getitem__(&self, name: &str) -> PyResult<IMetric> {
        self.metric_by_name(name)
            .ok_or_else(|| PyKeyError::new_err(format!("no metric named '{name}'")))
    }

    fn __contains__(&self, name: &str) -> bool {
        self.action.metric_index(name).is_some()
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.metric_names(py)?
            .into_any()
            .try_iter()
            .map(Bound::into_any)
    }
}
