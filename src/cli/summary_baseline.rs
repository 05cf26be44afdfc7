//! `sightline summary --baseline OTHER`: the Summary page's values of every result — its
//! duration and the Speed of Light and Occupancy header values in `%`
//! ([`crate::section::overview`]) — beside each baseline's and the difference, as text, CSV or
//! JSON. Each side is resolved with its own report's sections (or the `--section-folder`
//! folders); a value matches by section identifier and metric name, and one a baseline lacks
//! is `N/A`.

use std::io::{self, Write};

use crate::ncu::Report;
use crate::pyjson::PyJsonWriter;
use crate::section::{
    BaselineSpec, Difference, NOT_AVAILABLE, OverviewBuilder, OverviewColumns, OverviewRow,
    SectionChoice, SectionSet,
};

use super::baseline::{
    OpenedBaseline, function_names, json_number, open_baselines, write_difference,
};
use super::common::{SectionFolders, csv_field};

/// How the comparison is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareFormat {
    /// Aligned text.
    Text,
    /// One CSV row per result, metric and baseline.
    Csv,
    /// `{"baselines": [...], "results": [...]}`.
    Json,
}

/// One compared value: a metric of a result, its value and each baseline's.
struct Line {
    index: usize,
    kernel: String,
    metric: String,
    label: String,
    unit: &'static str,
    value: Option<f64>,
    text: String,
    /// Per baseline: `(baseline's result, value, text)`.
    baselines: Vec<(Option<usize>, Option<f64>, String)>,
}

/// The rows of every result of `report` and the columns they use.
fn overview(
    report: &Report,
    folders: &SectionFolders,
) -> anyhow::Result<(Vec<OverviewRow>, OverviewColumns)> {
    let mut choice = SectionChoice::new(folders.folders());
    let mut actions = Vec::with_capacity(report.num_actions());
    for i in 0..report.num_actions() {
        actions.push(report.action(i)?);
    }
    let prefer_embedded = choice.folders().is_empty();
    // The search path is loaded only when a result needs it.
    let folder_set = if actions
        .iter()
        .all(|a| choice.source(a) == crate::section::SectionSource::Embedded)
    {
        SectionSet::default()
    } else {
        choice.folder_set().clone()
    };
    let mut builder = OverviewBuilder::new(&folder_set, prefer_embedded);
    let rows = actions.iter().map(|a| builder.row(a)).collect();
    Ok((rows, builder.columns))
}

/// The value of `metric` (`gpu__time_duration.sum` or a column's metric) in `row`, with its
/// text.
fn value_of(
    row: &OverviewRow,
    columns: &OverviewColumns,
    section: Option<&str>,
    metric: &str,
) -> Option<(f64, String)> {
    match section {
        None => row.launch.duration_ns.map(|d| {
            (
                d,
                crate::format::format_with_unit(
                    &crate::ncu::MetricValue::Double(d),
                    "nsecond",
                    None,
                ),
            )
        }),
        Some(section) => {
            let column = columns
                .columns
                .iter()
                .position(|c| c.section == section && c.metric == metric)?;
            row.value(column).map(|c| (c.value, c.text.clone()))
        }
    }
}

