//! `sightline.nsys.open(path)`: an Nsight Systems export (or report, exported with the user's
//! `nsys` first, or another timeline Sightline reads) whose SQLite tables, timeline events,
//! counter samples and `nsys stats` reports come out as Arrow tables ([`crate::arrow`]). The
//! Python package wraps them in pyarrow tables (`python/src/sightline/nsys.py`).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use pyo3::exceptions::{PyFileNotFoundError, PyKeyError, PyValueError};
use pyo3::prelude::*;
use sightline_model::columnar::{ColumnTable, from_sqlite, from_timeline};
use sightline_model::kind::FileKind;
use sightline_model::timeline::nsys::stats::{ReportOutcome, report_names, run_report};
use sightline_model::timeline::nsys::{
    ExportDb, LoadOptions, NsysError, default_cache_dir, export_report, is_report_file,
};
use sightline_model::timeline::{Timeline, TimelineFileKind, load_timeline};

use crate::arrow::ArrowTable;

/// An opened timeline file: the export's connection (for its tables and reports) and the
/// timeline, read on first use. Safe to share between threads.
#[pyclass(module = "sightline._native", name = "_NsysExport", frozen)]
pub struct NsysExport {
    /// The file the user opened.
    path: PathBuf,
    /// The SQLite export read (the file itself, or a report's export in the cache).
    source: PathBuf,
    kind: TimelineFileKind,
    db: Option<Mutex<ExportDb>>,
    timeline: OnceLock<Arc<Timeline>>,
}

fn os_error(e: &NsysError) -> PyErr {
    match e {
        NsysError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            PyFileNotFoundError::new_err(e.to_string())
        }
        _ => PyValueError::new_err(e.to_string()),
    }
}

impl NsysExport {
    fn open(path: &Path, nsys: Option<&Path>) -> PyResult<NsysExport> {
        if !path.exists() {
            return Err(PyFileNotFoundError::new_err(format!(
                "{}: no such file",
                path.display()
            )));
        }
        let kind = TimelineFileKind::from_kind(FileKind::of_path(path))
            .unwrap_or(TimelineFileKind::NsysExport);
        let source = if is_report_file(path) {
            export_report(
                path,
                nsys,
                &default_cache_dir(),
                sightline_model::core::Progress::none(),
            )
            .map_err(|e| os_error(&e))?
        } else {
            path.to_path_buf()
        };
        let db = match kind {
            TimelineFileKind::NsysExport | TimelineFileKind::NsysReport => Some(Mutex::new(
                ExportDb::open_salvaging(&source).map_err(|e| os_error(&e))?,
            )),
            _ => None,
        };
        Ok(NsysExport {
            path: path.to_path_buf(),
            source,
            kind,
            db,
            timeline: OnceLock::new(),
        })
    }

    /// Runs `f` on the export's connection (a `ValueError` for a timeline without tables).
    fn with_db<T>(&self, f: impl FnOnce(&ExportDb) -> PyResult<T>) -> PyResult<T> {
        let db = self.db.as_ref().ok_or_else(|| {
            PyValueError::new_err(format!(
                "{}: not an Nsight Systems export: it has no SQLite tables or nsys reports",
                self.path.display()
            ))
        })?;
        let db = db.lock().map_err(|_| {
            PyValueError::new_err("the export's connection failed in another thread")
        })?;
        f(&db)
    }

    fn loaded(&self) -> PyResult<Arc<Timeline>> {
        if let Some(t) = self.timeline.get() {
            return Ok(t.clone());
        }
        let loaded = load_timeline(
            &self.path,
            self.kind,
            &self.source,
            LoadOptions::default(),
            true,
        )
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(self
            .timeline
            .get_or_init(|| Arc::new(loaded.timeline))
            .clone())
    }
}

fn arrow(py: Python<'_>, table: PyResult<ColumnTable>) -> PyResult<ArrowTable> {
    let table = table?;
    py.detach(|| ArrowTable::new(table))
}

#[pymethods]
impl NsysExport {
    /// The file opened.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// The SQLite export read (a report's export in Sightline's cache).
    #[getter]
    fn export_path(&self) -> PathBuf {
        self.source.clone()
    }

    /// What opening found damaged (a salvaged file), one line each.
    #[getter]
    fn warnings(&self) -> PyResult<Vec<String>> {
        match &self.db {
            None => Ok(Vec::new()),
            Some(_) => self.with_db(|db| Ok(db.salvage.iter().cloned().collect())),
        }
    }

    /// The export's tables, sorted (empty for a timeline that is not an SQLite export).
    fn table_names(&self) -> PyResult<Vec<String>> {
        match &self.db {
            None => Ok(Vec::new()),
            Some(_) => self.with_db(|db| Ok(from_sqlite::table_names(db))),
        }
    }

    /// Table `name`, read whole.
    fn table(&self, py: Python<'_>, name: &str) -> PyResult<ArrowTable> {
        let table = py.detach(|| {
            self.with_db(|db| {
                if !db.has_table(name) {
                    return Err(PyKeyError::new_err(format!(
                        "{}: no table {name}",
                        self.path.display()
                    )));
                }
                from_sqlite::read_table(db, name).map_err(|e| os_error(&e))
            })
        });
        arrow(py, table)
    }

    /// Every event of the timeline, as Sightline reads it.
    fn events(&self, py: Python<'_>) -> PyResult<ArrowTable> {
        let table = py.detach(|| Ok(from_timeline::events_table(&*self.loaded()?)));
        arrow(py, table)
    }

    /// Every counter sample of the timeline.
    fn counters(&self, py: Python<'_>) -> PyResult<ArrowTable> {
        let table = py.detach(|| Ok(from_timeline::counters_table(&*self.loaded()?)));
        arrow(py, table)
    }

    /// The names of the `nsys stats` reports.
    #[staticmethod]
    fn stats_reports() -> Vec<&'static str> {
        report_names()
    }

    /// Report `request` (`name[:option[=value]]...`) as a table, or the reason nsys gives for
    /// skipping it (a `str`) when the export lacks its data.
    fn stats(&self, py: Python<'_>, request: &str) -> PyResult<Py<PyAny>> {
        let outcome =
            py.detach(|| self.with_db(|db| run_report(db, request).map_err(|e| os_error(&e))))?;
        match outcome {
            ReportOutcome::Table(t) => {
                let table = arrow(py, Ok(from_timeline::report_table(&t)))?;
                Ok(Py::new(py, table)?.into_any())
            }
            ReportOutcome::Skipped(why) => Ok(why.into_pyobject(py)?.into_any().unbind()),
        }
    }

    fn __repr__(&self) -> String {
        format!("<sightline.nsys export {}>", self.path.display())
    }
}

/// Opens a timeline file for its tables: an Nsight Systems export (`.sqlite`), report
/// (`.nsys-rep`, `.qdrep`: exported with `nsys`, found on the PATH or given), or another
/// timeline (NVTXT, CodeXL, Perfetto, Chrome: events only).
#[pyfunction]
#[pyo3(signature = (path, nsys=None))]
#[expect(
    clippy::needless_pass_by_value,
    reason = "PyO3 converts the Python paths into owned ones"
)]
pub fn open_nsys(py: Python<'_>, path: PathBuf, nsys: Option<PathBuf>) -> PyResult<NsysExport> {
    py.detach(|| NsysExport::open(&path, nsys.as_deref()))
}
