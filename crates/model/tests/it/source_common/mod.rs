//! Helpers of the Source page tests: the corpus beside the repository and NVIDIA's reader.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use crate::par::map_on_every_core;

/// Whether `SIGHTLINE_REQUIRE_SHARED=1` (CI): a missing ../shared is then a failure.
pub fn shared_required() -> bool {
    std::env::var_os("SIGHTLINE_REQUIRE_SHARED").is_some_and(|v| v == "1")
}

/// `../shared/corpus/ncu`, or `None` with a message (a failure under
/// `SIGHTLINE_REQUIRE_SHARED=1`).
pub fn corpus_ncu() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/ncu");
    if dir.join("reports/MANIFEST.tsv").is_file() {
        return Some(dir);
    }
    let reason = format!("{} is absent", dir.display());
    assert!(
        !shared_required(),
        "{reason}: SIGHTLINE_REQUIRE_SHARED=1 requires ../shared beside the repository"
    );
    eprintln!("skipped: {reason}");
    None
}

/// The reports the corpus manifest lists (`reports/MANIFEST.tsv`), by file name.
pub fn reports(corpus: &Path) -> Vec<PathBuf> {
    let manifest = std::fs::read_to_string(corpus.join("reports/MANIFEST.tsv"))
        .unwrap_or_else(|e| panic!("MANIFEST.tsv: {e}"));
    let mut out: Vec<PathBuf> = manifest
        .lines()
        .skip(1)
        .filter_map(|l| l.split('\t').next())
        .filter(|f| f.ends_with(".ncu-rep"))
        .map(|f| corpus.join("reports").join(f))
        .collect();
    out.sort();
    assert!(!out.is_empty(), "the manifest lists no report");
    out
}

/// The python of a venv with NVIDIA's `ncu_report`, or `None` with a message
/// (`sightline_test_support::oracles::ncu_oracle_python`).
pub fn oracle_python() -> Option<PathBuf> {
    sightline_test_support::oracles::ncu_oracle_python()
}

/// One answer of NVIDIA's reader for a PC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OracleAnswer {
    pub action: usize,
    pub pc: u64,
    pub file: String,
    pub line: Option<u32>,
    pub ptx: String,
    pub sass: String,
}

fn unescape(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('t') => out.push('\t'),
                Some('n') => out.push('\n'),
                Some(other) => out.push(other),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Asks NVIDIA's reader about `(action, pc)` pairs of `report`.
/// `Err` when the reader fails. The reader's memory grows with every call (about 15 MB a
/// call on indexspaces: 20 GB for monte_carlo_pi's 3,000 PCs), so the queries are sent in
/// chunks of [`CHUNK`], one process each.
pub fn ask_oracle(
    python: &Path,
    report: &Path,
    queries: &[(usize, u64)],
) -> Result<Vec<OracleAnswer>, String> {
    in_parallel(queries.chunks(CHUNK), |chunk| {
        ask_oracle_once(python, report, chunk)
    })
}

/// [`ask_oracle`] with the SASS text (`sass_by_pc`), in chunks of 50.
pub fn ask_oracle_sass(
    python: &Path,
    report: &Path,
    queries: &[(usize, u64)],
) -> Result<Vec<OracleAnswer>, String> {
    in_parallel(queries.chunks(50), |chunk| {
        ask_oracle_once_with(python, report, chunk, true)
    })
}

/// The answers of `ask` for every chunk, in the chunks' order, with as many reader processes at
/// a time as there are cores (the reader is single-threaded: one at a time left a core idle for
/// most of the Source tests' run); the first chunk's error in that order when any fails.
fn in_parallel<'q>(
    chunks: impl Iterator<Item = &'q [(usize, u64)]>,
    ask: impl Fn(&[(usize, u64)]) -> Result<Vec<OracleAnswer>, String> + Sync,
) -> Result<Vec<OracleAnswer>, String> {
    let chunks: Vec<&[(usize, u64)]> = chunks.collect();
    // After a failure no new reader starts (the action is not compared).
    let results = map_on_every_core("oracle", &chunks, |chunk| ask(chunk), Result::is_err);
    if let Some(Err(e)) = results.iter().flatten().find(|r| r.is_err()) {
        return Err(e.clone());
    }
    let mut out = Vec::new();
    for answer in results {
        out.extend(answer.expect("every chunk asked when none failed")?);
    }
    Ok(out)
}