/// Writes the comparison of `report` with `specs`.
pub fn write_compared(
    report: &Report,
    specs: &[BaselineSpec],
    folders: &SectionFolders,
    format: CompareFormat,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let names = function_names(report)?;
    let opened = open_baselines(specs)?;
    let (rows, columns) = overview(report, folders)?;
    let others: Vec<(Vec<OverviewRow>, OverviewColumns)> = opened
        .iter()
        .map(|o| overview(&o.report, folders))
        .collect::<anyhow::Result<_>>()?;
    let mut metrics: Vec<(Option<&str>, &str, &str, &'static str)> =
        vec![(None, "gpu__time_duration.sum", "Duration", "nsecond")];
    for column in &columns.columns {
        metrics.push((Some(&column.section), &column.metric, &column.label, "%"));
    }
    // Per baseline, the result matching each result of the report.
    let results: Vec<Vec<Option<usize>>> = opened.iter().map(|o| o.results_for(&names)).collect();
    let mut lines = Vec::new();
    for row in &rows {
        let matched: Vec<Option<usize>> = results
            .iter()
            .map(|r| r.get(row.launch.index).copied().flatten())
            .collect();
        for &(section, metric, label, unit) in &metrics {
            let (value, text) = value_of(row, &columns, section, metric)
                .map_or((None, NOT_AVAILABLE.to_owned()), |(v, t)| (Some(v), t));
            let baselines = matched
                .iter()
                .zip(&others)
                .map(|(found, (other_rows, other_columns))| {
                    let base = found
                        .and_then(|i| other_rows.get(i))
                        .and_then(|r| value_of(r, other_columns, section, metric));
                    match base {
                        Some((v, t)) => (*found, Some(v), t),
                        None => (*found, None, NOT_AVAILABLE.to_owned()),
                    }
                })
                .collect();
            lines.push(Line {
                index: row.launch.index,
                kernel: row.launch.name.clone(),
                metric: metric.to_owned(),
                label: label.to_owned(),
                unit,
                value,
                text,
                baselines,
            });
        }
    }
    match format {
        CompareFormat::Text => write_text(&lines, &opened, out)?,
        CompareFormat::Csv => write_csv(&lines, &opened, out)?,
        CompareFormat::Json => write_json(&lines, &opened, out)?,
    }
    Ok(())
}

fn difference(line: &Line, base: Option<f64>) -> Option<Difference> {
    Some(Difference::of(line.value?, base?))
}

fn write_text(lines: &[Line], opened: &[OpenedBaseline], out: &mut dyn Write) -> io::Result<()> {
    for (i, o) in opened.iter().enumerate() {
        writeln!(out, "baseline {}: {}", i + 1, o.name)?;
    }
    let mut table: Vec<Vec<String>> = Vec::new();
    let mut header = vec![
        "ID".to_owned(),
        "Kernel".into(),
        "Metric".into(),
        "Value".into(),
    ];
    for i in 1..=opened.len() {
        header.push(format!("Baseline {i}"));
        header.push(format!("Δ {i}"));
    }
    table.push(header);
    for line in lines {
        let mut cells = vec![
            line.index.to_string(),
            line.kernel.clone(),
            line.label.clone(),
            line.text.clone(),
        ];
        for (_, base, text) in &line.baselines {
            cells.push(text.clone());
            cells.push(
                difference(line, *base)
                    .map_or_else(|| NOT_AVAILABLE.to_owned(), |d| d.relative_text()),
            );
        }
        table.push(cells);
    }
    let columns = table.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            table
                .iter()
                .map(|r| r[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in &table {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        writeln!(out, "{}", cells.join("  ").trim_end())?;
    }
    Ok(())
}

fn number(value: Option<f64>) -> String {
    value.map_or_else(String::new, |v| v.to_string())
}

fn write_csv(lines: &[Line], opened: &[OpenedBaseline], out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "id,kernel,metric,label,unit,value,baseline,baseline_id,baseline_value,difference,relative_percent"
    )?;
    for line in lines {
        for ((found, base, _), o) in line.baselines.iter().zip(opened) {
            let d = difference(line, *base);
            let cells = [
                line.index.to_string(),
                csv_field(&line.kernel),
                csv_field(&line.metric),
                csv_field(&line.label),
                line.unit.to_owned(),
                number(line.value),
                csv_field(&o.name),
                found.map_or_else(String::new, |i| i.to_string()),
                number(*base),
                number(d.map(|d| d.absolute)),
                d.and_then(|d| d.relative)
                    .map_or_else(String::new, |r| format!("{r:.4}")),
            ];
            writeln!(out, "{}", cells.join(","))?;
        }
    }
    Ok(())
}

fn write_json(lines: &[Line], opened: &[OpenedBaseline], out: &mut dyn Write) -> io::Result<()> {
    let mut w = PyJsonWriter::new(&mut *out, 1);
    w.begin_object()?;
    w.key("baselines")?;
    w.begin_array()?;
    for o in opened {
        w.string(&o.name)?;
    }
    w.end_array()?;
    w.key("values")?;
    w.begin_array()?;
    for line in lines {
        w.begin_object()?;
        w.key_uint("id", line.index as u64)?;
        w.key_string("kernel", &line.kernel)?;
        w.key_string("metric", &line.metric)?;
        w.key_string("label", &line.label)?;
        w.key_string("unit", line.unit)?;
        w.key("value")?;
        json_number(&mut w, line.value)?;
        w.key("baselines")?;
        w.begin_array()?;
        for (found, base, text) in &line.baselines {
            let d = difference(line, *base);
            w.begin_object()?;
            w.key("id")?;
            match found {
                Some(i) => w.uint(*i as u64)?,
                None => w.null()?,
            }
            w.key_string("text", text)?;
            write_difference(&mut w, *base, d)?;
            w.end_object()?;
        }
        w.end_array()?;
        w.end_object()?;
    }
    w.end_array()?;
    w.end_object()?;
    writeln!(out)
}
