//! `sightline details`: the Details page as aligned text, CSV or JSON.
//!
//! Which sections each kernel is resolved against is the model's rule,
//! [`SectionChoice::new`]: the `--section-folder` folders, else the kernel's embedded sections,
//! else the default search path.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use crate::ncu::{Action, MetricValue, Report, write_metric_value};
use crate::pyjson::PyJsonWriter;
use crate::section::SectionChoice;
use crate::section::memory::MemoryWidget;
use crate::section::{
    DetailsSection, Entry, Item, ItemKind, KernelDetails, RooflinePoint, TableLayout,
    resolve_action_for,
};

use crate::ncu::pages::{ChipLibrary, DetailsOptions, details_page, write_row};
use crate::section::Target;

use super::common::{KernelChoice, PrintUnits, SectionFolders, csv_field, open_report};

mod baseline;
mod system;

/// Arguments of `sightline details`.
#[derive(clap::Args, Debug, Clone)]
pub struct DetailsArgs {
    /// The report (.ncu-rep or .ncu-repz).
    pub report: PathBuf,
    /// Which kernel: an index, or `all`.
    #[arg(long, value_name = "N|all", default_value = "all")]
    pub kernel: KernelChoice,
    /// The section folders (`--section-folder`, `--section-folder-recursive`).
    #[command(flatten)]
    pub folders: SectionFolders,
    /// Print JSON (the same as `--format json`).
    #[arg(long, conflicts_with_all = ["csv", "format"])]
    pub json: bool,
    /// Print NVIDIA's CSV (`ncu --import R --page details --csv`), byte for byte (the same as
    /// `--format ncu-csv`).
    #[arg(long, conflicts_with = "format")]
    pub csv: bool,
    /// The output format: `text`, `json`, `ncu-csv` (NVIDIA's CSV) or `sightline-csv`
    /// (Sightline's own CSV: one row per entry, with the metric name, raw value and text).
    #[arg(long, value_enum)]
    pub format: Option<DetailsFormat>,
    /// Units of the NVIDIA CSV: scaled (`auto`) or base units (`base`).
    #[arg(long, value_enum, default_value_t = PrintUnits::Auto)]
    pub print_units: PrintUnits,
    /// NVIDIA CSV: `header` prints the sections' header metrics, `all` their body items too.
    #[arg(long, value_enum, default_value_t = PrintDetails::Header)]
    pub print_details: PrintDetails,
    /// NVIDIA CSV: name metrics by their `label` or their metric `name`.
    #[arg(long, value_enum, default_value_t = PrintMetricName::Label)]
    pub print_metric_name: PrintMetricName,
    /// NVIDIA CSV: `kernel` names each kernel after its innermost NVTX push/pop range
    /// (`range/kernel`).
    #[arg(long, value_enum, default_value_t = PrintNvtxRename::None)]
    pub print_nvtx_rename: PrintNvtxRename,
    /// Compare with a baseline result: `OTHER` (the result with the same kernel name and
    /// launch order) or `OTHER:KERNEL` (that index). Repeatable. Text, JSON and
    /// `--format sightline-csv` print each entry's baseline values and differences.
    #[arg(long = "baseline", value_name = "OTHER[:KERNEL]")]
    pub baselines: Vec<crate::section::BaselineSpec>,
}

/// `--print-details` of `sightline details`.
#[derive(clap::ValueEnum, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PrintDetails {
    /// The sections' header metrics.
    #[default]
    Header,
    /// Header and body items.
    All,
}

/// `--print-metric-name` of `sightline details`.
#[derive(clap::ValueEnum, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PrintMetricName {
    /// The section's label.
    #[default]
    Label,
    /// The metric name.
    Name,
}

/// `--print-nvtx-rename` of `sightline details`.
#[derive(clap::ValueEnum, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PrintNvtxRename {
    /// Kernels keep their names.
    #[default]
    None,
    /// Kernels are named after their innermost push/pop range.
    Kernel,
}

