//! The rule results and source markers stored in a report, as `IAction.rule_results()` and
//! `IAction.source_markers()` give them (NvRules 2025.3): `IRuleResult` (one per message, as
//! NVIDIA's reader lists them; its getters return the dictionaries of
//! `rule_results_as_dicts()`), `SourceMarker` and `ISourceInfo`.

use rustpython_vm::{PyObjectRef, PyPayload, PyResult, VirtualMachine, pyclass};

use super::consts::marker_kind;
use sightline_model::ncu::{MsgType, StoredMessage, rule_messages};
use sightline_model::proto::nv::rule_system::{self, source_marker::SourceLocation};

/// `NvRules.IRuleResult`: one stored message of a rule with what is attached to it.
#[pyclass(module = "NvRules", name = "IRuleResult")]
#[derive(Debug, PyPayload)]
pub struct IRuleResult {
    identifier: String,
    name: String,
    section: String,
    /// `(title, message, type in NvRules.MsgType numbering)`.
    message: (String, String, i64),
    /// `(name, value, severity, info)`.
    focus: Vec<(String, f64, i64, String)>,
    /// `(type, speedup)`.
    speedup: Option<(i64, f64)>,
}

impl IRuleResult {
    /// The stored results of an action, one per message.
    pub(crate) fn all(results: &[rule_system::RuleResult]) -> Vec<IRuleResult> {
        rule_messages(results)
            .into_iter()
            .map(
                |StoredMessage {
                     rule, message: m, ..
                 }| IRuleResult {
                    identifier: rule.identifier.to_owned(),
                    name: rule.name.to_owned(),
                    section: rule.section_identifier.unwrap_or_default().to_owned(),
                    message: (m.title, m.message, m.msg_type.code()),
                    focus: m
                        .focus_metrics
                        .into_iter()
                        .map(|f| (f.name, f.value.unwrap_or(f64::NAN), f.severity, f.info))
                        .collect(),
                    speedup: m.speedup.map(|s| (s.kind, s.value)),
                },
            )
            .collect()
    }
}

fn dict(vm: &VirtualMachine, items: Vec<(&str, PyObjectRef)>) -> PyResult {
    let dict = vm.ctx.new_dict();
    for (key, value) in items {
        dict.set_item(key, value, vm)?;
    }
    Ok(dict.into())
}

#[pyclass]
impl IRuleResult {
    #[pymethod]
    fn rule_identifier(&self) -> String {
        self.identifier.clone()
    }

    #[pymethod]
    fn name(&self) -> String {
        self.name.clone()
    }

    #[pymethod]
    fn section_identifier(&self) -> String {
        self.section.clone()
    }

    #[pymethod]
    fn has_rule_message(&self) -> bool {
        true
    }

    /// `{"title": ..., "message": ..., "type": ...}`.
    #[pymethod]
    fn rule_message(&self, vm: &VirtualMachine) -> PyResult {
        let (title, message, kind) = &self.message;
        dict(
            vm,
            vec![
                ("title", vm.ctx.new_str(title.as_str()).into()),
                ("message", vm.ctx.new_str(message.as_str()).into()),
                ("type", vm.ctx.new_int(*kind).into()),
            ],
        )
    }

    /// A list of `{"name", "value", "severity", "info"}`.
    #[pymethod]
    fn focus_metrics(&self, vm: &VirtualMachine) -> PyResult {
        let mut list = Vec::with_capacity(self.focus.len());
        for (name, value, severity, info) in &self.focus {
            list.push(dict(
                vm,
                vec![
                    ("name", vm.ctx.new_str(name.as_str()).into()),
                    ("value", vm.ctx.new_float(*value).into()),
                    ("severity", vm.ctx.new_int(*severity).into()),
                    ("info", vm.ctx.new_str(info.as_str()).into()),
                ],
            )?);
        }
        Ok(vm.ctx.new_list(list).into())
    }

