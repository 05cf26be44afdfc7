//! Loading a CodeXL counter or occupancy file on a `sightline-loader` thread: the file is read
//! by the model (progress by bytes, Cancel checked as it goes), prepared for the view
//! (aggregates, column lists) and the session's sibling files are looked up, all off the GUI
//! thread. The documents ([`super::CountersDoc`], [`super::OccupancyDoc`]) keep the job in the
//! shell's [`crate::lifecycle::Load`].

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sightline_model::codexl::{CodexlError, SessionFiles};
use sightline_model::core::Progress;

use crate::job::{Job, JobCtx};

/// Reads a file into what its view shows, reporting to the progress and stopping on Cancel.
pub type ReadFn<T> = fn(&Path, Progress<'_>) -> Result<T, CodexlError>;

/// What a finished load hands to the document.
pub struct Loaded<T> {
    /// The parsed and prepared file.
    pub data: T,
    /// The session's files in the same folder (the file itself included).
    pub session: SessionFiles,
    /// How long reading and parsing took.
    pub elapsed: Duration,
}

/// Why a CodeXL file could not be loaded. The message names the file.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The loader thread could not be started.
    #[error("{}: cannot start the loader thread: {source}", path.display())]
    Spawn {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file could not be read.
    #[error("{}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The load was cancelled (the lifecycle says so itself when the user cancels).
    #[error("{}: loading cancelled", path.display())]
    Cancelled {
        /// The file.
        path: PathBuf,
    },
}

impl crate::lifecycle::LoadFailure for LoadError {
    fn is_cancelled(&self) -> bool {
        matches!(self, LoadError::Cancelled { .. })
    }
}

/// A running load: `Done` with the file, or `Failed`.
pub type LoadJob<T> = Job<Box<Loaded<T>>, LoadError>;

/// Reads `path` into `T` with `read` on a new `sightline-loader` thread; `wake` requests a
/// repaint when something arrives.
pub fn start_load<T: Send + 'static>(
    path: &Path,
    read: ReadFn<T>,
    wake: impl Fn() + Send + Sync + 'static,
) -> LoadJob<T> {
    let file = path.to_path_buf();
    let failed = path.to_path_buf();
    Job::start(
        wake,
        move |source| LoadError::Spawn {
            path: failed,
            source,
        },
        move |ctx| run(&file, read, ctx).map(Box::new),
    )
}

/// The loader thread's work.
fn run<T>(path: &Path, read: ReadFn<T>, ctx: &JobCtx) -> Result<Loaded<T>, LoadError> {
    let started = Instant::now();
    let cancelled = || LoadError::Cancelled {
        path: path.to_path_buf(),
    };
    let data = read(path, Progress::new(ctx).named("reading")).map_err(|error| match error {
        CodexlError::Io { source, .. } => LoadError::Read {
            path: path.to_path_buf(),
            source,
        },
        CodexlError::Cancelled(_) => cancelled(),
    })?;
    if ctx.is_cancelled() {
        return Err(cancelled());
    }
    let session = SessionFiles::find(path);
    Ok(Loaded {
        data,
        session,
        elapsed: started.elapsed(),
    })
}
