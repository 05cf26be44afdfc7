//! `IMetric` and `IMutableMetric`: a metric's value, instances and correlation ids.

use std::cell::RefCell;
use std::rc::Rc;

use rustpython_vm::function::{OptionalArg, PosArgs};
use rustpython_vm::{PyObjectRef, PyPayload, PyResult, VirtualMachine, pyclass};

use super::action::ActionData;
use super::consts::{metric_subtype, metric_type, rollup, value_kind};
use sightline_model::ncu::{Instance, MetricValue, ValueKind};

/// A metric created by a rule (`IAction.add_metric`) or derived from another one
/// (`correlation_ids()`).
#[derive(Debug, Default)]
pub(crate) struct OwnedMetric {
    pub name: String,
    pub stored: MetricValue,
    pub instances: Vec<Instance>,
}

/// What an `IMetric` refers to.
#[derive(Debug, Clone)]
pub(crate) enum MetricRef {
    /// Metric `index` of the action's stored metrics.
    Stored(Rc<ActionData>, usize),
    /// A metric owned by Sightline (added by a rule or derived).
    Owned(Rc<RefCell<OwnedMetric>>),
}

impl MetricRef {
    fn with<R>(&self, f: impl FnOnce(&str, &MetricValue, &[Instance]) -> R) -> R {
        match self {
            MetricRef::Stored(data, index) => {
                let metric = &data.action.metrics()[*index];
                f(
                    data.action.metric_name(metric),
                    &metric.stored,
                    &metric.instances,
                )
            }
            MetricRef::Owned(owned) => {
                let owned = owned.borrow();
                f(&owned.name, &owned.stored, &owned.instances)
            }
        }
    }

    /// The value at `instance` (None = the metric's own value), as NVIDIA's reader gives it:
    /// a metric with only instances has the kind of its instances and value 0.
    fn value_at(&self, instance: Option<usize>, vm: &VirtualMachine) -> PyResult<MetricValue> {
        self.with(|name, stored, instances| match instance {
            None => Ok(match stored {
                MetricValue::None => match instances.first().map(|i| i.value.kind()) {
                    Some(ValueKind::Float) => MetricValue::Float(0.0),
                    Some(ValueKind::Double) => MetricValue::Double(0.0),
                    Some(ValueKind::Uint32) => MetricValue::Uint32(0),
                    Some(ValueKind::Uint64) => MetricValue::Uint64(0),
                    _ => MetricValue::None,
                },
                value => value.clone(),
            }),
            Some(i) => instances.get(i).map(|i| i.value.clone()).ok_or_else(|| {
                vm.new_index_error(format!(
                    "instance {i} out of range: metric {name} has {} instances",
                    instances.len()
                ))
            }),
        })
    }

    fn name(&self) -> String {
        self.with(|name, _, _| name.to_owned())
    }
}

fn instance_arg(arg: OptionalArg<PyObjectRef>, vm: &VirtualMachine) -> PyResult<Option<usize>> {
    match arg {
        OptionalArg::Missing => Ok(None),
        OptionalArg::Present(obj) if vm.is_none(&obj) => Ok(None),
        OptionalArg::Present(obj) => {
            let index = obj.try_index(vm)?;
            let index: i64 = index.try_to_primitive(vm)?;
            usize::try_from(index)
                .map(Some)
                .map_err(|_| vm.new_index_error(format!("negative instance index {index}")))
        }
    }
}

fn kind_code(kind: ValueKind) -> i64 {
    match kind {
        ValueKind::Unknown => value_kind::UNKNOWN,
        ValueKind::Any => value_kind::ANY,
        ValueKind::String => value_kind::STRING,
        ValueKind::Float => value_kind::FLOAT,
        ValueKind::Double => value_kind::DOUBLE,
        ValueKind::Uint32 => value_kind::UINT32,
        ValueKind::Uint64 => value_kind::UINT64,
    }
}

