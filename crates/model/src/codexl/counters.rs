//! Performance counters (`SESSION.csv`) in every dialect: current RCP files (`#` header,
//! any `ListSeparator`, fixed-width right-aligned numbers, `{ x y z}` sizes, `NULL`), the old
//! sprofile files (no header, `{x; y; z}` sizes, data-transfer rows with empty kernel fields),
//! and HSA files whose kernel names escape space and comma.

use std::collections::HashMap;
use std::io::BufRead;
use std::path::Path;
use std::sync::Arc;

use super::table::{ProfileTable, TableReader};
use super::text::unescape;
pub use super::values::{CounterValue, Values};
use super::{CodexlError, map_file};
use crate::core::{Lines, Progress};
use crate::problem::Problem;

/// Which writer generation produced the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CounterDialect {
    /// RCP / CodeXL with a `#` header.
    Rcp,
    /// ATI Stream / AMD APP Profiler (sprofile) without a header.
    Sprofile,
}

/// One dispatch (or data transfer) row.
#[derive(Debug, Clone, PartialEq)]
pub struct CounterRow {
    /// 1-based line in the file.
    pub line: u64,
    /// One value per column (missing fields are `Empty`; extra fields are dropped with the
    /// table's warning); texts and sizes are in the file's [`CounterFile::values`].
    pub values: Box<[CounterValue]>,
    /// Kernel name from `Method` (escapes undone); the whole `Method` when it has no `__k`.
    pub kernel: Arc<str>,
    /// Kernel id from `Method` (`__k<id>_`).
    pub kernel_id: Option<u32>,
    /// Device from `Method` (`_<device><n>`).
    pub device: Option<Arc<str>>,
}

/// Dispatch count and time of one kernel (on one device).
#[derive(Debug, Clone, PartialEq)]
pub struct KernelAggregate {
    /// Kernel name.
    pub kernel: String,
    /// Device, when `Method` names one.
    pub device: Option<String>,
    /// Rows with a time.
    pub dispatches: usize,
    /// Sum of the time column (ms).
    pub total_time_ms: f64,
    /// `total / dispatches` (ms).
    pub average_time_ms: f64,
}

/// A parsed counter file.
#[derive(Debug, Clone)]
pub struct CounterFile {
    /// The table as read (header entries, columns, warnings; its raw rows are not kept).
    pub table: ProfileTable,
    /// Writer generation.
    pub dialect: CounterDialect,
    /// Typed rows.
    pub rows: Vec<CounterRow>,
    /// The texts and work sizes the rows' values refer to.
    pub values: Values,
    /// Device names of the header's `#Device <name> <property>=` lines.
    pub devices: Vec<String>,
}

/// A counter file being read: the table's reader, and each row typed as it comes.
#[derive(Default)]
struct CounterBuilder {
    reader: TableReader,
    rows: Vec<CounterRow>,
    values: Values,
    /// Known at the first row: the header's devices, the `Method` column, decimal commas.
    typed: Option<(Vec<String>, Option<usize>, bool)>,
}

impl CounterBuilder {
    /// Reads one line (without its `\n`).
    fn line(&mut self, raw: &[u8]) {
        let Some(row) = self.reader.line(raw) else {
            return;
        };
        // The header is complete at the first row: devices, `Method`, decimal commas.
        let reader = &self.reader;
        let (devices, method, decimal_comma) = self.typed.get_or_insert_with(|| {
            let table = reader.table();
            (
                header_devices(table),
                table.column("Method"),
                table.separator != ',',
            )
        });
        let values = &mut self.values;
        let width = self.reader.table().columns.len();
        let row_values: Box<[CounterValue]> = (0..width)
            .map(|i| {
                row.fields
                    .get(i)
                    .map_or(CounterValue::Empty, |f| values.parse(f, *decimal_comma))
            })
            .collect();
        let method_text = method
            .and_then(|i| row.fields.get(i))
            .map(String::as_str)
            .unwrap_or("");
        let (kernel, kernel_id, device) = split_method(method_text, devices);
        self.rows.push(CounterRow {
            line: row.line,
            values: row_values,
            kernel: values.shared_text(&kernel),
            kernel_id,
            device: device.map(|d| values.shared_text(&d)),
        });
    }

    /// The file read.
    fn finish(mut self) -> CounterFile {
        self.rows.shrink_to_fit();
        let table = self.reader.finish();
        let dialect = if table.header.is_empty() {
            CounterDialect::Sprofile
        } else {
            CounterDialect::Rcp
        };
        let devices = header_devices(&table);
        CounterFile {
            table,
            dialect,
            rows: self.rows,
            values: self.values,
            devices,
        }
    }
}

