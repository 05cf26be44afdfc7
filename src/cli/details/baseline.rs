//! `sightline details --baseline`: every entry of the pages (header and body items) with each
//! baseline's value and the difference (text, CSV, JSON). Each baseline result is resolved with
//! its own report's sections; entries match by section identifier and metric name, and a
//! metric a baseline lacks prints `N/A`.

use std::io::{self, Write};

use crate::pyjson::PyJsonWriter;
use crate::section::{BaselineEntries, Compared, DetailsSection, Entry, Item, KernelDetails};

use super::{DetailsFormat, csv_field};
use crate::cli::baseline::{json_number, write_difference};

/// One baseline of one page: its name, the result it is, and its indexed page (`None`: the
/// baseline report has no matching result).
pub struct PageBaseline {
    /// The baseline as given.
    pub name: String,
    /// The baseline's result index and function name.
    pub result: Option<(usize, String)>,
    /// Its page.
    pub entries: Option<BaselineEntries>,
}

impl PageBaseline {
    fn compare<'a>(&'a self, section: &str, entry: &Entry) -> Compared<'a> {
        self.entries
            .as_ref()
            .map_or(Compared::Missing, |e| e.compare(section, entry))
    }
}

/// One entry of a page with where it is.
struct Row<'a> {
    section: &'a str,
    item: String,
    entry: &'a Entry,
}

/// Every entry of `page`: each section's header, then its body items, then its children.
fn rows(page: &KernelDetails) -> Vec<Row<'_>> {
    fn section_rows<'a>(section: &'a DetailsSection, out: &mut Vec<Row<'a>>) {
        for entry in &section.header {
            out.push(Row {
                section: &section.identifier,
                item: "header".to_owned(),
                entry,
            });
        }
        fn items<'a>(section: &'a str, item: &'a Item, out: &mut Vec<Row<'a>>) {
            let name = if item.label.is_empty() {
                item.kind.name().to_owned()
            } else {
                item.label.clone()
            };
            for entry in &item.entries {
                out.push(Row {
                    section,
                    item: name.clone(),
                    entry,
                });
            }
            item.items.iter().for_each(|i| items(section, i, out));
        }
        section
            .body
            .iter()
            .for_each(|i| items(&section.identifier, i, out));
        section.children.iter().for_each(|c| section_rows(c, out));
    }
    let mut out = Vec::new();
    page.sections.iter().for_each(|s| section_rows(s, &mut out));
    out
}

/// Writes `pages`, each with its baselines (same order), in `format`.
pub fn write_compared(
    pages: &[KernelDetails],
    baselines: &[Vec<PageBaseline>],
    format: DetailsFormat,
    out: &mut dyn Write,
) -> io::Result<()> {
    match format {
        DetailsFormat::Json => write_json(pages, baselines, out),
        DetailsFormat::SightlineCsv => write_csv(pages, baselines, out),
        _ => write_text(pages, baselines, out),
    }
}

fn difference_texts(compared: &Compared<'_>, unit: &str) -> (String, String) {
    match compared.difference() {
        Some(d) => (d.absolute_text(unit), d.relative_text()),
        None => ("N/A".to_owned(), "N/A".to_owned()),
    }
}

fn write_text(
    pages: &[KernelDetails],
    baselines: &[Vec<PageBaseline>],
    out: &mut dyn Write,
) -> io::Result<()> {
    for (page, baselines) in pages.iter().zip(baselines) {
        writeln!(out, "[{}] {}", page.index, page.name)?;
        for (i, baseline) in baselines.iter().enumerate() {
            match &baseline.result {
                Some((index, name)) => writeln!(
                    out,
                    "  baseline {}: {} [{index}] {name}",
                    i + 1,
                    baseline.name
                )?,
                None => writeln!(
                    out,
                    "  baseline {}: {}: no result named {} (every value N/A)",
                    i + 1,
                    baseline.name,
                    page.name
                )?,
            }
        }
        let rows = rows(page);
        let width = rows
            .iter()
            .map(|r| r.entry.label.chars().count())
            .max()
            .unwrap_or(0);
        let value_width = rows
            .iter()
            .map(|r| r.entry.text.chars().count())
            .max()
            .unwrap_or(0);
        let mut section = "";
        for row in &rows {
            if row.section != section {
                section = row.section;
                writeln!(out, "  {section}")?;
            }
            write!(
                out,
                "    {:<width$}  {:>value_width$}",
                row.entry.label, row.entry.text
            )?;
            for baseline in baselines {
                let compared = baseline.compare(row.section, row.entry);
                let (_, relative) = difference_texts(&compared, &row.entry.unit);
                write!(out, "  | {} ({relative})", compared.text())?;
            }
            writeln!(out)?;
        }
        writeln!(out)?;
    }
    Ok(())
}

