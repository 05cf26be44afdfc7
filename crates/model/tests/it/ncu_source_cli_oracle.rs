//! The Source page's rows equal `ncu --import R --page source --csv` (Nsight Compute 2024.1.1,
//! `../shared/corpus/ncu/cli-oracle/`): for every `source-*.csv` that `STATUS.tsv` lists as
//! `ok` (or `same` as an earlier file) of every report of the manifest —
//! - `source-sass-K.csv`: the instruction addresses of kernel K, and every value of each column
//!   Sightline shows under the same header;
//! - `source-K.csv`: the CUDA-C lines, the distinct addresses under each line, and the line
//!   aggregates (sum over distinct PCs) of the shared columns;
//! - `source-ptx-K.csv` / `source-cuda-K.csv`: the PTX module and the imported file, line by
//!   line.
//!
//! The SASS text column needs nvdisasm: it is compared when nvdisasm is found (on the search
//! path or named by `SIGHTLINE_NVDISASM`), without the ``(.L_x_N)`` labels NVIDIA's newer
//! reader adds (2024.1 prints none), and not for sm_100+ code (2024.1 cannot decode it).
//! 2024.1 prints some SASS rows twice (see the oracle's README): addresses are compared as sets.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Test code: a failed unwrap is a failed test.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::par::map_all_on_every_core;
use crate::source_common::{corpus_ncu, reports};
use sightline_model::ncu::Report;
use sightline_model::ncu::source::nvdisasm::{self, NvdisasmOptions};
use sightline_model::ncu::source::{Cell, LineBlock, SourcePage};

/// Splits one line of NVIDIA's CSV: every field quoted, embedded quotes not doubled.
fn fields(line: &str) -> Vec<String> {
    let line = line.trim_end_matches(['\r', '\n']).trim_end_matches(',');
    let Some(inner) = line.strip_prefix('"').and_then(|l| l.strip_suffix('"')) else {
        return Vec::new();
    };
    inner.split("\",\"").map(str::to_owned).collect()
}

#[derive(Default)]
struct Counts {
    files: usize,
    values: usize,
    lines: usize,
    pcs: usize,
    newer_arch: usize,
    texts: usize,
    /// Oracle columns Sightline does not show, with the first file that has each.
    not_shown: BTreeMap<String, String>,
}

impl Counts {
    /// Adds the counts of a later report (a column's first file stays the earlier one).
    fn add(&mut self, later: Counts) {
        self.files += later.files;
        self.values += later.values;
        self.lines += later.lines;
        self.pcs += later.pcs;
        self.newer_arch += later.newer_arch;
        self.texts += later.texts;
        for (column, file) in later.not_shown {
            self.not_shown.entry(column).or_insert(file);
        }
    }
}

fn parse_addr(text: &str) -> Option<u64> {
    u64::from_str_radix(text.strip_prefix("0x")?, 16).ok()
}

