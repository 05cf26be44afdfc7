//! One opened report shared by every object made from it: the file is indexed when opened
//! and each result decoded the first time something asks for it, then kept.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use pyo3::PyErr;
use pyo3::exceptions::{PyFileNotFoundError, PyIndexError, PyValueError};
use sightline_model::ncu::nvrules::{MetricUnits, metric_labels};
use sightline_model::ncu::{Action, ReadError, Report};
use sightline_model::proto::nv::profiler::ProfilerSection;
use sightline_model::section::{DetailsSection, KernelDetails, SectionSet, resolve_action};

use crate::source::SourceState;

/// A decoded result and what is derived from it on first use.
#[derive(Debug)]
pub(crate) struct ResultData {
    pub action: Action,
    /// The report's path (what a pickled result is restored from).
    pub path: Arc<Path>,
    /// The report (its source entries hold the kernel's cubin and source files).
    pub report: Arc<Report>,
    /// The kernel's source module and disassembly, made on first use.
    pub source: SourceState,
    units: OnceLock<MetricUnits>,
    /// The Details page of the result from its embedded sections, resolved on first use.
    details: OnceLock<Option<KernelDetails>>,
    /// The labels the embedded sections give metrics, by name.
    labels: OnceLock<HashMap<String, String>>,
    /// The embedded sections, decoded on first use (or why they could not be).
    sections: OnceLock<Result<Arc<Vec<ProfilerSection>>, String>>,
}

impl ResultData {
    /// The unit of metric `name` (a unit the result's sections set wins over the inferred one).
    pub fn unit(&self, name: &str) -> String {
        self.units
            .get_or_init(|| MetricUnits::of(&self.action))
            .unit(name)
            .into_owned()
    }

    /// The label of metric `name` the result's sections give it (empty for none; sections
    /// that do not decode give none).
    pub fn label(&self, name: &str) -> String {
        self.labels
            .get_or_init(|| {
                self.sections()
                    .map(|sections| metric_labels(&sections))
                    .unwrap_or_default()
            })
            .get(name)
            .cloned()
            .unwrap_or_default()
    }

    /// The Details page section `identifier` as the embedded sections resolve it (a section
    /// that extends another is found among its children); `None` when the sections do not
    /// decode.
    pub fn details_section(&self, identifier: &str) -> Option<DetailsSection> {
        fn find(sections: &[DetailsSection], identifier: &str) -> Option<DetailsSection> {
            sections.iter().find_map(|s| {
                if s.identifier == identifier {
                    Some(s.clone())
                } else {
                    find(&s.children, identifier)
                }
            })
        }
        let details = self.details.get_or_init(|| {
            let sections = self.sections().ok()?;
            let set = SectionSet::from_embedded(sections.to_vec());
            Some(resolve_action(&self.action, &set))
        });
        find(&details.as_ref()?.sections, identifier)
    }

    /// The result's embedded sections, decoded on first use; a `ValueError` naming the file
    /// and the result when one does not decode.
    pub fn sections(&self) -> Result<Arc<Vec<ProfilerSection>>, PyErr> {
        self.sections
            .get_or_init(|| {
                self.action.sections().map(Arc::new).map_err(|e| {
                    format!(
                        "{}: result {}: corrupt embedded section: {e}",
                        self.path.display(),
                        self.action.index()
                    )
                })
            })
            .clone()
            .map_err(PyValueError::new_err)
    }
}

/// A report and its results decoded so far.
#[derive(Debug)]
pub(crate) struct ReportHandle {
    pub report: Arc<Report>,
    actions: Vec<OnceLock<Result<Arc<ResultData>, String>>>,
}

impl ReportHandle {
    /// Opens (indexes) the report at `path`. A missing file is a `FileNotFoundError` with
    /// NVIDIA's message; an unreadable one a `ValueError` naming the file and the position.
    pub fn open(path: &Path) -> Result<Arc<ReportHandle>, PyErr> {
        if !path.exists() {
            return Err(PyFileNotFoundError::new_err(format!(
                "Could not load report file: {} does not exist.",
                path.display()
            )));
        }
        let report = Report::open(path).map_err(|e| read_error(&e))?;
        let actions = (0..report.num_actions()).map(|_| OnceLock::new()).collect();
        Ok(Arc::new(ReportHandle {
            report: Arc::new(report),
            actions,
        }))
    }

    /// How many results the report holds.
    pub fn num_actions(&self) -> usize {
        self.actions.len()
    }

    /// Result `index`, decoded on first use.
    pub fn action(&self, index: usize) -> Result<Arc<ResultData>, PyErr> {
        let slot = self.actions.get(index).ok_or_else(|| {
            PyIndexError::new_err(format!(
                "result {index} out of range: the report holds {}",
                self.actions.len()
            ))
        })?;
        slot.get_or_init(|| {
            self.report
                .action(index)
                .map(|action| {
                    Arc::new(ResultData {
                        action,
                        path: Arc::from(self.report.path()),
                        report: self.report.clone(),
                        source: SourceState::default(),
                        units: OnceLock::new(),
                        sections: OnceLock::new(),
                        labels: OnceLock::new(),
                        details: OnceLock::new(),
                    })
                })
                .map_err(|e| e.to_string())
        })
        .clone()
        .map_err(PyValueError::new_err)
    }
}

/// A report that cannot be read, as a Python `ValueError` (its message names the file and the
/// byte offset).
pub(crate) fn read_error(error: &ReadError) -> PyErr {
    PyValueError::new_err(error.to_string())
}
