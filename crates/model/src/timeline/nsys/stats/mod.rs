//! Reports equal to `nsys stats`: same rows, columns, grouping, rounding and order.
//!
//! Definitions (checked cell for cell against NVIDIA's output for the corpus): durations are
//! `end − start` in ns; Time (%) = 100 × total / sum of totals, one decimal; Avg, Med and
//! StdDev (sample, n − 1) with one decimal, rounded half away from zero (sizes in MB = 10⁶
//! bytes with three). Kernels group by demangled name and sort by total, instances (both
//! descending), then name; API calls group by string id (every row, including the eventClass 67
//! duplicates of old exports), then a 4-digit `_vNNNN` suffix is cut; the other reports sort by
//! total, descending. Exports without `ENUM_CUDA_MEMCPY_OPER` (which nsys 2023.4 refuses) get the
//! memory reports with the labels of nsys 2022.4 (`[CUDA memcpy HtoD]`).
//!
//! Each family of reports is a module with its own [`Report`] list; [`reports`] is all of them.
//! A report is asked for as nsys takes it: `name[:option[=value]]...`
//! (`cuda_gpu_kern_sum:nvtx-name:base`, `um_sum:rows=10`), see [`ReportRequest`].

mod api_table;
mod apis;
mod calls_by_corr;
mod chunks;
mod cuda;
mod cuda_gpu;
mod cuda_trace;
mod gpu_ops;
mod graphics;
mod kern_exec;
mod mpi;
mod mpi_summary;
mod network;
mod nvtx;
mod nvtx_gpu;
mod nvtx_trace;
mod rows;
mod table;
mod um;
mod wddm;

use super::NsysError;
use super::db::ExportDb;

pub(crate) use cuda::named_values;
pub(crate) use nvtx_gpu::{proj_trace_in, projected_ranges};
pub use rows::{LazyRows, Rows};
pub use table::strip_stats_suffix;
pub(crate) use table::{summary_order, time_table};

/// A report: its nsys name, what it shows, its options and how it is computed.
pub struct Report {
    /// The nsys name (`cuda_gpu_kern_sum`).
    pub name: &'static str,
    /// One line on what it shows.
    pub about: &'static str,
    /// The options it takes.
    pub options: &'static [ReportOption],
    run: fn(&ExportDb, &ReportRequest) -> Result<ReportOutcome, NsysError>,
}

impl std::fmt::Debug for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Report").field("name", &self.name).finish()
    }
}

/// An option of a report: a flag (`nvtx-name`) or a value with a default (`rows=10`).
#[derive(Debug)]
pub struct ReportOption {
    /// Which option.
    pub option: StatsOption,
    /// The default value; `None` for a flag.
    pub default: Option<&'static str>,
    /// One line on what it does.
    pub about: &'static str,
}

impl ReportOption {
    /// The option's name (`nvtx-name`).
    pub fn name(&self) -> &'static str {
        self.option.name()
    }
}

/// Every option a report can take; [`Report::options`] says which a report takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StatsOption {
    /// `nvtx-name`: prefix each kernel's name with its NVTX range.
    NvtxName,
    /// `base`: kernel names without parameters or templates.
    Base,
    /// `mangled`: raw mangled kernel names.
    Mangled,
    /// `rows=N`: the maximum number of rows.
    Rows,
    /// `ticks_threshold=N`: the send-wait ticks above which a sample counts as congested.
    TicksThreshold,
}

impl StatsOption {
    /// Every option.
    pub const ALL: [StatsOption; 5] = [
        StatsOption::NvtxName,
        StatsOption::Base,
        StatsOption::Mangled,
        StatsOption::Rows,
        StatsOption::TicksThreshold,
    ];

    /// The option's name as nsys takes it.
    pub fn name(self) -> &'static str {
        match self {
            StatsOption::NvtxName => "nvtx-name",
            StatsOption::Base => "base",
            StatsOption::Mangled => "mangled",
            StatsOption::Rows => "rows",
            StatsOption::TicksThreshold => "ticks_threshold",
        }
    }
}

