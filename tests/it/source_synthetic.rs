//! The Source model on reports written by Sightline's own writer around hand-built cubins
//! (`sightline_test_support::ncu::synth_source`): both cubin layouts (relocated by the driver,
//! as before 2022.3; unrelocated with relocation data, 2022.3 and later), NVIDIA's first-row
//! rule at an address with two rows, per-line aggregates counting a PC toward every line of its
//! address, PTX lines, imported source text, callees listed under the kernel, an sm_120 binary,
//! a binary without line info, and damaged binaries (a message, never a panic). Also the
//! `sightline source` command on them and on a corpus report.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Parser;
use sightline::ncu::source::{Cell, SourceModule, SourcePage};
use sightline::ncu::{Action, Report};
use sightline_test_support::ncu::synth_source::{
    CubinSpec, FunctionSpec, cubin, write_source_report,
};

pub(crate) const LOAD: [u64; 2] = [0x7f00_0000_1000, 0x7f00_0000_2000];
pub(crate) const SOURCE: &str =
    "// kernel.cu\n__global__ void k(float *a)\n{\n    a[0] = 1.0f;\n    helper(a);\n}\n";

fn functions() -> Vec<FunctionSpec> {
    vec![
        FunctionSpec {
            name: "_Z1kPf".into(),
            instructions: 6,
            weak: false,
        },
        FunctionSpec {
            name: "_Z6helperPf".into(),
            instructions: 3,
            weak: false,
        },
    ]
}

/// Rows: kernel offset 0x10 has two rows (line 4 first, then line 5): NVIDIA's reader answers
/// line 4; the aggregates count that PC for both lines.
pub(crate) fn spec(absolute: bool, sm: (u32, u32), abi: u8, lines: bool) -> CubinSpec {
    CubinSpec {
        sm,
        abi_version: abi,
        functions: functions(),
        absolute: absolute.then(|| LOAD.to_vec()),
        files: vec![
            ("/src".into(), "kernel.cu".into()),
            (".".into(), "helper.h".into()),
        ],
        rows: if lines {
            vec![
                (0, 0x00, 0, 3),
                (0, 0x10, 0, 4),
                (0, 0x10, 0, 5),
                (0, 0x30, 0, 5),
                (0, 0x40, 0, 6),
                (1, 0x00, 1, 10),
                (1, 0x20, 1, 11),
            ]
        } else {
            Vec::new()
        },
        ptx: lines.then(|| {
            (
                vec![
                    "".into(),
                    ".entry k(".into(),
                    "st.global.f32 [%rd1], %f1;".into(),
                    "ret;".into(),
                ],
                vec![
                    (0, 0x00, 0, 2),
                    (0, 0x10, 0, 3),
                    (0, 0x50, 0, 4),
                    (1, 0x00, 0, 4),
                ],
            )
        }),
        calls: vec![(0, 1)],
        other_unit_ptx: None,
    }
}

fn write(dir: &Path, name: &str, spec: &CubinSpec, files: &[(&str, &str)]) -> PathBuf {
    let path = dir.join(name);
    let file = std::fs::File::create(&path).unwrap();
    write_source_report(std::io::BufWriter::new(file), spec, &LOAD, files, &[0]).unwrap();
    path
}

fn check_module(path: &Path) {
    let report = Report::open(path).unwrap();
    let action = report.action(0).unwrap();
    let module = SourceModule::for_action(&report, &action).unwrap();
    check_lines_and_ptx(&module, &action);
    let page = SourcePage::build(&report, &action, None).unwrap();
    check_cuda_lines(&page);
    check_functions(&page);
}