impl CounterFile {
    /// Reads a file a line at a time (the file's text is never held whole).
    pub fn open(path: &Path) -> Result<CounterFile, CodexlError> {
        let io = |source| CodexlError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = std::fs::File::open(path).map_err(io)?;
        Self::read(std::io::BufReader::with_capacity(1 << 16, file)).map_err(io)
    }

    /// Parses the bytes of a counter file.
    pub fn parse(data: &[u8]) -> CounterFile {
        // Reading from memory cannot fail.
        Self::read(data).unwrap_or_else(|_| CounterFile {
            table: ProfileTable::default(),
            dialect: CounterDialect::Sprofile,
            rows: Vec::new(),
            values: Values::default(),
            devices: Vec::new(),
        })
    }

    /// Maps a file and reads it a line at a time, reporting the bytes read to `progress`;
    /// `Err(CodexlError::Cancelled)` when it was cancelled.
    pub fn open_with(path: &Path, progress: Progress<'_>) -> Result<CounterFile, CodexlError> {
        let data = map_file(path)?;
        let mut builder = CounterBuilder::default();
        let mut lines = Lines::with_progress(data.bytes(), progress, super::STAGE);
        for line in lines.by_ref() {
            builder.line(line.raw);
        }
        lines.finish()?;
        Ok(builder.finish())
    }

    /// Parses a counter file from `input`, typing each row as it is read.
    pub fn read(mut input: impl BufRead) -> std::io::Result<CounterFile> {
        let mut builder = CounterBuilder::default();
        let mut line = Vec::new();
        loop {
            line.clear();
            if input.read_until(b'\n', &mut line)? == 0 {
                break;
            }
            builder.line(line.strip_suffix(b"\n").unwrap_or(&line));
        }
        Ok(builder.finish())
    }

    /// A value as the file wrote it ([`Values::written`]).
    pub fn value_text(&self, value: &CounterValue) -> std::borrow::Cow<'_, str> {
        self.values.written(value)
    }

    /// Bytes the parsed file holds on the heap (rows, values, texts), for the memory budget.
    pub fn heap_bytes(&self) -> usize {
        let rows = self.rows.capacity() * std::mem::size_of::<CounterRow>();
        let values: usize = self
            .rows
            .iter()
            .map(|r| r.values.len() * std::mem::size_of::<CounterValue>())
            .sum();
        rows + values + self.values.heap_bytes()
    }

    /// Problems worked around.
    pub fn warnings(&self) -> &[Problem] {
        &self.table.warnings
    }

    /// The time column (`Time`, or `KernelTime` in sprofile files), in ms.
    pub fn time_column(&self) -> Option<usize> {
        self.table
            .column("Time")
            .or_else(|| self.table.column("KernelTime"))
    }

    /// The values of column `index` across rows (for a bar chart of one counter).
    pub fn column_values(&self, index: usize) -> Vec<Option<f64>> {
        self.rows
            .iter()
            .map(|r| r.values.get(index).and_then(CounterValue::as_f64))
            .collect()
    }

    /// Per kernel (and device): dispatches with a time, total and average time, in order of
    /// first appearance.
    pub fn aggregates(&self) -> Vec<KernelAggregate> {
        let Some(time) = self.time_column() else {
            return Vec::new();
        };
        let mut out: Vec<KernelAggregate> = Vec::new();
        let mut index: HashMap<(&str, Option<&str>), usize> = HashMap::new();
        for row in &self.rows {
            let Some(ms) = row.values.get(time).and_then(CounterValue::as_f64) else {
                continue;
            };
            let key = (&*row.kernel, row.device.as_deref());
            match index.get(&key).and_then(|&i| out.get_mut(i)) {
                Some(a) => {
                    a.dispatches += 1;
                    a.total_time_ms += ms;
                }
                None => {
                    index.insert(key, out.len());
                    out.push(KernelAggregate {
                        kernel: row.kernel.to_string(),
                        device: row.device.as_deref().map(str::to_owned),
                        dispatches: 1,
                        total_time_ms: ms,
                        average_time_ms: 0.0,
                    });
                }
            }
        }
        for a in &mut out {
            a.average_time_ms = a.total_time_ms / a.dispatches as f64;
        }
        out
    }

    /// The row of the dispatch made by call `call_index` of thread `thread_id` (the
    /// `ThreadID`/`CallIndex` columns), to join with a trace.
    pub fn row_for_call(&self, thread_id: u64, call_index: u64) -> Option<&CounterRow> {
        let thread = self.table.column("ThreadID")?;
        let call = self.table.column("CallIndex")?;
        let matches = |v: Option<&CounterValue>, want: u64| {
            v.and_then(CounterValue::as_f64) == Some(want as f64)
        };
        self.rows.iter().find(|r| {
            matches(r.values.get(thread), thread_id) && matches(r.values.get(call), call_index)
        })
    }
}