/// Values of the SASS rows of a `source-sass-K.csv`, by address (column label → text).
fn compare_sass(
    file: &str,
    text: &str,
    page: &SourcePage,
    counts: &mut Counts,
    failures: &mut Vec<String>,
) {
    let mut header: Vec<String> = Vec::new();
    let mut oracle: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    for line in text.lines() {
        let f = fields(line);
        if f.first().map(String::as_str) == Some("Address") {
            header = f;
            continue;
        }
        if let Some(pc) = f.first().and_then(|a| parse_addr(a)) {
            oracle.insert(pc, f);
        }
    }
    let ours: BTreeSet<u64> = page.sass().iter().map(|r| r.address).collect();
    let theirs: BTreeSet<u64> = oracle.keys().copied().collect();
    // Nsight Compute 2024.1 does not know sm_100 and later ("Failed to detect compute
    // capability, assuming 50"): it cuts such code into 8-byte words at other addresses.
    // There only the values at the PCs both have are compared.
    let newer_arch = page.module().sm().is_some_and(|(major, _)| major >= 10);
    if newer_arch {
        counts.newer_arch += 1;
    } else if ours != theirs {
        failures.push(format!(
            "{file}: addresses differ: {} ours, {} NVIDIA's; only ours {:x?}, only NVIDIA's {:x?}",
            ours.len(),
            theirs.len(),
            ours.difference(&theirs).take(5).collect::<Vec<_>>(),
            theirs.difference(&ours).take(5).collect::<Vec<_>>()
        ));
        return;
    }
    let columns = page.columns().columns();
    for (c, column) in columns.iter().enumerate() {
        let Some(position) = header.iter().skip(2).position(|h| *h == column.label) else {
            continue;
        };
        for row in page.sass() {
            let Some(expected) = oracle.get(&row.address).and_then(|r| r.get(position + 2)) else {
                continue;
            };
            let got = row.cells[c].csv_text();
            if got != *expected {
                failures.push(format!(
                    "{file}: {:#x} column {:?}: expected {expected:?}, got {got:?}",
                    row.address, column.label
                ));
            }
            counts.values += 1;
        }
    }
    // The same columns; the order is the section's, except that 2024.1 puts "Instructions
    // Executed" before "# Samples" for smemTranspose (2023.1) against its section's order.
    let ours_labels: BTreeSet<&str> = columns.iter().map(|c| c.label.as_str()).collect();
    let theirs_labels: BTreeSet<&str> = header.iter().skip(2).map(String::as_str).collect();
    if ours_labels != theirs_labels {
        failures.push(format!(
            "{file}: columns differ:\n ours   {ours_labels:?}\n NVIDIA {theirs_labels:?}"
        ));
    }
    for h in header.iter().skip(2) {
        if !columns.iter().any(|c| c.label == *h) {
            counts
                .not_shown
                .entry(h.clone())
                .or_insert_with(|| file.to_owned());
        }
    }
    if page.has_sass_text() && !newer_arch {
        for row in page.sass() {
            let ours = row.csv_text.clone().unwrap_or_default();
            let Some(expected) = oracle.get(&row.address).and_then(|r| r.get(1)) else {
                continue;
            };
            // nvdisasm 13 prints `+INF`/`-QNAN` operands without the space 2024.1's
            // disassembler left after them; everything else must be equal.
            let version_difference = expected.trim_end() == ours.trim_end()
                && (expected.contains("INF") || expected.contains("NAN"));
            if ours != *expected && !version_difference {
                failures.push(format!(
                    "{file}: {:#x} SASS: expected {expected:?}, got {ours:?}",
                    row.address
                ));
            }
            counts.texts += 1;
        }
    }
    counts.pcs += ours.len();
}

/// NVIDIA's CUDA lines: (file, line) → (values, addresses).
type CudaLines = BTreeMap<(String, u32), (Vec<String>, BTreeSet<u64>)>;

/// `source-K.csv` (`cuda,sass`): lines with their aggregates and addresses.
fn compare_cuda_sass(
    file: &str,
    text: &str,
    page: &SourcePage,
    counts: &mut Counts,
    failures: &mut Vec<String>,
) {
    let (header, oracle) = parse_cuda_sass(text);
    let lines = page.cuda_lines();
    let ours: BTreeSet<(String, u32)> = lines
        .iter()
        .map(|l| (l.location.file.clone(), l.location.line))
        .collect();
    let theirs: BTreeSet<(String, u32)> = oracle.keys().cloned().collect();
    // sm_100 and later (see `compare_sass`): 2024.1 reads the code as twice as many 8-byte
    // words, past the function's end into other functions' line rows; our lines must be among
    // its lines, whose sums are over other PCs and are not compared.
    if page.module().sm().is_some_and(|(major, _)| major >= 10) {
        counts.newer_arch += 1;
        if !ours.is_subset(&theirs) {
            failures.push(format!(
                "{file}: lines only ours {:?}",
                ours.difference(&theirs).take(5).collect::<Vec<_>>()
            ));
        }
        return;
    }
    if ours != theirs {
        failures.push(format!(
            "{file}: lines differ: only ours {:?}, only NVIDIA's {:?}",
            ours.difference(&theirs).take(5).collect::<Vec<_>>(),
            theirs.difference(&ours).take(5).collect::<Vec<_>>()
        ));
        return;
    }
    compare_line_values(file, page, &lines, &header, &oracle, counts, failures);
}

