//! The `NvRules` Python module, implemented in Rust: the API NVIDIA's rule files call.
//!
//! Rules receive an integer handle; `get_context(handle)` / `get_evaluator(handle)` look it up in
//! a per-thread registry the engine fills before each call. One file per concept: `metric`,
//! `action`, `context` (IContext, IRange), `frontend`, `controller` (IController, IMessageVault,
//! IEvaluator), `nvtx`, `stored` (the rule results and source markers stored in the report);
//! `consts` holds the enum values; `surface.py` adds the names that are plain Python in NVIDIA's
//! module (`IBaseContext`, table data classes, std-container names, 2024.1's helpers).

pub(crate) mod action;
pub(crate) mod consts;
pub(crate) mod context;
pub(crate) mod controller;
pub(crate) mod frontend;
pub(crate) mod metric;
pub(crate) mod nvtx;
pub(crate) mod stored;
pub(crate) mod table;

use std::cell::RefCell;
use std::collections::HashMap;

use rustpython_vm::PyObjectRef;

pub use context::NVRULES_VERSION;
pub use controller::Requirements;

/// What a handle stands for.
#[derive(Debug, Clone)]
pub(crate) enum HandleTarget {
    /// An `IContext` (during `apply`).
    Context(PyObjectRef),
    /// An `IEvaluator` (during `evaluate`).
    Evaluator(PyObjectRef),
}

thread_local! {
    static HANDLES: RefCell<(u64, HashMap<u64, HandleTarget>)> = RefCell::new((0, HashMap::new()));
}

/// Registers `target` and returns its handle.
pub(crate) fn register_handle(target: HandleTarget) -> u64 {
    HANDLES.with(|h| {
        let mut h = h.borrow_mut();
        h.0 += 1;
        let id = h.0;
        h.1.insert(id, target);
        id
    })
}

/// Forgets a handle.
pub(crate) fn release_handle(id: u64) {
    HANDLES.with(|h| {
        h.borrow_mut().1.remove(&id);
    });
}

fn lookup(id: u64) -> Option<HandleTarget> {
    HANDLES.with(|h| h.borrow().1.get(&id).cloned())
}

pub(crate) use nvrules_module::module_def;

#[expect(
    clippy::needless_pass_by_value,
    reason = "Python calls these: RustPython hands a #[pyfunction] its arguments owned"
)]
#[rustpython_vm::pymodule(name = "NvRules")]
#[allow(non_snake_case)]
mod nvrules_module {
    use rustpython_vm::builtins::PyModule;
    use rustpython_vm::class::PyClassImpl;
    use rustpython_vm::{Py, PyObjectRef, PyResult, VirtualMachine};

    use super::{HandleTarget, lookup};

    fn handle_id(handle: &PyObjectRef, vm: &VirtualMachine) -> PyResult<u64> {
        handle
            .try_index(vm)
            .and_then(|i| i.try_to_primitive::<u64>(vm))
            .map_err(|_| vm.new_type_error("an NvRules handle must be an integer"))
    }

    fn context_of(handle: &PyObjectRef, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
        match lookup(handle_id(handle, vm)?) {
            Some(HandleTarget::Context(ctx)) => Ok(ctx),
            Some(HandleTarget::Evaluator(_)) => Err(
                vm.new_value_error("this handle belongs to evaluate(); use get_evaluator(handle)")
            ),
            None => Err(vm.new_value_error("invalid NvRules handle")),
        }
    }

    fn evaluator_of(handle: &PyObjectRef, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
        match lookup(handle_id(handle, vm)?) {
            Some(HandleTarget::Evaluator(ev)) => Ok(ev),
            Some(HandleTarget::Context(_)) => {
                Err(vm.new_value_error("this handle belongs to apply(); use get_context(handle)"))
            }
            None => Err(vm.new_value_error("invalid NvRules handle")),
        }
    }

    #[pyfunction]
    fn get_context(handle: PyObjectRef, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
        context_of(&handle, vm)
    }

    #[pyfunction]
    fn get_evaluator(handle: PyObjectRef, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
        evaluator_of(&handle, vm)
    }