/// Device names of the header's `#Device <name> <property>=` lines, in order.
fn header_devices(table: &ProfileTable) -> Vec<String> {
    let mut devices: Vec<String> = Vec::new();
    for (key, _) in &table.header {
        if let Some(rest) = key.strip_prefix("Device ")
            && let Some(name) = rest.split_whitespace().next()
            && !devices.iter().any(|d| d == name)
        {
            devices.push(name.to_string());
        }
    }
    devices
}

/// Splits `Method` = kernel name + `__k<id>_<device><n>`; the device is matched against the
/// header's devices first, else it is the suffix without its trailing digits.
pub fn split_method(method: &str, devices: &[String]) -> (String, Option<u32>, Option<String>) {
    let whole = || (unescape(method).into_owned(), None, None);
    let Some(at) = method.rfind("__k") else {
        return whole();
    };
    let after = &method[at + 3..];
    let digits = after.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 || !after[digits..].starts_with('_') || at == 0 {
        return whole();
    }
    let Ok(id) = after[..digits].parse::<u32>() else {
        return whole();
    };
    let suffix = &after[digits + 1..];
    let device = devices
        .iter()
        .filter(|d| {
            suffix.starts_with(d.as_str()) && suffix[d.len()..].chars().all(|c| c.is_ascii_digit())
        })
        .max_by_key(|d| d.len())
        .cloned()
        .or_else(|| {
            let stripped = suffix.trim_end_matches(|c: char| c.is_ascii_digit());
            let name = if stripped.is_empty() {
                suffix
            } else {
                stripped
            };
            (!name.is_empty()).then(|| name.to_string())
        });
    (
        unescape(&method[..at]).into_owned(),
        Some(id),
        device.map(|d| unescape(&d).into_owned()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn method_split() {
        let devices = vec!["Hawaii".to_string()];
        assert_eq!(
            split_method("multdensity__k2_Hawaii1", &devices),
            ("multdensity".into(), Some(2), Some("Hawaii".into()))
        );
        assert_eq!(
            split_method("k__k12_gfx9031", &["gfx903".to_string()]),
            ("k".into(), Some(12), Some("gfx903".into()))
        );
        assert_eq!(
            split_method("diagSpMV", &devices),
            ("diagSpMV".into(), None, None)
        );
        assert_eq!(
            split_method("a&nbsp;b__k3_Fiji1", &[]),
            ("a b".into(), Some(3), Some("Fiji".into()))
        );
    }

    #[test]
    fn the_file_reader_reports_the_bytes_read_and_stops_on_cancel() {
        use crate::core::{FnSink, Progress, Step, Unit};
        use std::sync::atomic::{AtomicBool, Ordering};

        let mut text = String::from("#ProfilerVersion=5.1\nMethod,ExecutionOrder,KernelTime\n");
        let mut n = 0;
        while text.len() < (9 << 20) {
            n += 1;
            text.push_str(&format!("vadd__k{n}_Tahiti1,{n},{}.5\n", n % 97));
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.csv");
        std::fs::write(&path, &text).unwrap();
        let mut steps = Vec::new();
        let sink =
            FnSink::new(|s: &Step<'_>| steps.push((s.stage.to_owned(), s.done, s.total, s.unit)));
        let file = CounterFile::open_with(&path, Progress::new(&sink)).unwrap();
        assert_eq!(file.rows.len(), n);
        assert_eq!(file.rows, CounterFile::open(&path).unwrap().rows);
        assert_eq!(steps.len(), 3, "0, 4 and 8 MiB: {steps:?}");
        assert_eq!(steps[0].1, 0);
        assert!(steps.windows(2).all(|w| w[0].1 < w[1].1));
        for (stage, _, total, unit) in &steps {
            assert_eq!(
                (stage.as_str(), *total, *unit),
                (super::super::STAGE, text.len() as u64, Unit::Bytes)
            );
        }
        // Cancelled at the second report: no file.
        let cancel = AtomicBool::new(false);
        let mut reports = 0;
        let sink = FnSink::new(|_: &Step<'_>| {
            reports += 1;
            cancel.store(reports == 2, Ordering::Relaxed);
        })
        .with_cancel(&cancel);
        let result = CounterFile::open_with(&path, Progress::new(&sink));
        assert!(
            matches!(result, Err(CodexlError::Cancelled(_))),
            "{result:?}"
        );
        assert_eq!(reports, 2);
    }
}
