//! Metric descriptions from NVIDIA's metric library, read from the user's own Nsight Compute.
//!
//! Reports do not hold metric descriptions: NVIDIA's tools take them from their metric library,
//! which Sightline does not ship. When the user has Nsight Compute's command line (`ncu`),
//! Sightline asks it once per chip for the base metrics' types and texts (`ncu --query-metrics
//! --chip CHIP --csv`), keeps the answer in its cache folder (one file per `ncu` version and
//! chip), and words a full metric name's description as NVIDIA's Python module does: the base
//! text, a line break, then `(This <type> metric represents <what the suffix computes> across
//! all unit instances)` ([`describe`]). Without `ncu` every description is empty.
//!
//! `ncu` is found through `$SIGHTLINE_NCU` (the executable, or a folder holding it), `PATH`,
//! `$CUDA_HOME/bin` and `$CUDA_PATH/bin`, then the usual install folders: on Linux
//! `/usr/local/cuda/bin`, `/opt/nvidia/nsight-compute/<version>` and
//! `/usr/local/NVIDIA-Nsight-Compute*`; on Windows `NVIDIA Corporation\Nsight Compute
//! <version>` under the program folders (newest first).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};

/// The environment variable naming the `ncu` to use (the executable, or a folder holding it).
pub const NCU_VAR: &str = "SIGHTLINE_NCU";

/// One line telling how to get metric descriptions.
pub const MISSING_HINT: &str = "metric descriptions need NVIDIA's Nsight Compute command line \
     (`ncu`): install Nsight Compute, put `ncu` on PATH or set SIGHTLINE_NCU";

/// The kind of a base metric, as the library types it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BaseKind {
    /// A counter (`Counter`): rolled up with `.sum`, `.avg`, `.min`, `.max`.
    Counter,
    /// A ratio (`Ratio`): `.ratio`, `.pct`, `.max_rate`.
    Ratio,
    /// A throughput (`Throughput`): `.<rollup>.pct_of_peak_sustained_<active|elapsed>`.
    Throughput,
}

impl BaseKind {
    /// The kind of a `Metric type` column of `ncu --query-metrics`.
    fn parse(text: &str) -> Option<BaseKind> {
        match text {
            "Counter" => Some(BaseKind::Counter),
            "Ratio" => Some(BaseKind::Ratio),
            "Throughput" => Some(BaseKind::Throughput),
            _ => None,
        }
    }

    /// The word NVIDIA's descriptions use for it.
    fn word(self) -> &'static str {
        match self {
            BaseKind::Counter => "counter",
            BaseKind::Ratio => "ratio",
            BaseKind::Throughput => "throughput",
        }
    }
}

/// The base metrics of one chip: name to kind and text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MetricLibrary {
    bases: HashMap<String, (BaseKind, String)>,
}

impl MetricLibrary {
    /// Reads the CSV `ncu --query-metrics --csv` prints: a header, then one quoted record per
    /// base metric (`name, type, unit, description, ...`). `ncu` quotes every field and does not
    /// double quotes inside them, so fields are split at `","`. Lines that are not such a record
    /// (a warning) are skipped.
    pub fn parse_query_csv(text: &str) -> MetricLibrary {
        let mut bases = HashMap::new();
        for line in text.lines() {
            let Some(inner) = line
                .trim_end_matches('\r')
                .strip_prefix('"')
                .and_then(|l| l.strip_suffix('"'))
            else {
                continue;
            };
            let fields: Vec<&str> = inner.split("\",\"").collect();
            if fields.len() < 4 {
                continue;
            }
            if let Some(kind) = BaseKind::parse(fields[1]) {
                bases.insert(fields[0].to_owned(), (kind, fields[3].to_owned()));
            }
        }
        MetricLibrary { bases }
    }

    /// The number of base metrics.
    pub fn len(&self) -> usize {
        self.bases.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.bases.is_empty()
    }

    /// The description of the full metric `name` (see [`describe`]), empty when the library
    /// does not hold its base or the suffix is not one the library defines for its kind.
    pub fn description(&self, name: &str) -> String {
        let (base, rest) = name.split_once('.').unwrap_or((name, ""));
        let Some((kind, text)) = self.bases.get(base) else {
            return String::new();
        };
        describe(*kind, text, rest).unwrap_or_default()
    }