fn to_python(value: &MetricValue, vm: &VirtualMachine) -> PyObjectRef {
    match value {
        MetricValue::None => vm.ctx.none(),
        MetricValue::String(s) => vm.ctx.new_str(s.as_str()).into(),
        MetricValue::Float(v) => vm.ctx.new_float(f64::from(*v)).into(),
        MetricValue::Double(v) => vm.ctx.new_float(*v).into(),
        MetricValue::Uint32(v) => vm.ctx.new_int(*v).into(),
        MetricValue::Uint64(v) => vm.ctx.new_int(*v).into(),
    }
}

/// `IMetric.metric_type()` inferred from the name's structure (units and types are not stored
/// in reports).
fn infer_metric_type(name: &str) -> i64 {
    if name.contains(".pct_of_peak") || name.contains(".ratio") || name.ends_with(".pct") {
        metric_type::RATIO
    } else if name.contains("throughput") {
        metric_type::THROUGHPUT
    } else if name.ends_with(".sum")
        || name.ends_with(".avg")
        || name.ends_with(".max")
        || name.ends_with(".min")
        || name.contains(".sum.")
        || name.contains(".avg.")
    {
        metric_type::COUNTER
    } else {
        metric_type::OTHER
    }
}

fn infer_subtype(name: &str) -> i64 {
    const SUBTYPES: &[(&str, i64)] = &[
        (
            ".peak_sustained_active.per_second",
            metric_subtype::PEAK_SUSTAINED_ACTIVE_PER_SECOND,
        ),
        (
            ".peak_sustained_elapsed.per_second",
            metric_subtype::PEAK_SUSTAINED_ELAPSED_PER_SECOND,
        ),
        (
            ".peak_sustained_active",
            metric_subtype::PEAK_SUSTAINED_ACTIVE,
        ),
        (
            ".peak_sustained_elapsed",
            metric_subtype::PEAK_SUSTAINED_ELAPSED,
        ),
        (".peak_sustained", metric_subtype::PEAK_SUSTAINED),
        (".per_cycle_active", metric_subtype::PER_CYCLE_ACTIVE),
        (".per_cycle_elapsed", metric_subtype::PER_CYCLE_ELAPSED),
        (".per_second", metric_subtype::PER_SECOND),
        (
            ".pct_of_peak_sustained_active",
            metric_subtype::PCT_OF_PEAK_SUSTAINED_ACTIVE,
        ),
        (
            ".pct_of_peak_sustained_elapsed",
            metric_subtype::PCT_OF_PEAK_SUSTAINED_ELAPSED,
        ),
        (".max_rate", metric_subtype::MAX_RATE),
        (".pct", metric_subtype::PCT),
        (".ratio", metric_subtype::RATIO),
    ];
    SUBTYPES
        .iter()
        .find(|(suffix, _)| name.ends_with(suffix))
        .map_or(metric_subtype::NONE, |(_, code)| *code)
}

fn infer_rollup(name: &str) -> i64 {
    let base = name.split('.').nth(1).unwrap_or("");
    match base {
        "sum" => rollup::SUM,
        "avg" => rollup::AVG,
        "max" => rollup::MAX,
        "min" => rollup::MIN,
        _ => rollup::NONE,
    }
}

/// `NvRules.IMetric`: a read-only metric.
#[pyclass(module = "NvRules", name = "IMetric")]
#[derive(Debug, PyPayload)]
pub struct IMetric {
    pub(crate) inner: MetricRef,
}

impl IMetric {
    /// The value at the `instance` argument (none: the metric's own value).
    fn value_arg(
        &self,
        instance: OptionalArg<PyObjectRef>,
        vm: &VirtualMachine,
    ) -> PyResult<MetricValue> {
        let instance = instance_arg(instance, vm)?;
        self.inner.value_at(instance, vm)
    }
}

