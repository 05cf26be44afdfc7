//! `sightline occupancy S.occupancy [--json] [--kernel N]`: a CodeXL / RCP occupancy file as a
//! table (or JSON in the shape of `counters`); with `--kernel N`, the occupancy charts of row N
//! (occupancy against VGPRs, SGPRs, LDS bytes and work-group size, the kernel's point marked).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;

use crate::codexl::{
    CounterValue, Limits, OccupancyCurve, OccupancyFile, OccupancyModel, OccupancyRow,
};

use super::counters::{TableFormat, TableView, json_string, print_warnings, write_aligned};

/// Arguments of `sightline occupancy`.
#[derive(clap::Args, Debug, Clone)]
pub struct OccupancyArgs {
    /// The occupancy file (.occupancy).
    pub file: PathBuf,
    /// Print JSON (the shape of `counters --json`, or the charts with --kernel).
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print CSV.
    #[arg(long)]
    pub csv: bool,
    /// Print the occupancy charts of row N (0-based).
    #[arg(long, value_name = "N")]
    pub kernel: Option<usize>,
}

/// Reads the file, prints warnings on stderr and renders the table or one kernel's charts.
pub fn run(args: &OccupancyArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let format = TableFormat::from_flags(args.json, args.csv);
    let file = OccupancyFile::open(&args.file)?;
    print_warnings(&args.file, file.warnings());
    let parts: Vec<(String, Option<u32>, Option<String>)> =
        file.rows.iter().map(|r| file.kernel_parts(r)).collect();
    if let Some(index) = args.kernel {
        write_kernel_charts(args, &file, &parts, index, format, out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let extra = |r: usize| {
        let (kernel, id, device) = &parts[r];
        (kernel.as_str(), *id, device.as_deref())
    };
    let values: Vec<&[CounterValue]> = file.values.iter().map(Vec::as_slice).collect();
    let table = TableView {
        header: &file.table.header,
        columns: &file.table.columns,
        values: &values,
        store: &file.store,
        extra: &extra,
    };
    match format {
        TableFormat::Json => table.write_json(out)?,
        TableFormat::Csv => table.write_csv(out)?,
        TableFormat::Text => table.write_text(out)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes the occupancy charts of row `index` (its kernel named in `parts`): as JSON, or as text (the
/// occupancy and its limits, then per resource where the occupancy changes).
fn write_kernel_charts(
    args: &OccupancyArgs,
    file: &OccupancyFile,
    parts: &[(String, Option<u32>, Option<String>)],
    index: usize,
    format: TableFormat,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let Some(row) = file.rows.get(index) else {
        bail!(
            "{}: no row {index} (the file has {})",
            args.file.display(),
            file.rows.len()
        );
    };
    let Some(model) = OccupancyModel::from_row(row) else {
        bail!(
            "{}:{}: the row lacks a limit the charts need (waves, work-groups, registers, LDS, wavefront size)",
            args.file.display(),
            row.line
        );
    };
    let curves = model.curves();
    let limits = model.limits(model.usage);
    let kernel = parts[index].0.as_str();
    if format == TableFormat::Json {
        write_charts_json(out, index, kernel, row, &limits, &curves)
    } else {
        write_charts_text(out, index, kernel, row, &limits, &curves)
    }
}

/// The charts as JSON: the row, the kernel, the computed and the file's occupancy, and each
/// resource's curve with the kernel's point.
fn write_charts_json(
    out: &mut dyn Write,
    index: usize,
    kernel: &str,
    row: &OccupancyRow,
    limits: &Limits,
    curves: &[OccupancyCurve],
) -> anyhow::Result<()> {
    write!(
        out,
        "{{\"row\": {index}, \"kernel\": {}, \"computed_occupancy\": {}, \"file_occupancy\": {}, \"curves\": [",
        json_string(kernel),
        limits.occupancy_percent,
        row.occupancy_percent
            .map_or("null".into(), |p| p.to_string())
    )?;
    for (i, curve) in curves.iter().enumerate() {
        let points: Vec<String> = curve
            .points
            .iter()
            .map(|(x, y)| format!("[{x}, {y}]"))
            .collect();
        write!(
            out,
            "{}\n  {{\"resource\": {}, \"kernel_point\": [{}, {}], \"points\": [{}]}}",
            if i > 0 { "," } else { "" },
            json_string(curve.resource.label()),
            curve.kernel_point.0,
            curve.kernel_point.1,
            points.join(", ")
        )?;
    }
    writeln!(out, "\n]}}")?;
    Ok(())
}

/// The charts as text: the kernel, the occupancy with its limits, then per resource a table
/// of where the occupancy changes (not every point).
fn write_charts_text(
    out: &mut dyn Write,
    index: usize,
    kernel: &str,
    row: &OccupancyRow,
    limits: &Limits,
    curves: &[OccupancyCurve],
) -> anyhow::Result<()> {
    writeln!(out, "Kernel: {} (row {index}, line {})", kernel, row.line)?;
    writeln!(
        out,
        "Occupancy: {}% computed, {} in the file; limits (waves/CU): VGPR {}, SGPR {}, LDS {}, work-group {}",
        limits.occupancy_percent,
        row.occupancy_percent
            .map_or("none".into(), |p| format!("{p}%")),
        limits.vgpr,
        limits.sgpr,
        limits.lds,
        limits.work_group
    )?;
    for curve in curves {
        writeln!(out)?;
        writeln!(
            out,
            "{} (kernel: {} → {}%)",
            curve.resource.label(),
            curve.kernel_point.0,
            curve.kernel_point.1
        )?;
        // Print where the occupancy changes, not every point.
        let mut rows = vec![vec![
            "from".to_string(),
            "to".to_string(),
            "occupancy %".to_string(),
        ]];
        let mut start = 0;
        for i in 1..=curve.points.len() {
            if i == curve.points.len() || curve.points[i].1 != curve.points[start].1 {
                rows.push(vec![
                    curve.points[start].0.to_string(),
                    curve.points[i - 1].0.to_string(),
                    curve.points[start].1.to_string(),
                ]);
                start = i;
            }
        }
        write_aligned(out, &rows)?;
    }
    Ok(())
}