    /// The cache file's text: one `name TAB type TAB text` line per base, sorted (texts with
    /// tabs or line breaks have them as `\t`, `\n`, and backslashes as `\\`).
    fn to_cache_text(&self) -> String {
        let mut lines: Vec<String> = self
            .bases
            .iter()
            .map(|(name, (kind, text))| format!("{name}\t{kind:?}\t{}", escape(text)))
            .collect();
        lines.sort();
        lines.join("\n") + "\n"
    }

    /// Reads [`MetricLibrary::to_cache_text`]'s text; `None` when a line is not such a line.
    fn from_cache_text(text: &str) -> Option<MetricLibrary> {
        let mut bases = HashMap::new();
        for line in text.lines() {
            let mut fields = line.splitn(3, '\t');
            let (name, kind, text) = (fields.next()?, fields.next()?, fields.next()?);
            let kind = match kind {
                "Counter" => BaseKind::Counter,
                "Ratio" => BaseKind::Ratio,
                "Throughput" => BaseKind::Throughput,
                _ => return None,
            };
            bases.insert(name.to_owned(), (kind, unescape(text)));
        }
        Some(MetricLibrary { bases })
    }
}

/// `text` with backslashes, tabs and line breaks escaped.
fn escape(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('\t', "\\t")
        .replace('\n', "\\n")
}

/// The inverse of [`escape`].
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// The description of a metric whose base has `kind` and `text`, `rest` being the part of the
/// name after the base (`avg.pct_of_peak_sustained_elapsed`, empty for the base itself), as
/// NVIDIA's Python module words it: the base text alone for the base, else
/// `TEXT\n(This KIND metric represents WHAT across all unit instances)`. `None` for a suffix
/// the library does not define for that kind. The grammar (learnt from NVIDIA's module over
/// every metric of the corpus reports, and from `ncu --query-metrics-mode all`, which words the
/// same suffixes with "sub-unit instances" and a space before the parenthesis):
/// - counters: `<r>` ("the r"), `<r>.peak_sustained` ("the r peak sustained rate"),
///   `<r>.peak_sustained_<c>[.per_second]` ("the r peak sustained rate achieved during C[ per
///   second]"), `<r>.pct_of_peak_sustained_<c>` ("the r percent of the peak sustained rate
///   achieved during C"), `<r>.per_cycle_<c>` ("the r of the number of operations per C'"),
///   `<r>.per_second` ("the r of the number of operations per second"), where r is `avg`,
///   `max`, `min` or `sum`, C is "unit active cycles" or "elapsed cycles" and C' the same in
///   the singular;
/// - throughputs: `<r>.pct_of_peak_sustained_<c>` ("the percent of the peak sustained rate
///   achieved during C", without the rollup);
/// - ratios: `ratio`, `pct` ("the value expressed as a ratio / a percentage") and `max_rate`
///   ("the ratio's maximum value").
pub fn describe(kind: BaseKind, text: &str, rest: &str) -> Option<String> {
    if rest.is_empty() {
        return Some(text.to_owned());
    }
    let what = suffix_meaning(kind, rest)?;
    Some(format!(
        "{text}\n(This {} metric represents {what} across all unit instances)",
        kind.word()
    ))
}

