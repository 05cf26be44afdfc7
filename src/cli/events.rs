//! `sightline events`: the timeline's Events view, headless — one track's events (or a counter
//! track's samples), optionally only those of a time range, filtered and sorted as the app's
//! Events view does (`timeline::EventsTable`, shared with it; a kernel's grid and block, a
//! copy's bytes and memory kinds read from the export's rows), printed as tab-separated lines
//! (what the view's Copy puts on the clipboard) or as CSV (what its Export CSV… writes).
//!
//! ```text
//! sightline events run.sqlite "Machine 0/Process 7/Thread 7/NVTX (NCCL)" --sort duration --desc --limit 20
//! ```

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::timeline::nsys::LoadOptions;
use crate::timeline::{EventsTable, Timeline, TrackId, load_timeline};

use super::common::ValueError;
use super::timeline::input_for;

/// Arguments of `sightline events`.
#[derive(clap::Args, Debug, Clone)]
pub struct EventsArgs {
    /// The export (.sqlite), report (.nsys-rep, .qdrep: exported with `nsys` first), NVTXT
    /// file (.nvtxt) or CodeXL trace (.atp).
    pub file: PathBuf,
    /// The track, by its path as `sightline timeline --events` and the details panel write it
    /// ("Machine 0/Process 12/Thread 12/CUDA API"); a unique end of a path will do.
    pub track: String,
    /// Only the events overlapping this range (ns, the timeline's clock, as `--events` prints
    /// times); a counter's samples within it.
    #[arg(long, value_name = "START..END", value_parser = parse_range)]
    pub range: Option<(i64, i64)>,
    /// Only the rows whose name, kind or fields contain this text (case-insensitive).
    #[arg(long, value_name = "TEXT")]
    pub filter: Option<String>,
    /// Sort by this column: its header ("Duration (ns)", "Message size [bytes]"), the unit in
    /// parentheses optional ("duration"); numbers sort numerically.
    #[arg(long, value_name = "COLUMN")]
    pub sort: Option<String>,
    /// Sort descending (with --sort).
    #[arg(long, requires = "sort")]
    pub desc: bool,
    /// Print only the first N rows.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Print CSV (what the app's Export CSV… writes) instead of tab-separated lines.
    #[arg(long)]
    pub csv: bool,
    /// The nsys executable used to export .nsys-rep/.qdrep reports.
    #[arg(long, value_name = "PATH")]
    pub nsys: Option<PathBuf>,
    /// Do not load the .nvtxt files beside an export onto its timeline.
    #[arg(long)]
    pub no_nvtxt: bool,
}

/// `START..END` in ns.
fn parse_range(text: &str) -> Result<(i64, i64), ValueError> {
    let (a, b) = text
        .split_once("..")
        .ok_or_else(|| ValueError::Range(text.to_owned()))?;
    let a: i64 = a.trim().parse().map_err(ValueError::number(a))?;
    let b: i64 = b.trim().parse().map_err(ValueError::number(b))?;
    if b < a {
        return Err(ValueError::Range(text.to_owned()));
    }
    Ok((a, b))
}

/// The track whose path is `path`, or the only one whose path ends with `/path`.
pub fn find_track(timeline: &Timeline, path: &str) -> anyhow::Result<TrackId> {
    let ids = (0..timeline.tracks.len()).filter_map(|i| u32::try_from(i).ok().map(TrackId));
    let paths: Vec<(TrackId, String)> = ids.map(|t| (t, timeline.track_path(t))).collect();
    if let Some((t, _)) = paths.iter().find(|(_, p)| p == path) {
        return Ok(*t);
    }
    let suffix = format!("/{}", path.trim_start_matches('/'));
    let ends: Vec<&(TrackId, String)> =
        paths.iter().filter(|(_, p)| p.ends_with(&suffix)).collect();
    match ends.as_slice() {
        [(t, _)] => Ok(*t),
        [] => anyhow::bail!(
            "no track {path:?} (the tracks are listed by `sightline timeline FILE --json`)"
        ),
        many => {
            let list: Vec<&str> = many.iter().take(10).map(|(_, p)| p.as_str()).collect();
            anyhow::bail!(
                "{} tracks end with {path:?}; give the whole path: {}",
                many.len(),
                list.join(", ")
            )
        }
    }
}

/// The rows `args` asks for, in order: filtered, sorted, cut to `--limit`.
pub fn rows_for(
    timeline: &Timeline,
    table: &EventsTable,
    args: &EventsArgs,
) -> anyhow::Result<Vec<usize>> {
    let sort = match &args.sort {
        Some(name) => match table.column_index(name) {
            Some(col) => Some((col, args.desc)),
            None => anyhow::bail!(
                "no column {name:?}; the columns are: {}",
                table.labels().join(", ")
            ),
        },
        None => None,
    };
    let mut rows = table.order(timeline, args.filter.as_deref().unwrap_or(""), sort);
    if let Some(n) = args.limit {
        rows.truncate(n);
    }
    Ok(rows)
}

/// Loads the file and prints the track's table.
pub fn run(args: &EventsArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let input = input_for(&args.file, args.nsys.as_deref())?;
    let loaded = load_timeline(
        &args.file,
        input.kind,
        &input.export,
        LoadOptions::default(),
        !args.no_nvtxt,
    )?;
    let timeline = &loaded.timeline;
    for w in &timeline.warnings {
        eprintln!("{w}");
    }
    let track = find_track(timeline, &args.track)?;
    let mut table = EventsTable::new(timeline, track, args.range);
    table.read_sources(timeline, &loaded.details, &mut |_| true);
    if let Some(problem) = table.source_problem() {
        eprintln!("{}: {problem}", args.file.display());
    }
    let rows = rows_for(timeline, &table, args)?;
    if args.csv {
        table.write_csv(timeline, &rows, out)?;
    } else {
        table.write_tsv(timeline, &rows, out)?;
    }
    Ok(ExitCode::SUCCESS)
}
