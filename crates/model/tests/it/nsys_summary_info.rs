//! The Analysis Summary of every corpus export against its tables read here with SQLite:
//! every `TARGET_INFO_SYSTEM_ENV` row is in the environment in order, each launched process's
//! command and arguments are `META_DATA_CAPTURE`'s in argument order, every process
//! environment variable and every capture setting is there, the export metadata and the
//! NICs, streams, analysed spans, CUDA devices and analysis files are all there, and no corpus
//! export yields a problem.
//!
//! The exports are those `../shared/corpus/nsys/MANIFEST.tsv` lists; this test skips with a
//! message when ../shared is absent and fails instead under `SIGHTLINE_REQUIRE_SHARED=1`.

use std::path::{Path, PathBuf};

use rusqlite::Connection;
use sightline_model::timeline::nsys::ExportDb;
use sightline_model::timeline::nsys::{AnalysisSummary, EnvSource, read_analysis_summary};

fn corpus_exports() -> Option<Vec<PathBuf>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/nsys");
    if !dir.join("MANIFEST.tsv").is_file() {
        let reason = format!("{} is absent", dir.display());
        assert!(
            std::env::var_os("SIGHTLINE_REQUIRE_SHARED").is_none_or(|v| v != "1"),
            "{reason}: SIGHTLINE_REQUIRE_SHARED=1 requires ../shared beside the repository"
        );
        eprintln!("skipped: {reason}");
        return None;
    }
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.tsv")).unwrap();
    Some(
        manifest
            .lines()
            .skip(1)
            .filter_map(|l| l.split('\t').next())
            .filter(|f| f.ends_with(".sqlite"))
            .map(|f| dir.join(f))
            .collect(),
    )
}

