//! `sightline install-desktop` and `sightline uninstall-desktop`: the desktop entry, report
//! MIME types and icon for the current user.

use std::io::Write;
use std::process::ExitCode;

use crate::desktop::{InstallOptions, install_desktop, uninstall_desktop};

/// Arguments of `sightline install-desktop`.
#[derive(clap::Args, Debug, Clone)]
pub struct InstallDesktopArgs {
    /// Only write the files; do not run update-mime-database, update-desktop-database and
    /// xdg-mime.
    #[arg(long)]
    pub no_register: bool,
}

/// Arguments of `sightline uninstall-desktop`.
#[derive(clap::Args, Debug, Clone)]
pub struct UninstallDesktopArgs {
    /// Only remove the files; do not run the desktop tools.
    #[arg(long)]
    pub no_register: bool,
}

/// Installs for this executable and writes what was done to `out`.
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

/// Removes what `install-desktop` installed and writes what was done to `out`.
pub fn run_uninstall(args: &UninstallDesktopArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let report = uninstall_desktop(&options(args.no_register))?;
    write!(out, "{report}")?;
    Ok(ExitCode::SUCCESS)
}

/// Install options for this executable.
fn options(no_register: bool) -> InstallOptions {
    InstallOptions {
        exec: std::env::current_exe().ok(),
        run_tools: !no_register,
        ..Default::default()
    }
}
