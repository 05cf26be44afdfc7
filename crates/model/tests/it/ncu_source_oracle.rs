//! The Source page's per-PC answers equal NVIDIA's reader (`ncu_report`): file:line
//! (`source_info`) and PTX text (`ptx_by_pc`) for every PC of every launched function of every
//! corpus report with line info (the first 8 PCs elsewhere), plus the PCs just outside each
//! function (no answer there). Runs where the
//! reader's venv exists; skips with a message otherwise.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Test code: a failed unwrap is a failed test.

use std::path::Path;

use crate::source_common::{OracleAnswer, ask_oracle, corpus_ncu, oracle_python, reports};
use sightline_model::ncu::Report;
use sightline_model::ncu::source::SourceModule;

/// Each action's source module, by action index.
type Modules = Vec<(usize, SourceModule)>;

/// Counts of one comparison run.
#[derive(Default)]
struct Tally {
    compared: usize,
    with_lines: usize,
    reader_failed: usize,
}

#[test]
fn per_pc_file_line_and_ptx_equal_nvidia_reader() {
    let Some(corpus) = corpus_ncu() else { return };
    let Some(python) = oracle_python() else {
        return;
    };
    let mut failures = Vec::new();
    let mut tally = Tally::default();
    for path in reports(&corpus) {
        let report = Report::open(&path).unwrap_or_else(|e| panic!("{e}"));
        let (queries, modules) = queries_of(&report, &path, &mut failures);
        let answers = ask_per_action(&python, &path, &modules, &queries, &mut tally);
        compare_answers(&path, &modules, answers, &mut failures, &mut tally);
    }
    eprintln!(
        "{} PCs compared, {} with a source line; {} actions the reader failed on",
        tally.compared, tally.with_lines, tally.reader_failed
    );
    assert!(tally.with_lines > 0, "no PC with line info in the corpus");
    if let Some(dump) = std::env::var_os("SIGHTLINE_SOURCE_DIFFS") {
        std::fs::write(dump, failures.join("\n")).unwrap_or_else(|e| panic!("{e}"));
    }
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures[..failures.len().min(40)].join("\n")
    );
}

/// The PCs to ask about, per action: every PC of its function where the cubin has line info
/// (and the PCs just outside it), the first PCs elsewhere; and each action's module.
fn queries_of(
    report: &Report,
    path: &Path,
    failures: &mut Vec<String>,
) -> (Vec<(usize, u64)>, Modules) {
    let mut queries = Vec::new();
    let mut modules = Vec::new();
    for index in 0..report.num_actions() {
        let action = report.action(index).unwrap_or_else(|e| panic!("{e}"));
        let Ok(module) = SourceModule::for_action(report, &action) else {
            continue;
        };
        if let Some(f) = module.function_for(&action) {
            // Every PC where the cubin has line info; the first PCs elsewhere (NVIDIA's
            // reader disassembles on every call: whole large kernels take minutes).
            let limit = if module.has_line_info() {
                usize::MAX
            } else {
                8
            };
            let pcs: Vec<u64> = f.pcs().take(limit).collect();
            if let (Some(first), Some(last)) = (pcs.first(), pcs.last()) {
                queries.push((index, first - 16));
                queries.extend(pcs.iter().map(|pc| (index, *pc)));
                if limit == usize::MAX {
                    queries.push((index, last + 16));
                }
            }
        } else {
            failures.push(format!(
                "{}: action {index}: no function found in the cubin",
                path.display()
            ));
        }
        modules.push((index, module));
    }
    (queries, modules)
}

/// NVIDIA's answers. One reader process per action: the reader runs out of memory on some
/// large modules (std::bad_alloc on monte_carlo_pi); such an action is reported, not compared.
fn ask_per_action(
    python: &Path,
    path: &Path,
    modules: &[(usize, SourceModule)],
    queries: &[(usize, u64)],
    tally: &mut Tally,
) -> Vec<OracleAnswer> {
    let mut answers = Vec::new();
    for (index, _) in modules {
        let mine: Vec<(usize, u64)> = queries
            .iter()
            .filter(|(i, _)| i == index)
            .copied()
            .collect();
        if mine.is_empty() {
            continue;
        }
        match ask_oracle(python, path, &mine) {
            Ok(a) => {
                assert_eq!(a.len(), mine.len(), "{}", path.display());
                answers.extend(a);
            }
            Err(e) => {
                eprintln!("action {index} not compared: {e}");
                tally.reader_failed += 1;
            }
        }
    }
    answers
}

/// Compares our file:line and PTX text with each answer.
fn compare_answers(
    path: &Path,
    modules: &[(usize, SourceModule)],
    answers: Vec<OracleAnswer>,
    failures: &mut Vec<String>,
    tally: &mut Tally,
) {
    for answer in answers {
        let module = &modules
            .iter()
            .find(|(i, _)| *i == answer.action)
            .expect("module")
            .1;
        let ours = module.source_info(answer.pc);
        let expected = answer.line.map(|l| (answer.file.clone(), l));
        let got = ours.map(|f| (f.file, f.line));
        if expected.is_some() {
            tally.with_lines += 1;
        }
        if got != expected {
            failures.push(format!(
                "{} action {} pc {:#x}: source_info expected {expected:?}, got {got:?}",
                path.display(),
                answer.action,
                answer.pc
            ));
        }
        let ptx = module.ptx_by_pc(answer.pc);
        if ptx != answer.ptx {
            failures.push(format!(
                "{} action {} pc {:#x}: ptx expected {:?}, got {ptx:?}",
                path.display(),
                answer.action,
                answer.pc,
                answer.ptx
            ));
        }
        tally.compared += 1;
    }
}
