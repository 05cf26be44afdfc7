//! `nsys stats` reports on exports whose schema does not read (page 1 damaged) or that were cut
//! short: every report path opens them as the timeline loader does, salvaged page by page
//! into a temporary database, and `sightline stats` says so once on stderr.
//!
//! Expected counts come from the timeline loader (an independent reader of the same rows),
//! never from the report code.

use sightline::timeline::nsys::stats::{self, ReportOutcome};
use sightline::timeline::{EventKind, Timeline, nsys, nsys::ExportDb};
use sightline_test_support::damage::{damage_schema, truncate};

use crate::timeline_damaged_stats::{stats_csv, synth};

const SALVAGED: &str = "the file's schema could not be read by SQLite: salvaged page by page";

fn kernels(tl: &Timeline) -> u64 {
    tl.counts_by_kind()
        .into_iter()
        .find(|(k, _)| *k == EventKind::Kernel)
        .map_or(0, |(_, n)| n as u64)
}

/// The sum of the `Instances` column of the `cuda_gpu_kern_sum` CSV section in `csv`.
fn kern_instances(csv: &str) -> Option<u64> {
    let start = csv.find("# cuda_gpu_kern_sum\n")?;
    let rest = &csv[start..];
    let section = rest.find("\n\n").map_or(rest, |end| &rest[..end]);
    let mut lines = section.lines().skip(1);
    let header: Vec<&str> = lines.next()?.split(',').collect();
    let col = header.iter().position(|h| *h == "Instances")?;
    Some(
        lines
            .map(|l| {
                // Kernel names may hold quoted commas: count from the left up to the column,
                // which comes before the name.
                l.split(',')
                    .nth(col)
                    .unwrap_or("0")
                    .parse::<u64>()
                    .unwrap_or_else(|e| panic!("{l}: {e}"))
            })
            .sum(),
    )
}

#[test]
fn a_damaged_schema_is_salvaged_for_every_report_path() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = synth(dir.path());
    let copy = dir.path().join("schema.sqlite");
    std::fs::copy(&path, &copy).unwrap_or_else(|e| panic!("{e}"));
    damage_schema(&copy).unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(
        ExportDb::open(&copy),
        Err(nsys::NsysError::NotSqlite { .. })
    ));
    let tl = nsys::load(&copy).unwrap_or_else(|e| panic!("{e}"));
    let expected = kernels(&tl);
    assert!(expected > 0);

    // The library: the shared opening function and the batch.
    let db = ExportDb::open_salvaging(&copy).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        db.salvage
            .as_deref()
            .is_some_and(|s| s.starts_with(SALVAGED))
    );
    assert_eq!(db.path, copy);
    let reports = stats::run_reports(&copy, &["cuda_gpu_kern_sum", "cuda_api_sum"])
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        reports
            .iter()
            .all(|(_, o)| matches!(o, ReportOutcome::Table(t) if !t.rows.is_empty()))
    );

    // The command line: the reports, the salvage said once on stderr, exit 0.
    let (code, out, stderr) = stats_csv(&[&copy], &[], "cuda_gpu_kern_sum,cuda_api_sum");
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stderr.matches(SALVAGED).count(), 1, "{stderr}");
    assert!(stderr.starts_with("warning: "), "{stderr}");
    assert_eq!(kern_instances(&out), Some(expected), "{out}");
    assert!(out.contains("# cuda_api_sum\n"), "{out}");
}

#[test]
fn a_truncated_export_reports_what_was_salvaged() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = synth(dir.path());
    let copy = dir.path().join("half.sqlite");
    std::fs::copy(&path, &copy).unwrap_or_else(|e| panic!("{e}"));
    truncate(&copy, 0.5).unwrap_or_else(|e| panic!("{e}"));
    let tl = nsys::load(&copy).unwrap_or_else(|e| panic!("{e}"));
    let salvaged = tl.warnings.iter().any(|w| w.to_string().contains(SALVAGED));
    let (_, out, stderr) = stats_csv(&[&copy], &[], "cuda_gpu_kern_sum,cuda_api_sum");
    assert!(
        !stderr.contains("not a readable SQLite database"),
        "{stderr}"
    );
    if salvaged {
        assert_eq!(stderr.matches(SALVAGED).count(), 1, "{stderr}");
    }
    if let Some(n) = kern_instances(&out) {
        assert_eq!(n, kernels(&tl), "{stderr}");
    } else {
        // No kernel row survived: the loader has none either.
        assert_eq!(kernels(&tl), 0, "{out}\n{stderr}");
    }
}

#[test]
fn merge_and_per_file_take_a_damaged_schema_alongside_an_intact_export() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = synth(dir.path());
    let copy = dir.path().join("schema.sqlite");
    std::fs::copy(&path, &copy).unwrap_or_else(|e| panic!("{e}"));
    damage_schema(&copy).unwrap_or_else(|e| panic!("{e}"));
    let intact = kernels(&nsys::load(&path).unwrap_or_else(|e| panic!("{e}")));
    let salvaged = kernels(&nsys::load(&copy).unwrap_or_else(|e| panic!("{e}")));
    let reports = "cuda_gpu_kern_sum,cuda_api_sum";

    let (code, out, stderr) = stats_csv(&[&path, &copy], &["--merge"], reports);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stderr.matches(SALVAGED).count(), 1, "{stderr}");
    assert!(stderr.contains(&copy.display().to_string()), "{stderr}");
    assert_eq!(kern_instances(&out), Some(intact + salvaged), "{out}");

    let (code, out, stderr) = stats_csv(&[&path, &copy], &["--per-file"], reports);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stderr.matches(SALVAGED).count(), 1, "{stderr}");
    let second = out
        .find(&format!("==> {} <==", copy.display()))
        .unwrap_or_else(|| panic!("{out}"));
    assert_eq!(kern_instances(&out[..second]), Some(intact), "{out}");
    assert_eq!(kern_instances(&out[second..]), Some(salvaged), "{out}");
}
