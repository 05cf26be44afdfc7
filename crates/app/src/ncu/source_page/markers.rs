//! Source markers in the page's margin: those stored with the kernel's rule results and those
//! of rules applied in this session (an applied rule's markers replace its stored ones). A
//! marker points at a SASS address or at a file's line.

use std::collections::HashMap;

use sightline_model::ncu::MsgType;
use sightline_model::proto::nv::rule_system::RuleResult;
use sightline_model::proto::nv::rule_system::source_marker::SourceLocation;
use sightline_rules::model::MarkerLocation;

use super::data::{PageData, Row, short_name};
use crate::ncu::rule_state::PageRules;

/// One marker.
#[derive(Debug, Clone, PartialEq)]
pub struct Marker {
    /// The rule that placed it.
    pub rule: String,
    /// Its tooltip.
    pub message: String,
    /// Warnings and errors are drawn in the warning colour, the rest as advice.
    pub warning: bool,
    /// Where it points.
    pub at: At,
}

/// Where a marker points.
#[derive(Debug, Clone, PartialEq)]
pub enum At {
    /// An absolute SASS address.
    Pc(u64),
    /// A line of a file (matched by file name when the rule gives a path).
    Line(String, u32),
}

/// The markers of a page, indexed for drawing.
#[derive(Debug, Default)]
pub struct Markers {
    list: Vec<Marker>,
    by_sass: HashMap<u32, Vec<usize>>,
    by_line: HashMap<(String, u32), Vec<usize>>,
}

impl Markers {
    /// The markers of the stored `results` and of `rules` applied in this session, on `page`.
    pub fn build(results: &[RuleResult], rules: Option<&PageRules>, page: &PageData) -> Markers {
        let mut list = Vec::new();
        for result in results {
            if rules.is_some_and(|r| r.replaced.contains(&result.identifier)) {
                continue;
            }
            for marker in &result.source_markers {
                let at = match marker.source_location {
                    Some(SourceLocation::Address(pc)) => At::Pc(pc),
                    Some(SourceLocation::LineNumber(line)) => {
                        At::Line(marker.file_name.clone().unwrap_or_default(), line)
                    }
                    None => continue,
                };
                let kind = MsgType::from_file(marker.r#type.unwrap_or(0));
                list.push(Marker {
                    rule: result.identifier.clone(),
                    message: marker.tooltip.clone().unwrap_or_default(),
                    warning: kind.is_warning(),
                    at,
                });
            }
        }
        for result in rules.iter().flat_map(|r| &r.applied) {
            for marker in &result.source_markers {
                let at = match &marker.location {
                    MarkerLocation::Sass(pc) => At::Pc(*pc),
                    MarkerLocation::Source { file, line } => {
                        At::Line(file.clone(), u32::try_from(*line).unwrap_or(u32::MAX))
                    }
                };
                list.push(Marker {
                    rule: result.identifier.clone(),
                    message: marker.message.clone(),
                    warning: marker.msg_type.is_warning(),
                    at,
                });
            }
        }
        let mut markers = Markers::default();
        for (index, marker) in list.iter().enumerate() {
            match &marker.at {
                At::Pc(pc) => {
                    if let Some(row) = page.sass_row_of(*pc) {
                        markers.by_sass.entry(row as u32).or_default().push(index);
                    }
                }
                At::Line(file, line) => {
                    markers
                        .by_line
                        .entry((short_name(file).to_owned(), *line))
                        .or_default()
                        .push(index);
                }
            }
        }
        markers.list = list;
        markers
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The markers of `row` (of file `file` in the Source view): those at its instructions and,
    /// for a source line, those at the line.
    pub fn of_row(&self, row: &Row, file: Option<&str>) -> Vec<&Marker> {
        let mut out: Vec<usize> = Vec::new();
        if let Some(file) = file
            && let Ok(line) = row.location.parse::<u32>()
            && let Some(list) = self.by_line.get(&(short_name(file).to_owned(), line))
        {
            out.extend(list);
        }
        if !self.by_sass.is_empty() {
            for pc in &row.pcs {
                if let Some(list) = self.by_sass.get(pc) {
                    out.extend(list);
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out.into_iter().filter_map(|i| self.list.get(i)).collect()
    }
}
