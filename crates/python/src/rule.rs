//! `IRuleResult`: one message of a rule result stored in the report, with what is attached to
//! it (NVIDIA's reader lists one per message; the model's `rule_messages` flattens them so).

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use sightline_model::ncu::{FocusMetric, MsgType, StoredMessage, rule_messages};

use crate::report::ResultData;

/// `ncu_report.IRuleResult`: a stored rule message.
#[pyclass(module = "ncu_report", name = "IRuleResult", frozen)]
#[derive(Debug)]
pub struct IRuleResult {
    identifier: String,
    name: String,
    section: Option<String>,
    has_message: bool,
    title: String,
    message: String,
    /// `MsgType` number.
    msg_type: i64,
    focus: Vec<FocusMetric>,
    /// `(SpeedupType number, speedup)`.
    speedup: Option<(i64, f64)>,
}

impl IRuleResult {
    /// The stored rule messages of a result, in the report's order.
    pub(crate) fn all(result: &ResultData) -> Vec<IRuleResult> {
        rule_messages(result.action.rule_results())
            .into_iter()
            .map(|stored: StoredMessage<'_>| IRuleResult {
                identifier: stored.rule.identifier.to_owned(),
                name: stored.rule.name.to_owned(),
                section: stored.rule.section_identifier.map(str::to_owned),
                has_message: stored.has_message,
                title: stored.message.title,
                message: stored.message.message,
                msg_type: stored.message.msg_type.code(),
                focus: stored.message.focus_metrics,
                speedup: stored.message.speedup.map(|s| (s.kind, s.value)),
            })
            .collect()
    }

    /// The section the rule belongs to (empty for none).
    pub(crate) fn section(&self) -> &str {
        self.section.as_deref().unwrap_or_default()
    }

    /// The message as an HTML paragraph: its type, title and text.
    pub(crate) fn message_html(&self) -> String {
        let kind = MsgType::from_code(self.msg_type).map_or("NONE", MsgType::name);
        let title = if self.title.is_empty() {
            &self.name
        } else {
            &self.title
        };
        format!(
            "<p><strong>{} {}</strong>: {}</p>",
            crate::html::escape(kind),
            crate::html::escape(title),
            crate::html::escape(&self.message)
        )
    }

    /// The result as one dictionary of `IAction.rule_results_as_dicts()`: focus metrics and
    /// speedup only when there are some, the section only when the rule names one.
    pub(crate) fn as_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("rule_identifier", &self.identifier)?;
        dict.set_item("name", &self.name)?;
        if let Some(section) = &self.section {
            dict.set_item("section_identifier", section)?;
        }
        dict.set_item("rule_message", self.rule_message(py)?)?;
        if !self.focus.is_empty() {
            dict.set_item("focus_metrics", self.focus_metrics(py)?)?;
        }
        if self.speedup.is_some() {
            dict.set_item("speedup_estimation", self.speedup_estimation(py)?)?;
        }
        Ok(dict)
    }
}

#[pymethods]
impl IRuleResult {
    /// The rule's identifier.
    fn rule_identifier(&self) -> String {
        self.identifier.clone()
    }

    /// The rule's name.
    fn name(&self) -> String {
        self.name.clone()
    }

    /// The identifier of the section the rule belongs to (empty for none).
    fn section_identifier(&self) -> String {
        self.section().to_owned()
    }

    /// Whether the stored item has a message.
    fn has_rule_message(&self) -> bool {
        self.has_message
    }

    /// `{"title", "message", "type"}` (`type` a `MsgType` number; an item without a message
    /// has empty texts and `MsgType.NONE`).
    fn rule_message<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("title", &self.title)?;
        dict.set_item("message", &self.message)?;
        dict.set_item("type", self.msg_type)?;
        Ok(dict)
    }

    /// A list of `{"name", "value", "severity", "info"}` (a focus metric stored without a
    /// value has 0).
    fn focus_metrics<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for focus in &self.focus {
            let dict = PyDict::new(py);
            dict.set_item("name", &focus.name)?;
            dict.set_item("value", focus.value.unwrap_or(0.0))?;
            dict.set_item("severity", focus.severity)?;
            dict.set_item("info", &focus.info)?;
            list.append(dict)?;
        }
        Ok(list)
    }

    /// Whether the item has a speedup estimate.
    fn has_speedup_estimation(&self) -> bool {
        self.speedup.is_some()
    }

    /// `{"type", "speedup"}` (`type` a `SpeedupType` number; `UNKNOWN` and 0 without an
    /// estimate).
    fn speedup_estimation<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (kind, speedup) = self.speedup.unwrap_or((0, 0.0));
        let dict = PyDict::new(py);
        dict.set_item("type", kind)?;
        dict.set_item("speedup", speedup)?;
        Ok(dict)
    }

    /// The tables attached to the item: the model does not decode the tables reports store
    /// with rule results (none of the corpus reports has one), so the list is empty.
    fn result_tables<'py>(&self, py: Python<'py>) -> Bound<'py, PyList> {
        PyList::empty(py)
    }

    fn __repr__(&self) -> String {
        format!("<ncu_report.IRuleResult {}>", self.identifier)
    }

    /// The rule's name, as NVIDIA's `str()` of a rule result gives it.
    fn __str__(&self) -> String {
        self.name.clone()
    }
}
