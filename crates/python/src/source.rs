//! The source view of a kernel result, through the model's Source page code: `source_files()`,
//! `source_info(pc)` (`ISourceInfo`), `ptx_by_pc(pc)`, `sass_by_pc(pc)` (the user's nvdisasm,
//! found as the Source page finds it) and the `source_markers()` stored with rule results.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use sightline_model::ncu::Action;
use sightline_model::ncu::nvrules::report_marker_kind;
use sightline_model::ncu::source::SourceModule;
use sightline_model::ncu::source::nvdisasm::{self, Disassembly, NvdisasmOptions};

use crate::report::{ResultData, warn_report_problems};
use sightline_model::proto::nv::rule_system::source_marker::SourceLocation;

/// A kernel result's source module and disassembled functions, made on first use.
#[derive(Debug, Default)]
pub(crate) struct SourceState {
    /// `None` for results that are not kernels.
    module: OnceLock<Option<SourceModule>>,
    /// Disassembled functions by load PC (`None`: no nvdisasm, or it failed).
    sass: Mutex<HashMap<u64, Option<Arc<Disassembly>>>>,
}

impl SourceState {
    /// The module of `result` (`None` for ranges, command lists and graphs). Problems met
    /// while reading it (a source entry or cubin that does not decode, and those of the rest
    /// of the report, which finding its source entries indexes) are warned about once
    /// (`UserWarning`, naming the file).
    pub fn module(&self, py: Python<'_>, result: &ResultData) -> Option<&SourceModule> {
        let (report, action) = (&*result.report, &result.action);
        let mut fresh = false;
        // Made without the GIL, so that a thread waiting for it does not hold the GIL.
        let module = py
            .detach(|| {
                self.module.get_or_init(|| {
                    fresh = true;
                    SourceModule::for_action(report, action).ok()
                })
            })
            .as_ref();
        if fresh {
            // Warnings only: the answer does not depend on them (as below).
            let _ = warn_report_problems(py, report, &result.warned);
            for problem in module.map(SourceModule::problems).unwrap_or_default() {
                let message = format!(
                    "{}: result {}: {problem}",
                    report.path().display(),
                    action.index()
                );
                // A warning turned into an error by the user's filter is still only a warning
                // here: the answer does not depend on it.
                let _ = crate::warn(py, &message);
            }
        }
        module
    }

    /// The SASS text at `pc` as NVIDIA's reader gives it, disassembling its function with
    /// the user's nvdisasm on first use; empty without one.
    pub fn sass(&self, py: Python<'_>, module: &SourceModule, pc: u64) -> String {
        let Some(function) = module.function_at(pc) else {
            return String::new();
        };
        let Some(base) = function.load_pc else {
            return String::new();
        };
        let cached = self
            .sass
            .lock()
            .ok()
            .and_then(|cache| cache.get(&base).cloned());
        let disassembly = cached.unwrap_or_else(|| {
            let options = NvdisasmOptions {
                cache_dir: Some(nvdisasm::default_cache_dir()),
                ..NvdisasmOptions::default()
            };
            let made = py
                .detach(|| nvdisasm::disassemble_for_reader(module, function, &options))
                .map(Arc::new);
            if let Ok(mut cache) = self.sass.lock() {
                cache.insert(base, made.clone());
            }
            made
        });
        disassembly
            .and_then(|d| d.text(pc).map(str::to_owned))
            .unwrap_or_default()
    }
}

/// `ncu_report.ISourceInfo`: the source file and line of an address.
#[pyclass(module = "ncu_report", name = "ISourceInfo", frozen)]
#[derive(Debug)]
pub struct ISourceInfo {
    file: String,
    line: u32,
}

impl ISourceInfo {
    /// The answer of `module` for `pc` (`None` without line info there).
    pub(crate) fn at(module: &SourceModule, pc: u64) -> Option<ISourceInfo> {
        module.source_info(pc).map(|f| ISourceInfo {
            file: f.file,
            line: f.line,
        })
    }
}

#[pymethods]
impl ISourceInfo {
    /// The source file's path as the line table records it.
    fn file_name(&self) -> String {
        self.file.clone()
    }

    /// The line number.
    fn line(&self) -> u32 {
        self.line
    }

    fn __repr__(&self) -> String {
        format!("<ncu_report.ISourceInfo {}:{}>", self.file, self.line)
    }
}

/// `{file name: content}` of the files imported into the report for the module.
pub(crate) fn source_files<'py>(
    py: Python<'py>,
    module: Option<&SourceModule>,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for file in module.map(SourceModule::source_files).unwrap_or_default() {
        if let Some(content) = &file.content {
            dict.set_item(&file.name, content)?;
        }
    }
    Ok(dict)
}

/// The source markers stored with `action`'s rule results, as a tuple of dictionaries
/// (`source_address` for SASS markers, `source_location` for source-line ones; the message
/// type as stored).
pub(crate) fn source_markers<'py>(
    py: Python<'py>,
    action: &Action,
) -> PyResult<Bound<'py, PyTuple>> {
    let mut markers = Vec::new();
    for result in action.rule_results() {
        for marker in &result.source_markers {
            let dict = PyDict::new(py);
            dict.set_item("rule_identifier", &result.identifier)?;
            let section = result.section_identifier.as_deref().unwrap_or_default();
            dict.set_item("section_identifier", section)?;
            let kind = match marker.kind {
                Some(0) => report_marker_kind::SASS,
                Some(1) => report_marker_kind::SOURCE,
                _ => report_marker_kind::NONE,
            };
            dict.set_item("kind", kind)?;
            // NVIDIA's module gives the number the report stores (the file's
            // `RuleResultMessageType`: 2 for a warning), not the `MsgType` number: so on every
            // marker of the corpus and fixtures.
            dict.set_item("message_type", marker.r#type.unwrap_or(0))?;
            dict.set_item("message", marker.tooltip.as_deref().unwrap_or_default())?;
            match marker.source_location {
                Some(SourceLocation::Address(address)) => {
                    dict.set_item("source_address", address)?;
                }
                Some(SourceLocation::LineNumber(line)) => {
                    let location = PyDict::new(py);
                    location
                        .set_item("file_name", marker.file_name.as_deref().unwrap_or_default())?;
                    location.set_item("line", line)?;
                    dict.set_item("source_location", location)?;
                }
                None => {}
            }
            markers.push(dict);
        }
    }
    PyTuple::new(py, markers)
}
