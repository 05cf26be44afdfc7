//! Summary reports equal to `nsys stats`: same rows, columns, grouping, rounding and order.
//!
//! Definitions (checked cell for cell against NVIDIA's output for the corpus): durations are
//! `end − start` in ns; Time (%) = 100 × total / sum of totals, one decimal; Avg, Med and
//! StdDev (sample, n − 1) with one decimal, rounded half away from zero (sizes in MB = 10⁶
//! bytes with three). Kernels group by demangled name and sort by total, instances (both
//! descending), then name; API calls group by string id (every row, including the eventClass 67
//! duplicates of old exports), then a 4-digit `_vNNNN` suffix is cut; the other reports sort by
//! total, descending. Exports without `ENUM_CUDA_MEMCPY_OPER` (which nsys 2023.4 refuses) get the
//! memory reports with the labels of nsys 2022.4 (`[CUDA memcpy HtoD]`).

use std::collections::HashMap;

use super::NsysError;
use super::db::{ExportDb, int_of, text_of};
use super::load::MEMCPY_LABELS;
use crate::timeline::summary::{Summary, fmt_float, fmt_ratio};

/// The reports Sightline computes, by their nsys names.
pub const REPORTS: &[&str] = &[
    "cuda_gpu_kern_sum",
    "cuda_api_sum",
    "cuda_gpu_mem_time_sum",
    "cuda_gpu_mem_size_sum",
    "osrt_sum",
    "nvtx_sum",
    "nvtx_pushpop_sum",
    "nvtx_startend_sum",
];

/// The default set (what `nsys stats` prints without `--report`, minus what Sightline lacks).
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
];

/// The canonical name of a report given by its current or 2022.x name.
pub fn canonical_report_name(name: &str) -> Option<&'static str> {
    REPORTS.iter().find(|r| **r == name).copied().or_else(|| {
        OLD_NAMES
            .iter()
            .find(|(old, _)| *old == name)
            .map(|(_, new)| *new)
    })
}

/// One cell: numbers print bare in JSON, text as strings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    /// A number, already formatted as nsys prints it ("931.0", "4.194").
    Number(String),
    /// Text.
    Text(String),
}

impl Cell {
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
    /// Rows of cells.
    pub rows: Vec<Vec<Cell>>,
}

/// What a report produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReportOutcome {
    /// A table (possibly without rows: nsys's "no-rows").
    Table(ReportTable),
    /// The export lacks the data; the message is the one nsys prints after `SKIPPED: `.
    Skipped(String),
}

/// Computes report `name` (current or 2022.x name) on an open export.
pub fn run_report(db: &ExportDb, name: &str) -> Result<ReportOutcome, NsysError> {
    let Some(report) = canonical_report_name(name) else {
        return Err(NsysError::Query {
            path: db.path.clone(),
            table: String::new(),
            detail: format!("unknown report {name:?}; known: {}", REPORTS.join(", ")),
        });
    };
    let skipped = |what: &str| {
        Ok(ReportOutcome::Skipped(format!(
            "{} does not contain {what}.",
            db.path.display()
        )))
    };
    let strings = || db.string_ids();
    let table = match report {
        "cuda_gpu_kern_sum" => {
            const T: &str = "CUPTI_ACTIVITY_KIND_KERNEL";
            if db.row_count(T)? == 0 {
                return skipped("CUDA kernel data");
            }
            let groups = grouped(db, T, "demangledName", "end - start", "")?;
            let strings = strings()?;
            let named = groups
                .into_iter()
                .map(|(k, v)| (string_of(&strings, k), v))
                .collect();
            time_table(report, "Instances", "Name", named, true)
        }
        "cuda_api_sum" => {
            const T: &str = "CUPTI_ACTIVITY_KIND_RUNTIME";
            if db.row_count(T)? == 0 {
                return skipped("CUDA trace data");
            }
            let groups = grouped(db, T, "nameId", "end - start", "")?;
            let strings = strings()?;
            let named = groups
                .into_iter()
                .map(|(k, v)| (strip_stats_suffix(&string_of(&strings, k)).to_string(), v))
                .collect();
            time_table(report, "Num Calls", "Name", named, false)
        }
        "osrt_sum" => {
            const T: &str = "OSRT_API";
            if db.row_count(T)? == 0 {
                return skipped("OS Runtime trace data");
            }
            let filter = if db.has_column(T, "eventClass") {
                " WHERE eventClass = 27"
            } else {
                ""
            };
            let groups = grouped(db, T, "nameId", "end - start", filter)?;
            let strings = strings()?;
            let named = groups
                .into_iter()
                .map(|(k, v)| (string_of(&strings, k), v))
                .collect();
            time_table(report, "Num Calls", "Name", named, false)
        }
        "cuda_gpu_mem_time_sum" | "cuda_gpu_mem_size_sum" => {
            let memcpy = db.row_count("CUPTI_ACTIVITY_KIND_MEMCPY")?;
            let memset = db.row_count("CUPTI_ACTIVITY_KIND_MEMSET")?;
            if memcpy + memset == 0 {
                return skipped("GPU memory data");
            }
            let size = report == "cuda_gpu_mem_size_sum";
            let value = if size { "bytes" } else { "end - start" };
            let labels = db.enum_labels("ENUM_CUDA_MEMCPY_OPER");
            let mut named: Vec<(String, Vec<i64>)> = Vec::new();
            if memcpy > 0 {
                for (kind, v) in grouped(db, "CUPTI_ACTIVITY_KIND_MEMCPY", "copyKind", value, "")? {
                    named.push((memcpy_label(labels.as_ref(), kind), v));
                }
            }
            if memset > 0 {
                let mut all = Vec::new();
                for (_, v) in grouped(db, "CUPTI_ACTIVITY_KIND_MEMSET", "NULL", value, "")? {
                    all.extend(v);
                }
                named.push(("[CUDA memset]".to_string(), all));
            }
            if size {
                size_table(report, named)
            } else {
                time_table(report, "Count", "Operation", named, false)
            }
        }
        _ => return nvtx_report(db, report),
    };
    Ok(ReportOutcome::Table(table))
}

