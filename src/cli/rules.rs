//! `sightline rules`: text and JSON views of rule results.
//!
//! The JSON has NVIDIA's `rule_results` shape (one entry per message, as in the goldens made
//! by ncu-oracle's `dump.py`): `{"kernels":[{"errors":[...],"index":0,"name":"...",
//! "rule_results":[...]}]}` with keys sorted, laid out as Python's `json.dump(indent=1)`.

use crate::ncu::source::nvdisasm::{self, NvdisasmOptions};
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::ncu::{RuleOrigin, write_rule_json};
use crate::pyjson::PyJsonWriter;
use crate::rules::model::{MarkerLocation, MsgType, TableCell};
use crate::rules::{KernelRules, RuleEngine, RuleError, RunOptions, RunOutput, SectionBinding};
use crate::section::{SectionSet, deployed_section_folder};

use super::common::{KernelChoice, SectionFolders, open_report};

/// Arguments of `sightline rules`.
#[derive(clap::Args, Debug, Clone)]
pub struct RulesArgs {
    /// The report (.ncu-rep or .ncu-repz).
    pub report: PathBuf,
    /// Load rules from this folder (replaces the default: the section folders; repeatable).
    #[arg(long = "rules-folder", value_name = "DIR")]
    pub rules_folder: Vec<PathBuf>,
    /// The section folders (`--section-folder`, `--section-folder-recursive`).
    #[command(flatten)]
    pub folders: SectionFolders,
    /// Which kernel: an index, or `all`.
    #[arg(long, value_name = "N|all", default_value = "all")]
    pub kernel: KernelChoice,
    /// Time budget of one rule call, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 2.0)]
    pub timeout: f64,
    /// Apply only this rule (its identifier; the rules it depends on run too but are not
    /// printed). Repeatable.
    #[arg(long = "rule", value_name = "ID")]
    pub rule: Vec<String>,
    /// Print JSON (NVIDIA's rule_results shape per kernel).
    #[arg(long)]
    pub json: bool,
    /// Print timings on stderr (interpreter ready, rule loading, applying).
    #[arg(long)]
    pub timing: bool,
    /// NVIDIA's disassembler, for `IAction.sass_by_pc` (without it rules get empty SASS).
    #[arg(long, value_name = "PATH")]
    pub nvdisasm: Option<PathBuf>,
}

/// Runs the rules on the report and writes their results to `out`.
///
/// Which sections count as present for section-bound rules: with `--section-folder`, those
/// folders' sections (and rules and charts are looked up there too); without, each kernel's
/// embedded sections ([`SectionBinding::Embedded`]). Rules come from `--rules-folder`, else the
/// section folders, else the deployed default folder, else the bundled rules from memory.
pub fn run(args: &RulesArgs, mut out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let timeout = args.timeout;
    if !(timeout.is_finite() && timeout > 0.0 && timeout <= 86_400.0) {
        anyhow::bail!("--timeout must be a number of seconds between 0 and 86400, got {timeout}");
    }
    let report = Arc::new(open_report(&args.report)?);
    let section_folders = args.folders.folders();
    let (sections, chart_folders) = if section_folders.is_empty() {
        (SectionBinding::Embedded, Vec::new())
    } else {
        let set = SectionSet::load_folders(&section_folders);
        for line in set.diagnostics() {
            eprintln!("{line}");
        }
        let ids = set
            .sections
            .iter()
            .map(|s| s.section.identifier.clone())
            .collect();
        (
            SectionBinding::Identifiers(ids),
            section_folders.iter().map(|f| f.path.clone()).collect(),
        )
    };
    let rule_folders: Vec<PathBuf> = if !args.rules_folder.is_empty() {
        args.rules_folder.clone()
    } else if !section_folders.is_empty() {
        section_folders.iter().map(|f| f.path.clone()).collect()
    } else {
        deployed_section_folder().into_iter().collect()
    };
    // Without a folder (deployment disabled or impossible) the bundled rules run from memory.
    let bundled_from_memory = rule_folders.is_empty();
    let kernels = match args.kernel {
        KernelChoice::All => None,
        KernelChoice::One(n) => Some(vec![n]),
    };
    let engine = RuleEngine::start()?;
    let output = engine.run(
        report,
        RunOptions {
            rule_folders,
            chart_folders,
            sections,
            kernels,
            timeout: Duration::from_secs_f64(timeout),
            bundled_from_memory,
            only: (!args.rule.is_empty()).then(|| args.rule.clone()),
            cancel: None,
            nvdisasm: args.nvdisasm.as_ref().map(|path| NvdisasmOptions {
                explicit: Some(path.clone()),
                cache_dir: Some(nvdisasm::default_cache_dir()),
                ..NvdisasmOptions::default()
            }),
        },
    )?;
    if args.timing {
        eprintln!(
            "interpreter ready {:.1} ms; {} rules loaded in {:.1} ms; applied to {} kernel(s) in {:.1} ms; total {:.1} ms",
            engine.ready_time().as_secs_f64() * 1e3,
            output.rules_loaded,
            output.load_time.as_secs_f64() * 1e3,
            output.kernels.len(),
            output.apply_time.as_secs_f64() * 1e3,
            started.elapsed().as_secs_f64() * 1e3
        );
    }
    if args.json {
        write_json(&output, &mut out)?;
    } else {
        write_text(&output, &mut out)?;
    }
    Ok(ExitCode::SUCCESS)
}

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
        let rule = RuleOrigin {
            identifier: &result.identifier,
            name: &result.name,
            section_identifier: result.section_identifier.as_deref(),
        };
        for message in &result.messages {
            write_rule_json(w, rule, message)?;
        }
    }
    w.end_array()?;
    w.end_object()
}

/// The text view's name of a type (`INFO` for none).
fn type_name(kind: MsgType) -> &'static str {
    match kind {
        MsgType::None => "INFO",
        other => other.name(),
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
                        focus.name,
                        focus
                            .value
                            .map_or_else(|| "N/A".to_owned(), |v| v.to_string()),
                        focus.info
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