/// Resolves the chosen kernels' pages and writes them to `out`. The load diagnostics of the
/// `--section-folder` folders go to stderr first.
pub fn run(args: &DetailsArgs, mut out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let report = open_report(&args.report)?;
    let mut choice = SectionChoice::new(args.folders.folders());
    if !choice.folders().is_empty() {
        for line in choice.folder_set().diagnostics() {
            eprintln!("{line}");
        }
    }
    let indices: Vec<usize> = match args.kernel {
        KernelChoice::All => (0..report.num_actions()).collect(),
        KernelChoice::One(n) if n < report.num_actions() => vec![n],
        KernelChoice::One(n) => anyhow::bail!(
            "{}: no kernel {n}: the report has {} result(s)",
            report.path().display(),
            report.num_actions()
        ),
    };
    let format = match (args.format, args.json, args.csv) {
        (Some(format), _, _) => format,
        (None, true, _) => DetailsFormat::Json,
        (None, _, true) => DetailsFormat::NcuCsv,
        (None, false, false) => DetailsFormat::Text,
    };
    let (actions, pages) = resolve_pages(
        &report,
        &mut choice,
        &indices,
        format == DetailsFormat::NcuCsv,
    )?;
    if !args.baselines.is_empty() {
        if format == DetailsFormat::NcuCsv {
            anyhow::bail!(
                "--baseline prints text, JSON or --format sightline-csv, not NVIDIA's CSV"
            );
        }
        let compared = page_baselines(&report, &pages, &args.baselines, &args.folders)?;
        baseline::write_compared(&pages, &compared, format, out)?;
        return Ok(ExitCode::SUCCESS);
    }
    if format == DetailsFormat::NcuCsv {
        let options = DetailsOptions {
            units: args.print_units.into(),
            all: args.print_details == PrintDetails::All,
            metric_names: args.print_metric_name == PrintMetricName::Name,
            nvtx_rename: args.print_nvtx_rename == PrintNvtxRename::Kernel,
        };
        let page = details_page(&report, &actions, &pages, options);
        let table = &page.table;
        write_row(out, &table.header, false)?;
        let mut lines = page.lines.iter().peekable();
        for (i, row) in table.rows.iter().enumerate() {
            while let Some((_, text)) = lines.next_if(|(at, _)| *at == i) {
                out.write_all(text.as_bytes())?;
            }
            write_row(out, row, row.len() < table.header.len())?;
        }
        for (_, text) in lines {
            out.write_all(text.as_bytes())?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    write_details(&pages, format, &mut out)?;
    Ok(ExitCode::SUCCESS)
}

/// For each page of `report`, its result in each baseline, resolved with the baseline
/// report's own sections (the `--section-folder` folders when given).
fn page_baselines(
    report: &Report,
    pages: &[KernelDetails],
    specs: &[crate::section::BaselineSpec],
    folders: &SectionFolders,
) -> anyhow::Result<Vec<Vec<baseline::PageBaseline>>> {
    let names = super::baseline::function_names(report)?;
    let opened = super::baseline::open_baselines(specs)?;
    let mut out: Vec<Vec<baseline::PageBaseline>> = pages.iter().map(|_| Vec::new()).collect();
    for other in &opened {
        let mut choice = SectionChoice::new(folders.folders());
        for (page, compared) in pages.iter().zip(out.iter_mut()) {
            let found = other.result_for(&names, page.index);
            let (result, entries) = match found {
                Some(index) => {
                    let (_, resolved) = resolve_pages(&other.report, &mut choice, &[index], false)?;
                    let entries = resolved.first().map(crate::section::BaselineEntries::of);
                    (
                        Some((index, other.names.get(index).cloned().unwrap_or_default())),
                        entries,
                    )
                }
                None => (None, None),
            };
            compared.push(baseline::PageBaseline {
                name: other.name.clone(),
                result,
                entries,
            });
        }
    }
    Ok(out)
}

/// Decodes the actions `indices` of `report` and resolves their Details pages against the
/// sections `choice` picks for each; `as_ncu_cli`: for the chip NVIDIA's 2024.1 CLI takes
/// each result to be on ([`ChipLibrary::target`]).
pub fn resolve_pages(
    report: &Report,
    choice: &mut SectionChoice,
    indices: &[usize],
    as_ncu_cli: bool,
) -> anyhow::Result<(Vec<Action>, Vec<KernelDetails>)> {
    let mut pages = Vec::with_capacity(indices.len());
    let mut actions = Vec::with_capacity(indices.len());
    for &index in indices {
        let action = report.action(index)?;
        let set = choice.sections_for(&action).map_err(|e| {
            anyhow::anyhow!(
                "{}: kernel {index}: corrupt embedded section: {e}",
                report.path().display()
            )
        })?;
        let target = if as_ncu_cli {
            ChipLibrary::target(&action)
        } else {
            Target::new(action.kind(), action.compute_capability())
        };
        pages.push(resolve_action_for(&action, &set, target));
        actions.push(action);
    }
    Ok((actions, pages))
}

/// Output format of `sightline details`.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum DetailsFormat {
    /// Aligned text, one block per section.
    Text,
    /// Sightline's own CSV: one row per entry.
    SightlineCsv,
    /// NVIDIA's CSV (`ncu --import R --page details --csv`).
    NcuCsv,
    /// `{"kernels": [...]}`.
    Json,
}

/// Writes the pages of `kernels` in `format`.
pub fn write_details(
    kernels: &[KernelDetails],
    format: DetailsFormat,
    out: &mut impl Write,
) -> io::Result<()> {
    match format {
        DetailsFormat::Text => kernels.iter().try_for_each(|k| write_text(k, out)),
        DetailsFormat::SightlineCsv => write_csv(kernels, out),
        DetailsFormat::Json => write_json(kernels, out),
        // Needs the actions and the report: written by `run`.
        DetailsFormat::NcuCsv => Err(io::Error::other(
            "NVIDIA's CSV needs the report: use sightline::ncu::pages::details",
        )),
    }
}

fn write_text(kernel: &KernelDetails, out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "[{}] {}", kernel.index, kernel.name)?;
    for section in &kernel.sections {
        write_text_section(section, 1, out)?;
    }
    writeln!(out)
}

