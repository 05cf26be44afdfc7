//! Where a recipe reads and writes, as NVIDIA's recipes take it (Nsight Systems 2023.4):
//!
//! - `--input DIR:n`: a folder limited to its first n exports, in name order (byte order: `C`
//!   before `a`, as NVIDIA sorts); `:n` after a file is an error;
//! - `--output` patterns: `%q{VAR}` (the environment variable; left as written, with a warning,
//!   when unset), `%h` (the host name), `%p` (the process id), `%n` (the smallest positive
//!   integer making a name not yet taken; every `%n` of the pattern gets the same), `%%` (`%`);
//!   an unknown `%x` is left as written, with a warning;
//! - an output folder that exists is removed first with `--force-overwrite`; without it, NVIDIA
//!   warns and writes into the default folder instead, `RECIPE-%n` (`RECIPE-diff-%n` for diff).
//!   Unlike NVIDIA, an existing empty folder is written into;
//! - reports (`.nsys-rep`, `.qdrep`) are read through their export: the `.sqlite` beside them
//!   when a folder holds both (the report is then not counted twice), else exported with the
//!   user's `nsys` into the cache as the app does.

use std::path::{Path, PathBuf};

use crate::core::Progress;
use crate::timeline::nsys::export_report;
use crate::timeline::{OpenError, TimelineFileKind, timeline_inputs};

