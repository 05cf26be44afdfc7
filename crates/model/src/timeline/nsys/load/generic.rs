//! Every other timed table onto the timeline: a table with a time column (`start`, with `end`
//! when it has one; `timestamp`; `startedAt`/`endedAt`) whose rows the specific loaders do not
//! read is drawn as ranges (or instants) on a row of its own — under the row's thread
//! (`globalTid`), process (`globalPid`, or a `globalTid` without a thread), GPU (`deviceId`,
//! `gpu`, `cuDeviceId`) or, with none of those, in a "Diagnostics and other events" group —
//! named by the row's `nameId` (or ETW's `taskName`/`providerName`) or `text` when it has one. Profiler overhead, OpenACC, OpenMP,
//! diagnostics, CUDA overhead, CUDA memory allocations, graphics APIs and their workloads,
//! FECS, SLI, ETW and generic events, and tables of newer versions or other tools all arrive
//! here. Generic events (ftrace and the like) are named by their type and grouped by their
//! source, from the JSON descriptions of `GENERIC_EVENT_TYPES` and `GENERIC_EVENT_SOURCES`
//! ([`json_name`]).

use std::collections::HashMap;

use super::graph_nodes::{GRAPH_NODES, GraphNode};
use super::{Loader, integer, rowid};
use crate::timeline::builder::NewEvent;
use crate::timeline::model::EventKind;
use crate::timeline::nsys::NsysError;
use crate::timeline::nsys::db::{int_of, split_global_id, text_of};
use crate::timeline::strings::StrId;

/// Tables read by the specific loaders, or not events at all.
const NOT_GENERIC: &[&str] = &[
    "CUPTI_ACTIVITY_KIND_RUNTIME",
    "CUPTI_ACTIVITY_KIND_KERNEL",
    "CUPTI_ACTIVITY_KIND_MEMCPY",
    "CUPTI_ACTIVITY_KIND_MEMSET",
    "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
    "CUPTI_ACTIVITY_KIND_GRAPH_TRACE",
    "OSRT_API",
    "CUBLAS_EVENTS",
    "CUDNN_EVENTS",
    "NVTX_EVENTS",
    "COMPOSITE_EVENTS",
    "SCHED_EVENTS",
    // A record of a cudaEventRecord call: no time of its own (2026.1 writes 0); attached to
    // its call (load/api.rs).
    "CUPTI_ACTIVITY_KIND_CUDA_EVENT",
    // Which file each file-access id is: descriptions, not events.
    "OSRT_FILE_ACCESS_DESCRIPTORS",
    // Levels over time: counter tracks.
    "GPU_MEMORY_USAGE_EVENTS",
    "GPU_MEMORY_BUDGET_EVENTS",
    "TOTAL_BYTES_RESIDENT_IN_SEGMENT_EVENTS",
    // GPU metrics: counter tracks (load/metrics.rs).
    "GPU_METRICS",
    // Generic events: load/generic_events.rs.
    "GENERIC_EVENTS",
];

/// The row label of a table's events ("OpenACC launch", "Profiler overhead"), or the table's
/// name.
pub(super) fn family(table: &str) -> String {
    let label = match table {
        "PROFILER_OVERHEAD" => "Profiler overhead",
        "CUPTI_ACTIVITY_KIND_OVERHEAD" => "CUDA overhead",
        "DIAGNOSTIC_EVENT" => "Diagnostics",
        "CUDA_GPU_MEMORY_USAGE_EVENTS" => "CUDA memory allocations",
        "CUDA_GRAPH_EVENTS" => "CUDA graph node creation",
        "CUDA_UM_CPU_PAGE_FAULT_EVENTS" => "Unified memory CPU page faults",
        "CUDA_UM_GPU_PAGE_FAULT_EVENTS" => "Unified memory GPU page faults",
        "NVVIDEO_ENCODER_API" => "NVENC API",
        "NVVIDEO_DECODER_API" => "NVDEC API",
        "NVVIDEO_JPEG_API" => "nvJPEG API",
        "OSRT_FILE_ACCESS_EVENTS" => "File access",
        "OPENGL_API" => "OpenGL API",
        "OPENGL_WORKLOAD" => "OpenGL workload",
        "VULKAN_API" => "Vulkan API",
        "VULKAN_WORKLOAD" => "Vulkan workload",
        "VULKAN_PIPELINE_CREATION_EVENTS" => "Vulkan pipeline creation",
        "VULKAN_PIPELINE_STAGE_EVENTS" => "Vulkan pipeline stages",
        "DX12_API" => "DX12 API",
        "DX12_WORKLOAD" => "DX12 workload",
        "FECS_EVENTS" => "FECS context switches",
        "SLI_QUERIES" => "SLI queries",
        "SLI_P2P" => "SLI peer-to-peer",
        "SLI_STATS" => "SLI statistics",
        "ETW_EVENTS" => "ETW events",
        "GENERIC_EVENTS" => "Generic events",
        t => {
            let kind = |prefix: &str| {
                t.strip_prefix(prefix)
                    .map(|k| k.to_lowercase().replace('_', " "))
            };
            return match (
                kind("CUPTI_ACTIVITY_KIND_OPENACC_"),
                kind("OPENMP_EVENT_KIND_"),
            ) {
                (Some(k), _) => format!("OpenACC {k}"),
                (_, Some(k)) => format!("OpenMP {k}"),
                _ => t.to_owned(),
            };
        }
    };
    label.to_owned()
}