/// The module's file:line of each PC (the first row at an address wins), the lines at a PC,
/// the PTX text and the instructions.
fn check_lines_and_ptx(module: &SourceModule, action: &Action) {
    assert!(module.problems().is_empty(), "{:?}", module.problems());
    assert_eq!(module.sm(), Some((8, 6)));
    let kernel = module.function_for(action).expect("kernel function");
    assert_eq!(kernel.load_pc, Some(LOAD[0]));
    assert_eq!(kernel.pcs().count(), 6);
    let at = |offset: u64| LOAD[0] + offset;
    let info = |pc| module.source_info(pc).map(|f| (f.file, f.line));
    assert_eq!(info(at(0)), Some(("/src/kernel.cu".into(), 3)));
    // First row at the address wins (not the last: line 5).
    assert_eq!(info(at(0x10)), Some(("/src/kernel.cu".into(), 4)));
    assert_eq!(info(at(0x20)), Some(("/src/kernel.cu".into(), 4)));
    assert_eq!(info(at(0x30)), Some(("/src/kernel.cu".into(), 5)));
    assert_eq!(info(at(0x50)), Some(("/src/kernel.cu".into(), 6)));
    // Outside the function: nothing.
    assert_eq!(info(at(0x60)), None);
    assert_eq!(info(LOAD[0] - 16), None);
    // `.` is not shown as a directory.
    assert_eq!(
        module.source_info(LOAD[1] + 0x10).map(|f| (f.file, f.line)),
        Some(("helper.h".into(), 10))
    );
    let lines: Vec<u32> = module.lines_at(at(0x10)).iter().map(|f| f.line).collect();
    assert_eq!(lines, [4, 5]);
    assert_eq!(module.ptx_by_pc(at(0)), ".entry k(");
    assert_eq!(module.ptx_by_pc(at(0x40)), "st.global.f32 [%rd1], %f1;");
    assert_eq!(module.ptx_by_pc(at(0x50)), "ret;");
    assert_eq!(module.ptx_files().len(), 1);
    assert_eq!(module.ptx_files()[0].1.lines().len(), 4);
    assert_eq!(module.instruction(at(0x10)).map(|i| i[9]), Some(1));
}

/// The page's CUDA lines: each line's PCs and aggregated metric, and its source text.
fn check_cuda_lines(page: &SourcePage) {
    // The kernel's 6 instructions and the helper's 3 it calls.
    assert_eq!(page.sass().len(), 9);
    let blocks = page.cuda_lines();
    let summary: Vec<(String, u32, Vec<u64>, Cell)> = blocks
        .iter()
        .map(|b| {
            (
                b.location.file.clone(),
                b.location.line,
                b.rows
                    .iter()
                    .map(|&r| page.sass()[r].address - LOAD[0])
                    .collect(),
                b.cells[0].clone(),
            )
        })
        .collect();
    let k = "/src/kernel.cu".to_owned();
    // inst_executed = 100 + index. A row covers the PCs up to the next row's address, and the
    // two rows at 0x10 put 0x10 and 0x20 under both lines 4 and 5 (NVIDIA's page does the same:
    // indexspaces kernel 1 has such addresses followed by a gap, checked against ncu's CSV).
    // The helper's PCs have no metric (it is not the launched kernel): 0.
    assert_eq!(
        summary,
        vec![
            (k.clone(), 3, vec![0x00], Cell::Number(100.0)),
            (k.clone(), 4, vec![0x10, 0x20], Cell::Number(203.0)),
            (k.clone(), 5, vec![0x10, 0x20, 0x30], Cell::Number(306.0)),
            (k.clone(), 6, vec![0x40, 0x50], Cell::Number(209.0)),
            (
                "helper.h".into(),
                10,
                vec![0x1000, 0x1010],
                Cell::Number(0.0)
            ),
            ("helper.h".into(), 11, vec![0x1020], Cell::Number(0.0)),
        ]
    );
    assert_eq!(blocks[1].text.as_deref(), Some("    a[0] = 1.0f;"));
    assert_eq!(blocks[4].text, None);
}

/// The functions, by address, with their demangled names and ranges; each row knows its
/// function, and the per-function line blocks keep each line under its function.
fn check_functions(page: &SourcePage) {
    let k = "/src/kernel.cu".to_owned();
    type Summary<'a> = (&'a str, &'a str, u64, u64, bool, std::ops::Range<usize>);
    let functions: Vec<Summary> = page
        .functions()
        .iter()
        .map(|f| {
            (
                f.mangled.as_str(),
                f.name.as_str(),
                f.start,
                f.end,
                f.kernel,
                f.rows.clone(),
            )
        })
        .collect();
    assert_eq!(
        functions,
        vec![
            ("_Z1kPf", "k(float *)", LOAD[0], LOAD[0] + 0x60, true, 0..6),
            (
                "_Z6helperPf",
                "helper(float *)",
                LOAD[1],
                LOAD[1] + 0x30,
                false,
                6..9
            ),
        ]
    );
    let of_rows: Vec<Option<usize>> = page.sass().iter().map(|r| r.function).collect();
    assert_eq!(of_rows, [[Some(0); 6].as_slice(), &[Some(1); 3]].concat());
    assert_eq!(
        page.function_of(&page.sass()[7]).map(|f| f.name.as_str()),
        Some("helper(float *)")
    );
    let by_function: Vec<(String, u32, Option<usize>)> = page
        .cuda_lines_by_function()
        .iter()
        .map(|b| (b.location.file.clone(), b.location.line, b.function))
        .collect();
    assert_eq!(
        by_function,
        vec![
            (k.clone(), 3, Some(0)),
            (k.clone(), 4, Some(0)),
            (k.clone(), 5, Some(0)),
            (k.clone(), 6, Some(0)),
            ("helper.h".into(), 10, Some(1)),
            ("helper.h".into(), 11, Some(1)),
        ]
    );
}

