//! SASS text from NVIDIA's disassembler, when the user has it: found via an explicit path (the
//! `--nvdisasm` option or the app's setting), `$SIGHTLINE_NVDISASM_PATH` (a path list of
//! nvdisasm binaries or folders holding one), `PATH`, `$CUDA_HOME/bin`, `$CUDA_PATH/bin`, the
//! CUDA toolkits under Program Files (Windows), or an installed `nvidia-cuda-nvdisasm` Python
//! wheel (`site-packages/nvidia/*/bin/nvdisasm`; `nvdisasm.exe` on Windows).
//! Each CUDA release reads its own range of architectures (CUDA 13 no longer reads sm_70 and
//! older), so the tool is chosen per cubin: the first candidate whose `--help` lists the
//! cubin's `SMxy` among the values of `--binary` ([`find_for`]); when none does, the page says
//! so ([`NvdisasmError::NoArchitecture`]) and shows its rows without text. Each function
//! is disassembled in raw mode at its load address (`nvdisasm -b SM<maj><min> -base 0x<PC>
//! code.bin`: file mode fails on the cubins of reports before 2022.3), with a timeout, and the
//! output is cached by a hash of the code, the SM version and the base address.
//!
//! Without nvdisasm the page still shows addresses, encodings, memory-operation labels,
//! correlations and metrics; [`MISSING_HINT`] says in one line how to get the text.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::page::SourcePage;
use super::{Function, SourceModule};

/// One line telling how to get SASS text.
pub const MISSING_HINT: &str = "SASS text needs NVIDIA's nvdisasm: install the CUDA toolkit or \
     `pip install nvidia-cuda-nvdisasm`, or pass --nvdisasm PATH";

