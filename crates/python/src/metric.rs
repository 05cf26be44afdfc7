//! `IMetric`: one metric of a result, its value (or an instance's), kind, instances,
//! correlation ids and attributes.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::types::{PyFloat, PyInt, PyString};
use sightline_model::ncu::metric_library;
use sightline_model::ncu::nvrules::{self, metric_subtype, rollup, value_kind};
use sightline_model::ncu::{Instance, MetricValue};

use crate::report::ResultData;

/// What an `IMetric` refers to: metric `index` of a result, or the correlation ids of one.
#[derive(Debug, Clone)]
enum Source {
    /// A stored metric.
    Stored(Arc<ResultData>, usize),
    /// The correlation ids of a stored metric, as a metric of their own (`aligned`: of the
    /// metric's aligned instances, whose ids have no unit).
    Correlation(Arc<ResultData>, usize, Arc<Vec<Instance>>, bool),
    /// A stored metric with its instances aligned to the workload
    /// (`ITimelines.aligned_metric`).
    Aligned(Arc<ResultData>, usize, Arc<Vec<Instance>>),
}

/// Which form of a stored metric an `IMetric` is (what a pickled one is restored as).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Form {
    /// The metric itself.
    Stored = 0,
    /// Its correlation ids.
    CorrelationIds = 1,
    /// Its instances aligned to the workload.
    Aligned = 2,
    /// The correlation ids of its aligned instances.
    AlignedCorrelationIds = 3,
}

impl Form {
    /// The form of code `code` (`None` for an unknown code).
    pub(crate) fn of(code: u8) -> Option<Form> {
        [
            Form::Stored,
            Form::CorrelationIds,
            Form::Aligned,
            Form::AlignedCorrelationIds,
        ]
        .into_iter()
        .find(|f| *f as u8 == code)
    }
}

/// `ncu_report.IMetric`: a metric of a result.
#[pyclass(module = "ncu_report", name = "IMetric", frozen, freelist = 1024)]
#[derive(Debug)]
pub struct IMetric {
    source: Source,
}

impl IMetric {
    /// Metric `index` of `action`.
    pub(crate) fn stored(action: Arc<ResultData>, index: usize) -> IMetric {
        IMetric {
            source: Source::Stored(action, index),
        }
    }

    /// Runs `f` on the metric's stored value and instances (no allocation: the hot path of
    /// `value()`, `kind()`, `num_instances()`).
    fn with<R>(&self, f: impl FnOnce(&MetricValue, &[Instance]) -> R) -> R {
        match &self.source {
            Source::Stored(action, index) => {
                let metric = &action.action.metrics()[*index];
                f(&metric.stored, &metric.instances)
            }
            Source::Correlation(_, _, ids, _) => f(&MetricValue::None, ids),
            // No sample kept: no value either, as NVIDIA's reader answers.
            Source::Aligned(_, _, instances) if instances.is_empty() => f(&MetricValue::None, &[]),
            Source::Aligned(action, index, instances) => {
                f(&action.action.metrics()[*index].stored, instances)
            }
        }
    }

    /// The result and the index of the stored metric this one is, or derives from.
    fn stored_metric(&self) -> (&Arc<ResultData>, usize) {
        match &self.source {
            Source::Stored(action, index)
            | Source::Correlation(action, index, ..)
            | Source::Aligned(action, index, _) => (action, *index),
        }
    }

    /// The metric's name (the stored metric's, also for its correlation ids and its aligned
    /// form, as NVIDIA's reader names them).
    fn name_string(&self) -> String {
        let (action, index) = self.stored_metric();
        action
            .action
            .metric_name(&action.action.metrics()[index])
            .to_owned()
    }

    /// [`IMetric::aligned`] by the timelines of result `action`: `None` for a metric of another
    /// result.
    pub(crate) fn aligned_in(&self, action: &Arc<ResultData>) -> Option<IMetric> {
        let (own, _) = self.stored_metric();
        let same = Arc::ptr_eq(own, action)
            || (own.path == action.path && own.action.index() == action.action.index());
        same.then(|| self.aligned()).flatten()
    }

    /// This metric aligned to the workload (`ITimelines.aligned_metric`): `None` when it
    /// cannot be aligned (see [`nvrules::Timelines::align`]).
    pub(crate) fn aligned(&self) -> Option<IMetric> {
        let Source::Stored(action, index) = &self.source else {
            return None;
        };
        let metric = &action.action.metrics()[*index];
        let name = action.action.metric_name(metric);
        let instances = action.timelines().align(name, &metric.instances)?;
        Some(IMetric {
            source: Source::Aligned(Arc::clone(action), *index, Arc::new(instances)),
        })
    }

