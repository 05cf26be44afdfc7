//! The Source page's per-PC answers equal NVIDIA's reader (`ncu_report`): file:line
//! (`source_info`) and PTX text (`ptx_by_pc`) for every PC of every launched function of every
//! corpus report with line info (the first 8 PCs elsewhere), plus the PCs just outside each
//! function (no answer there). Runs where the
//! reader's venv exists; skips with a message otherwise.
//!
//! In a cubin linked from several compilation units, with one PTX text each
//! (`.nv_debug_ptx_txt.<N>`), NVIDIA's reader is no oracle for the PTX: which text its
//! `ptx_by_pc` reads changes with the process's memory layout (garbage collections, earlier
//! allocations, whether the `IRange` object is kept, whether `source_info` was called first),
//! from one run to the next of the same script (reproduced on yanni and arch_render; in some
//! runs it answers every PC of a kernel as Sightline does, in others from another unit's
//! text). There each PC's PTX line must lie inside its function's definition in the text
//! the line program names ([`check_ptx_in_function`]); file:line is still compared.

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
    /// PCs of cubins with several PTX texts whose PTX line was checked inside its function.
    ptx_in_function: usize,
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
        "{} PCs compared, {} with a source line; {} actions the reader failed on; {} PCs of \
         cubins with several PTX texts checked inside their function's PTX",
        tally.compared, tally.with_lines, tally.reader_failed, tally.ptx_in_function
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
        if module.ptx_files().len() > 1 {
            if let Err(e) = check_ptx_in_function(module, answer.pc) {
                failures.push(format!(
                    "{} action {} pc {:#x}: {e}",
                    path.display(),
                    answer.action,
                    answer.pc
                ));
            }
            tally.ptx_in_function += 1;
        } else if ptx != answer.ptx {
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

/// Where a cubin holds several PTX texts: `pc`'s PTX line lies in the text whose definition of
/// `pc`'s function (`.entry NAME` or `.func ... NAME`) comes before it, with no other
/// definition between them (a PC outside every function has no PTX line).
fn check_ptx_in_function(module: &SourceModule, pc: u64) -> Result<(), String> {
    let Some(function) = module.function_at(pc) else {
        return match module.ptx_file_at(pc) {
            None => Ok(()),
            Some(at) => Err(format!("outside every function, yet PTX {at:?}")),
        };
    };
    let Some((file, line)) = module.ptx_file_at(pc) else {
        // A PC without a PTX row (the reader has none either).
        return if module.ptx_line_table().first_at(pc).is_none() {
            Ok(())
        } else {
            Err("a PTX row, yet no PTX text".into())
        };
    };
    let (name, text) = &module.ptx_files()[file];
    let is_definition = |l: &str| {
        let l = l.trim_start();
        let head = l.split('(').next().unwrap_or(l);
        (l.starts_with(".visible")
            || l.starts_with(".entry")
            || l.starts_with(".func")
            || l.starts_with(".weak"))
            && !l.starts_with(".extern")
            && (head.contains(".entry") || head.contains(".func"))
    };
    let before = &text.lines()[..(line as usize).min(text.lines().len())];
    let definition = before
        .iter()
        .rposition(|l| is_definition(l))
        .ok_or_else(|| format!("line {line} of {name} precedes every function definition"))?;
    let head = &before[definition];
    if head.contains(function.name()) {
        Ok(())
    } else {
        Err(format!(
            "line {line} of {name} lies in {head:?}, not in {}",
            function.name()
        ))
    }
}
