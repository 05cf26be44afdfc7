//! `sightline timeline`: the track tree of a timeline with event counts and time spans (text or
//! JSON), or every event as JSON lines.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::core::{FnSink, Progress, Step};
use crate::kind::FileKind;
use crate::pyjson::write_string;
use crate::timeline::ImportStats;
use crate::timeline::nsys::LoadOptions;
use crate::timeline::{
    DetailSource, EventId, MergeInput, Timeline, TimelineFileKind, TrackId, TrackKind, load_merged,
    load_timeline, timeline_inputs,
};

use super::analysis_summary::summary_json;
use super::common::ValueError;
use super::stats::export_for;

/// Arguments of `sightline timeline`.
#[derive(clap::Args, Debug, Clone)]
pub struct TimelineArgs {
    /// The export (.sqlite), report (.nsys-rep, .qdrep: exported with `nsys` first), NVTXT
    /// file (.nvtxt) or CodeXL trace (.atp). Several files, or a folder, are merged onto one
    /// timeline (a group per file, aligned by their session starts).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Merge even a single file into a group of its own (several files are always merged).
    #[arg(long)]
    pub merge: bool,
    /// Move file K (0-based, in the order given) by NS nanoseconds after the alignment:
    /// `--offset 1=-2500`. Repeatable.
    #[arg(long, value_name = "K=NS", value_parser = parse_offset)]
    pub offset: Vec<(usize, i64)>,
    /// Line the files up on the first event of this name in each (e.g. an NVTX range), for
    /// files without a common clock.
    #[arg(long, value_name = "NAME")]
    pub align_on: Option<String>,
    /// Print the tree as JSON.
    #[arg(long, conflicts_with = "events")]
    pub json: bool,
    /// Print every event as a JSON line {"track","kind","name","start","end","correlation"}.
    #[arg(long)]
    pub events: bool,
    /// The nsys executable used to export .nsys-rep/.qdrep reports.
    #[arg(long, value_name = "PATH")]
    pub nsys: Option<PathBuf>,
    /// Print the load time and memory per event on stderr, with the time of each stage; loads
    /// as the app does (an export's CPU samples' call stacks last) and says when the timeline
    /// without them was ready.
    #[arg(long)]
    pub timing: bool,
    /// Do not load the .nvtxt files beside an export onto its timeline.
    #[arg(long)]
    pub no_nvtxt: bool,
}

/// Resident set size of this process (Linux `/proc/self/statm`, 4 KiB pages).
#[cfg(not(windows))]
fn rss_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// The working set of this process (Windows' resident memory), from `GetProcessMemoryInfo`.
#[cfg(windows)]
fn rss_bytes() -> Option<u64> {
    use windows_sys::Win32::System::ProcessStatus::{
        GetProcessMemoryInfo, PROCESS_MEMORY_COUNTERS,
    };
    use windows_sys::Win32::System::Threading::GetCurrentProcess;
    let size = u32::try_from(std::mem::size_of::<PROCESS_MEMORY_COUNTERS>()).ok()?;
    // SAFETY: all-zero is a valid PROCESS_MEMORY_COUNTERS (integers only); the call writes at
    // most `size` bytes into it, and the pseudo handle of the current process needs no closing.
    let ok = unsafe {
        let mut counters: PROCESS_MEMORY_COUNTERS = std::mem::zeroed();
        counters.cb = size;
        (GetProcessMemoryInfo(GetCurrentProcess(), &mut counters, size) != 0)
            .then_some(counters.WorkingSetSize)
    };
    ok.and_then(|bytes| u64::try_from(bytes).ok())
}

/// `K=NS` of `--offset`.
fn parse_offset(text: &str) -> Result<(usize, i64), ValueError> {
    let (k, ns) = text
        .split_once('=')
        .ok_or_else(|| ValueError::Offset(text.to_owned()))?;
    let k = k.trim().parse().map_err(ValueError::number(k))?;
    let ns = ns.trim().parse().map_err(ValueError::number(ns))?;
    Ok((k, ns))
}

