//! `sightline gainsight`: GPGPU-Sim logs → `NAME.sim_l1.csv`, `NAME.sim_l2.csv`, `NAME.sim.csv`
//! and `NAME.json` like Gainsight's frontend, plus a summary (or the JSON) on stdout.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;

use crate::gainsight::{
    Analysis, AnalyzeOptions, FrontendReport, GainsightError, Level, Params, Selection,
    analyze_paths, report_date_time, write_kernel_csv, write_lifetime_header, write_lifetime_rows,
};

/// Arguments of `sightline gainsight`.
#[derive(clap::Args, Debug, Clone)]
pub struct GainsightArgs {
    /// Logs, or folders of logs (e.g. one per kernel).
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// Parameter file (TOML) layered over the defaults.
    #[arg(long, value_name = "FILE")]
    pub params: Option<PathBuf>,
    /// Output folder.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub out: PathBuf,
    /// Output name (default: the program name from the log).
    #[arg(long)]
    pub name: Option<String>,
    /// Print the JSON report instead of the summary.
    #[arg(long)]
    pub json: bool,
    /// Worker threads (0: one per core).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub threads: usize,
}

fn create(path: &Path) -> anyhow::Result<BufWriter<File>> {
    let file = File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    Ok(BufWriter::with_capacity(1 << 20, file))
}

