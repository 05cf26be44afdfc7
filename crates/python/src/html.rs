//! Rich display in Jupyter (`_repr_html_`): a result's metrics as one table, and a section as
//! the Details page resolves it (its header and body items as tables, with the section's rule
//! messages).

use sightline_model::format::format_value;
use sightline_model::ncu::Action;
use sightline_model::section::{DetailsSection, Entry, Item};

use crate::rule::IRuleResult;

/// `text` with `&`, `<`, `>` and `"` escaped for HTML.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// Appends a table with a caption (when not empty), a header row and rows of cells.
fn table(out: &mut String, caption: &str, head: &[&str], rows: &[Vec<String>]) {
    out.push_str("<table>");
    if !caption.is_empty() {
        out.push_str(&format!("<caption>{}</caption>", escape(caption)));
    }
    out.push_str("<thead><tr>");
    for cell in head {
        out.push_str(&format!(
            "<th style=\"text-align:left\">{}</th>",
            escape(cell)
        ));
    }
    out.push_str("</tr></thead><tbody>");
    for row in rows {
        out.push_str("<tr>");
        for (i, cell) in row.iter().enumerate() {
            let align = if i + 1 == row.len() { "right" } else { "left" };
            out.push_str(&format!(
                "<td style=\"text-align:{align}\">{}</td>",
                escape(cell)
            ));
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>");
}

/// The table of every metric of a result: name, unit and value as the Details page formats
/// them (instanced metrics with their instance count).
pub(crate) fn action_table(action: &Action, title: &str, unit: impl Fn(&str) -> String) -> String {
    let rows: Vec<Vec<String>> = action
        .metrics_by_name()
        .map(|(name, metric)| {
            let unit = unit(name);
            let formatted = format_value(&metric.value(), &unit, None);
            let mut value = formatted.text;
            if !metric.instances.is_empty() {
                value.push_str(&format!(" ({} instances)", metric.instances.len()));
            }
            vec![name.to_owned(), formatted.unit, value]
        })
        .collect();
    let mut out = format!("<div><strong>{}</strong>", escape(title));
    table(
        &mut out,
        "",
        &["Metric Name", "Metric Unit", "Metric Value"],
        &rows,
    );
    out.push_str("</div>");
    out
}

/// The columns of a section's tables: the value's text carries its scaled unit.
const ENTRY_HEAD: [&str; 2] = ["Metric Name", "Metric Value"];

/// One row per entry: label and value with its unit (as the Details page shows them).
fn entry_rows(entries: &[Entry]) -> Vec<Vec<String>> {
    entries
        .iter()
        .map(|e| vec![e.label.clone(), e.text.clone()])
        .collect()
}

/// Appends the tables of body items (a container's items in turn).
fn items(out: &mut String, body: &[Item]) {
    for item in body {
        if !item.entries.is_empty() {
            table(out, &item.label, &ENTRY_HEAD, &entry_rows(&item.entries));
        }
        items(out, &item.items);
    }
}

/// A section as the Details page resolves it: its name, description, header table, body
/// tables, the rule messages that belong to it, then the sections that extend it.
pub(crate) fn section(details: &DetailsSection, rules: &[IRuleResult]) -> String {
    let mut out = format!("<div><h4>{}</h4>", escape(&details.display_name));
    if !details.description.is_empty() {
        out.push_str(&format!("<p><em>{}</em></p>", escape(&details.description)));
    }
    if !details.header.is_empty() {
        table(&mut out, "", &ENTRY_HEAD, &entry_rows(&details.header));
    }
    items(&mut out, &details.body);
    for rule in rules.iter().filter(|r| r.section() == details.identifier) {
        out.push_str(&rule.message_html());
    }
    for child in &details.children {
        out.push_str(&section(child, rules));
    }
    out.push_str("</div>");
    out
}