/// The timeline kind of `file` and the export to read for it.
pub(crate) fn input_for(file: &Path, nsys: Option<&Path>) -> anyhow::Result<MergeInput> {
    let kind = TimelineFileKind::from_kind(FileKind::of_path(file))
        .unwrap_or(TimelineFileKind::NsysExport);
    let export = match kind {
        TimelineFileKind::NsysExport | TimelineFileKind::NsysReport => export_for(file, nsys)?,
        _ => file.to_path_buf(),
    };
    Ok(MergeInput {
        path: file.to_path_buf(),
        kind,
        export,
    })
}

/// Loads the files onto one timeline, lines them up as asked and prints what was asked for.
fn run_merged(args: &TimelineArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let files = timeline_inputs(&args.files)?;
    let inputs = files
        .iter()
        .map(|f| input_for(f, args.nsys.as_deref()))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let started = std::time::Instant::now();
    let loaded = load_merged(&inputs, crate::core::Progress::none())?;
    let mut timeline = loaded.timeline;
    if let Some(name) = &args.align_on {
        for (k, delta) in timeline.align_on(name)? {
            eprintln!("aligned file {k} on \"{name}\": moved by {delta} ns");
        }
    }
    for &(k, ns) in &args.offset {
        timeline.shift_part(k, ns)?;
    }
    if args.timing {
        eprintln!(
            "timing: loaded and merged {} files, {} events in {:.3} s; model {:.1} B/event",
            inputs.len(),
            timeline.event_count(),
            started.elapsed().as_secs_f64(),
            timeline.heap_bytes() as f64 / timeline.event_count().max(1) as f64
        );
    }
    for w in &timeline.warnings {
        eprintln!("{w}");
    }
    let name = files
        .iter()
        .map(|f| f.display().to_string())
        .collect::<Vec<_>>()
        .join(" + ");
    if args.events {
        write_events(&timeline, out)?;
    } else if args.json {
        write_json(Path::new(&name), &timeline, out)?;
    } else {
        write_text(Path::new(&name), &timeline, true, out)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Loads the file and prints what was asked for.
pub fn run(args: &TimelineArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let single = match args.files.as_slice() {
        [one] if !one.is_dir() && !args.merge => one,
        _ => return run_merged(args, out),
    };
    if !args.offset.is_empty() || args.align_on.is_some() {
        anyhow::bail!("--offset and --align-on need several files (or --merge)");
    }
    let MergeInput { kind, export, .. } = input_for(single, args.nsys.as_deref())?;
    let rss_before = rss_bytes();
    let started = std::time::Instant::now();
    // With --timing: when each stage of the load ended (the tables read, linking and packing),
    // and when the timeline without the CPU samples' call stacks was ready (what the app shows
    // first).
    let mut stages: Vec<(String, std::time::Duration)> = Vec::new();
    let on_progress = FnSink::new(|step: &Step<'_>| match stages.last_mut() {
        Some((table, at)) if table == step.stage => *at = started.elapsed(),
        _ => stages.push((step.stage.to_owned(), started.elapsed())),
    });
    let mut preview_at = None;
    // The first look at what was read so far (when, how many events on how many tracks).
    let mut first_partial = None;
    let mut on_preview = |t: Timeline| {
        if !t.partial {
            preview_at = Some(started.elapsed());
        } else if first_partial.is_none() {
            first_partial = Some((started.elapsed(), t.event_count(), t.tracks.len()));
        }
    };
    let options = if args.timing {
        LoadOptions {
            progress: Progress::new(&on_progress),
            preview: Some(&mut on_preview),
            ..LoadOptions::default()
        }
    } else {
        LoadOptions::default()
    };
    let loaded = load_timeline(single, kind, &export, options, !args.no_nvtxt)?;
    let timeline = loaded.timeline;
    for doc in &loaded.nvtxt {
        if kind.takes_nvtxt() {
            eprintln!(
                "{}: NVTXT file loaded onto the timeline",
                doc.path.display()
            );
        }
    }
    if args.timing {
        LoadTiming {
            started,
            rss_before,
            stages: &stages,
            first_partial,
            preview_at,
        }
        .print(&timeline, &loaded.details);
    }
    for w in &timeline.warnings {
        eprintln!("{w}");
    }
    if args.events {
        write_events(&timeline, out)?;
    } else if args.json {
        write_json(single, &timeline, out)?;
    } else {
        let from_nsys = matches!(
            kind,
            TimelineFileKind::NsysExport | TimelineFileKind::NsysReport
        );
        write_text(single, &timeline, from_nsys, out)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// What `--timing` measured of a load.
struct LoadTiming<'a> {
    /// When the load started.
    started: std::time::Instant,
    /// The resident set size before the load.
    rss_before: Option<u64>,
    /// When each stage of the load ended (the tables read, linking and packing).
    stages: &'a [(String, std::time::Duration)],
    /// The first look at what was read so far: when, how many events on how many tracks.
    first_partial: Option<(std::time::Duration, usize, usize)>,
    /// When the timeline without the CPU samples' call stacks was ready.
    preview_at: Option<std::time::Duration>,
}

impl LoadTiming<'_> {
    /// Prints the timing on stderr: the whole load with the memory it took, each stage, and
    /// when the first previews were ready.
    fn print(&self, timeline: &Timeline, details: &DetailSource) {
        let elapsed = self.started.elapsed();
        let n = timeline.event_count().max(1) as f64;
        let grown = match (self.rss_before, rss_bytes()) {
            (Some(a), Some(b)) => format!(
                "{:.1} MB ({:.1} B/event)",
                b.saturating_sub(a) as f64 / 1e6,
                b.saturating_sub(a) as f64 / n
            ),
            _ => "unknown".into(),
        };
        // What is kept for details beside the model (a CodeXL trace's commands and names; the
        // file itself is mapped, not read into memory).
        let kept = match details {
            DetailSource::Atp(file) => format!(
                "; details store {:.1} B/event",
                file.heap_bytes() as f64 / n
            ),
            _ => String::new(),
        };
        eprintln!(
            "timing: loaded {} events in {:.3} s; RSS growth {grown}; model {:.1} B/event{kept}",
            timeline.event_count(),
            elapsed.as_secs_f64(),
            timeline.heap_bytes() as f64 / n
        );
        let mut previous = std::time::Duration::ZERO;
        for (stage, at) in self.stages {
            eprintln!(
                "timing:   {stage:<32} {:>8.3} s (until {:.3} s)",
                (*at - previous).as_secs_f64(),
                at.as_secs_f64()
            );
            previous = *at;
        }
        if let Some((at, events, tracks)) = self.first_partial {
            eprintln!(
                "timing: the first preview ({events} events on {tracks} tracks) was ready at {:.3} s",
                at.as_secs_f64()
            );
        }
        if let Some(at) = self.preview_at {
            eprintln!(
                "timing: the timeline without the samples' call stacks was ready at {:.3} s",
                at.as_secs_f64()
            );
        }
    }
}

/// Per-node totals over the node and everything below it.
#[derive(Debug, Clone, Copy, Default)]
struct Totals {
    events: u64,
    /// Counter samples held as series (GPU metrics).
    samples: u64,
    start: Option<i64>,
    end: Option<i64>,
}

fn totals(tl: &Timeline) -> Vec<Totals> {
    let mut out = vec![Totals::default(); tl.tracks.len()];
    // Children come after their parents: accumulate from the back.
    for (i, track) in tl.tracks.iter().enumerate().rev() {
        let mut t = out[i];
        for row in &track.rows {
            if row.is_empty() {
                continue;
            }
            t.events += row.len() as u64;
            if let (Some(first), Some(last)) = (
                tl.event(crate::timeline::EventId(row.start)),
                tl.event(crate::timeline::EventId(row.end - 1)),
            ) {
                t.start = Some(t.start.map_or(first.start, |s| s.min(first.start)));
                t.end = Some(t.end.map_or(last.end, |e| e.max(last.end)));
            }
        }
        if let Some(series) = tl.counter_series(TrackId(i as u32)) {
            t.samples += series.len() as u64;
            if let Some((first, last)) = series.extent() {
                t.start = Some(t.start.map_or(first, |s| s.min(first)));
                t.end = Some(t.end.map_or(last, |e| e.max(last)));
            }
        }
        out[i] = t;
        if let Some(p) = track.parent {
            let parent = &mut out[p.0 as usize];
            parent.events += t.events;
            parent.samples += t.samples;
            if let Some(s) = t.start {
                parent.start = Some(parent.start.map_or(s, |x| x.min(s)));
            }
            if let Some(e) = t.end {
                parent.end = Some(parent.end.map_or(e, |x| x.max(e)));
            }
        }
    }
    out
}

fn kind_name(kind: TrackKind) -> &'static str {
    match kind {
        TrackKind::Machine => "machine",
        TrackKind::Process => "process",
        TrackKind::Thread => "thread",
        TrackKind::Gpu => "gpu",
        TrackKind::Context => "context",
        TrackKind::Stream => "stream",
        TrackKind::Queue => "queue",
        TrackKind::Series => "series",
        TrackKind::File => "file",
    }
}

