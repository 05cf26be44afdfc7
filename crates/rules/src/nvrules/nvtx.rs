//! `INvtxState`, `INvtxDomainInfo`, `INvtxRange`: the NVTX context of an action.

use std::rc::Rc;

use rustpython_vm::builtins::PyInt;
use rustpython_vm::protocol::PyMappingMethods;
use rustpython_vm::types::{AsMapping, Iterable};
use rustpython_vm::{
    PyObjectRef, PyPayload, PyRef, PyResult, VirtualMachine, atomic_func, pyclass,
};

use super::action::ActionData;
use super::context::iter_list;
use sightline_model::ncu::{NvtxView, nvrules};
use sightline_model::proto::nv::nvtx::NvtxEventAttributes;

fn view(data: &ActionData) -> Option<NvtxView<'_>> {
    Some(NvtxView::new(data.action.nvtx()?, data.action.thread_id()))
}

/// `NvRules.INvtxState`: NVTX domains at the launch of an action.
#[pyclass(module = "NvRules", name = "INvtxState")]
#[derive(Debug, PyPayload)]
pub struct INvtxState {
    data: Rc<ActionData>,
}

impl INvtxState {
    pub(crate) fn new(data: Rc<ActionData>) -> Self {
        INvtxState { data }
    }

    fn ids(&self) -> Vec<u64> {
        view(&self.data).map_or_else(Vec::new, |v| v.domain_ids().collect())
    }
}

#[pyclass(with(AsMapping, Iterable))]
impl INvtxState {
    #[pymethod]
    fn domains(&self, vm: &VirtualMachine) -> PyObjectRef {
        let ids = self
            .ids()
            .into_iter()
            .map(|id| vm.ctx.new_int(id).into())
            .collect();
        vm.ctx.new_list(ids).into()
    }

    #[pymethod]
    fn domain_by_id(&self, id: u64) -> Option<INvtxDomainInfo> {
        self.ids().contains(&id).then(|| INvtxDomainInfo {
            data: self.data.clone(),
            id,
        })
    }
}

impl AsMapping for INvtxState {
    fn as_mapping() -> &'static PyMappingMethods {
        static AS_MAPPING: PyMappingMethods = PyMappingMethods {
            length: atomic_func!(|mapping, _vm| Ok(INvtxState::mapping_downcast(mapping)
                .ids()
                .len())),
            subscript: atomic_func!(|mapping, needle, vm| {
                let zelf = INvtxState::mapping_downcast(mapping);
                let Some(id) = needle.downcast_ref::<PyInt>() else {
                    return Err(vm.new_type_error(format!(
                        "INvtxState IDs must be integers, not {}",
                        needle.class().name()
                    )));
                };
                let id: u64 = id.try_to_primitive(vm).map_err(|_| {
                    vm.new_key_error(vm.ctx.new_str("INvtxState invalid ID").into())
                })?;
                match zelf.domain_by_id(id) {
                    Some(domain) => Ok(domain.into_pyobject(vm)),
                    None => Err(vm.new_key_error(vm.ctx.new_str("INvtxState invalid ID").into())),
                }
            }),
            ass_subscript: None,
        };
        &AS_MAPPING
    }
}

impl Iterable for INvtxState {
    fn iter(zelf: PyRef<Self>, vm: &VirtualMachine) -> PyResult {
        let ids: Vec<PyObjectRef> = zelf
            .ids()
            .into_iter()
            .map(|id| vm.ctx.new_int(id).into())
            .collect();
        iter_list(ids, vm)
    }
}

/// `NvRules.INvtxDomainInfo`: one domain's push/pop stack and start/end ranges.
#[pyclass(module = "NvRules", name = "INvtxDomainInfo")]
#[derive(Debug, PyPayload)]
pub struct INvtxDomainInfo {
    data: Rc<ActionData>,
    id: u64,
}

impl INvtxDomainInfo {
    /// The names of the domain's push/pop (`push_pop`) or start/end ranges, as a Python list.
    fn range_names(&self, push_pop: bool, vm: &VirtualMachine) -> PyObjectRef {
        let names = view(&self.data).map_or_else(Vec::new, |v| {
            let ranges = if push_pop {
                v.push_pop_ranges(self.id)
            } else {
                v.start_end_ranges(self.id)
            };
            ranges.iter().map(|s| vm.ctx.new_str(*s).into()).collect()
        });
        vm.ctx.new_list(names).into()
    }

    fn attributes(
        &self,
        push_pop: bool,
        index: usize,
    ) -> Option<(String, Option<NvtxEventAttributes>)> {
        let state = self.data.action.nvtx()?;
        nvrules::range_attributes(
            state,
            self.data.action.thread_id(),
            self.id,
            push_pop,
            index,
        )
    }
}

#[pyclass]
impl INvtxDomainInfo {
    #[pymethod]
    #[pymethod(name = "__str__")]
    fn name(&self) -> String {
        view(&self.data).map_or_else(String::new, |v| v.domain_name(self.id).to_owned())
    }

    #[pymethod]
    fn push_pop_ranges(&self, vm: &VirtualMachine) -> PyObjectRef {
        self.range_names(true, vm)
    }

    #[pymethod]
    fn start_end_ranges(&self, vm: &VirtualMachine) -> PyObjectRef {
        self.range_names(false, vm)
    }

    #[pymethod]
    fn push_pop_range(&self, index: usize) -> Option<INvtxRange> {
        self.attributes(true, index)
            .map(|(name, attributes)| INvtxRange { name, attributes })
    }

    #[pymethod]
    fn start_end_range(&self, index: usize) -> Option<INvtxRange> {
        self.attributes(false, index)
            .map(|(name, attributes)| INvtxRange { name, attributes })
    }
}

/// `NvRules.INvtxRange`: one range with its event attributes.
#[pyclass(module = "NvRules", name = "INvtxRange")]
#[derive(Debug, PyPayload)]
pub struct INvtxRange {
    name: String,
    attributes: Option<NvtxEventAttributes>,
}

#[pyclass]
impl INvtxRange {
    #[pymethod]
    fn name(&self) -> String {
        self.name.clone()
    }

    #[pymethod]
    fn has_attributes(&self) -> bool {
        self.attributes.is_some()
    }

    #[pymethod]
    fn category(&self) -> u32 {
        self.attributes.as_ref().map_or(0, |a| a.category)
    }

    #[pymethod]
    fn color(&self) -> u32 {
        self.attributes
            .as_ref()
            .and_then(|a| a.color.color)
            .unwrap_or(0)
    }

    #[pymethod]
    fn payload_type(&self) -> i32 {
        self.attributes
            .as_ref()
            .map_or(0, |a| a.payload.payload_type)
    }

    #[pymethod]
    fn payload_as_uint64(&self) -> u64 {
        nvrules::payload_as_uint64(self.attributes.as_ref())
    }

    #[pymethod]
    fn payload_as_double(&self) -> f64 {
        nvrules::payload_as_double(self.attributes.as_ref())
    }

    #[pymethod]
    fn payload_as_string(&self) -> String {
        self.attributes
            .as_ref()
            .and_then(|a| a.payload.str_value.clone())
            .unwrap_or_default()
    }

    #[pymethod]
    fn message(&self) -> String {
        self.attributes
            .as_ref()
            .and_then(|a| a.message.message.clone())
            .unwrap_or_default()
    }
}