/// Why disassembly failed.
#[derive(Debug, thiserror::Error)]
pub enum NvdisasmError {
    /// The program could not be started or its files written.
    #[error("nvdisasm ({path}): {source}")]
    Io {
        /// The nvdisasm binary or the file concerned.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// It ran longer than the timeout and was stopped.
    #[error("nvdisasm ({path}) did not finish within {seconds} s for {function}; stopped")]
    Timeout {
        /// The nvdisasm binary.
        path: PathBuf,
        /// The function being disassembled.
        function: String,
        /// The timeout.
        seconds: u64,
    },
    /// It exited with an error.
    #[error("nvdisasm ({path}) failed on {function}: {message}")]
    Failed {
        /// The nvdisasm binary.
        path: PathBuf,
        /// The function being disassembled.
        function: String,
        /// Its last line on stderr.
        message: String,
    },
    /// The module has no SM version to pass as `-b SMxy`.
    #[error("the report names no SM version for this kernel binary: nvdisasm needs one")]
    NoSmVersion,
    /// nvdisasm was found, but none of the candidates reads the cubin's architecture.
    #[error(
        "no nvdisasm found reads SM{}{} (tried {}): the SASS text column stays empty; CUDA 13 \
         no longer reads sm_70 and older, a CUDA 12 toolkit's nvdisasm does (put it on PATH or \
         in SIGHTLINE_NVDISASM_PATH)",
        sm.0,
        sm.1,
        tried.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    NoArchitecture {
        /// The cubin's architecture.
        sm: (u32, u32),
        /// The nvdisasm binaries found.
        tried: Vec<PathBuf>,
    },
}

/// How to find and run nvdisasm.
#[derive(Debug, Clone)]
pub struct NvdisasmOptions {
    /// A path the user chose (command-line option or setting); searched first.
    pub explicit: Option<PathBuf>,
    /// Where outputs are cached (`None`: no cache). Tests pass a temporary folder.
    pub cache_dir: Option<PathBuf>,
    /// Time limit of one run.
    pub timeout: Duration,
}

impl Default for NvdisasmOptions {
    fn default() -> Self {
        NvdisasmOptions {
            explicit: None,
            cache_dir: None,
            timeout: Duration::from_secs(60),
        }
    }
}

/// Sightline's cache folder for disassembly: `$XDG_CACHE_HOME/sightline/nvdisasm`, else
/// `~/.cache/sightline/nvdisasm`, else the system temporary folder (on Windows
/// `%LOCALAPPDATA%\Sightline\nvdisasm`: see [`crate::dirs::cache_dir`]).
pub fn default_cache_dir() -> PathBuf {
    crate::dirs::cache_dir("nvdisasm")
}

/// The first nvdisasm found (see [`candidates`]).
pub fn find(explicit: Option<&Path>) -> Option<PathBuf> {
    candidates(explicit).into_iter().next()
}

/// The environment variable naming more nvdisasm binaries (or folders holding one), searched
/// after an explicit path and before `PATH`: a path list (`:`-separated, `;` on Windows).
pub const PATH_VAR: &str = "SIGHTLINE_NVDISASM_PATH";

/// Every nvdisasm found, in search order, each once: `explicit` (when it names no file,
/// nothing: the caller asked for that one), [`PATH_VAR`], `PATH`, `$CUDA_HOME/bin`,
/// `$CUDA_PATH/bin`, on Windows the CUDA toolkits under `C:\Program Files\NVIDIA GPU Computing
/// Toolkit\CUDA\v<version>\bin` (newest first), the Python wheels (newest CUDA first).
pub fn candidates(explicit: Option<&Path>) -> Vec<PathBuf> {
    let exe = if cfg!(windows) {
        "nvdisasm.exe"
    } else {
        "nvdisasm"
    };
    let mut found: Vec<PathBuf> = Vec::new();
    if let Some(p) = explicit {
        if !p.is_file() {
            return Vec::new();
        }
        found.push(p.to_path_buf());
    }
    let in_list = |var: &str| -> Vec<PathBuf> {
        std::env::var_os(var)
            .map(|list| {
                std::env::split_paths(&list)
                    .filter(|p| !p.as_os_str().is_empty())
                    .map(|p| if p.is_dir() { p.join(exe) } else { p })
                    .collect()
            })
            .unwrap_or_default()
    };
    found.extend(in_list(PATH_VAR));
    found.extend(in_list("PATH"));
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(home) = std::env::var_os(var) {
            found.push(PathBuf::from(home).join("bin").join(exe));
        }
    }
    // Windows: every CUDA toolkit NVIDIA's installer put side by side (`CUDA_PATH` names one).
    let relative = Path::new("bin").join(exe);
    for folder in crate::dirs::program_files() {
        let cuda = folder.join("NVIDIA GPU Computing Toolkit").join("CUDA");
        found.extend(crate::dirs::versioned_installs(&cuda, "v", &relative));
    }
    found.extend(wheels(exe));
    crate::dirs::existing_files_once(found)
}

/// The architectures `nvdisasm`'s raw mode reads (`SM75`, `SM90a`…): the values of `--binary`
/// its `--help` lists; `None` when it does not list them (then it is tried on any cubin).
/// Asked once per binary and process.
pub fn architectures(nvdisasm: &Path) -> Option<Vec<String>> {
    use std::sync::{Mutex, OnceLock};
    type Known = HashMap<PathBuf, Option<Vec<String>>>;
    static KNOWN: OnceLock<Mutex<Known>> = OnceLock::new();
    let known = KNOWN.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(answer) = known.lock().ok().and_then(|k| k.get(nvdisasm).cloned()) {
        return answer;
    }
    let answer = Command::new(nvdisasm)
        .arg("--help")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()
        .and_then(|o| binary_values(&String::from_utf8_lossy(&o.stdout)));
    if let Ok(mut k) = known.lock() {
        k.insert(nvdisasm.to_path_buf(), answer.clone());
    }
    answer
}

/// The `Allowed values for this option:` of `--binary` in nvdisasm's help text.
pub fn binary_values(help: &str) -> Option<Vec<String>> {
    let start = help.find("--binary")?;
    let rest = &help[start..];
    let allowed = rest.find("Allowed values for this option:")?;
    // The list ends at the next option (a line starting with `--`).
    let list = &rest[allowed..];
    let end = list.find("\n--").unwrap_or(list.len());
    let values: Vec<String> = list[..end]
        .split('\'')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect();
    (!values.is_empty()).then_some(values)
}