/// The summary text; `from_nsys` says the timeline is an Nsight Systems export, whose version
/// is given (or said to be unknown where the export has no version table).
fn write_text(
    file: &Path,
    tl: &Timeline,
    from_nsys: bool,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    writeln!(out, "{}", file.display())?;
    write_origin(tl, from_nsys, out)?;
    let s = &tl.session;
    for g in &s.gpus {
        writeln!(out, "  GPU {}: {}", g.id, g.name)?;
    }
    let counts: Vec<String> = tl
        .counts_by_kind()
        .iter()
        .map(|(k, n)| format!("{} {n}", k.as_str()))
        .collect();
    writeln!(
        out,
        "  {} events ({}), {} flows",
        tl.event_count(),
        counts.join(", "),
        tl.flows().len()
    )?;
    if tl.sample_count() > 0 {
        writeln!(
            out,
            "  {} samples in {} metric tracks",
            tl.sample_count(),
            tl.all_counter_series().len()
        )?;
    }
    for u in tl.gpu_utilization(None) {
        writeln!(
            out,
            "  GPU {} utilization: {:.1}% ({} ns busy of {} ns)",
            u.device,
            100.0 * u.fraction,
            u.busy_ns,
            u.range_ns
        )?;
    }
    write_track_tree(tl, out)
}