/// The rows of `sql` as text columns (NULL as ""), none when the table is missing.
fn rows(conn: &Connection, sql: &str) -> Vec<Vec<String>> {
    let Ok(mut stmt) = conn.prepare(sql) else {
        return Vec::new();
    };
    let n = stmt.column_count();
    stmt.query_map([], |r| {
        Ok((0..n)
            .map(|i| match r.get_ref(i).unwrap() {
                rusqlite::types::ValueRef::Null => String::new(),
                rusqlite::types::ValueRef::Integer(v) => v.to_string(),
                rusqlite::types::ValueRef::Real(v) => v.to_string(),
                rusqlite::types::ValueRef::Text(t) | rusqlite::types::ValueRef::Blob(t) => {
                    String::from_utf8_lossy(t).into_owned()
                }
            })
            .collect())
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

#[test]
fn every_corpus_export_summary_matches_its_tables() {
    let Some(files) = corpus_exports() else {
        return;
    };
    let mut with_command = 0;
    let mut with_env = 0;
    let (mut with_devices, mut with_files) = (0, 0);
    for file in &files {
        let name = file.display().to_string();
        let db = ExportDb::open(file).unwrap_or_else(|e| panic!("{e}"));
        let read = read_analysis_summary(&db);
        assert!(read.problems.is_empty(), "{name}: {:?}", read.problems);
        assert!(read.damaged.is_empty(), "{name}");
        let s = &read.summary;
        let conn = Connection::open(file).unwrap();
        check_system(&conn, s, &name);
        with_env += usize::from(!s.environment.system.is_empty());
        with_command += check_capture(&conn, s, &name);
        let export = rows(&conn, "SELECT name, value FROM META_DATA_EXPORT");
        let export = if export.is_empty() {
            rows(&conn, "SELECT name, value FROM EXPORT_META_DATA")
        } else {
            export
        };
        let ours: Vec<Vec<String>> = s
            .export
            .iter()
            .map(|(k, v)| vec![k.clone(), v.clone()])
            .collect();
        assert_eq!(ours, export, "{name}: export metadata");
        let nics = rows(&conn, "SELECT nicId, name FROM TARGET_INFO_NIC_INFO");
        let ours: Vec<Vec<String>> = s
            .nics
            .iter()
            .map(|n| vec![n.id.unwrap().to_string(), n.name.clone()])
            .collect();
        assert_eq!(ours, nics, "{name}: NICs");
        assert!(
            s.nics
                .iter()
                .all(|n| !n.device.is_empty() && !n.link_layer.is_empty())
        );
        let streams = rows(
            &conn,
            "SELECT processId, contextId, streamId FROM TARGET_INFO_CUDA_STREAM",
        );
        let ours: Vec<Vec<String>> = s.streams[..streams.len().min(s.streams.len())]
            .iter()
            .map(|st| {
                [st.process_id, st.context_id, st.stream_id]
                    .map(|v| v.unwrap().to_string())
                    .to_vec()
            })
            .collect();
        assert_eq!(ours, streams, "{name}: streams");
        assert!(s.streams.iter().all(|st| !st.kind.is_empty()), "{name}");
        assert!(
            s.streams
                .iter()
                .all(|st| st.priority.is_none_or(|p| (-1000..1000).contains(&p))),
            "{name}: a priority written as unsigned 32 bits is read as signed"
        );
        let spans = rows(
            &conn,
            "SELECT startTime, stopTime, duration FROM ANALYSIS_DETAILS",
        );
        assert_eq!(s.analysis.len(), spans.len(), "{name}");
        for a in &s.analysis {
            assert_eq!(
                a.stop.unwrap() - a.start.unwrap(),
                a.duration.unwrap(),
                "{name}"
            );
        }
        let (d, f) = check_outputs_devices_and_files(&conn, s, &name);
        with_devices += usize::from(d);
        with_files += usize::from(f);
    }
    // Four exports list their CUDA devices (2025.3 to 2026.1), seven the files the analysis
    // kept (2024.5 to 2026.2).
    assert!(
        with_devices >= 4,
        "{with_devices} exports with CUDA devices"
    );
    assert!(with_files >= 7, "{with_files} exports with analysis files");
    // The corpus holds both: exports with a capture record and the oldest without.
    assert!(
        with_command >= 15,
        "{with_command} exports with a command line"
    );
    assert!(
        with_env >= 20,
        "{with_env} exports with a system environment"
    );
}

/// Every `ProcessStreams` output, every row of `TARGET_INFO_CUDA_DEVICE` and of
/// `ANALYSIS_FILE` (its text inline in older exports, in `StringIds` in newer ones), in order.
/// Whether the export has CUDA devices, and analysis files.
fn check_outputs_devices_and_files(
    conn: &Connection,
    s: &AnalysisSummary,
    name: &str,
) -> (bool, bool) {
    let outputs = rows(
        conn,
        "SELECT f.value, c.value FROM ProcessStreams p LEFT JOIN StringIds f ON f.id = \
         p.filenameId LEFT JOIN StringIds c ON c.id = p.contentId",
    );
    let ours: Vec<Vec<String>> = s
        .outputs
        .iter()
        .map(|o| vec![o.file.clone(), o.content.clone()])
        .collect();
    assert_eq!(ours, outputs, "{name}: process output");
    let has = |table: &str, column: &str| {
        !rows(
            conn,
            &format!("SELECT 1 FROM pragma_table_info('{table}') WHERE name = '{column}'"),
        )
        .is_empty()
    };
    let col = |table: &str, column: &str| {
        if has(table, column) {
            column.to_owned()
        } else {
            "NULL".to_owned()
        }
    };
    let devices = rows(
        conn,
        &format!(
            "SELECT gpuId, cudaId, pid, {}, {} FROM TARGET_INFO_CUDA_DEVICE",
            col("TARGET_INFO_CUDA_DEVICE", "uuid"),
            col("TARGET_INFO_CUDA_DEVICE", "numMultiprocessors")
        ),
    );
    let text = |v: Option<i64>| v.map(|v| v.to_string()).unwrap_or_default();
    let ours: Vec<Vec<String>> = s
        .cuda_devices
        .iter()
        .map(|d| {
            vec![
                text(d.gpu_id),
                text(d.cuda_id),
                text(d.pid),
                d.uuid.clone().unwrap_or_default(),
                text(d.multiprocessors),
            ]
        })
        .collect();
    assert_eq!(ours, devices, "{name}: CUDA devices");
    let content = if has("ANALYSIS_FILE", "content") {
        "a.content"
    } else {
        "(SELECT value FROM StringIds WHERE id = a.contentId)"
    };
    let files = rows(
        conn,
        &format!("SELECT a.id, a.filename, a.globalPid, {content} FROM ANALYSIS_FILE a"),
    );
    let ours: Vec<Vec<String>> = s
        .files
        .iter()
        .map(|f| {
            vec![
                text(f.id),
                f.file.clone(),
                text(f.global_pid),
                f.content.clone(),
            ]
        })
        .collect();
    assert_eq!(ours, files, "{name}: analysis files");
    assert!(s.files.iter().all(|f| !f.file.is_empty()), "{name}");
    (!devices.is_empty(), !files.is_empty())
}

/// Every row of `TARGET_INFO_SYSTEM_ENV` in order; the CPU and the `DeviceEnvironment`
/// variables from it.
fn check_system(conn: &Connection, s: &AnalysisSummary, name: &str) {
    let table = rows(
        conn,
        "SELECT devStateName, name, value FROM TARGET_INFO_SYSTEM_ENV",
    );
    let ours: Vec<Vec<String>> = s
        .environment
        .system
        .iter()
        .map(|p| vec![p.device.clone(), p.name.clone(), p.value.clone()])
        .collect();
    assert_eq!(
        ours, table,
        "{name}: every TARGET_INFO_SYSTEM_ENV row, in order"
    );
    let value = |key: &str| table.iter().find(|r| r[1] == key).map(|r| r[2].clone());
    assert_eq!(
        s.cpu.cores,
        value("CpuCores").map(|v| v.parse().unwrap()),
        "{name}"
    );
    assert_eq!(s.cpu.description, value("CpuDescription"), "{name}");
    if let Some(json) = value("CpuInfo").filter(|v| v.starts_with('{')) {
        let n = serde_json::from_str::<serde_json::Value>(&json).unwrap()["items"]
            .as_array()
            .unwrap()
            .len();
        assert_eq!(s.cpu.logical.len(), n, "{name}");
        // Windows exports give no socket.
        assert_eq!(
            !s.cpu.sockets().is_empty(),
            json.contains("\"socket\""),
            "{name}"
        );
    }
    let system_vars: Vec<_> = s
        .environment
        .variables
        .iter()
        .filter(|v| v.source == EnvSource::System)
        .collect();
    if let Some(env) = value("DeviceEnvironment").filter(|v| v.contains('=')) {
        assert!(!system_vars.is_empty(), "{name}");
        // Every variable is in the text as NAME=value, in order.
        let mut at = 0;
        for v in &system_vars {
            let text = format!("{}={}", v.name, v.value);
            let found = env[at..]
                .find(&text)
                .unwrap_or_else(|| panic!("{name}: {text}"));
            at += found + text.len();
        }
        assert_eq!(
            at,
            env.trim_end_matches(';').len(),
            "{name}: the whole text"
        );
    }
}

/// Each launched process's command and arguments (in argument order), its environment, and the
/// settings; returns whether the export has a command line.
fn check_capture(conn: &Connection, s: &AnalysisSummary, name: &str) -> usize {
    let table = rows(conn, "SELECT name, value FROM META_DATA_CAPTURE");
    let settings: Vec<(String, String)> = table
        .iter()
        .filter(|r| !r[0].starts_with("PROCESS_"))
        .map(|r| (r[0].clone(), r[1].clone()))
        .collect();
    assert_eq!(
        s.capture, settings,
        "{name}: the capture settings, in order"
    );
    for launch in &s.launches {
        let key = |k: &str| format!("PROCESS_{}:{k}", launch.index);
        let command = table
            .iter()
            .find(|r| r[0] == key("COMMAND"))
            .map(|r| r[1].clone());
        assert_eq!(Some(launch.command.clone()), command, "{name}");
        let mut args: Vec<(u64, String)> = table
            .iter()
            .filter_map(|r| {
                let k = r[0].strip_prefix(&key("ARGUMENT_"))?.parse().ok()?;
                Some((k, r[1].clone()))
            })
            .collect();
        args.sort();
        let args: Vec<String> = args.into_iter().map(|(_, a)| a).collect();
        assert_eq!(launch.arguments, args, "{name}");
        let line = launch.command_line();
        assert!(
            line.starts_with(&launch.command) || launch.command.is_empty(),
            "{name}: {line}"
        );
        let env: Vec<&Vec<String>> = table
            .iter()
            .filter(|r| r[0] == key("ENVIRONMENT_VARIABLE"))
            .collect();
        let ours: Vec<_> = s
            .environment
            .variables
            .iter()
            .filter(|v| v.source == EnvSource::Process(launch.index))
            .collect();
        assert_eq!(ours.len(), env.len(), "{name}");
        for (v, row) in ours.iter().zip(&env) {
            assert_eq!(row[1], format!("{}=\"{}\"", v.name, v.value), "{name}");
        }
        // Every row of the process is somewhere: command, folder, pid, arguments, environment
        // or another setting.
        let of_process = table.iter().filter(|r| r[0].starts_with(&key(""))).count();
        let placed = usize::from(command.is_some())
            + usize::from(launch.working_dir.is_some())
            + usize::from(launch.pid.is_some())
            + launch.arguments.len()
            + ours.len()
            + launch.settings.len();
        assert_eq!(
            placed, of_process,
            "{name}: every row of process {}",
            launch.index
        );
    }
    usize::from(s.launches.iter().any(|l| !l.command.is_empty()))
}
