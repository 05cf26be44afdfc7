//! The `.nsys-analysis` file every NVIDIA recipe writes beside its tables: a JSON object naming
//! the recipe, its display name, the mode it ran in, when, over which inputs, and what it wrote,
//! written as Python's `json.dump(..., indent=4)` writes it (4-space indentation, `": "` and
//! `","`, non-ASCII escaped, no final newline). The file is named after the output folder
//! (`out/out.nsys-analysis`). `nsys recipe diff` reads it to know which recipe made a folder.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The version of the file's layout NVIDIA writes (Nsight Systems 2023.4).
pub const RECIPE_JSON_VERSION: &str = "1.2.0";
/// The version of the recipe runtime NVIDIA writes (Nsight Systems 2023.4).
pub const RECIPE_RUNTIME_VERSION: &str = "2.0.0";

/// NVIDIA's display names of its recipes (`nsys recipe --help`, Nsight Systems 2023.4).
pub const DISPLAY_NAMES: &[(&str, &str)] = &[
    ("cuda_api_sum", "CUDA API Summary"),
    ("cuda_api_sync", "CUDA Synchronization APIs"),
    ("cuda_gpu_kern_pace", "CUDA GPU Kernel Pacing"),
    ("cuda_gpu_kern_sum", "CUDA GPU Kernel Summary"),
    ("cuda_gpu_mem_size_sum", "CUDA GPU MemOps Summary (by Size)"),
    ("cuda_gpu_mem_time_sum", "CUDA GPU MemOps Summary (by Time)"),
    (
        "cuda_gpu_time_util_map",
        "CUDA GPU Time Utilization Heatmap",
    ),
    (
        "cuda_memcpy_async",
        "CUDA Async Memcpy with Pageable Memory",
    ),
    ("cuda_memcpy_sync", "CUDA Synchronous Memcpy"),
    ("cuda_memset_sync", "CUDA Synchronous Memset"),
    ("diff", "Statistics Diff"),
    ("dx12_mem_ops", "DX12 Memory Operations"),
    ("gpu_gaps", "GPU Gaps"),
    ("gpu_metric_util_map", "GPU Metric Utilization Heatmap"),
    ("gpu_time_util", "GPU Time Utilization"),
    (
        "mpi_gpu_time_util_map",
        "MPI and GPU Time Utilization Heatmap",
    ),
    ("mpi_sum", "MPI Summary"),
    ("nccl_gpu_proj_sum", "NCCL GPU Projection Summary"),
    (
        "nccl_gpu_time_util_map",
        "NCCL GPU Time Utilization Heatmap",
    ),
    ("nccl_sum", "NCCL Summary"),
    ("nic_metric_map", "NIC Metric Heatmap"),
    ("nvtx_gpu_proj_pace", "NVTX GPU Projection Pacing"),
    ("nvtx_gpu_proj_sum", "NVTX GPU Projection Summary"),
    ("nvtx_gpu_proj_trace", "NVTX GPU Projection Trace"),
    ("nvtx_pace", "NVTX Pacing"),
    ("nvtx_sum", "NVTX Range Summary"),
    ("osrt_sum", "OS Runtime Summary"),
    (
        "ucx_gpu_time_util_map",
        "UCX and GPU Time Utilization Heatmap",
    ),
];

/// NVIDIA's display name of recipe `name`.
pub fn display_name(name: &str) -> Option<&'static str> {
    DISPLAY_NAMES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, d)| d)
}

/// How a recipe's files were read (`--mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// One file at a time.
    None,
    /// Files read in parallel, one per core.
    #[default]
    Concurrent,
    /// One Dask task per file (Sightline's `dask` mode, NVIDIA's `dask-futures`).
    DaskFutures,
}

impl Mode {
    /// The mode as NVIDIA's `--mode` takes it and the file records it (`concurrent`).
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::None => "none",
            Mode::Concurrent => "concurrent",
            Mode::DaskFutures => "dask-futures",
        }
    }
}

