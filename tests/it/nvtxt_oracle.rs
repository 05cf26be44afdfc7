//! Agreement with NVIDIA's importer: for every `fixtures/nvtxt/*.nvtxt`, Sightline's events equal
//! the ones `../shared/tools/nvtxt-oracle/events.sh` imported (recorded beside each file as
//! `NAME.oracle.jsonl` by `fixtures/nvtxt/record_oracle.sh`): kind, times, pid, tid, colour, text,
//! and the push/pop pairing; plus the file, process and thread names. Also the real corpus file.
//!
//! The importer prints times relative to its session start: the earliest event rounded down to
//! 1 ms (0 for `Relative` times). A push never popped ends at int64 max there; Sightline ends it
//! at the file's last timestamp and flags it open. The importer rounds every time to a double
//! (53 bits); Sightline keeps the integers written (`generated.nvtxt` has times near 1.7e18 ns,
//! where the rounding shows).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;
use sightline::timeline::nvtxt::{self, EventKind, NvtxtDocument, TimeBase};

/// (type, start, end, pid, tid, colour, text): the importer's view of one event.
type Row = (u64, i64, i64, u32, u32, String, String);

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/nvtxt")
}

/// A time as the importer keeps it: through a double, so above 2^53 ns (~104 days, e.g.
/// Unix-epoch times) it is rounded to 53 bits. Sightline keeps the integer written.
fn as_double(time: i64) -> i64 {
    time as f64 as i64
}

/// The importer's session start for a document's events.
fn session_start(doc: &NvtxtDocument) -> i64 {
    if doc.events.iter().all(|e| e.time_base == TimeBase::Relative) {
        return 0;
    }
    let first = doc
        .events
        .iter()
        .map(|e| as_double(e.start))
        .min()
        .unwrap_or(0);
    first - first.rem_euclid(1_000_000)
}

fn sightline_rows(doc: &NvtxtDocument) -> Vec<Row> {
    let offset = session_start(doc);
    let mut rows: Vec<Row> = doc
        .events
        .iter()
        .map(|e| {
            let kind = match e.kind {
                EventKind::Marker => 65,
                EventKind::PushPop => 70,
                EventKind::Range => 71,
            };
            let end = if e.open {
                i64::MAX - offset
            } else {
                as_double(e.end) - offset
            };
            (
                kind,
                as_double(e.start) - offset,
                end,
                e.pid,
                e.tid,
                format!("0x{:08X}", e.color_argb),
                doc.message(e).to_string(),
            )
        })
        .collect();
    rows.sort();
    rows
}

/// The importer's events, and its names: file name, process names by pid, thread names by
/// (pid, tid) (every name it listed).
struct Oracle {
    rows: Vec<Row>,
    file_name: Option<String>,
    processes: BTreeMap<u32, BTreeSet<String>>,
    threads: BTreeMap<(u32, u32), BTreeSet<String>>,
}

fn read_oracle(path: &Path) -> Oracle {
    let text = std::fs::read_to_string(path).unwrap();
    let mut oracle = Oracle {
        rows: Vec::new(),
        file_name: None,
        processes: BTreeMap::new(),
        threads: BTreeMap::new(),
    };
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).unwrap();
        let kind = v["type"].as_u64().unwrap();
        let name = || v["name"].as_str().unwrap().to_string();
        let id = |key: &str| v[key].as_str().unwrap().parse::<u64>().unwrap();
        match kind {
            74 => oracle.file_name = Some(name()),
            73 => {
                let pid = (id("GlobalProcessId") >> 24) as u32;
                oracle.processes.entry(pid).or_default().insert(name());
            }
            72 => {
                let gid = id("GlobalThreadId");
                let key = (((gid >> 24) & 0xFF_FFFF) as u32, (gid & 0xFF_FFFF) as u32);
                oracle.threads.entry(key).or_default().insert(name());
            }
            _ => {
                let start = v["start"].as_i64().unwrap();
                // A marker, or a range of zero length, has no end in the export.
                let end = v.get("end").map_or(start, |e| e.as_i64().unwrap());
                oracle.rows.push((
                    kind,
                    start,
                    end,
                    v["pid"].as_u64().unwrap() as u32,
                    v["tid"].as_u64().unwrap() as u32,
                    v["color"].as_str().unwrap().to_string(),
                    v["text"].as_str().unwrap().to_string(),
                ));
            }
        }
    }
    oracle.rows.sort();
    oracle
}