/// A report asked for wrongly, or an option a report does not take.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    /// No report has this name.
    #[error("unknown report {name:?}; known: {}", report_names().join(", "))]
    UnknownReport {
        /// The name given.
        name: String,
    },
    /// The report does not take this option.
    #[error(
        "report {report}: unknown option {option:?}; {}",
        known_options(report)
    )]
    UnknownOption {
        /// The report.
        report: &'static str,
        /// The option given.
        option: String,
    },
    /// A flag was given a value.
    #[error("report {report}: option {option} takes no value")]
    UnexpectedValue {
        /// The report.
        report: &'static str,
        /// The flag.
        option: &'static str,
    },
    /// A valued option was given without one.
    #[error("report {report}: option {option} needs a value ({option}=N)")]
    MissingValue {
        /// The report.
        report: &'static str,
        /// The option.
        option: &'static str,
    },
    /// An integer option's value is not an integer.
    #[error("report {report}: option {option}={value:?} is not an integer")]
    NotAnInteger {
        /// The report.
        report: &'static str,
        /// The option.
        option: &'static str,
        /// The value given.
        value: String,
    },
}

/// `known: a, b` for a report's options, or `it takes none`.
fn known_options(report: &str) -> String {
    let known: Vec<&str> = find_report(report)
        .map(|r| r.options.iter().map(ReportOption::name).collect())
        .unwrap_or_default();
    if known.is_empty() {
        "it takes none".to_string()
    } else {
        format!("known: {}", known.join(", "))
    }
}

/// Every report Sightline computes, in nsys's order (alphabetical).
pub fn reports() -> Vec<&'static Report> {
    let mut all: Vec<&'static Report> = cuda::REPORTS
        .iter()
        .chain(cuda_gpu::REPORTS)
        .chain(cuda_trace::REPORTS)
        .chain(kern_exec::REPORTS)
        .chain(nvtx::REPORTS)
        .chain(nvtx_gpu::REPORTS)
        .chain(nvtx_trace::REPORTS)
        .chain(um::REPORTS)
        .chain(apis::REPORTS)
        .chain(graphics::REPORTS)
        .chain(mpi::REPORTS)
        .chain(mpi_summary::REPORTS)
        .chain(wddm::REPORTS)
        .collect();
    all.sort_by_key(|r| r.name);
    all
}

/// The names of every report, in nsys's order.
pub fn report_names() -> Vec<&'static str> {
    reports().into_iter().map(|r| r.name).collect()
}

/// The report named `name` (current or 2022.x name).
pub fn find_report(name: &str) -> Option<&'static Report> {
    let name = OLD_NAMES
        .iter()
        .find(|(old, _)| *old == name)
        .map_or(name, |(_, new)| *new);
    reports().into_iter().find(|r| r.name == name)
}

/// The default set (what `nsys stats` prints without `--report`).
pub const DEFAULT_REPORTS: &[&str] = &[
    "nvtx_sum",
    "osrt_sum",
    "cuda_api_sum",
    "cuda_gpu_kern_sum",
    "cuda_gpu_mem_time_sum",
    "cuda_gpu_mem_size_sum",
];

