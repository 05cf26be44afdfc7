//! MPI in merged timelines, against the generated 4-rank run of
//! `sightline_test_support::nsys_mpi` (whose answers are known by construction): rank names
//! from `MPI_RANKS`, the environment and an NVTX mark; each send's arrow to exactly its
//! receive; the collectives grouped across ranks with their straggler; the calls' `"fields"`
//! in `sightline timeline --events`; and the `mpi_summary` report equal to the same numbers
//! computed here from the generator's tables.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use sightline::core::Progress;
use sightline::timeline::nsys::stats::{ReportOutcome, run_report};
use sightline::timeline::nsys::{self, ExportDb, MergedExport};
use sightline::timeline::{EventId, MergeInput, RankFrom, Timeline, TimelineFileKind, load_merged};
use sightline_test_support::nsys_mpi::{
    COLLECTIVES, MESSAGES, P2P, RANKS, WAITS, file_name, write_mpi_run,
};

fn run() -> (tempfile::TempDir, Vec<PathBuf>) {
    let dir = tempfile::tempdir().unwrap();
    let paths = write_mpi_run(dir.path()).unwrap();
    (dir, paths)
}

fn merged(paths: &[PathBuf]) -> Timeline {
    let inputs: Vec<MergeInput> = paths
        .iter()
        .map(|p| MergeInput {
            kind: TimelineFileKind::NsysExport,
            export: p.clone(),
            path: p.clone(),
        })
        .collect();
    load_merged(&inputs, Progress::none()).unwrap().timeline
}

/// The event of `rank` named `name` starting at `start` (times of the generator: every file
/// has the same session start, so merged times are the written ones).
fn find(tl: &Timeline, rank: usize, name: &str, start: i64) -> EventId {
    let part = &tl.parts()[rank];
    (part.events.clone())
        .map(EventId)
        .find(|&id| {
            let e = tl.event(id).unwrap();
            e.start == start && tl.name(e.name) == name
        })
        .unwrap_or_else(|| panic!("rank {rank}: no {name} at {start}"))
}

#[test]
fn each_file_is_named_by_its_rank_from_mpi_ranks_environment_or_nvtx() {
    let (_dir, paths) = run();
    let tl = merged(&paths);
    let labels: Vec<&str> = tl.parts().iter().map(|p| p.label.as_str()).collect();
    assert_eq!(labels, ["Rank 0", "Rank 1", "Rank 2", "Rank 3"]);
    let from: Vec<RankFrom> = (0..RANKS)
        .map(|k| tl.mpi_rank(Some(k)).unwrap().1)
        .collect();
    assert_eq!(
        from,
        [
            RankFrom::MpiRanks,
            RankFrom::MpiRanks,
            RankFrom::Environment("OMPI_COMM_WORLD_RANK"),
            RankFrom::Nvtx,
        ]
    );
    // The file stays known beside the rank's name.
    for (k, part) in tl.parts().iter().enumerate() {
        assert_eq!(part.source, paths[k]);
        assert!(part.source.ends_with(file_name(k)));
    }
    // MPI calls are on their thread's rows, named by their textId.
    let send = find(&tl, 0, "MPI_Send", 1_000);
    let (track, _) = tl.locate(send).unwrap();
    assert!(
        tl.track_path(track).ends_with("/MPI point-to-point"),
        "{}",
        tl.track_path(track)
    );
}

