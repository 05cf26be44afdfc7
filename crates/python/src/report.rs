//! One opened report shared by every object made from it: the file is indexed as far as the
//! script's questions need (result `i` walks the blocks up to it; a count walks them all,
//! `Report::open_lazy`), and each result decoded when something asks for it, then kept while
//! a Python object holds it (a script that walks a 2 GB report holds a few results at a time,
//! not the report). A script that walks the results in order has the next ones decoded ahead
//! of it on helper threads ([`ReadAhead`]), so that decoding overlaps the script's own work.
//! Problems the walk meets are warned about by the call that met them ([`ReportHandle::warn_found`]).

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock};

use pyo3::exceptions::{PyFileNotFoundError, PyIndexError, PyValueError};
use pyo3::{PyErr, PyResult, Python};
use sightline_model::ncu::nvrules::{MetricUnits, Timelines, metric_labels};
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
    /// The PM sampling timelines (pass groups, context switches), made on first use.
    timelines: OnceLock<Timelines>,
    /// The Details page of the result from its embedded sections, resolved on first use.
    details: OnceLock<Option<KernelDetails>>,
    /// The labels the embedded sections give metrics, by name.
    labels: OnceLock<HashMap<String, String>>,
    /// The embedded sections, decoded on first use (or why they could not be).
    sections: OnceLock<Result<Arc<Vec<ProfilerSection>>, String>>,
    /// Each metric's index by the hash of its name ([`name_hash`]), made when the result is
    /// decoded (often on a read-ahead thread): `metric_by_name` in O(1).
    by_hash: rustc_hash::FxHashMap<u64, u32>,
    /// The report's strings as Python strings, made once per report ([`NameCache`]).
    pub names: NameCache,
    /// How many of the report's problems have been warned about ([`warn_report_problems`]).
    pub warned: Arc<AtomicUsize>,
}

/// The report's strings (metric names) as Python `str` objects, each made on first use and
/// shared by every result: `metric_names()` of 2,000 results then makes 1,164 strings, not
/// 2.3 million.
#[derive(Clone)]
pub(crate) struct NameCache(Arc<Vec<pyo3::sync::PyOnceLock<pyo3::Py<pyo3::types::PyString>>>>);

impl NameCache {
    /// A cache for string ids below `strings`.
    fn new(strings: usize) -> NameCache {
        NameCache(Arc::new(
            (0..strings)
                .map(|_| pyo3::sync::PyOnceLock::new())
                .collect(),
        ))
    }

    /// How many string ids it caches.
    fn len(&self) -> usize {
        self.0.len()
    }

    /// String `id` as a Python `str` (`text` is its text), made on first use.
    pub fn get<'py>(
        &self,
        py: pyo3::Python<'py>,
        id: u32,
        text: &str,
    ) -> pyo3::Bound<'py, pyo3::types::PyString> {
        use pyo3::types::PyString;
        match self.0.get(id as usize) {
            Some(cell) => cell
                .get_or_init(py, || PyString::new(py, text).unbind())
                .clone_ref(py)
                .into_bound(py),
            None => PyString::new(py, text),
        }
    }
}

impl std::fmt::Debug for NameCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NameCache({} strings)", self.0.len())
    }
}

/// The hash [`ResultData::metric_index`] looks names up by.
fn name_hash(name: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    name.hash(&mut h);
    h.finish()
}

impl ResultData {
    fn new(
        action: Action,
        report: &Arc<Report>,
        names: NameCache,
        warned: &Arc<AtomicUsize>,
    ) -> ResultData {
        let metrics = action.metrics();
        let mut by_hash = rustc_hash::FxHashMap::default();
        by_hash.reserve(metrics.len());
        for (i, m) in metrics.iter().enumerate() {
            if let Ok(i) = u32::try_from(i) {
                by_hash.insert(name_hash(action.metric_name(m)), i);
            }
        }
        ResultData {
            action,
            path: Arc::from(report.path()),
            report: Arc::clone(report),
            source: SourceState::default(),
            units: OnceLock::new(),
            timelines: OnceLock::new(),
            sections: OnceLock::new(),
            labels: OnceLock::new(),
            details: OnceLock::new(),
            by_hash,
            names,
            warned: Arc::clone(warned),
        }
    }

    /// The index of metric `name` among the result's metrics.
    pub fn metric_index(&self, name: &str) -> Option<usize> {
        let metrics = self.action.metrics();
        match self.by_hash.get(&name_hash(name)) {
            Some(&i) if self.action.metric_name(&metrics[i as usize]) == name => Some(i as usize),
            // Two names of one hash: the other one was kept.
            Some(_) => self.action.metric_index(name),
            None => None,
        }
    }