/// nsys 2022.x report names and the current names they correspond to.
pub const OLD_NAMES: &[(&str, &str)] = &[
    ("gpukernsum", "cuda_gpu_kern_sum"),
    ("cudaapisum", "cuda_api_sum"),
    ("gpumemtimesum", "cuda_gpu_mem_time_sum"),
    ("gpumemsizesum", "cuda_gpu_mem_size_sum"),
    ("osrtsum", "osrt_sum"),
    ("nvtxsum", "nvtx_sum"),
    ("nvtxppsum", "nvtx_pushpop_sum"),
    ("nvtxsesum", "nvtx_startend_sum"),
    ("cudaapitrace", "cuda_api_trace"),
    ("gputrace", "cuda_gpu_trace"),
    ("gpusum", "cuda_gpu_sum"),
    ("apigpusum", "cuda_api_gpu_sum"),
    ("kernexecsum", "cuda_kern_exec_sum"),
    ("kernexectrace", "cuda_kern_exec_trace"),
    ("nvtxgpuprojsum", "nvtx_gpu_proj_sum"),
    ("nvtxgpuprojtrace", "nvtx_gpu_proj_trace"),
    ("nvtxkernsum", "nvtx_kern_sum"),
    ("nvtxpptrace", "nvtx_pushpop_trace"),
    ("openaccsum", "openacc_sum"),
    ("openmpevtsum", "openmp_sum"),
    ("umcpupagefaults", "um_cpu_page_faults_sum"),
    ("umsum", "um_sum"),
    ("umtotalsum", "um_total_sum"),
    ("mpievttrace", "mpi_event_trace"),
    ("vulkanmarkerssum", "vulkan_marker_sum"),
    ("vulkangpumarkersum", "vulkan_gpu_marker_sum"),
    ("vulkanapisum", "vulkan_api_sum"),
    ("vulkanapitrace", "vulkan_api_trace"),
    ("dx11pixsum", "dx11_pix_sum"),
    ("dx12pixsum", "dx12_pix_sum"),
    ("dx12gpumarkersum", "dx12_gpu_marker_sum"),
    ("khrdebugsum", "opengl_khr_range_sum"),
    ("khrdebuggpusum", "opengl_khr_gpu_range_sum"),
    ("wddmqueuesdetails", "wddm_queue_sum"),
    ("nvvideoapisum", "nvvideo_api_sum"),
];

/// The canonical name of a report given by its current or 2022.x name (options cut).
pub fn canonical_report_name(name: &str) -> Option<&'static str> {
    let bare = name.split(':').next().unwrap_or(name);
    find_report(bare).map(|r| r.name)
}

/// A report asked for with its options: `name[:option[=value]]...`.
#[derive(Debug, Clone)]
pub struct ReportRequest {
    /// The report.
    pub report: &'static Report,
    /// The options given, in order: which, and the value (`None` for a flag). Each is one the
    /// report takes.
    pub options: Vec<(StatsOption, Option<String>)>,
}

