//! Several files on one timeline: every event of every file kept (names, kinds, times moved by
//! the file's offset, flows and call stacks), the files aligned by their session starts, moved
//! by hand or lined up on an event; merged `nsys stats` reports equal the sum of the files'.
//! The corpus tests loop over the exports the MANIFEST lists and skip without ../shared.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sightline::core::{FnSink, Progress, Step};
use sightline::timeline::nsys::MergedExport;
use sightline::timeline::nsys::stats::{self, Cell, ReportOutcome, ReportTable};
use sightline::timeline::{
    EventId, MergeInput, Timeline, TimelineFileKind, TrackKind, default_label, load_merged, merge,
    nsys, timeline_inputs,
};

use crate::common::fixtures;

/// Every event's flow partners, as `Timeline::flow_partners` gives them (the events it caused,
/// then the calls that caused it, each in the order of `Timeline::flows`), for all events at
/// once: `flow_partners` scans every flow for the callers, once per event, which on the corpus
/// exports made this test take minutes.
struct Partners {
    caused: BTreeMap<u32, Vec<u32>>,
    callers: BTreeMap<u32, Vec<u32>>,
}

impl Partners {
    fn of_all(timeline: &Timeline) -> Partners {
        let mut partners = Partners {
            caused: BTreeMap::new(),
            callers: BTreeMap::new(),
        };
        for f in timeline.flows() {
            partners.caused.entry(f.from.0).or_default().push(f.to.0);
            partners.callers.entry(f.to.0).or_default().push(f.from.0);
        }
        // The bulk answer is `flow_partners`'s own, checked on the events with the most flows.
        let mut busiest: Vec<u32> = partners
            .caused
            .keys()
            .chain(partners.callers.keys())
            .copied()
            .collect();
        busiest.sort_by_key(|e| std::cmp::Reverse(partners.of(*e, 0).len()));
        for e in busiest.into_iter().take(64) {
            let api: Vec<u32> = timeline
                .flow_partners(EventId(e))
                .iter()
                .map(|p| p.0)
                .collect();
            assert_eq!(partners.of(e, 0), api, "flow partners of event {e}");
        }
        partners
    }

    /// The partners of `event`, as ids less `base`.
    fn of(&self, event: u32, base: u32) -> Vec<u32> {
        let none = Vec::new();
        let caused = self.caused.get(&event).unwrap_or(&none);
        let callers = self.callers.get(&event).unwrap_or(&none);
        caused.iter().chain(callers).map(|p| p - base).collect()
    }
}

/// Asserts that part `k` of `merged` holds exactly the events of `original`, moved by the
/// part's offset: same kinds, names, durations, flows and call stacks, in the same order.
fn assert_part_is(merged: &Timeline, k: usize, original: &Timeline) {
    let part = &merged.parts()[k];
    assert_eq!(part.events.len(), original.event_count(), "file {k}");
    let base = part.events.start;
    let (original_flows, merged_flows) = (Partners::of_all(original), Partners::of_all(merged));
    for e in original.events() {
        let m = merged
            .event(EventId(base + e.id.0))
            .unwrap_or_else(|| panic!("file {k}: event {} missing", e.id.0));
        assert_eq!(m.kind, e.kind);
        assert_eq!(merged.name(m.name), original.name(e.name), "file {k}");
        assert_eq!(m.start, e.start + part.offset_ns, "file {k}: {:?}", e.id);
        assert_eq!(m.end - m.start, e.end - e.start);
        assert_eq!(m.source, e.source);
        let frames = |tl: &Timeline, id: EventId| -> Vec<(String, String)> {
            tl.stack_of(id)
                .map(|s| {
                    tl.stacks
                        .frames_of(s)
                        .map(|f| (tl.name(f.symbol).to_owned(), tl.name(f.module).to_owned()))
                        .collect()
                })
                .unwrap_or_default()
        };
        assert_eq!(frames(merged, m.id), frames(original, e.id), "file {k}");
        assert_eq!(
            merged.attrs(m.id).map(|a| a.color),
            original.attrs(e.id).map(|a| a.color)
        );
        let partners = original_flows.of(e.id.0, 0);
        let merged_partners = merged_flows.of(m.id.0, base);
        assert_eq!(merged_partners, partners, "file {k}: flows of {:?}", e.id);
        let (track, _) = merged.locate(m.id).unwrap();
        assert_eq!(merged.part_of_track(track), Some(k));
        assert_eq!(merged.part_of(m.id), Some(k));
    }
}

