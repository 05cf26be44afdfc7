//! A run's exports: what `sightline compare` and the app's Compare with… read of a path.

use std::path::{Path, PathBuf};

use super::CompareError;
use crate::core::Progress;
use crate::timeline::nsys::export_report;
use crate::timeline::{TimelineFileKind, timeline_inputs};

/// The exports of run `run` at `path`: an export, a report (exported with `nsys` into
/// `cache_dir`, or the cached export of it), or a folder of them (other timeline files there,
/// NVTXT or CodeXL, are not a run's exports and are skipped). The error names the file.
pub fn run_exports(
    run: char,
    path: &Path,
    nsys: Option<&Path>,
    cache_dir: &Path,
    progress: Progress<'_>,
) -> Result<Vec<PathBuf>, CompareError> {
    let input = |message: String| CompareError::Input { run, message };
    let mut files = Vec::new();
    let found = timeline_inputs(std::slice::from_ref(&path.to_path_buf()))
        .map_err(|e| input(e.to_string()))?;
    for file in found {
        match TimelineFileKind::of(&file) {
            Some(TimelineFileKind::NsysExport) => files.push(file),
            Some(TimelineFileKind::NsysReport) => files.push(
                export_report(&file, nsys, cache_dir, progress)
                    .map_err(|e| input(e.to_string()))?,
            ),
            _ if path.is_dir() => {}
            _ => {
                return Err(input(format!(
                    "{}: not an Nsight Systems export or report (.sqlite, .nsys-rep, .qdrep)",
                    file.display()
                )));
            }
        }
    }
    if progress.is_cancelled() {
        return Err(CompareError::Cancelled);
    }
    Ok(files)
}
