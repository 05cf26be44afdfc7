//! `sightline export FILE [FILE...] --format perfetto|chrome-json|parquet -o OUT [--from NS --to NS]`:
//! writes any timeline (an Nsight Systems export or report, an NVTXT file, a CodeXL trace, a
//! Perfetto or Chrome trace; `.nvtxt` files after the first file merged onto it; several
//! timelines or a folder as one merged timeline, a group per file) as a Perfetto
//! protobuf trace or a Chrome JSON trace, optionally only the events that overlap a time range
//! (ns as the timeline counts them, as `sightline timeline` prints them). A one-line summary
//! goes to stderr. `--format parquet` writes a folder of Parquet files instead
//! ([`super::export_parquet`]): an export's tables, its events, its `nsys stats` reports.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

use crate::kind::FileKind;
use crate::timeline::export::{ExportFormat, ExportOptions, export};
use crate::timeline::nsys::LoadOptions;
use crate::timeline::{TimelineFileKind, load_timeline, merge_nvtxt_files};

/// The output format.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Perfetto's protobuf trace (ui.perfetto.dev, trace processor).
    Perfetto,
    /// Chrome's JSON trace event format (chrome://tracing, older tools).
    ChromeJson,
    /// A folder of Apache Parquet files (as `nsys export --type parquetdir` writes): every
    /// table of an Nsight Systems export, one file each; with `--events` (always for other
    /// timelines) the timeline's events and counter samples; with `--stats` every `nsys
    /// stats` report, in `stats/`.
    Parquet,
}

/// Arguments of `sightline export`.
#[derive(clap::Args, Debug, Clone)]
pub struct ExportArgs {
    /// The timeline file (.sqlite, .nsys-rep, .qdrep, .nvtxt, .atp, .perfetto-trace, .json),
    /// then .nvtxt files to merge onto it; or several timelines (or a folder), exported as one
    /// merged timeline with a group per file.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// The output format (default: by the output's extension, .json → chrome-json, an
    /// existing folder or a name ending in `_pqtdir` → parquet, else perfetto).
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// The file to write (`-` for stdout); for parquet, the folder (created).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: PathBuf,
    /// Only events that end at or after this time (ns).
    #[arg(long, value_name = "NS", allow_hyphen_values = true)]
    pub from: Option<i64>,
    /// Only events that start at or before this time (ns).
    #[arg(long, value_name = "NS", allow_hyphen_values = true)]
    pub to: Option<i64>,
    /// The nsys executable used to export .nsys-rep/.qdrep reports.
    #[arg(long, value_name = "PATH")]
    pub nsys: Option<PathBuf>,
    /// Do not load the .nvtxt files beside an export onto its timeline.
    #[arg(long)]
    pub no_nvtxt: bool,
    /// Parquet: also the timeline's events (`events.parquet`) and counter samples
    /// (`counters.parquet`) of an Nsight Systems export.
    #[arg(long)]
    pub events: bool,
    /// Parquet: also every `nsys stats` report the export has data for, as
    /// `stats/REPORT.parquet`.
    #[arg(long)]
    pub stats: bool,
}

impl ExportArgs {
    /// The format asked for, or the one the output's name implies.
    fn format(&self) -> Format {
        self.format.unwrap_or_else(|| {
            let name = self.output.to_string_lossy();
            if self.output.is_dir() || name.ends_with("_pqtdir") {
                Format::Parquet
            } else if ExportFormat::from_path(&self.output) == Some(ExportFormat::ChromeJson) {
                Format::ChromeJson
            } else {
                Format::Perfetto
            }
        })
    }
}

/// Loads the files and writes the trace.
pub fn run(args: &ExportArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let format = match args.format() {
        Format::Parquet => return super::export_parquet::run(args),
        Format::Perfetto => ExportFormat::Perfetto,
        Format::ChromeJson => ExportFormat::ChromeJson,
    };
    if args.events || args.stats {
        anyhow::bail!("--events and --stats are options of --format parquet");
    }
    let started = std::time::Instant::now();
    let (first, rest) = args.files.split_first().context("no timeline file given")?;
    let merged = first.is_dir()
        || rest
            .iter()
            .any(|f| TimelineFileKind::of(f) != Some(TimelineFileKind::Nvtxt));
    let timeline = if merged {
        // Several timelines: one group per file, aligned by their session starts.
        let files = crate::timeline::timeline_inputs(&args.files)?;
        let inputs = files
            .iter()
            .map(|f| super::timeline::input_for(f, args.nsys.as_deref()))
            .collect::<anyhow::Result<Vec<_>>>()?;
        crate::timeline::load_merged(&inputs, crate::core::Progress::none())?.timeline
    } else {
        let kind = TimelineFileKind::from_kind(FileKind::of_path(first))
            .unwrap_or(TimelineFileKind::NsysExport);
        let source = match kind {
            TimelineFileKind::NsysExport | TimelineFileKind::NsysReport => {
                super::stats::export_for(first, args.nsys.as_deref())?
            }
            _ => first.clone(),
        };
        let loaded = load_timeline(first, kind, &source, LoadOptions::default(), !args.no_nvtxt)?;
        merge_nvtxt_files(loaded.timeline, rest).0
    };
    let loaded_in = started.elapsed();
    for w in &timeline.warnings {
        eprintln!("{w}");
    }
    let range = match (args.from, args.to) {
        (None, None) => None,
        (from, to) => Some((from.unwrap_or(i64::MIN), to.unwrap_or(i64::MAX))),
    };
    if let Some((from, to)) = range
        && from > to
    {
        anyhow::bail!("--from {from} is after --to {to}");
    }
    let options = ExportOptions {
        range,
        ..ExportOptions::default()
    };
    let to_stdout = args.output.as_os_str() == "-";
    let summary = if to_stdout {
        export(&timeline, format, options, out)?
    } else {
        let mut file = std::fs::File::create(&args.output)
            .with_context(|| format!("{}: cannot create", args.output.display()))?;
        let summary = export(&timeline, format, options, &mut file)
            .with_context(|| format!("{}: export failed", args.output.display()))?;
        file.sync_all().ok();
        summary
    };
    eprintln!(
        "exported {} events, {} tracks, {} flows, {} bytes ({}) to {} in {:.2} s (load {:.2} s, write {:.2} s)",
        summary.events,
        summary.tracks,
        summary.flows,
        summary.bytes,
        format.label(),
        if to_stdout {
            "stdout".into()
        } else {
            args.output.display().to_string()
        },
        started.elapsed().as_secs_f64(),
        loaded_in.as_secs_f64(),
        (started.elapsed() - loaded_in).as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}
