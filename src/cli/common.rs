//! Argument groups shared by several commands, and opening a report with its warnings printed.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::ncu::Report;
use crate::problem::Problem;
use crate::section::SectionFolder;

/// Section search path options, as Nsight Compute's CLI has them.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct SectionFolders {
    /// Search this folder for .section files (replaces the default path; repeatable).
    #[arg(long = "section-folder", value_name = "DIR")]
    pub folder: Vec<PathBuf>,
    /// Search this folder and its sub-folders (replaces the default path; repeatable).
    #[arg(long = "section-folder-recursive", value_name = "DIR")]
    pub recursive: Vec<PathBuf>,
}

impl SectionFolders {
    /// The folders given, plain ones first (empty: the default path).
    pub fn folders(&self) -> Vec<SectionFolder> {
        let plain = self.folder.iter().map(|p| SectionFolder {
            path: p.clone(),
            recursive: false,
        });
        let deep = self.recursive.iter().map(|p| SectionFolder {
            path: p.clone(),
            recursive: true,
        });
        plain.chain(deep).collect()
    }
}

/// `--kernel N|all`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KernelChoice {
    /// Every kernel.
    All,
    /// Kernel N (0-based).
    One(usize),
}

impl std::str::FromStr for KernelChoice {
    type Err = ValueError;
    fn from_str(text: &str) -> Result<Self, ValueError> {
        if text.eq_ignore_ascii_case("all") {
            return Ok(KernelChoice::All);
        }
        text.parse()
            .map(KernelChoice::One)
            .map_err(|_| ValueError::Kernel(text.to_owned()))
    }
}

/// A command-line value that does not parse (what clap prints after "invalid value").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    /// `--kernel` is neither an index nor `all`.
    #[error("expected a kernel index or `all`, got `{0}`")]
    Kernel(String),
    /// `--offset` is not `K=NS`.
    #[error("{0}: expected K=NS (file index = nanoseconds)")]
    Offset(String),
    /// `--range` is not `START..END` with START ≤ END.
    #[error("{0}: expected START..END (ns, START <= END)")]
    Range(String),
    /// A number in a value does not parse.
    #[error("{text}: {source}")]
    Number {
        /// The text as given.
        text: String,
        /// Why it is not a number.
        #[source]
        source: std::num::ParseIntError,
    },
}

impl ValueError {
    /// The error for `text` that is not a number, for `map_err`.
    pub fn number(text: &str) -> impl FnOnce(std::num::ParseIntError) -> ValueError + '_ {
        move |source| ValueError::Number {
            text: text.to_owned(),
            source,
        }
    }
}

/// Opens a report and prints its reader warnings on stderr.
pub fn open_report(path: &Path) -> anyhow::Result<Report> {
    let report = Report::open(path)?;
    print_report_warnings(&report, report.warnings());
    Ok(report)
}

/// Prints reader warnings on stderr: `sightline: warning: FILE: byte N: message`.
pub fn print_report_warnings(report: &Report, warnings: &[Problem]) {
    for warning in warnings {
        eprintln!("sightline: warning: {}: {warning}", report.path().display());
    }
}

/// Writes `rows` under `header` in columns as wide as their widest cell, two spaces apart
/// (trailing spaces trimmed).
pub fn write_table<const N: usize>(
    out: &mut dyn Write,
    header: &[&str; N],
    rows: &[[String; N]],
) -> io::Result<()> {
    let mut widths = header.map(str::len);
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |out: &mut dyn Write, cells: &[&str]| -> io::Result<()> {
        let text: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        writeln!(out, "{}", text.join("  ").trim_end())
    };
    line(out, header)?;
    for row in rows {
        line(out, &row.iter().map(String::as_str).collect::<Vec<_>>())?;
    }
    Ok(())
}

/// `--print-units`: how the `ncu --import`-compatible pages print units.
#[derive(clap::ValueEnum, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PrintUnits {
    /// Values scaled into the largest unit step they reach (`usecond`, `Mbyte`).
    #[default]
    Auto,
    /// Base units (`nsecond`, `byte`, `cycle/second`).
    Base,
}

impl From<PrintUnits> for crate::ncu::pages::UnitMode {
    fn from(units: PrintUnits) -> Self {
        match units {
            PrintUnits::Auto => crate::ncu::pages::UnitMode::Auto,
            PrintUnits::Base => crate::ncu::pages::UnitMode::Base,
        }
    }
}

/// `--print-metric-instances`: how the `ncu --import`-compatible pages print instanced
/// metrics.
#[derive(clap::ValueEnum, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PrintInstances {
    /// The aggregate only.
    #[default]
    None,
    /// `AGG (v1; v2; ...)`.
    Values,
    /// `AGG (id1: v1; id2: v2; ...)`.
    Details,
}

impl From<PrintInstances> for crate::ncu::pages::InstanceMode {
    fn from(mode: PrintInstances) -> Self {
        match mode {
            PrintInstances::None => crate::ncu::pages::InstanceMode::None,
            PrintInstances::Values => crate::ncu::pages::InstanceMode::Values,
            PrintInstances::Details => crate::ncu::pages::InstanceMode::Details,
        }
    }
}

/// Decodes every action of `report`, naming the report and the action on failure.
pub fn all_actions(report: &Report) -> anyhow::Result<Vec<crate::ncu::Action>> {
    (0..report.num_actions())
        .map(|i| {
            report
                .action(i)
                .map_err(|e| anyhow::anyhow!("{}: result {i}: {e}", report.path().display()))
        })
        .collect()
}

/// A field of the commands' CSV outputs (RFC 4180): quoted, with its quotes doubled, when it
/// holds a comma, a quote or a line break (`\n` or `\r`); as it is otherwise.
pub fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}
