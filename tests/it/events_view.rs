//! The Events view's table (`timeline::EventsTable`) and `sightline events`: a track's events
//! with their payload fields, sorted numerically, filtered, cut to a range; a counter track's
//! samples; the CLI's CSV equal to the model's; the longest GPU work of every corpus export
//! equal to `nsys stats --report cuda_gpu_trace`'s.

use std::path::{Path, PathBuf};
use std::process::Command;

use sightline::timeline::nsys;
use sightline::timeline::{EventColumn, EventsTable, Timeline, TrackId, TrackKind};
use sightline_test_support::nsys_payload::{
    Bytes, NCCL_ALL_REDUCE, NCCL_COMM, NCCL_DOMAIN, NCCL_SEND_RECV, PayloadExport, PayloadRow,
    blob, nccl_export, write_payload_export,
};

use crate::common::fixtures;

/// How many NCCL calls [`nccl_calls`] writes.
pub(crate) const CALLS: usize = 60;

/// The duration of call `i` (ns): all different, in no order.
pub(crate) fn duration_of(i: usize) -> i64 {
    1_000 + ((i * 7_919) % 997) as i64 * 61
}

/// The message size of call `i` (bytes): powers of two, so that text order is not number order.
pub(crate) fn size_of(i: usize) -> u64 {
    1 << (4 + (i * 5) % 17)
}

/// NCCL's schemas with [`CALLS`] calls on one thread, 100 µs apart: even ones `ncclAllReduce`
/// (reduction operation `i % 5`), odd ones `ncclSend` (peer rank `i % 8`).
pub(crate) fn nccl_calls() -> PayloadExport {
    let mut spec = nccl_export();
    spec.rows = (0..CALLS)
        .map(|i| {
            let start = 1_000_000 + i as i64 * 100_000;
            let head = Bytes::default()
                .uint(8, u128::from(NCCL_COMM))
                .uint(8, u128::from(size_of(i)));
            let (name, schema, payload) = if i % 2 == 0 {
                let op = (i % 5) as u128;
                ("ncclAllReduce", NCCL_ALL_REDUCE, head.uint(4, op).align(8))
            } else {
                let peer = (i % 8) as i128;
                ("ncclSend", NCCL_SEND_RECV, head.int(4, peer).align(8))
            };
            PayloadRow {
                name: name.into(),
                start,
                end: start + duration_of(i),
                domain: NCCL_DOMAIN,
                binary: blob(NCCL_DOMAIN as u32, schema, &payload.0),
                as_text: false,
            }
        })
        .collect();
    spec
}

/// Writes [`nccl_calls`] into `dir`; returns the file.
pub(crate) fn write_calls(dir: &Path) -> PathBuf {
    let path = dir.join("nccl_calls.sqlite");
    write_payload_export(&path, &nccl_calls()).unwrap();
    path
}

/// The track holding the first event named `name`.
pub(crate) fn track_of(tl: &Timeline, name: &str) -> TrackId {
    let e = crate::nvtx_payload::event_named(tl, name);
    tl.locate(e).unwrap().0
}

/// Column `label`'s texts of `rows`.
fn column(tl: &Timeline, table: &EventsTable, rows: &[usize], label: &str) -> Vec<String> {
    let c = table
        .column_index(label)
        .unwrap_or_else(|| panic!("no column {label}: {:?}", table.labels()));
    rows.iter()
        .map(|&r| table.row_texts(tl, r)[c].clone())
        .collect()
}