    /// The unit of metric `name` (a unit the result's sections set wins over the inferred one).
    pub fn unit(&self, name: &str) -> String {
        self.units
            .get_or_init(|| MetricUnits::of(&self.action))
            .unit(name)
            .into_owned()
    }

    /// The result's PM sampling timelines (what `ITimelines.aligned_metric` aligns with).
    pub fn timelines(&self) -> &Timelines {
        self.timelines.get_or_init(|| Timelines::of(&self.action))
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
    /// Each result's slot while something holds it (or why it does not decode), made when
    /// the result is first asked for (the count is not known until the walk ends).
    actions: RwLock<Vec<Arc<Mutex<Slot>>>>,
    /// The results decoded ahead, held until the script reaches them: result `i` in
    /// `held[i % held.len()]`, replaced as the window moves on.
    held: Vec<Mutex<Option<Arc<ResultData>>>>,
    ahead: ReadAhead,
    /// The strings of the table as far as the walk went, replaced by a larger cache when a
    /// result is decoded with more strings.
    names: Mutex<NameCache>,
    /// How many of the report's problems have been warned about ([`warn_report_problems`]).
    warned: Arc<AtomicUsize>,
}

/// A result's slot: the decoded result while it is alive, or why it does not decode.
#[derive(Debug, Default)]
struct Slot {
    alive: std::sync::Weak<ResultData>,
    error: Option<String>,
}

/// How many results past the last one asked for are decoded ahead.
const READ_AHEAD: usize = 16;

/// Decoding ahead of a script that reads results in order: when result `i` is asked for right
/// after result `i - 1`, helper threads (one per spare core, at most 4) decode the results up to
/// `i + READ_AHEAD` that nobody has yet. A result being decoded by a helper when the script
/// asks for it is waited for, never decoded twice (`OnceLock`). Random access starts nothing.
#[derive(Debug, Default)]
struct ReadAhead {
    /// The last result asked for, plus one (0: none yet).
    last: AtomicUsize,
    /// The next result a helper takes.
    next: AtomicUsize,
    /// Helpers decode results below this.
    until: AtomicUsize,
    /// Helpers running.
    running: AtomicUsize,
}

impl ReportHandle {
    /// Opens the report at `path`, reading its first block (`Report::open_lazy`). A missing
    /// file is a `FileNotFoundError` with NVIDIA's message; an unreadable one a `ValueError`
    /// naming the file and the position. With `warn`, the problems the walk meets are warned
    /// about ([`ReportHandle::warn_found`]); without (an unpickled object), never.
    pub fn open(path: &Path, warn: bool) -> Result<Arc<ReportHandle>, PyErr> {
        if !path.exists() {
            return Err(PyFileNotFoundError::new_err(format!(
                "Could not load report file: {} does not exist.",
                path.display()
            )));
        }
        let report = Report::open_lazy(path).map_err(|e| read_error(&e))?;
        let held = (0..2 * READ_AHEAD).map(|_| Mutex::default()).collect();
        Ok(Arc::new(ReportHandle {
            report: Arc::new(report),
            actions: RwLock::default(),
            held,
            ahead: ReadAhead::default(),
            names: Mutex::new(NameCache::new(0)),
            warned: Arc::new(AtomicUsize::new(if warn { 0 } else { usize::MAX })),
        }))
    }

    /// How many results the report holds (indexing the whole report, without the GIL, the
    /// first time), warning about the problems met.
    pub fn num_actions(&self, py: Python<'_>) -> PyResult<usize> {
        let count = if self.report.is_indexed() {
            self.report.num_actions()
        } else {
            py.detach(|| self.report.num_actions())
        };
        self.warn_found(py)?;
        Ok(count)
    }

    /// Whether the report holds result `index` (indexing the blocks up to it, without the
    /// GIL), warning about the problems met.
    pub fn has_action(&self, py: Python<'_>, index: usize) -> PyResult<bool> {
        let held = py.detach(|| self.report.has_action(index));
        self.warn_found(py)?;
        Ok(held)
    }

    /// Warns (`UserWarning`, naming the file and the position) about the problems the walk
    /// over the report has met since the last call; an error when the user's filter turns
    /// warnings into errors.
    pub fn warn_found(&self, py: Python<'_>) -> PyResult<()> {
        warn_report_problems(py, &self.report, &self.warned)
    }

    /// Result `index`, decoded on first use (and, when the results are read in order, the
    /// next ones decoded ahead); an `IndexError` past the last result.
    pub fn action(self: &Arc<Self>, index: usize) -> Result<Arc<ResultData>, PyErr> {
        if !self.report.has_action(index) {
            return Err(PyIndexError::new_err(format!(
                "result {index} out of range: the report holds {}",
                self.report.num_actions()
            )));
        }
        if self.ahead.last.swap(index + 1, Ordering::Relaxed) == index {
            self.read_ahead(index + 1);
        }
        self.decode(index)
    }