fn write_text_section(
    section: &DetailsSection,
    depth: usize,
    out: &mut impl Write,
) -> io::Result<()> {
    let indent = "  ".repeat(depth);
    writeln!(
        out,
        "{indent}Section: {} ({})",
        section.display_name, section.identifier
    )?;
    write_text_entries(&section.header, depth + 1, out)?;
    for item in &section.body {
        write_text_item(item, depth + 1, out)?;
    }
    for child in &section.children {
        write_text_section(child, depth + 1, out)?;
    }
    Ok(())
}

fn write_text_item(item: &Item, depth: usize, out: &mut impl Write) -> io::Result<()> {
    let indent = "  ".repeat(depth);
    let label = if item.label.is_empty() {
        String::new()
    } else {
        format!(": {}", item.label)
    };
    writeln!(out, "{indent}{}{label}", item_title(&item.kind))?;
    if let Some(widget) = item.memory() {
        return write_text_memory(item, widget, depth + 1, out);
    }
    if let Some(widget) = item.system() {
        return system::write_text(item, widget, depth + 1, out);
    }
    write_text_entries(&item.entries, depth + 1, out)?;
    let roofline = item.roofline().into_iter();
    for line in roofline.flat_map(|r| {
        let rooflines = r.rooflines.iter().map(|r| ("roofline", r));
        rooflines.chain(r.points.iter().map(|p| ("achieved", p)))
    }) {
        writeln!(
            out,
            "{indent}  {} {}: work {}, traffic {}",
            line.0,
            line.1.label,
            opt(line.1.work),
            opt(line.1.traffic)
        )?;
    }
    for child in &item.items {
        write_text_item(child, depth + 1, out)?;
    }
    Ok(())
}

/// A memory table as an aligned grid (N/A for a missing metric, `-` where a column does not
/// apply); the memory chart as its units and links.
fn write_text_memory(
    item: &Item,
    widget: &MemoryWidget,
    depth: usize,
    out: &mut impl Write,
) -> io::Result<()> {
    let indent = "  ".repeat(depth);
    let text = |index: Option<usize>| system::text(item, index);
    match widget {
        MemoryWidget::Table(table) => {
            let rows = table
                .rows
                .iter()
                .map(|row| (row.label, row.cells.as_slice()));
            system::write_grid(item, &table.columns, rows, &indent, out)?;
        }
        MemoryWidget::Chart(chart) => {
            for node in &chart.nodes {
                let kind = if node.physical { "physical" } else { "logical" };
                let values: Vec<String> = node
                    .entries
                    .iter()
                    .filter_map(|&i| item.entries.get(i))
                    .map(|e| {
                        let what = e.label.strip_prefix(node.label).unwrap_or(&e.label);
                        format!("{} {}", what.trim_start_matches(": "), e.text)
                    })
                    .collect();
                let line = format!("{} ({kind}): {}", node.label, values.join(", "));
                writeln!(out, "{indent}{}", line.trim_end_matches(": "))?;
            }
            for link in &chart.links {
                writeln!(
                    out,
                    "{indent}{} -> {} {}: {}, throughput {}, peak {}",
                    link.from,
                    link.to,
                    link.label,
                    text(Some(link.amount)),
                    text(link.rate),
                    text(link.peak)
                )?;
            }
        }
    }
    Ok(())
}

fn opt(value: Option<f64>) -> String {
    value.map_or("N/A".to_owned(), |v| format!("{v:.6e}"))
}

