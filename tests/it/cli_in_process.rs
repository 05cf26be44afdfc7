//! The commands' `run` functions called in-process (`sightline::cli::*`): the same bytes and
//! exit code as the binary, whose `main` only parses and calls them.

use std::io::Write;
use std::process::{Command, ExitCode};

use clap::Parser;
use sightline::cli;
use sightline::ncu::Report;
use sightline::section::{SectionChoice, SectionFolder, SectionSource};

use crate::common::fixtures;

/// One command's arguments parsed as the binary parses them (`sightline CMD ARGS...`).
#[derive(Parser)]
struct One<A: clap::Args> {
    #[command(flatten)]
    args: A,
}

type Run<A> = fn(&A, &mut dyn Write) -> anyhow::Result<ExitCode>;

/// Runs `argv` (command name first) in-process with `run`, and as a process; asserts equal
/// stdout and exit code and returns the output.
fn same_as_binary<A: clap::Args + clap::FromArgMatches>(run: Run<A>, argv: &[&str]) -> Vec<u8> {
    let parsed = One::<A>::try_parse_from(argv).expect("arguments parse");
    let mut out = Vec::new();
    let code = run(&parsed.args, &mut out).expect("command runs");
    let process = Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args(argv)
        .env("SIGHTLINE_DISABLE_DEPLOYMENT", "1")
        .output()
        .expect("run sightline");
    assert_eq!(
        String::from_utf8_lossy(&out),
        String::from_utf8_lossy(&process.stdout),
        "{argv:?}"
    );
    let expected = match process.status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(n) => ExitCode::from(u8::try_from(n).unwrap()),
        None => panic!("{argv:?}: killed"),
    };
    assert_eq!(code, expected, "{argv:?}: exit code");
    out
}

fn fixture(name: &str) -> String {
    fixtures().join(name).display().to_string()
}

/// The sample's kernels all embed sections, so the in-process `details` (which cannot set
/// `SIGHTLINE_DISABLE_DEPLOYMENT`) never loads, and so never deploys, the default path.
fn sample_embeds_sections_everywhere() -> String {
    let path = fixture("sample.ncu-rep");
    let report = Report::open(&path).unwrap();
    for i in 0..report.num_actions() {
        assert!(report.action(i).unwrap().num_sections() > 0, "kernel {i}");
    }
    path
}

#[test]
fn details_in_process_equals_the_binary() {
    let sample = sample_embeds_sections_everywhere();
    for extra in [&[][..], &["--json"], &["--csv"], &["--kernel", "1"]] {
        let mut argv = vec!["details", sample.as_str()];
        argv.extend_from_slice(extra);
        let out = same_as_binary(cli::details::run, &argv);
        assert!(!out.is_empty(), "{argv:?}");
    }
    let sections = concat!(env!("CARGO_MANIFEST_DIR"), "/sections");
    let argv = ["details", &sample, "--json", "--section-folder", sections];
    same_as_binary(cli::details::run, &argv);
}

#[test]
fn report_and_codexl_commands_in_process_equal_the_binary() {
    let sample = fixture("sample.ncu-rep");
    same_as_binary(cli::summary::run, &["summary", &sample]);
    same_as_binary(
        cli::dump::run,
        &["dump", &sample, "--kernel", "0", "--units"],
    );
    let counters = fixture("codexl/session1.csv");
    same_as_binary(cli::counters::run, &["counters", &counters]);
    same_as_binary(cli::counters::run, &["counters", &counters, "--json"]);
    let occupancy = fixture("codexl/session1.occupancy");
    same_as_binary(cli::occupancy::run, &["occupancy", &occupancy, "--csv"]);
}

#[test]
fn nvtxt_errors_give_exit_code_1_in_process() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.nvtxt");
    std::fs::write(&path, "RangePush, 1, Nope, x\n").unwrap();
    let path = path.display().to_string();
    same_as_binary(cli::nvtxt::run, &["nvtxt", &path, "--summary"]);
    let args = One::<cli::nvtxt::NvtxtArgs>::try_parse_from(["nvtxt", &path]).unwrap();
    let code = cli::nvtxt::run(&args.args, &mut Vec::new()).unwrap();
    assert_eq!(code, ExitCode::from(1));
}

/// The section-choice rule of the model, as `details` applies it: explicit folders win over
/// embedded sections; without folders, a kernel's embedded sections.
#[test]
fn section_choice_prefers_folders_then_embedded_sections() {
    let sample = sample_embeds_sections_everywhere();
    let report = Report::open(&sample).unwrap();
    let action = report.action(1).unwrap();
    assert_eq!(
        SectionChoice::new(Vec::new()).source(&action),
        SectionSource::Embedded
    );
    let folder = SectionFolder {
        path: concat!(env!("CARGO_MANIFEST_DIR"), "/sections").into(),
        recursive: false,
    };
    let mut choice = SectionChoice::new(vec![folder]);
    assert_eq!(choice.source(&action), SectionSource::Folders);
    let from_folder = choice.sections_for(&action).unwrap().sections.len();
    assert!(from_folder > action.num_sections(), "{from_folder}");
    assert_eq!(
        SectionSource::for_action(&action, false),
        SectionSource::Folders
    );
}

/// `sightline profile` on the table-family fixture: the flat list and both trees of its three
/// samples (compute ← main, an unresolved kernel address, one without a stack), in-process and
/// as the binary, text and CSV.
#[test]
fn profile_views_of_the_family_fixture() {
    let export = fixture("nsys/families.sqlite");
    let flat = same_as_binary(
        cli::profile::run,
        &["profile", &export, "--view", "flat", "--csv"],
    );
    assert_eq!(
        String::from_utf8_lossy(&flat),
        "Function,Module,Self,Self %,Total,Total %\n\
         compute,libapp.so,1,33.3,1,33.3\n\
         0x7f0000001234 (unresolved),[kernel.kallsyms],1,33.3,1,33.3\n\
         main,libapp.so,0,0.0,1,33.3\n"
    );
    let top_down = same_as_binary(
        cli::profile::run,
        &["profile", &export, "--view", "top-down", "--csv"],
    );
    assert_eq!(
        String::from_utf8_lossy(&top_down),
        "Function,Module,Self,Self %,Total,Total %\n\
         main,libapp.so,0,0.0,1,33.3\n  compute,libapp.so,1,33.3,1,33.3\n\
         0x7f0000001234 (unresolved),[kernel.kallsyms],1,33.3,1,33.3\n"
    );
    let bottom_up = same_as_binary(
        cli::profile::run,
        &["profile", &export, "--view", "bottom-up", "--from", "3500"],
    );
    assert!(
        String::from_utf8_lossy(&bottom_up).starts_with("2 samples\n"),
        "{}",
        String::from_utf8_lossy(&bottom_up)
    );
}
