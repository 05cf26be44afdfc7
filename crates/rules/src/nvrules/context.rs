//! `IContext` and `IRange`: what a rule sees of the report (one range holding the action the
//! rule is applied to, as in NVIDIA's rule system).

use std::rc::Rc;

use rustpython_vm::builtins::{PyInt, PySlice};
use rustpython_vm::protocol::{PyMappingMethods, PySequenceMethods};
use rustpython_vm::types::{AsMapping, AsSequence, Iterable};
use rustpython_vm::{
    AsObject, PyObjectRef, PyPayload, PyRef, PyResult, VirtualMachine, atomic_func, pyclass,
};

use super::action::{ActionData, IAction};
use super::controller::IController;
use super::frontend::IFrontend;
use crate::nvtx_filter;

/// The API level Sightline's NvRules module implements (`get_version`).
pub const NVRULES_VERSION: &str = "2025.3.1";

/// `AsMapping`, `AsSequence` and `Iterable` for a Python container of one item, `zelf.$item(vm)`
/// (an `IContext` holds its range, an `IRange` its action): `len()` is 1, `[0]`, `[-1]` and
/// slices index it, iterating yields it.
macro_rules! one_item_container {
    ($ty:ident, $item:ident) => {
        impl AsMapping for $ty {
            fn as_mapping() -> &'static PyMappingMethods {
                static AS_MAPPING: PyMappingMethods = PyMappingMethods {
                    length: atomic_func!(|_mapping, _vm| Ok(1)),
                    subscript: atomic_func!(|mapping, needle, vm| {
                        let zelf = $ty::mapping_downcast(mapping);
                        index_items(
                            stringify!($ty),
                            1,
                            &needle.to_owned(),
                            |_| zelf.$item(vm),
                            vm,
                        )
                    }),
                    ass_subscript: None,
                };
                &AS_MAPPING
            }
        }

        impl AsSequence for $ty {
            fn as_sequence() -> &'static PySequenceMethods {
                static AS_SEQUENCE: PySequenceMethods = PySequenceMethods {
                    length: atomic_func!(|_seq, _vm| Ok(1)),
                    ..PySequenceMethods::NOT_IMPLEMENTED
                };
                &AS_SEQUENCE
            }
        }

        impl Iterable for $ty {
            fn iter(zelf: PyRef<Self>, vm: &VirtualMachine) -> PyResult {
                iter_list(vec![zelf.$item(vm)], vm)
            }
        }
    };
}

/// A Python iterator over a new list of `items`.
pub(crate) fn iter_list(items: Vec<PyObjectRef>, vm: &VirtualMachine) -> PyResult {
    vm.ctx
        .new_list(items)
        .as_object()
        .get_iter(vm)
        .map(Into::into)
}

/// `obj[key]` for an object with `len` items made by `item(i)`: ints (negative from the end)
/// and slices (a tuple), as NVIDIA's `__getitem__` helpers do.
fn index_items(
    what: &str,
    len: usize,
    key: &PyObjectRef,
    item: impl Fn(usize) -> PyObjectRef,
    vm: &VirtualMachine,
) -> PyResult {
    if let Some(index) = key.downcast_ref::<PyInt>() {
        let index: i64 = index.try_to_primitive(vm)?;
        let len_i = len as i64;
        if index < -len_i || index >= len_i {
            return Err(vm.new_index_error(format!("{what} index out of range")));
        }
        let index = if index < 0 { index + len_i } else { index };
        return Ok(item(index as usize));
    }
    if key.downcast_ref::<PySlice>().is_some() {
        let indices = vm.call_method(key, "indices", (len,))?;
        let parts: Vec<i64> = vm.extract_elements_with(&indices, |v| v.try_into_value(vm))?;
        let [start, stop, step] = parts[..] else {
            return Err(vm.new_type_error("slice.indices() did not return three integers"));
        };
        let mut out = Vec::new();
        let mut i = start;
        while (step > 0 && i < stop) || (step < 0 && i > stop) {
            out.push(item(i as usize));
            i += step;
        }
        return Ok(vm.ctx.new_tuple(out).into());
    }
    Err(vm.new_type_error(format!(
        "{what} indices must be integers or slices, not {}",
        key.class().name()
    )))
}