/// A metric `NAME:correlation_ids` whose instances are the correlation ids of `instances`
/// (0 where one has none).
fn correlation_metric(name: &str, instances: &[Instance]) -> OwnedMetric {
    OwnedMetric {
        name: format!("{name}:correlation_ids"),
        stored: MetricValue::None,
        instances: instances
            .iter()
            .map(|i| Instance {
                correlation_id: None,
                value: i.correlation_id.clone().unwrap_or(MetricValue::Uint64(0)),
            })
            .collect(),
    }
}

/// A Python int for a code, or `None` for the code that means none.
fn code_or_none(code: i64, none: i64, vm: &VirtualMachine) -> PyObjectRef {
    if code == none {
        vm.ctx.none()
    } else {
        vm.ctx.new_int(code).into()
    }
}

#[pyclass(flags(BASETYPE))]
impl IMetric {
    #[pymethod]
    #[pymethod(name = "__str__")]
    fn name(&self) -> String {
        self.inner.name()
    }

    #[pymethod]
    fn kind(&self, instance: OptionalArg<PyObjectRef>, vm: &VirtualMachine) -> PyResult<i64> {
        Ok(kind_code(self.value_arg(instance, vm)?.kind()))
    }

    #[pymethod]
    fn value(&self, instance: OptionalArg<PyObjectRef>, vm: &VirtualMachine) -> PyResult {
        Ok(to_python(&self.value_arg(instance, vm)?, vm))
    }

    #[pymethod]
    fn as_double(&self, instance: OptionalArg<PyObjectRef>, vm: &VirtualMachine) -> PyResult<f64> {
        Ok(self.value_arg(instance, vm)?.as_f64().unwrap_or(0.0))
    }

    #[pymethod]
    fn as_uint64(&self, instance: OptionalArg<PyObjectRef>, vm: &VirtualMachine) -> PyResult<u64> {
        Ok(self.value_arg(instance, vm)?.as_u64().unwrap_or(0))
    }

    #[pymethod]
    fn as_string(&self, instance: OptionalArg<PyObjectRef>, vm: &VirtualMachine) -> PyResult {
        Ok(match self.value_arg(instance, vm)? {
            MetricValue::String(s) => vm.ctx.new_str(s).into(),
            _ => vm.ctx.none(),
        })
    }

    #[pymethod]
    fn has_value(&self, kind: OptionalArg<PyObjectRef>, vm: &VirtualMachine) -> PyResult<bool> {
        let value = self.inner.value_at(None, vm)?;
        let has = !matches!(value, MetricValue::None);
        match kind {
            OptionalArg::Present(kind) => {
                let kind: i64 = kind.try_index(vm)?.try_to_primitive(vm)?;
                Ok(has && (kind == value_kind::ANY || kind == kind_code(value.kind())))
            }
            OptionalArg::Missing => Ok(has),
        }
    }

    #[pymethod]
    fn num_instances(&self) -> usize {
        self.inner.with(|_, _, instances| instances.len())
    }

    #[pymethod]
    fn has_correlation_ids(&self) -> bool {
        self.inner
            .with(|_, _, instances| instances.iter().any(|i| i.correlation_id.is_some()))
    }

    #[pymethod]
    fn correlation_ids(&self) -> IMetric {
        let owned = self
            .inner
            .with(|name, _, instances| correlation_metric(name, instances));
        IMetric {
            inner: MetricRef::Owned(Rc::new(RefCell::new(owned))),
        }
    }

    #[pymethod]
    fn unit(&self) -> String {
        self.inner
            .with(|name, _, _| sightline_model::ncu::infer_unit(name).into_owned())
    }

    /// Descriptions live in NVIDIA's metric library, not in reports: always empty.
    #[pymethod]
    fn description(&self) -> String {
        String::new()
    }

    #[pymethod]
    fn metric_type(&self) -> i64 {
        self.inner.with(|name, _, _| infer_metric_type(name))
    }

    #[pymethod]
    fn metric_subtype(&self, vm: &VirtualMachine) -> PyObjectRef {
        let code = self.inner.with(|name, _, _| infer_subtype(name));
        code_or_none(code, metric_subtype::NONE, vm)
    }

