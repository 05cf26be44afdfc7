//! Linux desktop integration: the `.desktop` entry, the MIME types of Nsight Compute and Nsight
//! Systems reports and the application icon, installed for the current user
//! (`sightline install-desktop`).
//!
//! The assets live in the source tree's `assets/` folder and are embedded in the binary, so an
//! installed `sightline` needs no source tree. [`install_desktop`] writes them under the XDG data
//! directory (`$XDG_DATA_HOME`, by default `~/.local/share`):
//!
//! | file | from |
//! |---|---|
//! | `applications/sightline.desktop` | `assets/sightline.desktop` (its `Exec=` rewritten when [`InstallOptions::exec`] is set) |
//! | `mime/packages/sightline-mime.xml` | `assets/sightline-mime.xml` |
//! | `icons/hicolor/scalable/apps/sightline.svg` | `assets/sightline.svg` |
//! | `icons/hicolor/256x256/apps/sightline.png` | `assets/sightline-256.png` |
//!
//! and then, when [`InstallOptions::run_tools`] is set, refreshes the desktop's databases with
//! whichever of `update-mime-database`, `update-desktop-database`, `xdg-mime` and
//! `gtk-update-icon-cache` are on `PATH`. A missing or failing tool is recorded in the
//! [`InstallReport`], never an error: the files alone are a valid installation that the desktop
//! picks up on its next scan. [`uninstall_desktop`] removes the files again.
//!
//! The MIME types ([`REPORT_MIME_TYPE`], [`COMPRESSED_REPORT_MIME_TYPE`],
//! [`NSYS_REPORT_MIME_TYPE`]) are private `x-` names: NVIDIA registers none for these files.
//! Sightline becomes their default application. SQLite databases ([`SQLITE_MIME_TYPE`], which
//! shared-mime-info defines) hold Nsight Systems exports but also much else, so Sightline is
//! only offered for them in "Open With" ([`OPEN_WITH_MIME_TYPES`]), never made their default.