    /// Has helpers decode the results from `from` to `from + READ_AHEAD` (those the report
    /// holds).
    fn read_ahead(self: &Arc<Self>, from: usize) {
        let until = from + READ_AHEAD;
        self.ahead.until.fetch_max(until, Ordering::Relaxed);
        self.ahead.next.fetch_max(from, Ordering::Relaxed);
        let helpers = std::thread::available_parallelism()
            .map_or(1, |n| n.get().saturating_sub(1))
            .clamp(1, 4);
        while self.ahead.running.load(Ordering::Acquire) < helpers {
            self.ahead.running.fetch_add(1, Ordering::AcqRel);
            let handle = Arc::clone(self);
            let spawned = std::thread::Builder::new()
                .name("sightline-read-ahead".into())
                .spawn(move || handle.help());
            if spawned.is_err() {
                self.ahead.running.fetch_sub(1, Ordering::AcqRel);
                break;
            }
        }
    }

    /// A helper's loop: decodes the next result nobody took until the window is done (or the
    /// report's results are).
    fn help(&self) {
        loop {
            let index = self.ahead.next.fetch_add(1, Ordering::AcqRel);
            if index >= self.ahead.until.load(Ordering::Acquire) || !self.report.has_action(index) {
                // Undo the overshoot so that a later window starts where this one ended.
                self.ahead.next.fetch_min(index, Ordering::AcqRel);
                self.ahead.running.fetch_sub(1, Ordering::AcqRel);
                return;
            }
            if let Ok(data) = self.decode(index) {
                self.hold(index, data);
            }
        }
    }

    /// The slot of result `index` (one the report holds), made on first use.
    fn slot(&self, index: usize) -> Arc<Mutex<Slot>> {
        if let Some(slot) = self
            .actions
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(index)
        {
            return Arc::clone(slot);
        }
        let mut slots = self.actions.write().unwrap_or_else(PoisonError::into_inner);
        if slots.len() <= index {
            slots.resize_with(index + 1, Arc::default);
        }
        Arc::clone(&slots[index])
    }

    /// The Python strings of a table of `strings` strings: the cache of the largest table
    /// met so far (every table is a beginning of the report's).
    fn names(&self, strings: usize) -> NameCache {
        let mut names = self.names.lock().unwrap_or_else(PoisonError::into_inner);
        if names.len() < strings {
            *names = NameCache::new(strings);
        }
        names.clone()
    }

    /// Result `index` (in range), decoded on first use.
    fn decode(&self, index: usize) -> Result<Arc<ResultData>, PyErr> {
        let slot = self.slot(index);
        // The slot's lock is held while decoding: a second asker waits for the first's result.
        let mut slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(alive) = slot.alive.upgrade() {
            return Ok(alive);
        }
        if let Some(error) = &slot.error {
            return Err(PyValueError::new_err(error.clone()));
        }
        match self.report.action(index) {
            Ok(action) => {
                let names = self.names(action.string_table_len());
                let data = Arc::new(ResultData::new(action, &self.report, names, &self.warned));
                slot.alive = Arc::downgrade(&data);
                Ok(data)
            }
            Err(e) => {
                slot.error = Some(e.to_string());
                Err(PyValueError::new_err(e.to_string()))
            }
        }
    }

    /// Keeps result `index`, decoded ahead, alive until the script reaches it.
    fn hold(&self, index: usize, data: Arc<ResultData>) {
        let mut held = self.held[index % self.held.len()]
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        *held = Some(data);
    }
}

/// Warns (`UserWarning`, naming the file and the position) about the problems the walk over
/// `report` has met beyond the first `warned`, each once even when threads ask together; an
/// error when the user's filter turns warnings into errors.
pub(crate) fn warn_report_problems(
    py: Python<'_>,
    report: &Report,
    warned: &AtomicUsize,
) -> PyResult<()> {
    let seen = warned.load(Ordering::Acquire);
    let found = report.warnings_found(seen);
    if found.is_empty() {
        return Ok(());
    }
    // Another thread may have claimed some of them meanwhile: each is warned about once.
    let claimed = warned.fetch_max(seen + found.len(), Ordering::AcqRel);
    for problem in found.iter().skip(claimed.saturating_sub(seen)) {
        crate::warn(py, &format!("{}: {problem}", report.path().display()))?;
    }
    Ok(())
}

/// A report that cannot be read, as a Python `ValueError` (its message names the file and the
/// byte offset).
pub(crate) fn read_error(error: &ReadError) -> PyErr {
    PyValueError::new_err(error.to_string())
}
