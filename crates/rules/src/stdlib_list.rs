// The standard library that ships inside Sightline: RustPython's pure-Python standard library
// minus the parts a rule cannot use or would never need. Included by `build.rs` (which freezes
// the library) and by `interp.rs` (which names what was left out when a rule imports it), so the
// list exists once. Plain Rust, no imports: `build.rs` includes it with `include!`.

/// Top-level modules and packages of the standard library that are not bundled. Three kinds:
/// what the sandbox blocks anyway (processes, sockets, file writes), what needs a terminal, a
/// window or the network (GUI toolkits, the REPL, mail and web clients), and tools for
/// developing Python itself (test runners, debuggers, profilers, packaging). Together they were
/// about 6 MB of the shipped binary.
pub const LEFT_OUT: &[&str] = &[
    // Blocked by the sandbox (see `interp.rs`): never importable by a rule.
    "subprocess",
    "socket",
    "socketserver",
    "selectors",
    "multiprocessing",
    "concurrent",
    "ctypes",
    "asyncio",
    "pty",
    "tty",
    "shutil",
    "tempfile",
    "signal",
    "ssl",
    "http",
    "ftplib",
    "smtplib",
    "poplib",
    "imaplib",
    "webbrowser",
    "getpass",
    // A window, a terminal, the network or mail.
    "tkinter",
    "turtle",
    "turtledemo",
    "idlelib",
    "_pyrepl",
    "rlcompleter",
    "cmd",
    "code",
    "email",
    "mailbox",
    "mimetypes",
    "xmlrpc",
    "wsgiref",
    "netrc",
    "antigravity",
    "this",
    // Developing, testing and packaging Python.
    "unittest",
    "doctest",
    "pdb",
    "bdb",
    "trace",
    "timeit",
    "tabnanny",
    "pyclbr",
    "py_compile",
    "compileall",
    "modulefinder",
    "zipapp",
    "ensurepip",
    "venv",
    "pydoc",
    "pydoc_data",
    "pickletools",
    "__hello__",
    "__phello__",
    "_pyio",
    "_aix_support",
    "_android_support",
    "_apple_support",
    "_ios_support",
    "_osx_support",
    // Archives and databases.
    "tarfile",
    "zipfile",
    "sqlite3",
    "dbm",
    "shelve",
    // Command-line parsing (a rule takes options from the engine, not from argv).
    "argparse",
    "optparse",
    "getopt",
    // XML.
    "xml",
];

/// Submodules left out of packages that are otherwise bundled: the network parts of `urllib`
/// (`urllib.parse` stays: `pathlib` uses it).
pub const LEFT_OUT_SUBMODULES: &[&str] = &[
    "urllib.request",
    "urllib.response",
    "urllib.robotparser",
    "urllib.error",
];

/// Codecs of `encodings` that are bundled. The others are legacy single-byte code pages and
/// CJK codecs (whose native halves RustPython lacks); `bytes.decode("cp850")` reports an
/// unknown encoding.
#[allow(
    dead_code,
    reason = "read by build.rs; the library itself lists what was left out"
)]
pub const CODECS: &[&str] = &[
    "__init__",
    "aliases",
    "ascii",
    "base64_codec",
    "charmap",
    "cp1252",
    "cp437",
    "hex_codec",
    "idna",
    "latin_1",
    "punycode",
    "raw_unicode_escape",
    "rot_13",
    "undefined",
    "unicode_escape",
    "utf_16",
    "utf_16_be",
    "utf_16_le",
    "utf_32",
    "utf_32_be",
    "utf_32_le",
    "utf_7",
    "utf_8",
    "utf_8_sig",
    "zlib_codec",
    "bz2_codec",
    "quopri_codec",
    "uu_codec",
    "iso8859_1",
    "iso8859_15",
    "mbcs",
    "oem",
    "_win_cp_codecs",
];