    #[pymethod]
    fn rollup_operation(&self, vm: &VirtualMachine) -> PyObjectRef {
        let code = self.inner.with(|name, _, _| infer_rollup(name));
        code_or_none(code, rollup::NONE, vm)
    }
}

/// `NvRules.IMutableMetric`: a metric a rule added to an action; a subclass of `IMetric` with
/// setters.
#[pyclass(module = "NvRules", name = "IMutableMetric", base = IMetric)]
#[repr(transparent)]
#[derive(Debug)]
pub struct IMutableMetric(IMetric);

impl IMutableMetric {
    pub(crate) fn new(owned: Rc<RefCell<OwnedMetric>>) -> Self {
        IMutableMetric(IMetric {
            inner: MetricRef::Owned(owned),
        })
    }

    fn owned(&self, vm: &VirtualMachine) -> PyResult<&Rc<RefCell<OwnedMetric>>> {
        match &self.0.inner {
            MetricRef::Owned(owned) => Ok(owned),
            MetricRef::Stored(..) => Err(vm.new_type_error("this metric is read-only")),
        }
    }

    fn store(
        &self,
        instance: Option<usize>,
        value: MetricValue,
        vm: &VirtualMachine,
    ) -> PyResult<bool> {
        let mut owned = self.owned(vm)?.borrow_mut();
        match instance {
            None => owned.stored = value,
            Some(i) => {
                if owned.instances.len() <= i {
                    owned.instances.resize_with(i + 1, Instance::default);
                }
                owned.instances[i].value = value;
            }
        }
        Ok(true)
    }
}

/// Reads `set_*` arguments: `(value)`, `(value_kind, value)` or `(value_kind, instance, value)`.
fn set_args(args: Vec<PyObjectRef>, vm: &VirtualMachine) -> PyResult<(Option<usize>, PyObjectRef)> {
    let index = match args.len() {
        1 | 2 => None,
        3 => {
            let index: i64 = args[1].try_index(vm)?.try_to_primitive(vm)?;
            let index = usize::try_from(index)
                .map_err(|_| vm.new_index_error(format!("negative instance index {index}")))?;
            Some(index)
        }
        n => return Err(vm.new_type_error(format!("expected 1 to 3 arguments, got {n}"))),
    };
    // The value is the last argument.
    match args.into_iter().next_back() {
        Some(value) => Ok((index, value)),
        None => Err(vm.new_type_error("expected 1 to 3 arguments, got 0")),
    }
}

#[pyclass]
impl IMutableMetric {
    #[pymethod]
    fn set_double(&self, args: PosArgs<PyObjectRef>, vm: &VirtualMachine) -> PyResult<bool> {
        let (instance, value) = set_args(args.into_vec(), vm)?;
        let value = value.try_float(vm)?.to_f64();
        self.store(instance, MetricValue::Double(value), vm)
    }

    #[pymethod]
    fn set_uint64(&self, args: PosArgs<PyObjectRef>, vm: &VirtualMachine) -> PyResult<bool> {
        let (instance, value) = set_args(args.into_vec(), vm)?;
        let value: u64 = value.try_index(vm)?.try_to_primitive(vm)?;
        self.store(instance, MetricValue::Uint64(value), vm)
    }

    #[pymethod]
    fn set_string(&self, args: PosArgs<PyObjectRef>, vm: &VirtualMachine) -> PyResult<bool> {
        let (instance, value) = set_args(args.into_vec(), vm)?;
        let value: String = value.try_into_value(vm)?;
        self.store(instance, MetricValue::String(value), vm)
    }

    /// The correlation ids as a mutable metric of their own.
    #[pymethod]
    fn mutable_correlation_ids(&self, vm: &VirtualMachine) -> PyResult<IMutableMetric> {
        let owned = self.owned(vm)?.borrow();
        let ids = correlation_metric(&owned.name, &owned.instances);
        Ok(IMutableMetric::new(Rc::new(RefCell::new(ids))))
    }
}
