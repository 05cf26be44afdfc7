//! The embedded Python interpreter: RustPython with the frozen standard library, the `NvRules`
//! module, no host `PYTHONPATH`, and a sandbox (no processes, sockets or file writes).

use rustpython_vm::builtins::PyTypeRef;
use rustpython_vm::signal::UserSignalReceiver;
use rustpython_vm::{Interpreter, Settings, VirtualMachine};

use rustpython_compiler_core::frozen::FrozenLib;

use crate::model::PythonError;
use crate::stdlib_list;

/// Python run once after start-up: removes what a rule must not reach. Reading files stays
/// possible; opening for writing, process creation and sockets are gone.
const SANDBOX: &str = r#"
import builtins as _b, io as _io_mod, _io, os as _os, sys as _sys

def _sightline_install():
    real_open = _io.open
    write_modes = set("wax+")

    def check_mode(mode):
        if not isinstance(mode, str):
            raise TypeError("open() mode must be a string")
        if write_modes.intersection(mode):
            raise PermissionError("rules cannot write files (open mode %r)" % mode)

    def open(file, mode="r", *args, **kwargs):
        check_mode(mode)
        return real_open(file, mode, *args, **kwargs)

    _b.open = open
    _io.open = open
    _io_mod.open = open

    real_file_io = _io.FileIO

    class FileIO(real_file_io):
        def __init__(self, file, mode="r", *args, **kwargs):
            check_mode(mode)
            super().__init__(file, mode, *args, **kwargs)

    _io.FileIO = FileIO
    _io_mod.FileIO = FileIO

    # The module under `os`: `posix`, or `nt` on Windows.
    _posix = __import__(_os.name)
    real_os_open = _posix.open
    write_flags = 0
    for flag in ("O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC", "O_EXCL"):
        write_flags |= getattr(_posix, flag, 0)

    def os_open(path, flags, mode=0o777, *, dir_fd=None):
        if flags & write_flags:
            raise PermissionError("rules cannot write files")
        return real_os_open(path, flags, mode, dir_fd=dir_fd)

    forbidden = (
        "system", "popen", "fork", "forkpty", "vfork", "execl", "execle", "execlp", "execlpe",
        "execv", "execve", "execvp", "execvpe", "spawnl", "spawnle", "spawnlp", "spawnlpe",
        "spawnv", "spawnve", "spawnvp", "spawnvpe", "posix_spawn", "posix_spawnp", "kill",
        "killpg", "remove", "unlink", "rmdir", "removedirs", "mkdir", "makedirs", "rename",
        "renames", "replace", "truncate", "ftruncate", "chmod", "fchmod", "lchmod", "chown",
        "fchown", "lchown", "link", "symlink", "mkfifo", "mknod", "utime", "putenv",
        "unsetenv", "setuid", "setgid", "chdir", "fchdir", "chroot", "pipe", "pipe2",
        "openpty", "sendfile", "startfile", "register_at_fork", "copy_file_range",
    )
    for module in (_os, _posix):
        for name in forbidden:
            if hasattr(module, name):
                delattr(module, name)
        module.open = os_open

    # Packages are blocked with their submodules. `urllib.parse` (string handling, imported by
    # `pathlib`) stays available; the parts of `urllib` that open connections do not.
    blocked = {
        "subprocess", "socket", "_socket", "_posixsubprocess", "multiprocessing",
        "_multiprocessing", "ctypes", "_ctypes", "select", "selectors", "asyncio", "mmap",
        "pty", "shutil", "tempfile", "_signal", "signal", "ssl", "http", "urllib.request",
        "urllib.response", "urllib.robotparser", "ftplib", "smtplib", "socketserver",
        "webbrowser",
    }

    def is_blocked(name):
        parts = name.split(".")
        return any(".".join(parts[:n]) in blocked for n in range(1, len(parts) + 1))

    class _Blocker:
        @classmethod
        def find_spec(cls, name, path=None, target=None):
            if is_blocked(name):
                raise ImportError("module %r is not available to rules" % name, name=name)
            return None

    _sys.meta_path.insert(0, _Blocker)

    # Asked last, when no finder (the rule folders' included) has the module.
    left_out = _sightline_left_out

    class _LeftOut:
        @classmethod
        def find_spec(cls, name, path=None, target=None):
            parts = name.split(".")
            if any(".".join(parts[:n]) in left_out for n in range(1, len(parts) + 1)):
                raise ModuleNotFoundError(
                    "module %r is not in the standard library bundled with Sightline "
                    "(left out: network, GUI, terminal and Python development tools)" % name,
                    name=name,
                )
            return None

    _sys.meta_path.append(_LeftOut)
    for name in list(_sys.modules):
        if is_blocked(name):
            del _sys.modules[name]

