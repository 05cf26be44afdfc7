//! `sightline nvtxt FILE... [--json | --summary]`: the events, names and problems of NVTXT files.
//!
//! Text: a header per file, its process and thread names, one line per event; the diagnostics go
//! to stderr as `PATH:LINE:COL: error|warning: CLASS: message`. JSON: one object per file and per
//! line, `{"display_name", "errors": [{"line", "column", "severity", "class", "message"}],
//! "events": [{"kind", "time" | "start", "end", "pid", "tid", "depth" (push_pop), "category",
//! "color", "message", "payload" (when given)}]}`, times in the file's units.

use std::io::{self, Write};
use std::process::ExitCode;

use crate::timeline::nvtxt::{Event, EventKind, NvtxtDocument};

/// Writes `text` as a JSON string.
fn json_string(out: &mut dyn Write, text: &str) -> io::Result<()> {
    out.write_all(b"\"")?;
    let mut plain = 0;
    for (i, c) in text.char_indices() {
        let escape: Option<&str> = match c {
            '"' => Some("\\\""),
            '\\' => Some("\\\\"),
            '\n' => Some("\\n"),
            '\r' => Some("\\r"),
            '\t' => Some("\\t"),
            c if (c as u32) < 0x20 => None,
            _ => continue,
        };
        out.write_all(&text.as_bytes()[plain..i])?;
        match escape {
            Some(escape) => out.write_all(escape.as_bytes())?,
            None => write!(out, "\\u{:04x}", c as u32)?,
        }
        plain = i + c.len_utf8();
    }
    out.write_all(&text.as_bytes()[plain..])?;
    out.write_all(b"\"")
}

/// Writes one file as one line of JSON.
pub fn write_json(doc: &NvtxtDocument, out: &mut dyn Write) -> io::Result<()> {
    out.write_all(b"{\"display_name\": ")?;
    match &doc.display_name {
        Some(name) => json_string(out, name)?,
        None => out.write_all(b"null")?,
    }
    out.write_all(b", \"errors\": [")?;
    for (i, d) in doc.diagnostics.iter().enumerate() {
        if i > 0 {
            out.write_all(b", ")?;
        }
        write!(
            out,
            "{{\"line\": {}, \"column\": {}, \"severity\": \"{}\", \"class\": \"{}\", \"message\": ",
            d.line(),
            d.column(),
            d.severity(),
            d.class
        )?;
        json_string(out, d.message())?;
        out.write_all(b"}")?;
    }
    out.write_all(b"], \"events\": [")?;
    for (i, event) in doc.events.iter().enumerate() {
        if i > 0 {
            out.write_all(b", ")?;
        }
        write_json_event(doc, event, out)?;
    }
    out.write_all(b"]}\n")
}

fn write_json_event(doc: &NvtxtDocument, e: &Event, out: &mut dyn Write) -> io::Result<()> {
    write!(out, "{{\"kind\": \"{}\", ", e.kind.as_str())?;
    match e.kind {
        EventKind::Marker => write!(out, "\"time\": {}, ", e.start)?,
        _ => write!(out, "\"start\": {}, \"end\": {}, ", e.start, e.end)?,
    }
    write!(out, "\"pid\": {}, \"tid\": {}, ", e.pid, e.tid)?;
    if e.kind == EventKind::PushPop {
        write!(out, "\"depth\": {}, ", e.depth)?;
    }
    write!(out, "\"category\": {}, \"color\": ", e.category)?;
    match doc.color_written(e) {
        Some(color) => json_string(out, &color)?,
        None => out.write_all(b"null")?,
    }
    out.write_all(b", \"message\": ")?;
    json_string(out, doc.message(e))?;
    if let Some(payload) = e.payload {
        write!(out, ", \"payload\": {payload}")?;
    }
    out.write_all(b"}")
}

/// Writes the one-line summary of a file: name, event counts, errors and warnings.
pub fn write_summary(doc: &NvtxtDocument, out: &mut dyn Write) -> io::Result<()> {
    let count = |kind: EventKind| doc.events.iter().filter(|e| e.kind == kind).count();
    let errors = doc.diagnostics.iter().filter(|d| d.is_error()).count();
    writeln!(
        out,
        "{}: \"{}\": {} events ({} markers, {} push/pop ranges, {} start/end ranges), {} errors, \
         {} warnings",
        doc.path.display(),
        doc.title(),
        doc.events.len(),
        count(EventKind::Marker),
        count(EventKind::PushPop),
        count(EventKind::Range),
        errors,
        doc.diagnostics.len() - errors
    )
}

/// Writes a file as text: the summary, the names, then one line per event.
pub fn write_text(doc: &NvtxtDocument, out: &mut dyn Write) -> io::Result<()> {
    write_summary(doc, out)?;
    for (pid, name) in &doc.process_names {
        writeln!(out, "  process {pid}: {name:?}")?;
    }
    for ((pid, tid), name) in &doc.thread_names {
        writeln!(out, "  thread {pid}/{tid}: {name:?}")?;
    }
    for e in &doc.events {
        match e.kind {
            EventKind::Marker => write!(out, "  marker    {}", e.start)?,
            EventKind::PushPop => write!(
                out,
                "  push_pop  {}..{}{} depth {}",
                e.start,
                e.end,
                if e.open { " (open)" } else { "" },
                e.depth
            )?,
            EventKind::Range => write!(out, "  range     {}..{}", e.start, e.end)?,
        }
        write!(
            out,
            " {} pid {} tid {} category {} color {}",
            e.time_base.name(),
            e.pid,
            e.tid,
            e.category,
            doc.color_written(e).as_deref().unwrap_or("-")
        )?;
        if let Some(payload) = e.payload {
            write!(out, " payload {payload}")?;
        }
        writeln!(out, " {:?}", doc.message(e))?;
    }
    Ok(())
}

/// Arguments of `sightline nvtxt`.
#[derive(clap::Args, Debug, Clone)]
pub struct NvtxtArgs {
    /// The .nvtxt files.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<std::path::PathBuf>,
    /// Print one JSON object per file and line: {"display_name", "errors", "events"}.
    #[arg(long, conflicts_with = "summary")]
    pub json: bool,
    /// Print only one summary line per file (event counts, errors, warnings).
    #[arg(long)]
    pub summary: bool,
}

/// Reads and prints each file; exit code 1 when any file has errors (not only warnings).
pub fn run(args: &NvtxtArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let mut any_errors = false;
    for path in &args.files {
        let doc = crate::timeline::nvtxt::load(path)?;
        if args.json {
            write_json(&doc, out)?;
        } else {
            if args.summary {
                write_summary(&doc, out)?;
            } else {
                write_text(&doc, out)?;
            }
            out.flush()?;
            for line in doc.diagnostic_lines() {
                eprintln!("{line}");
            }
        }
        any_errors |= doc.has_errors();
    }
    Ok(if any_errors {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