#[test]
fn every_send_has_an_arrow_to_exactly_its_receive() {
    let (_dir, paths) = run();
    let tl = merged(&paths);
    let ids: Vec<EventId> = P2P
        .iter()
        .map(|c| find(&tl, c.rank, c.name, c.start))
        .collect();
    let index = |e: EventId| ids.iter().position(|&i| i == e);
    let got: BTreeSet<(usize, usize)> = tl
        .flows()
        .iter()
        .filter_map(|f| Some((index(f.from)?, index(f.to)?)))
        .collect();
    let want: BTreeSet<(usize, usize)> = MESSAGES.iter().copied().collect();
    assert_eq!(got, want);
    assert_eq!(tl.mpi_messages(), MESSAGES.len());
    // The unmatched send (16) has no partner among the calls.
    assert!(
        tl.flow_partners(ids[16])
            .iter()
            .all(|p| index(*p).is_none())
    );
    // Each non-blocking call points at the wait on its request.
    for (call, wait) in [(8, 0), (9, 1), (10, 2), (11, 3)] {
        let (rank, start, _, _) = WAITS[wait];
        let w = find(&tl, rank, "MPI_Wait", start);
        assert!(
            tl.flow_partners(ids[call]).contains(&w),
            "call {call} → wait {wait}"
        );
    }
}

#[test]
fn collectives_are_grouped_with_their_straggler_wait_and_transfer() {
    let (_dir, paths) = run();
    let tl = merged(&paths);
    assert_eq!(tl.mpi_collectives().len(), COLLECTIVES.len());
    for c in COLLECTIVES {
        let members: Vec<EventId> = (0..RANKS)
            .map(|r| find(&tl, r, c.name, c.calls[r].0))
            .collect();
        let last = c.calls.iter().map(|&(s, _)| s).max().unwrap();
        for (r, &m) in members.iter().enumerate() {
            let group = tl.mpi_collective(m).expect("grouped");
            let mut want = members.clone();
            want.sort();
            assert_eq!(group.members, want);
            let t = tl.mpi_collective_timing(m).unwrap();
            assert_eq!(t.straggler, members[c.straggler]);
            assert_eq!(t.straggler_rank, Some(c.straggler as i64));
            let (start, end) = c.calls[r];
            assert_eq!(t.wait_ns, last - start, "{} rank {r}", c.name);
            assert_eq!(t.transfer_ns, end - last, "{} rank {r}", c.name);
            let fields = tl.mpi_fields(m);
            let straggler = fields.iter().find(|f| f.name == "Straggler").unwrap();
            assert_eq!(straggler.value.to_string(), format!("Rank {}", c.straggler));
        }
    }
}

#[test]
fn rows_are_all_accounted_for() {
    let (_dir, paths) = run();
    for path in &paths {
        let tl = nsys::load(path).unwrap();
        let unbalanced = tl.session.imports.unbalanced();
        assert!(unbalanced.is_empty(), "{unbalanced:?}");
        let p2p = &tl.session.imports.sources["MPI_P2P_EVENTS"];
        assert_eq!(p2p.events, p2p.rows);
        for table in ["MPI_RANKS", "MPI_COMMUNICATORS"] {
            if let Some(s) = tl.session.imports.sources.get(table) {
                assert_eq!(s.attached, s.rows, "{table}");
            }
        }
        assert!(tl.warnings.is_empty(), "{:?}", tl.warnings);
    }
}

#[test]
fn timeline_events_lines_carry_the_mpi_fields() {
    let (_dir, paths) = run();
    let text = crate::common::sightline_ok(timeline_args("--events", &paths));
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let ring = &P2P[0];
    let send = lines
        .iter()
        .find(|e| e["name"] == "MPI_Send" && e["start"] == ring.start)
        .unwrap_or_else(|| panic!("no send line in {text}"));
    let f = &send["fields"];
    assert_eq!(f["Rank"], 0);
    assert_eq!(f["Peer rank"], ring.remote);
    assert_eq!(f["Tag"], ring.tag);
    assert_eq!(f["Size (bytes)"], ring.size);
    assert!(
        f["Communicator"].is_string() || f["Communicator"].is_number(),
        "{f}"
    );
    let barrier = lines
        .iter()
        .find(|e| e["name"] == "MPI_Barrier" && e["start"] == COLLECTIVES[0].calls[0].0)
        .unwrap();
    assert_eq!(barrier["fields"]["Straggler"], "Rank 2");
    assert_eq!(barrier["fields"]["Wait (ns)"], 400);
    assert_eq!(barrier["fields"]["Transfer (ns)"], 100);
}

