//! Every `stats` report equals NVIDIA's `nsys stats` CSV cell for cell: the committed goldens of
//! the generated fixture (always), and the oracle outputs of every corpus export (when ../shared
//! is present), including the 2022.4 outputs where nsys 2023.4 refuses an older export.

use std::path::{Path, PathBuf};

use sightline::timeline::nsys::stats::{self, ReportOutcome};
use sightline_test_support::nsys::{SynthOptions, write_export};

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn compare(export: &Path, report: &str, expected: &str) {
    let out = stats::run_reports(export, &[report]).unwrap_or_else(|e| panic!("{e}"));
    let table = match &out[0].1 {
        ReportOutcome::Table(t) => t,
        ReportOutcome::Skipped(m) => panic!("{}: {report} skipped: {m}", export.display()),
    };
    let got = stats::to_csv(table);
    if got != expected {
        for (i, (e, g)) in expected.lines().zip(got.lines()).enumerate() {
            if e != g {
                panic!(
                    "{}: {report} line {}:\n expected {e}\n      got {g}",
                    export.display(),
                    i + 1
                );
            }
        }
        panic!(
            "{}: {report}: {} lines expected, {} got",
            export.display(),
            expected.lines().count(),
            got.lines().count()
        );
    }
}

#[test]
fn fixture_reports_equal_the_nsys_goldens() {
    let export = manifest().join("fixtures/nsys/synth_2k.sqlite");
    for report in stats::REPORTS {
        let golden = manifest().join(format!("fixtures/nsys/golden/{report}.csv"));
        let expected = std::fs::read_to_string(&golden)
            .unwrap_or_else(|e| panic!("{}: {e}", golden.display()));
        compare(&export, report, &expected);
    }
}

#[test]
fn fixture_is_what_the_generator_writes() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let fresh = dir.path().join("synth.sqlite");
    let counts = write_export(
        &fresh,
        &SynthOptions {
            events: 2000,
            threads: 4,
            streams: 8,
            seed: 1,
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(counts.total() >= 2000);
    let committed = std::fs::read(manifest().join("fixtures/nsys/synth_2k.sqlite"))
        .unwrap_or_else(|e| panic!("{e}"));
    let written = std::fs::read(&fresh).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        committed == written,
        "fixtures/nsys/synth_2k.sqlite differs from the generator's output: regenerate it (fixtures/nsys/README.md)"
    );
}

#[test]
fn old_report_names_are_aliases() {
    let export = manifest().join("fixtures/nsys/synth_2k.sqlite");
    let expected =
        std::fs::read_to_string(manifest().join("fixtures/nsys/golden/cuda_api_sum.csv"))
            .unwrap_or_else(|e| panic!("{e}"));
    compare(&export, "cudaapisum", &expected);
    assert!(stats::run_reports(&export, &["no_such_report"]).is_err());
}

#[test]
fn corpus_reports_equal_the_oracle() {
    let base = manifest().join("../shared/corpus/nsys");
    let oracle = base.join("oracle");
    let Ok(dirs) = std::fs::read_dir(&oracle) else {
        crate::common::skip_shared(format!("{} is absent", oracle.display()));
        return;
    };
    let mut compared = 0;
    for dir in dirs
        .filter_map(|d| d.ok().map(|d| d.path()))
        .filter(|p| p.is_dir())
    {
        let Some(stem) = dir.file_name().map(|s| s.to_string_lossy().into_owned()) else {
            continue;
        };
        let export = base.join(format!("{stem}.sqlite"));
        for report in stats::REPORTS {
            let current = dir.join(format!("{report}.csv"));
            let old_name = stats::OLD_NAMES
                .iter()
                .find(|(_, n)| n == report)
                .map(|(o, _)| *o);
            let old = old_name.map(|o| dir.join("nsys-2022.4.2.1").join(format!("{o}.csv")));
            if let Ok(expected) = std::fs::read_to_string(&current) {
                compare(&export, report, &expected);
                compared += 1;
            } else if let Some(expected) = old.and_then(|o| std::fs::read_to_string(o).ok()) {
                // nsys 2023.4 refused this export ("Please re-export"); 2022.4 answered.
                compare(&export, report, &expected);
                compared += 1;
            }
        }
    }
    assert!(compared >= 40, "only {compared} reports compared");
}

#[test]
fn corpus_skips_match_nsys() {
    let base = manifest().join("../shared/corpus/nsys");
    let export = base.join("p4arth_cuda-perf-sandbox_report1.sqlite");
    if !export.exists() {
        crate::common::skip_shared(format!("{} is absent", export.display()));
        return;
    }
    let out = stats::run_reports(&export, &["nvtx_sum"]).unwrap_or_else(|e| panic!("{e}"));
    match &out[0].1 {
        ReportOutcome::Skipped(m) => assert!(
            m.ends_with("does not contain NV Tools Extension (NVTX) data."),
            "{m}"
        ),
        other => panic!("expected a skip, got {other:?}"),
    }
}
