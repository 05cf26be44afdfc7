//! Windows resources of `sightline.exe`: the application icon (`assets/sightline.ico`, which
//! Explorer shows for the program and, through `install-desktop`, for its report files) and the
//! version information (Properties > Details: file and product version from the package's
//! version, product name Sightline). Compiled with the target's `windres` (mingw-w64's
//! `x86_64-w64-mingw32-windres` when cross-compiling) and linked into the binary only. Nothing
//! is done for other targets.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
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