fn check_agreement(nvtxt_path: &Path, oracle: &Oracle, doc: &NvtxtDocument) {
    let name = nvtxt_path.display();
    assert!(!doc.has_errors(), "{name}: {:#?}", doc.diagnostics);
    assert_eq!(sightline_rows(doc), oracle.rows, "{name}: events differ");
    assert_eq!(
        oracle.file_name.as_deref(),
        Some(doc.title().as_str()),
        "{name}"
    );
    let pids: BTreeSet<u32> = doc.process_names.keys().copied().collect();
    assert_eq!(pids, oracle.processes.keys().copied().collect(), "{name}");
    for (pid, name_) in &doc.process_names {
        assert!(
            oracle.processes[pid].contains(name_),
            "{name}: process {pid}"
        );
    }
    // The importer keeps one thread per thread *name* (the last thread given it): a name reused
    // by several threads (`worker 0` in every process of `generated.nvtxt`) names only the last.
    // Sightline names every thread.
    for (key, names) in &oracle.threads {
        let ours = doc.thread_names.get(key);
        assert!(
            ours.is_some_and(|n| names.contains(n)),
            "{name}: thread {key:?}"
        );
    }
    for (key, name_) in &doc.thread_names {
        let listed = oracle
            .threads
            .get(key)
            .is_some_and(|names| names.contains(name_));
        let reused = oracle.threads.values().any(|names| names.contains(name_));
        assert!(listed || reused, "{name}: thread {key:?} named {name_}");
    }
}

#[test]
fn events_equal_nvidias_importer_on_every_fixture() {
    let mut compared = 0;
    let mut entries: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "nvtxt"))
        .collect();
    entries.sort();
    for path in entries {
        let recorded = path.with_extension("oracle.jsonl");
        let rejected = path.with_extension("oracle.err");
        assert!(
            recorded.exists() || rejected.exists(),
            "{}: no oracle recording (run fixtures/nvtxt/record_oracle.sh)",
            path.display()
        );
        if !recorded.exists() {
            continue;
        }
        let doc = nvtxt::load(&path).unwrap();
        check_agreement(&path, &read_oracle(&recorded), &doc);
        compared += 1;
    }
    assert!(compared >= 12, "only {compared} fixtures compared");
}

#[test]
fn fixtures_cover_every_event_kind_and_warning() {
    let mut kinds = BTreeSet::new();
    let mut open = false;
    let mut warnings = 0;
    for name in ["nesting", "unclosed", "ranges", "static_args", "colors"] {
        let doc = nvtxt::load(&fixtures().join(format!("{name}.nvtxt"))).unwrap();
        kinds.extend(doc.events.iter().map(|e| e.kind));
        open |= doc.events.iter().any(|e| e.open);
        warnings += doc.diagnostics.len();
    }
    assert_eq!(kinds.len(), 3);
    assert!(open);
    assert!(warnings >= 4);
}

#[test]
fn the_real_corpus_file() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/nvtxt/ka-31089.nvtxt");
    if !path.exists() {
        crate::common::skip_shared(format!("{} is absent", path.display()));
        return;
    }
    let doc = nvtxt::load(&path).unwrap();
    assert!(doc.diagnostics.is_empty(), "{:#?}", doc.diagnostics);
    assert_eq!(doc.display_name.as_deref(), Some("KernelAbstractions"));
    // NVIDIA's importer: one push/pop range, pid 31089, tid 1, Blue, from 515251367655304 to
    // 515256007484357 (it prints 655304 and 4640484357 from its session start 515251367000000).
    assert_eq!(doc.events.len(), 1);
    let event = &doc.events[0];
    assert_eq!(event.kind, EventKind::PushPop);
    assert_eq!((event.start, event.end), (515251367655304, 515256007484357));
    assert_eq!(
        (event.pid, event.tid, event.depth, event.category),
        (31089, 1, 0, 1)
    );
    assert_eq!(event.color_argb, 0xFF00_00FF);
    assert_eq!(doc.message(event), "Costly computation");
    assert_eq!(event.time_base, TimeBase::Manual);
    assert!(!event.open);
    assert_eq!(session_start(&doc), 515251367000000);
}
