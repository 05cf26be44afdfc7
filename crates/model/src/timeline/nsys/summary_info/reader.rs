//! Reading the Analysis Summary's tables leniently: each row through
//! [`ExportDb::scan_around_damage`] with the columns the table has (`NULL` for the others);
//! a value of the wrong type is counted per table and column and reported once.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use rusqlite::Row;

use super::{
    AnalysisFile, AnalysisSpan, AnalysisSummary, CudaContext, CudaDevice, CudaStream, EnvSource,
    EnvVar, Launch, LogicalCpu, Nic, ProcessOutput, SystemProperty,
};
use crate::problem::{Location, Problem};
use crate::timeline::nsys::damage::Readable;
use crate::timeline::nsys::db::{ExportDb, int_of, quote_ident, text_of};

/// The tables [`read`] reads whole (their rows are attached in the import statistics).
pub const TABLES: &[&str] = &[
    "META_DATA_CAPTURE",
    "TARGET_INFO_SYSTEM_ENV",
    "TARGET_INFO_NIC_INFO",
    "TARGET_INFO_CUDA_CONTEXT_INFO",
    "TARGET_INFO_CUDA_STREAM",
    "TARGET_INFO_CUDA_NULL_STREAM",
    "TARGET_INFO_NVTX_CUDA_STREAM",
    "TARGET_INFO_CUDA_DEVICE",
    "ANALYSIS_DETAILS",
    "ANALYSIS_FILE",
    "TARGET_INFO_SESSION_START_TIME",
    "ProcessStreams",
    "META_DATA_EXPORT",
    "EXPORT_META_DATA",
    "ENUM_NET_DEVICE_ID",
    "ENUM_NET_VENDOR_ID",
    "ENUM_NET_LINK_TYPE",
    "ENUM_CUPTI_STREAM_TYPE",
];

/// What [`read`] found: the summary, the problems met, and what damaged pages lost.
#[derive(Debug, Default)]
pub struct SummaryRead {
    /// The summary.
    pub summary: AnalysisSummary,
    /// Values of the wrong type (one problem per table and column) and unreadable tables.
    pub problems: Vec<Problem>,
    /// Tables with damaged pages, with what could be read of them.
    pub damaged: Vec<(String, Arc<Readable>)>,
}

/// Values of one column that could not be read for one reason: how many, the first rowid
/// and value.
struct Odd {
    count: u64,
    rowid: Option<i64>,
    example: String,
}

/// The state of a read: the export, the odd values met, and the result.
struct Reading<'a> {
    db: &'a ExportDb,
    odd: BTreeMap<(String, &'static str, &'static str), Odd>,
    out: SummaryRead,
}

/// One row of a table being read: its cells by the position of the column asked for.
struct Cells<'r, 'o> {
    row: &'r Row<'r>,
    table: &'r str,
    columns: &'r [&'static str],
    rowid: Option<i64>,
    odd: &'o mut BTreeMap<(String, &'static str, &'static str), Odd>,
}

impl Cells<'_, '_> {
    /// Column `i` as text (numbers printed; `None` for NULL).
    fn text(&self, i: usize) -> Option<String> {
        self.row.get_ref(i + 1).ok().and_then(text_of)
    }

    /// Column `i` as text, empty for NULL.
    fn text_or_empty(&self, i: usize) -> String {
        self.text(i).unwrap_or_default()
    }

    /// Column `i` as an integer; `None` for NULL, and for a value that is not one (counted).
    fn int(&mut self, i: usize) -> Option<i64> {
        let value = self.row.get_ref(i + 1).ok()?;
        if matches!(value, rusqlite::types::ValueRef::Null) {
            return None;
        }
        let n = int_of(value);
        if n.is_none() {
            let example = text_of(value).unwrap_or_default();
            self.note(self.columns[i], example, "is not an integer");
        }
        n
    }

    /// Counts an odd value of `column`.
    fn note(&mut self, column: &'static str, example: String, what: &'static str) {
        let odd = self
            .odd
            .entry((self.table.to_owned(), column, what))
            .or_insert(Odd {
                count: 0,
                rowid: self.rowid,
                example,
            });
        odd.count += 1;
    }
}

