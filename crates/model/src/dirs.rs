//! Sightline's per-user folders, found once for every part that keeps files: the caches (nsys
//! exports of `.nsys-rep` reports, nvdisasm's output) and the data folder (section files
//! installed for editing).

use std::path::{Path, PathBuf};

/// Sightline's cache folder `name`: `$XDG_CACHE_HOME/sightline/<name>`, else
/// `~/.cache/sightline/<name>`, else `sightline/<name>` in the system temporary folder. On
/// Windows: `%LOCALAPPDATA%\Sightline\<name>` (the local, not roaming, application data: caches
/// stay on the machine), else the temporary folder's `Sightline\<name>`.
pub fn cache_dir(name: &str) -> PathBuf {
    if cfg!(windows) {
        let base = std::env::var_os("LOCALAPPDATA")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(std::env::temp_dir);
        return base.join("Sightline").join(name);
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("sightline").join(name)
}

/// The user's data folder (not Sightline's own below it): `%APPDATA%` on Windows, else
/// `$XDG_DATA_HOME`, else `~/.local/share`; `None` when none of these is set.
pub fn user_data_dir() -> Option<PathBuf> {
    if cfg!(windows) {
        return std::env::var_os("APPDATA").map(PathBuf::from);
    }
    if let Some(dir) = std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".local").join("share"))
}

/// The Windows program folders: `%ProgramFiles%`, `%ProgramW6432%` (the same folder for a
/// 64-bit process) and `%ProgramFiles(x86)%`, each once; none elsewhere.
pub fn program_files() -> Vec<PathBuf> {
    if !cfg!(windows) {
        return Vec::new();
    }
    let mut folders: Vec<PathBuf> = Vec::new();
    for var in ["ProgramFiles", "ProgramW6432", "ProgramFiles(x86)"] {
        if let Some(dir) = std::env::var_os(var).filter(|d| !d.is_empty()) {
            let dir = PathBuf::from(dir);
            if !folders.contains(&dir) {
                folders.push(dir);
            }
        }
    }
    folders
}

/// The files `relative` inside the folders of `parent` whose names start with `prefix`,
/// newest version first (`Nsight Systems 2025.3.1` before `Nsight Systems 2024.6.2`, `v12.10`
/// before `v12.9`): how NVIDIA's Windows installers lay out side-by-side versions, e.g.
/// `C:\Program Files\NVIDIA Corporation\Nsight Systems 2025.3.1\target-windows-x64\nsys.exe`.
pub fn versioned_installs(parent: &Path, prefix: &str, relative: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return Vec::new();
    };
    let mut found: Vec<(Vec<u64>, PathBuf)> = entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let version = name.strip_prefix(prefix)?;
            let path = entry.path().join(relative);
            path.is_file().then(|| (version_key(version), path))
        })
        .collect();
    found.sort_by(|a, b| b.cmp(a));
    found.into_iter().map(|(_, path)| path).collect()
}

/// The paths of `found` that name files, each file once (the first path to it kept, in order):
/// how the tool finders (nvdisasm, ncu) list their candidates.
pub fn existing_files_once(found: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut seen = std::collections::HashSet::new();
    found
        .into_iter()
        .filter(|p| p.is_file())
        .filter(|p| seen.insert(std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())))
        .collect()
}

/// The numbers of a version text (`2025.3.1` -> [2025, 3, 1]), compared number by number.
fn version_key(version: &str) -> Vec<u64> {
    version
        .split(|c: char| !c.is_ascii_digit())
        .filter(|part| !part.is_empty())
        .filter_map(|part| part.parse().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versioned_installs_are_newest_first() {
        let dir = tempfile::tempdir().unwrap();
        for version in ["v12.9", "v12.10", "v11.8", "v13.0-nobin"] {
            let bin = dir.path().join(version).join("bin");
            std::fs::create_dir_all(&bin).unwrap();
            if !version.ends_with("nobin") {
                std::fs::write(bin.join("nvdisasm.exe"), b"").unwrap();
            }
        }
        std::fs::create_dir_all(dir.path().join("other")).unwrap();
        let relative = Path::new("bin").join("nvdisasm.exe");
        let found = versioned_installs(dir.path(), "v", &relative);
        let expected: Vec<PathBuf> = ["v12.10", "v12.9", "v11.8"]
            .iter()
            .map(|v| dir.path().join(v).join(&relative))
            .collect();
        assert_eq!(found, expected);
        assert!(versioned_installs(&dir.path().join("absent"), "v", Path::new("x")).is_empty());
    }
}