/// What the suffix `rest` of a `kind` metric computes (see [`describe`]).
fn suffix_meaning(kind: BaseKind, rest: &str) -> Option<String> {
    if kind == BaseKind::Ratio {
        let what = match rest {
            "ratio" => "the value expressed as a ratio",
            "pct" => "the value expressed as a percentage",
            "max_rate" => "the ratio's maximum value",
            _ => return None,
        };
        return Some(what.to_owned());
    }
    let (r, sub) = rest.split_once('.').unwrap_or((rest, ""));
    if !matches!(r, "avg" | "max" | "min" | "sum") {
        return None;
    }
    let during = |c: &str| match c {
        "active" => Some("unit active cycles"),
        "elapsed" => Some("elapsed cycles"),
        _ => None,
    };
    let pct = |c: &str| {
        during(c).map(|d| format!("percent of the peak sustained rate achieved during {d}"))
    };
    if kind == BaseKind::Throughput {
        let c = sub.strip_prefix("pct_of_peak_sustained_")?;
        return pct(c).map(|p| format!("the {p}"));
    }
    if sub.is_empty() {
        return Some(format!("the {r}"));
    }
    if sub == "peak_sustained" {
        return Some(format!("the {r} peak sustained rate"));
    }
    if sub == "per_second" {
        return Some(format!("the {r} of the number of operations per second"));
    }
    if let Some(c) = sub.strip_prefix("pct_of_peak_sustained_") {
        return pct(c).map(|p| format!("the {r} {p}"));
    }
    if let Some(c) = sub.strip_prefix("per_cycle_") {
        let cycle = during(c)?.strip_suffix('s')?;
        return Some(format!("the {r} of the number of operations per {cycle}"));
    }
    let c = sub.strip_prefix("peak_sustained_")?;
    let (c, per_second) = match c.strip_suffix(".per_second") {
        Some(c) => (c, " per second"),
        None => (c, ""),
    };
    let d = during(c)?;
    Some(format!(
        "the {r} peak sustained rate achieved during {d}{per_second}"
    ))
}

/// The chip name `ncu --chip` takes for the value of `device__attribute_chip` (the chip's
/// PCI-architecture id, as the open-source driver lists them: Volta to Blackwell), `None` for
/// an id not listed here.
pub fn chip_name(id: u64) -> Option<&'static str> {
    const CHIPS: [(u64, &str); 27] = [
        (0x140, "gv100"),
        (0x15b, "gv11b"),
        (0x162, "tu102"),
        (0x164, "tu104"),
        (0x166, "tu106"),
        (0x167, "tu117"),
        (0x168, "tu116"),
        (0x170, "ga100"),
        (0x172, "ga102"),
        (0x173, "ga103"),
        (0x174, "ga104"),
        (0x176, "ga106"),
        (0x177, "ga107"),
        (0x17b, "ga10b"),
        (0x180, "gh100"),
        (0x192, "ad102"),
        (0x193, "ad103"),
        (0x194, "ad104"),
        (0x196, "ad106"),
        (0x197, "ad107"),
        (0x1a0, "gb100"),
        (0x1a2, "gb102"),
        (0x1b2, "gb202"),
        (0x1b3, "gb203"),
        (0x1b5, "gb205"),
        (0x1b6, "gb206"),
        (0x1b7, "gb207"),
    ];
    CHIPS.iter().find(|(i, _)| *i == id).map(|(_, name)| *name)
}

/// Every `ncu` found, in search order (see the module's documentation), each once.
pub fn candidates() -> Vec<PathBuf> {
    let exe = if cfg!(windows) { "ncu.exe" } else { "ncu" };
    let mut found: Vec<PathBuf> = Vec::new();
    if let Some(p) = std::env::var_os(NCU_VAR).filter(|p| !p.is_empty()) {
        // The user named one: that one or none (`SIGHTLINE_NCU=none` turns descriptions off).
        let p = PathBuf::from(p);
        let p = if p.is_dir() { p.join(exe) } else { p };
        return if p.is_file() { vec![p] } else { Vec::new() };
    }
    if let Some(path) = std::env::var_os("PATH") {
        found.extend(std::env::split_paths(&path).map(|d| d.join(exe)));
    }
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(home) = std::env::var_os(var) {
            found.push(PathBuf::from(home).join("bin").join(exe));
        }
    }
    if cfg!(windows) {
        let relative = Path::new("target")
            .join("windows-desktop-win7-x64")
            .join(exe);
        for folder in crate::dirs::program_files() {
            let vendor = folder.join("NVIDIA Corporation");
            found.extend(crate::dirs::versioned_installs(
                &vendor,
                "Nsight Compute ",
                &relative,
            ));
        }
    } else {
        found.push(PathBuf::from("/usr/local/cuda/bin").join(exe));
        let opt = Path::new("/opt/nvidia/nsight-compute");
        found.extend(crate::dirs::versioned_installs(opt, "", Path::new(exe)));
        let local = Path::new("/usr/local");
        found.extend(crate::dirs::versioned_installs(
            local,
            "NVIDIA-Nsight-Compute",
            Path::new(exe),
        ));
    }
    crate::dirs::existing_files_once(found)
}

