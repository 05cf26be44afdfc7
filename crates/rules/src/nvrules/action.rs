//! `IAction`: one profiled workload (kernel, range, command list, graph) and its metrics.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use rustpython_vm::builtins::PyStr;
use rustpython_vm::function::OptionalArg;
use rustpython_vm::protocol::{PyMappingMethods, PySequenceMethods};
use rustpython_vm::types::{AsMapping, AsSequence, Iterable};
use rustpython_vm::{
    AsObject, PyObject, PyObjectRef, PyPayload, PyRef, PyResult, VirtualMachine, atomic_func,
    pyclass,
};

use super::consts::name_base;
use super::metric::{IMetric, IMutableMetric, MetricRef, OwnedMetric};
use super::nvtx::INvtxState;
use super::stored::{IRuleResult, ISourceInfo, SourceMarker};
use sightline_model::ncu::source::SourceModule;
use sightline_model::ncu::source::nvdisasm::{self, Disassembly, NvdisasmOptions};
use sightline_model::ncu::{Action, MetricValue, NameBase, Report, nvrules};

/// The data behind an `IAction`: the decoded action, the report it came from and the metrics
/// rules added to it.
#[derive(Debug)]
pub(crate) struct ActionData {
    pub action: Action,
    pub report: Arc<Report>,
    pub added: RefCell<Vec<(String, Rc<RefCell<OwnedMetric>>)>>,
    names_cache: RefCell<Option<PyObjectRef>>,
    /// The kernel's cubin, line tables and PTX, read on the first source question.
    source: std::cell::OnceCell<Option<SourceModule>>,
    /// How to get SASS text (`None`: `sass_by_pc` gives empty strings).
    nvdisasm: Option<NvdisasmOptions>,
    /// Disassembled functions by load PC (`None`: nvdisasm missing or failed).
    sass: RefCell<std::collections::HashMap<u64, Option<Disassembly>>>,
}

impl ActionData {
    pub(crate) fn new(
        action: Action,
        report: Arc<Report>,
        nvdisasm: Option<NvdisasmOptions>,
    ) -> Rc<ActionData> {
        Rc::new(ActionData {
            action,
            report,
            added: RefCell::default(),
            names_cache: RefCell::default(),
            source: std::cell::OnceCell::new(),
            nvdisasm,
            sass: RefCell::default(),
        })
    }

    /// The SASS text at `pc` (NVIDIA's layout), disassembling its function on first use.
    fn sass(&self, pc: u64) -> String {
        let (Some(options), Some(module)) = (&self.nvdisasm, self.source()) else {
            return String::new();
        };
        let Some(function) = module.function_at(pc) else {
            return String::new();
        };
        let Some(base) = function.load_pc else {
            return String::new();
        };
        let mut cache = self.sass.borrow_mut();
        let disassembly = cache
            .entry(base)
            .or_insert_with(|| nvdisasm::disassemble_for_reader(module, function, options));
        disassembly
            .as_ref()
            .and_then(|d| d.text(pc))
            .map(str::to_owned)
            .unwrap_or_default()
    }

    /// The source module of a kernel action (`None` for other workloads).
    fn source(&self) -> Option<&SourceModule> {
        self.source
            .get_or_init(|| SourceModule::for_action(&self.report, &self.action).ok())
            .as_ref()
    }

    fn stored_index(&self, name: &str) -> Option<usize> {
        self.action.metric_index(name)
    }

    fn lookup(self: &Rc<Self>, name: &str) -> Option<MetricRef> {
        if let Some((_, owned)) = self.added.borrow().iter().rev().find(|(n, _)| n == name) {
            return Some(MetricRef::Owned(owned.clone()));
        }
        self.stored_index(name)
            .map(|index| MetricRef::Stored(self.clone(), index))
    }

    fn names(&self, vm: &VirtualMachine) -> PyObjectRef {
        if let Some(cached) = &*self.names_cache.borrow() {
            return cached.clone();
        }
        let mut names: Vec<String> = self.action.metric_names().map(str::to_owned).collect();
        for (name, _) in self.added.borrow().iter() {
            if let Err(pos) = names.binary_search(name) {
                names.insert(pos, name.clone());
            }
        }
        let tuple: PyObjectRef = vm
            .ctx
            .new_tuple(
                names
                    .into_iter()
                    .map(|n| vm.ctx.new_str(n).into())
                    .collect(),
            )
            .into();
        *self.names_cache.borrow_mut() = Some(tuple.clone());
        tuple
    }