fn item_title(kind: &ItemKind) -> String {
    let mut words: Vec<String> = kind
        .name()
        .split('_')
        .map(|w| {
            let mut chars = w.chars();
            chars.next().map_or(String::new(), |c| {
                c.to_uppercase().collect::<String>() + chars.as_str()
            })
        })
        .collect();
    if matches!(kind, ItemKind::Container) {
        words[0] = "Horizontal Container".into();
    }
    words.join(" ")
}

fn write_text_entries(entries: &[Entry], depth: usize, out: &mut impl Write) -> io::Result<()> {
    let indent = "  ".repeat(depth);
    let width = entries
        .iter()
        .map(|e| e.label.chars().count())
        .max()
        .unwrap_or(0);
    for entry in entries {
        writeln!(out, "{indent}{:<width$}  {}", entry.label, entry.text)?;
        if let Some(instances) = &entry.instances {
            let shown: Vec<String> = instances
                .iter()
                .take(16)
                .map(|(_, v)| v.plain_text())
                .collect();
            let more = if instances.len() > 16 {
                format!(", ... ({} instances)", instances.len())
            } else {
                String::new()
            };
            writeln!(out, "{indent}{:<width$}  [{}{more}]", "", shown.join(", "))?;
        }
    }
    Ok(())
}

/// A raw value's text; empty for none.
fn raw_text_of(value: Option<&MetricValue>) -> String {
    value.map(MetricValue::plain_text).unwrap_or_default()
}

fn write_csv(kernels: &[KernelDetails], out: &mut impl Write) -> io::Result<()> {
    writeln!(
        out,
        "kernel,kernel_name,section,item,label,metric,value,unit,text"
    )?;
    fn rows(
        kernel: &KernelDetails,
        section: &DetailsSection,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let mut row = |item: &str, e: &Entry| {
            let value = e
                .value
                .as_ref()
                .map(MetricValue::plain_text)
                .unwrap_or_default();
            let fields = [
                &kernel.name,
                &section.identifier,
                item,
                &e.label,
                &e.metric,
                &value,
                &e.unit,
                &e.text,
            ];
            let fields: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
            writeln!(out, "{},{}", kernel.index, fields.join(","))
        };
        for e in &section.header {
            row("header", e)?;
        }
        fn items(
            item: &Item,
            row: &mut dyn FnMut(&str, &Entry) -> io::Result<()>,
        ) -> io::Result<()> {
            let name = if item.label.is_empty() {
                item.kind.name().to_owned()
            } else {
                item.label.clone()
            };
            for e in &item.entries {
                row(&name, e)?;
            }
            item.items.iter().try_for_each(|i| items(i, row))
        }
        for item in &section.body {
            items(item, &mut row)?;
        }
        section
            .children
            .iter()
            .try_for_each(|c| rows(kernel, c, out))
    }
    for kernel in kernels {
        for section in &kernel.sections {
            rows(kernel, section, out)?;
        }
    }
    Ok(())
}

fn write_json(kernels: &[KernelDetails], out: &mut impl Write) -> io::Result<()> {
    let mut w = PyJsonWriter::new(&mut *out, 1);
    w.begin_object()?;
    w.key("kernels")?;
    w.begin_array()?;
    for kernel in kernels {
        w.begin_object()?;
        w.key_uint("index", kernel.index as u64)?;
        w.key_string("name", &kernel.name)?;
        w.key("sections")?;
        w.begin_array()?;
        for section in &kernel.sections {
            json_section(&mut w, section)?;
        }
        w.end_array()?;
        w.end_object()?;
    }
    w.end_array()?;
    w.end_object()?;
    writeln!(out)
}

fn json_section<W: Write>(w: &mut PyJsonWriter<W>, section: &DetailsSection) -> io::Result<()> {
    w.begin_object()?;
    w.key_string("identifier", &section.identifier)?;
    w.key_string("display_name", &section.display_name)?;
    w.key_uint("order", u64::from(section.order))?;
    w.key_string("description", &section.description)?;
    w.key("header")?;
    w.begin_array()?;
    for entry in &section.header {
        json_entry(w, entry)?;
    }
    w.end_array()?;
    w.key("body")?;
    w.begin_array()?;
    for item in &section.body {
        json_item(w, item)?;
    }
    w.end_array()?;
    if !section.children.is_empty() {
        w.key("children")?;
        w.begin_array()?;
        for child in &section.children {
            json_section(w, child)?;
        }
        w.end_array()?;
    }
    w.end_object()
}

