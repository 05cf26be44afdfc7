//! The summary page (`ncu --import R --page details --print-summary per-kernel|per-gpu|
//! per-nvtx`): the details page's header metrics aggregated (minimum, maximum, average) over
//! the launches of one kernel (same process, name, launch geometry and device), per GPU, or
//! per NVTX push/pop stack.

use std::collections::BTreeMap;

use super::chip::ChipLibrary;
use super::header::header_entries;
use super::launch::LaunchColumns;
use super::number::{UnitScale, entry_cli_unit, fixed, scaled};
use super::{Table, UnitMode};
use crate::ncu::nvtx::NvtxView;
use crate::ncu::{Action, MetricValue, Report};
use crate::section::details::KernelDetails;

/// What the summary groups launches by (`--print-summary`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SummaryPer {
    /// `per-kernel`: process, kernel name, block and grid size, device.
    #[default]
    Kernel,
    /// `per-gpu`: the same keys, the device columns first.
    Gpu,
    /// `per-nvtx`: the NVTX push/pop stack, then the kernel.
    Nvtx,
}

/// One metric's values over a group's launches, in first-seen order.
struct Series {
    section: String,
    label: String,
    unit: String,
    values: Vec<f64>,
}

/// The summary page of `actions` with their resolved pages (same order, same length).
pub fn summary_page(
    report: &Report,
    actions: &[Action],
    pages: &[KernelDetails],
    per: SummaryPer,
    units: UnitMode,
) -> Table {
    let launch = LaunchColumns::default();
    let mut groups: BTreeMap<Vec<String>, Vec<Series>> = BTreeMap::new();
    let mut counts: BTreeMap<Vec<String>, usize> = BTreeMap::new();
    for (action, page) in actions.iter().zip(pages) {
        let Some(key) = group_key(per, action, &launch.cells(report, action)) else {
            continue;
        };
        *counts.entry(key.clone()).or_default() += 1;
        let series = groups.entry(key).or_default();
        let mut sections: Vec<_> = page
            .sections
            .iter()
            .flat_map(|s| std::iter::once(s).chain(&s.children))
            .collect();
        sections.sort_by(|a, b| a.display_name.cmp(&b.display_name));
        for section in sections {
            for entry in header_entries(section, action, false) {
                let Some(v) = entry
                    .value
                    .as_ref()
                    .filter(|v| !matches!(v, MetricValue::String(_)))
                    .and_then(MetricValue::as_f64)
                else {
                    continue;
                };
                match series
                    .iter_mut()
                    .find(|s| s.section == section.display_name && s.label == entry.label)
                {
                    Some(s) => s.values.push(v),
                    None => series.push(Series {
                        section: section.display_name.clone(),
                        label: entry.label.clone(),
                        unit: entry_cli_unit(&entry, ChipLibrary::of(action)),
                        values: vec![v],
                    }),
                }
            }
        }
    }
    let header = summary_header(per, true);
    let mut rows = Vec::new();
    for (key, series) in &groups {
        let invocations = counts.get(key).copied().unwrap_or(0);
        for s in series {
            let [min, max, avg] = min_max_avg(&s.values);
            let (unit, divisor) = match UnitScale::of(&s.unit) {
                Some(scale) if units == UnitMode::Auto => {
                    let step = scale.step_for(max.abs().max(min.abs()));
                    (scale.unit(step).to_owned(), scale.divisor(step))
                }
                _ => (s.unit.clone(), 1.0),
            };
            let mut row = key_cells(per, key);
            row.push(invocations.to_string());
            row.push(s.section.clone());
            row.push(s.label.clone());
            row.push(unit);
            row.extend([min, max, avg].map(|v| fixed(scaled(v, divisor), 2)));
            rows.push(row);
        }
    }
    Table {
        title: String::new(),
        header,
        rows,
    }
}