/// Durations and bytes per (rank, name) from the generator's tables, as `mpi_summary` must
/// give them (the ranks whose only record is the environment are not known to the report).
fn expected() -> BTreeMap<(Option<usize>, String), (Vec<i64>, i64)> {
    let known = |rank: usize| (rank != 2).then_some(rank);
    let mut out: BTreeMap<(Option<usize>, String), (Vec<i64>, i64)> = BTreeMap::new();
    let mut add = |rank: usize, name: &str, d: i64, bytes: i64| {
        let e = out.entry((known(rank), name.to_owned())).or_default();
        e.0.push(d);
        e.1 += bytes;
    };
    for c in P2P {
        add(c.rank, c.name, c.end - c.start, c.size);
    }
    for &(rank, start, end, _) in WAITS {
        add(rank, "MPI_Wait", end - start, 0);
    }
    for c in COLLECTIVES {
        for (rank, &(s, e)) in c.calls.iter().enumerate() {
            add(rank, c.name, e - s, c.size);
        }
    }
    for rank in 0..RANKS {
        add(rank, "MPI_Init", 300, 0);
        add(rank, "MPI_Finalize", 200, 0);
    }
    out
}

/// `x` with one decimal, rounded half away from zero (as nsys's reports round).
fn one_decimal(x: f64) -> String {
    format!("{:.1}", (x * 10.0).round() / 10.0)
}

/// NumPy's linear-interpolation percentile of `v`, with one decimal.
fn percentile(v: &[i64], p: f64) -> String {
    let mut v = v.to_vec();
    v.sort_unstable();
    let h = (v.len() - 1) as f64 * p;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(v.len() - 1);
    one_decimal(v[lo] as f64 + (h - lo as f64) * (v[hi] - v[lo]) as f64)
}

#[test]
fn mpi_summary_matches_the_generated_calls_per_rank_and_across_ranks() {
    let (_dir, paths) = run();
    let merged = MergedExport::build(&paths).unwrap();
    let db = ExportDb::open(merged.path()).unwrap();
    let Ok(ReportOutcome::Table(t)) = run_report(&db, "mpi_summary") else {
        panic!("no table")
    };
    let col = |name: &str| t.columns.iter().position(|c| c == name).unwrap();
    let mut rows: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    t.rows
        .for_each(|r| {
            let cells: Vec<String> = r.iter().map(|c| c.as_str().to_owned()).collect();
            rows.insert(
                (cells[col("Rank")].clone(), cells[col("Name")].clone()),
                cells,
            );
            Ok::<(), ()>(())
        })
        .unwrap();
    let want = expected();
    let mut all: BTreeMap<String, (Vec<i64>, i64)> = BTreeMap::new();
    for ((_, name), (d, b)) in &want {
        let e = all.entry(name.clone()).or_default();
        e.0.extend(d);
        e.1 += b;
    }
    let per_rank = want.iter().map(|((rank, name), v)| {
        (
            rank.map_or(String::new(), |r| r.to_string()),
            name.clone(),
            v,
        )
    });
    let across = all
        .iter()
        .map(|(name, v)| ("all".to_owned(), name.clone(), v));
    let mut checked = 0;
    for (rank, name, (d, bytes)) in across.chain(per_rank) {
        let got = rows
            .get(&(rank.clone(), name.clone()))
            .unwrap_or_else(|| panic!("no row {rank} {name}"));
        let total: i64 = d.iter().sum();
        assert_eq!(got[col("Count")], d.len().to_string(), "{rank} {name}");
        assert_eq!(got[col("Total Time (ns)")], total.to_string());
        assert_eq!(
            got[col("Avg (ns)")],
            one_decimal(total as f64 / d.len() as f64)
        );
        assert_eq!(got[col("Min (ns)")], d.iter().min().unwrap().to_string());
        assert_eq!(got[col("Max (ns)")], d.iter().max().unwrap().to_string());
        assert_eq!(got[col("Q1 (ns)")], percentile(d, 0.25), "{rank} {name}");
        assert_eq!(got[col("Med (ns)")], percentile(d, 0.5), "{rank} {name}");
        assert_eq!(got[col("Q3 (ns)")], percentile(d, 0.75), "{rank} {name}");
        assert_eq!(got[col("Total Bytes")], bytes.to_string(), "{rank} {name}");
        checked += 1;
    }
    assert_eq!(checked, rows.len(), "no other rows");
}