/// The `ncu` found and its version (`2024.1.1.0 (build 33998838)`): the first candidate whose
/// `--version` answers. Asked once per process.
fn tool() -> Option<&'static (PathBuf, String)> {
    static TOOL: OnceLock<Option<(PathBuf, String)>> = OnceLock::new();
    TOOL.get_or_init(|| {
        candidates().into_iter().find_map(|ncu| {
            let version = version_of(&ncu)?;
            Some((ncu, version))
        })
    })
    .as_ref()
}

/// The version `ncu --version` prints on its `Version ...` line, without `(public-release)`.
fn version_of(ncu: &Path) -> Option<String> {
    let out = Command::new(ncu)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("Version "))?;
    Some(line.replace(" (public-release)", "").trim().to_owned())
}

/// Whether an `ncu` was found (descriptions can be given).
pub fn ncu_found() -> bool {
    tool().is_some()
}

/// Sightline's cache folder for metric libraries: `$XDG_CACHE_HOME/sightline/ncu-metrics`,
/// else `~/.cache/sightline/ncu-metrics` (see [`crate::dirs::cache_dir`]).
pub fn default_cache_dir() -> PathBuf {
    crate::dirs::cache_dir("ncu-metrics")
}

/// The library of `chip` from the `ncu` found: from the cache folder when kept there, else
/// asked of `ncu` and kept. `None` without `ncu`, or when it does not know the chip. Each chip
/// is read once per process.
pub fn library(chip: &str) -> Option<Arc<MetricLibrary>> {
    static LIBRARIES: OnceLock<Mutex<HashMap<String, Option<Arc<MetricLibrary>>>>> =
        OnceLock::new();
    let (ncu, version) = tool()?;
    let libraries = LIBRARIES.get_or_init(Default::default);
    let mut libraries = libraries.lock().unwrap_or_else(|e| e.into_inner());
    libraries
        .entry(chip.to_owned())
        .or_insert_with(|| load(ncu, version, chip, &default_cache_dir()).map(Arc::new))
        .clone()
}

/// The file caching `chip`'s library of `ncu` `version` in `dir`.
fn cache_file(dir: &Path, version: &str, chip: &str) -> PathBuf {
    let clean = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    dir.join(clean(version))
        .join(format!("{}.tsv", clean(chip)))
}

/// `chip`'s library: read from `dir` when cached there, else asked of `ncu` and cached (an
/// empty answer too: `ncu` does not know the chip).
fn load(ncu: &Path, version: &str, chip: &str, dir: &Path) -> Option<MetricLibrary> {
    let file = cache_file(dir, version, chip);
    if let Some(kept) = std::fs::read_to_string(&file)
        .ok()
        .and_then(|t| MetricLibrary::from_cache_text(&t))
    {
        return (!kept.is_empty()).then_some(kept);
    }
    let library = query(ncu, chip)?;
    // Written beside and renamed: another process never reads half of it.
    let partial = file.with_extension(format!("tsv.{}", std::process::id()));
    let written = file
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(&partial, library.to_cache_text()))
        .and_then(|()| std::fs::rename(&partial, &file));
    if written.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    (!library.is_empty()).then_some(library)
}

