//! Windows desktop integration: Sightline's file types for the current user, in the per-user
//! registry classes `HKEY_CURRENT_USER\Software\Classes` (`sightline install-desktop` on
//! Windows; [`crate::desktop`] is the Linux counterpart). Written under that key:
//!
//! | key | values |
//! |---|---|
//! | `Sightline.<Type>` (one ProgID per [`FILE_TYPES`] entry) | default: the type's description; `DefaultIcon`: the program's icon; `shell\open\command`: `"<exe>" "%1"` |
//! | `.<ext>\OpenWithProgids` | a value named after the ProgID (Explorer's "Open with") |
//! | `.<ext>` (types with [`FileType::default`]) | default: the ProgID, when the key has no default yet or has Sightline's |
//! | `Applications\sightline.exe` | `FriendlyAppName`, `DefaultIcon`, `shell\open\command`, `SupportedTypes\.<ext>` |
//!
//! Which keys and values these are is computed on every system ([`registry_writes`], tested on
//! Linux too); writing and removing them is Windows-only ([`install_file_types`],
//! [`uninstall_file_types`]). Uninstalling removes exactly what installing wrote: the ProgIDs'
//! and the application's keys (Sightline's own), Sightline's `OpenWithProgids` values, and an
//! extension's default only while it still names Sightline's ProgID; keys left empty go too.
//! An extension another program already owns in `HKEY_CURRENT_USER` keeps its default (the
//! report says so): Sightline is then offered in "Open with" only.

use std::fmt;
use std::path::Path;

/// The per-user classes key all paths here are relative to.
pub const CLASSES_ROOT: &str = r"HKEY_CURRENT_USER\Software\Classes";

/// The key of Sightline's application entry (relative to [`CLASSES_ROOT`]).
pub const APPLICATION_KEY: &str = r"Applications\sightline.exe";

/// One kind of file Sightline registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileType {
    /// The ProgID (`Sightline.NcuReport`).
    pub prog_id: &'static str,
    /// What Explorer shows as the file's type.
    pub description: &'static str,
    /// The extensions, without the dot.
    pub extensions: &'static [&'static str],
    /// Whether Sightline becomes the extensions' default program (else "Open with" only, as
    /// for SQLite databases, which hold much besides Nsight Systems exports).
    pub default: bool,
}

/// The file types: those the Linux desktop entry makes Sightline the default for
/// ([`crate::desktop::MIME_TYPES`]), plus SQLite exports for "Open with".
pub const FILE_TYPES: [FileType; 7] = [
    FileType {
        prog_id: "Sightline.NcuReport",
        description: "Nsight Compute report",
        extensions: &["ncu-rep"],
        default: true,
    },
    FileType {
        prog_id: "Sightline.NcuReportCompressed",
        description: "Nsight Compute report (compressed)",
        extensions: &["ncu-repz"],
        default: true,
    },
    FileType {
        prog_id: "Sightline.NsysReport",
        description: "Nsight Systems report",
        extensions: &["nsys-rep", "qdrep"],
        default: true,
    },
    FileType {
        prog_id: "Sightline.Nvtxt",
        description: "NVTXT annotations",
        extensions: &["nvtxt"],
        default: true,
    },
    FileType {
        prog_id: "Sightline.CodexlTrace",
        description: "CodeXL application trace",
        extensions: &["atp"],
        default: true,
    },
    FileType {
        prog_id: "Sightline.CodexlOccupancy",
        description: "CodeXL kernel occupancy",
        extensions: &["occupancy"],
        default: true,
    },
    FileType {
        prog_id: "Sightline.NsysExport",
        description: "Nsight Systems SQLite export",
        extensions: &["sqlite"],
        default: false,
    },
];

/// One registry value to write: `key` (relative to [`CLASSES_ROOT`]), the value's `name`
/// (`None`: the key's default value) and its data (a string; `None`: an empty `REG_NONE`, as
/// `OpenWithProgids` entries are).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistryValue {
    /// The key, relative to [`CLASSES_ROOT`].
    pub key: String,
    /// The value's name; `None` for the default value.
    pub name: Option<String>,
    /// The string data; `None` for an empty `REG_NONE` value.
    pub data: Option<String>,
}

impl RegistryValue {
    fn string(key: impl Into<String>, name: Option<&str>, data: impl Into<String>) -> Self {
        RegistryValue {
            key: key.into(),
            name: name.map(str::to_owned),
            data: Some(data.into()),
        }
    }

    fn empty(key: impl Into<String>, name: &str) -> Self {
        RegistryValue {
            key: key.into(),
            name: Some(name.to_owned()),
            data: None,
        }
    }
}

impl fmt::Display for RegistryValue {
    /// `HKEY_CURRENT_USER\Software\Classes\<key>` and the value's name (`(default)`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.name.as_deref().unwrap_or("(default)");
        write!(f, r"{CLASSES_ROOT}\{} {name}", self.key)
    }
}

/// The `shell\open\command` of `exe`: the program and the file, each quoted.
pub fn open_command(exe: &Path) -> String {
    format!("\"{}\" \"%1\"", exe.display())
}

/// The `DefaultIcon` of `exe`: its first icon resource.
pub fn default_icon(exe: &Path) -> String {
    format!("\"{}\",0", exe.display())
}

