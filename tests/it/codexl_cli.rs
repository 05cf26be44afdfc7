//! `sightline counters` and `sightline occupancy` on the corpus and the generated session, and
//! the session that joins `S.atp`, `S.csv` and `S.occupancy`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use sightline::codexl::{CounterFile, OccupancyFile, SessionData, SessionFiles};
use sightline::timeline::atp::{AtpFile, CommandPayload};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/codexl")
        .join(name)
}

fn sightline(args: &[&str]) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn counters_json_shape() {
    let path = fixture("session1.csv");
    let (stdout, stderr) = sightline(&["counters", path.to_str().unwrap(), "--json"]);
    assert!(stderr.is_empty(), "{stderr}");
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["header"]["ListSeparator"], ";");
    assert_eq!(
        json["header"]["Device Hawaii Platform Vendor"],
        "Advanced Micro Devices, Inc."
    );
    let columns: Vec<&str> = json["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert_eq!(columns[0], "Method");
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 8);
    let row = &rows[0];
    assert_eq!(row["Method"], "vadd__k1_Hawaii1");
    assert_eq!(
        (
            row["kernel"].as_str(),
            row["kernel_id"].as_u64(),
            row["device"].as_str()
        ),
        (Some("vadd"), Some(1), Some("Hawaii"))
    );
    assert_eq!(row["GlobalWorkSize"], serde_json::json!([1024, 1, 1]));
    assert_eq!(row["ThreadID"], 4100);
    assert!(row["Time"].is_f64());
    assert_eq!(rows[2]["WorkGroupSize"], Value::Null, "NULL is null");
    // The number as the file wrote it: compare with the file's own digits.
    let file = CounterFile::open(&path).unwrap();
    let time = file.time_column().unwrap();
    let value = &file.rows[0].values[time];
    assert!(value.is_number(), "{value:?}");
    let written = file.value_text(value);
    assert!(stdout.contains(&format!("\"Time\": {written},")));
}

#[test]
fn counters_on_the_corpus_text_and_csv() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/codexl");
    let sprofile = dir.join("bryancatanzaro_SpMV_Session1.csv");
    if !sprofile.is_file() {
        crate::common::skip_shared(format!("{} is absent", dir.display()));
        return;
    }
    let (json, _) = sightline(&["counters", sprofile.to_str().unwrap(), "--json"]);
    let json: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["header"], serde_json::json!({}));
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 14);
    assert_eq!(rows[0]["GlobalWorkSize"], Value::Null, "empty is null");
    assert_eq!(rows[0]["MemTransferSize"], 50035968);
    assert_eq!(rows[3]["GlobalWorkSize"], serde_json::json!([38656, 1, 1]));
    assert_eq!(
        (
            rows[3]["kernel"].as_str(),
            rows[3]["kernel_id"].is_null(),
            rows[3]["device"].is_null()
        ),
        (Some("diagSpMV"), true, true)
    );
    let rcp = dir.join("sgpp_profiling_results_prof_DR5_0beff21.csv");
    let (text, _) = sightline(&["counters", rcp.to_str().unwrap()]);
    assert!(text.starts_with("ProfileFileVersion: 5.2\n"));
    let aggregate: Vec<&str> = text
        .lines()
        .find(|l| l.starts_with("multdensity "))
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(aggregate[..3], ["multdensity", "Hawaii", "6"]);
    let total: f64 = aggregate[3].parse().unwrap();
    assert!((total - 16.17259).abs() < 1e-9, "{total}");
    let (csv, _) = sightline(&["counters", rcp.to_str().unwrap(), "--csv"]);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 10);
    assert!(lines[0].starts_with("Method,ExecutionOrder,ThreadID,CallIndex,GlobalWorkSize,"));
    assert!(lines[0].ends_with(",kernel,kernel_id,device"));
    assert!(
        lines[1].starts_with("cscheme__k1_Hawaii1,1,1429,36,{1471 1 1},NULL,434.40237,"),
        "{}",
        lines[1]
    );
    assert!(lines[1].ends_with(",cscheme,1,Hawaii"));
}

