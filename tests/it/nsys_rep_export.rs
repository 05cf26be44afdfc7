//! `.nsys-rep` reports exported with NVIDIA's real `nsys` (Nsight Systems 2023.4 from
//! `../shared/tools/nsys-oracle`), end to end: a report made by NVIDIA's own NVTXT importer
//! (`ImportNvtxt`, `../shared/tools/nvtxt-oracle`) is exported into the cache on first use,
//! reused while the report is unchanged, exported again when it changes, and read by the
//! loader. NVIDIA's SQLite export does not carry imported NVTXT events (FORMATS.md §3), so the
//! export holds no events and the loader says so, naming the cached export.
//!
//! Runs only where both tools are installed (their `setup.sh` prints their paths; installing
//! them downloads Debian packages, which a test must not do): otherwise it says so and skips.

use std::path::{Path, PathBuf};
use std::process::Command;

const NSYS: &str =
    "/tmp/nsys-oracle/x/usr/lib/x86_64-linux-gnu/nsight-systems/target-linux-x64/nsys";
const IMPORTER_DIR: &str = "/tmp/nvtxt-oracle";

fn tools() -> Option<(PathBuf, PathBuf, PathBuf)> {
    let nsys = PathBuf::from(NSYS);
    let host = Path::new(IMPORTER_DIR).join("x/usr/lib/nsight-systems/host-linux-x64");
    let importer = host.join("ImportNvtxt");
    if !nsys.is_file() || !importer.is_file() {
        eprintln!(
            "skipping: NVIDIA's nsys and ImportNvtxt are not installed (run \
             ../shared/tools/nsys-oracle/setup.sh and ../shared/tools/nvtxt-oracle/setup.sh)"
        );
        return None;
    }
    Some((nsys, importer, Path::new(IMPORTER_DIR).join("libs")))
}

/// Makes `out` (an `.nsys-rep`) from an NVTXT file with NVIDIA's importer.
fn import(importer: &Path, libs: &Path, home: &Path, nvtxt: &Path, out: &Path) {
    let host = importer.parent().expect("host folder");
    let status = Command::new(importer)
        .args(["--cmd", "create", "-n"])
        .arg(nvtxt)
        .arg("-o")
        .arg(out)
        .env("HOME", home)
        .env(
            "LD_LIBRARY_PATH",
            format!("{}:{}", host.display(), libs.display()),
        )
        .output()
        .expect("run ImportNvtxt");
    assert!(out.is_file(), "ImportNvtxt made no report: {status:?}");
}

/// Runs `sightline timeline REPORT --nsys NSYS` with its cache in `cache`; (stderr, success).
fn timeline(report: &Path, nsys: &Path, cache: &Path) -> (String, bool) {
    let out = Command::new(env!("CARGO_BIN_EXE_sightline"))
        .arg("timeline")
        .arg(report)
        .arg("--nsys")
        .arg(nsys)
        .env("XDG_CACHE_HOME", cache)
        .output()
        .expect("run sightline");
    (
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.success(),
    )
}

fn exports(cache: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(cache.join("sightline/nsys"))
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    found.retain(|p| p.extension().is_some_and(|e| e == "sqlite"));
    found.sort();
    found
}

#[test]
fn a_real_report_is_exported_once_cached_and_read() {
    let Some((nsys, importer, libs)) = tools() else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).expect("home");
    let cache = dir.path().join("cache");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/nvtxt");
    let report = dir.path().join("annotated.nsys-rep");
    import(
        &importer,
        &libs,
        &home,
        &fixtures.join("names.nvtxt"),
        &report,
    );

    let (stderr, ok) = timeline(&report, &nsys, &cache);
    let made = exports(&cache);
    assert_eq!(made.len(), 1, "one cached export: {stderr}");
    let export = &made[0];
    assert!(
        stderr.contains(&format!("using the SQLite export {}", export.display())),
        "{stderr}"
    );
    // NVIDIA's export: its own metadata, and no imported NVTXT rows.
    let db = rusqlite::Connection::open(export).expect("open the export");
    let version: String = db
        .query_row(
            "SELECT value FROM META_DATA_EXPORT WHERE name = 'EXPORT_PRODUCT_VERSION'",
            [],
            |r| r.get(0),
        )
        .expect("export version");
    assert!(version.starts_with("2023.4"), "{version}");
    assert!(!ok);
    assert!(
        stderr.contains("the Nsight Systems export holds no events"),
        "{stderr}"
    );

    // Unchanged report: the export is reused, not redone.
    let modified = std::fs::metadata(export).and_then(|m| m.modified()).ok();
    let (again, _) = timeline(&report, &nsys, &cache);
    assert!(again.contains(&export.display().to_string()), "{again}");
    assert_eq!(
        std::fs::metadata(export).and_then(|m| m.modified()).ok(),
        modified
    );

    // A changed report gets a new export.
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::remove_file(&report).expect("remove");
    import(
        &importer,
        &libs,
        &home,
        &fixtures.join("colors.nvtxt"),
        &report,
    );
    let (third, _) = timeline(&report, &nsys, &cache);
    assert_eq!(exports(&cache).len(), 2, "{third}");
}