/// The nvdisasm to use for code of architecture `sm`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// The first candidate that reads it.
    Found(PathBuf),
    /// No nvdisasm at all.
    NotFound,
    /// nvdisasm binaries were found, none reads `sm` (they are listed).
    NoneReads(Vec<PathBuf>),
}

/// The first of [`candidates`] whose [`architectures`] include `SM<major><minor>` (or do not
/// say).
pub fn find_for(explicit: Option<&Path>, sm: (u32, u32)) -> Choice {
    let all = candidates(explicit);
    if all.is_empty() {
        return Choice::NotFound;
    }
    let wanted = format!("SM{}{}", sm.0, sm.1);
    match all.iter().find(|p| {
        architectures(p).is_none_or(|list| list.iter().any(|a| a.eq_ignore_ascii_case(&wanted)))
    }) {
        Some(p) => Choice::Found(p.clone()),
        None => Choice::NoneReads(all),
    }
}

/// nvdisasm inside installed `nvidia-cuda-nvdisasm` wheels: `nvidia/*/bin/nvdisasm` under
/// the site-packages folders `python3` (`python` on Windows) reports (of one folder, the newest
/// CUDA first). Asked once per process (Python takes tens of milliseconds to start).
fn wheels(exe: &str) -> Vec<PathBuf> {
    static FOUND: std::sync::OnceLock<Vec<PathBuf>> = std::sync::OnceLock::new();
    FOUND.get_or_init(|| search_wheels(exe)).clone()
}

fn search_wheels(exe: &str) -> Vec<PathBuf> {
    // Python for Windows installs `python.exe` (and the `py` launcher), not `python3`.
    let python = if cfg!(windows) { "python" } else { "python3" };
    let Ok(output) = Command::new(python)
        .args([
            "-c",
            "import site,sys\nfor p in site.getsitepackages()+[site.getusersitepackages()]+sys.path: print(p)",
        ])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
    else {
        return Vec::new();
    };
    let text = String::from_utf8_lossy(&output.stdout);
    let mut all = Vec::new();
    for dir in text.lines().filter(|l| !l.is_empty()) {
        let nvidia = Path::new(dir).join("nvidia");
        let Ok(entries) = std::fs::read_dir(&nvidia) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path().join("bin").join(exe))
            .filter(|p| p.is_file())
            .collect();
        found.sort();
        found.reverse();
        all.extend(found);
    }
    all
}

/// Disassembled instructions by absolute PC, in two forms ([`Disassembly::parse`]): as
/// NVIDIA's reader gives them (`IAction.sass_by_pc`, the app's Source page) and as
/// `ncu --page source --csv` prints them; laid out as NVIDIA shows them by
/// [`disassemble_page`].
#[derive(Debug, Clone, Default)]
pub struct Disassembly {
    by_pc: HashMap<u64, String>,
    csv: HashMap<u64, String>,
}

impl Disassembly {
    /// The text of the instruction at `pc` as NVIDIA's reader gives it.
    pub fn text(&self, pc: u64) -> Option<&str> {
        self.by_pc.get(&pc).map(String::as_str)
    }

    /// The text as `ncu --page source --csv` (2024.1) prints it: nvdisasm's operands as they
    /// are, without `` `(.L_x_N) `` labels, with the spaces nvdisasm put before the `;`.
    pub fn csv_text(&self, pc: u64) -> Option<String> {
        self.csv.get(&pc).cloned()
    }

    /// Number of instructions.
    pub fn len(&self) -> usize {
        self.by_pc.len()
    }

    /// Whether nothing was disassembled.
    pub fn is_empty(&self) -> bool {
        self.by_pc.is_empty()
    }

