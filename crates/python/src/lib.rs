//! Sightline's CPython extension module (`sightline._native`): NVIDIA's `ncu_report`
//! interface on Sightline's Nsight Compute reader. The Python packages `ncu_report` and
//! `sightline` (python/src/) re-export it.
//!
//! The classes bind the model: `IContext`/`IRange` ([`context`]) over one [`report`] handle
//! that decodes results on first use, `IAction` ([`action`]), `IMetric` ([`metric`]) and the
//! NVTX classes ([`nvtx`]). What the answers mean (value at an instance, kinds, inferred
//! attributes, NVTX filters) is the model's `ncu::nvrules`, which the rule engine binds too.
//! Every object holds what it needs through `Arc`s: all are safe to use from threads, and
//! decoding releases the GIL.

mod action;
mod arrow;
mod context;
mod html;
mod metric;
mod nsys;
mod nvtx;
mod recipe;
mod report;
mod rule;
mod section;
mod source;
mod timelines;

use std::ffi::CString;
use std::path::PathBuf;

use pyo3::exceptions::PyUserWarning;
use pyo3::prelude::*;
use sightline_model::ncu::nvrules::{
    report_class_constants, report_enums, report_module_constants,
};

/// The version of NVIDIA's interface the module follows (`IContext.get_version()`).
pub(crate) const INTERFACE_VERSION: &str = "2025.3.1";

/// Opens the Nsight Compute report at `path` (`.ncu-rep` or `.ncu-repz`) and returns its
/// `IContext`. Only the file's first block is read: the rest is indexed as far as each
/// question needs, and each result decoded when first used. A partly readable report loads
/// what is readable and warns (`UserWarning`) once per problem, naming the file and the
/// position, when a call first reads that far (a count or the results past it).
#[pyfunction]
#[expect(
    clippy::needless_pass_by_value,
    reason = "PyO3 converts the Python path into an owned one"
)]
fn load_report(py: Python<'_>, path: PathBuf) -> PyResult<Py<context::IContext>> {
    let report = py.detach(|| report::ReportHandle::open(&path, true))?;
    report.warn_found(py)?;
    context::IContext::new(py, report)
}

/// Warns `message` (`UserWarning`); an error when the user's filter turns warnings into
/// errors.
pub(crate) fn warn(py: Python<'_>, message: &str) -> PyResult<()> {
    let category = py.get_type::<PyUserWarning>();
    let message = CString::new(message.replace('\0', " "))?;
    PyErr::warn(py, &category, &message, 1)
}

/// Restores a pickled `IAction`: result `index` of the report at `path`.
#[pyfunction]
#[expect(
    clippy::needless_pass_by_value,
    reason = "PyO3 converts the Python path into an owned one"
)]
fn _result(py: Python<'_>, path: PathBuf, index: usize) -> PyResult<action::IAction> {
    let report = py.detach(|| report::ReportHandle::open(&path, false))?;
    let result = py.detach(|| report.action(index))?;
    Ok(action::IAction::new(result))
}

/// Restores a pickled `IMetric`: metric `name` of result `index` of the report at `path`, in
/// form `form` (the metric, its correlation ids, its aligned form or their ids).
#[pyfunction]
fn _metric(
    py: Python<'_>,
    path: PathBuf,
    index: usize,
    name: &str,
    form: u8,
) -> PyResult<metric::IMetric> {
    let result = _result(py, path, index)?;
    result.restore_metric(name, form)
}

/// Restores a pickled `IRange`: the range of the report at `path`.
#[pyfunction]
#[expect(
    clippy::needless_pass_by_value,
    reason = "PyO3 converts the Python path into an owned one"
)]
fn _range(py: Python<'_>, path: PathBuf) -> PyResult<context::IRange> {
    let report = py.detach(|| report::ReportHandle::open(&path, false))?;
    Ok(context::IRange::new(report))
}

/// What `__reduce__` returns: the module's function that restores an object, and its
/// arguments.
pub(crate) type Reduced<'py, A> = (Bound<'py, PyAny>, A);

/// `(function, arguments)`: what `__reduce__` returns for an object restored by calling the
/// module's `function` with `arguments` (pickling sends the path and indices, not the data).
pub(crate) fn reduce<'py, A: IntoPyObject<'py>>(
    py: Python<'py>,
    function: &str,
    arguments: A,
) -> PyResult<(Bound<'py, PyAny>, A)> {
    Ok((
        py.import("sightline._native")?.getattr(function)?,
        arguments,
    ))
}

/// The extension module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(load_report, m)?)?;
    m.add_function(wrap_pyfunction!(_result, m)?)?;
    m.add_function(wrap_pyfunction!(_metric, m)?)?;
    m.add_function(wrap_pyfunction!(_range, m)?)?;
    m.add_class::<context::IBaseContext>()?;
    m.add_class::<context::IContext>()?;
    m.add_class::<context::IRange>()?;
    m.add_class::<action::IAction>()?;
    m.add_class::<metric::IMetric>()?;
    m.add_class::<timelines::ITimelines>()?;
    m.add_class::<nvtx::INvtxState>()?;
    m.add_class::<nvtx::INvtxDomainInfo>()?;
    m.add_class::<nvtx::INvtxRange>()?;
    m.add_class::<section::ISection>()?;
    m.add_class::<rule::IRuleResult>()?;
    m.add_class::<source::ISourceInfo>()?;
    m.add_function(wrap_pyfunction!(nsys::open_nsys, m)?)?;
    m.add_function(wrap_pyfunction!(recipe::recipe_list, m)?)?;
    m.add_function(wrap_pyfunction!(recipe::recipe_inputs, m)?)?;
    m.add_function(wrap_pyfunction!(recipe::recipe_output_dir, m)?)?;
    m.add_function(wrap_pyfunction!(recipe::recipe_check, m)?)?;
    m.add_function(wrap_pyfunction!(recipe::recipe_partial, m)?)?;
    m.add_function(wrap_pyfunction!(recipe::recipe_write, m)?)?;
    m.add_class::<nsys::NsysExport>()?;
    m.add_class::<arrow::ArrowTable>()?;
    add_constants(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

/// NVIDIA's enums and constants, from the model's tables of them: the `IntEnum` classes
/// (`MsgType`, `StallReason`...), the module's `Enum_MEMBER` integers, the class attributes
/// (`IMetric.ValueKind_DOUBLE`...), and `_CONSTANTS`, the names the packages re-export.
fn add_constants(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let int_enum = py.import("enum")?.getattr("IntEnum")?;
    let mut names = Vec::new();
    for (name, members) in report_enums() {
        let class = int_enum.call1((name, members))?;
        class.setattr("__module__", "ncu_report")?;
        m.add(name, class)?;
        names.push(name.to_owned());
    }
    for (name, value) in report_module_constants() {
        m.add(name.as_str(), value)?;
        names.push(name);
    }
    for (class, attribute, value) in report_class_constants() {
        if let Ok(class) = m.getattr(class) {
            class.setattr(attribute.as_str(), value)?;
        }
    }
    m.add("_CONSTANTS", names)?;
    Ok(())
}
