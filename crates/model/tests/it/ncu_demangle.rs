//! The demangler (`ncu::source::demangle`) against the names NVIDIA printed for the corpus
//! (`../shared/corpus/ncu/`):
//!
//! - every kernel of every report of the manifest stores its mangled and its demangled name:
//!   the mangled name demangled in the report's style (`Style::stored_by` its tool version)
//!   must equal the stored one. Reports written before 2021.2 and reports without a version
//!   store GNU's style (`vector_add(double const*, ...)`); for those the name in NVIDIA's
//!   style must also equal what the ncu 2024.1 CLI prints for that kernel (`"Kernel Name"` of
//!   `cli-oracle/<report>/source-sass-K.csv`), the style of every later report;
//! - every `"Kernel Name"` / `"Function Name"` of the CLI's source CSVs whose symbol is in the
//!   kernel's cubin (the kernel and the device functions it calls) must be the demangled name
//!   of one of them.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Test code: a failed unwrap is a failed test.

use std::collections::BTreeSet;
use std::path::Path;

use crate::source_common::{corpus_ncu, reports};
use sightline_model::ncu::source::SourceModule;
use sightline_model::ncu::source::demangle::{
    Style, demangle, demangle_or_raw, demangle_or_raw_in,
};
use sightline_model::ncu::{NameBase, Report};

/// The `"Kernel Name"` and `"Function Name"` values of a source CSV.
fn oracle_names(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            l.strip_prefix("\"Kernel Name\",\"")
                .or_else(|| l.strip_prefix("\"Function Name\",\""))
        })
        .map(|rest| rest.trim_end_matches(',').trim_end_matches('"').to_owned())
        .collect()
}

/// The oracle's name of kernel `k` of `stem`: the `"Kernel Name"` of the block of
/// `source-sass-K.csv` whose first instruction is at `load_pc`.
fn oracle_kernel_name(corpus: &Path, stem: &str, k: usize, load_pc: u64) -> Option<String> {
    let text =
        std::fs::read_to_string(corpus.join(format!("cli-oracle/{stem}/source-sass-{k}.csv")))
            .ok()?;
    let mut name: Option<String> = None;
    for line in text.lines() {
        if let Some(found) = oracle_names(line).into_iter().next() {
            name = Some(found);
        } else if let Some(address) = line.strip_prefix("\"0x") {
            let hex = address.split('"').next()?;
            if u64::from_str_radix(hex, 16).ok() == Some(load_pc) {
                return name;
            }
            name = None;
        }
    }
    None
}

#[test]
fn demangled_kernel_names_equal_the_reports_names() {
    let Some(corpus) = corpus_ncu() else {
        return;
    };
    let (mut equal, mut total, mut gnu, mut cli_compared) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for path in reports(&corpus) {
        let report = Report::open(&path).unwrap();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        // The style the report stores its names in, by the version that wrote it.
        let style = Style::stored_by(report.tool_version());
        for k in 0..report.num_actions() {
            let action = report.action(k).unwrap();
            let mangled = action.name(NameBase::Mangled);
            let stored = action.name(NameBase::Demangled);
            let mut compare = |ours: String, expected: String, what: &str| {
                total += 1;
                if ours == expected {
                    equal += 1;
                } else {
                    failures.push(format!(
                        "{stem} kernel {k} ({what}): {mangled}\n  ours:     {ours}\n  \
                         expected: {expected}"
                    ));
                }
            };
            compare(
                demangle_or_raw_in(mangled, style),
                stored.to_owned(),
                "stored",
            );
            if style == Style::Gnu {
                gnu += 1;
                // The CLI prints NVIDIA's style for every report: compared where it has a
                // page of this kernel.
                let load_pc = SourceModule::for_action(&report, &action)
                    .ok()
                    .and_then(|m| m.function_for(&action).and_then(|f| f.load_pc));
                if let Some(name) = load_pc.and_then(|pc| oracle_kernel_name(&corpus, &stem, k, pc))
                {
                    cli_compared += 1;
                    compare(demangle_or_raw(mangled), name, "CLI");
                }
                assert!(
                    !mangled.starts_with("_Z") || demangle(mangled).is_some(),
                    "{stem} kernel {k}: {mangled} does not demangle"
                );
            }
        }
    }
    eprintln!(
        "{equal} of {total} kernel names equal ({gnu} kernels of reports storing GNU-style \
         names, {cli_compared} of them also compared with the CLI's name)"
    );
    assert!(total > 100, "{total}");
    assert!(gnu > 0 && cli_compared > 0, "{gnu} {cli_compared}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn demangled_function_names_equal_the_cli_block_names() {
    let Some(corpus) = corpus_ncu() else {
        return;
    };
    let (mut equal, mut total, mut not_in_cubin) = (0, 0, 0);
    let mut distinct = BTreeSet::new();
    // Every `_Z` symbol of the cubins (device functions never launched included) must read.
    let (mut unread, mut all_symbols) = (BTreeSet::new(), BTreeSet::new());
    let mut failures = Vec::new();
    for path in reports(&corpus) {
        let report = Report::open(&path).unwrap();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let Ok(entries) = std::fs::read_dir(corpus.join("cli-oracle").join(&stem)) else {
            continue;
        };
        for entry in entries {
            let file = entry.unwrap().path();
            let name = file.file_name().unwrap().to_string_lossy().into_owned();
            let Some(k) = name
                .strip_prefix("source-")
                .and_then(|r| r.strip_suffix(".csv"))
                .map(|r| r.rsplit('-').next().unwrap_or(r))
                .and_then(|k| k.parse::<usize>().ok())
            else {
                continue;
            };
            if k >= report.num_actions() {
                continue;
            }
            let action = report.action(k).unwrap();
            let Ok(module) = SourceModule::for_action(&report, &action) else {
                continue;
            };
            let ours: BTreeSet<String> = module
                .functions()
                .iter()
                .map(|f| demangle_or_raw(f.name()))
                .collect();
            let symbols: Vec<&str> = module.functions().iter().map(|f| f.name()).collect();
            for symbol in &symbols {
                if symbol.starts_with("_Z") {
                    unread.extend(demangle(symbol).is_none().then(|| symbol.to_string()));
                    all_symbols.insert(symbol.to_string());
                }
            }
            let text = std::fs::read_to_string(&file).unwrap();
            for expected in oracle_names(&text) {
                // Only names whose symbol the cubin has: the symbol's base name must appear
                // in one of the cubin's symbols.
                let base = expected
                    .split('(')
                    .next()
                    .unwrap_or(&expected)
                    .rsplit("::")
                    .next()
                    .unwrap_or(&expected)
                    .trim_start_matches("void ")
                    .split('<')
                    .next()
                    .unwrap_or("")
                    .to_owned();
                if base.is_empty() || !symbols.iter().any(|s| s.contains(&base)) {
                    not_in_cubin += 1;
                    continue;
                }
                total += 1;
                distinct.insert(expected.clone());
                if ours.contains(&expected) {
                    equal += 1;
                } else {
                    failures.push(format!("{stem}/{name}: {expected}"));
                }
            }
        }
    }
    eprintln!(
        "{equal} of {total} CLI block names ({} distinct) equal a demangled cubin symbol \
         ({not_in_cubin} without a symbol in the cubin)",
        distinct.len()
    );
    eprintln!("{} distinct _Z symbols in the cubins", all_symbols.len());
    assert!(
        unread.is_empty(),
        "symbols that do not demangle: {unread:?}"
    );
    assert!(total > 50, "{total}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
