//! `IMetric` and `IMutableMetric`: a metric's value, instances and correlation ids.

use std::cell::RefCell;
use std::rc::Rc;

use rustpython_vm::function::{OptionalArg, PosArgs};
use rustpython_vm::{PyObjectRef, PyPayload, PyResult, VirtualMachine, pyclass};

use super::action::ActionData;
use super::consts::{metric_subtype, rollup, value_kind};
use sightline_model::ncu::nvrules::{self, kind_code};
use sightline_model::ncu::{Instance, MetricValue};

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
        self.with(|name, stored, instances| {
            nvrules::value_at(stored, instances, instance).ok_or_else(|| {
                vm.new_index_error(format!(
                    "instance {} out of range: metric {name} has {} instances",
                    instance.unwrap_or(0),
                    instances.len()
                ))
            })
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

/// `NvRules.IMetric`: a read-only metric.
#[pyclass(module = "NvRules", name = "IMetric")]
#[derive(Debug, PyPayload)]
pub struct IMetric {
    pub(crate) inner: MetricRef,
}

impl IMetric {
    /// Checks `instance` is in range (the error `value_at` gives).
    fn value_arg_checked(&self, instance: Option<usize>, vm: &VirtualMachine) -> PyResult<()> {
        self.inner.value_at(instance, vm).map(drop)
    }

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
        instances: nvrules::correlation_instances(instances),
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
        let instance = instance_arg(instance, vm)?;
        // The kind of a metric with only string instances is theirs, though it has no value.
        self.value_arg_checked(instance, vm)?;
        Ok(self
            .inner
            .with(|_, stored, instances| nvrules::kind_at(stored, instances, instance))
            .map_or(0, kind_code))
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
        self.inner
            .with(|name, _, _| nvrules::infer_metric_type(name))
    }

    #[pymethod]
    fn metric_subtype(&self, vm: &VirtualMachine) -> PyObjectRef {
        let code = self.inner.with(|name, _, _| nvrules::infer_subtype(name));
        code_or_none(code, metric_subtype::NONE, vm)
    }

    #[pymethod]
    fn rollup_operation(&self, vm: &VirtualMachine) -> PyObjectRef {
        let code = self.inner.with(|name, _, _| nvrules::infer_rollup(name));
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