#[test]
fn a_tracks_nccl_calls_with_their_fields_sorted_and_filtered() {
    let dir = tempfile::tempdir().unwrap();
    let tl = nsys::load(&write_calls(dir.path())).unwrap();
    let table = EventsTable::new(&tl, track_of(&tl, "ncclSend"), None);
    assert_eq!(table.len(), CALLS);
    for label in [
        "Name",
        "Start (ns)",
        "Duration (ns)",
        "NCCL communicator ID",
        "Message size [bytes]",
        "Reduction operation",
        "Peer rank",
    ] {
        assert!(table.column_index(label).is_some(), "{:?}", table.labels());
    }
    // The 20 longest calls, longest first.
    let col = table.column_index("duration").unwrap();
    let top: Vec<usize> = table
        .order(&tl, "", Some((col, true)))
        .into_iter()
        .take(20)
        .collect();
    let mut want: Vec<i64> = (0..CALLS).map(duration_of).collect();
    want.sort_unstable_by(|a, b| b.cmp(a));
    let got: Vec<i64> = column(&tl, &table, &top, "Duration (ns)")
        .iter()
        .map(|d| d.parse().unwrap())
        .collect();
    assert_eq!(got, want[..20]);
    // Message sizes sort as numbers (as text, "65536" would come before "8192").
    let col = table.column_index("Message size [bytes]").unwrap();
    let sizes: Vec<u64> = column(
        &tl,
        &table,
        &table.order(&tl, "", Some((col, false))),
        "Message size [bytes]",
    )
    .iter()
    .map(|s| s.parse().unwrap())
    .collect();
    let mut sorted: Vec<u64> = (0..CALLS).map(size_of).collect();
    sorted.sort_unstable();
    assert_eq!(sizes, sorted);
    // The filter: names, and fields' values (the reduction operation's name).
    let sends = table.filter(&tl, "SEND");
    assert_eq!(sends.len(), CALLS / 2);
    assert!(
        column(&tl, &table, &sends, "Name")
            .iter()
            .all(|n| n == "ncclSend")
    );
    let max = table.filter(&tl, "max");
    let want_max = (0..CALLS).filter(|i| i % 2 == 0 && i % 5 == 2).count();
    assert_eq!(max.len(), want_max);
    let ops = column(&tl, &table, &max, "Reduction operation");
    assert!(ops.iter().all(|o| o == "Max (2)"), "{ops:?}");
    // A send has no reduction operation: an empty cell, sorted before every value.
    let op = table.column_index("Reduction operation").unwrap();
    let first = table.order(&tl, "", Some((op, false)))[0];
    assert_eq!(table.row_texts(&tl, first)[op], "");
}

#[test]
fn a_range_lists_the_events_overlapping_it() {
    let dir = tempfile::tempdir().unwrap();
    let tl = nsys::load(&write_calls(dir.path())).unwrap();
    let track = track_of(&tl, "ncclSend");
    let all = EventsTable::new(&tl, track, None);
    let starts: Vec<i64> = column(&tl, &all, &(0..all.len()).collect::<Vec<_>>(), "Start (ns)")
        .iter()
        .map(|s| s.parse().unwrap())
        .collect();
    assert!(starts.windows(2).all(|w| w[0] < w[1]), "time order");
    // From inside call 10 to just before call 15 starts: calls 10 to 14.
    let (t0, t1) = (starts[10] + 1, starts[15] - 1);
    let part = EventsTable::new(&tl, track, Some((t0, t1)));
    assert_eq!(part.len(), 5);
    assert_eq!(part.range(), Some((t0, t1)));
    let got: Vec<i64> = column(&tl, &part, &[0, 4], "Start (ns)")
        .iter()
        .map(|s| s.parse().unwrap())
        .collect();
    assert_eq!(got, [starts[10], starts[14]]);
    // Each row is its event: the row of an event is found again.
    let e = part.event(2).unwrap();
    assert_eq!(part.row_of(&tl, e), Some(2));
    assert_eq!(tl.event(e).unwrap().start, starts[12]);
}

#[test]
fn a_gpu_metric_lists_its_samples() {
    let tl: Timeline = nsys::load(&fixtures().join("nsys/gpu_metrics.sqlite")).unwrap();
    let (track, series) = tl
        .all_counter_series()
        .iter()
        .find(|(t, _)| tl.track_path(*t).ends_with("GPU Activity/SM Active"))
        .unwrap();
    let table = EventsTable::new(&tl, *track, None);
    assert!(table.is_samples());
    assert_eq!(table.columns(), [EventColumn::Time, EventColumn::Value]);
    assert_eq!(table.labels()[1], "Value (%)");
    assert_eq!(table.len(), series.len());
    for (r, (t, v)) in series.iter().enumerate() {
        assert_eq!(table.row_texts(&tl, r), [t.to_string(), v.to_string()]);
        assert_eq!(table.time(&tl, r), Some(t));
    }
    // The largest value first, as a number.
    let top = table.order(&tl, "", Some((1, true)))[0];
    let max = series.iter().map(|(_, v)| v).fold(f64::MIN, f64::max);
    assert_eq!(table.row_texts(&tl, top)[1], max.to_string());
    // A range: the samples within it.
    let (t0, t1) = (series.time(100), series.time(199));
    assert_eq!(EventsTable::new(&tl, *track, Some((t0, t1))).len(), 100);
}