/// The group of a launch from its launch cells ([`LaunchColumns::cells`]: ID 0, process 1-3,
/// kernel 4, context 5, stream 6, block 7, grid 8, device 9, CC 10), in the order groups sort
/// (kernel name first); `None` for a launch outside any NVTX range (`per-nvtx`).
pub fn group_key(per: SummaryPer, action: &Action, c: &[String]) -> Option<Vec<String>> {
    let pick = |indices: &[usize]| indices.iter().map(|&i| c[i].clone()).collect::<Vec<_>>();
    Some(match per {
        SummaryPer::Kernel => pick(&[4, 1, 2, 3, 7, 8, 9, 10]),
        SummaryPer::Gpu => pick(&[9, 10, 4, 1, 2, 3, 7, 8]),
        SummaryPer::Nvtx => {
            let (domain, stack) = nvtx_key(action)?;
            let mut key = vec![domain, stack];
            key.extend(pick(&[4, 7, 8, 9, 10]));
            key
        }
    })
}

/// The header of a summary: the key columns, `Invocations`, [`Section Name`,] `Metric Name`,
/// `Metric Unit`, `Minimum`, `Maximum`, `Average`.
pub fn summary_header(per: SummaryPer, with_section: bool) -> Vec<String> {
    let mut header = key_header(per);
    header.push("Invocations".to_owned());
    if with_section {
        header.push("Section Name".to_owned());
    }
    header.extend(
        [
            "Metric Name",
            "Metric Unit",
            "Minimum",
            "Maximum",
            "Average",
        ]
        .map(str::to_owned),
    );
    header
}

/// The minimum, maximum and average of `values` (not empty).
pub fn min_max_avg(values: &[f64]) -> [f64; 3] {
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    [min, max, values.iter().sum::<f64>() / values.len() as f64]
}

/// The names of a group's key, in the order they are printed.
const KERNEL_KEY: [&str; 8] = [
    "Kernel Name",
    "Process ID",
    "Process Name",
    "Host Name",
    "Block Size",
    "Grid Size",
    "Device",
    "CC",
];

/// The printed position of each key cell (`per-kernel` prints the process first).
fn printed_order(per: SummaryPer) -> &'static [usize] {
    match per {
        SummaryPer::Kernel => &[1, 2, 3, 0, 4, 5, 6, 7],
        SummaryPer::Gpu => &[3, 4, 5, 0, 1, 2, 6, 7],
        SummaryPer::Nvtx => &[0, 1, 2, 3, 4, 5, 6],
    }
}

/// The key columns' header, as printed.
pub fn key_header(per: SummaryPer) -> Vec<String> {
    let names: Vec<&str> = match per {
        SummaryPer::Kernel => KERNEL_KEY.to_vec(),
        SummaryPer::Gpu => {
            let mut names = vec!["Device", "CC"];
            names.extend(&KERNEL_KEY[..6]);
            names
        }
        SummaryPer::Nvtx => vec![
            "Domain",
            "Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg",
            "Kernel Name",
            "Block Size",
            "Grid Size",
            "Device",
            "CC",
        ],
    };
    printed_order(per)
        .iter()
        .map(|&i| names[i].to_owned())
        .collect()
}

/// A group's key cells, as printed.
pub fn key_cells(per: SummaryPer, key: &[String]) -> Vec<String> {
    printed_order(per).iter().map(|&i| key[i].clone()).collect()
}

/// The innermost domain with a push/pop stack on the launching thread, and the stack as the
/// summary prints it (` ""range:...""  ""range:..."" `).
fn nvtx_key(action: &Action) -> Option<(String, String)> {
    let state = action.nvtx()?;
    let view = NvtxView::new(state, action.thread_id());
    let id = view
        .domain_ids()
        .find(|&id| !view.push_pop_ranges(id).is_empty())?;
    let domain = view.domain_name(id).to_owned();
    let ranges: Vec<String> = state
        .threads
        .iter()
        .filter(|t| action.thread_id().is_none_or(|tid| t.tid == tid))
        .flat_map(|t| &t.push_pop_domains)
        .filter(|d| d.id == id)
        .flat_map(|d| &d.stack)
        .map(|r| {
            let full = super::launch::range_text(&domain, &r.name, r.attributes.as_ref());
            let text = full
                .strip_prefix(&format!("{domain}:"))
                .unwrap_or(&full)
                .to_owned();
            format!("\"\"{text}\"\"")
        })
        .collect();
    Some((domain, format!(" {} ", ranges.join("  "))))
}