/// Reads the Analysis Summary of `db`. Never fails: what cannot be read is a problem.
pub fn read(db: &ExportDb) -> SummaryRead {
    let mut r = Reading {
        db,
        odd: BTreeMap::new(),
        out: SummaryRead::default(),
    };
    r.capture();
    r.system();
    r.nics();
    r.cuda();
    r.cuda_devices();
    r.analysis();
    r.start_time();
    r.outputs();
    r.files();
    r.export();
    r.out.summary.views = db.views_not_read();
    for ((table, column, what), odd) in std::mem::take(&mut r.odd) {
        let mut example = odd.example;
        if example.chars().count() > 40 {
            example = example.chars().take(40).collect::<String>() + "…";
        }
        r.out.problems.push(Problem::warning(
            Location::Row {
                table,
                rowid: odd.rowid,
            },
            format!(
                "{} rows: {column} {what} (the first: \"{example}\"): left out of the analysis summary",
                odd.count
            ),
        ));
    }
    r.out
}

impl Reading<'_> {
    /// Calls `each` with every row of `table` (`columns` it lacks read as NULL); nothing for a
    /// missing table, a problem for one that does not read.
    fn rows(
        &mut self,
        table: &str,
        columns: &[&'static str],
        mut each: impl FnMut(&mut Cells<'_, '_>),
    ) {
        if !self.db.has_table(table) {
            return;
        }
        let sql = format!(
            "SELECT rowid, {} FROM {}",
            self.db.cols_or_null(table, columns),
            quote_ident(table)
        );
        let odd = &mut self.odd;
        let scanned = self.db.scan_around_damage(table, &sql, |row| {
            let rowid = row.get_ref(0).ok().and_then(int_of);
            each(&mut Cells {
                row,
                table,
                columns,
                rowid,
                odd,
            });
            Ok(())
        });
        match scanned {
            Ok(None) => {}
            Ok(Some(readable)) => self.out.damaged.push((table.to_owned(), readable)),
            Err(e) => self.out.problems.push(Problem::warning(
                Location::Row {
                    table: table.to_owned(),
                    rowid: None,
                },
                format!("{e}: left out of the analysis summary"),
            )),
        }
    }

    /// The `id → label` map of an `ENUM_*` table (empty without it).
    fn labels(&mut self, table: &str) -> HashMap<i64, String> {
        let mut out = HashMap::new();
        self.rows(table, &["id", "label"], |c| {
            if let (Some(id), Some(label)) = (c.int(0), c.text(1)) {
                out.insert(id, label);
            }
        });
        out
    }

    /// `META_DATA_CAPTURE`: the settings, and the `PROCESS_N:` rows as launches.
    fn capture(&mut self) {
        let mut rows = Vec::new();
        self.rows("META_DATA_CAPTURE", &["name", "value"], |c| {
            rows.push((c.text_or_empty(0), c.text_or_empty(1)));
        });
        let mut launches: BTreeMap<u32, (Launch, Vec<(u64, String)>)> = BTreeMap::new();
        for (name, value) in rows {
            let Some((n, key)) = process_key(&name) else {
                self.out.summary.capture.push((name, value));
                continue;
            };
            let (launch, args) = launches.entry(n).or_insert_with(|| {
                let launch = Launch {
                    index: n,
                    ..Launch::default()
                };
                (launch, Vec::new())
            });
            match key {
                "COMMAND" => launch.command = value,
                "WORKING_DIR" => launch.working_dir = Some(value),
                "PID" => launch.pid = Some(value),
                "ENVIRONMENT_VARIABLE" => {
                    if let Some((name, v)) = value.split_once('=') {
                        self.out.summary.environment.variables.push(EnvVar {
                            source: EnvSource::Process(n),
                            name: name.to_owned(),
                            value: unquote(v).to_owned(),
                        });
                    }
                }
                _ => match key.strip_prefix("ARGUMENT_").map(str::parse::<u64>) {
                    Some(Ok(k)) => args.push((k, value)),
                    _ => launch.settings.push((key.to_owned(), value)),
                },
            }
        }
        for (_, (mut launch, mut args)) in launches {
            args.sort_by_key(|(k, _)| *k);
            launch.arguments = args.into_iter().map(|(_, a)| a).collect();
            self.out.summary.launches.push(launch);
        }
    }

    /// `TARGET_INFO_SYSTEM_ENV`: every property, the CPU, and `DeviceEnvironment`'s variables.
    fn system(&mut self) {
        let mut props = Vec::new();
        let mut cores = None;
        let mut speed = None;
        let mut cpu_info = None;
        self.rows(
            "TARGET_INFO_SYSTEM_ENV",
            &["devStateName", "name", "value"],
            |c| {
                let prop = SystemProperty {
                    device: c.text_or_empty(0),
                    name: c.text_or_empty(1),
                    value: c.text_or_empty(2),
                };
                match prop.name.as_str() {
                    "CpuCores" => {
                        cores = prop.value.trim().parse::<i64>().ok();
                        if cores.is_none() {
                            c.note("value", prop.value.clone(), "of CpuCores is not an integer");
                        }
                    }
                    "CpuSpeedMhz" => {
                        speed = prop
                            .value
                            .trim()
                            .parse::<f64>()
                            .ok()
                            .filter(|f| f.is_finite());
                        if speed.is_none() {
                            c.note(
                                "value",
                                prop.value.clone(),
                                "of CpuSpeedMhz is not a number",
                            );
                        }
                    }
                    _ => {}
                }
                if prop.name == "CpuInfo" && !prop.value.trim().is_empty() {
                    match logical_cpus(&prop.value) {
                        Some(list) => cpu_info = Some(list),
                        None => c.note(
                            "value",
                            prop.value.clone(),
                            "of CpuInfo is not the JSON of its CPUs",
                        ),
                    }
                }
                props.push(prop);
            },
        );
        let summary = &mut self.out.summary;
        summary.cpu.cores = cores;
        summary.cpu.speed_mhz = speed;
        summary.cpu.logical = cpu_info.unwrap_or_default();
        for p in &props {
            let value = || Some(p.value.clone()).filter(|v| !v.trim().is_empty());
            match p.name.as_str() {
                "CpuDescription" => summary.cpu.description = value(),
                "CpuArchitecture" => summary.cpu.architecture = value(),
                "DeviceEnvironment" => summary.environment.variables.extend(
                    split_environment(&p.value)
                        .into_iter()
                        .map(|(name, value)| EnvVar {
                            source: EnvSource::System,
                            name: name.to_owned(),
                            value: value.to_owned(),
                        }),
                ),
                _ => {}
            }
        }
        summary.environment.system = props;
    }

    /// `TARGET_INFO_NIC_INFO`, labelled by the `ENUM_NET_*` tables.
    fn nics(&mut self) {
        if !self.db.has_table("TARGET_INFO_NIC_INFO") {
            return;
        }
        let devices = self.labels("ENUM_NET_DEVICE_ID");
        let mut vendors = self.labels("ENUM_NET_VENDOR_ID");
        // The one vendor the exports' tables name, for exports without the table.
        vendors
            .entry(5555)
            .or_insert_with(|| "NVIDIA / Mellanox".into());
        let links = self.labels("ENUM_NET_LINK_TYPE");
        let mut nics = Vec::new();
        let columns = [
            "nicId",
            "name",
            "stateName",
            "GUID",
            "deviceId",
            "vendorId",
            "linkLayer",
        ];
        self.rows("TARGET_INFO_NIC_INFO", &columns, |c| {
            let label = |map: &HashMap<i64, String>, v: Option<i64>, what: &str| match v {
                Some(v) => map
                    .get(&v)
                    .cloned()
                    .unwrap_or_else(|| format!("{what} {v:#06x}")),
                None => String::new(),
            };
            let link = c.int(6).map(|v| {
                links.get(&v).cloned().unwrap_or_else(|| {
                    usize::try_from(v)
                        .ok()
                        .and_then(|i| ["Unknown NIC", "Ethernet NIC", "InfiniBand NIC"].get(i))
                        .map_or_else(|| format!("link layer {v}"), |s| (*s).to_owned())
                })
            });
            nics.push(Nic {
                id: c.int(0),
                name: c.text_or_empty(1),
                state: c.text_or_empty(2),
                guid: c.int(3),
                device: label(&devices, c.int(4), "device"),
                vendor: label(&vendors, c.int(5), "vendor"),
                link_layer: link.unwrap_or_default(),
            });
        });
        self.out.summary.nics = nics;
    }

    /// The CUDA contexts and streams, with the names NVTX gave streams.
    fn cuda(&mut self) {
        let mut contexts = Vec::new();
        let columns = [
            "processId",
            "contextId",
            "deviceId",
            "nullStreamId",
            "parentContextId",
            "isGreenContext",
        ];
        self.rows("TARGET_INFO_CUDA_CONTEXT_INFO", &columns, |c| {
            contexts.push(CudaContext {
                process_id: c.int(0),
                context_id: c.int(1),
                device_id: c.int(2),
                null_stream_id: c.int(3),
                parent_context_id: c.int(4),
                green: c.int(5).is_some_and(|g| g != 0),
            });
        });
        self.out.summary.contexts = contexts;
        let mut names = HashMap::new();
        let key_columns = ["processId", "contextId", "streamId", "name"];
        self.rows("TARGET_INFO_NVTX_CUDA_STREAM", &key_columns, |c| {
            if let Some(name) = c.text(3) {
                names.insert((c.int(0), c.int(1), c.int(2)), name);
            }
        });
        let kinds = self.labels("ENUM_CUPTI_STREAM_TYPE");
        let kind = |flag: Option<i64>| match flag {
            Some(f) => kinds.get(&f).cloned().unwrap_or_else(|| {
                [
                    "Unknown stream type",
                    "Default stream",
                    "Non-blocking stream",
                    "Null stream",
                ]
                .get(usize::try_from(f).unwrap_or(usize::MAX))
                .map_or_else(|| format!("flag {f}"), |s| (*s).to_owned())
            }),
            None => String::new(),
        };
        let mut streams = Vec::new();
        let columns = ["processId", "contextId", "streamId", "priority", "flag"];
        self.rows("TARGET_INFO_CUDA_STREAM", &columns, |c| {
            let key = (c.int(0), c.int(1), c.int(2));
            streams.push(CudaStream {
                process_id: key.0,
                context_id: key.1,
                stream_id: key.2,
                // Written as an unsigned 32-bit number.
                priority: c
                    .int(3)
                    .map(|p| u32::try_from(p).map_or(p, |u| i64::from(u.cast_signed()))),
                kind: kind(c.int(4)),
                name: names.get(&key).cloned(),
            });
        });
        let listed: std::collections::HashSet<_> = streams
            .iter()
            .map(|s| (s.process_id, s.context_id, s.stream_id))
            .collect();
        let null_kind = kind(Some(3));
        self.rows("TARGET_INFO_CUDA_NULL_STREAM", &key_columns[..3], |c| {
            let key = (c.int(0), c.int(1), c.int(2));
            if !listed.contains(&key) {
                streams.push(CudaStream {
                    process_id: key.0,
                    context_id: key.1,
                    stream_id: key.2,
                    priority: None,
                    kind: null_kind.clone(),
                    name: names.get(&key).cloned(),
                });
            }
        });
        self.out.summary.streams = streams;
    }

    /// `ANALYSIS_DETAILS`.
    fn analysis(&mut self) {
        let mut spans = Vec::new();
        let columns = ["globalVid", "startTime", "stopTime", "duration"];
        self.rows("ANALYSIS_DETAILS", &columns, |c| {
            spans.push(AnalysisSpan {
                global_vid: c.int(0),
                start: c.int(1),
                stop: c.int(2),
                duration: c.int(3),
            });
        });
        self.out.summary.analysis = spans;
    }

    /// `TARGET_INFO_SESSION_START_TIME`'s texts (its first row).
    fn start_time(&mut self) {
        let mut first = None;
        let table = "TARGET_INFO_SESSION_START_TIME";
        self.rows(table, &["utcTime", "localTime"], |c| {
            first.get_or_insert((c.text(0), c.text(1)));
        });
        self.out.summary.start_time = first.unwrap_or_default();
    }

    /// `ProcessStreams`: each stream's file name and text from `StringIds`.
    fn outputs(&mut self) {
        let table = "ProcessStreams";
        if !self.db.has_table(table) {
            return;
        }
        let mut ids = Vec::new();
        self.rows(table, &["globalPid", "filenameId", "contentId"], |c| {
            ids.push((c.int(0), c.int(1), c.int(2)));
        });
        let strings = self.strings(ids.iter().flat_map(|(_, f, c)| [*f, *c]).flatten());
        let text = |id: Option<i64>| {
            id.and_then(|i| strings.get(&i).cloned())
                .unwrap_or_default()
        };
        self.out.summary.outputs = ids
            .into_iter()
            .map(|(pid, file, content)| ProcessOutput {
                global_pid: pid,
                file: text(file),
                content: text(content),
            })
            .collect();
    }

    /// The texts of `ids` in `StringIds` (an id it lacks is left out).
    fn strings(&self, ids: impl Iterator<Item = i64>) -> HashMap<i64, String> {
        let mut strings = HashMap::new();
        if !self.db.has_column("StringIds", "id") || !self.db.has_column("StringIds", "value") {
            return strings;
        }
        let wanted: std::collections::HashSet<i64> = ids.collect();
        let Ok(mut stmt) = self
            .db
            .conn
            .prepare("SELECT value FROM StringIds WHERE id = ?1")
        else {
            return strings;
        };
        for id in wanted {
            if let Ok(Some(text)) =
                stmt.query_row([id], |r| Ok(r.get_ref(0).ok().and_then(text_of)))
            {
                strings.insert(id, text);
            }
        }
        strings
    }

    /// `TARGET_INFO_CUDA_DEVICE` (`uuid` and `numMultiprocessors` since 2026.1).
    fn cuda_devices(&mut self) {
        let mut devices = Vec::new();
        let columns = ["gpuId", "cudaId", "pid", "uuid", "numMultiprocessors"];
        self.rows("TARGET_INFO_CUDA_DEVICE", &columns, |c| {
            devices.push(CudaDevice {
                gpu_id: c.int(0),
                cuda_id: c.int(1),
                pid: c.int(2),
                uuid: c.text(3).filter(|u| !u.is_empty()),
                multiprocessors: c.int(4),
            });
        });
        self.out.summary.cuda_devices = devices;
    }

    /// `ANALYSIS_FILE`: each file's name and text (inline `content`, or `contentId` into
    /// `StringIds`).
    fn files(&mut self) {
        let mut rows = Vec::new();
        let columns = ["id", "filename", "globalPid", "content", "contentId"];
        self.rows("ANALYSIS_FILE", &columns, |c| {
            rows.push((
                AnalysisFile {
                    id: c.int(0),
                    file: c.text_or_empty(1),
                    global_pid: c.int(2),
                    content: c.text_or_empty(3),
                },
                c.int(4),
            ));
        });
        let strings = self.strings(rows.iter().filter_map(|(_, id)| *id));
        self.out.summary.files = rows
            .into_iter()
            .map(|(mut f, id)| {
                if let Some(text) = id.and_then(|i| strings.get(&i)) {
                    f.content.clone_from(text);
                }
                f
            })
            .collect();
    }

    /// `META_DATA_EXPORT`, else `EXPORT_META_DATA`.
    fn export(&mut self) {
        for table in ["META_DATA_EXPORT", "EXPORT_META_DATA"] {
            if !self.db.has_table(table) {
                continue;
            }
            let mut rows = Vec::new();
            self.rows(table, &["name", "value"], |c| {
                rows.push((c.text_or_empty(0), c.text_or_empty(1)));
            });
            self.out.summary.export = rows;
            self.out.summary.export_table = Some(table.to_owned());
            return;
        }
    }
}