/// The header and the lines of a `cuda,sass` file: each line's values and the addresses of
/// the rows under it.
fn parse_cuda_sass(text: &str) -> (Vec<String>, CudaLines) {
    let mut header: Vec<String> = Vec::new();
    let mut path = String::new();
    // (file, line) → (values, addresses)
    let mut oracle: CudaLines = BTreeMap::new();
    let mut current: Option<(String, u32)> = None;
    let mut pending: Vec<(String, u32, Vec<String>)> = Vec::new();
    let mut width: Option<usize> = None;
    for line in text.lines() {
        let f = fields(line);
        match f.first().map(String::as_str) {
            Some("File Path") => path = f.get(1).cloned().unwrap_or_default(),
            Some("Function Name") | None => {}
            Some("Line No") => header = f,
            Some("") => {
                if let (Some(key), Some(pc)) = (&current, f.get(2).and_then(|a| parse_addr(a))) {
                    width.get_or_insert(f.len());
                    oracle.entry(key.clone()).or_default().1.insert(pc);
                }
            }
            Some(n) => {
                if let Ok(n) = n.parse::<u32>() {
                    let key = (path.clone(), n);
                    pending.push((path.clone(), n, f.clone()));
                    oracle.entry(key.clone()).or_default();
                    current = Some(key);
                }
            }
        }
    }
    // Line rows: the values are the last (width - 4) fields (the source text may hold `","`).
    let width = width.unwrap_or(header.len());
    for (path, n, f) in pending {
        let values = f[f.len().saturating_sub(width.saturating_sub(4))..].to_vec();
        if let Some(entry) = oracle.get_mut(&(path, n)) {
            entry.0 = values;
        }
    }
    (header, oracle)
}

/// Compares the addresses and the numeric values of each line with NVIDIA's.
fn compare_line_values(
    file: &str,
    page: &SourcePage,
    lines: &[LineBlock],
    header: &[String],
    oracle: &CudaLines,
    counts: &mut Counts,
    failures: &mut Vec<String>,
) {
    let columns = page.columns().columns();
    for block in lines {
        let key = (block.location.file.clone(), block.location.line);
        let (values, pcs) = &oracle[&key];
        let our_pcs: BTreeSet<u64> = block.rows.iter().map(|&r| page.sass()[r].address).collect();
        if our_pcs != *pcs {
            failures.push(format!(
                "{file}: {}:{}: addresses differ: ours {our_pcs:x?}, NVIDIA's {pcs:x?}",
                key.0, key.1
            ));
            continue;
        }
        for (c, column) in columns.iter().enumerate() {
            if !column.is_numeric() {
                continue;
            }
            let Some(position) = header.iter().skip(4).position(|h| *h == column.label) else {
                continue;
            };
            let Some(expected) = values.get(position) else {
                continue;
            };
            let got = match &block.cells[c] {
                Cell::Empty => "-".to_owned(),
                cell => cell.csv_text(),
            };
            if got != *expected {
                failures.push(format!(
                    "{file}: {}:{} column {:?}: expected {expected:?}, got {got:?}",
                    key.0, key.1, column.label
                ));
            }
            counts.values += 1;
        }
        counts.lines += 1;
    }
}

