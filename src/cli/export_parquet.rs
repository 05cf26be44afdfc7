//! `sightline export FILE --format parquet -o DIR [--events] [--stats]`: a folder of Apache
//! Parquet files, one per table, as `nsys export --type parquetdir` writes one — for DuckDB,
//! Polars, pandas or Spark. For an Nsight Systems export (or report, exported first) every
//! SQLite table as `TABLE.parquet` (typed by its declared types, read around damaged pages);
//! with `--events` also `events.parquet` and `counters.parquet` (the timeline as Sightline
//! reads it); with `--stats` every `nsys stats` report with data as `stats/REPORT.parquet`.
//! Other timelines (NVTXT, CodeXL, Perfetto, Chrome) have no tables: their events and counter
//! samples are written, and with `--stats` the summary tables Sightline computes from them.
//! The same tables as the Python module's `sightline.nsys.open`. Warnings and a summary go to
//! stderr.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;

use crate::columnar::{ColumnTable, from_sqlite, from_timeline, parquet::write_parquet};
use crate::kind::FileKind;
use crate::timeline::nsys::stats::{ReportOutcome, report_names, run_report};
use crate::timeline::nsys::{ExportDb, LoadOptions};
use crate::timeline::{TimelineFileKind, load_timeline, model_reports};

use super::export::ExportArgs;

/// What was written.
#[derive(Default)]
struct Written {
    files: usize,
    rows: usize,
    bytes: u64,
}

impl Written {
    /// Writes `table` to `dir/NAME.parquet`, printing its warnings.
    fn table(&mut self, table: &ColumnTable, dir: &Path) -> anyhow::Result<()> {
        for w in &table.warnings {
            eprintln!("{}: {w}", dir.display());
        }
        let path = dir.join(format!("{}.parquet", file_stem(&table.name)));
        write_parquet(table, &path)?;
        self.files += 1;
        self.rows += table.rows;
        self.bytes += std::fs::metadata(&path).map_or(0, |m| m.len());
        Ok(())
    }
}

/// A table's name as a file name: characters a file name cannot hold on Linux or Windows
/// become `_`.
fn file_stem(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|' => '_',
            c if c.is_control() => '_',
            c => c,
        })
        .collect()
}

/// Runs `sightline export --format parquet`.
pub fn run(args: &ExportArgs) -> anyhow::Result<ExitCode> {
    let started = std::time::Instant::now();
    let [file] = args.files.as_slice() else {
        anyhow::bail!(
            "--format parquet writes one timeline's tables; {} files were given",
            args.files.len()
        );
    };
    if args.from.is_some() || args.to.is_some() {
        anyhow::bail!("--from and --to select events of a trace; Parquet tables are written whole");
    }
    let dir = &args.output;
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    let kind = TimelineFileKind::from_kind(FileKind::of_path(file))
        .unwrap_or(TimelineFileKind::NsysExport);
    let mut written = Written::default();
    let nsys = matches!(
        kind,
        TimelineFileKind::NsysExport | TimelineFileKind::NsysReport
    );
    let source = if nsys {
        super::stats::export_for(file, args.nsys.as_deref())?
    } else {
        file.clone()
    };
    if nsys {
        let db = ExportDb::open_salvaging(&source)?;
        if let Some(salvage) = &db.salvage {
            eprintln!("{}: {salvage}", file.display());
        }
        for name in from_sqlite::table_names(&db) {
            written.table(&from_sqlite::read_table(&db, &name)?, dir)?;
        }
        if args.stats {
            write_stats(&db, dir, &mut written)?;
        }
    }
    if args.events || !nsys {
        let loaded = load_timeline(file, kind, &source, LoadOptions::default(), !args.no_nvtxt)?;
        for w in &loaded.timeline.warnings {
            eprintln!("{w}");
        }
        written.table(&from_timeline::events_table(&loaded.timeline), dir)?;
        written.table(&from_timeline::counters_table(&loaded.timeline), dir)?;
        if args.stats && !nsys {
            let stats = stats_dir(dir)?;
            for (_, outcome) in model_reports(&loaded.timeline) {
                if let ReportOutcome::Table(t) = outcome {
                    written.table(&from_timeline::report_table(&t), &stats)?;
                }
            }
        }
    }
    eprintln!(
        "wrote {} Parquet files ({} rows, {} bytes) to {} in {:.2} s",
        written.files,
        written.rows,
        written.bytes,
        dir.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}

fn stats_dir(dir: &Path) -> anyhow::Result<std::path::PathBuf> {
    let stats = dir.join("stats");
    std::fs::create_dir_all(&stats)
        .with_context(|| format!("{}: cannot create", stats.display()))?;
    Ok(stats)
}

/// Every report of `nsys stats` that has data: a report the export lacks the data of is
/// skipped, one that fails is named on stderr.
fn write_stats(db: &ExportDb, dir: &Path, written: &mut Written) -> anyhow::Result<()> {
    let stats = stats_dir(dir)?;
    for name in report_names() {
        match run_report(db, name) {
            Ok(ReportOutcome::Table(t)) => {
                written.table(&from_timeline::report_table(&t), &stats)?;
            }
            Ok(ReportOutcome::Skipped(_)) => {}
            Err(e) => eprintln!("{name}: {e}"),
        }
    }
    Ok(())
}