impl ReportRequest {
    /// Parses `name[:option[=value]]...`; unknown reports and options are an error that lists
    /// what exists.
    pub fn parse(text: &str) -> Result<ReportRequest, RequestError> {
        let mut parts = text.split(':');
        let name = parts.next().unwrap_or_default().trim();
        let Some(report) = find_report(name) else {
            return Err(RequestError::UnknownReport {
                name: name.to_owned(),
            });
        };
        let mut options = Vec::new();
        for part in parts.map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = match part.split_once('=') {
                Some((k, v)) => (k.trim(), Some(v.trim().to_string())),
                None => (part, None),
            };
            let Some(option) = report.options.iter().find(|o| o.name() == key) else {
                return Err(RequestError::UnknownOption {
                    report: report.name,
                    option: key.to_owned(),
                });
            };
            match (option.default, &value) {
                (None, Some(_)) => {
                    return Err(RequestError::UnexpectedValue {
                        report: report.name,
                        option: option.name(),
                    });
                }
                (Some(_), None) => {
                    return Err(RequestError::MissingValue {
                        report: report.name,
                        option: option.name(),
                    });
                }
                _ => {}
            }
            options.push((option.option, value));
        }
        Ok(ReportRequest { report, options })
    }

    /// The report's declaration of `option`, an error when the report does not take it.
    fn declared(&self, option: StatsOption) -> Result<&'static ReportOption, RequestError> {
        self.report
            .options
            .iter()
            .find(|o| o.option == option)
            .ok_or_else(|| RequestError::UnknownOption {
                report: self.report.name,
                option: option.name().to_owned(),
            })
    }

    /// Whether flag `option` was given; an error when the report does not take it.
    pub fn flag(&self, option: StatsOption) -> Result<bool, RequestError> {
        self.declared(option)?;
        Ok(self
            .options
            .iter()
            .any(|(k, v)| *k == option && v.is_none()))
    }

    /// The value of option `option`: the last one given, else its default (`None` for a flag);
    /// an error when the report does not take it.
    pub fn value(&self, option: StatsOption) -> Result<Option<&str>, RequestError> {
        let declared = self.declared(option)?;
        Ok(self
            .options
            .iter()
            .rev()
            .find(|(k, _)| *k == option)
            .and_then(|(_, v)| v.as_deref())
            .or(declared.default))
    }

    /// The integer value of option `option`, an error naming the report and option otherwise.
    pub fn int(&self, option: StatsOption) -> Result<i64, RequestError> {
        let v = self.value(option)?.unwrap_or_default();
        v.parse().map_err(|_| RequestError::NotAnInteger {
            report: self.report.name,
            option: option.name(),
            value: v.to_owned(),
        })
    }

    /// The name nsys gives the request's output file: `report` and each option, joined by `_`
    /// (`cuda_gpu_kern_sum_nvtx-name`).
    pub fn file_stem(&self) -> String {
        let mut s = self.report.name.to_string();
        for (k, v) in &self.options {
            s.push('_');
            s.push_str(k.name());
            if let Some(v) = v {
                s.push('=');
                s.push_str(v);
            }
        }
        s
    }
}

/// A cell's text. Up to 24 bytes (every number nsys prints) it lives inside the cell, so a
/// 3.7 M-row trace of 21 columns does not make 78 M heap allocations.
pub type CellText = compact_str::CompactString;

/// One cell: numbers print bare in JSON, text as strings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    /// A number, already formatted as nsys prints it ("931.0", "4.194").
    Number(CellText),
    /// Text.
    Text(CellText),
}

impl Cell {
    /// An integer, as nsys prints it.
    pub fn int(value: impl compact_str::ToCompactString + Copy) -> Cell {
        Cell::Number(value.to_compact_string())
    }

    /// An integer, or an empty cell for a missing value.
    pub fn opt_int(value: Option<i64>) -> Cell {
        value.map_or_else(|| Cell::Number(CellText::default()), Cell::int)
    }

    /// The cell's text.
    pub fn as_str(&self) -> &str {
        match self {
            Cell::Number(s) | Cell::Text(s) => s,
        }
    }
}

/// A computed report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportTable {
    /// The report's nsys name.
    pub report: String,
    /// Column headers, as nsys prints them.
    pub columns: Vec<String>,
    /// The rows.
    pub rows: Rows,
    /// What the report could not read, one line each (tables with damaged pages: the report
    /// covers the rows that read); empty for an intact export. Not part of the table's CSV or
    /// JSON: the command line prints them on stderr, the app above the table.
    pub warnings: Vec<String>,
}

impl ReportTable {
    /// The table of report `report` (its nsys name) with headers `columns` and `rows`, and no
    /// warnings.
    pub fn new(
        report: &str,
        columns: impl IntoIterator<Item = impl ToString>,
        rows: impl Into<Rows>,
    ) -> ReportTable {
        ReportTable {
            report: report.to_owned(),
            columns: columns.into_iter().map(|c| c.to_string()).collect(),
            rows: rows.into(),
            warnings: Vec::new(),
        }
    }
}

/// What a report produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReportOutcome {
    /// A table (possibly without rows: nsys's "no-rows").
    Table(ReportTable),
    /// The export lacks the data; the message is the one nsys prints after `SKIPPED: `.
    Skipped(String),
}