    /// Parses nvdisasm's raw-mode output (`/*7f91b4fb3600*/  MOV R1, c[0x0][0x28] ;`).
    /// Both forms drop the `;`, the comments after it and the `.reuse` hints (scheduling
    /// detail NVIDIA's views leave out). ncu's CSV keeps every space nvdisasm put before the
    /// `;` (`EXIT ;` is `EXIT `, `+INF  ;` is `+INF  `); the reader drops one of them (`EXIT`,
    /// `+INF `) and separates a register from an address that follows it with a comma
    /// ([`reader_operands`]). Checked on every small corpus kernel against
    /// `IAction.sass_by_pc` and on every CSV page of `ncu --import`.
    pub fn parse(output: &str) -> Disassembly {
        let mut by_pc = HashMap::new();
        let mut csv = HashMap::new();
        for line in output.lines() {
            let line = line.trim();
            let Some(rest) = line.strip_prefix("/*") else {
                continue;
            };
            let Some((address, text)) = rest.split_once("*/") else {
                continue;
            };
            let Ok(pc) = u64::from_str_radix(address.trim(), 16) else {
                continue;
            };
            let text = text.trim_start();
            // Comments after the instruction (`/* 0x... */` encodings) are not part of it.
            let text = text.split("/*").next().unwrap_or(text).trim_end();
            let Some(body) = text.strip_suffix(';') else {
                continue;
            };
            let body = body.replace(".reuse", "");
            if body.trim().is_empty() {
                continue;
            }
            let reader = body.strip_suffix(' ').unwrap_or(&body);
            by_pc.insert(pc, reader_operands(reader));
            csv.insert(pc, body);
        }
        Disassembly { by_pc, csv }
    }

    /// Lays both forms out in NVIDIA's predicate column (see [`nvidia_layout`]).
    fn laid_out(self, width: usize) -> Disassembly {
        let layout = |map: HashMap<u64, String>| {
            map.into_iter()
                .map(|(pc, text)| (pc, nvidia_layout(&text, width)))
                .collect()
        };
        Disassembly {
            by_pc: layout(self.by_pc),
            csv: layout(self.csv),
        }
    }
}

/// NVIDIA's reader's operands: a comma between a register and an address or immediate that
/// follows it where nvdisasm has only a space (`RET.REL.NODEC R20 0x15354affb000` is
/// `RET.REL.NODEC R20, 0x15354affb000`, `BRX R8 -0x3fa0` is `BRX R8, -0x3fa0`).
pub fn reader_operands(text: &str) -> String {
    fn is_register(token: &str) -> bool {
        let name = token.strip_prefix('U').unwrap_or(token);
        name.strip_prefix('R')
            .is_some_and(|n| n == "Z" || (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())))
    }
    let tokens: Vec<&str> = text.split(' ').collect();
    // The opcode (after a predicate) takes no comma.
    let first_operand = tokens
        .iter()
        .position(|t| !t.is_empty() && !t.starts_with('@'))
        .map_or(tokens.len(), |i| i + 1);
    let mut out = String::with_capacity(text.len() + 2);
    for (i, token) in tokens.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(token);
        let next = tokens.get(i + 1).copied().unwrap_or("");
        let number = next.starts_with("0x") || next.starts_with("-0x");
        if i >= first_operand && number && is_register(token) {
            out.push(',');
        }
    }
    out
}

/// Names the self-branches inside `[base, end)` as NVIDIA's reader shows them:
/// ``BRA `(.L_x_0) 0x7f91b4fb36d0`` for the `BRA` to itself that ends a kernel, numbered by
/// ascending address within the function. Other branch targets stay plain addresses (checked
/// against `IAction.sass_by_pc` on every small corpus kernel: only self-branches are named).
pub fn label_branches(disassembly: &mut Disassembly, base: u64, end: u64) {
    fn target(text: &str) -> Option<(usize, u64)> {
        let body = text.trim_start();
        let body = match body.split_once(' ') {
            Some((p, rest)) if p.starts_with('@') => rest.trim_start(),
            _ => body,
        };
        let opcode = body.split_whitespace().next()?;
        if opcode.split('.').next()? != "BRA" {
            return None;
        }
        let at = text.rfind("0x")?;
        let hex: String = text[at + 2..]
            .chars()
            .take_while(char::is_ascii_hexdigit)
            .collect();
        u64::from_str_radix(&hex, 16).ok().map(|t| (at, t))
    }
    let in_range = |pc: u64| pc >= base && pc < end;
    let mut selves: Vec<u64> = disassembly
        .by_pc
        .iter()
        .filter(|(pc, text)| in_range(**pc) && target(text).is_some_and(|t| t.1 == **pc))
        .map(|(pc, _)| *pc)
        .collect();
    selves.sort_unstable();
    for (n, pc) in selves.iter().enumerate() {
        if let Some(text) = disassembly.by_pc.get_mut(pc)
            && let Some((at, _)) = target(text)
        {
            text.insert_str(at, &format!("`(.L_x_{n}) "));
        }
    }
}