_sightline_install()
del _sightline_install, _sightline_left_out
"#;

/// Modules imported at start-up: `NvRules` and the cheap standard modules nearly every rule
/// set uses. Heavier ones (`re` ≈ 12 ms, `typing` ≈ 12 ms, `pathlib` ≈ 14 ms, `dataclasses`
/// ≈ 28 ms in a release build) are imported by the first rule that needs them, so the
/// interpreter is ready sooner and rule sets that do not use them never pay for them.
const PRELOAD: &str = "import math, collections, abc, itertools, functools, enum, NvRules\n";

/// The frozen standard library compiled by `build.rs`: RustPython's, minus
/// [`stdlib_list::LEFT_OUT`].
fn stdlib() -> &'static FrozenLib {
    static BYTES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/stdlib.frozen"));
    FrozenLib::from_ref(BYTES)
}

/// Python that names the left-out modules, run before the sandbox: an import of one of them
/// fails with a message that says why, not a bare "No module named".
fn left_out_names() -> String {
    let names: Vec<String> = stdlib_list::LEFT_OUT
        .iter()
        .chain(stdlib_list::LEFT_OUT_SUBMODULES)
        .map(|name| format!("{name:?}"))
        .collect();
    format!("_sightline_left_out = {{{}}}\n", names.join(", "))
}

/// Builds the interpreter. Must be called on the thread that will use it (it is `!Send`).
pub(crate) fn build(signals: UserSignalReceiver) -> Interpreter {
    let mut settings = Settings::default();
    settings.ignore_environment = true;
    settings.safe_path = true;
    settings.isolated = true;
    settings.import_site = false;
    settings.user_site_directory = false;
    settings.install_signal_handlers = false;
    settings.write_bytecode = false;
    settings.path_list = Vec::new();
    let builder = Interpreter::builder(settings);
    let mut defs = rustpython_stdlib::stdlib_module_defs(&builder.ctx);
    defs.push(super::nvrules::module_def(&builder.ctx));
    defs.push(super::timeline::module::module_def(&builder.ctx));
    builder
        .add_native_modules(&defs)
        .add_frozen_modules(stdlib())
        .init_hook(move |vm| vm.set_user_signal_channel(signals))
        .build()
}

/// Installs the sandbox, preloads the standard modules, and creates the timeout exception
/// type (a `BaseException`, so `except Exception:` in a rule cannot swallow it).
pub(crate) fn prepare(vm: &VirtualMachine) -> Result<PyTypeRef, PythonError> {
    let scope = vm.new_scope_with_builtins();
    let run = |source: &str, name: &str| -> Result<(), PythonError> {
        vm.run_string(scope.clone(), source, name.to_owned())
            .map(drop)
            .map_err(|exc| super::engine::worker::python_error(vm, &exc))
    };
    // No host paths: only the frozen standard library (and later the rule folders).
    run("import sys\nsys.path[:] = []\n", "<sightline-path>")?;
    run(PRELOAD, "<sightline-preload>")?;
    run(&left_out_names(), "<sightline-left-out>")?;
    run(SANDBOX, "<sightline-sandbox>")?;
    let base = vm.ctx.exceptions.base_exception_type.to_owned();
    Ok(vm
        .ctx
        .new_exception_type("sightline", "RuleTimeout", Some(vec![base])))
}