/// A recipe's output could not be saved.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    /// The folder to overwrite could not be removed.
    #[error(transparent)]
    Paths(#[from] super::paths::PathsError),
    /// A table could not be written.
    #[error(transparent)]
    Tables(#[from] super::ParquetWriteError),
    /// The `.nsys-analysis` file could not be written.
    #[error("{}: {source}", path.display())]
    Analysis {
        /// The output folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Saves what a run computed into output folder `dir` as NVIDIA's recipes do: the folder
/// removed first when `remove_first` (`--force-overwrite`), the tables, then the
/// `.nsys-analysis` file (a run in `mode` started at `start`, ending now). Every file written,
/// the analysis file last. The CLI, the app and the Python module all save through it.
pub fn save(
    output: &super::RecipeOutput,
    dir: &Path,
    remove_first: bool,
    mode: Mode,
    start: SystemTime,
) -> Result<Vec<PathBuf>, SaveError> {
    if remove_first {
        super::paths::remove_output(dir)?;
    }
    let mut written = output.write(dir)?;
    let file = AnalysisFile {
        recipe: output.recipe.name.to_owned(),
        mode,
        start,
        end: SystemTime::now(),
        inputs: output.inputs.iter().map(|p| absolute(p)).collect(),
        outputs: outputs_of(&written),
    };
    let analysis = file.write(dir).map_err(|source| SaveError::Analysis {
        path: dir.to_path_buf(),
        source,
    })?;
    written.push(analysis);
    Ok(written)
}

/// `path` made absolute (as given when that fails), as NVIDIA lists the inputs.
pub fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// What a recipe's `.nsys-analysis` file says.
#[derive(Debug, Clone, PartialEq)]
pub struct AnalysisFile {
    /// The recipe's name (`cuda_api_sum`).
    pub recipe: String,
    /// How the files were read.
    pub mode: Mode,
    /// When the recipe started.
    pub start: SystemTime,
    /// When it ended.
    pub end: SystemTime,
    /// The input files, in the order the recipe read them.
    pub inputs: Vec<PathBuf>,
    /// What it wrote (file names in the output folder, each with what it is).
    pub outputs: Vec<(String, String)>,
}

impl AnalysisFile {
    /// The file's text, keys in NVIDIA's order.
    pub fn json(&self) -> String {
        let display = display_name(&self.recipe).unwrap_or(self.recipe.as_str());
        let inputs: Vec<String> = self
            .inputs
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        let fields = [
            ("RecipeJsonVersion", py_string(RECIPE_JSON_VERSION)),
            ("RecipeRuntimeVersion", py_string(RECIPE_RUNTIME_VERSION)),
            ("RecipeName", py_string(&self.recipe)),
            ("DisplayName", py_string(display)),
            ("Mode", py_string(self.mode.as_str())),
            ("StartTime", py_string(&py_datetime(self.start))),
            ("EndTime", py_string(&py_datetime(self.end))),
            ("InputFiles", py_list(&inputs)),
            ("Outputs", py_object(&self.outputs)),
        ];
        py_fields(&fields)
    }
}

impl AnalysisFile {
    /// Writes the file into output folder `dir` ([`file_name`]); its path.
    pub fn write(&self, dir: &Path) -> std::io::Result<PathBuf> {
        let path = dir.join(file_name(dir));
        std::fs::write(&path, self.json())?;
        Ok(path)
    }
}

/// The `.nsys-analysis` file of `nsys recipe diff`'s output, as NVIDIA's diff writes it: its
/// display name (NVIDIA's reads "Statistics Diff Diff"), when it ended, the two folders
/// compared (absolute) and what it wrote.
pub fn diff_json(end: SystemTime, dirs: &[PathBuf; 2], outputs: &[(String, String)]) -> String {
    let dirs: Vec<String> = dirs
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let display = format!("{} Diff", display_name("diff").unwrap_or("Statistics Diff"));
    py_fields(&[
        ("DisplayName", py_string(&display)),
        ("EndTime", py_string(&py_datetime(end))),
        ("DiffDirs", py_list(&dirs)),
        ("Outputs", py_object(outputs)),
    ])
}

/// What a file a recipe wrote is, by its extension (`Table` for CSV and Parquet).
pub fn output_kind(file_name: &str) -> &'static str {
    let ext = Path::new(file_name)
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "csv" | "parquet" => "Table",
        "png" | "svg" | "html" => "Plot",
        _ => "File",
    }
}

/// The name of the `.nsys-analysis` file of output folder `dir` (`out` → `out.nsys-analysis`).
pub fn file_name(dir: &Path) -> String {
    let stem = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    format!("{stem}.nsys-analysis")
}

/// `(name, kind)` of every file in `written`, as [`AnalysisFile::outputs`] lists them.
pub fn outputs_of(written: &[PathBuf]) -> Vec<(String, String)> {
    written
        .iter()
        .filter_map(|p| p.file_name())
        .map(|n| {
            let n = n.to_string_lossy().into_owned();
            let kind = output_kind(&n).to_owned();
            (n, kind)
        })
        .collect()
}

/// A JSON object of already-encoded values, laid out as Python's `json.dump(indent=4)`.
fn py_fields(fields: &[(&str, String)]) -> String {
    if fields.is_empty() {
        return "{}".into();
    }
    let lines: Vec<String> = fields
        .iter()
        .map(|(k, v)| format!("    {}: {}", py_string(k), v.replace('\n', "\n    ")))
        .collect();
    format!("{{\n{}\n}}", lines.join(",\n"))
}

/// A JSON list of strings as Python writes it at one level of indentation.
fn py_list(items: &[String]) -> String {
    if items.is_empty() {
        return "[]".into();
    }
    let lines: Vec<String> = items
        .iter()
        .map(|i| format!("    {}", py_string(i)))
        .collect();
    format!("[\n{}\n]", lines.join(",\n"))
}

/// A JSON object of strings as Python writes it at one level of indentation.
fn py_object(pairs: &[(String, String)]) -> String {
    let fields: Vec<(&str, String)> = pairs
        .iter()
        .map(|(k, v)| (k.as_str(), py_string(v)))
        .collect();
    py_fields(&fields)
}

/// A JSON string as Python's `json` writes it (`ensure_ascii`: non-ASCII as `\uXXXX`).
fn py_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if c.is_ascii() && !c.is_ascii_control() => out.push(c),
            c => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
        }
    }
    out.push('"');
    out
}