    #[pymethod]
    fn has_speedup_estimation(&self) -> bool {
        self.speedup.is_some()
    }

    /// `{"type": ..., "speedup": ...}` (`None` without an estimate).
    #[pymethod]
    fn speedup_estimation(&self, vm: &VirtualMachine) -> PyResult {
        match self.speedup {
            Some((kind, value)) => dict(
                vm,
                vec![
                    ("type", vm.ctx.new_int(kind).into()),
                    ("speedup", vm.ctx.new_float(value).into()),
                ],
            ),
            None => Ok(vm.ctx.none()),
        }
    }

    /// Tables attached to stored results: none are decoded from reports (an empty list).
    #[pymethod]
    fn result_tables(&self, vm: &VirtualMachine) -> PyObjectRef {
        vm.ctx.new_list(Vec::new()).into()
    }
}

/// `NvRules.ISourceInfo`: a source file and line.
#[pyclass(module = "NvRules", name = "ISourceInfo")]
#[derive(Debug, PyPayload)]
pub struct ISourceInfo {
    file: String,
    line: u64,
}

impl ISourceInfo {
    /// A file:line answer.
    pub(crate) fn new(file: String, line: u64) -> ISourceInfo {
        ISourceInfo { file, line }
    }
}

#[pyclass]
impl ISourceInfo {
    #[pymethod]
    fn file_name(&self) -> String {
        self.file.clone()
    }

    #[pymethod]
    fn line(&self) -> u64 {
        self.line
    }
}

/// `NvRules.SourceMarker`: a marker a rule stored in the report.
#[pyclass(module = "NvRules", name = "SourceMarker")]
#[derive(Debug, PyPayload)]
pub struct SourceMarker {
    rule: String,
    section: String,
    kind: i64,
    message_type: i64,
    message: String,
    file: Option<String>,
    line: Option<u64>,
    address: u64,
}

impl SourceMarker {
    /// The source markers stored with an action's rule results.
    pub(crate) fn all(results: &[rule_system::RuleResult]) -> Vec<SourceMarker> {
        results
            .iter()
            .flat_map(|result| {
                result.source_markers.iter().map(move |marker| {
                    let (line, address) = match marker.source_location {
                        Some(SourceLocation::LineNumber(line)) => (Some(u64::from(line)), 0),
                        Some(SourceLocation::Address(address)) => (None, address),
                        None => (None, 0),
                    };
                    SourceMarker {
                        rule: result.identifier.clone(),
                        section: result.section_identifier.clone().unwrap_or_default(),
                        kind: match marker.kind {
                            Some(0) => marker_kind::SASS,
                            Some(1) => marker_kind::SOURCE,
                            _ => marker_kind::NONE,
                        },
                        message_type: MsgType::from_file(marker.r#type.unwrap_or(0)).code(),
                        message: marker.tooltip.clone().unwrap_or_default(),
                        file: marker.file_name.clone(),
                        line,
                        address,
                    }
                })
            })
            .collect()
    }
}

#[pyclass]
impl SourceMarker {
    #[pygetset]
    fn rule_identifier(&self) -> String {
        self.rule.clone()
    }

    #[pygetset]
    fn section_identifier(&self) -> String {
        self.section.clone()
    }

    #[pygetset]
    fn kind(&self) -> i64 {
        self.kind
    }

    #[pygetset]
    fn message_type(&self) -> i64 {
        self.message_type
    }

    #[pygetset]
    fn message(&self) -> String {
        self.message.clone()
    }

    /// The source line (`ISourceInfo`) of a source marker; `None` for SASS markers.
    #[pygetset]
    fn source_location(&self) -> Option<ISourceInfo> {
        Some(ISourceInfo {
            file: self.file.clone()?,
            line: self.line.unwrap_or(0),
        })
    }

    /// The SASS address of a SASS marker (0 for source markers).
    #[pygetset]
    fn source_address(&self) -> u64 {
        self.address
    }
}
