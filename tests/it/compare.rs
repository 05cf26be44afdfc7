//! `sightline compare`: runs' figures equal `nsys stats` (the corpus oracle), the same report
//! exported by two nsys versions is unchanged, and generated rank folders with a kernel made
//! slower, faster or noisy give the verdicts and exit statuses a CI job gates on.

use std::path::{Path, PathBuf};
use std::process::Output;

use rusqlite::Connection;
use sightline_test_support::nsys::{SynthOptions, write_export};

use crate::common::nsys_manifest_exports;

pub(crate) fn compare<S: AsRef<std::ffi::OsStr>>(args: impl IntoIterator<Item = S>) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_sightline"))
        .arg("compare")
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("sightline does not run: {e}"))
}

/// `sightline compare A B --fail-on PCT --format json`.
fn gate_json(a: &Path, b: &Path, fail_on: &str) -> Output {
    compare([
        a.as_os_str(),
        b.as_os_str(),
        "--fail-on".as_ref(),
        fail_on.as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
    ])
}

pub(crate) fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// The oracle's `nsys stats` rows of `report` for `export`: (name, total, count, median).
fn oracle_rows(export: &Path, report: &str) -> Option<Vec<(String, f64, f64, f64)>> {
    let stem = export.file_stem()?.to_string_lossy().into_owned();
    let csv = export
        .parent()?
        .join("oracle")
        .join(stem)
        .join(format!("{report}.csv"));
    let text = std::fs::read_to_string(csv).ok()?;
    let mut lines = text.lines().map(crate::events_view::csv_cells);
    let header = lines.next()?;
    let col = |n: &str| header.iter().position(|h| h == n);
    let (total, count, median) = (col("Total Time (ns)")?, col("Instances")?, col("Med (ns)")?);
    let name = col("Name")?;
    Some(
        lines
            .map(|r| {
                let num = |i: usize| r[i].parse::<f64>().unwrap_or(f64::NAN);
                (r[name].clone(), num(total), num(count), num(median))
            })
            .collect(),
    )
}