/// Runs `sightline events ARGS`; returns stdout (asserting success).
pub(crate) fn events_cli(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_sightline"))
        .arg("events")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_cli_prints_the_models_rows_as_csv_and_tsv() {
    let path = fixtures().join("nsys/nccl_payload.sqlite");
    let tl = nsys::load(&path).unwrap();
    let track = track_of(&tl, "ncclAllReduce");
    let track_path = tl.track_path(track);
    let table = EventsTable::new(&tl, track, None);
    let col = table.column_index("Message size [bytes]").unwrap();
    let rows = table.order(&tl, "reduce", Some((col, true)));
    assert_eq!(rows.len(), 2);
    let mut csv = Vec::new();
    table.write_csv(&tl, &rows, &mut csv).unwrap();
    let file = path.to_str().unwrap();
    let args = [
        file,
        &track_path,
        "--filter",
        "reduce",
        "--sort",
        "message size [bytes]",
        "--desc",
    ];
    let mut with_csv = args.to_vec();
    with_csv.push("--csv");
    let printed = events_cli(&with_csv);
    assert_eq!(printed, String::from_utf8(csv).unwrap());
    assert!(
        printed.starts_with("Name,Kind,Start (ns),Duration (ns),End (ns),"),
        "{printed}"
    );
    assert!(
        printed.lines().nth(1).unwrap().contains(",1048576,"),
        "{printed}"
    );
    assert_eq!(events_cli(&args), table.to_tsv(&tl, &rows));
    // A unique end of the path names the track too; --limit cuts.
    let end = track_path.rsplit('/').next().unwrap();
    let one = events_cli(&[file, end, "--sort", "start", "--limit", "1", "--csv"]);
    assert_eq!(one.lines().count(), 2, "{one}");
    assert!(
        one.lines().nth(1).unwrap().starts_with("ncclCommInitRank,"),
        "{one}"
    );
}

#[test]
fn the_cli_names_a_missing_track_or_column() {
    let file = fixtures().join("nsys/nccl_payload.sqlite");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_sightline"))
            .arg("events")
            .arg(&file)
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&["No such track"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no track \"No such track\""), "{err}");
    let tl = nsys::load(&file).unwrap();
    let track = tl.track_path(track_of(&tl, "ncclAllReduce"));
    let out = run(&[&track, "--sort", "bogus"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no column \"bogus\"") && err.contains("Duration (ns)"),
        "{err}"
    );
    let out = run(&[&track, "--range", "5..1"]);
    assert_eq!(out.status.code(), Some(2));
}

/// The `Duration (ns)` column of an oracle CSV, longest first.
fn oracle_durations(csv: &Path) -> Vec<i64> {
    let text = std::fs::read_to_string(csv).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    let at = header.iter().position(|h| *h == "Duration (ns)").unwrap();
    let mut durations: Vec<i64> = lines
        .filter_map(|l| l.split(',').nth(at)?.parse().ok())
        .collect();
    durations.sort_unstable_by(|a, b| b.cmp(a));
    durations
}

#[test]
fn the_longest_gpu_work_of_every_corpus_export_is_nsys_stats() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/nsys");
    if !dir.join("oracle").is_dir() {
        crate::common::skip_shared("../shared/corpus/nsys/oracle not found");
        return;
    }
    let mut checked = 0;
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "sqlite"))
        .collect();
    entries.sort();
    for export in entries {
        let stem = export.file_stem().unwrap().to_string_lossy().into_owned();
        let oracle = dir.join("oracle").join(&stem).join("cuda_gpu_trace.csv");
        if !oracle.is_file() {
            continue;
        }
        let want = oracle_durations(&oracle);
        if want.is_empty() {
            continue;
        }
        let tl = nsys::load(&export).unwrap();
        // Every stream's 20 longest, by the table's sort; the 20 longest of them all.
        let mut got: Vec<i64> = Vec::new();
        for t in 0..tl.tracks.len() as u32 {
            let track = TrackId(t);
            if tl.track(track).unwrap().kind != TrackKind::Stream {
                continue;
            }
            let table = EventsTable::new(&tl, track, None);
            let col = table.column_index("Duration (ns)").unwrap();
            let kind = table.column_index("Kind").unwrap();
            // What cuda_gpu_trace lists: kernels, memory copies and sets (a stream's
            // synchronization is not GPU work).
            let top: Vec<usize> = table
                .order(&tl, "", Some((col, true)))
                .into_iter()
                .filter(|&r| {
                    let k = &table.row_texts(&tl, r)[kind];
                    matches!(k.as_str(), "kernel" | "memcpy" | "memset")
                })
                .take(20)
                .collect();
            got.extend(
                column(&tl, &table, &top, "Duration (ns)")
                    .iter()
                    .map(|d| d.parse::<i64>().unwrap()),
            );
        }
        got.sort_unstable_by(|a, b| b.cmp(a));
        let n = want.len().min(20);
        assert_eq!(got[..n.min(got.len())], want[..n], "{stem}");
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} exports with a GPU trace");
}