    fn add(&self, name: &str, value: MetricValue) -> Rc<RefCell<OwnedMetric>> {
        let owned = Rc::new(RefCell::new(OwnedMetric {
            name: name.to_owned(),
            stored: value,
            instances: Vec::new(),
        }));
        self.added
            .borrow_mut()
            .push((name.to_owned(), owned.clone()));
        *self.names_cache.borrow_mut() = None;
        owned
    }
}

/// `NvRules.IAction`.
#[pyclass(module = "NvRules", name = "IAction")]
#[derive(Debug, PyPayload)]
pub struct IAction {
    pub(crate) data: Rc<ActionData>,
}

/// A Python list of the given objects.
fn py_list<T: PyPayload + std::fmt::Debug>(items: Vec<T>, vm: &VirtualMachine) -> PyObjectRef {
    let objects = items.into_iter().map(|i| i.into_pyobject(vm)).collect();
    vm.ctx.new_list(objects).into()
}

fn value_arg(value: &PyObject, kind: i64, vm: &VirtualMachine) -> PyResult<MetricValue> {
    use super::consts::value_kind as k;
    Ok(match kind {
        k::STRING => MetricValue::String(value.str(vm)?.to_string_lossy().into_owned()),
        k::FLOAT => MetricValue::Float(value.try_float(vm)?.to_f64() as f32),
        k::DOUBLE => MetricValue::Double(value.try_float(vm)?.to_f64()),
        k::UINT32 => MetricValue::Uint32(value.try_index(vm)?.try_to_primitive(vm)?),
        k::UINT64 => MetricValue::Uint64(value.try_index(vm)?.try_to_primitive(vm)?),
        other => return Err(vm.new_value_error(format!("invalid value kind {other}"))),
    })
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "Python calls these: RustPython hands a #[pymethod] its arguments owned"
)]
#[pyclass(with(AsMapping, AsSequence, Iterable))]
impl IAction {
    #[pymethod]
    fn name(&self, base: OptionalArg<PyObjectRef>, vm: &VirtualMachine) -> PyResult<String> {
        let base = match base {
            OptionalArg::Present(b) => b.try_index(vm)?.try_to_primitive::<i64>(vm)?,
            OptionalArg::Missing => name_base::FUNCTION,
        };
        let base = nvrules::name_base_of(base)
            .ok_or_else(|| vm.new_value_error(format!("invalid name base {base}")))?;
        Ok(self.data.action.name(base).to_owned())
    }

    #[pymethod]
    fn workload_type(&self) -> i64 {
        nvrules::workload_code(self.data.action.kind())
    }

    #[pymethod]
    fn metric_by_name(&self, name: String) -> Option<IMetric> {
        self.data
            .lookup(name.as_str())
            .map(|inner| IMetric { inner })
    }

    #[pymethod]
    fn metric_names(&self, vm: &VirtualMachine) -> PyObjectRef {
        self.data.names(vm)
    }

    #[pymethod]
    fn add_metric(&self, name: String) -> IMutableMetric {
        IMutableMetric::new(self.data.add(name.as_str(), MetricValue::None))
    }

    /// `add_integer_metric`, `add_double_metric` and `add_string_metric` are one call: the
    /// value's type follows `kind`.
    #[pymethod]
    #[pymethod(name = "add_double_metric")]
    #[pymethod(name = "add_string_metric")]
    fn add_integer_metric(
        &self,
        name: String,
        kind: PyObjectRef,
        value: PyObjectRef,
        vm: &VirtualMachine,
    ) -> PyResult<IMutableMetric> {
        let kind: i64 = kind.try_index(vm)?.try_to_primitive(vm)?;
        let value = value_arg(&value, kind, vm)?;
        Ok(IMutableMetric::new(self.data.add(name.as_str(), value)))
    }

    /// Source correlation of a SASS address: the file and line of the first line-table row at
    /// the greatest address ≤ `address` (NVIDIA's rule), from the kernel's cubin. `None` for
    /// code built without line info, addresses outside the kernel's module, or other workloads.
    #[pymethod]
    fn source_info(
        &self,
        address: PyObjectRef,
        vm: &VirtualMachine,
    ) -> PyResult<Option<ISourceInfo>> {
        let pc: u64 = address.try_index(vm)?.try_to_primitive(vm)?;
        Ok(self
            .data
            .source()
            .and_then(|m| m.source_info(pc))
            .map(|f| ISourceInfo::new(f.file, u64::from(f.line))))
    }