/// Where the timeline comes from: the Nsight Systems version (`from_nsys`: said to be
/// unknown where the export has no version table), the session start, and each merged
/// file with its offset.
fn write_origin(tl: &Timeline, from_nsys: bool, out: &mut dyn Write) -> std::io::Result<()> {
    let s = &tl.session;
    let merged = !tl.parts().is_empty();
    match (&s.product_version, &s.schema_version) {
        // A merged timeline: each file's version is on its line.
        _ if merged => {}
        (Some(v), schema) => writeln!(
            out,
            "  written by Nsight Systems {v} (schema {})",
            schema.as_deref().unwrap_or("unknown")
        )?,
        (None, Some(schema)) => writeln!(
            out,
            "  written by Nsight Systems of unknown version (schema {schema})"
        )?,
        // The oldest layout has no version table: the version cannot be known.
        (None, None) if from_nsys => writeln!(
            out,
            "  written by Nsight Systems of unknown version (the export has no version table)"
        )?,
        (None, None) => {}
    }
    if let Some(ns) = s.start_utc_ns {
        writeln!(out, "  session start: {ns} ns since the Unix epoch (UTC)")?;
    }
    for (k, p) in tl.parts().iter().enumerate() {
        let clock = if p.clock_known {
            "by its session start"
        } else {
            "no wall clock: placed at 0"
        };
        let version = match &p.session.product_version {
            Some(v) => format!(", Nsight Systems {v}"),
            None => String::new(),
        };
        writeln!(
            out,
            "  file {k}: {} ({}{version}), offset {} ns ({clock}; {} ns by hand), {} events",
            p.label,
            p.source.display(),
            p.offset_ns,
            p.user_offset_ns(),
            p.events.len()
        )?;
    }
    Ok(())
}