use std::borrow::Cow;
use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Why [`install_desktop`], [`uninstall_desktop`] or [`desktop_entry`] failed. (The external
/// tools never fail them: see [`ToolOutcome`].)
///
/// The message says what was being done to which path; the I/O error is the
/// [`source`](std::error::Error::source), so `{error:#}` through `anyhow` prints both.
#[derive(Debug, thiserror::Error)]
pub enum DesktopError {
    /// Neither `XDG_DATA_HOME` nor `HOME` holds an absolute path.
    #[error("cannot find the data directory: neither XDG_DATA_HOME nor HOME is set")]
    NoDataDir,
    /// A path could not be made absolute (the current directory is unreadable).
    #[error("making {} absolute", path.display())]
    Absolute {
        /// The path given.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The program to put in `Exec=` is not valid UTF-8.
    #[error("{} is not valid UTF-8, which a desktop entry cannot hold", path.display())]
    NotUtf8 {
        /// The program's path.
        path: PathBuf,
    },
    /// The program to put in `Exec=` holds a control character.
    #[error("{text:?} holds a control character, which an Exec= key cannot hold")]
    ControlCharacter {
        /// The program's path.
        text: String,
    },
    /// A path to write has no parent folder or no file name.
    #[error("{} is not a file path", path.display())]
    NotAFilePath {
        /// The path.
        path: PathBuf,
    },
    /// A folder could not be created.
    #[error("creating {}", path.display())]
    CreateDir {
        /// The folder.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A file could not be written (or its temporary file renamed onto it).
    #[error("writing {}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A file could not be read.
    #[error("reading {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// An installed file could not be removed.
    #[error("removing {}", path.display())]
    Remove {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

// The MIME type of each kind of file is the model's (`sightline_model::kind`), so that the
// app, the commands and the desktop integration tell files apart in one way.
pub use sightline_model::kind::{
    ATP_MIME_TYPE, COMPRESSED_REPORT_MIME_TYPE, NSYS_REPORT_MIME_TYPE, NVTXT_MIME_TYPE,
    OCCUPANCY_MIME_TYPE, REPORT_MIME_TYPE, SQLITE_MIME_TYPE,
};

/// The MIME types Sightline is made the default application for, in the order of the desktop
/// entry's `MimeType=` key.
pub const MIME_TYPES: [&str; 6] = [
    REPORT_MIME_TYPE,
    COMPRESSED_REPORT_MIME_TYPE,
    NSYS_REPORT_MIME_TYPE,
    NVTXT_MIME_TYPE,
    ATP_MIME_TYPE,
    OCCUPANCY_MIME_TYPE,
];

/// MIME types the desktop entry also lists (offered in "Open With") without Sightline becoming
/// their default application.
pub const OPEN_WITH_MIME_TYPES: [&str; 1] = [SQLITE_MIME_TYPE];

/// File name of the desktop entry (its desktop file ID).
pub const DESKTOP_FILE_NAME: &str = "sightline.desktop";

/// Path of the desktop entry, relative to the data directory.
pub const DESKTOP_ENTRY_PATH: &str = "applications/sightline.desktop";
/// Path of the shared-mime-info package, relative to the data directory.
pub const MIME_PACKAGE_PATH: &str = "mime/packages/sightline-mime.xml";
/// Path of the scalable icon, relative to the data directory.
pub const SVG_ICON_PATH: &str = "icons/hicolor/scalable/apps/sightline.svg";
/// Path of the 256×256 icon, relative to the data directory.
pub const PNG_ICON_PATH: &str = "icons/hicolor/256x256/apps/sightline.png";

/// Every file [`install_desktop`] writes, relative to the data directory.
pub const INSTALLED_FILES: [&str; 4] = [
    DESKTOP_ENTRY_PATH,
    MIME_PACKAGE_PATH,
    SVG_ICON_PATH,
    PNG_ICON_PATH,
];

/// The desktop entry as shipped (`Exec=sightline %F`).
pub const DESKTOP_ENTRY: &str = include_str!("../../../assets/sightline.desktop");
/// The shared-mime-info package defining [`MIME_TYPES`].
pub const MIME_PACKAGE: &str = include_str!("../../../assets/sightline-mime.xml");
/// The application icon (SVG).
pub const SVG_ICON: &str = include_str!("../../../assets/sightline.svg");
/// The application icon rendered at 256×256 (PNG).
pub const PNG_ICON: &[u8] = include_bytes!("../../../assets/sightline-256.png");

/// What [`install_desktop`] and [`uninstall_desktop`] do.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InstallOptions {
    /// The XDG data directory to install into. `None`: `$XDG_DATA_HOME` when it is set to an
    /// absolute path, else `~/.local/share`. Also passed to the tools as `XDG_DATA_HOME`.
    pub data_dir: Option<PathBuf>,
    /// The program the desktop entry starts (normally [`std::env::current_exe`]); made absolute
    /// and quoted for the `Exec=` key. `None`: `sightline`, looked up on `PATH` at launch.
    pub exec: Option<PathBuf>,
    /// Refresh the desktop's databases with the tools found on `PATH`, make Sightline the
    /// default application for [`MIME_TYPES`] (`xdg-mime default`) and, on uninstall, drop
    /// those defaults from `mimeapps.list`.
    pub run_tools: bool,
    /// The XDG config directory holding `mimeapps.list`, passed to the tools as
    /// `XDG_CONFIG_HOME`. `None`: the tools' own default (`$XDG_CONFIG_HOME`, else `~/.config`).
    /// Tests set it so that `xdg-mime default` leaves the user's configuration alone.
    pub config_dir: Option<PathBuf>,
}

/// What happened to one external tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolOutcome {
    /// The tool ran and exited successfully.
    Ran,
    /// The tool did not run; the reason (e.g. not found on `PATH`).
    Skipped(String),
    /// The tool ran but failed, or could not be started; its exit status and error output.
    Failed(String),
}

/// One external tool [`install_desktop`] or [`uninstall_desktop`] considered running.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolRun {
    /// The command line, for display (`update-mime-database /home/u/.local/share/mime`).
    pub command: String,
    /// Whether it ran, was skipped or failed.
    pub outcome: ToolOutcome,
}

/// The result of [`install_desktop`] or [`uninstall_desktop`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InstallReport {
    /// The data directory used.
    pub data_dir: PathBuf,
    /// Files written (created, or replaced because their content differed).
    pub written: Vec<PathBuf>,
    /// Files that were already installed with the same content and were left untouched.
    pub unchanged: Vec<PathBuf>,
    /// Files removed (uninstall).
    pub removed: Vec<PathBuf>,
    /// Configuration files edited in place (uninstall: `mimeapps.list`).
    pub edited: Vec<PathBuf>,
    /// The external tools, in the order they were considered.
    pub tools: Vec<ToolRun>,
}

impl InstallReport {
    /// The tools that ran successfully.
    pub fn ran(&self) -> impl Iterator<Item = &ToolRun> {
        self.tools.iter().filter(|t| t.outcome == ToolOutcome::Ran)
    }

    /// The tools that were skipped.
    pub fn skipped(&self) -> impl Iterator<Item = &ToolRun> {
        self.tools
            .iter()
            .filter(|t| matches!(t.outcome, ToolOutcome::Skipped(_)))
    }

    /// The tools that failed.
    pub fn failed(&self) -> impl Iterator<Item = &ToolRun> {
        self.tools
            .iter()
            .filter(|t| matches!(t.outcome, ToolOutcome::Failed(_)))
    }
}

impl fmt::Display for InstallReport {
    /// One line per file and per tool: `wrote …`, `unchanged …`, `removed …`, `edited …`,
    /// `ran …`, `skipped …: reason`, `failed …: reason`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (verb, paths) in [
            ("wrote", &self.written),
            ("unchanged", &self.unchanged),
            ("removed", &self.removed),
            ("edited", &self.edited),
        ] {
            for path in paths {
                writeln!(f, "{verb} {}", path.display())?;
            }
        }
        for tool in &self.tools {
            match &tool.outcome {
                ToolOutcome::Ran => writeln!(f, "ran {}", tool.command)?,
                ToolOutcome::Skipped(why) => writeln!(f, "skipped {}: {why}", tool.command)?,
                ToolOutcome::Failed(why) => writeln!(f, "failed {}: {why}", tool.command)?,
            }
        }
        Ok(())
    }
}