/// The descriptions of generic event types and their sources.
const TYPES: &str = "GENERIC_EVENT_TYPES";
const SOURCES: &str = "GENERIC_EVENT_SOURCES";

/// A generic event type: its name, and its source's (`None`: the type names no source).
pub(super) struct GenericType {
    pub name: Option<StrId>,
    pub source: Option<String>,
    /// The type's name as its description gives it.
    pub type_name: Option<String>,
    /// The time base of its source's raw timestamps (`"TimeSource"`: `"SessionNs"`...).
    pub time_source: Option<String>,
    /// The fields its description names.
    pub fields: Vec<String>,
}

/// A generic event source: its name and the time base of its raw timestamps.
#[derive(Clone, Default)]
struct GenericSource {
    name: Option<String>,
    time_source: Option<String>,
}

/// The value of the first key named `key` (any letter case) of a JSON object.
pub(super) fn json_key<'v>(
    value: &'v serde_json::Value,
    key: &str,
) -> Option<&'v serde_json::Value> {
    value
        .as_object()?
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(key))
        .map(|(_, v)| v)
}

/// The field names a type description lists: the elements (strings, or objects named by
/// [`json_name`]) of its first array under a key containing "field".
pub(super) fn json_fields(data: &str) -> Vec<String> {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(data) else {
        return Vec::new();
    };
    let Some(object) = value.as_object() else {
        return Vec::new();
    };
    object
        .iter()
        .filter(|(k, _)| k.to_ascii_lowercase().contains("field"))
        .find_map(|(_, v)| v.as_array())
        .map(|items| {
            items
                .iter()
                .filter_map(|item| match item {
                    serde_json::Value::String(s) => Some(s.clone()),
                    other => json_name(&other.to_string()),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The name a JSON description gives (the seed documents `data` only as "JSON encoded ...
/// description"): the first non-empty string among the keys `name`, `typeName`, `eventName`,
/// `displayName`, `title` and `label` (in any letter case), else of any key containing "name".
pub(super) fn json_name(data: &str) -> Option<String> {
    const KEYS: [&str; 6] = [
        "name",
        "typename",
        "eventname",
        "displayname",
        "title",
        "label",
    ];
    let value: serde_json::Value = serde_json::from_str(data).ok()?;
    let object = value.as_object()?;
    let text = |key: &String| {
        object
            .get(key)
            .and_then(serde_json::Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    KEYS.iter()
        .find_map(|want| {
            object
                .keys()
                .filter(|k| k.eq_ignore_ascii_case(want))
                .find_map(text)
        })
        .or_else(|| {
            object
                .keys()
                .filter(|k| k.to_ascii_lowercase().contains("name"))
                .find_map(text)
        })
        .map(str::to_owned)
}

/// How a table's rows are read: its time columns and the columns that place and name them.
struct Shape {
    start: &'static str,
    end: Option<&'static str>,
    thread: Option<&'static str>,
    process: Option<&'static str>,
    device: Option<&'static str>,
    /// A StringIds column that names the row.
    name_id: Option<&'static str>,
    text: bool,
}

impl Shape {
    fn of(columns: &[String]) -> Option<Shape> {
        let has = |c: &str| columns.iter().any(|x| x == c);
        let pick = |options: &[&'static str]| options.iter().copied().find(|c| has(c));
        let (start, end) = if has("start") {
            ("start", has("end").then_some("end"))
        } else if has("timestamp") {
            ("timestamp", None)
        } else if has("startedAt") {
            ("startedAt", has("endedAt").then_some("endedAt"))
        } else {
            return None;
        };
        Some(Shape {
            start,
            end,
            thread: pick(&["globalTid"]),
            process: pick(&["globalPid"]),
            device: pick(&["deviceId", "gpu", "cuDeviceId"]),
            name_id: pick(&["nameId", "taskName", "providerName"]),
            text: has("text"),
        })
    }

    /// The query of `table`'s rows: rowid, start, end, thread, process, device, name id,
    /// text and correlation id (`task_flow`), NULL where it has none, then the `extra`
    /// columns (from [`FIRST_FIELD`] on).
    fn sql(&self, table: &str, task_flow: bool, extra: &str) -> String {
        let column = |c: Option<&str>| c.map_or("NULL".to_owned(), |c| format!("\"{c}\""));
        format!(
            "SELECT rowid, \"{}\", {}, {}, {}, {}, {}, {}, {}{extra} FROM \"{}\"",
            self.start,
            column(self.end),
            column(self.thread),
            column(self.process),
            column(self.device),
            column(self.name_id),
            column(self.text.then_some("text")),
            column(task_flow.then_some("correlationId")),
            table.replace('"', "\"\"")
        )
    }
}

/// The column of the first field [`Shape::sql`] reads after its own.
const FIRST_FIELD: usize = 9;

/// Tables whose rows are drawn under their GPU (`deviceId`) though they name their process.
const ON_GPU: &[&str] = &["CUDA_UM_GPU_PAGE_FAULT_EVENTS"];

/// Where one row goes.
#[derive(Clone, Copy)]
pub(super) enum Place {
    Thread(i64),
    Process(i64),
    Device(i64),
    Elsewhere,
}

impl Place {
    /// The place of a row with these `globalTid`, `globalPid` and device values.
    pub(super) fn of(thread: Option<i64>, process: Option<i64>, device: Option<i64>) -> Place {
        match (thread, process, device) {
            (Some(tid), _, _) if tid > 0 && split_global_id(tid).2 != 0 => Place::Thread(tid),
            (Some(tid), _, _) if tid > 0 => Place::Process(tid),
            (_, Some(pid), _) if pid > 0 => Place::Process(pid),
            (_, _, Some(device)) => Place::Device(device),
            _ => Place::Elsewhere,
        }
    }
}

impl Loader<'_, '_> {
    /// Every timed table the specific loaders leave, in name order.
    pub(super) fn generic_tables(
        &mut self,
        metrics: &super::metrics::MetricNames,
    ) -> Result<(), NsysError> {
        let types = self.generic_event_types()?;
        if self.db.has_column("GENERIC_EVENTS", "typeId") {
            self.generic_events(&types, metrics)?;
        }
        let mut tables: Vec<String> = self
            .b
            .session
            .imports
            .sources
            .iter()
            .filter(|(name, s)| {
                s.events == 0
                    && s.attached == 0
                    && s.skipped.is_empty()
                    && !NOT_GENERIC.contains(&name.as_str())
            })
            .map(|(name, _)| name.clone())
            .collect();
        tables.sort();
        for table in tables {
            let columns = self.db.columns(&table).to_vec();
            if let Some(shape) = Shape::of(&columns) {
                self.generic_table(&table, &shape)?;
            }
        }
        Ok(())
    }

    /// The generic event types by `typeId`: each type's name and its source's row, from
    /// `GENERIC_EVENT_TYPES` and `GENERIC_EVENT_SOURCES` when the export has them (their rows
    /// are then attached: they name events).
    pub(super) fn generic_event_types(&mut self) -> Result<HashMap<i64, GenericType>, NsysError> {
        let mut sources: HashMap<i64, GenericSource> = HashMap::new();
        if self.db.has_column(SOURCES, "sourceId") && self.db.has_column(SOURCES, "data") {
            let sql = format!("SELECT rowid, sourceId, data FROM {SOURCES}");
            self.scan(SOURCES, &sql, |_, row| {
                let id = row.get_ref(1).ok().and_then(int_of);
                let data = row.get_ref(2).ok().and_then(text_of);
                if let (Some(id), Some(data)) = (id, data) {
                    let value = serde_json::from_str(&data).unwrap_or(serde_json::Value::Null);
                    let time_source = json_key(&value, "TimeSource")
                        .and_then(serde_json::Value::as_str)
                        .map(str::to_owned);
                    sources.insert(
                        id,
                        GenericSource {
                            name: json_name(&data),
                            time_source,
                        },
                    );
                }
                Ok(())
            })?;
            self.attach_rest(SOURCES);
        }
        let mut types = HashMap::new();
        if self.db.has_column(TYPES, "typeId") && self.db.has_column(TYPES, "data") {
            let source = self.db.col_or_null(TYPES, "sourceId");
            let sql = format!("SELECT rowid, typeId, {source}, data FROM {TYPES}");
            self.scan(TYPES, &sql, |l, row| {
                let v = |i| row.get_ref(i).ok().and_then(int_of);
                let Some(id) = v(1) else {
                    return Ok(());
                };
                let data = row.get_ref(3).ok().and_then(text_of);
                let name = data.as_deref().and_then(json_name);
                let known = v(2)
                    .and_then(|s| sources.get(&s))
                    .cloned()
                    .unwrap_or_default();
                let source = v(2).map(|s| match &known.name {
                    Some(name) => name.clone(),
                    None => format!("source {s}"),
                });
                types.insert(
                    id,
                    GenericType {
                        name: name.as_deref().map(|n| l.b.intern(n)),
                        source,
                        type_name: name,
                        time_source: known.time_source,
                        fields: data.as_deref().map(json_fields).unwrap_or_default(),
                    },
                );
                Ok(())
            })?;
            self.attach_rest(TYPES);
        }
        Ok(types)
    }

    fn generic_table(&mut self, table: &str, shape: &Shape) -> Result<(), NsysError> {
        // OpenMP task creations and task parts are linked by their correlation id.
        let task_flow = match table {
            "OPENMP_EVENT_KIND_TASK_CREATE" => Some(true),
            "OPENMP_EVENT_KIND_TASK" => Some(false),
            _ => None,
        }
        .filter(|_| self.db.has_column(table, "correlationId"));
        let (fields, extra, labels) = self.fields_to_keep(table);
        let on_gpu = ON_GPU.contains(&table);
        // Graph node creations, linked once read (`graph_nodes`).
        let mut nodes = Vec::new();
        let sql = shape.sql(table, task_flow.is_some(), &extra);
        let label = family(table);
        let key = self.tracks.generic_key(table);
        let table_name = self.b.intern(&label);
        let mut names: HashMap<i64, StrId> = HashMap::new();
        let kind = if shape.end.is_some() {
            EventKind::Range
        } else {
            EventKind::Marker
        };
        let before = self.b.event_count();
        self.scan(table, &sql, |l, row| {
            let v = |i| row.get_ref(i).ok().and_then(int_of);
            let start = integer(v(1), shape.start)?;
            // An end of 0 is "not ended" (OSRT_FILE_ACCESS_DESCRIPTORS-style); an instant then.
            let end = v(2).filter(|&e| e >= start).unwrap_or(start);
            let place = if on_gpu && v(5).is_some() {
                Place::of(None, None, v(5))
            } else {
                Place::of(v(3), v(4), v(5))
            };
            let name = match (v(6), row.get_ref(7).ok().and_then(text_of)) {
                (Some(id), _) => *names
                    .entry(id)
                    .or_insert_with(|| l.names.raw_name(&mut l.b, id)),
                (None, Some(text)) => l.b.intern(&text),
                (None, None) => table_name,
            };
            let track = l.tracks.generic(&mut l.b, &l.names, place, key, &label);
            l.b.session
                .series_sources
                .entry(track)
                .or_insert_with(|| table.to_owned());
            let correlation = v(8).and_then(|c| u32::try_from(c).ok()).unwrap_or(0);
            let r = l.b.push(
                track,
                NewEvent {
                    correlation,
                    ..NewEvent::new(kind, start, end, name, rowid(v(0)))
                },
            );
            if !fields.is_empty() {
                l.keep_fields(table, rowid(v(0)), row, FIRST_FIELD, (fields, &labels));
            }
            if table == GRAPH_NODES {
                nodes.push(GraphNode {
                    gtid: match place {
                        Place::Thread(gtid) => Some(gtid),
                        _ => None,
                    },
                    start,
                    end,
                    // `graphNodeId` is the first field of the table (`table_fields`).
                    id: row.get_ref(FIRST_FIELD).ok().and_then(int_of),
                    event: r,
                });
            }
            if let Some(create) = task_flow
                && correlation != 0
            {
                let process = v(3).or(v(4)).map(|g| {
                    let (m, pid, _) = split_global_id(g);
                    (m << 24) | pid
                });
                let key = l.flows.flow_key(process, correlation);
                if create {
                    l.flows.task_creates.push((key, r));
                } else {
                    l.flows.tasks.push((key, r));
                }
            }
            Ok(())
        })?;
        self.events_since(table, before);
        if table == GRAPH_NODES {
            self.link_graph_nodes(&nodes);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::json_name;

    #[test]
    fn names_from_json_descriptions() {
        assert_eq!(
            json_name(r#"{"Name":"sched_switch"}"#).as_deref(),
            Some("sched_switch")
        );
        assert_eq!(
            json_name(r#"{"id":3,"eventName":" irq "}"#).as_deref(),
            Some("irq")
        );
        // The preferred keys first, then any key with "name" in it.
        assert_eq!(
            json_name(r#"{"providerName":"ftrace","title":"Block I/O"}"#).as_deref(),
            Some("Block I/O")
        );
        assert_eq!(
            json_name(r#"{"providerName":"ftrace","fields":[]}"#).as_deref(),
            Some("ftrace")
        );
        assert_eq!(json_name(r#"{"name":"","x":1}"#), None);
        assert_eq!(json_name(r#"{"name":7}"#), None);
        assert_eq!(json_name("[1, 2]"), None);
        assert_eq!(json_name("not json"), None);
    }
}