#[test]
fn each_kernels_total_instances_and_median_equal_nsys_stats_on_every_export() {
    let Some(exports) = nsys_manifest_exports() else {
        return;
    };
    let mut checked = 0;
    for export in &exports {
        let Some(rows) = oracle_rows(export, "cuda_gpu_kern_sum") else {
            continue;
        };
        let out = compare([
            export.as_os_str(),
            export.as_os_str(),
            "--format".as_ref(),
            "json".as_ref(),
        ]);
        assert!(
            out.status.success(),
            "{}: {}",
            export.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let v = json(&out);
        let changes = v["changes"].as_array().cloned().unwrap_or_default();
        for (name, total, count, median) in &rows {
            let repeated = rows.iter().filter(|r| &r.0 == name).count() > 1;
            let c = changes
                .iter()
                .find(|c| c["category"] == "Kernel" && c["name"] == name.as_str())
                .unwrap_or_else(|| panic!("{}: no kernel {name:?}", export.display()));
            let a = &c["a"];
            if !repeated {
                assert_eq!(
                    a["total"].as_f64(),
                    Some(*total),
                    "{}: {name}",
                    export.display()
                );
                assert_eq!(
                    a["instances"].as_f64(),
                    Some(*count),
                    "{}: {name}",
                    export.display()
                );
                assert_eq!(
                    a["median"].as_f64(),
                    Some(*median),
                    "{}: {name}",
                    export.display()
                );
            }
            // A run against itself changes nothing; a group whose instances spread as much as
            // the threshold is inconclusive even so (one run cannot tell a 5 % change there).
            let inconclusive = c["noise_pct"].as_f64().is_some_and(|n| n >= 5.0);
            let expected = if inconclusive {
                "inconclusive"
            } else {
                "unchanged"
            };
            assert_eq!(c["verdict"], expected, "{}: {name}", export.display());
            assert_eq!(c["delta"].as_f64(), Some(0.0));
            checked += 1;
        }
        assert_ne!(v["gate"], "regressed", "{}", export.display());
    }
    assert!(checked > 0, "no kernel of the corpus was compared");
}

#[test]
fn one_report_exported_by_two_nsys_versions_is_unchanged() {
    let Some(exports) = nsys_manifest_exports() else {
        return;
    };
    let mut pairs = 0;
    for newer in exports
        .iter()
        .filter(|p| p.to_string_lossy().ends_with("_nsys23.sqlite"))
    {
        let older = PathBuf::from(newer.to_string_lossy().replace("_nsys23.sqlite", ".sqlite"));
        if !exports.contains(&older) {
            continue;
        }
        let out = gate_json(&older, newer, "1");
        let v = json(&out);
        // Pass, or inconclusive where a run's spread is too wide for 1 %: never regressed.
        let expected = if v["gate"] == "pass" { 0 } else { 3 };
        assert_eq!(
            out.status.code(),
            Some(expected),
            "{}: {v}",
            newer.display()
        );
        assert_ne!(v["gate"], "regressed", "{}", newer.display());
        let kernels = v["changes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|c| c["category"] == "Kernel")
            .count();
        assert!(kernels > 0, "{}: no kernels", newer.display());
        for c in v["changes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|c| c["category"] == "Kernel")
        {
            assert_eq!(c["delta"].as_f64(), Some(0.0), "{}: {c}", newer.display());
            assert!(
                matches!(c["verdict"].as_str(), Some("unchanged" | "inconclusive")),
                "{c}"
            );
        }
        pairs += 1;
    }
    assert!(
        pairs > 0,
        "the corpus has no report exported by two nsys versions"
    );
}

/// `n` generated rank exports in `dir` (seeds 1..=n).
pub(crate) fn ranks(dir: &Path, n: u64) -> Vec<PathBuf> {
    std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    (1..=n)
        .map(|seed| {
            let path = dir.join(format!("rank{seed}.sqlite"));
            let options = SynthOptions {
                events: 3000,
                seed,
                ..SynthOptions::default()
            };
            write_export(&path, &options).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            path
        })
        .collect()
}

/// The kernel with the most GPU time in `export`: (StringIds id, name).
fn top_kernel(export: &Path) -> (i64, String) {
    let db = Connection::open(export).unwrap_or_else(|e| panic!("{e}"));
    db.query_row(
        "SELECT k.demangledName, s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName \
         GROUP BY k.demangledName ORDER BY SUM(k.end - k.start) DESC LIMIT 1",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// Scales the durations of kernel `name` in `export` by `factor`.
fn scale_kernel(export: &Path, name: &str, factor: f64) {
    let db = Connection::open(export).unwrap_or_else(|e| panic!("{e}"));
    let changed = db
        .execute(
            "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = start + CAST((end - start) * ?1 AS INTEGER) \
             WHERE demangledName IN (SELECT id FROM StringIds WHERE value = ?2)",
            rusqlite::params![factor, name],
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(changed > 0, "{}: no kernel {name}", export.display());
}

/// A copy of the run in `from` at `to`, with the first file's top kernel scaled per rank by
/// `factors` (cycled); its name.
pub(crate) fn changed_run(from: &[PathBuf], to: &Path, factors: &[f64]) -> String {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("{e}"));
    let (_, kernel) = top_kernel(&from[0]);
    for (file, factor) in from.iter().zip(factors.iter().cycle()) {
        let copy = to.join(file.file_name().unwrap_or_default());
        std::fs::copy(file, &copy).unwrap_or_else(|e| panic!("{e}"));
        scale_kernel(&copy, &kernel, *factor);
    }
    kernel
}

#[test]
fn a_kernel_slower_on_every_rank_fails_the_gate_and_the_reverse_passes() {
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let a = ranks(&tmp.path().join("a"), 4);
    let b_dir = tmp.path().join("b");
    let kernel = changed_run(&a, &b_dir, &[1.3]);
    let a_dir = tmp.path().join("a");
    let out = gate_json(&a_dir, &b_dir, "10");
    let v = json(&out);
    assert_eq!(out.status.code(), Some(1), "{v:#}");
    assert_eq!(v["gate"], "regressed");
    let first = &v["changes"][0];
    assert_eq!(first["name"], kernel.as_str());
    assert_eq!(first["verdict"], "slower");
    let pct = first["delta_pct"].as_f64().unwrap_or(0.0);
    assert!((pct - 30.0).abs() < 0.5, "{pct}");
    assert_eq!(v["a_files"].as_array().map(Vec::len), Some(4));
    // B before A: the kernel got faster, the gate passes.
    let back = gate_json(&b_dir, &a_dir, "10");
    assert_eq!(
        back.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&back.stderr)
    );
    assert_eq!(json(&back)["changes"][0]["verdict"], "faster");
    // The text and Markdown forms say the same.
    let text = compare([a_dir.as_os_str(), b_dir.as_os_str()]);
    assert_eq!(
        text.status.code(),
        Some(0),
        "without --fail-on the exit status is 0"
    );
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("REGRESSED") && text.contains("slower"),
        "{text}"
    );
    let md = compare([
        a_dir.as_os_str(),
        b_dir.as_os_str(),
        "--format".as_ref(),
        "markdown".as_ref(),
    ]);
    let md = String::from_utf8_lossy(&md.stdout);
    assert!(
        md.starts_with("## REGRESSED") && md.contains("| kernel |"),
        "{md}"
    );
}

#[test]
fn a_change_the_rank_to_rank_spread_hides_is_inconclusive() {
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let a = ranks(&tmp.path().join("a"), 4);
    let b_dir = tmp.path().join("b");
    // Ranks alternately 2.2 times slower and 0.3 times: +25 % on average, all spread.
    changed_run(&a, &b_dir, &[2.2, 0.3]);
    let a_dir = tmp.path().join("a");
    let out = gate_json(&a_dir, &b_dir, "10");
    let v = json(&out);
    assert_eq!(out.status.code(), Some(3), "{v:#}");
    assert_eq!(v["gate"], "inconclusive");
    assert_eq!(v["changes"][0]["verdict"], "inconclusive");
}

#[test]
fn bad_runs_are_errors_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let missing = tmp.path().join("missing.sqlite");
    let out = compare([missing.as_os_str(), missing.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("missing.sqlite"), "{err}");
    let text = tmp.path().join("notes.txt");
    std::fs::write(&text, "not an export").unwrap_or_else(|e| panic!("{e}"));
    let out = compare([text.as_os_str(), text.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("notes.txt"));
    let garbage = tmp.path().join("garbage.sqlite");
    std::fs::write(&garbage, vec![7u8; 4096]).unwrap_or_else(|e| panic!("{e}"));
    let out = compare([garbage.as_os_str(), garbage.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("garbage.sqlite"));
    let empty = tmp.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap_or_else(|e| panic!("{e}"));
    let out = compare([empty.as_os_str(), empty.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no Nsight Systems exports"));
}