#[test]
fn timeline_json_names_each_file_by_its_rank_and_keeps_its_file() {
    let (_dir, paths) = run();
    let json: serde_json::Value = serde_json::from_str(&crate::common::sightline_ok(
        timeline_args("--json", &paths),
    ))
    .unwrap();
    let files = json["files"].as_array().unwrap();
    assert_eq!(files.len(), RANKS);
    for (k, f) in files.iter().enumerate() {
        assert_eq!(f["label"], format!("Rank {k}"));
        assert_eq!(f["file"], paths[k].display().to_string());
        assert_eq!(f["mpi_rank"], k);
    }
    assert_eq!(files[2]["mpi_rank_from"], "OMPI_COMM_WORLD_RANK");
    assert_eq!(files[3]["mpi_rank_from"], "NVTX");
}

/// The corpus's rank 0 of a real MPI run (`pipit_saxpy-mpi-cuda_nsys_perlmutter0`): no MPI
/// tables and no rank variable, but its thread is named "MPI Rank 0" by NVTX.
#[test]
fn the_corpus_mpi_rank_is_named_from_its_nvtx_thread_name() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/nsys/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite");
    if !path.is_file() {
        crate::common::skip_shared(format!("{} not found", path.display()));
        return;
    }
    let tl = nsys::load(&path).unwrap();
    assert_eq!(tl.mpi_rank(None), Some((0, RankFrom::Nvtx)));
    assert_eq!(sightline::timeline::default_label(&tl), "Rank 0");
    // Its MPI calls are NVTX ranges, not MPI tables: no MPI fields, no messages.
    assert_eq!(tl.mpi_messages(), 0);
}

/// The Events view of a rank's point-to-point row lists the calls' MPI fields as columns
/// (peer, tag, size), with each call's values.
#[test]
fn the_events_view_lists_the_calls_mpi_fields() {
    let (_dir, paths) = run();
    let tl = merged(&paths);
    let send = find(&tl, 0, "MPI_Send", P2P[0].start);
    let (track, _) = tl.locate(send).unwrap();
    let table = sightline::timeline::EventsTable::new(&tl, track, None);
    let labels = table.labels();
    for wanted in ["Peer rank", "Tag", "Size (bytes)"] {
        assert!(labels.iter().any(|l| l == wanted), "{labels:?}");
    }
    let fields: BTreeMap<String, String> =
        sightline::timeline::nsys::payload::flatten(&tl.event_fields(send))
            .into_iter()
            .collect();
    let row = (0..table.len())
        .find(|&r| table.row_texts(&tl, r)[0] == "MPI_Send")
        .unwrap();
    let texts = table.row_texts(&tl, row);
    for (label, text) in labels.iter().zip(&texts) {
        if let Some(value) = fields.get(label) {
            assert_eq!(text, value, "{label}");
        }
    }
}

/// `timeline FLAG PATHS…` as arguments.
fn timeline_args(flag: &str, paths: &[std::path::PathBuf]) -> Vec<std::ffi::OsString> {
    let mut args = vec!["timeline".into(), flag.into()];
    args.extend(paths.iter().map(|p| p.as_os_str().to_owned()));
    args
}