#[test]
fn unrelocated_cubin_with_relocation_data() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "new.ncu-rep",
        &spec(false, (8, 6), 7, true),
        &[("/src/kernel.cu", SOURCE)],
    );
    check_module(&path);
}

#[test]
fn cubin_relocated_by_the_driver() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "old.ncu-rep",
        &spec(true, (8, 6), 7, true),
        &[("/src/kernel.cu", SOURCE)],
    );
    check_module(&path);
}

/// A cubin linked from two compilation units: the PTX comes from the text the line program
/// names (`.nv_debug_ptx_txt.2222`), not from the other unit's, which comes first.
#[test]
fn ptx_of_a_cubin_linked_from_several_units() {
    let dir = tempfile::tempdir().unwrap();
    for absolute in [false, true] {
        let mut spec = spec(absolute, (8, 6), 7, true);
        spec.other_unit_ptx = Some(vec![
            "".into(),
            ".visible .func other(".into(),
            "mov.u32 %r1, 0;".into(),
            "ret;".into(),
            "}".into(),
        ]);
        let path = write(
            dir.path(),
            "rdc.ncu-rep",
            &spec,
            &[("/src/kernel.cu", SOURCE)],
        );
        let report = Report::open(&path).unwrap();
        let action = report.action(0).unwrap();
        let module = SourceModule::for_action(&report, &action).unwrap();
        let names: Vec<&str> = module.ptx_files().iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, [".nv_debug_ptx_txt.1111", ".nv_debug_ptx_txt.2222"]);
        assert_eq!(module.ptx_by_pc(LOAD[0]), ".entry k(");
        assert_eq!(module.ptx_file_at(LOAD[0] + 0x10), Some((1, 3)));
        assert_eq!(module.ptx_by_pc(LOAD[0] + 0x50), "ret;");
        let page = SourcePage::build(&report, &action, None).unwrap();
        assert_eq!(page.ptx().lines()[1], ".entry k(");
        assert_eq!(page.sass()[1].ptx_line, Some(3));
    }
}

#[test]
fn sm_120_binary_and_no_line_info() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "sm120.ncu-rep",
        &spec(false, (12, 0), 8, false),
        &[],
    );
    let report = Report::open(&path).unwrap();
    let action = report.action(0).unwrap();
    let module = SourceModule::for_action(&report, &action).unwrap();
    assert_eq!(module.sm(), Some((12, 0)));
    assert_eq!(module.cubin().map(|c| c.abi_version()), Some(8));
    assert!(!module.has_line_info());
    assert_eq!(module.source_info(LOAD[0]), None);
    assert_eq!(module.ptx_by_pc(LOAD[0]), "");
    let page = SourcePage::build(&report, &action, None).unwrap();
    assert_eq!(page.sass().len(), 9);
    assert!(page.cuda_lines().is_empty());
    assert_eq!(page.sass()[2].cells[0], Cell::Number(102.0));
}

#[test]
fn damaged_binaries_give_messages() {
    let good = cubin(&spec(false, (8, 6), 7, true));
    for (what, bytes) in [
        ("truncated", good[..good.len() / 2].to_vec()),
        ("not an ELF", b"hello, this is not a cubin".to_vec()),
        ("32-bit ELF", {
            let mut b = good.clone();
            b[4] = 1;
            b
        }),
        ("empty", Vec::new()),
    ] {
        let data = sightline::proto::nv::profiler::messages::SourceData {
            reference: Some(1),
            binary: Some(bytes),
            ..Default::default()
        };
        let module = SourceModule::from_entries(&[data]);
        assert!(!module.problems().is_empty(), "{what}: no problem reported");
        assert_eq!(module.source_info(0x1000), None, "{what}");
        let text = module.problems()[0].to_string();
        assert!(!text.is_empty(), "{what}");
    }
    // Every prefix of a real cubin: no panic.
    for len in (0..good.len()).step_by(7) {
        let data = sightline::proto::nv::profiler::messages::SourceData {
            reference: Some(1),
            binary: Some(good[..len].to_vec()),
            ..Default::default()
        };
        let module = SourceModule::from_entries(&[data]);
        for f in module.functions() {
            for pc in f.pcs() {
                let _ = (
                    module.source_info(pc),
                    module.ptx_by_pc(pc),
                    module.lines_at(pc),
                );
            }
        }
    }
}