/// `source-ptx-K.csv` and `source-cuda-K.csv`: numbered lines.
fn compare_numbered(file: &str, text: &str, expected_lines: &[String], failures: &mut Vec<String>) {
    let mut rows = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix('"') else {
            continue;
        };
        let Some((number, source)) = rest.split_once("\",\"") else {
            continue;
        };
        if number.parse::<u32>().is_err() {
            continue;
        }
        rows.push(source.strip_suffix('"').unwrap_or(source).to_owned());
    }
    if rows.len() != expected_lines.len() {
        failures.push(format!(
            "{file}: {} lines expected, {} got",
            rows.len(),
            expected_lines.len()
        ));
    }
    for (i, (e, g)) in rows.iter().zip(expected_lines).enumerate() {
        if e != g {
            failures.push(format!("{file}: line {}: expected {e:?}, got {g:?}", i + 1));
            break;
        }
    }
}

/// The oracle files of one kernel of a report, in `STATUS.tsv`'s order: `(name listed, file
/// to read, view)`.
struct KernelFiles {
    /// The report's index in the manifest's list.
    report: usize,
    stem: String,
    dir: PathBuf,
    kernel: usize,
    files: Vec<(String, String, String)>,
}

/// The kernels of the report at `path` with oracle files (none without a `STATUS.tsv`).
fn kernel_files(corpus: &Path, path: &Path, report: usize) -> Vec<KernelFiles> {
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default();
    let dir = corpus.join("cli-oracle").join(stem);
    let Ok(status) = std::fs::read_to_string(dir.join("STATUS.tsv")) else {
        return Vec::new();
    };
    let mut kernels: Vec<KernelFiles> = Vec::new();
    for line in status.lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        let (Some(name), Some(state)) = (cols.first(), cols.get(1)) else {
            continue;
        };
        let Some(rest) = name
            .strip_prefix("source-")
            .and_then(|r| r.strip_suffix(".csv"))
        else {
            continue;
        };
        let file_name = match *state {
            "ok" => (*name).to_owned(),
            "same" => cols.get(3).map(|s| (*s).to_owned()).unwrap_or_default(),
            _ => continue,
        };
        let (view, k) = match rest.rsplit_once('-') {
            Some((view, k)) => (view, k),
            None => ("cuda,sass", rest),
        };
        let kernel: usize = k.parse().unwrap_or_else(|_| panic!("{name}"));
        let file = ((*name).to_owned(), file_name, view.to_owned());
        match kernels.iter_mut().find(|f| f.kernel == kernel) {
            Some(known) => known.files.push(file),
            None => kernels.push(KernelFiles {
                report,
                stem: stem.to_owned(),
                dir: dir.clone(),
                kernel,
                files: vec![file],
            }),
        }
    }
    kernels
}

/// Pages where NVIDIA's 2024.1 page is not one to equal (its bugs), with the evidence; each must
/// still show the bug (some row printed more than once), so that the list does not go stale.
const ORACLE_BUGS: &[(&str, &str)] = &[(
    "ncu2021.1.0_gtx1660s_raytracer/source-sass-2.csv",
    "the `trace` kernel's page lists every function of the module at its symbol address, other \
     kernels (`EmptyKernel`, `debug`) included, then again blocks of callees with their \
     callers (`__cuda_sm20_rcp_rn_f32_slowpath` nine times: the cubin holds nine copies whose \
     symbols all carry the first copy's address): 9328 rows, 8603 distinct; the kernel's own \
     callees (relocations) are a subset",
)];