/// Runs several reports on the export at `path`.
pub fn run_reports(
    path: &std::path::Path,
    names: &[&str],
) -> Result<Vec<(String, ReportOutcome)>, NsysError> {
    let db = ExportDb::open(path)?;
    names
        .iter()
        .map(|n| Ok((n.to_string(), run_report(&db, n)?)))
        .collect()
}

/// `SELECT key, value FROM table` grouped by key. Values that are not integers are an error
/// naming the table and rowid (a summary must not silently leave rows out).
fn grouped(
    db: &ExportDb,
    table: &str,
    key: &str,
    value: &str,
    filter: &str,
) -> Result<HashMap<i64, Vec<i64>>, NsysError> {
    let key_sql = if key == "NULL" {
        "NULL".to_string()
    } else {
        db.col_or_null(table, key)
    };
    let sql = format!(
        "SELECT rowid, {key_sql}, {value}, typeof(start) IN ('integer', 'null') AND typeof(end) IN ('integer', 'null') FROM {table}{filter}"
    );
    let mut stmt = db
        .conn
        .prepare(&sql)
        .map_err(|e| db.query_error(table, e))?;
    let mut rows = stmt.query([]).map_err(|e| db.query_error(table, e))?;
    let mut out: HashMap<i64, Vec<i64>> = HashMap::new();
    while let Some(row) = rows.next().map_err(|e| db.query_error(table, e))? {
        let types_ok = matches!(row.get_ref(3), Ok(rusqlite::types::ValueRef::Integer(1)));
        let v = row
            .get_ref(2)
            .ok()
            .and_then(int_of)
            .filter(|_| types_ok || value == "bytes");
        let Some(v) = v else {
            let rowid = row.get_ref(0).ok().and_then(int_of).unwrap_or(-1);
            return Err(db.query_error(table, format!("rowid {rowid}: {value} is not an integer")));
        };
        let k = row.get_ref(1).ok().and_then(int_of).unwrap_or(-1);
        out.entry(k).or_default().push(v);
    }
    Ok(out)
}

fn string_of(strings: &HashMap<i64, String>, id: i64) -> String {
    strings
        .get(&id)
        .cloned()
        .unwrap_or_else(|| format!("<string {id}>"))
}

/// nsys stats cuts a `_v` followed by exactly four digits (`cudaMalloc_v3020`), and keeps
/// longer ones (`cudaStreamIsCapturing_v10000`).
pub fn strip_stats_suffix(name: &str) -> &str {
    let b = name.as_bytes();
    if b.len() > 6
        && &b[b.len() - 6..b.len() - 4] == b"_v"
        && b[b.len() - 4..].iter().all(u8::is_ascii_digit)
    {
        &name[..name.len() - 6]
    } else {
        name
    }
}

fn memcpy_label(labels: Option<&HashMap<i64, String>>, kind: i64) -> String {
    match labels {
        Some(l) => format!(
            "[CUDA memcpy {}]",
            l.get(&kind).cloned().unwrap_or_else(|| "Unknown".into())
        ),
        None => {
            // nsys 2022.4's short labels.
            const OLD: &[&str] = &[
                "Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH",
                "PtoP",
            ];
            let label = usize::try_from(kind)
                .ok()
                .and_then(|i| OLD.get(i).or_else(|| MEMCPY_LABELS.get(i)))
                .copied()
                .unwrap_or("Unknown");
            format!("[CUDA memcpy {label}]")
        }
    }
}