/// Runs the analysis, writes the four files and prints the summary or the JSON.
pub fn run(args: &GainsightArgs, mut out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let params = match &args.params {
        Some(path) => Params::load(path)?,
        None => Params::default(),
    };
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let (analysis, [tmp_l1, tmp_l2]) = analyze_with_lifetime_csvs(args, &params)?;
    print_warnings(&analysis);
    let name = args.name.clone().unwrap_or_else(|| analysis.name.clone());
    let path = |suffix: &str| args.out.join(format!("{name}{suffix}"));
    std::fs::rename(&tmp_l1, path(".sim_l1.csv")).context("cannot rename the L1 lifetime CSV")?;
    std::fs::rename(&tmp_l2, path(".sim_l2.csv")).context("cannot rename the L2 lifetime CSV")?;
    let mut kernels = create(&path(".sim.csv"))?;
    write_kernel_csv(&mut kernels, &analysis.rows)?;
    kernels.flush()?;
    let (date, time) = report_date_time();
    let report = FrontendReport::compute(&analysis, &params, &name, &date, &time);
    let mut json = create(&path(".json"))?;
    report.write(&mut json)?;
    json.flush()?;
    if args.json {
        report.write(&mut out)?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    write_summary(out, &name, &analysis, &report, &params)?;
    for suffix in [".sim_l1.csv", ".sim_l2.csv", ".sim.csv", ".json"] {
        writeln!(out, "wrote {}", path(suffix).display())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Analyses the inputs, writing the L1 and L2 lifetime CSVs while kernels arrive. Returns the
/// analysis and the CSVs' temporary paths (removed on error).
fn analyze_with_lifetime_csvs(
    args: &GainsightArgs,
    params: &Params,
) -> anyhow::Result<(Analysis, [PathBuf; 2])> {
    let p = params.ns_per_cycle();
    // The lifetime CSVs are written while kernels arrive; their final name is known only after
    // the first kernel (the program name), so they start under temporary names.
    let tmp = |level: &str| {
        args.out.join(format!(
            ".gainsight-{}-{level}.csv.part",
            std::process::id()
        ))
    };
    let (tmp_l1, tmp_l2) = (tmp("l1"), tmp("l2"));
    let mut l1 = create(&tmp_l1)?;
    let mut l2 = create(&tmp_l2)?;
    write_lifetime_header(&mut l1)?;
    write_lifetime_header(&mut l2)?;
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| GainsightError::Io { path, source }
    };
    let result = analyze_paths(
        &args.inputs,
        params,
        &AnalyzeOptions {
            threads: args.threads,
            render_lifetime_csv: true,
            merged_lifetimes_only: true,
            ..AnalyzeOptions::default()
        },
        &mut |kernel| {
            if let Some([rows_l1, rows_l2]) = &kernel.lifetime_csv {
                l1.write_all(rows_l1).map_err(io(&tmp_l1))?;
                l2.write_all(rows_l2).map_err(io(&tmp_l2))?;
            } else {
                let id = kernel.id.unwrap_or_default();
                write_lifetime_rows(&mut l1, id, &kernel.lifetimes[0], p).map_err(io(&tmp_l1))?;
                write_lifetime_rows(&mut l2, id, &kernel.lifetimes[1], p).map_err(io(&tmp_l2))?;
            }
            Ok(())
        },
    );
    let finish = |mut w: BufWriter<File>| w.flush();
    let flushed = finish(l1).and(finish(l2));
    let analysis = match (result, flushed) {
        (Ok(analysis), Ok(())) => analysis,
        (result, flushed) => {
            let _ = std::fs::remove_file(&tmp_l1);
            let _ = std::fs::remove_file(&tmp_l2);
            return Err(match (result, flushed) {
                (Err(e), _) => e.into(),
                (Ok(_), Err(e)) => anyhow::Error::from(e).context("cannot write the lifetime CSVs"),
                (Ok(_), Ok(())) => anyhow::anyhow!("cannot write the lifetime CSVs"),
            });
        }
    };
    Ok((analysis, [tmp_l1, tmp_l2]))
}

/// Prints the analysis's warnings on stderr, and how many more there were.
fn print_warnings(analysis: &Analysis) {
    for warning in &analysis.warnings {
        eprintln!(
            "sightline: warning: {}",
            warning.problem.plain_in(&warning.file)
        );
    }
    if analysis.warnings_dropped > 0 {
        eprintln!(
            "sightline: warning: {} more warnings not shown",
            analysis.warnings_dropped
        );
    }
}

/// Writes the summary: the lines read, then per level the lifetimes, the write frequency,
/// each cell type's share of lifetimes needing no refresh, and the areas.
fn write_summary(
    out: &mut dyn Write,
    name: &str,
    analysis: &Analysis,
    report: &FrontendReport,
    params: &Params,
) -> anyhow::Result<()> {
    let lines = &analysis.lines;
    writeln!(
        out,
        "{name}: {} kernel(s) from {} file(s), {:.1} MB, {} lines ({} accesses, {} reservation fails, {} other caches, {} skipped, {} malformed)",
        analysis.kernels.len(),
        analysis.files.len(),
        analysis.bytes as f64 / 1e6,
        lines.total,
        lines.accesses,
        lines.reservation_fails,
        lines.other_cache,
        lines.skipped,
        lines.malformed
    )?;
    for level in Level::ALL {
        let i = level.index();
        let store = analysis.store.level(level);
        let wf = &report.write_frequency[i];
        writeln!(
            out,
            "{}: {} lifetimes; write frequency max {} (kernel {}), 90%-tile {}, weighted {}",
            level.label(),
            report.lifetime_count[i],
            wf.max,
            analysis
                .rows
                .get(wf.maxidx as usize)
                .map_or(0, |r| r.kernel_id),
            wf.p90,
            wf.weighted
        )?;
        for cell in &params.retention {
            let share = store.covered_share(Selection::All, cell.retention_us, params.clock_mhz);
            let refreshes = store.refreshes(Selection::All, cell.retention_us, params.clock_mhz);
            writeln!(
                out,
                "  {:<14} retention {:>12} µs: {:>6.2}% of lifetimes need no refresh, {refreshes} refreshes",
                cell.name,
                cell.retention_us,
                share * 100.0
            )?;
        }
        let areas: Vec<String> = report.area[i]
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        writeln!(out, "  area: {}", areas.join(", "))?;
    }
    Ok(())
}