#[derive(Parser)]
struct One {
    #[command(flatten)]
    args: sightline::cli::source::SourceArgs,
}

fn run_source(argv: &[&str]) -> String {
    let parsed = One::try_parse_from(argv).expect("arguments");
    let mut out = Vec::new();
    sightline::cli::source::run(&parsed.args, &mut out).expect("runs");
    out.flush().unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn source_command_prints_table_csv_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "cli.ncu-rep",
        &spec(false, (8, 6), 7, true),
        &[("/src/kernel.cu", SOURCE)],
    );
    let path = path.to_str().unwrap();
    let missing = dir.path().join("no-nvdisasm");
    let missing = missing.to_str().unwrap();
    let csv = run_source(&["source", path, "--csv", "--nvdisasm", missing]);
    let expected_start = "\"File Path\",\"/src/kernel.cu\"\n\"Function Name\",\"k(float *)\"\n\"Line No\",\"Source\",\"Address\",\"Source\",\"Instructions Executed\"\n\"3\",\"{\",\"-\",\"-\",\"100\"\n\"\",\"\",\"0x7f0000001000\",\"\",\"100\"\n";
    assert!(csv.starts_with(expected_start), "{csv}");
    let sass = run_source(&[
        "source",
        path,
        "--csv",
        "--view",
        "sass",
        "--nvdisasm",
        missing,
    ]);
    // One block per function, by address, named by its demangled name: the kernel's 6
    // instructions, then the 3 of the helper it calls.
    assert_eq!(sass.lines().count(), 2 + 6 + 2 + 3, "{sass}");
    assert!(sass.starts_with(
        "\"Kernel Name\",\"k(float *)\",\n\"Address\",\"Source\",\"Instructions Executed\"\n"
    ));
    let helper = sass
        .lines()
        .position(|l| l == "\"Kernel Name\",\"helper(float *)\",");
    assert_eq!(helper, Some(8), "{sass}");
    assert!(
        csv.contains("\"Function Name\",\"helper(float *)\"\n"),
        "{csv}"
    );
    let ptx = run_source(&["source", path, "--csv", "--view", "ptx"]);
    assert_eq!(
        ptx,
        "\"Line No\",\"Source\"\n\"1\",\"\"\n\"2\",\".entry k(\"\n\"3\",\"st.global.f32 [%rd1], %f1;\"\n\"4\",\"ret;\"\n"
    );
    let json = run_source(&["source", path, "--json", "--nvdisasm", missing]);
    let value: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
    assert_eq!(value["columns"][0], "Instructions Executed");
    assert_eq!(value["lines"][1]["line"], 4);
    assert_eq!(value["lines"][1]["values"][0], 203.0);
    assert_eq!(value["kernel"], "k(float *)");
    assert_eq!(value["functions"][1]["name"], "helper(float *)");
    assert_eq!(value["functions"][1]["mangled"], "_Z6helperPf");
    assert_eq!(value["functions"][1]["start"], LOAD[1]);
    assert_eq!(value["functions"][0]["kernel"], true);
    assert_eq!(value["lines"][4]["sass"][0]["function"], 1);
    let table = run_source(&["source", path, "--nvdisasm", missing]);
    assert!(table.contains("/src/kernel.cu:4"), "{table}");
    assert!(table.contains("0x7f0000001010"), "{table}");
    let sass_table = run_source(&["source", path, "--view", "sass", "--nvdisasm", missing]);
    let headings: Vec<&str> = sass_table
        .lines()
        .filter(|l| l.starts_with("Function: "))
        .collect();
    assert_eq!(
        headings,
        ["Function: k(float *)", "Function: helper(float *)"],
        "{sass_table}"
    );
}

