//! `sightline install-desktop` and `sightline uninstall-desktop`: the desktop entry, report
//! MIME types and icon for the current user (on Windows: the file types in the per-user
//! registry classes, `sightline_app::file_types`).

use std::io::Write;
use std::process::ExitCode;

#[cfg(not(windows))]
use crate::desktop::{InstallOptions, install_desktop, uninstall_desktop};

/// Arguments of `sightline install-desktop`.
#[derive(clap::Args, Debug, Clone)]
pub struct InstallDesktopArgs {
    /// Only write the files; do not run update-mime-database, update-desktop-database and
    /// xdg-mime (Windows: only write the registry; do not tell Explorer).
    #[arg(long)]
    pub no_register: bool,
}

/// Arguments of `sightline uninstall-desktop`.
#[derive(clap::Args, Debug, Clone)]
pub struct UninstallDesktopArgs {
    /// Only remove the files; do not run the desktop tools (Windows: do not tell Explorer).
    #[arg(long)]
    pub no_register: bool,
}

/// Installs for this executable and writes what was done to `out`.
#[cfg(not(windows))]
pub fn run_install(args: &InstallDesktopArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let report = install_desktop(&options(args.no_register))?;
    write!(out, "{report}")?;
    writeln!(
        out,
        "Sightline is installed for double-click in {}",
        report.data_dir.display()
    )?;
    Ok(ExitCode::SUCCESS)
}

/// Registers this executable's file types for the current user (the per-user registry
/// classes) and writes what was done to `out`.
#[cfg(windows)]
pub fn run_install(args: &InstallDesktopArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    use anyhow::Context;
    let exe = std::env::current_exe().context("finding sightline.exe's own path")?;
    let report = crate::app::file_types::install_file_types(&exe, !args.no_register)?;
    write!(out, "{report}")?;
    writeln!(
        out,
        "Sightline ({}) is installed for double-click in {}",
        exe.display(),
        crate::app::file_types::CLASSES_ROOT
    )?;
    Ok(ExitCode::SUCCESS)
}

/// Removes what `install-desktop` installed and writes what was done to `out`.
#[cfg(not(windows))]
pub fn run_uninstall(args: &UninstallDesktopArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let report = uninstall_desktop(&options(args.no_register))?;
    write!(out, "{report}")?;
    Ok(ExitCode::SUCCESS)
}

/// Removes the registry entries `install-desktop` wrote and writes what was done to `out`.
#[cfg(windows)]
pub fn run_uninstall(args: &UninstallDesktopArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let report = crate::app::file_types::uninstall_file_types(!args.no_register)?;
    write!(out, "{report}")?;
    Ok(ExitCode::SUCCESS)
}

/// Install options for this executable.
#[cfg(not(windows))]
fn options(no_register: bool) -> InstallOptions {
    InstallOptions {
        exec: std::env::current_exe().ok(),
        run_tools: !no_register,
        ..Default::default()
    }
}
