//! Loading a CodeXL counter or occupancy file on a `sightline-loader` thread: the file is read in
//! chunks (progress by bytes, Cancel checked between chunks), parsed by the model, prepared for
//! the view (aggregates, column lists) and the session's sibling files are looked up, all off the
//! GUI thread. The documents ([`super::CountersDoc`], [`super::OccupancyDoc`]) keep the job in the
//! shell's [`crate::lifecycle::Load`].

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sightline_model::codexl::session::SessionFiles;

use crate::job::{Job, JobCtx};

/// Bytes read between two cancel checks and progress messages (throttled by the job).
const CHUNK_BYTES: usize = 4 << 20;
/// Share of the progress bar given to reading (the rest is parsing).
const READ_SHARE: f32 = 0.7;

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

/// A running load: `Done` with the file, or `Failed`.
pub type LoadJob<T> = Job<Box<Loaded<T>>, LoadError>;

/// Reads `path` on a new `sightline-loader` thread and turns its bytes into `T` with `prepare`;
/// `wake` requests a repaint when something arrives.
pub fn start_load<T: Send + 'static>(
    path: &Path,
    prepare: fn(&[u8]) -> T,
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
        move |ctx| run(&file, prepare, ctx).map(Box::new),
    )
}

/// The loader thread's work.
fn run<T>(path: &Path, prepare: fn(&[u8]) -> T, ctx: &JobCtx) -> Result<Loaded<T>, LoadError> {
    let started = Instant::now();
    let cancelled = || LoadError::Cancelled {
        path: path.to_path_buf(),
    };
    let bytes = read_with_progress(path, ctx)
        .map_err(|source| LoadError::Read {
            path: path.to_path_buf(),
            source,
        })?
        .ok_or_else(cancelled)?;
    ctx.progress_now(READ_SHARE, "parsing");
    let data = prepare(&bytes);
    drop(bytes);
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

/// Reads the whole file in chunks, sending the share read (of [`READ_SHARE`]) as progress;
/// `None` when cancelled.
fn read_with_progress(path: &Path, ctx: &JobCtx) -> std::io::Result<Option<Vec<u8>>> {
    let mut file = std::fs::File::open(path)?;
    let total = file.metadata().map(|m| m.len()).unwrap_or(0);
    let mut bytes = Vec::with_capacity(usize::try_from(total).unwrap_or(0).min(1 << 30));
    let mut chunk = vec![0u8; CHUNK_BYTES];
    loop {
        if ctx.is_cancelled() {
            return Ok(None);
        }
        let n = match file.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        bytes.extend_from_slice(&chunk[..n]);
        if total > 0 {
            let fraction = (bytes.len() as f64 / total as f64).min(1.0) as f32;
            ctx.progress(fraction * READ_SHARE, "reading");
        }
    }
    Ok(Some(bytes))
}