/// Asks `ncu` for `chip`'s base metrics; `None` when it cannot be run. An empty library when it
/// does not know the chip.
fn query(ncu: &Path, chip: &str) -> Option<MetricLibrary> {
    let out = Command::new(ncu)
        .args(["--query-metrics", "--chip", chip, "--csv"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    Some(MetricLibrary::parse_query_csv(&String::from_utf8_lossy(
        &out.stdout,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CSV: &str = "\"Metric name\",\"Metric type\",\"Metric unit\",\"Metric description\",\"ga102\"\n\
        \"sm__pipe_fma_cycles_active\",\"Counter\",\"cycle\",\"# of cycles where fma pipes were active\",\"1\"\n\
        \"sm__throughput\",\"Throughput\",\"%\",\"SM throughput assuming ideal load balancing\",\"1\"\n\
        \"smsp__issue_active_per_cycle\",\"Ratio\",\"\",\"# of \"issue\" cycles\",\"1\"\n\
        ==WARNING== something\n";

    #[test]
    fn the_grammar_words_every_suffix_as_nvidias_module() {
        let lib = MetricLibrary::parse_query_csv(CSV);
        assert_eq!(lib.len(), 3);
        let fma = "# of cycles where fma pipes were active";
        let cases = [
            ("sm__pipe_fma_cycles_active", fma.to_owned()),
            (
                "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed",
                format!(
                    "{fma}\n(This counter metric represents the avg percent of the peak \
                     sustained rate achieved during elapsed cycles across all unit instances)"
                ),
            ),
            (
                "sm__pipe_fma_cycles_active.sum",
                format!(
                    "{fma}\n(This counter metric represents the sum across all unit instances)"
                ),
            ),
            (
                "sm__pipe_fma_cycles_active.max.peak_sustained",
                format!(
                    "{fma}\n(This counter metric represents the max peak sustained rate across \
                     all unit instances)"
                ),
            ),
            (
                "sm__pipe_fma_cycles_active.min.peak_sustained_active.per_second",
                format!(
                    "{fma}\n(This counter metric represents the min peak sustained rate achieved \
                     during unit active cycles per second across all unit instances)"
                ),
            ),
            (
                "sm__pipe_fma_cycles_active.avg.peak_sustained_elapsed",
                format!(
                    "{fma}\n(This counter metric represents the avg peak sustained rate achieved \
                     during elapsed cycles across all unit instances)"
                ),
            ),
            (
                "sm__pipe_fma_cycles_active.avg.per_cycle_active",
                format!(
                    "{fma}\n(This counter metric represents the avg of the number of operations \
                     per unit active cycle across all unit instances)"
                ),
            ),
            (
                "sm__pipe_fma_cycles_active.sum.per_cycle_elapsed",
                format!(
                    "{fma}\n(This counter metric represents the sum of the number of operations \
                     per elapsed cycle across all unit instances)"
                ),
            ),
            (
                "sm__pipe_fma_cycles_active.avg.per_second",
                format!(
                    "{fma}\n(This counter metric represents the avg of the number of operations \
                     per second across all unit instances)"
                ),
            ),
            (
                "sm__throughput.avg.pct_of_peak_sustained_active",
                "SM throughput assuming ideal load balancing\n(This throughput metric represents \
                 the percent of the peak sustained rate achieved during unit active cycles \
                 across all unit instances)"
                    .to_owned(),
            ),
            (
                "smsp__issue_active_per_cycle.max_rate",
                "# of \"issue\" cycles\n(This ratio metric represents the ratio's maximum value \
                 across all unit instances)"
                    .to_owned(),
            ),
            (
                "smsp__issue_active_per_cycle.pct",
                "# of \"issue\" cycles\n(This ratio metric represents the value expressed as a \
                 percentage across all unit instances)"
                    .to_owned(),
            ),
            // Suffixes the library does not define for the kind, and unknown bases.
            ("sm__throughput.avg", String::new()),
            ("sm__throughput.avg.per_second", String::new()),
            ("smsp__issue_active_per_cycle.sum", String::new()),
            (
                "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_frame",
                String::new(),
            ),
            ("sm__pipe_fma_cycles_active.total", String::new()),
            ("launch__grid_size", String::new()),
        ];
        for (name, expected) in cases {
            assert_eq!(lib.description(name), expected, "{name}");
        }
    }

    #[test]
    fn the_cache_text_reads_back_and_is_named_by_version_and_chip() {
        let mut lib = MetricLibrary::parse_query_csv(CSV);
        lib.bases
            .insert("odd".into(), (BaseKind::Counter, "a\tb\\n\nc".into()));
        let back = MetricLibrary::from_cache_text(&lib.to_cache_text()).unwrap();
        assert_eq!(back, lib);
        assert!(MetricLibrary::from_cache_text("x\tGauge\ty\n").is_none());
        let file = cache_file(Path::new("/c"), "2024.1.1.0 (build 33998838)", "ga102");
        assert_eq!(file, Path::new("/c/2024.1.1.0__build_33998838_/ga102.tsv"));
    }

    #[test]
    fn chip_ids_name_the_chips_ncu_takes() {
        assert_eq!(chip_name(370), Some("ga102"));
        assert_eq!(chip_name(359), Some("tu117"));
        assert_eq!(chip_name(384), Some("gh100"));
        assert_eq!(chip_name(438), Some("gb206"));
        assert_eq!(chip_name(1), None);
    }
}