/// nsys's message for an export that lacks a report's data: `<path> does not contain <what>.`
pub(crate) fn skipped(db: &ExportDb, what: &str) -> Result<ReportOutcome, NsysError> {
    Ok(ReportOutcome::Skipped(format!(
        "{} does not contain {what}.",
        db.path.display()
    )))
}

/// Computes report `request` (`name[:option[=value]]...`, current or 2022.x name) on an open
/// export.
pub fn run_report(db: &ExportDb, request: &str) -> Result<ReportOutcome, NsysError> {
    let request = ReportRequest::parse(request).map_err(|e| db.query_error("", e))?;
    run_request(db, &request)
}

/// Computes a parsed request on an open export. Tables with damaged pages are read around the
/// damage: the table gets [`ReportTable::warnings`] naming each table and the rows lost; a
/// report left with nothing to show because a table it needs could not be read at all fails
/// with [`NsysError::DamagedTable`] naming it.
pub fn run_request(db: &ExportDb, request: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    // What earlier reads met (another report, the loader) is not this report's.
    db.take_damage_met();
    let outcome = (request.report.run)(db, request);
    let met = db.take_damage_met();
    if met.is_empty() {
        return outcome;
    }
    let unreadable: Vec<&str> = met
        .iter()
        .filter(|(_, r)| r.nothing_read())
        .map(|(t, _)| t.as_str())
        .collect();
    let failed = || NsysError::DamagedTable {
        path: db.path.clone(),
        table: unreadable.join(", "),
        report: request.report.name.to_owned(),
    };
    match outcome? {
        ReportOutcome::Table(t) if t.rows.is_empty() && !unreadable.is_empty() => Err(failed()),
        ReportOutcome::Skipped(_) if !unreadable.is_empty() => Err(failed()),
        ReportOutcome::Table(mut t) => {
            t.warnings = met
                .iter()
                .flat_map(|(table, readable)| readable.describe_for_report(table))
                .collect();
            Ok(ReportOutcome::Table(t))
        }
        skipped @ ReportOutcome::Skipped(_) => Ok(skipped),
    }
}

/// Runs several reports on the export at `path` (the first that fails fails them all).
pub fn run_reports(
    path: &std::path::Path,
    names: &[&str],
) -> Result<Vec<(String, ReportOutcome)>, NsysError> {
    let db = ExportDb::open_salvaging(path)?;
    names
        .iter()
        .map(|n| Ok((n.to_string(), run_report(&db, n)?)))
        .collect()
}

/// Each report's name with its outcome or why it failed.
pub type EachOutcome = Vec<(String, Result<ReportOutcome, NsysError>)>;

/// Runs several reports on the export at `path`, opened once, each with its own outcome (one
/// failing keeps the others'): what the app shows. `Err` only when the export does not open.
pub fn run_each(path: &std::path::Path, names: &[&str]) -> Result<EachOutcome, NsysError> {
    let db = ExportDb::open_salvaging(path)?;
    Ok(names
        .iter()
        .map(|n| (n.to_string(), run_report(&db, n)))
        .collect())
}

/// The summary tables of the app's Summary panel for `path`: [`DEFAULT_REPORTS`], then
/// `mpi_summary` when the export (or merged set) has MPI calls.
pub fn run_summary_tables(path: &std::path::Path) -> Result<EachOutcome, NsysError> {
    let db = ExportDb::open_salvaging(path)?;
    let mut names: Vec<&str> = DEFAULT_REPORTS.to_vec();
    let mpi = crate::timeline::MpiTable::ALL
        .iter()
        .any(|t| db.has_table(t.table_name()) && db.has_rows(t.table_name()).unwrap_or(false));
    if mpi {
        names.push("mpi_summary");
    }
    Ok(names
        .iter()
        .map(|n| (n.to_string(), run_report(&db, n)))
        .collect())
}

