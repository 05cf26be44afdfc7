//! `sightline rules`: text and JSON views of rule results.
//!
//! The JSON has NVIDIA's `rule_results` shape (one entry per message, as in the goldens made
//! by ncu-oracle's `dump.py`): `{"kernels":[{"errors":[...],"index":0,"name":"...",
//! "rule_results":[...]}]}` with keys sorted, laid out as Python's `json.dump(indent=1)`.

use std::io::{self, Write};

use sightline::pyjson::PyJsonWriter;
use sightline::rules::model::{MarkerLocation, TableCell, msg_type};
use sightline::rules::{KernelRules, RuleError, RunOutput};

/// Writes the JSON document.
pub fn write_json<W: Write>(output: &RunOutput, out: W) -> io::Result<()> {
    let mut w = PyJsonWriter::new(out, 1);
    w.begin_object()?;
    if !output.load_errors.is_empty() {
        w.key("load_errors")?;
        write_errors(&mut w, &output.load_errors)?;
    }
    w.key("kernels")?;
    w.begin_array()?;
    for kernel in &output.kernels {
        write_kernel(&mut w, kernel)?;
    }
    w.end_array()?;
    w.end_object()?;
    let mut out = w.into_inner();
    out.write_all(b"\n")?;
    out.flush()
}

fn write_errors<W: Write>(w: &mut PyJsonWriter<W>, errors: &[RuleError]) -> io::Result<()> {
    w.begin_array()?;
    for error in errors {
        w.begin_object()?;
        w.key_string("message", &error.message)?;
        w.key_string("rule", &error.rule)?;
        w.end_object()?;
    }
    w.end_array()
}

fn write_kernel<W: Write>(w: &mut PyJsonWriter<W>, kernel: &KernelRules) -> io::Result<()> {
    w.begin_object()?;
    w.key("errors")?;
    write_errors(w, &kernel.errors)?;
    w.key_uint("index", kernel.index as u64)?;
    w.key_string("name", &kernel.name)?;
    w.key("rule_results")?;
    w.begin_array()?;
    for result in kernel.listed() {
        for message in &result.messages {
            w.begin_object()?;
            if !message.focus_metrics.is_empty() {
                w.key("focus_metrics")?;
                w.begin_array()?;
                for focus in &message.focus_metrics {
                    w.begin_object()?;
                    w.key_string("info", &focus.info)?;
                    w.key_string("name", &focus.name)?;
                    w.key_int("severity", focus.severity)?;
                    w.key_float("value", focus.value)?;
                    w.end_object()?;
                }
                w.end_array()?;
            }
            w.key_string("name", &result.name)?;
            w.key_string("rule_identifier", &result.identifier)?;
            w.key("rule_message")?;
            w.begin_object()?;
            w.key_string("message", &message.message)?;
            w.key_string("title", &message.title)?;
            w.key_int("type", message.msg_type)?;
            w.end_object()?;
            if let Some(section) = &result.section_identifier {
                w.key_string("section_identifier", section)?;
            }
            if let Some(speedup) = &message.speedup {
                w.key("speedup_estimation")?;
                w.begin_object()?;
                w.key_float("speedup", speedup.value)?;
                w.key_int("type", speedup.kind)?;
                w.end_object()?;
            }
            w.end_object()?;
        }
    }
    w.end_array()?;
    w.end_object()
}

fn type_name(kind: i64) -> &'static str {
    match kind {
        msg_type::OK => "OK",
        msg_type::OPTIMIZATION => "OPTIMIZATION",
        msg_type::WARNING => "WARNING",
        msg_type::ERROR => "ERROR",
        _ => "INFO",
    }
}

/// Writes the text view: per kernel, each rule's messages with speedups and focus metrics,
/// then the errors.
pub fn write_text<W: Write>(output: &RunOutput, out: &mut W) -> io::Result<()> {
    for error in &output.load_errors {
        writeln!(out, "rule {}: load error: {}", error.rule, error.message)?;
    }
    if !output.load_errors.is_empty() {
        writeln!(out)?;
    }
    for (n, kernel) in output.kernels.iter().enumerate() {
        if n > 0 {
            writeln!(out)?;
        }
        writeln!(out, "[{}] {}", kernel.index, kernel.name)?;
        let mut any = false;
        for result in kernel.listed() {
            for message in &result.messages {
                any = true;
                let title = if message.title.is_empty() {
                    String::new()
                } else {
                    format!(" {}:", message.title)
                };
                writeln!(
                    out,
                    "  {} ({}) {}{}",
                    result.identifier,
                    result.name,
                    type_name(message.msg_type),
                    title
                )?;
                writeln!(out, "    {}", message.message)?;
                if let Some(speedup) = &message.speedup {
                    let kind = if speedup.kind == 2 { "global" } else { "local" };
                    writeln!(out, "    estimated speedup ({kind}): {:.2}%", speedup.value)?;
                }
                for focus in &message.focus_metrics {
                    writeln!(
                        out,
                        "    focus: {} = {} ({})",
                        focus.name, focus.value, focus.info
                    )?;
                }
                for table in &message.tables {
                    writeln!(
                        out,
                        "    table{}: {}",
                        table
                            .title
                            .as_deref()
                            .map(|t| format!(" \"{t}\""))
                            .unwrap_or_default(),
                        table.header.join(" | ")
                    )?;
                    for row in table.display_rows() {
                        let cells: Vec<String> = row
                            .iter()
                            .map(|c| match c {
                                TableCell::Int(i) => i.to_string(),
                                TableCell::Double(f) => f.to_string(),
                                TableCell::Text(t) => t.clone(),
                            })
                            .collect();
                        writeln!(out, "      {}", cells.join(" | "))?;
                    }
                }
            }
            for marker in &result.source_markers {
                any = true;
                let at = match &marker.location {
                    MarkerLocation::Sass(address) => format!("SASS 0x{address:x}"),
                    MarkerLocation::Source { file, line } => format!("{file}:{line}"),
                };
                writeln!(
                    out,
                    "  {} marker at {at} ({}): {}",
                    result.identifier,
                    type_name(marker.msg_type),
                    marker.message
                )?;
            }
        }
        if !any {
            writeln!(out, "  (no rule output)")?;
        }
        for error in &kernel.errors {
            writeln!(out, "  error in rule {}:", error.rule)?;
            for line in error.message.lines() {
                writeln!(out, "    {line}")?;
            }
        }
    }
    Ok(())
}
