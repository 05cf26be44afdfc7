//! The Windows build under Wine gives the Linux build's output, byte for byte: every headless
//! command of the issue on every file the corpus MANIFESTs list (`../shared/corpus`), Gainsight
//! on the fixtures, reports at paths with spaces and non-ASCII characters, and
//! `install-desktop` / `uninstall-desktop` in the registry. See `common::wine` for how the
//! exe and Wine are found (the tests skip without them, or fail under
//! `SIGHTLINE_REQUIRE_WINE=1`).
//!
//! Each command runs in the file's folder with the bare file name, so that the outputs that
//! repeat the path given (`stats`, `analyze`, `timeline --json`, `nvtxt`) repeat the same text
//! on both systems; the tests with absolute paths replace each system's spelling of the path.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::common::skip_shared;
use crate::common::wine::{
    Wine, first_difference, linux_command, linux_sightline, windows_path, wine,
};

/// One run: the folder, the arguments.
#[derive(Debug, Clone)]
struct Case {
    dir: PathBuf,
    args: Vec<String>,
}

/// The files listed in `dir/MANIFEST.tsv` (its first column, below the header).
fn manifest(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("MANIFEST.tsv"))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.join("MANIFEST.tsv").display()));
    text.lines()
        .skip(1)
        .filter_map(|line| line.split('\t').next())
        .filter(|file| !file.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The corpus runs: per Nsight Compute report `details`, `raw`, `summary`, `session`,
/// `source` (without nvdisasm, which only the Linux side has here); per Nsight Systems export
/// `stats`, `analyze`, `timeline --json`; per NVTXT file `nvtxt` and `timeline --json`; per
/// CodeXL counter file `counters` and `counters --json`.
fn corpus_cases(corpus: &Path) -> Vec<Case> {
    let per_kind: [(&str, &[&[&str]]); 5] = [
        (
            "ncu/reports",
            &[
                &["details"],
                &["raw"],
                &["summary"],
                &["session"],
                &["source", "--nvdisasm", "no-such-nvdisasm"],
            ],
        ),
        ("nsys", &[&["stats"], &["analyze"], &["timeline", "--json"]]),
        ("nvtxt", &[&["nvtxt"], &["timeline", "--json"]]),
        ("codexl", &[&["counters"], &["counters", "--json"]]),
        ("codexl/more", &[&["counters"], &["counters", "--json"]]),
    ];
    let mut cases = Vec::new();
    for (folder, commands) in per_kind {
        let dir = corpus.join(folder);
        for file in manifest(&dir) {
            for command in commands {
                let mut args: Vec<String> = command.iter().map(|s| (*s).to_owned()).collect();
                args.insert(1, file.clone());
                cases.push(Case {
                    dir: dir.clone(),
                    args,
                });
            }
        }
    }
    cases
}

/// Runs `case` on both builds; a description of the difference, if any.
fn compare(wine: &Wine, case: &Case) -> Option<String> {
    let linux = linux_sightline(&case.dir, &case.args);
    let windows = wine.sightline(&case.dir, &case.args);
    let what = format!("{} (in {})", case.args.join(" "), case.dir.display());
    if linux.status.code() != windows.status.code() {
        return Some(format!(
            "{what}: exit code linux {:?}, windows {:?}; windows stderr: {}",
            linux.status.code(),
            windows.status.code(),
            String::from_utf8_lossy(&windows.stderr)
        ));
    }
    first_difference(&linux.stdout, &windows.stdout).map(|d| format!("{what}: stdout {d}"))
}

/// Runs the cases on two threads (Wine's start-up is most of each run's time); the
/// differences found.
fn compare_all(wine: &Wine, cases: &[Case]) -> Vec<String> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let differences = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for worker in 0..2 {
            std::thread::Builder::new()
                .name(format!("wine-{worker}"))
                .spawn_scoped(scope, || {
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(case) = cases.get(i) else { break };
                        if let Some(d) = compare(wine, case) {
                            differences.lock().unwrap().push(d);
                        }
                    }
                })
                .unwrap();
        }
    });
    differences.into_inner().unwrap()
}

#[test]
fn headless_commands_equal_the_linux_build_on_the_corpus() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if !corpus.is_dir() {
        skip_shared("../shared/corpus not found (the Wine comparison runs on the corpus)");
        return;
    }
    let Some(wine) = wine() else { return };
    let cases = corpus_cases(&corpus);
    assert!(
        cases.len() > 200,
        "{} runs: the MANIFESTs lost files",
        cases.len()
    );
    let started = Instant::now();
    let differences = compare_all(wine, &cases);
    eprintln!(
        "{} runs of the Windows build under Wine, {} different, {:.0} s",
        cases.len(),
        differences.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        differences.is_empty(),
        "{} of {} runs differ:\n{}",
        differences.len(),
        cases.len(),
        differences.join("\n")
    );
}