/// A time as Python's `str(datetime)` prints it (`2026-12-01 23:55:39.336005`), in UTC.
pub fn py_datetime(t: SystemTime) -> String {
    let since = t.duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
    let secs = i64::try_from(since.as_secs()).unwrap_or(i64::MAX);
    let (y, m, d, s) = crate::format::civil_utc(secs);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}.{:06}",
        s / 3600,
        s / 60 % 60,
        s % 60,
        since.subsec_micros()
    )
}

/// The recipe named by the `.nsys-analysis` file in `dir` (the first, by name, when several):
/// the file's path and its `RecipeName`; `Ok(None)` when `dir` holds none.
pub fn read_recipe_name(dir: &Path) -> std::io::Result<Option<(PathBuf, Option<String>)>> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "nsys-analysis") && p.is_file())
        .collect();
    found.sort();
    let Some(path) = found.into_iter().next() else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(&path)?;
    let name = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v.get("RecipeName")?.as_str().map(str::to_owned));
    Ok(Some((path, name)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_file_is_laid_out_as_pythons_json_dump() {
        let t = SystemTime::UNIX_EPOCH + Duration::from_micros(1_764_633_339_336_005);
        let file = AnalysisFile {
            recipe: "cuda_api_sum".into(),
            mode: Mode::Concurrent,
            start: t,
            end: t,
            inputs: vec!["/in/a.sqlite".into(), "/in/é.sqlite".into()],
            outputs: vec![("all_stats.csv".into(), "Table".into())],
        };
        assert_eq!(
            file.json(),
            "{\n    \"RecipeJsonVersion\": \"1.2.0\",\n    \"RecipeRuntimeVersion\": \"2.0.0\",\n    \
             \"RecipeName\": \"cuda_api_sum\",\n    \"DisplayName\": \"CUDA API Summary\",\n    \
             \"Mode\": \"concurrent\",\n    \"StartTime\": \"2025-12-01 23:55:39.336005\",\n    \
             \"EndTime\": \"2025-12-01 23:55:39.336005\",\n    \"InputFiles\": [\n        \
             \"/in/a.sqlite\",\n        \"/in/\\u00e9.sqlite\"\n    ],\n    \"Outputs\": {\n        \
             \"all_stats.csv\": \"Table\"\n    }\n}"
        );
        assert_eq!(py_string("a\"\u{1}😀"), "\"a\\\"\\u0001\\ud83d\\ude00\"");
        assert_eq!(file_name(Path::new("x/out")), "out.nsys-analysis");
    }
}