    #[pyfunction]
    fn get_version(handle: PyObjectRef, vm: &VirtualMachine) -> PyResult<&'static str> {
        handle_id(&handle, vm)?;
        Ok(super::NVRULES_VERSION)
    }

    /// Ends the rule with an error carrying `message`.
    #[pyfunction]
    fn raise_exception(
        handle: PyObjectRef,
        message: PyObjectRef,
        vm: &VirtualMachine,
    ) -> PyResult<()> {
        handle_id(&handle, vm)?;
        Err(vm.new_runtime_error(message.str(vm)?.to_string_lossy().into_owned()))
    }

    #[pyfunction]
    fn require_metrics(
        handle: PyObjectRef,
        metrics: PyObjectRef,
        vm: &VirtualMachine,
    ) -> PyResult<()> {
        let evaluator = evaluator_of(&handle, vm)?;
        for metric in vm.extract_elements_with(&metrics, |m| m.try_into_value::<String>(vm))? {
            vm.call_method(&evaluator, "require_metric", (metric,))?;
        }
        Ok(())
    }

    #[pyfunction]
    fn require_rules(handle: PyObjectRef, rules: PyObjectRef, vm: &VirtualMachine) -> PyResult<()> {
        let evaluator = evaluator_of(&handle, vm)?;
        for rule in vm.extract_elements_with(&rules, |r| r.try_into_value::<String>(vm))? {
            vm.call_method(&evaluator, "require_rule", (rule,))?;
        }
        Ok(())
    }

    /// Instances of a metric as a tuple of values (`IMetric.value(i)` for every instance).
    #[pyfunction]
    fn metric_instances(metric: PyObjectRef, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
        let count: usize = vm
            .call_method(&metric, "num_instances", ())?
            .try_into_value(vm)?;
        let mut values = Vec::with_capacity(count);
        for i in 0..count {
            values.push(vm.call_method(&metric, "value", (i,))?);
        }
        Ok(vm.ctx.new_tuple(values).into())
    }

    pub(crate) fn module_exec(vm: &VirtualMachine, module: &Py<PyModule>) -> PyResult<()> {
        __module_exec(vm, module);
        use super::{action, context, controller, frontend, metric, nvtx, stored};
        let classes = [
            ("IMetric", metric::IMetric::make_static_type()),
            ("IMutableMetric", metric::IMutableMetric::make_static_type()),
            ("IAction", action::IAction::make_static_type()),
            ("IRange", context::IRange::make_static_type()),
            ("IContext", context::IContext::make_static_type()),
            ("IFrontend", frontend::IFrontend::make_static_type()),
            ("IController", controller::IController::make_static_type()),
            (
                "IMessageVault",
                controller::IMessageVault::make_static_type(),
            ),
            ("IEvaluator", controller::IEvaluator::make_static_type()),
            ("INvtxState", nvtx::INvtxState::make_static_type()),
            ("INvtxDomainInfo", nvtx::INvtxDomainInfo::make_static_type()),
            ("INvtxRange", nvtx::INvtxRange::make_static_type()),
            ("IRuleResult", stored::IRuleResult::make_static_type()),
            ("ISourceInfo", stored::ISourceInfo::make_static_type()),
            ("SourceMarker", stored::SourceMarker::make_static_type()),
        ];
        for (class_name, attr, value) in super::consts::class_constants() {
            if let Some((_, class)) = classes.iter().find(|(n, _)| *n == class_name) {
                class.set_attr(
                    vm.ctx.intern_str(attr.as_str()),
                    vm.ctx.new_int(value).into(),
                );
            }
        }
        // The old constant names that 2025.3 deprecates, with their replacements.
        let deprecated = vm.ctx.new_dict();
        for (old, new) in super::consts::DEPRECATED_FRONTEND_CONSTANTS {
            deprecated.set_item(old, vm.ctx.new_str(new).into(), vm)?;
        }
        if let Some((_, frontend)) = classes.iter().find(|(n, _)| *n == "IFrontend") {
            frontend.set_attr(
                vm.ctx.intern_str("deprecated_attributes"),
                deprecated.into(),
            );
        }
        for (name, class) in classes {
            module.set_attr(name, class.to_owned(), vm)?;
        }
        // The newer enum spellings (`NvRules.MsgType.WARNING`, `NvRules.MarkerKind.SASS`).
        let int_enum = vm.import("enum", 0)?.get_attr("IntEnum", vm)?;
        let make_enum = |name: &str, members: &[(&str, i64)]| -> PyResult<PyObjectRef> {
            let members: Vec<PyObjectRef> = members
                .iter()
                .map(|(n, v)| {
                    vm.ctx
                        .new_tuple(vec![vm.ctx.new_str(*n).into(), vm.ctx.new_int(*v).into()])
                        .into()
                })
                .collect();
            let enum_class = int_enum.call((name, vm.ctx.new_list(members)), vm)?;
            enum_class.set_attr("__module__", vm.ctx.new_str("NvRules"), vm)?;
            Ok(enum_class)
        };
        module.set_attr(
            "MsgType",
            make_enum("MsgType", &super::consts::msg_types())?,
            vm,
        )?;
        let marker_kinds = super::consts::marker_kind::ALL;
        module.set_attr("MarkerKind", make_enum("MarkerKind", marker_kinds)?, vm)?;
        // The names that are plain Python in NVIDIA's module (surface.py).
        let scope = rustpython_vm::scope::Scope::with_builtins(None, module.dict(), vm);
        vm.run_string(scope, SURFACE_PY, "<NvRules surface>".to_owned())?;
        Ok(())
    }

    /// The Python part of the module: see `surface.py`.
    const SURFACE_PY: &str = include_str!("surface.py");
}