/// The Gainsight frontend on the fixtures: the summary and the four files it writes. The
/// summary names the files written in the output folder (`wrote ./NAME.sim.csv`), in each
/// system's spelling of the path (`.\NAME.sim.csv` on Windows): only that prefix is replaced.
#[test]
fn gainsight_equals_the_linux_build() {
    let Some(wine) = wine() else { return };
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/gainsight");
    for log in ["sample.log", "handmade.log"] {
        let (linux_dir, windows_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        for dir in [&linux_dir, &windows_dir] {
            std::fs::copy(fixtures.join(log), dir.path().join(log)).unwrap();
        }
        // The JSON report's date and time: fixed, as in tests/it/gainsight_cli.rs.
        let args = ["gainsight", log];
        let mut linux = linux_command(linux_dir.path(), args)
            .env("SOURCE_DATE_EPOCH", "1741026021")
            .output()
            .unwrap();
        let mut windows = wine
            .sightline_command(windows_dir.path(), args)
            .env("SOURCE_DATE_EPOCH", "1741026021")
            .output()
            .unwrap();
        for out in [&mut linux, &mut windows] {
            assert!(
                out.status.success(),
                "{log}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let normalized = |stdout: &[u8], sep: &str| {
            String::from_utf8(stdout.to_vec())
                .unwrap()
                .replace(&format!("wrote .{sep}"), "wrote <out>/")
        };
        assert_eq!(
            normalized(&linux.stdout, "/"),
            normalized(&windows.stdout, "\\"),
            "{log}: summary"
        );
        // The four files, named after the program in the log (NAME.sim_l1.csv...).
        let mut written: Vec<String> = std::fs::read_dir(linux_dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|name| name != log)
            .collect();
        written.sort();
        assert_eq!(written.len(), 4, "{log}: {written:?}");
        for name in &written {
            let a = std::fs::read(linux_dir.path().join(name)).unwrap();
            let b = std::fs::read(windows_dir.path().join(name)).unwrap();
            assert_eq!(first_difference(&a, &b), None, "{name}");
        }
    }
}

/// A report, an export and an NVTXT file copied to a folder and names with spaces and
/// non-ASCII characters open on Windows, given as `Z:\...` paths (drive letter, backslashes);
/// the output equals the Linux build's on the same files, each system's spelling of the path
/// aside (JSON-escaped in `timeline --json`).
#[test]
fn paths_with_spaces_and_non_ascii_characters_open() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    let Some(wine) = wine() else { return };
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("Отчёт dir");
    std::fs::create_dir(&dir).unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let files = [
        (
            fixtures.join("sample.ncu-rep"),
            "ñame é.ncu-rep",
            vec!["details"],
        ),
        (
            fixtures.join("sample.ncu-repz"),
            "ñame é.ncu-repz",
            vec!["raw"],
        ),
        (
            fixtures.join("nvtxt/colors.nvtxt"),
            "цвета 色.nvtxt",
            vec!["nvtxt"],
        ),
        (
            corpus.join("nsys/extrap_concurrent_profile1.sqlite"),
            "prófile 1.sqlite",
            vec!["timeline", "--json"],
        ),
    ];
    for (source, name, command) in files {
        if !source.is_file() {
            skip_shared(format!("{} not found", source.display()));
            continue;
        }
        // A folder per file: the timeline would load an NVTXT file beside the export.
        let folder = dir.join(format!("{} ü", command[0]));
        std::fs::create_dir_all(&folder).unwrap();
        let path = folder.join(name);
        std::fs::copy(&source, &path).unwrap();
        let (unix, windows) = (path.display().to_string(), windows_path(&path));
        let with = |p: &str| {
            let mut args: Vec<String> = command.iter().map(|s| (*s).to_owned()).collect();
            args.insert(1, p.to_owned());
            args
        };
        let linux_out = linux_sightline(scratch.path(), with(&unix));
        let wine_out = wine.sightline(scratch.path(), with(&windows));
        assert!(
            wine_out.status.success(),
            "{windows}: {}",
            String::from_utf8_lossy(&wine_out.stderr)
        );
        let what = format!("{name}: {}", command.join(" "));
        let linux_text = String::from_utf8(linux_out.stdout).unwrap();
        let wine_text = String::from_utf8(wine_out.stdout).unwrap();
        if command.contains(&"--json") {
            // The path is the `file` key, JSON-escaped (non-ASCII as `\u` escapes).
            let without_file = |text: &str| {
                let mut json: serde_json::Value = serde_json::from_str(text).unwrap();
                json["file"] = serde_json::Value::Null;
                json
            };
            let linux_json: serde_json::Value = serde_json::from_str(&linux_text).unwrap();
            let wine_json: serde_json::Value = serde_json::from_str(&wine_text).unwrap();
            assert_eq!(linux_json["file"], unix.as_str(), "{what}");
            assert_eq!(wine_json["file"], windows.as_str(), "{what}");
            assert!(
                without_file(&linux_text) == without_file(&wine_text),
                "{what}"
            );
        } else {
            let linux_text = linux_text.replace(&unix, "<path>");
            let wine_text = wine_text.replace(&windows, "<path>");
            let difference = first_difference(linux_text.as_bytes(), wine_text.as_bytes());
            assert_eq!(difference, None, "{what}");
        }
    }
}

/// `reg query HKCU\Software\Classes\KEY extra...` in the test prefix (`extra`: `/ve` for the
/// default value, `/v NAME` for a value, nothing for the whole key): the output, or `None` when
/// the key or value does not exist.
fn reg_query(wine: &Wine, key: &str, extra: &[&str]) -> Option<String> {
    let out = wine
        .command("reg")
        .args([
            "query",
            &format!(r"HKEY_CURRENT_USER\Software\Classes\{key}"),
        ])
        .args(extra)
        .output()
        .expect("wine reg");
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `reg ARGS...` in the test prefix, which must succeed.
fn reg(wine: &Wine, args: &[&str]) {
    let out = wine.command("reg").args(args).output().unwrap();
    assert!(out.status.success(), "reg {args:?}: {out:?}");
}

/// A clean registry (an earlier run may have stopped half-way: the prefix is kept), then
/// another program's "Open with" value under `.nvtxt` and another program's default for `.atp`,
/// which install and uninstall must leave alone.
fn other_programs_entries(wine: &Wine, cwd: &Path) {
    let cleaned = wine.sightline(cwd, ["uninstall-desktop"]);
    assert!(cleaned.status.success(), "{cleaned:?}");
    for key in [".nvtxt", ".atp"] {
        let _ = wine
            .command("reg")
            .args(["delete", &format!(r"HKCU\Software\Classes\{key}"), "/f"])
            .output();
    }
    reg(
        wine,
        &[
            "add",
            r"HKCU\Software\Classes\.nvtxt\OpenWithProgids",
            "/v",
            "Other.Editor",
            "/f",
        ],
    );
    reg(
        wine,
        &[
            "add",
            r"HKCU\Software\Classes\.atp",
            "/ve",
            "/d",
            "Other.Trace",
            "/f",
        ],
    );
}

/// `install-desktop` writes the ProgIDs, "Open with" entries, the extensions' defaults and the
/// application entry under `HKEY_CURRENT_USER\Software\Classes`; a second install changes
/// nothing; `uninstall-desktop` removes exactly that, and keeps what another program wrote.
#[test]
fn install_desktop_registers_the_file_types_and_uninstall_removes_them() {
    let Some(wine) = wine() else { return };
    let cwd = std::env::temp_dir();
    other_programs_entries(wine, &cwd);
    let install = wine.sightline(&cwd, ["install-desktop"]);
    let text = String::from_utf8_lossy(&install.stdout).into_owned();
    assert!(
        install.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&install.stderr)
    );
    assert!(text.contains(r"wrote HKEY_CURRENT_USER\Software\Classes\Sightline.NcuReport\shell\open\command (default)"), "{text}");
    assert!(
        text.contains(r"kept HKEY_CURRENT_USER\Software\Classes\.atp (default): Other.Trace"),
        "{text}"
    );
    let command = reg_query(wine, r"Sightline.NcuReport\shell\open\command", &["/ve"]).unwrap();
    let exe = windows_path(&wine.exe);
    assert!(command.contains(&format!("\"{exe}\" \"%1\"")), "{command}");
    assert!(
        reg_query(wine, ".ncu-rep", &["/ve"])
            .unwrap()
            .contains("Sightline.NcuReport")
    );
    assert!(
        reg_query(wine, ".atp", &["/ve"])
            .unwrap()
            .contains("Other.Trace")
    );
    assert!(
        reg_query(
            wine,
            r".sqlite\OpenWithProgids",
            &["/v", "Sightline.NsysExport"]
        )
        .is_some()
    );
    assert!(
        reg_query(wine, r"Applications\sightline.exe\DefaultIcon", &["/ve"])
            .unwrap()
            .contains(",0")
    );
    let again = wine.sightline(&cwd, ["install-desktop"]);
    let again = String::from_utf8_lossy(&again.stdout).into_owned();
    assert!(
        !again.contains("wrote "),
        "a second install rewrote values:\n{again}"
    );

    let uninstall = wine.sightline(&cwd, ["uninstall-desktop"]);
    let text = String::from_utf8_lossy(&uninstall.stdout).into_owned();
    assert!(
        uninstall.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&uninstall.stderr)
    );
    for key in [
        "Sightline.NcuReport",
        "Sightline.NsysExport",
        r"Applications\sightline.exe",
        ".ncu-rep",
        ".sqlite",
    ] {
        assert!(
            reg_query(wine, key, &[]).is_none(),
            "{key} left after uninstall:\n{text}"
        );
    }
    assert!(reg_query(wine, r".nvtxt\OpenWithProgids", &["/v", "Other.Editor"]).is_some());
    assert!(reg_query(wine, r".nvtxt\OpenWithProgids", &["/v", "Sightline.Nvtxt"]).is_none());
    assert!(
        reg_query(wine, ".atp", &["/ve"])
            .unwrap()
            .contains("Other.Trace")
    );
    reg(wine, &["delete", r"HKCU\Software\Classes\.nvtxt", "/f"]);
    reg(wine, &["delete", r"HKCU\Software\Classes\.atp", "/f"]);
}
