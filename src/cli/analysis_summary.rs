//! The `"analysis_summary"` of `sightline timeline --json`: an Nsight Systems export's
//! Analysis Summary (`nsys::summary_info`) as JSON, with the session's GPUs.
//!
//! ```text
//! {"capture": [{"name", "value"}],                       META_DATA_CAPTURE's settings
//!  "processes": [{"index", "command", "arguments": [..], "command_line", "working_dir", "pid",
//!                 "settings": [{"name", "value"}]}],     its PROCESS_N: rows
//!  "environment": {"system": [{"device", "name", "value"}],          TARGET_INFO_SYSTEM_ENV
//!                  "variables": [{"source", "name", "value"}]},      "target system" | "process N"
//!  "cpu": {"description", "architecture", "cores", "speed_mhz", "sockets",
//!          "logical": [{"id", "socket", "max_freq_hz"}]},
//!  "gpus": [{"id", "name", "properties": [{"name", "value"}]}],
//!  "nics": [{"id", "name", "state", "guid", "device", "vendor", "link_layer"}],
//!  "contexts": [{"process_id", "context_id", "device_id", "null_stream_id",
//!                "parent_context_id", "green"}],
//!  "streams": [{"process_id", "context_id", "stream_id", "priority", "kind", "name"}],
//!  "cuda_devices": [{"gpu_id", "cuda_id", "pid", "uuid", "multiprocessors"}],
//!                                                     TARGET_INFO_CUDA_DEVICE
//!  "analysis": [{"global_vid", "start", "stop", "duration"}],        ANALYSIS_DETAILS (ns)
//!  "start_time": {"utc", "local"},
//!  "outputs": [{"global_pid", "file", "content"}],                    ProcessStreams
//!  "files": [{"id", "file", "global_pid", "content"}],               ANALYSIS_FILE
//!  "export": {"table", "rows": [{"name", "value"}]},                  META_DATA_EXPORT
//!  "views_not_read": [..]}
//! ```
//! `null` for a timeline without any of it (NVTXT, CodeXL traces).

use serde_json::{Value, json};

use crate::timeline::SessionInfo;

/// `(name, value)` pairs as `[{"name", "value"}]`.
fn pairs(rows: &[(String, String)]) -> Value {
    rows.iter()
        .map(|(name, value)| json!({"name": name, "value": value}))
        .collect()
}

/// The session's Analysis Summary as JSON (`null` when it has none).
pub fn summary_json(session: &SessionInfo) -> Value {
    let s = &session.summary;
    if s.is_empty() && session.gpus.is_empty() {
        return Value::Null;
    }
    let processes: Vec<Value> = s
        .launches
        .iter()
        .map(|l| {
            json!({
                "index": l.index,
                "command": l.command,
                "arguments": l.arguments,
                "command_line": l.command_line(),
                "working_dir": l.working_dir,
                "pid": l.pid,
                "settings": pairs(&l.settings),
            })
        })
        .collect();
    let env = &s.environment;
    let system: Vec<Value> = env
        .system
        .iter()
        .map(|p| json!({"device": p.device, "name": p.name, "value": p.value}))
        .collect();
    let variables: Vec<Value> = env
        .variables
        .iter()
        .map(|v| json!({"source": v.source.label(), "name": v.name, "value": v.value}))
        .collect();
    let cpu = &s.cpu;
    let logical: Vec<Value> = cpu
        .logical
        .iter()
        .map(|c| json!({"id": c.id, "socket": c.socket, "max_freq_hz": c.max_freq_hz}))
        .collect();
    let gpus: Vec<Value> = session
        .gpus
        .iter()
        .map(|g| json!({"id": g.id, "name": g.name, "properties": pairs(&g.properties)}))
        .collect();
    json!({
        "capture": pairs(&s.capture),
        "processes": processes,
        "environment": {"system": system, "variables": variables},
        "cpu": {
            "description": cpu.description,
            "architecture": cpu.architecture,
            "cores": cpu.cores,
            "speed_mhz": cpu.speed_mhz,
            "sockets": cpu.sockets().len(),
            "logical": logical,
        },
        "gpus": gpus,
        "nics": devices_json(session),
        "contexts": contexts_json(session),
        "streams": streams_json(session),
        "cuda_devices": cuda_devices_json(session),
        "analysis": s.analysis.iter().map(|a| json!({
            "global_vid": a.global_vid,
            "start": a.start,
            "stop": a.stop,
            "duration": a.duration,
        })).collect::<Vec<_>>(),
        "start_time": {"utc": s.start_time.0, "local": s.start_time.1},
        "outputs": s.outputs.iter().map(|o| json!({
            "global_pid": o.global_pid,
            "file": o.file,
            "content": o.content,
        })).collect::<Vec<_>>(),
        "files": s.files.iter().map(|f| json!({
            "id": f.id,
            "file": f.file,
            "global_pid": f.global_pid,
            "content": f.content,
        })).collect::<Vec<_>>(),
        "export": {"table": s.export_table, "rows": pairs(&s.export)},
        "views_not_read": s.views,
    })
}

/// The NICs.
fn devices_json(session: &SessionInfo) -> Value {
    session
        .summary
        .nics
        .iter()
        .map(|n| {
            json!({
                "id": n.id,
                "name": n.name,
                "state": n.state,
                "guid": n.guid,
                "device": n.device,
                "vendor": n.vendor,
                "link_layer": n.link_layer,
            })
        })
        .collect()
}

/// The CUDA contexts.
fn contexts_json(session: &SessionInfo) -> Value {
    session
        .summary
        .contexts
        .iter()
        .map(|c| {
            json!({
                "process_id": c.process_id,
                "context_id": c.context_id,
                "device_id": c.device_id,
                "null_stream_id": c.null_stream_id,
                "parent_context_id": c.parent_context_id,
                "green": c.green,
            })
        })
        .collect()
}

/// The CUDA streams.
fn streams_json(session: &SessionInfo) -> Value {
    session
        .summary
        .streams
        .iter()
        .map(|s| {
            json!({
                "process_id": s.process_id,
                "context_id": s.context_id,
                "stream_id": s.stream_id,
                "priority": s.priority,
                "kind": s.kind,
                "name": s.name,
            })
        })
        .collect()
}

/// The CUDA devices each process saw.
fn cuda_devices_json(session: &SessionInfo) -> Value {
    session
        .summary
        .cuda_devices
        .iter()
        .map(|d| {
            json!({
                "gpu_id": d.gpu_id,
                "cuda_id": d.cuda_id,
                "pid": d.pid,
                "uuid": d.uuid,
                "multiprocessors": d.multiprocessors,
            })
        })
        .collect()
}
