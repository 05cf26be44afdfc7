//! `.nsys-rep` / `.qdrep` reports: exported to SQLite by NVIDIA's `nsys` tool into a cache
//! folder, reused while the report is unchanged.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use super::NsysError;
use crate::core::Progress;

/// The `nsys` executable: `explicit` when given and present, else the first `nsys` on `PATH`.
/// On Windows, `nsys.exe` on `PATH`, else the newest Nsight Systems installed in the program
/// folders (`C:\Program Files\NVIDIA Corporation\Nsight Systems <version>\target-windows-x64\
/// nsys.exe`), where NVIDIA's installer puts it without adding it to `PATH`.
pub fn find_nsys(explicit: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = explicit {
        return p.is_file().then(|| p.to_path_buf());
    }
    let exe = if cfg!(windows) { "nsys.exe" } else { "nsys" };
    let on_path = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|d| d.join(exe))
            .find(|p| p.is_file())
    });
    on_path.or_else(|| {
        let relative = Path::new("target-windows-x64").join(exe);
        crate::dirs::program_files().iter().find_map(|folder| {
            let vendor = folder.join("NVIDIA Corporation");
            crate::dirs::versioned_installs(&vendor, "Nsight Systems ", &relative)
                .into_iter()
                .next()
        })
    })
}

/// Sightline's cache folder for exports: `$XDG_CACHE_HOME/sightline/nsys`, else
/// `~/.cache/sightline/nsys`, else the system temporary folder (on Windows
/// `%LOCALAPPDATA%\Sightline\nsys`: see [`crate::dirs::cache_dir`]).
pub fn default_cache_dir() -> PathBuf {
    crate::dirs::cache_dir("nsys")
}

/// Where the export of `report` is cached: named after the report, its size and modification
/// time, so a changed report gets a new export.
pub fn cached_export_path(report: &Path, cache_dir: &Path) -> Result<PathBuf, NsysError> {
    let meta = std::fs::metadata(report).map_err(|source| NsysError::Io {
        path: report.to_path_buf(),
        source,
    })?;
    let mut h = DefaultHasher::new();
    std::fs::canonicalize(report)
        .unwrap_or_else(|_| report.to_path_buf())
        .hash(&mut h);
    meta.len().hash(&mut h);
    meta.modified().ok().hash(&mut h);
    let stem = report
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("report");
    Ok(cache_dir.join(format!("{stem}-{:016x}.sqlite", h.finish())))
}

/// The command a person would run to export `report` to `output`: paths in single quotes for
/// a POSIX shell, in double quotes for the Windows command prompt and PowerShell.
pub fn export_command_line(nsys: &Path, report: &Path, output: &Path) -> String {
    let quote = if cfg!(windows) { '"' } else { '\'' };
    format!(
        "{} export --type sqlite --force-overwrite true --output {quote}{}{quote} {quote}{}{quote}",
        nsys.display(),
        output.display(),
        report.display()
    )
}

/// Where [`find_nsys`] looked, for the message when it found nothing.
fn not_found_where() -> String {
    if cfg!(windows) {
        " on PATH or in the Nsight Systems folders under Program Files".to_owned()
    } else {
        " on PATH".to_owned()
    }
}

/// Returns an SQLite export of `report`: the cached one when the report is unchanged, else a
/// fresh `nsys export` (waiting for it, stopping it once `progress` is cancelled). Without an
/// `nsys`, the error says exactly which command to run.
pub fn export_report(
    report: &Path,
    nsys: Option<&Path>,
    cache_dir: &Path,
    progress: Progress<'_>,
) -> Result<PathBuf, NsysError> {
    if report.is_dir() {
        return Err(NsysError::Directory {
            path: report.to_path_buf(),
        });
    }
    let output = cached_export_path(report, cache_dir)?;
    if output.is_file() {
        return Ok(output);
    }
    let Some(tool) = find_nsys(nsys) else {
        let sibling = report.with_extension("sqlite");
        return Err(NsysError::Export {
            path: report.to_path_buf(),
            message: format!(
                "an Nsight Systems report must be exported to SQLite first and no `nsys` was found{}; run: {} and open {}",
                nsys.map_or_else(not_found_where, |p| format!(" at {}", p.display())),
                export_command_line(Path::new("nsys"), report, &sibling),
                sibling.display()
            ),
        });
    };
    std::fs::create_dir_all(cache_dir).map_err(|source| NsysError::Io {
        path: cache_dir.to_path_buf(),
        source,
    })?;
    let partial = output.with_extension("partial.sqlite");
    let mut child = Command::new(&tool)
        .args([
            "export",
            "--type",
            "sqlite",
            "--force-overwrite",
            "true",
            "--output",
        ])
        .arg(&partial)
        .arg(report)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| NsysError::Export {
            path: report.to_path_buf(),
            message: format!(
                "cannot run {}: {e}; run: {}",
                tool.display(),
                export_command_line(&tool, report, &output)
            ),
        })?;
    loop {
        if progress.is_cancelled() {
            let _ = child.kill();
            let _ = child.wait();
            let _ = std::fs::remove_file(&partial);
            return Err(NsysError::Cancelled {
                path: report.to_path_buf(),
            });
        }
        match child.try_wait() {
            Ok(Some(status)) => {
                if status.success() && partial.is_file() {
                    std::fs::rename(&partial, &output).map_err(|source| NsysError::Io {
                        path: output.clone(),
                        source,
                    })?;
                    return Ok(output);
                }
                let mut stderr = String::new();
                if let Some(mut e) = child.stderr.take() {
                    use std::io::Read;
                    let _ = e.read_to_string(&mut stderr);
                }
                let _ = std::fs::remove_file(&partial);
                return Err(NsysError::Export {
                    path: report.to_path_buf(),
                    message: format!(
                        "`nsys export` failed ({status}): {}; command: {}",
                        stderr.trim(),
                        export_command_line(&tool, report, &output)
                    ),
                });
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => {
                return Err(NsysError::Export {
                    path: report.to_path_buf(),
                    message: format!("waiting for nsys: {e}"),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_nsys_names_the_command() {
        let dir = std::env::temp_dir().join(format!("sightline-rep-test-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let report = dir.join("r.nsys-rep");
        let _ = std::fs::write(&report, b"not really");
        let err = export_report(
            &report,
            Some(&dir.join("no-such-nsys")),
            &dir.join("cache"),
            Progress::none(),
        );
        let text = err
            .map(|p| p.display().to_string())
            .unwrap_or_else(|e| e.to_string());
        assert!(text.contains("nsys export --type sqlite"), "{text}");
        assert!(text.contains("r.nsys-rep"), "{text}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