#[test]
fn occupancy_json_and_charts() {
    let path = fixture("session1.occupancy");
    let (stdout, _) = sightline(&["occupancy", path.to_str().unwrap(), "--json"]);
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["header"]["KernelCount"], "8");
    assert_eq!(json["columns"].as_array().unwrap().len(), 26);
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 8);
    assert_eq!(rows[0]["Kernel Name"], "vadd");
    assert_eq!(rows[0]["Number of VGPR used"], 24);
    assert_eq!(rows[0]["Graphics IP Version"], "IP 7");
    assert_eq!(
        (rows[0]["kernel"].as_str(), rows[0]["device"].as_str()),
        (Some("vadd"), Some("Hawaii"))
    );
    // Row 5: matmul_tiled with 256-item groups, 8 VGPR-limited waves of 40 (20%).
    let (charts, _) = sightline(&[
        "occupancy",
        path.to_str().unwrap(),
        "--kernel",
        "5",
        "--json",
    ]);
    let charts: Value = serde_json::from_str(&charts).unwrap();
    assert_eq!(charts["kernel"], "matmul_tiled");
    assert_eq!(charts["computed_occupancy"], charts["file_occupancy"]);
    let curves = charts["curves"].as_array().unwrap();
    assert_eq!(curves.len(), 4);
    assert_eq!(curves[0]["resource"], "Number of VGPRs");
    assert_eq!(curves[0]["kernel_point"][0], 93);
    assert_eq!(curves[0]["kernel_point"][1].as_f64(), Some(20.0));
    assert_eq!(curves[3]["points"].as_array().unwrap().len(), 4);
    let (text, _) = sightline(&["occupancy", path.to_str().unwrap(), "--kernel", "5"]);
    assert!(
        text.contains("Occupancy: 20% computed, 20% in the file"),
        "{text}"
    );
}

#[test]
fn one_session_joins_trace_counters_and_occupancy() {
    let files = SessionFiles::find(&fixture("session1.csv"));
    assert_eq!(files.trace, Some(fixture("session1.atp")));
    assert_eq!(files.counters, Some(fixture("session1.csv")));
    assert_eq!(files.occupancy, Some(fixture("session1.occupancy")));
    assert_eq!(files.others(&fixture("session1.atp")).len(), 2);
    let lonely = SessionFiles::find(&fixture("codexl_prefix_crlf.atp"));
    assert_eq!((lonely.counters, lonely.occupancy), (None, None));
    let trace = AtpFile::open(files.trace.as_ref().unwrap()).unwrap();
    let data = SessionData {
        counters: Some(CounterFile::open(files.counters.as_ref().unwrap()).unwrap()),
        occupancy: Some(OccupancyFile::open(files.occupancy.as_ref().unwrap()).unwrap()),
    };
    let t = &trace.trace;
    let mut joined = 0;
    for thread in &t.threads {
        let mut nth_of_kernel = std::collections::HashMap::new();
        for command in t
            .enqueues
            .iter()
            .filter(|e| e.call >= thread.calls.start && e.call < thread.calls.end)
        {
            let CommandPayload::Kernel(_) = command.payload() else {
                continue;
            };
            let kernel = t.names.get(t.launch(command).unwrap().kernel).to_string();
            let call_index = u64::from(command.call - thread.calls.start);
            let row = data
                .counters_for_call(thread.thread_id, call_index)
                .unwrap();
            assert_eq!(&*row.kernel, kernel);
            let nth = nth_of_kernel.entry(kernel.clone()).or_insert(0usize);
            let occupancy = data.occupancy_for(thread.thread_id, &kernel, *nth).unwrap();
            *nth += 1;
            let launch = t.launch(command).unwrap();
            assert_eq!(
                occupancy.global_work_size,
                Some(launch.global.as_slice().iter().product())
            );
            joined += 1;
        }
    }
    assert_eq!(joined, 8);
}
