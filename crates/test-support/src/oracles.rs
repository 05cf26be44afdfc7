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