/// The width of NVIDIA's predicate column for an SM version: 5 before sm_80, 6 from sm_80
/// (`@P0  EXIT` on sm_75, `@P0   EXIT` on sm_86, whatever predicates the code uses; checked on
/// every small corpus kernel against `IAction.sass_by_pc` and in ncu's CSVs).
pub fn predicate_width(sm: (u32, u32)) -> usize {
    if sm.0 >= 8 { 6 } else { 5 }
}

/// NVIDIA's layout of a SASS line: the predicate left-aligned in a column of `width`
/// characters (see [`predicate_width`]): `@P0   EXIT`, `      MOV R1, c[0x0][0x28]` for 6.
pub fn nvidia_layout(text: &str, width: usize) -> String {
    let text = text.trim_start();
    match text.split_once(' ') {
        Some((p, rest)) if p.starts_with('@') => format!("{p:<width$}{}", rest.trim_start()),
        _ => format!("{:<width$}{text}", ""),
    }
}

/// Disassembles one function's code at `base` (cached).
pub fn disassemble(
    nvdisasm: &Path,
    sm: (u32, u32),
    function: &str,
    code: &[u8],
    base: u64,
    options: &NvdisasmOptions,
) -> Result<Disassembly, NvdisasmError> {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    code.hash(&mut h);
    sm.hash(&mut h);
    base.hash(&mut h);
    // Another nvdisasm (an update, another CUDA version) may print other text: its path, size
    // and modification time are part of the key.
    nvdisasm.hash(&mut h);
    if let Ok(meta) = std::fs::metadata(nvdisasm) {
        meta.len().hash(&mut h);
        meta.modified().ok().hash(&mut h);
    }
    let key = format!("{:016x}", h.finish());
    let cached = options
        .cache_dir
        .as_ref()
        .map(|d| d.join(format!("{key}.txt")));
    if let Some(text) = cached
        .as_ref()
        .and_then(|p| std::fs::read_to_string(p).ok())
    {
        return Ok(Disassembly::parse(&text));
    }
    let scratch = tempdir_for(options)?;
    let unique = unique_suffix();
    let input = scratch.join(format!("{key}-{unique}.bin"));
    std::fs::write(&input, code).map_err(|source| NvdisasmError::Io {
        path: input.clone(),
        source,
    })?;
    let result = run(nvdisasm, sm, function, &input, base, options.timeout);
    let _ = std::fs::remove_file(&input);
    let text = result?;
    if let Some(path) = cached {
        // Written beside and renamed, so that another thread or Sightline reading the cache
        // never sees half a file. A cache that cannot be written only costs time.
        let partial = path.with_extension(format!("{unique}.partial"));
        if std::fs::write(&partial, &text).is_err() || std::fs::rename(&partial, &path).is_err() {
            let _ = std::fs::remove_file(&partial);
        }
    }
    Ok(Disassembly::parse(&text))
}

/// A suffix no other call in any process shares: the process id and a count of this process's
/// calls (two threads may disassemble the same code at once).
fn unique_suffix() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static CALLS: AtomicU64 = AtomicU64::new(0);
    format!(
        "{}-{}",
        std::process::id(),
        CALLS.fetch_add(1, Ordering::Relaxed)
    )
}

fn tempdir_for(options: &NvdisasmOptions) -> Result<PathBuf, NvdisasmError> {
    let dir = options.cache_dir.clone().unwrap_or_else(std::env::temp_dir);
    std::fs::create_dir_all(&dir).map_err(|source| NvdisasmError::Io {
        path: dir.clone(),
        source,
    })?;
    Ok(dir)
}