/// An input or output path could not be used.
#[derive(Debug, thiserror::Error)]
pub enum PathsError {
    /// `:n` after a file.
    #[error("{}: the ':n' syntax cannot be used for files", path.display())]
    LimitOnFile {
        /// The file.
        path: PathBuf,
    },
    /// A folder could not be listed.
    #[error(transparent)]
    Open(#[from] OpenError),
    /// A report could not be exported.
    #[error("{}: {message}", path.display())]
    Export {
        /// The report.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The output folder could not be removed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The output exists and is not a folder (it cannot be overwritten).
    #[error("{}: exists and is not a folder", path.display())]
    NotAFolder {
        /// The path.
        path: PathBuf,
    },
}

/// `ARG` or `DIR:n` (`n` digits after the last colon, `DIR` a folder that exists and `ARG` no
/// path that exists): the path and the limit.
pub fn split_limit(arg: &Path) -> (PathBuf, Option<usize>) {
    if arg.exists() {
        return (arg.to_path_buf(), None);
    }
    let text = arg.to_string_lossy();
    if let Some((path, n)) = text.rsplit_once(':')
        && !n.is_empty()
        && n.bytes().all(|b| b.is_ascii_digit())
        && let Ok(n) = n.parse()
    {
        return (PathBuf::from(path), Some(n));
    }
    (arg.to_path_buf(), None)
}

/// The exports (`.sqlite`) `--input` names: files as given, folders' exports and reports in
/// name order (the first n of a `DIR:n`); a report read through the export beside it, else
/// exported with `nsys` (`None`: the first on `PATH`) into `cache_dir`; each file once.
pub fn recipe_inputs(
    args: &[PathBuf],
    nsys: Option<&Path>,
    cache_dir: &Path,
) -> Result<Vec<PathBuf>, PathsError> {
    let mut out = Vec::new();
    for arg in args {
        let (path, limit) = split_limit(arg);
        if limit.is_some() && !path.is_dir() {
            return Err(PathsError::LimitOnFile { path });
        }
        let found: Vec<PathBuf> = timeline_inputs(std::slice::from_ref(&path))?
            .into_iter()
            .filter(|p| {
                matches!(
                    TimelineFileKind::of(p),
                    Some(TimelineFileKind::NsysExport | TimelineFileKind::NsysReport)
                )
            })
            .collect();
        let exports: std::collections::HashSet<PathBuf> = found
            .iter()
            .filter(|p| TimelineFileKind::of(p) == Some(TimelineFileKind::NsysExport))
            .cloned()
            .collect();
        let runs = found.into_iter().filter(|p| {
            TimelineFileKind::of(p) == Some(TimelineFileKind::NsysExport)
                || !exports.contains(&p.with_extension("sqlite"))
        });
        for file in runs.take(limit.unwrap_or(usize::MAX)) {
            if TimelineFileKind::of(&file) == Some(TimelineFileKind::NsysReport) {
                let export =
                    export_report(&file, nsys, cache_dir, Progress::default()).map_err(|e| {
                        PathsError::Export {
                            path: file.clone(),
                            message: e.to_string(),
                        }
                    })?;
                out.push(export);
            } else {
                out.push(file);
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|p| seen.insert(p.clone()));
    Ok(out)
}

/// What an `--output` pattern's expressions are replaced with.
pub struct PatternValues<'a> {
    /// The environment (`%q{VAR}`).
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// The host name (`%h`).
    pub host: &'a str,
    /// The process id (`%p`).
    pub pid: u32,
    /// Whether a path is taken (`%n`).
    pub exists: &'a dyn Fn(&Path) -> bool,
}

impl PatternValues<'_> {
    /// This process's values (the real environment, host name, pid and file system).
    pub fn here(f: impl FnOnce(&PatternValues<'_>) -> PathBuf) -> PathBuf {
        let env = |v: &str| std::env::var(v).ok();
        let exists = |p: &Path| p.exists();
        let host = host_name();
        f(&PatternValues {
            env: &env,
            host: &host,
            pid: std::process::id(),
            exists: &exists,
        })
    }
}

/// The host name (`/proc/sys/kernel/hostname`, else `HOSTNAME` or `COMPUTERNAME`).
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .or_else(|| std::env::var("COMPUTERNAME").ok())
        .unwrap_or_else(|| "localhost".into())
}

/// The path `pattern` names, with the warnings its expressions gave.
pub fn expand_output(pattern: &str, values: &PatternValues<'_>) -> (PathBuf, Vec<String>) {
    let mut warnings = Vec::new();
    // The pattern in pieces: text, and `None` where a `%n` goes.
    let mut pieces: Vec<Option<String>> = vec![Some(String::new())];
    let push = |pieces: &mut Vec<Option<String>>, s: &str| match pieces.last_mut() {
        Some(Some(last)) => last.push_str(s),
        _ => pieces.push(Some(s.to_owned())),
    };
    let mut rest = pattern;
    while let Some(at) = rest.find('%') {
        push(&mut pieces, &rest[..at]);
        let after = &rest[at + 1..];
        let mut next = after.chars();
        let used = match next.next() {
            Some('%') => {
                push(&mut pieces, "%");
                1
            }
            Some('h') => {
                push(&mut pieces, values.host);
                1
            }
            Some('p') => {
                push(&mut pieces, &values.pid.to_string());
                1
            }
            Some('n') => {
                pieces.push(None);
                1
            }
            Some('q') if after[1..].starts_with('{') && after.contains('}') => {
                let end = after.find('}').unwrap_or(after.len());
                let var = &after[2..end];
                match (values.env)(var) {
                    Some(v) => push(&mut pieces, &v),
                    None => {
                        warnings.push(format!("Environment variable '{var}' is not set."));
                        push(&mut pieces, &format!("%{}", &after[..=end]));
                    }
                }
                end + 1
            }
            other => {
                let shown = other.map(String::from).unwrap_or_default();
                warnings.push(format!("Unknown expression '%{shown}'."));
                push(&mut pieces, &format!("%{shown}"));
                shown.len()
            }
        };
        rest = &after[used..];
    }
    push(&mut pieces, rest);
    let join = |n: u64| -> PathBuf {
        let text: String = pieces
            .iter()
            .map(|p| p.clone().unwrap_or_else(|| n.to_string()))
            .collect();
        PathBuf::from(text)
    };
    if pieces.iter().all(Option::is_some) {
        return (join(0), warnings);
    }
    let n = (1..).find(|&n| !(values.exists)(&join(n))).unwrap_or(1);
    (join(n), warnings)
}

/// Where a recipe writes: `output` expanded, or `default` when not given; when the folder
/// exists, `force` has it removed first ([`remove_output`]), else the default is used with a
/// warning. The folder, whether it is to be removed first, and the warnings.
pub fn output_dir(
    output: Option<&str>,
    default: &str,
    force: bool,
    values: &PatternValues<'_>,
) -> (PathBuf, bool, Vec<String>) {
    let (path, mut warnings) = expand_output(output.unwrap_or(default), values);
    if !(values.exists)(&path) || is_empty_dir(&path) {
        return (path, false, warnings);
    }
    if force {
        return (path, true, warnings);
    }
    warnings.push(format!(
        "Failed to create '{}': Directory exists. Use '--force-overwrite' to overwrite existing \
         directories.",
        path.display()
    ));
    let (fallback, more) = expand_output(default, values);
    warnings.extend(more);
    (fallback, false, warnings)
}

/// Whether `path` is a folder holding nothing (written into as it is: a difference from NVIDIA,
/// which takes an empty folder for an existing one).
fn is_empty_dir(path: &Path) -> bool {
    std::fs::read_dir(path).is_ok_and(|mut d| d.next().is_none())
}

/// Removes the output folder `dir` before it is written again (`--force-overwrite`).
pub fn remove_output(dir: &Path) -> Result<(), PathsError> {
    if !dir.is_dir() {
        return Err(PathsError::NotAFolder {
            path: dir.to_path_buf(),
        });
    }
    std::fs::remove_dir_all(dir).map_err(|source| PathsError::Io {
        path: dir.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(pattern: &str, taken: &[&str]) -> (String, Vec<String>) {
        let env = |v: &str| (v == "FOO").then(|| "bar".to_owned());
        let exists = |p: &Path| taken.iter().any(|t| Path::new(t) == p);
        let values = PatternValues {
            env: &env,
            host: "vm",
            pid: 42,
            exists: &exists,
        };
        let (path, warnings) = expand_output(pattern, &values);
        (path.to_string_lossy().into_owned(), warnings)
    }

    #[test]
    fn output_patterns_expand_as_nvidias() {
        assert_eq!(expand("x-%q{FOO}-%h-%%-%n-%n", &[]).0, "x-bar-vm-%-1-1");
        assert_eq!(expand("y-%p", &[]).0, "y-42");
        assert_eq!(expand("r-%n", &["r-1", "r-2", "r-4"]).0, "r-3");
        let (path, warnings) = expand("z-%q{NOPE}-%x", &[]);
        assert_eq!(path, "z-%q{NOPE}-%x");
        assert_eq!(
            warnings,
            [
                "Environment variable 'NOPE' is not set.",
                "Unknown expression '%x'."
            ]
        );
        assert_eq!(expand("plain", &["plain"]).0, "plain");
    }

    #[test]
    fn a_limit_follows_the_last_colon() {
        assert_eq!(
            split_limit(Path::new("/no/such/dir:12")),
            (PathBuf::from("/no/such/dir"), Some(12))
        );
        assert_eq!(split_limit(Path::new("C:x")), (PathBuf::from("C:x"), None));
    }
}
