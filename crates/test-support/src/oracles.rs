//! Where the tests find the vendor tools they compare with, when the machine has them.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The python of a venv with NVIDIA's `ncu_report` (`SIGHTLINE_NCU_ORACLE_PYTHON`, else the
/// default of `../shared/tools/ncu-oracle/setup.sh`), or `None` with a message. The reader is
/// optional even in CI (like nvdisasm): tests that need it skip without it.
pub fn ncu_oracle_python() -> Option<PathBuf> {
    let candidates = std::env::var_os("SIGHTLINE_NCU_ORACLE_PYTHON")
        .map(PathBuf::from)
        .into_iter()
        .chain(
            std::env::var_os("HOME")
                .map(|h| PathBuf::from(h).join(".cache/ncu-oracle-venv/bin/python")),
        );
    for python in candidates {
        let ok = Command::new(&python)
            .args(["-c", "import ncu_report"])
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Some(python);
        }
    }
    eprintln!(
        "skipped: NVIDIA's ncu_report module not found (run ../shared/tools/ncu-oracle/setup.sh \
         or set SIGHTLINE_NCU_ORACLE_PYTHON)"
    );
    None
}

/// What tells one installed NVIDIA module from another (for caching its answers): the
/// interpreter, and the module's file with its size and modification time.
pub fn ncu_oracle_identity(python: &Path) -> String {
    let module = Command::new(python)
        .args(["-c", "import ncu_report; print(ncu_report.__file__)"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    let stamp = std::fs::metadata(&module)
        .map(|m| format!("{} {:?}", m.len(), m.modified().ok()))
        .unwrap_or_default();
    format!("{} {module} {stamp}", python.display())
}

/// NVIDIA's `ncu` command line for the tests that need one (metric descriptions): `$SIGHTLINE_NCU`
/// when it names a file, else the one Sightline finds (`PATH`, the install folders), else the
/// one `../shared/tools/ncu-cli-oracle/setup.sh` unpacks (in `$NCU_CLI_ORACLE_DIR`, default
/// `/tmp/ncu-cli-oracle`). `None`, with a message naming what is missing, when none runs.
pub fn ncu_cli() -> Option<PathBuf> {
    let oracle_dir = std::env::var_os("NCU_CLI_ORACLE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/tmp/ncu-cli-oracle"));
    let unpacked = oracle_dir.join(
        "x/usr/lib/x86_64-linux-gnu/nsight-compute/target/linux-desktop-glibc_2_11_3-x64/ncu",
    );
    let found = sightline_model::ncu::metric_library::candidates()
        .into_iter()
        .chain([unpacked])
        .find(|ncu| {
            Command::new(ncu)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        });
    if found.is_none() {
        eprintln!(
            "skipped: NVIDIA's ncu command line not found (install Nsight Compute, set \
             SIGHTLINE_NCU, or run ../shared/tools/ncu-cli-oracle/setup.sh)"
        );
    }
    found
}