    fn value_at(&self, instance: Option<usize>) -> PyResult<MetricValue> {
        self.with(|stored, instances| {
            nvrules::value_at(stored, instances, instance).ok_or_else(|| {
                PyIndexError::new_err(format!(
                    "instance {} out of range: metric {} has {} instances",
                    instance.unwrap_or(0),
                    self.name_string(),
                    instances.len()
                ))
            })
        })
    }

    /// The instances' correlation ids, as a metric whose instances they are (none for a
    /// metric without instances).
    pub(crate) fn correlation_metric(&self) -> IMetric {
        let (action, index) = self.stored_metric();
        let aligned = match &self.source {
            Source::Stored(..) => false,
            Source::Correlation(.., aligned) => *aligned,
            Source::Aligned(..) => true,
        };
        let ids = self.with(|_, instances| nvrules::correlation_instances(instances));
        IMetric {
            source: Source::Correlation(Arc::clone(action), index, Arc::new(ids), aligned),
        }
    }

    /// The metric in `form` (for unpickling; `None` when that form does not exist).
    pub(crate) fn in_form(&self, form: Form) -> Option<IMetric> {
        match form {
            Form::Stored => Some(IMetric {
                source: self.source.clone(),
            }),
            Form::CorrelationIds => Some(self.correlation_metric()),
            Form::Aligned => self.aligned(),
            Form::AlignedCorrelationIds => self.aligned().map(|m| m.correlation_metric()),
        }
    }
}

/// A metric value as a Python object (`None` for no value).
pub(crate) fn to_python<'py>(py: Python<'py>, value: &MetricValue) -> Bound<'py, PyAny> {
    match value {
        MetricValue::None => py.None().into_bound(py),
        MetricValue::String(s) => PyString::new(py, s).into_any(),
        MetricValue::Float(v) => PyFloat::new(py, f64::from(*v)).into_any(),
        MetricValue::Double(v) => PyFloat::new(py, *v).into_any(),
        MetricValue::Uint32(v) => PyInt::new(py, *v).into_any(),
        MetricValue::Uint64(v) => PyInt::new(py, *v).into_any(),
    }
}

/// A code, or `None` for the code that means none.
fn code_or_none(code: i64, none: i64) -> Option<i64> {
    (code != none).then_some(code)
}

#[pymethods]
impl IMetric {
    /// The metric's name.
    fn name(&self) -> String {
        self.name_string()
    }

    fn __str__(&self) -> String {
        self.name()
    }

    fn __repr__(&self) -> String {
        format!("<ncu_report.IMetric {}>", self.name())
    }

    /// The `ValueKind_*` of the value (or of instance `instance`).
    #[pyo3(signature = (instance = None))]
    fn kind(&self, instance: Option<usize>) -> PyResult<i64> {
        // The aligned timestamps of a metric with a value of its own are of kind DOUBLE in
        // NVIDIA's reader (their values stay integers); those of one without, UINT64.
        if let (Source::Correlation(action, index, ids, true), None) = (&self.source, instance)
            && !ids.is_empty()
            && nvrules::has_stored_value(&action.action.metrics()[*index])
        {
            return Ok(value_kind::DOUBLE);
        }
        match self.with(|stored, instances| nvrules::kind_at(stored, instances, instance)) {
            Some(kind) => Ok(nvrules::kind_code(kind)),
            // Out of range: the same error as `value()`.
            None => self.value_at(instance).map(|_| value_kind::UNKNOWN),
        }
    }