/// The oracle's cells for the Events view's source columns: (oracle header, view header, how
/// the view's text becomes the oracle's).
const SOURCE_CELLS: &[(&str, &str, bool)] = &[
    ("GrdX", "Grid X", false),
    ("GrdY", "Grid Y", false),
    ("GrdZ", "Grid Z", false),
    ("BlkX", "Block X", false),
    ("BlkY", "Block Y", false),
    ("BlkZ", "Block Z", false),
    ("Reg/Trd", "Registers per thread", false),
    ("StcSMem (MB)", "Static shared memory (B)", true),
    ("DymSMem (MB)", "Dynamic shared memory (B)", true),
    ("Bytes (MB)", "Bytes", true),
    ("DstMemKd", "Destination memory", false),
];

/// Every kernel's grid, block, registers and shared memory and every copy's and memset's
/// bytes and memory kinds in the Events view (read from the export's rows) equal
/// `nsys stats --report cuda_gpu_trace`'s cells, on every corpus export that has the report.
#[test]
fn gpu_work_source_columns_of_every_corpus_export_are_nsys_stats() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/nsys");
    if !dir.join("oracle").is_dir() {
        crate::common::skip_shared("../shared/corpus/nsys/oracle not found");
        return;
    }
    let Some(files) = crate::common::nsys_manifest_exports() else {
        return;
    };
    let (mut exports, mut cells) = (0, 0usize);
    for export in files {
        let stem = export.file_stem().unwrap().to_string_lossy().into_owned();
        let oracle = dir.join("oracle").join(&stem).join("cuda_gpu_trace.csv");
        let Ok(text) = std::fs::read_to_string(&oracle) else {
            continue;
        };
        let tl = nsys::load(&export).unwrap();
        let view = source_cells_by_start(&tl, &export);
        let mut lines = text.lines();
        let header = csv_cells(lines.next().unwrap_or_default());
        let at = |h: &str| header.iter().position(|x| x == h);
        let (start, duration) = (at("Start (ns)").unwrap(), at("Duration (ns)").unwrap());
        for line in lines.filter(|l| !l.is_empty()) {
            let row = csv_cells(line);
            let key = (
                row[start].parse::<i64>().unwrap(),
                row[duration].parse().unwrap(),
            );
            let got = view
                .get(&key)
                .unwrap_or_else(|| panic!("{stem}: no GPU work at {key:?} in the Events view"));
            // A memset's memory kind is what nsys prints as its source kind.
            let memset = got.get("Memory kind").filter(|k| !k.is_empty());
            for &(theirs, ours, mb) in SOURCE_CELLS.iter().chain(&[("SrcMemKd", "", false)]) {
                let Some(col) = at(theirs) else { continue };
                let mine = match (theirs, memset) {
                    ("SrcMemKd", Some(kind)) => kind.clone(),
                    ("SrcMemKd", None) => got.get("Source memory").cloned().unwrap_or_default(),
                    _ => got.get(ours).cloned().unwrap_or_default(),
                };
                let mine = match mine.parse::<i64>() {
                    Ok(v) if mb => sightline::timeline::fmt_ratio(i128::from(v), 1_000_000, 3),
                    _ => mine,
                };
                assert_eq!(
                    mine, row[col],
                    "{stem}: {theirs} of the GPU work at {key:?}"
                );
                cells += 1;
            }
        }
        exports += 1;
    }
    eprintln!("{cells} cells of {exports} exports equal nsys stats");
    assert!(exports >= 5, "only {exports} exports with a GPU trace");
}

/// The source columns of every stream's GPU work, by (start, duration): header → text.
fn source_cells_by_start(
    tl: &Timeline,
    export: &Path,
) -> std::collections::HashMap<(i64, i64), std::collections::HashMap<String, String>> {
    let source = sightline::timeline::DetailSource::Export(export.to_path_buf());
    let mut out = std::collections::HashMap::new();
    for t in 0..tl.tracks.len() as u32 {
        let track = TrackId(t);
        let kind = tl.track(track).unwrap().kind;
        if matches!(
            kind,
            TrackKind::Machine | TrackKind::Process | TrackKind::Thread
        ) {
            continue;
        }
        let mut table = EventsTable::new(tl, track, None);
        assert!(table.read_sources(tl, &source, &mut |_| true));
        assert_eq!(table.source_problem(), None);
        let labels = table.labels().to_vec();
        for r in 0..table.len() {
            let texts = table.row_texts(tl, r);
            let cell = |h: &str| labels.iter().position(|l| l == h).map(|i| texts[i].clone());
            let (Some(start), Some(duration)) = (cell("Start (ns)"), cell("Duration (ns)")) else {
                continue;
            };
            let row: std::collections::HashMap<String, String> =
                labels.iter().cloned().zip(texts.iter().cloned()).collect();
            out.insert((start.parse().unwrap(), duration.parse().unwrap()), row);
        }
    }
    out
}

