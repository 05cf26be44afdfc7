//! An Nsight Systems report (`.nsys-rep`) opened in the app without `nsys` on `PATH`: the tab
//! says which command to run and asks where `nsys` is; given NVIDIA's real `nsys` (2023.4, from
//! `../shared/tools/nsys-oracle`), it exports the report and reads the export, and the settings
//! keep the executable for the next report. The report is made by NVIDIA's own NVTXT importer
//! (`../shared/tools/nvtxt-oracle`); its export holds no events (NVIDIA's SQLite export does not
//! carry imported NVTXT events), which the tab then says, naming the cached export.
//!
//! Runs only where both tools are installed and no `nsys` is on `PATH`; otherwise it says so and
//! skips.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Test code: a failed unwrap is a failed test.

#[path = "it/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use egui_kittest::kittest::Queryable;
use sightline::app::document::Document;
use sightline::app::timeline::TimelineDoc;

const NSYS: &str =
    "/tmp/nsys-oracle/x/usr/lib/x86_64-linux-gnu/nsight-systems/target-linux-x64/nsys";
const IMPORTER_DIR: &str = "/tmp/nvtxt-oracle";

/// A report made by NVIDIA's importer from a fixture, in `dir`.
fn report(dir: &Path) -> Option<PathBuf> {
    let host = Path::new(IMPORTER_DIR).join("x/usr/lib/nsight-systems/host-linux-x64");
    let importer = host.join("ImportNvtxt");
    if !Path::new(NSYS).is_file() || !importer.is_file() {
        eprintln!(
            "skipping: NVIDIA's nsys and ImportNvtxt are not installed (run \
             ../shared/tools/nsys-oracle/setup.sh and ../shared/tools/nvtxt-oracle/setup.sh)"
        );
        return None;
    }
    if sightline::timeline::nsys::find_nsys(None).is_some() {
        eprintln!("skipping: an nsys is on PATH, so the tab would not ask for one");
        return None;
    }
    let home = dir.join("home");
    std::fs::create_dir_all(&home).ok()?;
    let out = dir.join("annotated.nsys-rep");
    let nvtxt = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/nvtxt/names.nvtxt");
    let _ = Command::new(&importer)
        .args(["--cmd", "create", "-n"])
        .arg(nvtxt)
        .arg("-o")
        .arg(&out)
        .env("HOME", &home)
        .env(
            "LD_LIBRARY_PATH",
            format!(
                "{}:{}",
                host.display(),
                Path::new(IMPORTER_DIR).join("libs").display()
            ),
        )
        .output();
    out.is_file().then_some(out)
}

#[test]
fn a_report_asks_for_nsys_then_exports_with_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let Some(report) = report(dir.path()) else {
        return;
    };
    // SAFETY: set before the app starts any thread; this test binary has no other test.
    unsafe { std::env::set_var("XDG_CACHE_HOME", dir.path().join("cache")) };
    let mut h = common::app::harness(vec![report]);
    common::app::step_until(&mut h, "the export error", Duration::from_secs(30), |h| {
        h.state()
            .document::<TimelineDoc>(0)
            .is_some_and(|d| d.error().is_some())
    });
    h.run();
    let error = h
        .state()
        .document::<TimelineDoc>(0)
        .and_then(|d| d.error().map(str::to_owned));
    assert!(
        error
            .as_deref()
            .is_some_and(|e| e.contains("no `nsys` was found")),
        "{error:?}"
    );
    h.get_by_label("NVIDIA's nsys exports the report to SQLite. Where is it?");

    h.state_mut()
        .document_mut::<TimelineDoc>(0)
        .expect("tab")
        .set_nsys_entry(NSYS);
    h.run();
    h.get_by_label("Export and open").click();
    h.step();
    common::app::step_until(&mut h, "the export", Duration::from_secs(60), |h| {
        h.state()
            .document::<TimelineDoc>(0)
            .and_then(|d| d.error())
            .is_some_and(|e| e.contains("holds no events"))
    });
    let error = h
        .state()
        .document::<TimelineDoc>(0)
        .and_then(|d| d.error().map(str::to_owned));
    let cache = dir.path().join("cache/sightline/nsys");
    assert!(
        error
            .as_deref()
            .is_some_and(|e| e.contains(&cache.display().to_string())),
        "the error names the cached export: {error:?}"
    );
    assert_eq!(
        h.state().settings_to_save().nsys.as_deref(),
        Some(Path::new(NSYS)),
        "the settings keep the executable"
    );
}
