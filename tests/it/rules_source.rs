//! NvRules' source API on real cubins: `IAction.source_info(pc)`, `ptx_by_pc(pc)` and
//! `source_files()` give the Source model's answers (which equal NVIDIA's reader, see
//! `crates/model/tests/it/ncu_source_oracle.rs`) for every PC with metrics, so rules that group by
//! line work; workloads without line info give `None` / `""`. `sass_by_pc` gives nvdisasm's
//! text when the run enables it and nvdisasm is installed.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use sightline::ncu::Report;
use sightline::ncu::source::{SourceModule, SourcePage};
use sightline::rules::{RuleEngine, RunOptions};

use crate::common::rules::{rule, rules_dir};

const BODY: &str = r#"
def apply(handle):
    ctx = NvRules.get_context(handle)
    fe = ctx.frontend()
    action = ctx.range_by_idx(0).action_by_idx(0)
    pcs = action.metric_by_name("inst_executed").correlation_ids()
    out = []
    for i in range(pcs.num_instances()):
        pc = pcs.as_uint64(i)
        info = action.source_info(pc)
        where = "-" if info is None else "%s:%d" % (info.file_name(), info.line())
        out.append("%d|%s|%s" % (pc, where, action.ptx_by_pc(pc)))
    files = action.source_files()
    out.append("files|" + ";".join(sorted("%s=%d" % (k, len(v)) for k, v in files.items())))
    fe.message("\n".join(out))
"#;

#[test]
fn rules_get_source_lines_and_ptx_from_the_cubin() {
    let Some(corpus) = crate::common::corpus_ncu() else {
        return;
    };
    let engine = RuleEngine::start().expect("engine");
    let dir = rules_dir(&[("SourceProbe.py", &rule("SourceProbe", BODY))]);
    let mut with_lines = 0;
    for name in [
        "ncu2022.3_rtx3070_manual_nvtx.ncu-rep",
        "ncu2022.1.1_a40_indexspaces.ncu-rep",
        "ncu2024.1.1_gtx1660s_vec_add_full.ncu-rep",
    ] {
        let report = Arc::new(Report::open(corpus.join("reports").join(name)).expect("report"));
        let mut options = RunOptions::new(vec![dir.path().to_path_buf()]);
        options.timeout = Duration::from_secs(60);
        options.kernels = Some((0..report.num_actions()).collect());
        let out = engine.run(report.clone(), options).expect("run");
        assert!(out.load_errors.is_empty(), "{:?}", out.load_errors);
        for (k, kernel) in out.kernels.iter().enumerate() {
            assert!(kernel.errors.is_empty(), "{name} {k}: {:?}", kernel.errors);
            let text = &kernel.results[0].messages[0].message;
            let action = report.action(k).expect("action");
            let module = SourceModule::for_action(&report, &action).expect("module");
            let mut lines = text.lines().collect::<Vec<_>>();
            let files = lines.pop().expect("files line");
            let expected_files: Vec<String> = {
                let mut f: Vec<String> = module
                    .source_files()
                    .iter()
                    .map(|f| format!("{}={}", f.name, f.content.as_deref().unwrap_or("").len()))
                    .collect();
                f.sort();
                f
            };
            assert_eq!(
                files,
                format!("files|{}", expected_files.join(";")),
                "{name} {k}"
            );
            assert!(!lines.is_empty(), "{name} {k}: no PC");
            for line in lines {
                let mut parts = line.splitn(3, '|');
                let pc: u64 = parts.next().unwrap().parse().unwrap();
                let location = parts.next().unwrap();
                let ptx = parts.next().unwrap_or("");
                let expected = module
                    .source_info(pc)
                    .map_or("-".to_owned(), |f| format!("{}:{}", f.file, f.line));
                assert_eq!(location, expected, "{name} {k} pc {pc:#x}");
                assert_eq!(ptx, module.ptx_by_pc(pc), "{name} {k} pc {pc:#x}");
                if location != "-" {
                    with_lines += 1;
                }
            }
        }
    }
    assert!(with_lines > 50, "only {with_lines} PCs with a line");
}

const SASS_BODY: &str = r#"
def apply(handle):
    ctx = NvRules.get_context(handle)
    action = ctx.range_by_idx(0).action_by_idx(0)
    pcs = action.metric_by_name("inst_executed").correlation_ids()
    out = []
    for i in range(pcs.num_instances()):
        pc = pcs.as_uint64(i)
        out.append("%d|%s" % (pc, action.sass_by_pc(pc)))
    ctx.frontend().message("\n".join(out))
"#;

/// `IAction.sass_by_pc`: empty without nvdisasm options (the default); with them and nvdisasm
/// installed, the page's SASS text (equal to NVIDIA's reader, `ncu_source_nvdisasm.rs`).
#[test]
fn rules_get_sass_from_nvdisasm_when_enabled() {
    use sightline::ncu::source::nvdisasm::{self, NvdisasmOptions};
    let Some(corpus) = crate::common::corpus_ncu() else {
        return;
    };
    let report = Arc::new(
        Report::open(corpus.join("reports/ncu2022.3_rtx3070_manual_nvtx.ncu-rep")).expect("report"),
    );
    let engine = RuleEngine::start().expect("engine");
    let dir = rules_dir(&[("SassProbe.py", &rule("SassProbe", SASS_BODY))]);
    let run = |nvdisasm: Option<NvdisasmOptions>| {
        let mut options = RunOptions::new(vec![dir.path().to_path_buf()]);
        options.timeout = Duration::from_secs(120);
        options.kernels = Some(vec![1]);
        options.nvdisasm = nvdisasm;
        let out = engine.run(report.clone(), options).expect("run");
        assert!(
            out.kernels[0].errors.is_empty(),
            "{:?}",
            out.kernels[0].errors
        );
        out.kernels[0].results[0].messages[0].message.clone()
    };
    let without = run(None);
    assert!(without.lines().count() > 10);
    assert!(without.lines().all(|l| l.ends_with('|')), "{without}");
    let explicit = std::env::var_os("SIGHTLINE_NVDISASM").map(PathBuf::from);
    let Some(tool) = nvdisasm::find(explicit.as_deref()) else {
        eprintln!("skipped: nvdisasm not found ({})", nvdisasm::MISSING_HINT);
        return;
    };
    let cache = tempfile::tempdir().expect("cache");
    let options = NvdisasmOptions {
        explicit: Some(tool),
        cache_dir: Some(cache.path().to_path_buf()),
        ..NvdisasmOptions::default()
    };
    let with = run(Some(options.clone()));
    let action = report.action(1).expect("action");
    let page = SourcePage::build(&report, &action, None).expect("page");
    let disassembly = nvdisasm::disassemble_page(&page, &options)
        .expect("nvdisasm runs")
        .expect("found");
    let mut nonempty = 0;
    for line in with.lines() {
        let (pc, text) = line.split_once('|').expect("pc|text");
        let pc: u64 = pc.parse().expect("pc");
        assert_eq!(text, disassembly.text(pc).unwrap_or(""), "pc {pc:#x}");
        nonempty += usize::from(!text.is_empty());
    }
    assert!(nonempty > 10, "{with}");
}
