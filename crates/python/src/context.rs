//! `IContext` (an opened report) and `IRange` (its results): the entry points of
//! `load_report`.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PySlice, PyTuple};
use sightline_model::ncu::nvrules::nvtx_filter;

use crate::action::IAction;
use crate::report::ReportHandle;

/// `obj[key]` over `len` items made by `item(i)`: an int (negative from the end) gives one
/// item, a slice a tuple of them.
fn index_items<'py>(
    py: Python<'py>,
    what: &str,
    len: usize,
    key: &Bound<'py, PyAny>,
    item: impl Fn(usize) -> PyResult<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    if let Ok(slice) = key.cast::<PySlice>() {
        let indices = slice.indices(isize::try_from(len).unwrap_or(isize::MAX))?;
        let mut items = Vec::new();
        let mut i = indices.start;
        while (indices.step > 0 && i < indices.stop) || (indices.step < 0 && i > indices.stop) {
            items.push(item(usize::try_from(i).unwrap_or(0))?);
            i += indices.step;
        }
        return Ok(PyTuple::new(py, items)?.into_any());
    }
    let Ok(index) = key.extract::<i64>() else {
        return Err(PyTypeError::new_err(format!(
            "{what} indices must be integers or slices, not {}",
            key.get_type().name()?
        )));
    };
    let signed_len = i64::try_from(len).unwrap_or(i64::MAX);
    let index = if index < 0 { index + signed_len } else { index };
    match usize::try_from(index) {
        Ok(index) if index < len => item(index),
        _ => Err(PyIndexError::new_err(format!("{what} index out of range"))),
    }
}

/// `ncu_report.IRange`: the report's results (Sightline reads a report as one range, as
/// NVIDIA's reader does for reports of one profiling session).
#[pyclass(module = "ncu_report", name = "IRange", frozen)]
#[derive(Debug)]
pub struct IRange {
    report: Arc<ReportHandle>,
}

impl IRange {
    /// The range of an opened report.
    pub(crate) fn new(report: Arc<ReportHandle>) -> IRange {
        IRange { report }
    }

    fn action(&self, py: Python<'_>, index: usize) -> PyResult<IAction> {
        let report = &self.report;
        let action = py.detach(|| report.action(index));
        report.warn_found(py)?;
        Ok(IAction::new(action?))
    }
}

#[pymethods]
impl IRange {
    /// How many results the range holds (indexing the whole report).
    fn num_actions(&self, py: Python<'_>) -> PyResult<usize> {
        self.report.num_actions(py)
    }

    /// Result `index`, or `None` when out of range (indexing the report up to it).
    fn action_by_idx(&self, py: Python<'_>, index: i64) -> PyResult<Option<IAction>> {
        match usize::try_from(index) {
            Ok(i) if self.report.has_action(py, i)? => self.action(py, i).map(Some),
            _ => Ok(None),
        }
    }

    /// The indices of the results whose NVTX state matches every filter of `includes` and
    /// none of `excludes` (Nsight Compute's `--nvtx-include` / `--nvtx-exclude` syntax), as a
    /// tuple.
    #[pyo3(signature = (includes, excludes = Vec::new()))]
    #[expect(
        clippy::needless_pass_by_value,
        reason = "PyO3 converts the Python lists into owned vectors"
    )]
    fn actions_by_nvtx<'py>(
        &self,
        py: Python<'py>,
        includes: Vec<String>,
        excludes: Vec<String>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let report = &self.report;
        let count = report.num_actions(py)?;
        let selected = py.detach(|| {
            let mut selected = Vec::new();
            for index in 0..count {
                let action = &report.action(index)?.action;
                let domains = match action.nvtx() {
                    Some(state) => nvtx_filter::domains_of(state, action.thread_id()),
                    None => Vec::new(),
                };
                if nvtx_filter::select(&includes, &excludes, &domains)
                    .map_err(|e| PyValueError::new_err(e.to_string()))?
                {
                    selected.push(index);
                }
            }
            Ok::<_, PyErr>(selected)
        })?;
        PyTuple::new(py, selected)
    }

    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        self.report.num_actions(py)
    }

    /// Pickles as the report's path.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<crate::Reduced<'py, (PathBuf,)>> {
        crate::reduce(py, "_range", (self.report.report.path().to_path_buf(),))
    }

    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        index_items(py, "IRange", self.report.num_actions(py)?, key, |i| {
            Ok(Bound::new(py, self.action(py, i)?)?.into_any())
        })
    }

    fn __iter__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let range = slf.get();
        let all = PySlice::full(py);
        index_items(py, "IRange", range.report.num_actions(py)?, &all, |i| {
            Ok(Bound::new(py, range.action(py, i)?)?.into_any())
        })?
        .try_iter()
        .map(Bound::into_any)
    }
}