#[test]
fn an_export_merged_with_its_copy_keeps_every_event_of_both() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("rank0.sqlite");
    let b = dir.path().join("rank1.sqlite");
    std::fs::copy(fixtures().join("nsys/synth_2k.sqlite"), &a).unwrap();
    std::fs::copy(fixtures().join("nsys/synth_2k.sqlite"), &b).unwrap();
    let original = nsys::load(&a).unwrap();
    let inputs: Vec<MergeInput> = timeline_inputs(&[dir.path().to_path_buf()])
        .unwrap()
        .into_iter()
        .map(|p| MergeInput {
            kind: TimelineFileKind::NsysExport,
            export: p.clone(),
            path: p,
        })
        .collect();
    assert_eq!(inputs.len(), 2, "the folder's two exports");
    // Each file's part of the progress starts with a step of stage `files`.
    let mut started = Vec::new();
    let sink = FnSink::new(|step: &Step<'_>| {
        if step.stage == "files" {
            started.push((step.fraction * inputs.len() as f32).round() as usize);
        }
    });
    let loaded = load_merged(&inputs, Progress::new(&sink)).unwrap();
    assert_eq!(started, vec![0, 1]);
    let merged = loaded.timeline;
    assert_eq!(merged.event_count(), 2 * original.event_count());
    assert_eq!(merged.flows().len(), 2 * original.flows().len());
    assert_eq!(merged.roots.len(), 2);
    for (k, name) in ["rank0.sqlite", "rank1.sqlite"].iter().enumerate() {
        let part = &merged.parts()[k];
        assert_eq!(part.offset_ns, 0, "the same session start");
        assert!(part.label.ends_with(name), "{}", part.label);
        let group = merged.track(part.group).unwrap();
        assert_eq!(group.kind, TrackKind::File);
        assert!(group.parent.is_none());
        assert_part_is(&merged, k, &original);
    }
    // Details are read from each event's own file.
    let last = EventId(merged.event_count() as u32 - 1);
    match loaded.details.for_event(&merged, last) {
        Some(sightline::timeline::DetailSource::Export(p)) => assert_eq!(p, &b),
        other => panic!("{other:?}"),
    }
}

#[test]
fn files_move_by_hand_and_line_up_on_an_event() {
    let path = fixtures().join("nsys/synth_2k.sqlite");
    let one = nsys::load(&path).unwrap();
    let mut merged = merge(vec![(one.clone(), "a".into()), (one.clone(), "b".into())]);
    merged.set_user_offset(1, 5_000).unwrap();
    assert_eq!(merged.parts()[1].user_offset_ns(), 5_000);
    assert_part_is(&merged, 1, &one);
    merged.set_user_offset(1, -1_000).unwrap();
    assert_eq!(merged.parts()[1].offset_ns, -1_000);
    assert_part_is(&merged, 1, &one);
    assert!(merged.shift_part(2, 1).is_err());
    // Line the two files up on the first kernel of a name: back where they were.
    let kernel = one
        .events()
        .find(|e| e.kind == sightline::timeline::EventKind::Kernel)
        .unwrap();
    let name = one.name(kernel.name).to_owned();
    let moved = merged.align_on(&name).unwrap();
    assert_eq!(moved, vec![(1, 1_000)]);
    assert_eq!(merged.parts()[1].offset_ns, 0);
    assert_part_is(&merged, 1, &one);
    assert!(merged.align_on("no event has this name").is_err());
    merged.rename_part(0, "rank 0".into()).unwrap();
    assert_eq!(
        merged.track(merged.parts()[0].group).unwrap().name,
        "rank 0"
    );
}

#[test]
fn corpus_exports_of_different_machines_align_by_their_session_starts() {
    let Some(files) = crate::common::nsys_manifest_exports() else {
        return;
    };
    let loaded: Vec<(PathBuf, Timeline)> = files
        .iter()
        .filter_map(|f| nsys::load(f).ok().map(|t| (f.clone(), t)))
        .collect();
    let mut merged_pairs = 0;
    for pair in loaded.windows(2) {
        let ((fa, a), (fb, b)) = (&pair[0], &pair[1]);
        let merged = merge(vec![
            (a.clone(), default_label(a)),
            (b.clone(), default_label(b)),
        ]);
        let (pa, pb) = (&merged.parts()[0], &merged.parts()[1]);
        match (a.session.start_utc_ns, b.session.start_utc_ns) {
            (Some(sa), Some(sb)) => {
                let earliest = sa.min(sb);
                assert_eq!(pa.offset_ns, sa - earliest, "{}", fa.display());
                assert_eq!(pb.offset_ns, sb - earliest, "{}", fb.display());
                assert_eq!(merged.session.start_utc_ns, Some(earliest));
                assert!(pa.clock_known && pb.clock_known);
            }
            (sa, sb) => {
                assert_eq!(pa.clock_known, sa.is_some());
                assert_eq!(pb.clock_known, sb.is_some());
                if sa.is_none() {
                    assert_eq!(pa.offset_ns, 0, "{}: no clock, placed at 0", fa.display());
                }
            }
        }
        assert_part_is(&merged, 0, a);
        assert_part_is(&merged, 1, b);
        let mut imports = a.session.imports.clone();
        imports.add(&b.session.imports);
        assert_eq!(merged.session.imports, imports);
        merged_pairs += 1;
    }
    assert!(merged_pairs > 0, "no two exports of the corpus load");
}