/// `PROCESS_3:COMMAND` → (3, "COMMAND").
fn process_key(name: &str) -> Option<(u32, &str)> {
    let rest = name.strip_prefix("PROCESS_")?;
    let (n, key) = rest.split_once(':')?;
    Some((n.parse().ok()?, key))
}

/// A value without the double quotes `META_DATA_CAPTURE` writes around it.
fn unquote(v: &str) -> &str {
    v.strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(v)
}

/// `CpuInfo`'s JSON (`{"items":[{"cpuid":0,"socket":0,"maxfreqhz":…},…]}`) as logical CPUs;
/// `None` when it is not that.
fn logical_cpus(json: &str) -> Option<Vec<LogicalCpu>> {
    let value: serde_json::Value = serde_json::from_str(json).ok()?;
    let items = value.get("items")?.as_array()?;
    Some(
        items
            .iter()
            .map(|item| LogicalCpu {
                id: item.get("cpuid").and_then(serde_json::Value::as_i64),
                socket: item.get("socket").and_then(serde_json::Value::as_i64),
                max_freq_hz: item.get("maxfreqhz").and_then(serde_json::Value::as_i64),
            })
            .collect(),
    )
}

/// The variables of `DeviceEnvironment`: `NAME=value` joined by `;`. A `;` is taken as a
/// separator only when what follows starts a new `NAME=` (a name of letters, digits and `_`
/// not starting with a digit): values hold `;` too (`LS_COLORS=rs=0:di=01;34:…`).
pub fn split_environment(text: &str) -> Vec<(&str, &str)> {
    let starts_variable = |s: &str| {
        let Some((name, _)) = s.split_once('=') else {
            return false;
        };
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let mut cuts = vec![0];
    for (i, _) in text.match_indices(';') {
        if starts_variable(&text[i + 1..]) {
            cuts.push(i + 1);
        }
    }
    cuts.push(text.len() + 1);
    cuts.windows(2)
        .map(move |w| &text[w[0]..(w[1] - 1).min(text.len())])
        .filter_map(|var| var.split_once('='))
        .filter(|(name, _)| !name.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment_splits_only_before_a_new_name() {
        let vars: Vec<_> = split_environment("A=1;LS_COLORS=rs=0:di=01;34:ln=01;B_2=x;y;_C=");
        assert_eq!(
            vars,
            vec![
                ("A", "1"),
                ("LS_COLORS", "rs=0:di=01;34:ln=01"),
                ("B_2", "x;y"),
                ("_C", "")
            ]
        );
        assert!(split_environment("").is_empty());
        assert_eq!(
            split_environment("SLURM_GPUS_PER_TASK=1"),
            vec![("SLURM_GPUS_PER_TASK", "1")]
        );
    }

    #[test]
    fn process_keys_and_quotes() {
        assert_eq!(
            process_key("PROCESS_12:ARGUMENT_3"),
            Some((12, "ARGUMENT_3"))
        );
        assert_eq!(process_key("PROCESS_X:COMMAND"), None);
        assert_eq!(process_key("RATE_HZ"), None);
        assert_eq!(unquote("\"a b\""), "a b");
        assert_eq!(unquote("\"{}\""), "{}");
        assert_eq!(unquote("plain"), "plain");
    }

    #[test]
    fn command_lines_quote_what_a_shell_would_split() {
        let launch = Launch {
            command: "python".into(),
            arguments: vec![
                "a b.py".into(),
                "--n=1".into(),
                String::new(),
                "it's".into(),
            ],
            ..Launch::default()
        };
        assert_eq!(launch.command_line(), "python 'a b.py' --n=1 '' 'it'\\''s'");
    }

    #[test]
    fn cpu_info_json() {
        let cpus = logical_cpus(
            r#"{"items":[{"cpuid":0,"socket":0,"maxfreqhz":4000000000},{"cpuid":1,"socket":1}]}"#,
        )
        .unwrap();
        assert_eq!(cpus.len(), 2);
        assert_eq!(cpus[0].max_freq_hz, Some(4_000_000_000));
        assert_eq!(cpus[1].socket, Some(1));
        assert_eq!(cpus[1].max_freq_hz, None);
        assert!(logical_cpus("\n\u{1}").is_none());
        assert!(logical_cpus("[1,2]").is_none());
    }
}