/// `ncu_report.IBaseContext`: what every context of NVIDIA's interface has (the base class of
/// `IContext`; not made directly).
#[pyclass(module = "ncu_report", name = "IBaseContext", subclass, frozen)]
#[derive(Debug)]
pub struct IBaseContext;

#[pymethods]
impl IBaseContext {
    /// The version of the interface Sightline implements.
    #[expect(
        clippy::unused_self,
        reason = "a method of NVIDIA's interface: the version is the module's"
    )]
    fn get_version(&self) -> &'static str {
        crate::INTERFACE_VERSION
    }

    /// `False`: an exception a rule raised is not handled by an opened report's context (as
    /// NVIDIA's module answers outside the rule system).
    #[expect(
        clippy::unused_self,
        reason = "a method of NVIDIA's interface: a report's context handles no exception"
    )]
    fn handle_exception(&self, msg: &str) -> bool {
        let _ = msg;
        false
    }
}

/// `ncu_report.IContext`: an opened report.
#[pyclass(module = "ncu_report", name = "IContext", extends = IBaseContext, frozen)]
#[derive(Debug)]
pub struct IContext {
    report: Arc<ReportHandle>,
}

impl IContext {
    /// The context of an opened report, as a Python object (an `IBaseContext` too).
    pub(crate) fn new(py: Python<'_>, report: Arc<ReportHandle>) -> PyResult<Py<IContext>> {
        Py::new(
            py,
            PyClassInitializer::from(IBaseContext).add_subclass(IContext { report }),
        )
    }

    /// 1 when the report holds a result (indexing it up to its first result), else 0.
    fn range_count(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(usize::from(self.report.has_action(py, 0)?))
    }

    fn range(&self) -> IRange {
        IRange {
            report: self.report.clone(),
        }
    }
}

#[pymethods]
impl IContext {
    /// How many ranges the report holds (1, or 0 for a report without results).
    fn num_ranges(&self, py: Python<'_>) -> PyResult<usize> {
        self.range_count(py)
    }

    /// Range `index`, or `None` when out of range.
    fn range_by_idx(&self, py: Python<'_>, index: i64) -> PyResult<Option<IRange>> {
        Ok((index == 0 && self.range_count(py)? == 1).then(|| self.range()))
    }

    /// The rule system's frontend: `None` for an opened report (as NVIDIA's module answers).
    #[expect(
        clippy::unused_self,
        reason = "a method of NVIDIA's interface: only the rule system has a frontend"
    )]
    fn frontend(&self) -> Option<Py<PyAny>> {
        None
    }

    /// The rule system's backend: `None` for an opened report.
    #[expect(
        clippy::unused_self,
        reason = "a method of NVIDIA's interface: only the rule system has a backend"
    )]
    fn backend(&self) -> Option<Py<PyAny>> {
        None
    }

    /// The rule system's controller: `None` for an opened report.
    #[expect(
        clippy::unused_self,
        reason = "a method of NVIDIA's interface: only the rule system has a controller"
    )]
    fn controller(&self) -> Option<Py<PyAny>> {
        None
    }

    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        self.range_count(py)
    }

    /// Pickles as the report's path.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<crate::Reduced<'py, (PathBuf,)>> {
        crate::reduce(
            py,
            "load_report",
            (self.report.report.path().to_path_buf(),),
        )
    }

    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        index_items(py, "IContext", self.range_count(py)?, key, |_| {
            Ok(Bound::new(py, self.range())?.into_any())
        })
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let ranges: Vec<IRange> = (0..self.range_count(py)?).map(|_| self.range()).collect();
        ranges
            .into_pyobject(py)?
            .into_any()
            .try_iter()
            .map(Bound::into_any)
    }
}
