//! Build script of the `sightline` package: records which commit the binary is built from, for
//! `sightline --version` (see [`emit_commit`]).

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    emit_commit();
}

/// Sets `SIGHTLINE_COMMIT` for the package's code (`env!("SIGHTLINE_COMMIT")`): the commit the
/// binary is built from, as `abc1234 2026-12-03` (short hash and commit date), with `-dirty`
/// after the hash when tracked files differ from it. Taken from `git` when this folder is the
/// top of a git work tree (not merely inside some other repository, as an unpacked source
/// tarball may be); else from the environment variable `SIGHTLINE_COMMIT` (which `dist/build.sh`
/// may set); else `unknown` (`cargo install` from a source archive without `.git`).
///
/// Reruns when HEAD moves (a commit, a checkout: `.git/HEAD`, the branch's ref, `packed-refs`)
/// and when the index changes (`git add`, or `git status` refreshing it after files were
/// touched), so that a plain edit-and-build does not rerun git on every build. An edit that
/// was never staged is seen as `-dirty` at the next of these changes.
fn emit_commit() {
    println!("cargo:rerun-if-env-changed=SIGHTLINE_COMMIT");
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let from_git = git_commit(Path::new(&manifest_dir));
    let commit = from_git
        .or_else(|| std::env::var("SIGHTLINE_COMMIT").ok())
        .filter(|c| !c.trim().is_empty())
        .unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=SIGHTLINE_COMMIT={}", commit.trim());
}

/// `abc1234 2026-12-03` or `abc1234-dirty 2026-12-03` for the repository whose work tree top
/// is `dir`, printing the `rerun-if-changed` lines for its HEAD, ref and index; `None` without
/// git or such a repository.
fn git_commit(dir: &Path) -> Option<String> {
    let git = |args: &[&str]| -> Option<String> {
        // `--no-optional-locks`: `git status` must not rewrite the index, which would make
        // cargo rerun this script (and rebuild the package) on the next build.
        let out = Command::new("git")
            .arg("--no-optional-locks")
            .arg("-C")
            .arg(dir)
            .args(args)
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
    };
    let top = git(&["rev-parse", "--show-toplevel"])?;
    if Path::new(&top).canonicalize().ok()? != dir.canonicalize().ok()? {
        return None;
    }
    // In a linked work tree `.git` is a file: ask git where HEAD, the ref and the index are.
    let mut watched = vec![
        "HEAD".to_owned(),
        "packed-refs".to_owned(),
        "index".to_owned(),
    ];
    if let Some(reference) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(reference);
    }
    for name in &watched {
        // Relative to `dir` unless absolute. Only files that exist: cargo reruns a script on
        // every build while a watched file is missing (a ref may live only in packed-refs).
        if let Some(path) = git(&["rev-parse", "--git-path", name]).map(|p| dir.join(p))
            && path.is_file()
        {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
    let hash = git(&["rev-parse", "--short=7", "HEAD"])?;
    let date = git(&["log", "-1", "--format=%cs", "HEAD"])?;
    let status = git(&["status", "--porcelain", "--untracked-files=no"])?;
    let dirty = if status.is_empty() { "" } else { "-dirty" };
    Some(format!("{hash}{dirty} {date}"))
}