/// Compares the Source page of one kernel with the oracle's files of it: the counts of what
/// was compared and the differences.
fn check_kernel(
    report: &Report,
    job: &KernelFiles,
    options: &NvdisasmOptions,
) -> (Counts, Vec<String>) {
    let mut failures = Vec::new();
    let mut counts = Counts::default();
    let (stem, k) = (&job.stem, job.kernel);
    let action = report.action(k).unwrap_or_else(|e| panic!("{e}"));
    let page = SourcePage::build(report, &action, None).unwrap_or_else(|e| panic!("{e}"));
    let page = match nvdisasm::disassemble_page(&page, options) {
        Ok(Some(d)) => page.with_disassembly(&d),
        Ok(None) => page,
        // No nvdisasm found reads this architecture (CUDA 13's on sm_70): everything but the
        // SASS text is still compared.
        Err(e @ nvdisasm::NvdisasmError::NoArchitecture { .. }) => {
            eprintln!("{stem} kernel {k}: SASS text not compared: {e}");
            page
        }
        Err(e) => panic!("{stem} kernel {k}: {e}"),
    };
    for (name, file_name, view) in &job.files {
        let text = std::fs::read_to_string(job.dir.join(file_name))
            .unwrap_or_else(|e| panic!("{}: {e}", job.dir.join(file_name).display()));
        let shown = format!("{stem}/{name}");
        if let Some((_, evidence)) = ORACLE_BUGS.iter().find(|(file, _)| *file == shown) {
            let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("\"0x")).collect();
            let distinct: BTreeSet<&str> = rows.iter().copied().collect();
            if rows.len() == distinct.len() {
                failures.push(format!(
                    "{shown}: listed as an oracle bug but no row repeats"
                ));
            }
            eprintln!("{shown}: not compared (NVIDIA's bug: {evidence})");
            counts.files += 1;
            continue;
        }
        match view.as_str() {
            "sass" => compare_sass(&shown, &text, &page, &mut counts, &mut failures),
            "cuda,sass" => compare_cuda_sass(&shown, &text, &page, &mut counts, &mut failures),
            "ptx" => compare_numbered(&shown, &text, page.ptx().lines(), &mut failures),
            "cuda" => {
                let first = text.lines().next().map(fields).unwrap_or_default();
                let file = first.get(1).cloned().unwrap_or_default();
                let lines: Vec<String> = page
                    .module()
                    .source_file(&file)
                    .map(|f| f.lines().into_iter().map(str::to_owned).collect())
                    .unwrap_or_default();
                compare_numbered(&shown, &text, &lines, &mut failures);
            }
            other => failures.push(format!("{shown}: unknown view {other}")),
        }
        counts.files += 1;
    }
    (counts, failures)
}

#[test]
fn source_pages_equal_ncu_cli() {
    let Some(corpus) = corpus_ncu() else { return };
    // nvdisasm's output is kept in the build folder between runs (it is most of this test's
    // time); the cache key names the code, the architecture and the nvdisasm binary.
    let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("nvdisasm");
    let explicit = std::env::var_os("SIGHTLINE_NVDISASM").map(std::path::PathBuf::from);
    let options = NvdisasmOptions {
        explicit: nvdisasm::find(explicit.as_deref()),
        cache_dir: Some(cache),
        ..NvdisasmOptions::default()
    };
    if options.explicit.is_none() {
        eprintln!("nvdisasm not found: the SASS text column is not compared");
    }
    // The kernels on every core (one report has 100), merged in the manifest's order.
    let paths = reports(&corpus);
    let opened: Vec<Report> = paths
        .iter()
        .map(|p| Report::open(p).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    let jobs: Vec<KernelFiles> = paths
        .iter()
        .enumerate()
        .flat_map(|(i, p)| kernel_files(&corpus, p, i))
        .collect();
    let mut failures = Vec::new();
    let mut counts = Counts::default();
    let checked = map_all_on_every_core("source-cli", &jobs, |job| {
        check_kernel(&opened[job.report], job, &options)
    });
    for (report_counts, report_failures) in checked {
        counts.add(report_counts);
        failures.extend(report_failures);
    }
    eprintln!(
        "{} oracle files, {} PCs, {} lines, {} values, {} SASS texts compared ({} SASS files of \
         sm_100+ by common PCs or lines only); columns Sightline does not show: {:?}",
        counts.files,
        counts.pcs,
        counts.lines,
        counts.values,
        counts.texts,
        counts.newer_arch,
        counts.not_shown
    );
    assert!(counts.files > 0 && counts.values > 0, "nothing compared");
    assert!(
        counts.not_shown.is_empty(),
        "ncu shows columns Sightline does not: {:?}",
        counts.not_shown
    );
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