/// The report as CSV, byte for byte as `nsys stats --format csv` writes it: a header line, then one line per row; a cell holding a
/// comma, quote or line break is quoted with doubled quotes.
pub fn to_csv(table: &ReportTable) -> String {
    let mut out = Vec::new();
    // Writing into a Vec cannot fail, and every cell is UTF-8.
    let _ = write_csv(table, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// [`to_csv`] straight into a writer, buffered here: a 3.7 M-row trace is never one string.
pub fn write_csv(table: &ReportTable, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
    csv_line(&mut out, table.columns.iter().map(|s| s.as_str()))?;
    table
        .rows
        .for_each(|row| csv_line(&mut out, row.iter().map(|c| c.as_str())))?;
    out.flush()
}

/// One CSV line of [`write_csv`].
pub(crate) fn csv_line<'a>(
    out: &mut impl std::io::Write,
    cells: impl Iterator<Item = &'a str>,
) -> std::io::Result<()> {
    for (i, c) in cells.enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        if c.contains([',', '"', '\n', '\r']) {
            out.write_all(b"\"")?;
            out.write_all(c.replace('"', "\"\"").as_bytes())?;
            out.write_all(b"\"")?;
        } else {
            out.write_all(c.as_bytes())?;
        }
    }
    out.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_suffix_rule() {
        assert_eq!(strip_stats_suffix("cudaMalloc_v3020"), "cudaMalloc");
        assert_eq!(
            strip_stats_suffix("cudaStreamIsCapturing_v10000"),
            "cudaStreamIsCapturing_v10000"
        );
        assert_eq!(strip_stats_suffix("cuMemAlloc_v2"), "cuMemAlloc_v2");
    }

    #[test]
    fn csv_quotes_like_python() {
        let t = ReportTable::new(
            "x",
            ["A", "Name"],
            vec![vec![
                Cell::Number("1.0".into()),
                Cell::Text("f(int, \"q\")".into()),
            ]],
        );
        assert_eq!(to_csv(&t), "A,Name\n1.0,\"f(int, \"\"q\"\")\"\n");
    }
    #[test]
    fn options_are_checked_against_the_report() {
        let req = ReportRequest::parse("cuda_gpu_kern_sum:nvtx-name").expect("request");
        assert_eq!(req.options, [(StatsOption::NvtxName, None)]);
        assert_eq!(req.flag(StatsOption::NvtxName), Ok(true));
        assert_eq!(req.flag(StatsOption::Base), Ok(false));
        assert_eq!(req.file_stem(), "cuda_gpu_kern_sum_nvtx-name");
        // An option the report does not declare is an error naming both.
        let err = req.int(StatsOption::Rows).unwrap_err();
        assert_eq!(
            err.to_string(),
            "report cuda_gpu_kern_sum: unknown option \"rows\"; known: nvtx-name, base, mangled"
        );
        let um = ReportRequest::parse("um_sum").expect("request");
        assert_eq!(um.int(StatsOption::Rows), Ok(10));
        assert!(um.flag(StatsOption::NvtxName).is_err());
        let err = ReportRequest::parse("um_sum:rows=x").expect("request");
        assert_eq!(
            err.int(StatsOption::Rows).unwrap_err().to_string(),
            "report um_sum: option rows=\"x\" is not an integer"
        );
        for (text, message) in [
            (
                "um_sum:rowz=3",
                "report um_sum: unknown option \"rowz\"; known: rows",
            ),
            (
                "um_sum:rows",
                "report um_sum: option rows needs a value (rows=N)",
            ),
            (
                "cuda_gpu_trace:nvtx-name=1",
                "report cuda_gpu_trace: option nvtx-name takes no value",
            ),
            (
                "osrt_sum:base",
                "report osrt_sum: unknown option \"base\"; it takes none",
            ),
        ] {
            let err = ReportRequest::parse(text).unwrap_err();
            assert_eq!(err.to_string(), message, "{text}");
        }
        assert!(
            ReportRequest::parse("no_such")
                .unwrap_err()
                .to_string()
                .starts_with("unknown report \"no_such\"; known: ")
        );
    }
}
