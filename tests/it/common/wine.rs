//! Running the Windows build (`sightline.exe`, cross-compiled for `x86_64-pc-windows-gnu`)
//! under Wine, for the tests that compare it with the Linux build.
//!
//! The exe is `$SIGHTLINE_WINDOWS_EXE`, else `x86_64-pc-windows-gnu/release/sightline.exe` in
//! the target folder of the binary under test (`cargo build --release --target
//! x86_64-pc-windows-gnu`, or `dist/build.sh`). Wine runs with its own prefix and home folder
//! under the target folder (`wine/prefix`, `wine/home`), never the user's: Wine writes both
//! when it creates a prefix. The prefix gets a `bcryptprimitives.dll` built from
//! `tests/wine/bcryptprimitives.c` when its Wine lacks one (Wine 8.0). Without Wine or the exe the tests skip with a message, or fail
//! under `SIGHTLINE_REQUIRE_WINE=1` (set by `.ci/run`).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

/// Whether Wine and the Windows exe are required (`SIGHTLINE_REQUIRE_WINE=1`).
pub fn wine_required() -> bool {
    std::env::var_os("SIGHTLINE_REQUIRE_WINE").is_some_and(|v| v == "1")
}

/// Wine with a prefix of its own, and the exe to run in it.
#[derive(Debug)]
pub struct Wine {
    /// `sightline.exe`.
    pub exe: PathBuf,
    /// The `wine` launcher.
    wine: PathBuf,
    /// `WINEPREFIX`.
    prefix: PathBuf,
    /// `HOME` of the Wine processes (Wine links the prefix's user folders there).
    home: PathBuf,
}

/// The target folder of the binary under test (`<target>/debug/sightline` -> `<target>`).
pub fn target_dir() -> PathBuf {
    let bin = Path::new(env!("CARGO_BIN_EXE_sightline"));
    bin.parent()
        .and_then(Path::parent)
        .expect("the binary lies in <target>/<profile>/")
        .to_path_buf()
}

/// Wine ready to run the exe (its prefix created once per process), or `None` after printing
/// why not (a failure instead under [`wine_required`]).
pub fn wine() -> Option<&'static Wine> {
    static WINE: OnceLock<Result<Wine, String>> = OnceLock::new();
    match WINE.get_or_init(prepare) {
        Ok(wine) => Some(wine),
        Err(reason) => {
            assert!(
                !wine_required(),
                "{reason}: SIGHTLINE_REQUIRE_WINE=1 requires Wine and the Windows build"
            );
            eprintln!("skipped: {reason}");
            None
        }
    }
}

