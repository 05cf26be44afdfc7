//! Stored rule results in the shape of NVIDIA's `IAction.rule_results_as_dicts()`.

use crate::proto::nv::rule_system::{RuleResult, RuleResultFocusMetric};

/// `NvRules.MsgType`: the numbering the rule API uses for message types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MsgType {
    /// No message.
    None = 0,
    /// Informative.
    Ok = 1,
    /// Actionable optimization advice.
    Optimization = 2,
    /// A warning (e.g. missing metrics).
    Warning = 3,
    /// A rule failure.
    Error = 4,
}

impl MsgType {
    /// Maps the file's `RuleResultMessageType` (None, Ok, Warning, Error, Optimization) to the
    /// rule API's numbering; unknown values become `None`.
    pub fn from_file(value: i32) -> MsgType {
        match value {
            1 => MsgType::Ok,
            2 => MsgType::Warning,
            3 => MsgType::Error,
            4 => MsgType::Optimization,
            _ => MsgType::None,
        }
    }

    /// The type with rule-API number `value` (`NvRules.MsgType`); unknown values become `None`.
    pub fn from_api(value: i64) -> MsgType {
        match value {
            1 => MsgType::Ok,
            2 => MsgType::Optimization,
            3 => MsgType::Warning,
            4 => MsgType::Error,
            _ => MsgType::None,
        }
    }

    /// The file's `RuleResultMessageType` value for this type.
    pub fn to_file(self) -> i32 {
        match self {
            MsgType::None => 0,
            MsgType::Ok => 1,
            MsgType::Warning => 2,
            MsgType::Error => 3,
            MsgType::Optimization => 4,
        }
    }
}

/// One message of a rule with what is attached to it.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleMessage<'a> {
    /// `RuleResult.Identifier`.
    pub rule_identifier: &'a str,
    /// `RuleResult.DisplayName`.
    pub name: &'a str,
    /// `RuleResult.SectionIdentifier`, if set.
    pub section_identifier: Option<&'a str>,
    /// The message title (`RuleResultMessage.Name`).
    pub title: &'a str,
    /// The message text, with link markup.
    pub message: &'a str,
    /// The message type in the rule API's numbering.
    pub msg_type: MsgType,
    /// Speedup estimate `(type, value)`: type 1 local, 2 global.
    pub speedup: Option<(i32, f64)>,
    /// Focus metrics attached to the message.
    pub focus_metrics: Vec<&'a RuleResultFocusMetric>,
}

/// Flattens stored rule results into one entry per body item, as NVIDIA's reader lists them:
/// each entry has its item's message, speedup and focus metrics.
///
/// An item without a message (a table, a chart, a proposal, a speedup, focus metrics, or
/// nothing: e.g. `UncoalescedGlobalAccess` of 2023.2 and 2024.1 reports, whose output is
/// source markers) is listed with an empty title and message and type [`MsgType::None`]. A
/// result without body items is not listed, whatever source markers it has. Focus metrics
/// stay with the item that stores them, whatever their `MessageId` (checked with NVIDIA's
/// reader on `fixtures/rule_markers.ncu-rep`).
pub fn rule_messages(results: &[RuleResult]) -> Vec<RuleMessage<'_>> {
    let mut out = Vec::new();
    for result in results {
        let Some(body) = &result.body else { continue };
        for item in &body.items {
            let (title, text, msg_type) = match &item.message {
                Some(message) => (
                    message.name.as_deref().unwrap_or(""),
                    message.message.as_str(),
                    MsgType::from_file(message.r#type),
                ),
                None => ("", "", MsgType::None),
            };
            out.push(RuleMessage {
                rule_identifier: &result.identifier,
                name: &result.display_name,
                section_identifier: result.section_identifier.as_deref(),
                title,
                message: text,
                msg_type,
                speedup: item
                    .speedup
                    .as_ref()
                    .map(|s| (s.speedup_type.unwrap_or(0), s.value.unwrap_or(0.0))),
                focus_metrics: item.focus_metrics.iter().collect(),
            });
        }
    }
    out
}