/// Per-name sums of a summary report's `Total Time (ns)` and `Instances` (or `Num Calls`).
fn sums(table: &ReportTable) -> BTreeMap<String, (f64, f64)> {
    let col = |name: &str| table.columns.iter().position(|c| c == name);
    let name = col("Name")
        .or_else(|| col("Operation"))
        .or_else(|| col("Range"));
    let total = col("Total Time (ns)").or_else(|| col("Total (MB)"));
    let count = col("Instances")
        .or_else(|| col("Num Calls"))
        .or_else(|| col("Count"));
    let (Some(name), Some(total), Some(count)) = (name, total, count) else {
        panic!("{}: columns {:?}", table.report, table.columns);
    };
    let number = |c: &Cell| c.as_str().parse::<f64>().unwrap_or(0.0);
    // Exports without `ENUM_CUDA_MEMCPY_OPER` get nsys 2022.4's memory labels; merged with one
    // that has it, the set gets the newer labels.
    let label = |text: &str| -> String {
        [
            ("HtoD]", "Host-to-Device]"),
            ("DtoH]", "Device-to-Host]"),
            ("DtoD]", "Device-to-Device]"),
            ("HtoH]", "Host-to-Host]"),
            ("PtoP]", "Peer-to-Peer]"),
        ]
        .iter()
        .fold(text.to_owned(), |t, (old, new)| t.replace(old, new))
    };
    let mut out: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for row in table.rows.iter() {
        let e = out.entry(label(row[name].as_str())).or_default();
        e.0 += number(&row[total]);
        e.1 += number(&row[count]);
    }
    out
}

fn table(export: &Path, report: &str) -> Option<ReportTable> {
    match stats::run_reports(export, &[report]).ok()?.remove(0).1 {
        ReportOutcome::Table(t) => Some(t),
        ReportOutcome::Skipped(_) => None,
    }
}

#[test]
fn merged_stats_equal_the_sum_of_the_files() {
    let Some(files) = crate::common::nsys_manifest_exports() else {
        return;
    };
    let readable: Vec<PathBuf> = files
        .into_iter()
        .filter(|f| nsys::ExportDb::open(f).is_ok())
        .collect();
    const SUMMARIES: &[&str] = &[
        "cuda_gpu_kern_sum",
        "cuda_api_sum",
        "osrt_sum",
        "nvtx_sum",
        "cuda_gpu_mem_time_sum",
        "cuda_gpu_mem_size_sum",
    ];
    const TRACES: &[&str] = &["cuda_gpu_trace", "cuda_api_trace"];
    let mut compared = 0;
    for pair in readable.windows(2) {
        let merged = MergedExport::build(pair).unwrap_or_else(|e| panic!("{e}"));
        for report in SUMMARIES {
            let parts: Vec<Option<ReportTable>> = pair.iter().map(|f| table(f, report)).collect();
            let Some(whole) = table(merged.path(), report) else {
                assert!(
                    parts.iter().all(Option::is_none),
                    "{report}: skipped when merged"
                );
                continue;
            };
            let mut expected: BTreeMap<String, (f64, f64)> = BTreeMap::new();
            for t in parts.iter().flatten() {
                for (name, (total, count)) in sums(t) {
                    let e = expected.entry(name).or_default();
                    e.0 += total;
                    e.1 += count;
                }
            }
            let got = sums(&whole);
            assert_eq!(
                got.keys().collect::<Vec<_>>(),
                expected.keys().collect::<Vec<_>>(),
                "{report} of {pair:?}"
            );
            for (name, (total, count)) in &got {
                let (t, c) = expected[name];
                assert_eq!(*count, c, "{report} {name}: instances of {pair:?}");
                // Sizes are printed in MB with three decimals: each total is rounded (±0.0005).
                let slack = if report.ends_with("size_sum") {
                    0.0005 * (pair.len() + 1) as f64
                } else {
                    1e-6 * t.abs().max(1.0)
                };
                assert!(
                    (total - t).abs() <= slack,
                    "{report} {name}: {total} vs {t}"
                );
            }
            compared += 1;
        }
        for report in TRACES {
            let rows = |t: Option<ReportTable>| t.map_or(0, |t| t.rows.len());
            let expected: usize = pair.iter().map(|f| rows(table(f, report))).sum();
            assert_eq!(
                rows(table(merged.path(), report)),
                expected,
                "{report} of {pair:?}"
            );
        }
    }
    assert!(compared > 0, "no report compared");
}

