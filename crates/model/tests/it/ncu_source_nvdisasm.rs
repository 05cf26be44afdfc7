//! SASS text from nvdisasm equals NVIDIA's reader (`IAction.sass_by_pc`) for every PC of the
//! launched functions of the corpus reports with small cubins (NVIDIA's reader disassembles the
//! whole module on each call and its memory grows without bound on large ones). Runs only
//! where nvdisasm and the reader's venv are found; passes without them, with a message. The
//! disassembly cache goes to a temporary folder, never to $HOME. `SIGHTLINE_NVDISASM` names the
//! binary when it is not on the search path.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Test code: a failed unwrap is a failed test.

use crate::source_common::{ask_oracle_sass, corpus_ncu, oracle_python, reports};
use sightline_model::ncu::Report;
use sightline_model::ncu::source::SourcePage;
use sightline_model::ncu::source::nvdisasm::{self, NvdisasmOptions};

/// Cubins up to this size are compared.
const MAX_CUBIN: usize = 64 * 1024;

#[test]
fn sass_text_equals_nvidia_reader() {
    let Some(corpus) = corpus_ncu() else { return };
    // SIGHTLINE_NVDISASM names a binary explicitly (as `--nvdisasm` does); else the search.
    let explicit = std::env::var_os("SIGHTLINE_NVDISASM").map(std::path::PathBuf::from);
    let Some(tool) = nvdisasm::find(explicit.as_deref()) else {
        eprintln!("skipped: nvdisasm not found ({})", nvdisasm::MISSING_HINT);
        return;
    };
    let Some(python) = oracle_python() else {
        return;
    };
    let cache = tempfile::tempdir().unwrap();
    let options = NvdisasmOptions {
        explicit: Some(tool),
        cache_dir: Some(cache.path().to_path_buf()),
        ..NvdisasmOptions::default()
    };
    let mut failures = Vec::new();
    let mut compared = 0;
    for path in reports(&corpus) {
        let report = Report::open(&path).unwrap();
        for index in 0..report.num_actions() {
            let action = report.action(index).unwrap();
            let page = SourcePage::build(&report, &action, None).unwrap();
            let small =
                page.module().cubin().is_some_and(|c| {
                    c.section_data(".symtab").is_some() && page.sass().len() < 400
                }) && report.sources().iter().all(|s| s.bytes.len() < MAX_CUBIN);
            // sm_100 and later: the reader of 2026.3 knows them, nvdisasm 13 too.
            if !small {
                continue;
            }
            let Some(disassembly) = nvdisasm::disassemble_page(&page, &options).unwrap() else {
                continue;
            };
            let page = page.with_disassembly(&disassembly);
            let queries: Vec<(usize, u64)> =
                page.sass().iter().map(|r| (index, r.address)).collect();
            let answers = match ask_oracle_sass(&python, &path, &queries) {
                Ok(a) => a,
                Err(e) => {
                    eprintln!("{e}");
                    continue;
                }
            };
            for (row, answer) in page.sass().iter().zip(answers) {
                let ours = row.text.clone().unwrap_or_default();
                if ours != answer.sass {
                    failures.push(format!(
                        "{} kernel {index} {:#x}: expected {:?}, got {ours:?}",
                        path.display(),
                        row.address,
                        answer.sass
                    ));
                }
                compared += 1;
            }
        }
    }
    eprintln!("{compared} SASS lines compared");
    assert!(compared > 0, "nothing compared");
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures[..failures.len().min(30)].join("\n")
    );
}
