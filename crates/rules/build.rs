//! Freezes the standard library that ships with the rule engine: RustPython's pure-Python
//! library (`rustpython_pylib::LIB_PATH`), compiled to bytecode here, minus the modules listed
//! in `src/stdlib_list.rs`. Replaces `rustpython_pylib::FROZEN_STDLIB`, which freezes all of it
//! (about 6 MB more in the release binary).

use std::fs;
use std::path::{Path, PathBuf};

use rustpython_compiler::{CompileOpts, Mode, compile};
use rustpython_compiler_core::frozen::{FrozenCodeObject, FrozenLib, FrozenModule};

include!("src/stdlib_list.rs");

type BuildResult<T> = Result<T, Box<dyn std::error::Error>>;

/// The library is compiled as `python -OO` compiles it, without column ranges: no docstrings
/// and no `assert` statements in its bytecode, and line numbers (not columns) in its
/// tracebacks. CPython's standard library is tested in that mode; rules are compiled with the
/// defaults. This takes about a quarter off the frozen bytes (bench/README.md, "Binary size").
const STDLIB_OPTS: CompileOpts = CompileOpts {
    optimize: 2,
    debug_ranges: false,
};

fn main() -> BuildResult<()> {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/stdlib_list.rs");
    let lib = Path::new(rustpython_pylib::LIB_PATH);
    let mut modules = Vec::new();
    collect(lib, "", &mut modules)?;
    modules.sort();
    let mut frozen = Vec::with_capacity(modules.len());
    for (name, path, package) in &modules {
        let source = fs::read_to_string(path)
            .map_err(|err| format!("cannot read {}: {err}", path.display()))?;
        let code = compile(&source, Mode::Exec, name, STDLIB_OPTS)
            .map_err(|err| format!("cannot compile {}: {err}", path.display()))?;
        frozen.push((
            name.as_str(),
            FrozenModule {
                code: FrozenCodeObject::encode(&code),
                package: *package,
            },
        ));
    }
    let bytes = FrozenLib::encode(frozen.iter().map(|(name, module)| {
        (
            *name,
            FrozenModule {
                code: FrozenCodeObject {
                    bytes: module.code.bytes.as_slice(),
                },
                package: module.package,
            },
        )
    }))
    .bytes;
    let out = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("cargo sets OUT_DIR")?);
    fs::write(out.join("stdlib.frozen"), bytes)?;
    Ok(())
}

/// Adds the modules under `dir` (package `parent`, "" at the top) that are bundled.
fn collect(
    dir: &Path,
    parent: &str,
    modules: &mut Vec<(String, PathBuf, bool)>,
) -> BuildResult<()> {
    let entries =
        fs::read_dir(dir).map_err(|err| format!("cannot list {}: {err}", dir.display()))?;
    for entry in entries {
        let path = entry?.path();
        let Some(file_name) = path.file_name().and_then(|name| name.to_str()) else {
            continue;
        };
        if path.is_dir() {
            if file_name == "__pycache__" || file_name == "test" || file_name == "tests" {
                continue;
            }
            let name = dotted(parent, file_name);
            if bundled(&name) {
                collect(&path, &name, modules)?;
            }
        } else if let Some(stem) = file_name.strip_suffix(".py") {
            if parent == "encodings" && !CODECS.contains(&stem) {
                continue;
            }
            let (name, package) = if stem == "__init__" {
                (parent.to_owned(), true)
            } else {
                (dotted(parent, stem), false)
            };
            if !name.is_empty() && bundled(&name) {
                modules.push((name, path.clone(), package));
            }
        }
    }
    Ok(())
}

fn dotted(parent: &str, name: &str) -> String {
    if parent.is_empty() {
        name.to_owned()
    } else {
        format!("{parent}.{name}")
    }
}

/// Whether a module ships: neither it nor a package above it is left out.
fn bundled(name: &str) -> bool {
    let top = name.split('.').next().unwrap_or(name);
    !LEFT_OUT.contains(&top)
        && !LEFT_OUT_SUBMODULES
            .iter()
            .any(|left| name == *left || name.starts_with(&format!("{left}.")))
}
