//! Building a kernel's page off the GUI thread: the model's [`SourcePage`] (cubin, line
//! tables, per-PC metrics), nvdisasm's SASS text when it is installed (cached by the model by
//! the code's hash), the source files found on this machine, and the [`PageData`] rows. The
//! GUI keeps the last few built pages, so switching back to a kernel is immediate.

use std::path::Path;
use std::sync::Arc;

use sightline_model::ncu::source::nvdisasm::{self, NvdisasmOptions};
use sightline_model::ncu::source::{SourceError, SourcePage};
use sightline_model::ncu::{Action, NameBase, ReadError, Report};

use super::data::PageData;
use crate::job::{Job, Polled, poll_job};

/// The largest source file read from this machine (a larger one is shown as missing).
const MAX_LOCAL_FILE: u64 = 16 * 1024 * 1024;

/// How many built pages are kept.
const KEPT_PAGES: usize = 4;

/// A build running for one kernel.
pub struct BuildJob {
    /// The kernel it builds.
    pub kernel: usize,
    job: Option<Job<PageData, BuildError>>,
    /// `(fraction, stage)` while it runs.
    pub progress: Option<(f32, String)>,
}

/// Reads a source file from this machine if it is there and not too large.
pub fn read_local(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_LOCAL_FILE {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// Why the Source page of a kernel could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The kernel result cannot be decoded.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// Its binary or source cannot be read.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// The build's thread could not be started.
    #[error("could not start the Source page's thread: {0}")]
    Spawn(#[source] std::io::Error),
    /// The build's thread ended without a result (it panicked).
    #[error("the Source page's build stopped unexpectedly")]
    Stopped,
}

/// Builds the page of `kernel` (on the calling thread).
pub fn build_page(
    report: &Report,
    kernel: usize,
    options: &NvdisasmOptions,
    progress: &dyn Fn(f32, &str),
) -> Result<PageData, BuildError> {
    let action = report.action(kernel)?;
    build_page_of(report, &action, options, progress)
}

/// [`build_page`] of a kernel result already decoded (the tab's: not decoded again).
pub fn build_page_of(
    report: &Report,
    action: &Action,
    options: &NvdisasmOptions,
    progress: &dyn Fn(f32, &str),
) -> Result<PageData, BuildError> {
    progress(0.1, "reading the kernel binary");
    let mut page = SourcePage::build(report, action, None)?;
    let mut messages = Vec::new();
    if !page.sass().is_empty() {
        progress(0.4, "disassembling (nvdisasm)");
        match nvdisasm::disassemble_page(&page, options) {
            Ok(Some(disassembly)) => page = page.with_disassembly(&disassembly),
            Ok(None) => messages.push(nvdisasm::MISSING_HINT.to_owned()),
            Err(e) => messages.push(format!("no SASS text: {e}")),
        }
    }
    progress(0.8, "laying out the rows");
    let name = action.name(NameBase::Demangled).to_owned();
    Ok(PageData::build(&page, name, &read_local, messages))
}

impl BuildJob {
    /// Starts building the page of kernel result `action`; `wake` requests a repaint with
    /// every message.
    pub fn start(
        report: Arc<Report>,
        action: Arc<Action>,
        options: NvdisasmOptions,
        wake: impl Fn() + Send + Sync + 'static,
    ) -> BuildJob {
        let kernel = action.index();
        let job = Job::start(wake, BuildError::Spawn, move |ctx| {
            let progress = |f: f32, stage: &str| {
                ctx.progress_now(f, stage);
            };
            build_page_of(&report, &action, &options, &progress)
        });
        BuildJob {
            kernel,
            job: Some(job),
            progress: Some((0.0, "starting".into())),
        }
    }

    /// The built page or the error, once the job ended.
    pub fn poll(&mut self) -> Option<Result<PageData, BuildError>> {
        if let Some(event) = poll_job(&mut self.job, &mut self.progress) {
            return Some(match event {
                Polled::Sent(never) => match never {},
                Polled::Done(page) => Ok(page),
                Polled::Failed(e) => Err(e),
            });
        }
        if self.job.as_ref().is_some_and(|j| !j.is_running()) {
            self.job = None;
            return Some(Err(BuildError::Stopped));
        }
        None
    }
}

/// The built pages by kernel, most recent last.
#[derive(Default)]
pub struct PageCache {
    pages: Vec<(usize, Arc<PageData>)>,
}

impl PageCache {
    /// The page of `kernel`, if built.
    pub fn get(&self, kernel: usize) -> Option<&Arc<PageData>> {
        self.pages
            .iter()
            .find(|(k, _)| *k == kernel)
            .map(|(_, p)| p)
    }

    /// Keeps `page` for `kernel` (dropping the oldest beyond [`KEPT_PAGES`]).
    pub fn insert(&mut self, kernel: usize, page: Arc<PageData>) {
        self.pages.retain(|(k, _)| *k != kernel);
        self.pages.push((kernel, page));
        if self.pages.len() > KEPT_PAGES {
            self.pages.remove(0);
        }
    }

    /// The page of `kernel` to change (a resolved file).
    pub fn get_mut(&mut self, kernel: usize) -> Option<&mut PageData> {
        self.pages
            .iter_mut()
            .find(|(k, _)| *k == kernel)
            .map(|(_, p)| Arc::make_mut(p))
    }
}