/// The track tree, indented by depth: each track's events (with those below it), rows and
/// time span.
fn write_track_tree(tl: &Timeline, out: &mut dyn Write) -> std::io::Result<()> {
    let totals = totals(tl);
    let mut stack: Vec<(TrackId, usize)> = tl.roots.iter().rev().map(|&r| (r, 0)).collect();
    while let Some((id, depth)) = stack.pop() {
        let Some(track) = tl.track(id) else { continue };
        let t = totals[id.0 as usize];
        let span = match (t.start, t.end) {
            (Some(a), Some(b)) => format!(", {a}..{b} ns"),
            _ => String::new(),
        };
        let mut rows = if track.rows.len() > 1 {
            format!(", {} rows", track.rows.len())
        } else {
            String::new()
        };
        if t.samples > 0 {
            rows.push_str(&format!(", {} samples", t.samples));
        }
        if let Some(unit) = tl.counter_series(id).and_then(|s| s.unit.as_deref()) {
            rows.push_str(&format!(", in {unit}"));
        }
        writeln!(
            out,
            "{}{} [{} events{rows}{span}]",
            "  ".repeat(depth + 1),
            track.name,
            t.events
        )?;
        stack.extend(track.children.iter().rev().map(|&c| (c, depth + 1)));
    }
    Ok(())
}

fn write_opt_int(out: &mut dyn Write, v: Option<i64>) -> std::io::Result<()> {
    match v {
        Some(v) => write!(out, "{v}"),
        None => write!(out, "null"),
    }
}

fn write_json(file: &Path, tl: &Timeline, out: &mut dyn Write) -> std::io::Result<()> {
    write!(out, "{{\"file\": ")?;
    write_string(&mut &mut *out, &file.display().to_string())?;
    let s = &tl.session;
    write!(out, ", \"session\": {{\"product_version\": ")?;
    match &s.product_version {
        Some(v) => write_string(&mut &mut *out, v)?,
        None => write!(out, "null")?,
    }
    write!(out, ", \"schema_version\": ")?;
    match &s.schema_version {
        Some(v) => write_string(&mut &mut *out, v)?,
        None => write!(out, "null")?,
    }
    write!(out, ", \"start_utc_ns\": ")?;
    write_opt_int(out, s.start_utc_ns)?;
    write!(out, ", \"gpus\": [")?;
    for (i, g) in s.gpus.iter().enumerate() {
        if i > 0 {
            write!(out, ", ")?;
        }
        write!(out, "{{\"id\": {}, \"name\": ", g.id)?;
        write_string(&mut &mut *out, &g.name)?;
        write!(out, "}}")?;
    }
    write!(out, "]}}, \"events\": {}, \"counts\": {{", tl.event_count())?;
    for (i, (k, n)) in tl.counts_by_kind().iter().enumerate() {
        if i > 0 {
            write!(out, ", ")?;
        }
        write!(out, "\"{}\": {n}", k.as_str())?;
    }
    write!(
        out,
        "}}, \"flows\": {}, \"gpu_utilization\": [",
        tl.flows().len()
    )?;
    for (i, u) in tl.gpu_utilization(None).iter().enumerate() {
        if i > 0 {
            write!(out, ", ")?;
        }
        write!(
            out,
            "{{\"device\": {}, \"busy_ns\": {}, \"range_ns\": {}, \"fraction\": {}}}",
            u.device, u.busy_ns, u.range_ns, u.fraction
        )?;
    }
    write!(out, "], \"warnings\": ")?;
    write_warnings_json(tl, out)?;
    write!(out, ", \"files\": [")?;
    for (k, p) in tl.parts().iter().enumerate() {
        if k > 0 {
            write!(out, ", ")?;
        }
        write!(out, "{{\"label\": ")?;
        write_string(&mut &mut *out, &p.label)?;
        write!(out, ", \"file\": ")?;
        write_string(&mut &mut *out, &p.source.display().to_string())?;
        if let Some((rank, from)) = tl.mpi_rank(Some(k)) {
            write!(out, ", \"mpi_rank\": {rank}, \"mpi_rank_from\": ")?;
            write_string(&mut &mut *out, from.describe())?;
        }
        write!(
            out,
            ", \"offset_ns\": {}, \"clock_ns\": {}, \"clock_known\": {}, \"events\": {}, \"sources\": ",
            p.offset_ns,
            p.clock_ns,
            p.clock_known,
            p.events.len()
        )?;
        write_sources_json(&p.session.imports, out)?;
        write!(out, ", \"analysis_summary\": ")?;
        serde_json::to_writer(&mut *out, &summary_json(&p.session))?;
        write!(out, "}}")?;
    }
    write!(out, "], \"sources\": ")?;
    write_sources_json(&tl.session.imports, out)?;
    write!(out, ", \"analysis_summary\": ")?;
    serde_json::to_writer(&mut *out, &summary_json(&tl.session))?;
    write!(out, ", \"tracks\": [")?;
    let totals = totals(tl);
    for (i, &r) in tl.roots.iter().enumerate() {
        if i > 0 {
            write!(out, ", ")?;
        }
        write_track_json(tl, &totals, r, out)?;
    }
    writeln!(out, "]}}")
}