pub(crate) fn time_table(
    report: &str,
    count_header: &str,
    name_header: &str,
    groups: Vec<(String, Vec<i64>)>,
    kernel_order: bool,
) -> ReportTable {
    let mut sums: Vec<(String, Summary)> = groups
        .into_iter()
        .filter_map(|(name, mut v)| Some((name, Summary::of(&mut v)?)))
        .collect();
    sort_summaries(&mut sums, kernel_order);
    let grand: i128 = sums.iter().map(|(_, s)| s.total).sum();
    let columns = [
        "Time (%)",
        "Total Time (ns)",
        count_header,
        "Avg (ns)",
        "Med (ns)",
        "Min (ns)",
        "Max (ns)",
        "StdDev (ns)",
        name_header,
    ];
    let rows = sums
        .into_iter()
        .map(|(name, s)| {
            let mut row = time_cells(&s, grand);
            row.push(Cell::Text(name));
            row
        })
        .collect();
    ReportTable {
        report: report.to_string(),
        columns: columns.iter().map(|c| c.to_string()).collect(),
        rows,
    }
}

fn time_cells(s: &Summary, grand: i128) -> Vec<Cell> {
    let n = i128::from(s.count);
    vec![
        Cell::Number(fmt_ratio(100 * s.total, grand, 1)),
        Cell::Number(s.total.to_string()),
        Cell::Number(s.count.to_string()),
        Cell::Number(fmt_ratio(s.total, n, 1)),
        Cell::Number(fmt_ratio(s.median_x2, 2, 1)),
        Cell::Number(s.min.to_string()),
        Cell::Number(s.max.to_string()),
        Cell::Number(fmt_float(s.stddev, 1)),
    ]
}

fn sort_summaries(sums: &mut [(String, Summary)], kernel_order: bool) {
    sums.sort_by(|(an, a), (bn, b)| {
        let by_total = b.total.cmp(&a.total);
        if kernel_order {
            by_total
                .then(b.count.cmp(&a.count))
                .then_with(|| an.cmp(bn))
        } else {
            // Equal totals: by name (nsys 2022.4 lists `[CUDA memcpy DtoH]` before `HtoD`).
            by_total.then_with(|| an.cmp(bn))
        }
    });
}

fn size_table(report: &str, groups: Vec<(String, Vec<i64>)>) -> ReportTable {
    let mut sums: Vec<(String, Summary)> = groups
        .into_iter()
        .filter_map(|(name, mut v)| Some((name, Summary::of(&mut v)?)))
        .collect();
    sort_summaries(&mut sums, false);
    const MB: i128 = 1_000_000;
    let columns = [
        "Total (MB)",
        "Count",
        "Avg (MB)",
        "Med (MB)",
        "Min (MB)",
        "Max (MB)",
        "StdDev (MB)",
        "Operation",
    ];
    let rows = sums
        .into_iter()
        .map(|(name, s)| {
            let n = i128::from(s.count);
            vec![
                Cell::Number(fmt_ratio(s.total, MB, 3)),
                Cell::Number(s.count.to_string()),
                Cell::Number(fmt_ratio(s.total, n * MB, 3)),
                Cell::Number(fmt_ratio(s.median_x2, 2 * MB, 3)),
                Cell::Number(fmt_ratio(i128::from(s.min), MB, 3)),
                Cell::Number(fmt_ratio(i128::from(s.max), MB, 3)),
                Cell::Number(fmt_float(s.stddev / 1e6, 3)),
                Cell::Text(name),
            ]
        })
        .collect();
    ReportTable {
        report: report.to_string(),
        columns: columns.iter().map(|c| c.to_string()).collect(),
        rows,
    }
}