/// The values [`install_file_types`] writes for `exe` unconditionally: the ProgIDs, the
/// `OpenWithProgids` entries and the application entry. (The extensions' defaults depend on
/// what the registry holds: see [`extension_defaults`].)
pub fn registry_writes(exe: &Path) -> Vec<RegistryValue> {
    let (command, icon) = (open_command(exe), default_icon(exe));
    let mut values = Vec::new();
    for file_type in FILE_TYPES {
        let id = file_type.prog_id;
        values.push(RegistryValue::string(id, None, file_type.description));
        values.push(RegistryValue::string(
            format!(r"{id}\DefaultIcon"),
            None,
            &icon,
        ));
        values.push(RegistryValue::string(
            format!(r"{id}\shell\open\command"),
            None,
            &command,
        ));
        for ext in file_type.extensions {
            values.push(RegistryValue::empty(format!(r".{ext}\OpenWithProgids"), id));
        }
    }
    let app = APPLICATION_KEY;
    values.push(RegistryValue::string(
        app,
        Some("FriendlyAppName"),
        "Sightline",
    ));
    values.push(RegistryValue::string(
        format!(r"{app}\DefaultIcon"),
        None,
        &icon,
    ));
    values.push(RegistryValue::string(
        format!(r"{app}\shell\open\command"),
        None,
        &command,
    ));
    for ext in FILE_TYPES.iter().flat_map(|t| t.extensions) {
        values.push(RegistryValue::string(
            format!(r"{app}\SupportedTypes"),
            Some(&format!(".{ext}")),
            "",
        ));
    }
    values
}

/// The default values of the extensions Sightline becomes the default program for: `.<ext>`'s
/// default value, the ProgID.
pub fn extension_defaults() -> Vec<RegistryValue> {
    FILE_TYPES
        .iter()
        .filter(|t| t.default)
        .flat_map(|t| {
            t.extensions
                .iter()
                .map(|ext| RegistryValue::string(format!(".{ext}"), None, t.prog_id))
        })
        .collect()
}

/// The keys that are Sightline's alone, removed with everything below them on uninstall: the
/// ProgIDs and the application entry.
pub fn own_keys() -> Vec<&'static str> {
    FILE_TYPES
        .iter()
        .map(|t| t.prog_id)
        .chain([APPLICATION_KEY])
        .collect()
}

/// What [`install_file_types`] or [`uninstall_file_types`] did, one line per value or key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RegistryReport {
    /// Values written (created or changed).
    pub written: Vec<String>,
    /// Values already holding what would be written.
    pub unchanged: Vec<String>,
    /// Extensions whose default another program holds: left alone, Sightline in "Open with".
    pub kept: Vec<String>,
    /// Keys and values removed.
    pub removed: Vec<String>,
}

impl fmt::Display for RegistryReport {
    /// `wrote …`, `unchanged …`, `kept …`, `removed …`, one per line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (verb, lines) in [
            ("wrote", &self.written),
            ("unchanged", &self.unchanged),
            ("kept", &self.kept),
            ("removed", &self.removed),
        ] {
            for line in lines {
                writeln!(f, "{verb} {line}")?;
            }
        }
        Ok(())
    }
}

/// Why writing or removing the registry entries failed: the key (relative to
/// [`CLASSES_ROOT`]), what was being done, and the system's error.
#[derive(Debug, thiserror::Error)]
#[error(r"{action} HKEY_CURRENT_USER\Software\Classes\{key}")]
pub struct RegistryError {
    /// The key, relative to [`CLASSES_ROOT`].
    pub key: String,
    /// What was being done (`writing`, `removing`...).
    pub action: &'static str,
    /// The system's error.
    #[source]
    pub source: std::io::Error,
}

#[cfg(windows)]
pub use self::windows::{install_file_types, uninstall_file_types};

#[cfg(windows)]
#[path = "file_types_windows.rs"]
mod windows;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_the_desktop_entry_claims_is_registered() {
        use sightline_model::kind::FileKind;
        let mut registered: Vec<&str> = FILE_TYPES
            .iter()
            .flat_map(|t| t.extensions)
            .copied()
            .collect();
        registered.sort_unstable();
        let mut claimed: Vec<&str> = FileKind::ALL
            .iter()
            .filter(|k| !k.mime_types().is_empty())
            .flat_map(|k| k.extensions())
            .copied()
            .collect();
        claimed.sort_unstable();
        assert_eq!(registered, claimed);
        let defaults: Vec<&str> = FILE_TYPES
            .iter()
            .filter(|t| !t.default)
            .flat_map(|t| t.extensions)
            .copied()
            .collect();
        assert_eq!(defaults, ["sqlite"], "SQLite is offered, never claimed");
    }

    #[test]
    fn values_quote_the_program() {
        let exe = Path::new(r"C:\Program Files\Sightline é\sightline.exe");
        let writes = registry_writes(exe);
        let command = writes
            .iter()
            .find(|v| v.key == r"Sightline.NcuReport\shell\open\command")
            .unwrap();
        assert_eq!(
            command.data.as_deref(),
            Some(r#""C:\Program Files\Sightline é\sightline.exe" "%1""#)
        );
        let icon = writes
            .iter()
            .find(|v| v.key == r"Applications\sightline.exe\DefaultIcon")
            .unwrap();
        assert_eq!(
            icon.data.as_deref(),
            Some(r#""C:\Program Files\Sightline é\sightline.exe",0"#)
        );
        let open_with = RegistryValue::empty(r".qdrep\OpenWithProgids", "Sightline.NsysReport");
        assert!(writes.contains(&open_with));
        assert_eq!(
            open_with.to_string(),
            r"HKEY_CURRENT_USER\Software\Classes\.qdrep\OpenWithProgids Sightline.NsysReport"
        );
        // Every value lies under one of Sightline's own keys or an extension's key.
        let own = own_keys();
        for value in &writes {
            let top = value.key.split('\\').next().unwrap();
            assert!(
                own.iter().any(|k| value.key.starts_with(k)) || top.starts_with('.'),
                "{value}"
            );
        }
        assert_eq!(
            extension_defaults().len(),
            7,
            "six default types, seven extensions"
        );
    }
}