/// `sightline source --csv --view sass` on a corpus report: the header and the addresses and
/// values of every instruction equal ncu's (without nvdisasm the SASS text column is empty).
#[test]
fn source_command_matches_ncu_csv_on_a_corpus_report() {
    let Some(corpus) = crate::common::corpus_ncu() else {
        return;
    };
    let report = corpus.join("reports/ncu2022.3_rtx3070_manual_nvtx.ncu-rep");
    let oracle = std::fs::read_to_string(
        corpus.join("cli-oracle/ncu2022.3_rtx3070_manual_nvtx/source-sass-1.csv"),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-nvdisasm");
    let ours = run_source(&[
        "source",
        report.to_str().unwrap(),
        "--kernel",
        "1",
        "--view",
        "sass",
        "--csv",
        "--nvdisasm",
        missing.to_str().unwrap(),
    ]);
    let strip_text = |line: &str| -> String {
        let fields: Vec<&str> = line.split("\",\"").collect();
        if fields.len() > 2 && fields[0].starts_with("\"0x") {
            let mut f = fields.clone();
            f[1] = "";
            f.join("\",\"")
        } else {
            line.to_owned()
        }
    };
    let expected: Vec<String> = oracle.lines().map(strip_text).collect();
    let got: Vec<String> = ours.lines().map(strip_text).collect();
    // ncu lists the stall reasons its version knows; compare the columns both have by name.
    let header = |lines: &[String]| -> Vec<String> {
        lines[1]
            .trim_matches('"')
            .split("\",\"")
            .map(str::to_owned)
            .collect()
    };
    let (eh, gh) = (header(&expected), header(&got));
    assert_eq!(expected.len(), got.len());
    assert_eq!(expected[0], got[0]);
    let mut compared = 0;
    for (e, g) in expected.iter().zip(&got).skip(2) {
        let ef: Vec<&str> = e
            .trim_end_matches(',')
            .trim_matches('"')
            .split("\",\"")
            .collect();
        let gf: Vec<&str> = g
            .trim_end_matches(',')
            .trim_matches('"')
            .split("\",\"")
            .collect();
        for (i, h) in gh.iter().enumerate() {
            if let Some(j) = eh.iter().position(|x| x == h) {
                assert_eq!(gf[i], ef[j], "column {h} of {g}");
                compared += 1;
            }
        }
    }
    assert!(compared > 1000, "{compared}");
}

/// `sightline source --csv` equals ncu's `--page source --csv` byte for byte: every PTX view
/// always; the SASS and CUDA+SASS views when an nvdisasm that reads the cubin's architecture is
/// found (`SIGHTLINE_NVDISASM`, `SIGHTLINE_NVDISASM_PATH` or the search; its cache in a
/// temporary folder), device functions printed as blocks of their own under their demangled
/// names included, except where 2024.1 itself is off or Sightline knows it differs: rows printed
/// twice (NVIDIA's bug, [`oracle_quirk`]), sm_100+ code 2024.1 cannot decode, and
/// `+INF`/`QNAN` operands its older disassembler spaces differently. Every skipped file is
/// named with its reason. Names are compared as they are.
#[test]
fn source_command_csv_equals_ncu_byte_for_byte() {
    let Some(corpus) = crate::common::corpus_ncu() else {
        return;
    };
    let explicit = std::env::var_os("SIGHTLINE_NVDISASM").map(PathBuf::from);
    let cache = tempfile::tempdir().unwrap();
    let (mut same, mut skipped, mut failures) = (0, Vec::new(), Vec::new());
    let mut twice = Vec::new();
    for entry in std::fs::read_dir(corpus.join("cli-oracle")).unwrap() {
        let dir = entry.unwrap().path();
        let stem = dir.file_name().unwrap().to_string_lossy().into_owned();
        let report = corpus.join("reports").join(format!("{stem}.ncu-rep"));
        let status = std::fs::read_to_string(dir.join("STATUS.tsv")).unwrap_or_default();
        let opened = Report::open(&report).ok();
        for line in status.lines() {
            let cols: Vec<&str> = line.split('\t').collect();
            if cols.get(1) != Some(&"ok") || !cols[0].starts_with("source-") {
                continue;
            }
            let name = cols[0].trim_end_matches(".csv");
            let (view, k) = match name
                .strip_prefix("source-")
                .and_then(|r| r.rsplit_once('-'))
            {
                Some(("sass", k)) => ("sass", k),
                Some(("ptx", k)) => ("ptx", k),
                Some(_) => continue,
                None => ("cuda", name.trim_start_matches("source-")),
            };
            let mut expected = std::fs::read_to_string(dir.join(cols[0])).unwrap();
            // NVIDIA's bug: 2024.1 prints some views twice in a row; such a file is compared
            // with its first copy (and named).
            if let Some(first) = printed_twice(&expected) {
                twice.push(format!("{stem}/{}", cols[0]));
                expected = first;
            }
            let tool =
                (view != "ptx").then(|| nvdisasm_for(opened.as_ref(), k, explicit.as_deref()));
            if view != "ptx" {
                let quirk = match &tool {
                    Some(Err(reason)) => Some(reason.clone()),
                    _ => oracle_quirk(&stem, &expected),
                };
                if let Some(reason) = quirk {
                    skipped.push(format!("{stem}/{}: {reason}", cols[0]));
                    continue;
                }
            }
            let mut argv = vec![
                "source".to_owned(),
                report.to_string_lossy().into_owned(),
                "--kernel".into(),
                k.to_owned(),
                "--view".into(),
                view.to_owned(),
                "--csv".into(),
            ];
            if let Some(Ok(tool)) = &tool {
                argv.push("--nvdisasm".into());
                argv.push(tool.to_string_lossy().into_owned());
            }
            let ours = run_source_cached(&argv, cache.path());
            if ours == expected {
                same += 1;
            } else {
                let line = ours
                    .lines()
                    .zip(expected.lines())
                    .position(|(a, b)| a != b)
                    .map_or(0, |i| i + 1);
                failures.push(format!(
                    "{stem}/{}: first difference at line {line}",
                    cols[0]
                ));
            }
        }
    }
    eprintln!(
        "{same} ncu source CSVs equal byte for byte; {} printed twice in a row by NVIDIA, \
         compared with their first copy:\n  {}\n{} skipped:\n  {}",
        twice.len(),
        twice.join("\n  "),
        skipped.len(),
        skipped.join("\n  ")
    );
    assert!(same > 0);
    assert!(
        failures.is_empty(),
        "{} of {} compared files differ ({} skipped):\n{}",
        failures.len(),
        same + failures.len(),
        skipped.len(),
        failures.join("\n")
    );
}

/// The nvdisasm that reads kernel `k`'s cubin (the first found when the cubin names no
/// architecture), else why the SASS text cannot be compared.
fn nvdisasm_for(
    report: Option<&Report>,
    k: &str,
    explicit: Option<&Path>,
) -> Result<PathBuf, String> {
    use sightline::ncu::source::nvdisasm::{self, Choice};
    let sm = report
        .zip(k.parse::<usize>().ok())
        .and_then(|(r, k)| Some((r, r.action(k).ok()?)))
        .and_then(|(r, a)| SourceModule::for_action(r, &a).ok())
        .and_then(|m| m.sm());
    let missing = || format!("no nvdisasm ({})", nvdisasm::MISSING_HINT);
    let Some(sm) = sm else {
        return nvdisasm::find(explicit).ok_or_else(missing);
    };
    match nvdisasm::find_for(explicit, sm) {
        Choice::Found(p) => Ok(p),
        Choice::NotFound => Err(missing()),
        Choice::NoneReads(tried) => Err(format!(
            "no nvdisasm found reads SM{}{} (tried {tried:?}; set SIGHTLINE_NVDISASM_PATH to a \
             CUDA 12 nvdisasm, which .ci/cuda12-nvdisasm fetches)",
            sm.0, sm.1
        )),
    }
}

/// The first copy of a page NVIDIA printed twice in a row (the whole text is that copy twice).
fn printed_twice(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let half = lines.len() / 2;
    (half > 0 && lines.len().is_multiple_of(2) && lines[..half] == lines[half..])
        .then(|| lines[..half].concat())
}

/// Why ncu 2024.1's page of this SASS or CUDA+SASS view is not one to equal, when it is not:
/// - rows printed more than once otherwise (NVIDIA's bug: some line blocks of the CUDA view
///   repeat their rows; its page lists some functions' blocks more than once,
///   e.g. on the 2021.1 raytracer report's `trace` kernel every function of the module in
///   section order, then again each with its callees: `__cuda_sm20_rcp_rn_f32_slowpath`'s
///   rows nine times);
/// - `+INF`, `QNAN` operands (2024.1's disassembler spaces them otherwise) and `???`;
/// - sm_100 and later (2024.1 cannot decode them: it reads 8-byte words).
fn oracle_quirk(stem: &str, expected: &str) -> Option<String> {
    let rows: Vec<&str> = expected
        .lines()
        .filter(|l| l.starts_with("\"0x") || l.starts_with("\"\",\"\",\"0x"))
        .collect();
    let distinct: std::collections::BTreeSet<&str> = rows.iter().copied().collect();
    if rows.len() != distinct.len() {
        return Some(format!(
            "NVIDIA's page prints {} of its {} rows more than once",
            rows.len() - distinct.len(),
            rows.len()
        ));
    }
    if expected.contains("INF") || expected.contains("NAN") || expected.contains("???") {
        return Some("INF/NAN/??? operands 2024.1's disassembler prints otherwise".into());
    }
    if stem.contains("rtx5060ti") {
        return Some("sm_120 code 2024.1 cannot decode".into());
    }
    None
}

/// Runs `sightline source` with the disassembly cache in `cache` (never under $HOME).
fn run_source_cached(argv: &[String], cache: &Path) -> String {
    let mut parsed = One::try_parse_from(argv).expect("arguments");
    parsed.args.cache_dir = Some(cache.to_path_buf());
    let mut out = Vec::new();
    sightline::cli::source::run(&parsed.args, &mut out).expect("runs");
    String::from_utf8(out).unwrap()
}

/// A line table with thousands of rows at one address (what the `ncu_source` fuzz target found
/// slow: lookups were quadratic in the rows of an address) reads in linear time: every lookup
/// is a binary search, and distinct lines beyond `MAX_LINES_PER_ADDRESS` per address are left
/// out with a warning.
#[test]
fn many_rows_at_one_address_stay_fast() {
    use sightline::ncu::source::MAX_LINES_PER_ADDRESS;
    let mut s = spec(false, (8, 6), 7, true);
    s.functions[0].instructions = 250; // 4000 bytes: below the helper at +0x1000
    s.rows = (0..20_000u64).map(|i| (0, 0, 0, 1 + i)).collect();
    s.ptx = None;
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "rows.ncu-rep", &s, &[]);
    let report = Report::open(&path).unwrap();
    let action = report.action(0).unwrap();
    let start = std::time::Instant::now();
    let page = SourcePage::build(&report, &action, None).unwrap();
    let lines = page.cuda_lines();
    assert!(
        start.elapsed() < std::time::Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(page.sass().len(), 250 + 3);
    // Every kernel PC lies under each kept line of the single address.
    let kernel_lines = lines
        .iter()
        .filter(|b| b.location.file == "/src/kernel.cu")
        .count();
    assert_eq!(kernel_lines, MAX_LINES_PER_ADDRESS);
    assert_eq!(
        page.module().source_info(LOAD[0] + 0x100).map(|f| f.line),
        Some(1)
    );
    assert!(
        page.problems()
            .iter()
            .any(|p| p.to_string().contains("left out")),
        "{:?}",
        page.problems()
    );
}

/// An OpenACC kernel and the routine it calls, named as NVIDIA's HPC compilers name them: the
/// Source page names their blocks as NVIDIA's CLI does (`main_24_gpu` → `main_24`), in the
/// model and in `sightline source --csv`.
#[test]
fn offload_kernels_are_named_as_the_cli_names_them() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = spec(true, (8, 6), 7, true);
    s.functions[0].name = "main_24_gpu".into();
    s.functions[1].name = "compute_gpu".into();
    let path = write(dir.path(), "acc.ncu-rep", &s, &[("/src/kernel.cu", SOURCE)]);
    let report = Report::open(&path).unwrap();
    let action = report.action(0).unwrap();
    let page = SourcePage::build(&report, &action, None).unwrap();
    let names: Vec<(&str, &str)> = page
        .functions()
        .iter()
        .map(|f| (f.mangled.as_str(), f.name.as_str()))
        .collect();
    assert_eq!(
        names,
        [("main_24_gpu", "main_24"), ("compute_gpu", "compute_gpu")]
    );
    let csv = run_source(&["source", path.to_str().unwrap(), "--csv", "--view", "sass"]);
    assert!(
        csv.starts_with("\"Kernel Name\",\"main_24\""),
        "{}",
        csv.lines().next().unwrap_or_default()
    );
}