/// Queries per reader process.
pub const CHUNK: usize = 150;

fn ask_oracle_once(
    python: &Path,
    report: &Path,
    queries: &[(usize, u64)],
) -> Result<Vec<OracleAnswer>, String> {
    ask_oracle_once_with(python, report, queries, false)
}

fn ask_oracle_once_with(
    python: &Path,
    report: &Path,
    queries: &[(usize, u64)],
    sass: bool,
) -> Result<Vec<OracleAnswer>, String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/source_pcs.py");
    let mut input = String::new();
    for (a, pc) in queries {
        input.push_str(&format!("{a} {pc}\n"));
    }
    let output = cached(python, &script, report, sass, &input, || {
        run_reader(python, &script, report, sass, &input)
    })?;
    Ok(output
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 6, "oracle line {l:?}");
            OracleAnswer {
                action: f[0].parse().expect("action"),
                pc: f[1].parse().expect("pc"),
                file: unescape(f[2]),
                line: f[3].parse().ok(),
                ptx: unescape(f[4]),
                sass: unescape(f[5]),
            }
        })
        .collect())
}

/// The reader's output (one line per query), or why it failed.
fn run_reader(
    python: &Path,
    script: &Path,
    report: &Path,
    sass: bool,
    input: &str,
) -> Result<String, String> {
    use std::io::Write;
    let mut child = std::process::Command::new(python)
        .arg(script)
        .arg(report)
        .args(sass.then_some("--sass"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e}", python.display()));
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_owned();
    let writer = std::thread::Builder::new()
        .name("oracle-stdin".into())
        .spawn(move || stdin.write_all(input.as_bytes()))
        .expect("thread");
    let output = child.wait_with_output().expect("oracle output");
    writer.join().expect("join").expect("write");
    if !output.status.success() {
        return Err(format!(
            "NVIDIA's reader failed on {} ({}): {}",
            report.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr)
                .lines()
                .last()
                .unwrap_or("")
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The output of `ask`, kept in the build folder (`target/tmp/ncu-oracle/`): NVIDIA's reader
/// takes a minute over the corpus, and its answers change only with the report's bytes, the
/// queries, the script or the reader, which name the kept answer. A fresh clone (CI) asks the
/// reader; `cargo clean` forgets the answers; `SIGHTLINE_ORACLE_CACHE=0` always asks.
fn cached(
    python: &Path,
    script: &Path,
    report: &Path,
    sass: bool,
    input: &str,
    ask: impl FnOnce() -> Result<String, String>,
) -> Result<String, String> {
    use std::hash::{Hash, Hasher};
    if std::env::var_os("SIGHTLINE_ORACLE_CACHE").is_some_and(|v| v == "0") {
        return ask();
    }
    let (Ok(script_bytes), Ok(report_bytes)) = (std::fs::read(script), std::fs::read(report))
    else {
        return ask();
    };
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (
        reader_identity(python),
        script_bytes,
        report_bytes,
        sass,
        input,
    )
        .hash(&mut h);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ncu-oracle");
    let path = dir.join(format!("{:016x}.tsv", h.finish()));
    if let Ok(kept) = std::fs::read_to_string(&path) {
        return Ok(kept);
    }
    let output = ask()?;
    // Written beside and renamed: a test running at the same time never reads half of it.
    let partial = path.with_extension(format!("{}.partial", std::process::id()));
    let kept = std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(&partial, &output))
        .and_then(|()| std::fs::rename(&partial, &path));
    if kept.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    Ok(output)
}

/// What tells one installed reader from another: the interpreter and the `ncu_report` module's
/// file with its size and modification time.
fn reader_identity(python: &Path) -> String {
    static IDENTITY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    IDENTITY
        .get_or_init(|| sightline_test_support::oracles::ncu_oracle_identity(python))
        .clone()
}