/// Installs the desktop entry, the MIME types and the icons for the current user (see the
/// [module documentation](self)), then runs the desktop tools if [`InstallOptions::run_tools`].
///
/// Idempotent: files already installed with the same content are left untouched. Errors only
/// when the data directory cannot be determined, `exec` cannot be expressed in a desktop entry,
/// or a file cannot be written; tool problems go to [`InstallReport::tools`].
pub fn install_desktop(options: &InstallOptions) -> Result<InstallReport, DesktopError> {
    let data_dir = data_dir(options)?;
    let entry = desktop_entry(options.exec.as_deref())?;
    let files: [(&str, Cow<'_, [u8]>); 4] = [
        (DESKTOP_ENTRY_PATH, Cow::Owned(entry.into_bytes())),
        (MIME_PACKAGE_PATH, Cow::Borrowed(MIME_PACKAGE.as_bytes())),
        (SVG_ICON_PATH, Cow::Borrowed(SVG_ICON.as_bytes())),
        (PNG_ICON_PATH, Cow::Borrowed(PNG_ICON)),
    ];
    let mut report = InstallReport {
        data_dir: data_dir.clone(),
        ..InstallReport::default()
    };
    for (relative, contents) in &files {
        let path = data_dir.join(relative);
        if write_if_changed(&path, contents)? {
            report.written.push(path);
        } else {
            report.unchanged.push(path);
        }
    }
    if options.run_tools {
        refresh_databases(options, &data_dir, &mut report);
        let mut args: Vec<OsString> = vec!["default".into(), DESKTOP_FILE_NAME.into()];
        args.extend(MIME_TYPES.iter().map(OsString::from));
        report
            .tools
            .push(run_tool(options, &data_dir, "xdg-mime", &args));
    }
    Ok(report)
}

/// Removes what [`install_desktop`] installed; files already gone are not an error. With
/// [`InstallOptions::run_tools`], also drops Sightline's entries for [`MIME_TYPES`] from
/// `mimeapps.list` and refreshes the desktop's databases.
pub fn uninstall_desktop(options: &InstallOptions) -> Result<InstallReport, DesktopError> {
    let data_dir = data_dir(options)?;
    let mut report = InstallReport {
        data_dir: data_dir.clone(),
        ..InstallReport::default()
    };
    for relative in INSTALLED_FILES {
        let path = data_dir.join(relative);
        match fs::remove_file(&path) {
            Ok(()) => report.removed.push(path),
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(source) => return Err(DesktopError::Remove { path, source }),
        }
    }
    if options.run_tools {
        if let Some(list) = config_dir(options).map(|dir| dir.join("mimeapps.list"))
            && remove_default_associations(&list)?
        {
            report.edited.push(list);
        }
        refresh_databases(options, &data_dir, &mut report);
    }
    Ok(report)
}

/// The desktop entry to install: [`DESKTOP_ENTRY`] with `Exec=` starting `exec` (made absolute,
/// quoted and escaped as the Desktop Entry Specification requires) instead of `sightline`.
///
/// Errors when `exec` is not valid UTF-8 or holds control characters, which a desktop entry
/// cannot express.
pub fn desktop_entry(exec: Option<&Path>) -> Result<String, DesktopError> {
    let Some(exec) = exec else {
        return Ok(DESKTOP_ENTRY.to_owned());
    };
    let exec = absolute(exec)?;
    let program = exec_argument(&exec)?;
    let mut out = String::with_capacity(DESKTOP_ENTRY.len() + program.len());
    for line in DESKTOP_ENTRY.lines() {
        if line.starts_with("Exec=") {
            out.push_str("Exec=");
            out.push_str(&program);
            out.push_str(" %F");
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    Ok(out)
}

/// `path` as the program of an `Exec=` value: `%` doubled, quoted when it holds a reserved
/// character (with `"`, `` ` ``, `$` and `\` escaped inside the quotes), then `\` escaped again
/// because the value is itself an escaped string.
fn exec_argument(path: &Path) -> Result<String, DesktopError> {
    let Some(text) = path.to_str() else {
        return Err(DesktopError::NotUtf8 {
            path: path.to_path_buf(),
        });
    };
    if text.chars().any(char::is_control) {
        return Err(DesktopError::ControlCharacter {
            text: text.to_owned(),
        });
    }
    let text = text.replace('%', "%%");
    const RESERVED: &[char] = &[
        ' ', '\t', '"', '\'', '\\', '>', '<', '~', '|', '&', ';', '$', '*', '?', '#', '(', ')', '`',
    ];
    let quoted = if text.contains(RESERVED) {
        let mut q = String::with_capacity(text.len() + 8);
        q.push('"');
        for c in text.chars() {
            if matches!(c, '"' | '`' | '$' | '\\') {
                q.push('\\');
            }
            q.push(c);
        }
        q.push('"');
        q
    } else {
        text
    };
    Ok(quoted.replace('\\', "\\\\"))
}

/// The data directory: the option, else an absolute `$XDG_DATA_HOME`, else `~/.local/share`.
fn data_dir(options: &InstallOptions) -> Result<PathBuf, DesktopError> {
    if let Some(dir) = &options.data_dir {
        return absolute(dir);
    }
    if let Some(dir) = absolute_env("XDG_DATA_HOME") {
        return Ok(dir);
    }
    match absolute_env("HOME") {
        Some(home) => Ok(home.join(".local").join("share")),
        None => Err(DesktopError::NoDataDir),
    }
}

/// `path` made absolute ([`std::path::absolute`]).
fn absolute(path: &Path) -> Result<PathBuf, DesktopError> {
    std::path::absolute(path).map_err(|source| DesktopError::Absolute {
        path: path.to_path_buf(),
        source,
    })
}

/// The config directory holding `mimeapps.list`, as `xdg-mime` resolves it.
fn config_dir(options: &InstallOptions) -> Option<PathBuf> {
    if let Some(dir) = &options.config_dir {
        return std::path::absolute(dir).ok();
    }
    absolute_env("XDG_CONFIG_HOME").or_else(|| absolute_env("HOME").map(|h| h.join(".config")))
}

/// An environment variable holding an absolute path (XDG ignores relative ones).
fn absolute_env(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
}

/// Writes `contents` to `path` (through a temporary file and a rename, creating the parent
/// folders) unless the file already holds exactly that. Returns whether it wrote.
fn write_if_changed(path: &Path, contents: &[u8]) -> Result<bool, DesktopError> {
    if fs::read(path).is_ok_and(|old| old == contents) {
        return Ok(false);
    }
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(DesktopError::NotAFilePath {
            path: path.to_path_buf(),
        });
    };
    fs::create_dir_all(parent).map_err(|source| DesktopError::CreateDir {
        path: parent.to_path_buf(),
        source,
    })?;
    let mut temp_name = OsString::from(".");
    temp_name.push(name);
    temp_name.push(".sightline-tmp");
    let temp = parent.join(temp_name);
    if let Err(source) = fs::write(&temp, contents) {
        return Err(DesktopError::Write { path: temp, source });
    }
    if let Err(source) = fs::rename(&temp, path) {
        let _ = fs::remove_file(&temp);
        return Err(DesktopError::Write {
            path: path.to_path_buf(),
            source,
        });
    }
    Ok(true)
}

/// Runs `update-mime-database`, `update-desktop-database` and `gtk-update-icon-cache` (the
/// last only when the user's hicolor theme already has a cache: a new cache would go stale as
/// soon as another program adds an icon without refreshing it).
fn refresh_databases(options: &InstallOptions, data_dir: &Path, report: &mut InstallReport) {
    for (tool, folder) in [
        ("update-mime-database", "mime"),
        ("update-desktop-database", "applications"),
    ] {
        let folder = data_dir.join(folder);
        report
            .tools
            .push(run_tool(options, data_dir, tool, &[folder.into()]));
    }
    let hicolor = data_dir.join("icons").join("hicolor");
    let args: [OsString; 3] = ["-f".into(), "-t".into(), hicolor.clone().into()];
    if hicolor.join("icon-theme.cache").is_file() {
        report
            .tools
            .push(run_tool(options, data_dir, "gtk-update-icon-cache", &args));
    } else {
        report.tools.push(ToolRun {
            command: command_line("gtk-update-icon-cache", &args),
            outcome: ToolOutcome::Skipped("no icon cache to refresh".to_owned()),
        });
    }
}

/// Runs `program` from `PATH` with `XDG_DATA_HOME` (and `XDG_CONFIG_HOME` when set in the
/// options) in its environment only.
fn run_tool(
    options: &InstallOptions,
    data_dir: &Path,
    program: &str,
    args: &[OsString],
) -> ToolRun {
    let command = command_line(program, args);
    let Some(path) = find_on_path(program) else {
        return ToolRun {
            command,
            outcome: ToolOutcome::Skipped("not found on PATH".to_owned()),
        };
    };
    let mut child = Command::new(path);
    child
        .args(args)
        .env("XDG_DATA_HOME", data_dir)
        .stdin(Stdio::null());
    if options.config_dir.is_some()
        && let Some(config) = config_dir(options)
    {
        child.env("XDG_CONFIG_HOME", config);
    }
    let outcome = match child.output() {
        Ok(out) if out.status.success() => ToolOutcome::Ran,
        Ok(out) => {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let stderr = stderr.trim();
            if stderr.is_empty() {
                ToolOutcome::Failed(out.status.to_string())
            } else {
                ToolOutcome::Failed(format!("{}: {stderr}", out.status))
            }
        }
        Err(e) => ToolOutcome::Failed(format!("cannot start: {e}")),
    };
    ToolRun { command, outcome }
}

/// `program` and `args`, space-separated, for display.
fn command_line(program: &str, args: &[OsString]) -> String {
    let mut line = program.to_owned();
    for arg in args {
        line.push(' ');
        line.push_str(&arg.to_string_lossy());
    }
    line
}

/// The first executable file named `program` in a `PATH` folder.
fn find_on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

/// Drops `sightline.desktop` from the `[Default Applications]` and `[Added Associations]`
/// entries of [`MIME_TYPES`] in `list` (a `mimeapps.list`), removing entries left empty.
/// Everything else is kept byte for byte. Returns whether the file changed.
fn remove_default_associations(list: &Path) -> Result<bool, DesktopError> {
    let text = match fs::read_to_string(list) {
        Ok(text) => text,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(false),
        Err(source) => {
            return Err(DesktopError::Read {
                path: list.to_path_buf(),
                source,
            });
        }
    };
    let mut out = String::with_capacity(text.len());
    let mut in_associations = false;
    let mut changed = false;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let trimmed = body.trim();
        if trimmed.starts_with('[') {
            in_associations = matches!(trimmed, "[Default Applications]" | "[Added Associations]");
            out.push_str(line);
            continue;
        }
        let entry = trimmed.split_once('=').map(|(k, v)| (k.trim(), v.trim()));
        let Some((key, value)) = entry.filter(|(k, _)| in_associations && MIME_TYPES.contains(k))
        else {
            out.push_str(line);
            continue;
        };
        let apps: Vec<&str> = value.split(';').filter(|a| !a.is_empty()).collect();
        if !apps.contains(&DESKTOP_FILE_NAME) {
            out.push_str(line);
            continue;
        }
        changed = true;
        let kept: Vec<&str> = apps
            .into_iter()
            .filter(|a| *a != DESKTOP_FILE_NAME)
            .collect();
        if !kept.is_empty() {
            out.push_str(key);
            out.push('=');
            out.push_str(&kept.join(";"));
            out.push(';');
            out.push_str(&line[body.len()..]);
        }
    }
    if changed {
        write_if_changed(list, out.as_bytes())?;
    }
    Ok(changed)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_mime_types_are_those_of_the_file_kinds() {
        use sightline_model::kind::FileKind;
        let claimed: Vec<&str> = FileKind::ALL
            .iter()
            .flat_map(|k| k.mime_types())
            .copied()
            .filter(|m| !super::OPEN_WITH_MIME_TYPES.contains(m))
            .collect();
        assert_eq!(claimed, super::MIME_TYPES);
        let offered: Vec<&str> = FileKind::ALL
            .iter()
            .flat_map(|k| k.mime_types())
            .copied()
            .filter(|m| super::OPEN_WITH_MIME_TYPES.contains(m))
            .collect();
        assert_eq!(offered, super::OPEN_WITH_MIME_TYPES);
    }

    use super::*;

    #[test]
    fn exec_argument_quotes_and_escapes() {
        let plain = exec_argument(Path::new("/opt/sightline/bin/sightline")).unwrap();
        assert_eq!(plain, "/opt/sightline/bin/sightline");
        let spaced = exec_argument(Path::new("/home/a b/sightline")).unwrap();
        assert_eq!(spaced, "\"/home/a b/sightline\"");
        let percent = exec_argument(Path::new("/x/100%/sightline")).unwrap();
        assert_eq!(percent, "/x/100%%/sightline");
        // `$` and `\` escaped inside the quotes, then the backslashes escaped again.
        let odd = exec_argument(Path::new("/x/$a\\b/sightline")).unwrap();
        assert_eq!(odd, "\"/x/\\\\$a\\\\\\\\b/sightline\"");
        assert!(exec_argument(Path::new("/x/a\nb")).is_err());
    }

    #[test]
    fn associations_drop_only_sightline() {
        let dir = tempfile::tempdir().unwrap();
        let list = dir.path().join("mimeapps.list");
        let before = "[Default Applications]\n\
            application/x-nvidia-ncu-report=sightline.desktop\n\
            application/x-nvidia-ncu-report-zstd=other.desktop;sightline.desktop;\n\
            text/plain=sightline.desktop\n\
            \n\
            [Removed Associations]\n\
            application/x-nvidia-ncu-report=sightline.desktop;\n";
        fs::write(&list, before).unwrap();
        assert!(remove_default_associations(&list).unwrap());
        let after = fs::read_to_string(&list).unwrap();
        assert_eq!(
            after,
            "[Default Applications]\n\
            application/x-nvidia-ncu-report-zstd=other.desktop;\n\
            text/plain=sightline.desktop\n\
            \n\
            [Removed Associations]\n\
            application/x-nvidia-ncu-report=sightline.desktop;\n"
        );
        assert!(!remove_default_associations(&list).unwrap());
        assert!(!remove_default_associations(&dir.path().join("absent")).unwrap());
    }
}
