//! Text inputs written on Windows (CRLF line ends) read as their LF originals: section files,
//! rule files, CodeXL counter files and Gainsight logs give the same output either way. (NVTXT
//! and CodeXL traces and occupancy files have CRLF fixtures of their own: `fixtures/nvtxt`,
//! `fixtures/codexl`.) What Sightline writes ends lines with LF on every system, which
//! `tests/it/wine.rs` checks byte for byte against the Windows build.

use std::path::Path;
use std::process::{Command, Output};

fn sightline(dir: &Path, args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args(args)
        .current_dir(dir)
        .env("SIGHTLINE_DISABLE_DEPLOYMENT", "1")
        .env("SOURCE_DATE_EPOCH", "1741026021")
        .output()
        .expect("run sightline");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `text` with every line ending in CRLF.
fn crlf(text: &str) -> String {
    text.lines().map(|line| format!("{line}\r\n")).collect()
}

/// Copies the files of `from` to `to`, those ending in one of `extensions` with CRLF.
fn copy_folder(from: &Path, to: &Path, extensions: &[&str], to_crlf: bool) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        if !path.is_file() {
            continue;
        }
        let target = to.join(path.file_name().unwrap());
        let text_file = path
            .extension()
            .is_some_and(|e| extensions.iter().any(|x| e == *x));
        if to_crlf && text_file {
            std::fs::write(&target, crlf(&std::fs::read_to_string(&path).unwrap())).unwrap();
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

#[test]
fn crlf_section_and_rule_files_give_the_same_pages_and_results() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let report = root.join("fixtures/sample.ncu-rep").display().to_string();
    let dir = tempfile::tempdir().unwrap();
    let mut outputs = Vec::new();
    for (name, to_crlf) in [("lf", false), ("crlf", true)] {
        let sections = dir.path().join(name).join("sections");
        let rules = dir.path().join(name).join("rules");
        copy_folder(&root.join("sections"), &sections, &["section"], to_crlf);
        copy_folder(&root.join("rules"), &rules, &["py"], to_crlf);
        let (sections, rules) = (sections.display().to_string(), rules.display().to_string());
        let details = sightline(
            dir.path(),
            &["details", &report, "--section-folder", &sections],
        );
        let results = sightline(
            dir.path(),
            &[
                "rules",
                &report,
                "--section-folder",
                &sections,
                "--rules-folder",
                &rules,
            ],
        );
        outputs.push((details.stdout, results.stdout));
    }
    assert!(!outputs[0].0.is_empty() && !outputs[0].1.is_empty());
    assert!(outputs[0] == outputs[1], "CRLF files read differently");
}

#[test]
fn crlf_counter_files_and_gainsight_logs_read_as_lf() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let inputs = [
        (root.join("fixtures/codexl/session1.csv"), "counters"),
        (root.join("fixtures/gainsight/sample.log"), "gainsight"),
    ];
    for (input, command) in inputs {
        // The same file with LF and with CRLF ends (whichever the fixture has).
        let text = std::fs::read_to_string(&input)
            .unwrap()
            .replace("\r\n", "\n");
        let name = input.file_name().unwrap().to_str().unwrap().to_owned();
        let mut stdouts = Vec::new();
        for (sub, body) in [("lf", text.clone()), ("crlf", crlf(&text))] {
            let folder = dir.path().join(command).join(sub);
            std::fs::create_dir_all(&folder).unwrap();
            std::fs::write(folder.join(&name), body).unwrap();
            let args: &[&str] = if command == "gainsight" {
                &["gainsight", "--json", "--name", "run", &name]
            } else {
                &["counters", "--json", &name]
            };
            stdouts.push(sightline(&folder, args).stdout);
        }
        assert!(!stdouts[0].is_empty());
        assert!(stdouts[0] == stdouts[1], "{name}: CRLF reads differently");
    }
}