    /// The source files of this workload: `{file name: content}`; files the line table names
    /// but the report did not import map to an empty string (as NVIDIA's API does).
    #[pymethod]
    fn source_files(&self, vm: &VirtualMachine) -> PyResult {
        let dict = vm.ctx.new_dict();
        if let Some(module) = self.data.source() {
            for file in module.source_files() {
                dict.set_item(
                    file.name.as_str(),
                    vm.ctx
                        .new_str(file.content.clone().unwrap_or_default())
                        .into(),
                    vm,
                )?;
            }
        }
        Ok(dict.into())
    }

    /// SASS text at an address, from NVIDIA's nvdisasm when the run's options enable it and
    /// it is installed (as NVIDIA's reader lays it out); an empty string otherwise.
    #[pymethod]
    fn sass_by_pc(&self, address: PyObjectRef, vm: &VirtualMachine) -> PyResult<String> {
        let pc: u64 = address.try_index(vm)?.try_to_primitive(vm)?;
        Ok(self.data.sass(pc))
    }

    /// PTX text of an address's line (`.nv_debug_line_sass` and `.nv_debug_ptx_txt` of the
    /// cubin); empty when the cubin carries no PTX line info.
    #[pymethod]
    fn ptx_by_pc(&self, address: PyObjectRef, vm: &VirtualMachine) -> PyResult<String> {
        let pc: u64 = address.try_index(vm)?.try_to_primitive(vm)?;
        Ok(self
            .data
            .source()
            .map(|m| m.ptx_by_pc(pc).to_owned())
            .unwrap_or_default())
    }

    /// The rule results stored in the report for this workload, one `IRuleResult` per message.
    #[pymethod]
    fn rule_results(&self, vm: &VirtualMachine) -> PyObjectRef {
        py_list(IRuleResult::all(self.data.action.rule_results()), vm)
    }

    /// The source markers stored in the report with this workload's rule results.
    #[pymethod]
    fn source_markers(&self, vm: &VirtualMachine) -> PyObjectRef {
        py_list(SourceMarker::all(self.data.action.rule_results()), vm)
    }

    #[pymethod]
    fn nvtx_state(&self) -> Option<INvtxState> {
        self.data.action.nvtx()?;
        Some(INvtxState::new(self.data.clone()))
    }

    #[pymethod(name = "__str__")]
    fn str_name(&self) -> String {
        self.data.action.name(NameBase::Function).to_owned()
    }
}

impl IAction {
    fn getitem(&self, key: &PyObjectRef, vm: &VirtualMachine) -> PyResult {
        let Some(name) = key.downcast_ref::<PyStr>() else {
            return Err(vm.new_type_error(format!(
                "IAction metric keys must be strings, not {}",
                key.class().name()
            )));
        };
        let name = name.to_string_lossy();
        match self.data.lookup(&name) {
            Some(inner) => Ok(IMetric { inner }.into_pyobject(vm)),
            None => {
                Err(vm.new_key_error(vm.ctx.new_str(format!("no metric named '{name}'")).into()))
            }
        }
    }

    fn len(&self, vm: &VirtualMachine) -> PyResult<usize> {
        self.data.names(vm).length(vm)
    }
}

impl AsMapping for IAction {
    fn as_mapping() -> &'static PyMappingMethods {
        static AS_MAPPING: PyMappingMethods = PyMappingMethods {
            length: atomic_func!(|mapping, vm| IAction::mapping_downcast(mapping).len(vm)),
            subscript: atomic_func!(|mapping, needle, vm| {
                IAction::mapping_downcast(mapping).getitem(&needle.to_owned(), vm)
            }),
            ass_subscript: None,
        };
        &AS_MAPPING
    }
}

impl AsSequence for IAction {
    fn as_sequence() -> &'static PySequenceMethods {
        static AS_SEQUENCE: PySequenceMethods = PySequenceMethods {
            length: atomic_func!(|seq, vm| IAction::sequence_downcast(seq).len(vm)),
            contains: atomic_func!(|seq, needle, _vm| {
                let zelf = IAction::sequence_downcast(seq);
                Ok(match needle.downcast_ref::<PyStr>() {
                    Some(name) => zelf.data.lookup(&name.to_string_lossy()).is_some(),
                    None => false,
                })
            }),
            ..PySequenceMethods::NOT_IMPLEMENTED
        };
        &AS_SEQUENCE
    }
}

impl Iterable for IAction {
    fn iter(zelf: PyRef<Self>, vm: &VirtualMachine) -> PyResult {
        zelf.data.names(vm).get_iter(vm).map(Into::into)
    }
}