/// The load's warnings: `[{"file": F, "position": P, "severity": S, "message": M}]`.
fn write_warnings_json(tl: &Timeline, out: &mut dyn Write) -> std::io::Result<()> {
    write!(out, "[")?;
    for (i, w) in tl.warnings.iter().enumerate() {
        if i > 0 {
            write!(out, ", ")?;
        }
        write!(out, "{{\"file\": ")?;
        write_string(&mut &mut *out, &w.file.display().to_string())?;
        write!(out, ", \"position\": ")?;
        write_string(&mut &mut *out, &w.problem.location.to_string())?;
        write!(out, ", \"severity\": \"{}\"", w.problem.severity)?;
        write!(out, ", \"message\": ")?;
        write_string(&mut &mut *out, &w.problem.message)?;
        write!(out, "}}")?;
    }
    write!(out, "]")
}

/// The import statistics: `{"<TABLE>": {"rows": N, "events": M, "attached": A, "skipped":
/// {"<reason>": K}, "documented": true}}`.
fn write_sources_json(imports: &ImportStats, out: &mut dyn Write) -> std::io::Result<()> {
    write!(out, "{{")?;
    for (i, (name, s)) in imports.sources.iter().enumerate() {
        if i > 0 {
            write!(out, ", ")?;
        }
        write_string(&mut &mut *out, name)?;
        write!(
            out,
            ": {{\"rows\": {}, \"events\": {}, \"attached\": {}, \"skipped\": {{",
            s.rows, s.events, s.attached
        )?;
        for (j, (reason, n)) in s.skipped.iter().enumerate() {
            if j > 0 {
                write!(out, ", ")?;
            }
            write_string(&mut &mut *out, reason)?;
            write!(out, ": {n}")?;
        }
        write!(out, "}}, \"documented\": {}}}", s.documented)?;
    }
    write!(out, "}}")
}

fn write_track_json(
    tl: &Timeline,
    totals: &[Totals],
    id: TrackId,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let Some(track) = tl.track(id) else {
        return write!(out, "null");
    };
    let t = totals[id.0 as usize];
    write!(out, "{{\"name\": ")?;
    write_string(&mut &mut *out, &track.name)?;
    write!(
        out,
        ", \"kind\": \"{}\", \"events\": {}, \"rows\": {}, \"start\": ",
        kind_name(track.kind),
        t.events,
        track.rows.len()
    )?;
    write_opt_int(out, t.start)?;
    write!(out, ", \"end\": ")?;
    write_opt_int(out, t.end)?;
    if t.samples > 0 {
        write!(out, ", \"samples\": {}", t.samples)?;
    }
    if let Some(series) = tl.counter_series(id) {
        write!(out, ", \"unit\": ")?;
        match &series.unit {
            Some(unit) => write_string(&mut &mut *out, unit)?,
            None => write!(out, "null")?,
        }
    }
    write!(out, ", \"children\": [")?;
    for (i, &c) in track.children.iter().enumerate() {
        if i > 0 {
            write!(out, ", ")?;
        }
        write_track_json(tl, totals, c, out)?;
    }
    write!(out, "]}}")
}

