//! `INvtxState`, `INvtxDomainInfo`, `INvtxRange`: the NVTX context of a result's launch.

use std::sync::Arc;

use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use sightline_model::ncu::nvrules;
use sightline_model::ncu::{Action, NvtxView};

use crate::report::ResultData;
use sightline_model::proto::nv::nvtx::NvtxEventAttributes;

/// The NVTX view of a result that has an NVTX state.
fn view(action: &Action) -> Option<NvtxView<'_>> {
    Some(NvtxView::new(action.nvtx()?, action.thread_id()))
}

/// `ncu_report.INvtxState`: the NVTX domains at a result's launch.
#[pyclass(module = "ncu_report", name = "INvtxState", frozen)]
#[derive(Debug)]
pub struct INvtxState {
    action: Arc<ResultData>,
}

impl INvtxState {
    /// The state of `action` (which has one).
    pub(crate) fn new(action: Arc<ResultData>) -> INvtxState {
        INvtxState { action }
    }

    fn ids(&self) -> Vec<u64> {
        view(&self.action.action).map_or_else(Vec::new, |v| v.domain_ids().collect())
    }
}

#[pymethods]
impl INvtxState {
    /// The ids of the domains, as a tuple.
    fn domains<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.ids())
    }

    /// Domain `id`, or `None`.
    fn domain_by_id(&self, id: u64) -> Option<INvtxDomainInfo> {
        self.ids().contains(&id).then(|| INvtxDomainInfo {
            action: self.action.clone(),
            id,
        })
    }

    fn __len__(&self) -> usize {
        self.ids().len()
    }

    fn __getitem__(&self, id: u64) -> PyResult<INvtxDomainInfo> {
        self.domain_by_id(id)
            .ok_or_else(|| PyKeyError::new_err("INvtxState invalid ID"))
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.ids()
            .into_pyobject(py)?
            .into_any()
            .try_iter()
            .map(Bound::into_any)
    }
}

/// `ncu_report.INvtxDomainInfo`: one domain's push/pop stack and open start/end ranges.
#[pyclass(module = "ncu_report", name = "INvtxDomainInfo", frozen)]
#[derive(Debug)]
pub struct INvtxDomainInfo {
    action: Arc<ResultData>,
    id: u64,
}

impl INvtxDomainInfo {
    fn names(&self, push_pop: bool) -> Vec<String> {
        view(&self.action.action).map_or_else(Vec::new, |v| {
            let ranges = if push_pop {
                v.push_pop_ranges(self.id)
            } else {
                v.start_end_ranges(self.id)
            };
            ranges.iter().map(|s| (*s).to_owned()).collect()
        })
    }

    fn range(&self, push_pop: bool, index: usize) -> Option<INvtxRange> {
        let state = self.action.action.nvtx()?;
        let (name, attributes) = nvrules::range_attributes(
            state,
            self.action.action.thread_id(),
            self.id,
            push_pop,
            index,
        )?;
        Some(INvtxRange { name, attributes })
    }
}

#[pymethods]
impl INvtxDomainInfo {
    /// The domain's name.
    fn name(&self) -> String {
        view(&self.action.action).map_or_else(String::new, |v| v.domain_name(self.id).to_owned())
    }

    fn __str__(&self) -> String {
        self.name()
    }

    /// The names of the push/pop ranges, bottom of the stack first, as a tuple.
    fn push_pop_ranges<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.names(true))
    }

    /// The names of the open start/end ranges, as a tuple.
    fn start_end_ranges<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.names(false))
    }

    /// Push/pop range `index`, or `None`.
    fn push_pop_range(&self, index: usize) -> Option<INvtxRange> {
        self.range(true, index)
    }

    /// Start/end range `index`, or `None`.
    fn start_end_range(&self, index: usize) -> Option<INvtxRange> {
        self.range(false, index)
    }
}

/// `ncu_report.INvtxRange`: one range with its event attributes.
#[pyclass(module = "ncu_report", name = "INvtxRange", frozen)]
#[derive(Debug)]
pub struct INvtxRange {
    name: String,
    attributes: Option<NvtxEventAttributes>,
}

#[pymethods]
impl INvtxRange {
    /// The range's name.
    fn name(&self) -> String {
        self.name.clone()
    }

    /// Whether the range was pushed or started with event attributes.
    fn has_attributes(&self) -> bool {
        self.attributes.is_some()
    }

    /// The attributes' category (0 without).
    fn category(&self) -> u32 {
        self.attributes.as_ref().map_or(0, |a| a.category)
    }

    /// The attributes' ARGB colour (0 without).
    fn color(&self) -> u32 {
        self.attributes
            .as_ref()
            .and_then(|a| a.color.color)
            .unwrap_or(0)
    }

    /// The payload's `PayloadType_*` (0 without).
    fn payload_type(&self) -> i32 {
        self.attributes
            .as_ref()
            .map_or(0, |a| a.payload.payload_type)
    }

    /// The payload as an unsigned integer.
    fn payload_as_uint64(&self) -> u64 {
        nvrules::payload_as_uint64(self.attributes.as_ref())
    }

    /// The payload as a float.
    fn payload_as_double(&self) -> f64 {
        nvrules::payload_as_double(self.attributes.as_ref())
    }

    /// The payload's string (empty without one).
    fn payload_as_string(&self) -> String {
        self.attributes
            .as_ref()
            .and_then(|a| a.payload.str_value.clone())
            .unwrap_or_default()
    }

    /// The attributes' message (empty without).
    fn message(&self) -> String {
        self.attributes
            .as_ref()
            .and_then(|a| a.message.message.clone())
            .unwrap_or_default()
    }
}
