//! The Nsight Compute ↔ timeline link (`sightline::link`, `sightline link`) on the generated
//! pair (every answer known by construction) and on the corpus pair (the same program profiled
//! with both tools, answered by hand).

use std::path::{Path, PathBuf};

use sightline::cli::link::{LinkArgs, run};
use sightline::link::{Certainty, Criterion, LinkSet, link_files};
use sightline::ncu::Report;
use sightline::timeline::{EventId, nsys};
use sightline_test_support::link_pair::{
    Expected, LAUNCHES, SCENARIOS, Scenario, write_report, write_timeline,
};

/// Writes the generated timeline and every scenario's report into a temporary folder.
fn generated_pair() -> (tempfile::TempDir, PathBuf, Vec<PathBuf>) {
    let dir = tempfile::tempdir().unwrap();
    let export = dir.path().join("train.sqlite");
    write_timeline(&export).unwrap();
    let reports = SCENARIOS
        .iter()
        .map(|s| {
            let path = dir.path().join(format!("{}.ncu-rep", s.name));
            write_report(s, std::fs::File::create(&path).unwrap()).unwrap();
            path
        })
        .collect();
    (dir, export, reports)
}

fn link(export: &Path, report: &Path) -> LinkSet {
    let timeline = nsys::load(export).unwrap();
    let report = Report::open(report).unwrap();
    link_files(export, &timeline, &report).unwrap()
}

/// The timeline event of launch `i` of the generated program.
fn event_of(set: &LinkSet, launch: usize) -> EventId {
    let l = LAUNCHES[launch];
    set.kernels
        .iter()
        .find(|k| k.start == l.start && k.pid == Some(u64::from(l.pid)))
        .unwrap_or_else(|| panic!("launch {launch} is not on the timeline"))
        .event
}

fn check_scenario(scenario: &Scenario, set: &LinkSet) {
    assert_eq!(
        set.links.results.len(),
        scenario.expected.len(),
        "{}",
        scenario.name
    );
    for (link, expected) in set.links.results.iter().zip(scenario.expected) {
        let got: Vec<EventId> = link.candidates.iter().map(|c| c.event).collect();
        match expected {
            Expected::Certain(l) => {
                assert_eq!(
                    link.certainty,
                    Certainty::Certain,
                    "{} result {}: {link:?}",
                    scenario.name,
                    link.result
                );
                assert_eq!(
                    got,
                    vec![event_of(set, *l)],
                    "{} result {}",
                    scenario.name,
                    link.result
                );
            }
            Expected::Candidates(ls) => {
                assert_eq!(
                    link.certainty,
                    Certainty::Candidates,
                    "{} result {}",
                    scenario.name,
                    link.result
                );
                let mut want: Vec<EventId> = ls.iter().map(|l| event_of(set, *l)).collect();
                let mut sorted = got.clone();
                want.sort_by_key(|e| e.0);
                sorted.sort_by_key(|e| e.0);
                assert_eq!(sorted, want, "{} result {}", scenario.name, link.result);
            }
        }
    }
}

#[test]
fn generated_pair_every_answer() {
    let (_dir, export, reports) = generated_pair();
    for (scenario, report) in SCENARIOS.iter().zip(&reports) {
        let set = link(&export, report);
        check_scenario(scenario, &set);
    }
}

#[test]
fn generated_pair_explains_each_match() {
    let (_dir, export, reports) = generated_pair();
    // The same run with `-k gemm --launch-skip 1`: pid and program, mangled name, sizes,
    // stream and the skipped launch counted.
    let set = link(&export, &reports[0]);
    let held = &set.links.results[1].candidates[0].held;
    for c in [
        Criterion::SameRun,
        Criterion::MangledName,
        Criterion::GridBlock,
        Criterion::Stream,
        Criterion::LaunchOrder(2),
    ] {
        assert!(held.contains(&c), "{c} missing from {held:?}");
    }
    assert_eq!(set.links.filter.skip, 1);
    assert_eq!(set.links.filter.kernel_name.as_deref(), Some("gemm"));
    // Another run: the program, not the pid; relu by its demangled name (the report has no
    // mangled one); never the stream.
    let set = link(&export, &reports[1]);
    let held = &set.links.results[1].candidates[0].held;
    assert!(held.contains(&Criterion::SameProgram), "{held:?}");
    assert!(held.contains(&Criterion::DemangledName), "{held:?}");
    assert!(!held.contains(&Criterion::Stream), "{held:?}");
    // Unknown filters: the ambiguous gemm offers the NVTX-agreeing launches first; the relu
    // is certain by NVTX alone.
    let set = link(&export, &reports[2]);
    let first: Vec<EventId> = set.links.results[0].candidates[..2]
        .iter()
        .map(|c| c.event)
        .collect();
    let mut first = first;
    first.sort_by_key(|e| e.0);
    let mut want = vec![event_of(&set, 3), event_of(&set, 5)];
    want.sort_by_key(|e| e.0);
    assert_eq!(first, want);
    let relu = &set.links.results[1].candidates[0].held;
    assert!(relu.contains(&Criterion::Nvtx), "{relu:?}");
    assert!(
        !relu.iter().any(|c| matches!(c, Criterion::LaunchOrder(_))),
        "{relu:?}"
    );
    // by_event: the events of the report's matches, certain or not.
    let by_event = set.links.by_event();
    assert_eq!(by_event.get(&event_of(&set, 4)), Some(&vec![(1, true)]));
    assert_eq!(by_event.get(&event_of(&set, 0)), Some(&vec![(0, false)]));
    assert!(!by_event.contains_key(&event_of(&set, 8)));
}