/// `NvRules.IRange`: the range of the action a rule runs on.
#[pyclass(module = "NvRules", name = "IRange")]
#[derive(Debug, PyPayload)]
pub struct IRange {
    pub(crate) action: Rc<ActionData>,
}

impl IRange {
    fn action_object(&self, vm: &VirtualMachine) -> PyObjectRef {
        IAction {
            data: self.action.clone(),
        }
        .into_pyobject(vm)
    }
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "Python calls these: RustPython hands a #[pymethod] its arguments owned"
)]
#[pyclass(with(AsMapping, AsSequence, Iterable))]
impl IRange {
    #[pymethod]
    fn num_actions(&self) -> usize {
        1
    }

    #[pymethod]
    fn action_by_idx(&self, index: i64, vm: &VirtualMachine) -> Option<PyObjectRef> {
        (index == 0).then(|| self.action_object(vm))
    }

    /// Indices of the actions whose NVTX state passes `includes` and no `excludes`.
    #[pymethod]
    fn actions_by_nvtx(
        &self,
        includes: PyObjectRef,
        excludes: PyObjectRef,
        vm: &VirtualMachine,
    ) -> PyResult<PyObjectRef> {
        let strings = |obj: &PyObjectRef| -> PyResult<Vec<String>> {
            vm.extract_elements_with(obj, |s| Ok(s.str(vm)?.to_string_lossy().into_owned()))
        };
        let includes = strings(&includes)?;
        let excludes = strings(&excludes)?;
        let domains = match self.action.action.nvtx() {
            Some(state) => nvtx_filter::domains_of(state, self.action.action.thread_id()),
            None => Vec::new(),
        };
        let selected = nvtx_filter::select(&includes, &excludes, &domains)
            .map_err(|e| vm.new_value_error(e.to_string()))?;
        let indices = if selected {
            vec![vm.ctx.new_int(0).into()]
        } else {
            Vec::new()
        };
        Ok(vm.ctx.new_list(indices).into())
    }
}

one_item_container!(IRange, action_object);

/// `NvRules.IContext`: the entry point a rule gets from `get_context(handle)`.
#[pyclass(module = "NvRules", name = "IContext")]
#[derive(Debug, PyPayload)]
pub struct IContext {
    pub(crate) action: Rc<ActionData>,
    pub(crate) frontend: PyObjectRef,
    pub(crate) controller: PyRef<IController>,
}

impl IContext {
    /// A context for one rule run.
    pub(crate) fn new(
        action: Rc<ActionData>,
        frontend: IFrontend,
        controller: PyRef<IController>,
        vm: &VirtualMachine,
    ) -> IContext {
        IContext {
            action,
            frontend: frontend.into_pyobject(vm),
            controller,
        }
    }

    fn range_object(&self, vm: &VirtualMachine) -> PyObjectRef {
        IRange {
            action: self.action.clone(),
        }
        .into_pyobject(vm)
    }
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "Python calls these: RustPython hands a #[pymethod] its arguments owned"
)]
#[pyclass(with(AsMapping, AsSequence, Iterable))]
impl IContext {
    #[pymethod]
    fn frontend(&self) -> PyObjectRef {
        self.frontend.clone()
    }

    #[pymethod]
    fn controller(&self) -> PyRef<IController> {
        self.controller.clone()
    }

    #[pymethod]
    fn num_ranges(&self) -> usize {
        1
    }

    #[pymethod]
    fn range_by_idx(&self, index: i64, vm: &VirtualMachine) -> Option<PyObjectRef> {
        (index == 0).then(|| self.range_object(vm))
    }

    #[pymethod]
    fn get_version(&self) -> &'static str {
        NVRULES_VERSION
    }

    /// Reports an error of the rule: raises it as a Python exception, which ends the rule.
    #[pymethod]
    fn handle_exception(&self, message: PyObjectRef, vm: &VirtualMachine) -> PyResult<()> {
        Err(vm.new_runtime_error(message.str(vm)?.to_string_lossy().into_owned()))
    }
}

one_item_container!(IContext, range_object);