#[test]
fn stats_and_timeline_commands_take_several_files() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.sqlite");
    let b = dir.path().join("b.sqlite");
    std::fs::copy(fixtures().join("nsys/synth_2k.sqlite"), &a).unwrap();
    std::fs::copy(fixtures().join("nsys/synth_2k.sqlite"), &b).unwrap();
    let run = |args: &[&std::ffi::OsStr]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_sightline"))
            .args(args)
            .output()
            .unwrap()
    };
    let (a, b) = (a.as_os_str(), b.as_os_str());
    let refused = run(&["stats".as_ref(), a, b]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--merge"));
    let one = run(&["stats".as_ref(), a, "--format".as_ref(), "csv".as_ref()]);
    let per_file = run(&[
        "stats".as_ref(),
        a,
        b,
        "--per-file".as_ref(),
        "--format".as_ref(),
        "csv".as_ref(),
    ]);
    let text = String::from_utf8_lossy(&per_file.stdout);
    assert_eq!(text.matches("==> ").count(), 2);
    assert_eq!(
        text.matches(&*String::from_utf8_lossy(&one.stdout)).count(),
        2
    );
    let merged = run(&[
        "stats".as_ref(),
        a,
        b,
        "--merge".as_ref(),
        "--report".as_ref(),
        "cuda_gpu_kern_sum".as_ref(),
        "--format".as_ref(),
        "csv".as_ref(),
    ]);
    assert!(
        merged.status.success(),
        "{}",
        String::from_utf8_lossy(&merged.stderr)
    );
    let json = run(&[
        "timeline".as_ref(),
        a,
        b,
        "--json".as_ref(),
        "--offset".as_ref(),
        "1=250".as_ref(),
    ]);
    assert!(
        json.status.success(),
        "{}",
        String::from_utf8_lossy(&json.stderr)
    );
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let files = value["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    assert_eq!(files[1]["offset_ns"], 250);
    assert_eq!(files[1]["clock_ns"], 0);
    assert_eq!(value["tracks"].as_array().unwrap().len(), 2);
    assert_eq!(value["tracks"][0]["kind"], "file");
}

/// A merged timeline links with an Nsight Compute report through each file's own export: the
/// corpus pair (extrap ex-gpu) merged after another rank's export gives the same six certain
/// matches as alone, each on the merged event of the same kernel.
#[test]
fn a_merged_timeline_links_each_file_through_its_own_export() {
    use sightline::link::{Certainty, link_files, link_sources};
    let Some((export, report)) = crate::common::extrap_pair() else {
        return;
    };
    let report = sightline::ncu::Report::open(&report).unwrap();
    let alone = nsys::load(&export).unwrap();
    let single = link_files(&export, &alone, &report).unwrap();
    // Another rank first: the pair's export is the merged timeline's second file.
    let other = fixtures().join("nsys/synth_2k.sqlite");
    let first = nsys::load(&other).unwrap();
    let merged = merge(vec![
        (first.clone(), default_label(&first)),
        (alone.clone(), default_label(&alone)),
    ]);
    let sources = vec![
        (other.clone(), merged.parts()[0].events.clone()),
        (export.clone(), merged.parts()[1].events.clone()),
    ];
    let set = link_sources(&sources, &merged, &report).unwrap();
    let base = merged.parts()[1].events.start;
    assert_eq!(set.links.results.len(), single.links.results.len());
    for (m, s) in set.links.results.iter().zip(&single.links.results) {
        assert_eq!(m.certainty, Certainty::Certain, "{m:?}");
        assert_eq!(s.certainty, Certainty::Certain);
        let event = |set: &sightline::link::LinkSet, k: usize| set.kernels[k].event.0;
        assert_eq!(
            event(&set, m.candidates[0].kernel),
            event(&single, s.candidates[0].kernel) + base
        );
    }
}