fn json_item<W: Write>(w: &mut PyJsonWriter<W>, item: &Item) -> io::Result<()> {
    w.begin_object()?;
    w.key_string("kind", item.kind.name())?;
    w.key_string("label", &item.label)?;
    if let ItemKind::Table(TableLayout {
        columns,
        column_major,
        ..
    }) = item.kind
    {
        w.key_uint("columns", u64::from(columns))?;
        w.key_string(
            "layout",
            if column_major {
                "column_major"
            } else {
                "row_major"
            },
        )?;
    }
    if let Some(widget) = item.memory() {
        json_memory(w, item, widget)?;
    }
    if let Some(widget) = item.system() {
        system::write_json(w, item, widget)?;
    }
    w.key("items")?;
    w.begin_array()?;
    for entry in item.entries.iter().filter(|_| !system::has_layout(item)) {
        json_entry(w, entry)?;
    }
    for child in &item.items {
        json_item(w, child)?;
    }
    w.end_array()?;
    let (rooflines, points): (&[RooflinePoint], &[RooflinePoint]) = item
        .roofline()
        .map_or((&[], &[]), |r| (&r.rooflines, &r.points));
    for (key, points) in [("rooflines", rooflines), ("points", points)] {
        if !points.is_empty() {
            w.key(key)?;
            w.begin_array()?;
            for point in points {
                json_point(w, point)?;
            }
            w.end_array()?;
        }
    }
    w.end_object()
}

/// `memory_chart`: `nodes` (with their entries) and `links` (amount, throughput, % of peak);
/// `memory_table`: `widget`, `columns` and `rows` of cells. Every value is an entry; `null` where
/// a column does not apply to a row or a link has no such metric.
fn json_memory<W: Write>(
    w: &mut PyJsonWriter<W>,
    item: &Item,
    widget: &MemoryWidget,
) -> io::Result<()> {
    let entry = |w: &mut PyJsonWriter<W>, index: Option<usize>| system::json_cell(w, item, index);
    match widget {
        MemoryWidget::Chart(chart) => {
            w.key("nodes")?;
            w.begin_array()?;
            for node in &chart.nodes {
                w.begin_object()?;
                w.key_string("id", node.id)?;
                w.key_string("label", node.label)?;
                w.key("physical")?;
                w.bool(node.physical)?;
                w.key("items")?;
                w.begin_array()?;
                for &index in &node.entries {
                    entry(w, Some(index))?;
                }
                w.end_array()?;
                w.end_object()?;
            }
            w.end_array()?;
            w.key("links")?;
            w.begin_array()?;
            for link in &chart.links {
                w.begin_object()?;
                w.key_string("from", link.from)?;
                w.key_string("to", link.to)?;
                w.key_string("label", link.label)?;
                w.key("amount")?;
                entry(w, Some(link.amount))?;
                w.key("throughput")?;
                entry(w, link.rate)?;
                w.key("peak")?;
                entry(w, link.peak)?;
                w.end_object()?;
            }
            w.end_array()
        }
        MemoryWidget::Table(table) => {
            let rows = table
                .rows
                .iter()
                .map(|row| (row.label, row.cells.as_slice()));
            system::json_table(w, item, table.widget, &table.columns, rows)
        }
    }
}

fn json_point<W: Write>(w: &mut PyJsonWriter<W>, point: &RooflinePoint) -> io::Result<()> {
    w.begin_object()?;
    w.key_string("label", &point.label)?;
    for (key, value) in [("work", point.work), ("traffic", point.traffic)] {
        w.key(key)?;
        match value {
            Some(v) => w.float(v)?,
            None => w.null()?,
        }
    }
    w.end_object()
}

fn json_entry<W: Write>(w: &mut PyJsonWriter<W>, entry: &Entry) -> io::Result<()> {
    w.begin_object()?;
    w.key_string("label", &entry.label)?;
    w.key_string("metric", &entry.metric)?;
    w.key("value")?;
    match &entry.value {
        Some(v) => write_metric_value(w, v)?,
        None => w.null()?,
    }
    w.key_string("unit", &entry.unit)?;
    w.key_string("text", &entry.text)?;
    if entry.derived {
        w.key("derived")?;
        w.bool(true)?;
    }
    if let Some(instances) = &entry.instances {
        w.key("instances")?;
        w.begin_array()?;
        for (_, value) in instances {
            write_metric_value(w, value)?;
        }
        w.end_array()?;
        if instances.iter().any(|(id, _)| id.is_some()) {
            w.key("correlation_ids")?;
            w.begin_array()?;
            for (id, _) in instances {
                write_metric_value(w, id.as_ref().unwrap_or(&MetricValue::None))?;
            }
            w.end_array()?;
        }
    }
    w.end_object()
}
