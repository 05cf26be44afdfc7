//! `--baseline OTHER[:KERNEL]` of `sightline details` and `sightline summary`: opens each
//! baseline report and finds, for each result shown, the baseline's result — the one picked by
//! index, else the one with the same kernel name and launch order
//! ([`crate::section::match_by_name`]).

use std::io::{self, Write};
use std::path::Path;

use crate::ncu::{NameBase, Report};
use crate::pyjson::PyJsonWriter;
use crate::section::{BaselineSpec, Difference, match_all, match_by_name};

use super::common::open_report;

/// One opened baseline.
pub struct OpenedBaseline {
    /// The argument as given (the baseline's name in the output).
    pub name: String,
    /// Its report.
    pub report: Report,
    /// The result picked by index, if one was.
    pub kernel: Option<usize>,
    /// The function name of each of its results.
    pub names: Vec<String>,
}

impl OpenedBaseline {
    /// Opens `spec`'s report; fails when it does not open or has no result `KERNEL`.
    pub fn open(spec: &BaselineSpec) -> anyhow::Result<OpenedBaseline> {
        let given = match spec.kernel {
            Some(kernel) => format!("{}:{kernel}", spec.path.display()),
            None => spec.path.display().to_string(),
        };
        let report = open_report(&spec.path)?;
        if let Some(kernel) = spec.kernel
            && kernel >= report.num_actions()
        {
            anyhow::bail!(
                "baseline {given}: no kernel {kernel}: {} has {} result(s)",
                spec.path.display(),
                report.num_actions()
            );
        }
        let names = function_names(&report)?;
        Ok(OpenedBaseline {
            name: given,
            report,
            kernel: spec.kernel,
            names,
        })
    }

    /// The baseline's result for result `index` of a report whose function names are `names`.
    pub fn result_for(&self, names: &[String], index: usize) -> Option<usize> {
        self.kernel
            .or_else(|| match_by_name(names, index, &self.names))
    }

    /// [`OpenedBaseline::result_for`] for every result of `names` at once.
    pub fn results_for(&self, names: &[String]) -> Vec<Option<usize>> {
        match self.kernel {
            Some(kernel) => vec![Some(kernel); names.len()],
            None => match_all(names, &self.names),
        }
    }

    /// The baseline's file.
    pub fn path(&self) -> &Path {
        self.report.path()
    }
}

/// The function name of every result of `report`.
pub fn function_names(report: &Report) -> anyhow::Result<Vec<String>> {
    (0..report.num_actions())
        .map(|i| {
            report
                .action(i)
                .map(|a| a.name(NameBase::Function).to_owned())
                .map_err(|e| anyhow::anyhow!("{}: result {i}: {e}", report.path().display()))
        })
        .collect()
}

/// Opens every baseline of `specs`.
pub fn open_baselines(specs: &[BaselineSpec]) -> anyhow::Result<Vec<OpenedBaseline>> {
    specs.iter().map(OpenedBaseline::open).collect()
}

/// Writes a baseline's `value`, its `difference` and `relative_percent` to the current JSON
/// object (`null` for what is missing or not finite).
pub fn write_difference<W: Write>(
    w: &mut PyJsonWriter<W>,
    value: Option<f64>,
    difference: Option<Difference>,
) -> io::Result<()> {
    w.key("value")?;
    json_number(w, value)?;
    w.key("difference")?;
    json_number(w, difference.map(|d| d.absolute))?;
    w.key("relative_percent")?;
    json_number(w, difference.and_then(|d| d.relative))
}

/// A finite number, else `null`.
pub fn json_number<W: Write>(w: &mut PyJsonWriter<W>, value: Option<f64>) -> io::Result<()> {
    match value {
        Some(v) if v.is_finite() => w.float(v),
        _ => w.null(),
    }
}
