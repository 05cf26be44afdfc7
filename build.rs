//! Build script of the `sightline` package: records which commit the binary is built from,
//! for `sightline --version` ([`emit_commit`]), and gives `sightline.exe` its Windows resources
//! ([`windows_resources`]): the application icon (`assets/sightline.ico`, which Explorer shows
//! for the program and, through `install-desktop`, for its report files) and the version
//! information (Properties > Details: file and product version from the package's version,
//! product name Sightline), compiled with the target's `windres` (mingw-w64's
//! `x86_64-w64-mingw32-windres` when cross-compiling) and linked into the binary only.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    emit_commit();
    println!("cargo:rerun-if-changed=assets/sightline.ico");
    println!("cargo:rerun-if-env-changed=WINDRES");
    if env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("windows") {
        return;
    }
    if let Err(message) = windows_resources() {
        // A build script reports its failure by exiting non-zero with the reason on stderr.
        eprintln!("error: Windows resources of sightline.exe: {message}");
        std::process::exit(1);
    }
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

/// Writes `sightline.rc`, compiles it to a COFF object with `windres` and links it into the
/// `sightline` binary.
fn windows_resources() -> Result<(), String> {
    let out_dir = PathBuf::from(env::var("OUT_DIR").map_err(|e| format!("OUT_DIR: {e}"))?);
    let manifest_dir = PathBuf::from(
        env::var("CARGO_MANIFEST_DIR").map_err(|e| format!("CARGO_MANIFEST_DIR: {e}"))?,
    );
    let version = env::var("CARGO_PKG_VERSION").map_err(|e| format!("CARGO_PKG_VERSION: {e}"))?;
    let icon = manifest_dir.join("assets").join("sightline.ico");
    let rc = out_dir.join("sightline.rc");
    fs::write(&rc, resource_script(&icon, &version)?)
        .map_err(|e| format!("writing {}: {e}", rc.display()))?;
    let object = out_dir.join("sightline-resources.o");
    let windres = windres();
    let status = Command::new(&windres)
        .args([
            "--input-format=rc",
            "--output-format=coff",
            "--codepage=65001",
        ])
        .arg("--input")
        .arg(&rc)
        .arg("--output")
        .arg(&object)
        .status()
        .map_err(|e| format!("cannot run {windres} (install mingw-w64's binutils): {e}"))?;
    if !status.success() {
        return Err(format!("{windres} {} failed: {status}", rc.display()));
    }
    // An object file (not an archive) on the link line: the linker keeps its `.rsrc` section.
    println!("cargo:rustc-link-arg-bins={}", object.display());
    Ok(())
}

/// The resource compiler: `$WINDRES`, else the target's mingw-w64 `windres` when
/// cross-compiling, else `windres` (a native mingw toolchain).
fn windres() -> String {
    if let Ok(explicit) = env::var("WINDRES") {
        return explicit;
    }
    let host = env::var("HOST").unwrap_or_default();
    let target = env::var("TARGET").unwrap_or_default();
    if host != target && target.starts_with("x86_64-") {
        "x86_64-w64-mingw32-windres".to_owned()
    } else if host != target && target.starts_with("aarch64-") {
        "aarch64-w64-mingw32-windres".to_owned()
    } else {
        "windres".to_owned()
    }
}

/// The resource script: icon 1 (the one Explorer shows) and the `VERSIONINFO` block.
fn resource_script(icon: &Path, version: &str) -> Result<String, String> {
    let numbers = version_numbers(version)?;
    let dotted = numbers.map(|n| n.to_string()).join(".");
    let commas = numbers.map(|n| n.to_string()).join(",");
    // windres reads the path as a C string: forward slashes and no quotes inside.
    let icon = icon.display().to_string().replace('\\', "/");
    if icon.contains('"') {
        return Err(format!("the icon path {icon} holds a quote"));
    }
    Ok(format!(
        r#"#pragma code_page(65001)
1 ICON "{icon}"

1 VERSIONINFO
FILEVERSION {commas}
PRODUCTVERSION {commas}
FILEOS 0x40004
FILETYPE 0x1
BEGIN
  BLOCK "StringFileInfo"
  BEGIN
    BLOCK "040904B0"
    BEGIN
      VALUE "CompanyName", "Sightline contributors"
      VALUE "FileDescription", "Sightline: a viewer for GPU profiler reports"
      VALUE "FileVersion", "{dotted}"
      VALUE "InternalName", "sightline"
      VALUE "LegalCopyright", "Apache-2.0"
      VALUE "OriginalFilename", "sightline.exe"
      VALUE "ProductName", "Sightline"
      VALUE "ProductVersion", "{version}"
    END
  END
  BLOCK "VarFileInfo"
  BEGIN
    VALUE "Translation", 0x409, 1200
  END
END
"#
    ))
}

/// `major.minor.patch` (a pre-release or build suffix dropped) as the four 16-bit numbers of a
/// Windows version, the fourth 0.
fn version_numbers(version: &str) -> Result<[u16; 4], String> {
    let core = version.split(['-', '+']).next().unwrap_or(version);
    let mut numbers = [0u16; 4];
    let parts: Vec<&str> = core.split('.').collect();
    if parts.len() != 3 {
        return Err(format!("version {version} is not major.minor.patch"));
    }
    for (slot, part) in numbers.iter_mut().zip(parts) {
        *slot = part
            .parse()
            .map_err(|e| format!("version {version}: {part}: {e}"))?;
    }
    Ok(numbers)
}