fn write_csv(
    pages: &[KernelDetails],
    baselines: &[Vec<PageBaseline>],
    out: &mut dyn Write,
) -> io::Result<()> {
    writeln!(
        out,
        "kernel,kernel_name,section,item,label,metric,unit,value,text,baseline,baseline_kernel,\
         baseline_value,baseline_text,difference,relative_percent"
    )?;
    for (page, baselines) in pages.iter().zip(baselines) {
        for row in rows(page) {
            let value = super::raw_text_of(row.entry.value.as_ref());
            for baseline in baselines {
                let compared = baseline.compare(row.section, row.entry);
                let (base_value, difference, relative) = match &compared {
                    Compared::Value { entry, difference } => (
                        super::raw_text_of(entry.value.as_ref()),
                        difference.map_or_else(String::new, |d| d.absolute.to_string()),
                        difference
                            .and_then(|d| d.relative)
                            .map_or_else(String::new, |r| format!("{r:.4}")),
                    ),
                    Compared::Missing => (String::new(), String::new(), String::new()),
                };
                let kernel = baseline
                    .result
                    .as_ref()
                    .map_or_else(String::new, |(i, _)| i.to_string());
                let fields = [
                    page.name.as_str(),
                    row.section,
                    &row.item,
                    &row.entry.label,
                    &row.entry.metric,
                    &row.entry.unit,
                    &value,
                    &row.entry.text,
                    &baseline.name,
                    &kernel,
                    &base_value,
                    compared.text(),
                    &difference,
                    &relative,
                ];
                let fields: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
                writeln!(out, "{},{}", page.index, fields.join(","))?;
            }
        }
    }
    Ok(())
}

fn write_json(
    pages: &[KernelDetails],
    baselines: &[Vec<PageBaseline>],
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut w = PyJsonWriter::new(&mut *out, 1);
    w.begin_object()?;
    w.key("kernels")?;
    w.begin_array()?;
    for (page, baselines) in pages.iter().zip(baselines) {
        w.begin_object()?;
        w.key_uint("index", page.index as u64)?;
        w.key_string("name", &page.name)?;
        w.key("baselines")?;
        w.begin_array()?;
        for baseline in baselines {
            w.begin_object()?;
            w.key_string("name", &baseline.name)?;
            w.key("index")?;
            match &baseline.result {
                Some((index, _)) => w.uint(*index as u64)?,
                None => w.null()?,
            }
            w.end_object()?;
        }
        w.end_array()?;
        w.key("entries")?;
        w.begin_array()?;
        for row in rows(page) {
            w.begin_object()?;
            w.key_string("section", row.section)?;
            w.key_string("item", &row.item)?;
            w.key_string("label", &row.entry.label)?;
            w.key_string("metric", &row.entry.metric)?;
            w.key_string("unit", &row.entry.unit)?;
            w.key_string("text", &row.entry.text)?;
            w.key("value")?;
            json_number(&mut w, crate::section::number(row.entry.value.as_ref()))?;
            w.key("baselines")?;
            w.begin_array()?;
            for baseline in baselines {
                let compared = baseline.compare(row.section, row.entry);
                w.begin_object()?;
                w.key_string("text", compared.text())?;
                let (value, difference) = match &compared {
                    Compared::Value { entry, difference } => {
                        (crate::section::number(entry.value.as_ref()), *difference)
                    }
                    Compared::Missing => (None, None),
                };
                write_difference(&mut w, value, difference)?;
                w.end_object()?;
            }
            w.end_array()?;
            w.end_object()?;
        }
        w.end_array()?;
        w.end_object()?;
    }
    w.end_array()?;
    w.end_object()?;
    writeln!(out)
}