    /// The value (or instance `instance`'s) as the Python type of its kind: `str`, `float`
    /// or `int`; `None` without a value.
    #[pyo3(signature = (instance = None))]
    fn value<'py>(&self, py: Python<'py>, instance: Option<usize>) -> PyResult<Bound<'py, PyAny>> {
        Ok(to_python(py, &self.value_at(instance)?))
    }

    /// The value as a float (0 for a string or no value).
    #[pyo3(signature = (instance = None))]
    fn as_double(&self, instance: Option<usize>) -> PyResult<f64> {
        Ok(self.value_at(instance)?.as_f64().unwrap_or(0.0))
    }

    /// The value as an unsigned 64-bit integer (0 for a string or no value).
    #[pyo3(signature = (instance = None))]
    fn as_uint64(&self, instance: Option<usize>) -> PyResult<u64> {
        Ok(self.value_at(instance)?.as_u64().unwrap_or(0))
    }

    /// The value as a string (`None` when it is not a string).
    #[pyo3(signature = (instance = None))]
    fn as_string(&self, instance: Option<usize>) -> PyResult<Option<String>> {
        Ok(match self.value_at(instance)? {
            MetricValue::String(s) => Some(s),
            _ => None,
        })
    }

    /// Whether the report stores a value of the metric itself (an instanced metric may store
    /// only its instances' values); with `value_kind`, whether the metric's kind is that one
    /// (`ValueKind_ANY`: any kind but `ValueKind_UNKNOWN`), as NVIDIA's module answers.
    #[pyo3(signature = (value_kind = None))]
    fn has_value(&self, value_kind: Option<i64>) -> PyResult<bool> {
        Ok(match value_kind {
            Some(value_kind::ANY) => self.kind(None)? != value_kind::UNKNOWN,
            Some(kind) => kind == self.kind(None)?,
            None => match &self.source {
                Source::Stored(action, index) => {
                    nvrules::has_stored_value(&action.action.metrics()[*index])
                }
                // An aligned metric keeps the stored value, unless no sample was kept.
                Source::Aligned(action, index, instances) => {
                    !instances.is_empty()
                        && nvrules::has_stored_value(&action.action.metrics()[*index])
                }
                Source::Correlation(..) => false,
            },
        })
    }

    /// How many instance values the metric has.
    fn num_instances(&self) -> usize {
        self.with(|_, instances| instances.len())
    }

    /// Whether any instance has a correlation id.
    fn has_correlation_ids(&self) -> bool {
        self.with(|_, instances| instances.iter().any(|i| i.correlation_id.is_some()))
    }

    /// Pickles as the report's path, the result's index, the metric's name and its form
    /// ([`Form`]).
    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<crate::Reduced<'py, (PathBuf, usize, String, u8)>> {
        let (result, _) = self.stored_metric();
        let form = match &self.source {
            Source::Stored(..) => Form::Stored,
            Source::Correlation(.., false) => Form::CorrelationIds,
            Source::Aligned(..) => Form::Aligned,
            Source::Correlation(.., true) => Form::AlignedCorrelationIds,
        };
        let arguments = (
            result.path.to_path_buf(),
            result.action.index(),
            self.name_string(),
            form as u8,
        );
        crate::reduce(py, "_metric", arguments)
    }

    /// The instances' correlation ids, as a metric whose instances they are (`None` when no
    /// instance has one).
    fn correlation_ids(&self) -> Option<IMetric> {
        self.has_correlation_ids()
            .then(|| self.correlation_metric())
    }

    /// The metric's unit as NVIDIA's reader gives it: set by a section of the result, or
    /// inferred from the name.
    fn unit(&self) -> String {
        let name = self.name();
        match &self.source {
            // The ids of a stored metric have its unit; those of an aligned one none.
            Source::Stored(result, _)
            | Source::Aligned(result, ..)
            | Source::Correlation(result, _, _, false) => result.unit(&name),
            Source::Correlation(.., true) => String::new(),
        }
    }

    /// The metric's label as the result's sections give it (the section with the smallest
    /// order wins); empty when no section labels it.
    fn label(&self) -> String {
        match &self.source {
            Source::Stored(result, _) | Source::Aligned(result, ..) => result.label(&self.name()),
            Source::Correlation(..) => String::new(),
        }
    }

    /// The metric's description from NVIDIA's metric library, read from the user's own Nsight
    /// Compute (`sightline_model::ncu::metric_library`) for the result's chip
    /// (`device__attribute_chip`): empty without `ncu`, for a chip it does not know and for a
    /// metric its library lacks (reports do not hold descriptions).
    fn description(&self) -> String {
        let (result, _) = self.stored_metric();
        let chip = result
            .action
            .metric("device__attribute_chip")
            .and_then(|m| m.value().as_u64())
            .and_then(metric_library::chip_name);
        chip.and_then(metric_library::library)
            .map(|library| library.description(&self.name_string()))
            .unwrap_or_default()
    }

    /// The `MetricType_*`, inferred from the name.
    fn metric_type(&self) -> i64 {
        nvrules::infer_metric_type(&self.name_string())
    }

    /// The `MetricSubtype_*`, inferred from the name (`None` for none).
    fn metric_subtype(&self) -> Option<i64> {
        let code = nvrules::infer_subtype(&self.name_string());
        code_or_none(code, metric_subtype::NONE)
    }

    /// The `RollupOperation_*`, inferred from the name (`None` for none).
    fn rollup_operation(&self) -> Option<i64> {
        let code = nvrules::infer_rollup(&self.name_string());
        code_or_none(code, rollup::NONE)
    }
}