fn prepare() -> Result<Wine, String> {
    let exe = std::env::var_os("SIGHTLINE_WINDOWS_EXE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            target_dir()
                .join("x86_64-pc-windows-gnu")
                .join("release")
                .join("sightline.exe")
        });
    if !exe.is_file() {
        return Err(format!(
            "{} not found (cargo build --release --target x86_64-pc-windows-gnu -p sightline)",
            exe.display()
        ));
    }
    let wine = find_on_path("wine").ok_or("wine not found on PATH (.ci/windows-setup)")?;
    let root = target_dir().join("wine");
    let wine = Wine {
        exe,
        wine,
        prefix: root.join("prefix"),
        home: root.join("home"),
    };
    std::fs::create_dir_all(&wine.home).map_err(|e| format!("{}: {e}", wine.home.display()))?;
    if !wine.prefix.join("system.reg").is_file() {
        let out = wine
            .command("wineboot")
            .arg("--init")
            .output()
            .map_err(|e| format!("cannot run wine: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "wineboot --init failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    install_process_prng(&wine.prefix)?;
    Ok(wine)
}

/// Builds `tests/wine/bcryptprimitives.c` into the prefix's `system32`: Wine 8.0 has no
/// `bcryptprimitives.dll`, whose `ProcessPrng` every Rust program for Windows imports (see the
/// file). Nothing is done when the prefix's Wine has one of its own.
fn install_process_prng(prefix: &Path) -> Result<(), String> {
    let system32 = prefix.join("drive_c/windows/system32");
    let dll = system32.join("bcryptprimitives.dll");
    if dll.is_file() {
        return Ok(());
    }
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/wine/bcryptprimitives.c");
    let out = Command::new("x86_64-w64-mingw32-gcc")
        .args(["-shared", "-O2", "-s", "-o"])
        .arg(&dll)
        .arg(&source)
        .arg("-ladvapi32")
        .output()
        .map_err(|e| format!("cannot run x86_64-w64-mingw32-gcc (.ci/windows-setup): {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "building {}: {}",
            source.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(())
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

impl Wine {
    /// `wine <program>` with the scratch prefix and home, no Wine debug output, no Mono or
    /// Gecko installer, UTF-8 arguments, and Sightline's section deployment off (as in the
    /// other CLI tests: it would write to the user's data folder).
    pub fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let mut command = Command::new(&self.wine);
        command
            .arg(program)
            .env("WINEPREFIX", &self.prefix)
            .env("WINEDEBUG", "-all")
            .env("WINEDLLOVERRIDES", "mscoree,mshtml=")
            .env("HOME", &self.home)
            .env("XDG_CACHE_HOME", self.home.join(".cache"))
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            .env("XDG_DATA_HOME", self.home.join(".local/share"))
            .env("LC_ALL", "C.UTF-8")
            .env_remove("DISPLAY")
            .env("SIGHTLINE_DISABLE_DEPLOYMENT", "1")
            .stdin(Stdio::null());
        command
    }

    /// `sightline.exe args...` in `dir`, to run.
    pub fn sightline_command<I, S>(&self, dir: &Path, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut command = self.command(&self.exe);
        command.args(args).current_dir(dir);
        command
    }

    /// `sightline.exe args...` in `dir`, run; its output is read through pipes (under Wine 8
    /// the rule interpreter does not start when the standard handles are files: README).
    pub fn sightline<I, S>(&self, dir: &Path, args: I) -> Output
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.sightline_command(dir, args)
            .output()
            .expect("run wine")
    }
}

/// The Linux build, `sightline args...` in `dir`, to run, with the environment of the Wine
/// runs that matters to Sightline.
pub fn linux_command<I, S>(dir: &Path, args: I) -> Command
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut command = Command::new(env!("CARGO_BIN_EXE_sightline"));
    command
        .args(args)
        .current_dir(dir)
        .env("SIGHTLINE_DISABLE_DEPLOYMENT", "1")
        .env("LC_ALL", "C.UTF-8")
        .stdin(Stdio::null());
    command
}

/// [`linux_command`], run.
pub fn linux_sightline<I, S>(dir: &Path, args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    linux_command(dir, args).output().expect("run sightline")
}

/// `path` (absolute) as Wine's `Z:` drive shows it: `Z:\dir\file`.
pub fn windows_path(path: &Path) -> String {
    let text = path.display().to_string();
    assert!(text.starts_with('/'), "{text} is not absolute");
    format!("Z:{}", text.replace('/', "\\"))
}

/// The first line where `a` and `b` differ, for messages (`None` when equal).
pub fn first_difference(a: &[u8], b: &[u8]) -> Option<String> {
    if a == b {
        return None;
    }
    let (a, b) = (String::from_utf8_lossy(a), String::from_utf8_lossy(b));
    let mut a_lines = a.split_inclusive('\n');
    let mut b_lines = b.split_inclusive('\n');
    for line in 1.. {
        match (a_lines.next(), b_lines.next()) {
            (Some(x), Some(y)) if x == y => {}
            (x, y) => {
                return Some(format!("line {line}: linux {x:?}, windows {y:?}"));
            }
        }
    }
    None
}
