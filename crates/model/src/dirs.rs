//! Sightline's per-user folders, found once for every part that keeps files: the caches (nsys
//! exports of `.nsys-rep` reports, nvdisasm's output) and the data folder (section files
//! installed for editing).

use std::path::PathBuf;

/// Sightline's cache folder `name`: `$XDG_CACHE_HOME/sightline/<name>`, else
/// `~/.cache/sightline/<name>`, else `sightline/<name>` in the system temporary folder.
pub fn cache_dir(name: &str) -> PathBuf {
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