/// One JSON object per line: `{"track","kind","name","start","end","correlation"}` (ns;
/// `correlation` is null when the event has none), with `"fields": {NAME: VALUE}` when the
/// event has fields of its own (an NVTX payload, its binary payload decoded; a kernel launched
/// in an NCCL range: `{"NCCL: ncclAllReduce": {the range's fields}}`); a counter sample
/// held as a series (a GPU metric) is `{"track","kind": "counter","name": TRACK,"start","end",
/// "correlation": null,"value"}`.
fn write_events(tl: &Timeline, out: &mut dyn Write) -> std::io::Result<()> {
    let launch_ranges = tl.launch_ranges();
    let mut order: Vec<TrackId> = Vec::new();
    let mut stack: Vec<TrackId> = tl.roots.iter().rev().copied().collect();
    while let Some(id) = stack.pop() {
        order.push(id);
        if let Some(t) = tl.track(id) {
            stack.extend(t.children.iter().rev().copied());
        }
    }
    for id in order {
        let Some(track) = tl.track(id) else { continue };
        if let Some(series) = tl.counter_series(id) {
            write_samples(tl, id, series, out)?;
        }
        if track.rows.iter().all(|r| r.is_empty()) {
            continue;
        }
        let mut path = Vec::new();
        write_string(&mut path, &tl.track_path(id))?;
        for row in &track.rows {
            for i in row.clone() {
                let Some(e) = tl.event(EventId(i)) else {
                    continue;
                };
                out.write_all(b"{\"track\": ")?;
                out.write_all(&path)?;
                write!(out, ", \"kind\": \"{}\", \"name\": ", e.kind.as_str())?;
                write_string(&mut &mut *out, tl.name(e.name))?;
                write!(
                    out,
                    ", \"start\": {}, \"end\": {}, \"correlation\": ",
                    e.start, e.end
                )?;
                if e.correlation == 0 {
                    out.write_all(b"null")?;
                } else {
                    write!(out, "{}", e.correlation)?;
                }
                write_fields(tl, e.id, &launch_ranges, out)?;
                out.write_all(b"}\n")?;
            }
        }
    }
    Ok(())
}

/// The `--events` lines of a series' samples (see [`write_events`]).
fn write_samples(
    tl: &Timeline,
    id: TrackId,
    series: &crate::timeline::CounterSeries,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let mut head = Vec::new();
    head.extend_from_slice(b"{\"track\": ");
    write_string(&mut head, &tl.track_path(id))?;
    head.extend_from_slice(b", \"kind\": \"counter\", \"name\": ");
    write_string(&mut head, tl.track(id).map_or("", |t| t.name.as_str()))?;
    for (t, v) in series.iter() {
        out.write_all(&head)?;
        write!(
            out,
            ", \"start\": {t}, \"end\": {t}, \"correlation\": null, \"value\": "
        )?;
        if v.is_finite() {
            writeln!(out, "{v}}}")?;
        } else {
            writeln!(out, "null}}")?;
        }
    }
    Ok(())
}

/// `, "fields": {...}` for an event with fields (nothing for one without); GPU work launched in
/// an NVTX range with a payload (an NCCL kernel) carries the range's fields under its label
/// (`launch_ranges`: [`Timeline::launch_ranges`]).
fn write_fields(
    tl: &Timeline,
    event: EventId,
    launch_ranges: &std::collections::HashMap<EventId, EventId>,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let fields = tl.event_fields_in(event, launch_ranges);
    if fields.is_empty() {
        return Ok(());
    }
    let mut json = String::from(", \"fields\": ");
    crate::timeline::nsys::payload::write_fields_json(&fields, &mut json);
    out.write_all(json.as_bytes())
}