/// A CSV line's cells (quoted cells unquoted).
pub(crate) fn csv_cells(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// The stream track of `tl` named `name` (its path's end).
fn stream(tl: &Timeline, name: &str) -> (TrackId, String) {
    (0..tl.tracks.len() as u32)
        .map(TrackId)
        .map(|t| (t, tl.track_path(t)))
        .find(|(_, p)| p.ends_with(&format!("/{name}")))
        .unwrap_or_else(|| panic!("no track {name}"))
}

/// A stream's kernels sort by their grid size as the export stores it; the CLI prints the
/// same columns; an export that is gone leaves the columns out and says why.
#[test]
fn kernels_sort_by_their_launch_configuration_from_the_export() {
    let export = fixtures().join("nsys/synth_2k.sqlite");
    let tl = nsys::load(&export).unwrap();
    let (track, path) = stream(&tl, "Stream 7");
    let mut table = EventsTable::new(&tl, track, None);
    let source = sightline::timeline::DetailSource::Export(export.clone());
    assert!(table.read_sources(&tl, &source, &mut |_| true));
    let grid = table.column_index("grid x").expect("a Grid X column");
    let rows = table.order(&tl, "", Some((grid, true)));
    let top = column(&tl, &table, &rows[..1], "Grid X")[0].clone();
    // The largest grid of the stream's kernels, as SQLite reads it.
    let conn = rusqlite::Connection::open(&export).unwrap();
    let want: i64 = conn
        .query_row(
            "SELECT max(gridX) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE streamId = 7",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(top, want.to_string());
    // Numbers sort as numbers: every row's grid at most the previous one's.
    let grids: Vec<i64> = column(&tl, &table, &rows, "Grid X")
        .iter()
        .filter_map(|g| g.parse().ok())
        .collect();
    assert!(grids.len() > 50 && grids.windows(2).all(|w| w[0] >= w[1]));
    // A copy kind reads as its label, and filters.
    let copies = table.filter(&tl, "host-to-device");
    assert!(!copies.is_empty());
    assert!(
        column(&tl, &table, &copies, "Copy kind")
            .iter()
            .all(|k| k == "Host-to-Device"),
    );
    let file = export.to_str().unwrap();
    let printed = events_cli(&[file, &path, "--sort", "grid x", "--desc", "--limit", "1"]);
    let header: Vec<&str> = printed.lines().next().unwrap().split('\t').collect();
    let first: Vec<&str> = printed.lines().nth(1).unwrap().split('\t').collect();
    let at = header.iter().position(|h| *h == "Grid X").unwrap();
    assert_eq!(first[at], want.to_string());
    // The export moved away: the table keeps its own columns and says why.
    let gone = sightline::timeline::DetailSource::Export(export.with_file_name("gone.sqlite"));
    let mut table = EventsTable::new(&tl, track, None);
    let before = table.labels().to_vec();
    assert!(table.read_sources(&tl, &gone, &mut |_| true));
    assert_eq!(table.labels(), before.as_slice());
    let problem = table.source_problem().expect("a problem");
    assert!(problem.contains("gone.sqlite"), "{problem}");
}

/// A CodeXL trace's kernel dispatches list their work sizes from the trace.
#[test]
fn trace_dispatches_list_their_work_sizes() {
    use sightline::timeline::atp::{AtpFile, timeline_of};
    let file = std::sync::Arc::new(AtpFile::open(&fixtures().join("codexl/session1.atp")).unwrap());
    let tl = timeline_of(&file);
    let source = sightline::timeline::DetailSource::Atp(file.clone());
    let mut listed = 0;
    for t in 0..tl.tracks.len() as u32 {
        let mut table = EventsTable::new(&tl, TrackId(t), None);
        assert!(table.read_sources(&tl, &source, &mut |_| true));
        let Some(col) = table.column_index("Global work size") else {
            continue;
        };
        for r in 0..table.len() {
            let text = &table.row_texts(&tl, r)[col];
            if !text.is_empty() {
                let event = table.event(r).unwrap();
                let details = sightline::timeline::atp::event_details(&file, &tl, event);
                let want = details
                    .iter()
                    .find(|(k, _)| k == "Global work size")
                    .unwrap();
                assert_eq!(text, &want.1);
                listed += 1;
            }
        }
    }
    assert!(listed > 0, "no dispatch listed its work size");
}