/// `nvtx_sum` (push/pop and start/end, with a Style column), `nvtx_pushpop_sum`,
/// `nvtx_startend_sum`. Names are `domain:text` (no prefix in the default domain); a range that
/// never ends runs to the last NVTX timestamp.
fn nvtx_report(db: &ExportDb, report: &str) -> Result<ReportOutcome, NsysError> {
    const T: &str = "NVTX_EVENTS";
    if db.row_count(T)? == 0 {
        return Ok(ReportOutcome::Skipped(format!(
            "{} does not contain NV Tools Extension (NVTX) data.",
            db.path.display()
        )));
    }
    let strings = db.string_ids()?;
    let text = db.col_or_null(T, "text");
    let text_id = db.col_or_null(T, "textId");
    let domain = db.col_or_null(T, "domainId");
    let sql = format!(
        "SELECT rowid, start, end, eventType, globalTid, {text}, {text_id}, {domain} FROM {T}"
    );
    let mut stmt = db.conn.prepare(&sql).map_err(|e| db.query_error(T, e))?;
    let mut rows = stmt.query([]).map_err(|e| db.query_error(T, e))?;
    struct Range {
        start: i64,
        end: Option<i64>,
        push_pop: bool,
        process: u64,
        domain: i64,
        text: String,
    }
    let mut ranges = Vec::new();
    let mut domains: HashMap<(u64, i64), String> = HashMap::new();
    let mut last = i64::MIN;
    while let Some(row) = rows.next().map_err(|e| db.query_error(T, e))? {
        let v = |i| row.get_ref(i).ok().and_then(int_of);
        let (Some(start), Some(event_type)) = (v(1), v(3)) else {
            let rowid = v(0).unwrap_or(-1);
            return Err(db.query_error(
                T,
                format!("rowid {rowid}: start or eventType is not an integer"),
            ));
        };
        let end = v(2);
        last = last.max(start).max(end.unwrap_or(i64::MIN));
        let process = (v(4).unwrap_or(0) as u64) >> 24;
        let dom = v(7).unwrap_or(0);
        let message = row
            .get_ref(5)
            .ok()
            .and_then(text_of)
            .or_else(|| v(6).and_then(|id| strings.get(&id).cloned()))
            .unwrap_or_default();
        match event_type {
            75 => {
                domains.insert((process, dom), message);
            }
            59 | 60 => ranges.push(Range {
                start,
                end,
                push_pop: event_type == 59,
                process,
                domain: dom,
                text: message,
            }),
            _ => {}
        }
    }
    let want = |pp: bool| match report {
        "nvtx_pushpop_sum" => pp,
        "nvtx_startend_sum" => !pp,
        _ => true,
    };
    let mut groups: HashMap<(bool, String), Vec<i64>> = HashMap::new();
    for r in ranges.into_iter().filter(|r| want(r.push_pop)) {
        let name = match domains.get(&(r.process, r.domain)) {
            Some(d) if r.domain != 0 => format!("{d}:{}", r.text),
            _ => r.text,
        };
        let end = r.end.unwrap_or(last);
        groups
            .entry((r.push_pop, name))
            .or_default()
            .push(end.saturating_sub(r.start));
    }
    let mut sums: Vec<((bool, String), Summary)> = groups
        .into_iter()
        .filter_map(|(k, mut v)| Some((k, Summary::of(&mut v)?)))
        .collect();
    sums.sort_by(|(ak, a), (bk, b)| b.total.cmp(&a.total).then_with(|| ak.1.cmp(&bk.1)));
    let grand: i128 = sums.iter().map(|(_, s)| s.total).sum();
    let with_style = report == "nvtx_sum";
    let mut columns: Vec<String> = [
        "Time (%)",
        "Total Time (ns)",
        "Instances",
        "Avg (ns)",
        "Med (ns)",
        "Min (ns)",
        "Max (ns)",
        "StdDev (ns)",
    ]
    .iter()
    .map(|c| c.to_string())
    .collect();
    if with_style {
        columns.push("Style".into());
    }
    columns.push("Range".into());
    let rows = sums
        .into_iter()
        .map(|((push_pop, name), s)| {
            let mut row = time_cells(&s, grand);
            if with_style {
                row.push(Cell::Text(
                    if push_pop { "PushPop" } else { "StartEnd" }.into(),
                ));
            }
            row.push(Cell::Text(name));
            row
        })
        .collect();
    Ok(ReportOutcome::Table(ReportTable {
        report: report.to_string(),
        columns,
        rows,
    }))
}

/// The report as CSV, byte for byte as `nsys stats --format csv` writes it.
pub fn to_csv(table: &ReportTable) -> String {
    let mut out = String::new();
    let line = |cells: &mut dyn Iterator<Item = &str>, out: &mut String| {
        let mut first = true;
        for c in cells {
            if !first {
                out.push(',');
            }
            first = false;
            if c.contains([',', '"', '\n', '\r']) {
                out.push('"');
                out.push_str(&c.replace('"', "\"\""));
                out.push('"');
            } else {
                out.push_str(c);
            }
        }
        out.push('\n');
    };
    line(&mut table.columns.iter().map(|s| s.as_str()), &mut out);
    for row in &table.rows {
        line(&mut row.iter().map(|c| c.as_str()), &mut out);
    }
    out
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
        let t = ReportTable {
            report: "x".into(),
            columns: vec!["A".into(), "Name".into()],
            rows: vec![vec![
                Cell::Number("1.0".into()),
                Cell::Text("f(int, \"q\")".into()),
            ]],
        };
        assert_eq!(to_csv(&t), "A,Name\n1.0,\"f(int, \"\"q\"\")\"\n");
    }
}