fn run(
    nvdisasm: &Path,
    sm: (u32, u32),
    function: &str,
    input: &Path,
    base: u64,
    timeout: Duration,
) -> Result<String, NvdisasmError> {
    let io = |source| NvdisasmError::Io {
        path: nvdisasm.to_path_buf(),
        source,
    };
    let out_path = input.with_extension("out");
    let err_path = input.with_extension("err");
    let stdout = std::fs::File::create(&out_path).map_err(io)?;
    let stderr = std::fs::File::create(&err_path).map_err(io)?;
    let mut child = Command::new(nvdisasm)
        .arg("-b")
        .arg(format!("SM{}{}", sm.0, sm.1))
        .arg("-base")
        .arg(format!("0x{base:x}"))
        .arg(input)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .spawn()
        .map_err(io)?;
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(io)? {
            break status;
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            let _ = std::fs::remove_file(&out_path);
            let _ = std::fs::remove_file(&err_path);
            return Err(NvdisasmError::Timeout {
                path: nvdisasm.to_path_buf(),
                function: function.to_owned(),
                seconds: timeout.as_secs(),
            });
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let text = std::fs::read_to_string(&out_path).unwrap_or_default();
    let err = std::fs::read_to_string(&err_path).unwrap_or_default();
    let _ = std::fs::remove_file(&out_path);
    let _ = std::fs::remove_file(&err_path);
    if !status.success() {
        return Err(NvdisasmError::Failed {
            path: nvdisasm.to_path_buf(),
            function: function.to_owned(),
            message: err
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("no message")
                .trim()
                .to_owned(),
        });
    }
    Ok(text)
}

/// Disassembles one function of `module` at its load PC, in NVIDIA's layout (predicate
/// column, named self-branches; see [`nvidia_layout`]). Empty for functions without code or
/// load address.
pub fn disassemble_function(
    nvdisasm: &Path,
    module: &SourceModule,
    function: &Function,
    options: &NvdisasmOptions,
) -> Result<Disassembly, NvdisasmError> {
    let (Some(cubin), Some(base)) = (module.cubin(), function.load_pc) else {
        return Ok(Disassembly::default());
    };
    let code = cubin.code(&function.cubin);
    if code.is_empty() {
        // External functions (`vprintf`) have no code in the module.
        return Ok(Disassembly::default());
    }
    let sm = module.sm().ok_or(NvdisasmError::NoSmVersion)?;
    let mut part = disassemble(nvdisasm, sm, function.name(), code, base, options)?;
    label_branches(&mut part, base, base.saturating_add(code.len() as u64));
    Ok(part.laid_out(predicate_width(sm)))
}

/// Disassembles `function` of `module` as the readers' `sass_by_pc` needs it
/// ([`disassemble_function`]) with the nvdisasm that reads the module's architecture (CUDA 13's
/// no longer reads sm_70 and older); `None` when none is found or it fails.
pub fn disassemble_for_reader(
    module: &SourceModule,
    function: &Function,
    options: &NvdisasmOptions,
) -> Option<Disassembly> {
    let explicit = options.explicit.as_deref();
    let tool = match module.sm() {
        Some(sm) => match find_for(explicit, sm) {
            Choice::Found(tool) => tool,
            Choice::NotFound | Choice::NoneReads(_) => return None,
        },
        None => find(explicit)?,
    };
    disassemble_function(&tool, module, function, options).ok()
}

/// Merges another function's disassembly into this one.
impl Extend<Disassembly> for Disassembly {
    fn extend<I: IntoIterator<Item = Disassembly>>(&mut self, iter: I) {
        for d in iter {
            self.by_pc.extend(d.by_pc);
            self.csv.extend(d.csv);
        }
    }
}

/// Disassembles every function whose instructions the page shows (the kernel and its
/// callees; see [`disassemble_function`]). `Ok(None)` when nvdisasm is not found.
pub fn disassemble_page(
    page: &SourcePage,
    options: &NvdisasmOptions,
) -> Result<Option<Disassembly>, NvdisasmError> {
    let module = page.module();
    let explicit = options.explicit.as_deref();
    let nvdisasm = match module.sm() {
        Some(sm) => match find_for(explicit, sm) {
            Choice::Found(p) => p,
            Choice::NotFound => return Ok(None),
            Choice::NoneReads(tried) => return Err(NvdisasmError::NoArchitecture { sm, tried }),
        },
        None => match find(explicit) {
            Some(p) => p,
            None => return Ok(None),
        },
    };
    let Some(function) = page.function() else {
        return Ok(Some(Disassembly::default()));
    };
    let mut all = disassemble_function(&nvdisasm, module, function, options)?;
    for callee in module.callees(function) {
        all.extend([disassemble_function(&nvdisasm, module, callee, options)?]);
    }
    Ok(Some(all))
}

#[cfg(test)]
mod tests {
    use super::{Disassembly, binary_values, reader_operands};

    #[test]
    fn reader_and_csv_forms_of_nvdisasm_lines() {
        let output = "\
            /*7a00*/   RET.REL.NODEC R20 0x7000 ;\n\
            /*7a10*/   DADD R20, R16, +INF  ;\n\
            /*7a20*/   EXIT ;\n\
            /*7a30*/   NOP;\n\
            /*7a40*/   @P0 FFMA R2, R3.reuse, R4, R5 ;  /* 0x000 */\n\
            /*7a50*/   BRX R8 -0x3fa0 ;\n";
        let d = Disassembly::parse(output).laid_out(6);
        let both = |pc| (d.text(pc).unwrap().to_owned(), d.csv_text(pc).unwrap());
        let pair = |a: &str, b: &str| (a.to_owned(), b.to_owned());
        assert_eq!(
            both(0x7a00),
            pair(
                "      RET.REL.NODEC R20, 0x7000",
                "      RET.REL.NODEC R20 0x7000 "
            )
        );
        assert_eq!(
            both(0x7a10),
            pair("      DADD R20, R16, +INF ", "      DADD R20, R16, +INF  ")
        );
        assert_eq!(both(0x7a20), pair("      EXIT", "      EXIT "));
        assert_eq!(both(0x7a30), pair("      NOP", "      NOP"));
        assert_eq!(
            both(0x7a40),
            pair("@P0   FFMA R2, R3, R4, R5", "@P0   FFMA R2, R3, R4, R5 ")
        );
        assert_eq!(both(0x7a50).0, "      BRX R8, -0x3fa0");
    }

    #[test]
    fn commas_only_between_a_register_operand_and_a_number() {
        assert_eq!(reader_operands("BAR.SYNC 0x0"), "BAR.SYNC 0x0");
        assert_eq!(
            reader_operands("@P0 CALL.REL.NOINC 0x10"),
            "@P0 CALL.REL.NOINC 0x10"
        );
        assert_eq!(
            reader_operands("RET.ABS.NODEC R20 0x0"),
            "RET.ABS.NODEC R20, 0x0"
        );
        assert_eq!(reader_operands("MOV R1, 0x10"), "MOV R1, 0x10");
        assert_eq!(reader_operands("JMX UR4 0x8"), "JMX UR4, 0x8");
    }

    #[test]
    fn architectures_from_the_help_text() {
        // CUDA 13's `nvdisasm --help` (abridged): no SM70.
        let help = "--base-address <value>   (-base)\n        Specify the base.\n\n\
            --binary <SMxy>                                (-b)\n        When this option \
            is specified, the input file is raw.\n        Allowed values for this option:  \
            'SM100','SM100a',\n        'SM75','SM80','SM86','SM90a'.\n\n\
            --cuda-function-index <symbol index>,...       (-fun)\n        'SM70' is not \
            a value of this one.\n";
        assert_eq!(
            binary_values(help),
            Some(
                ["SM100", "SM100a", "SM75", "SM80", "SM86", "SM90a"]
                    .map(str::to_owned)
                    .to_vec()
            )
        );
        assert_eq!(binary_values("--binary <SMxy>\n  no list\n"), None);
        assert_eq!(binary_values(""), None);
    }
}
