//! Every `stats` report equals NVIDIA's `nsys stats` CSV cell for cell on the committed goldens of
//! the generated fixture (the corpus exports and their oracle outputs are compared by the model
//! crate's `nsys_stats_oracle` test).

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
    let goldens = std::fs::read_dir(manifest().join("fixtures/nsys/golden"))
        .unwrap_or_else(|e| panic!("fixtures/nsys/golden: {e}"));
    let mut compared = 0;
    for golden in goldens
        .filter_map(|g| g.ok().map(|g| g.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "csv"))
    {
        let Some(report) = golden.file_stem().map(|s| s.to_string_lossy().into_owned()) else {
            continue;
        };
        let expected = std::fs::read_to_string(&golden)
            .unwrap_or_else(|e| panic!("{}: {e}", golden.display()));
        // `<report>@<option>.csv`: the report run with an option, as the oracle names it.
        compare(&export, &report.replace('@', ":"), &expected);
        compared += 1;
    }
    assert!(compared > 0, "no goldens in fixtures/nsys/golden");
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