#[test]
fn link_command_prints_every_result() {
    let (_dir, export, reports) = generated_pair();
    let mut out = Vec::new();
    let args = LinkArgs {
        timeline: export.clone(),
        report: reports[2].clone(),
        json: true,
        nsys: None,
    };
    run(&args, &mut out).unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let results = json.as_array().unwrap();
    assert_eq!(results.len(), 3);
    assert_eq!(results[0]["certainty"], "candidates");
    assert_eq!(results[0]["matches"].as_array().unwrap().len(), 4);
    assert_eq!(results[1]["certainty"], "certain");
    assert_eq!(results[1]["kernel"], "relu(float*, int)");
    assert_eq!(results[2]["matches"][0]["start_ns"], LAUNCHES[2].start);
    assert_eq!(results[2]["matches"][0]["pid"], 100);
    let mut text = Vec::new();
    let args = LinkArgs {
        json: false,
        ..args
    };
    run(&args, &mut text).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(
        text.contains("result 1: relu(float*, int) — certain"),
        "{text}"
    );
    assert!(
        text.contains("3 results, 2 matched with certainty, 9 timeline kernels"),
        "{text}"
    );
}

#[test]
fn link_errors_name_the_file() {
    let (dir, export, _) = generated_pair();
    let not_a_report = dir.path().join("nothing.ncu-rep");
    std::fs::write(&not_a_report, b"not a report").unwrap();
    let args = LinkArgs {
        timeline: export,
        report: not_a_report,
        json: false,
        nsys: None,
    };
    let err = run(&args, &mut Vec::new()).unwrap_err().to_string();
    assert!(err.contains("nothing.ncu-rep"), "{err}");
}

/// The corpus pair: Extra-P's `ex-gpu` (tests/data/nsight/sampled_callchains/ex-gpu.s10)
/// traced by nsys (pid 868881, the oldest export layout: no mangled names, no PROCESSES: the
/// main thread names the program) and profiled by ncu 2020.3.1 in another run (pid 872075,
/// `/work/home/ag27juro/mini-example/ex-gpu`, no command line stored). Six launches, six
/// results, in the same order: init_array twice, vector_add, vector_add1, vector_mul,
/// vector_dot, all grid 1 × block 10 on stream 7. By hand: result i is the i-th kernel row.
#[test]
fn corpus_pair_extrap_ex_gpu() {
    let Some((export, report)) = crate::common::extrap_pair() else {
        return;
    };
    let set = link(&export, &report);
    let starts = [
        352_103_962,
        352_137_146,
        352_157_434,
        352_177_723,
        352_198_138,
        355_183_117,
    ];
    assert_eq!(set.links.results.len(), 6);
    assert_eq!(set.links.filter.command_line, None);
    for (i, link) in set.links.results.iter().enumerate() {
        assert_eq!(link.result, i);
        assert_eq!(link.certainty, Certainty::Certain, "result {i}: {link:?}");
        let c = &link.candidates[0];
        assert_eq!(set.kernels[c.kernel].start, starts[i], "result {i}");
        assert_eq!(set.kernels[c.kernel].pid, Some(868_881));
        assert!(c.held.contains(&Criterion::SameProgram), "{:?}", c.held);
        assert!(c.held.contains(&Criterion::DemangledName), "{:?}", c.held);
        assert!(c.held.contains(&Criterion::GridBlock), "{:?}", c.held);
    }
    // The two init_array launches are told apart by launch order alone.
    assert!(
        set.links.results[1].candidates[0]
            .held
            .contains(&Criterion::LaunchOrder(2))
    );
}
