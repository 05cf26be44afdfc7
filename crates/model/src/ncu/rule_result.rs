//! Rule messages: one owned [`RuleMessage`] (with its [`MsgType`], speedup, focus metrics and
//! tables) for the rules Sightline runs (`sightline-rules` produces them) and for the results
//! stored in a report ([`rule_messages`] flattens those in the shape of NVIDIA's
//! `IAction.rule_results_as_dicts()`), written to JSON once ([`write_json`]).

use std::io::{self, Write};

use crate::proto::nv::rule_system::RuleResult;
use crate::pyjson::PyJsonWriter;

/// The type of a rule message or source marker (`NvRules.MsgType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MsgType {
    /// No message.
    None,
    /// Informative.
    Ok,
    /// Actionable optimization advice.
    Optimization,
    /// A warning (e.g. missing metrics).
    Warning,
    /// A rule failure.
    Error,
}

impl MsgType {
    /// Every type, in `NvRules.MsgType` order.
    pub const ALL: [MsgType; 5] = [
        MsgType::None,
        MsgType::Ok,
        MsgType::Optimization,
        MsgType::Warning,
        MsgType::Error,
    ];

    /// Maps the file's `RuleResultMessageType` (None, Ok, Warning, Error, Optimization) to the
    /// type; unknown values become `None`.
    pub fn from_file(value: i32) -> MsgType {
        match value {
            1 => MsgType::Ok,
            2 => MsgType::Warning,
            3 => MsgType::Error,
            4 => MsgType::Optimization,
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

    /// The type with `NvRules.MsgType` number `code` (what a rule passes), if there is one.
    pub fn from_code(code: i64) -> Option<MsgType> {
        MsgType::ALL.into_iter().find(|t| t.code() == code)
    }

    /// The `NvRules.MsgType` number (what rules see and the JSON outputs write).
    pub fn code(self) -> i64 {
        match self {
            MsgType::None => 0,
            MsgType::Ok => 1,
            MsgType::Optimization => 2,
            MsgType::Warning => 3,
            MsgType::Error => 4,
        }
    }

    /// The `NvRules.MsgType` member name: `NONE`, `OK`, `OPTIMIZATION`, `WARNING`, `ERROR`.
    pub fn name(self) -> &'static str {
        match self {
            MsgType::None => "NONE",
            MsgType::Ok => "OK",
            MsgType::Optimization => "OPTIMIZATION",
            MsgType::Warning => "WARNING",
            MsgType::Error => "ERROR",
        }
    }

    /// Whether the type is a warning or an error.
    pub fn is_warning(self) -> bool {
        matches!(self, MsgType::Warning | MsgType::Error)
    }
}

/// A focus metric attached to a message.
#[derive(Debug, Clone, PartialEq)]
pub struct FocusMetric {
    /// Metric name.
    pub name: String,
    /// The value the rule looked at (`None`: a stored focus metric without one).
    pub value: Option<f64>,
    /// `IFrontend.Severity_*` (0 when a stored focus metric has none).
    pub severity: i64,
    /// How the value was judged.
    pub info: String,
}

/// A speedup estimate attached to a message.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Speedup {
    /// `IFrontend.SpeedupType_*`: 1 local, 2 global.
    pub kind: i64,
    /// Estimated speedup in percent.
    pub value: f64,
}

/// One cell of a rule table.
#[derive(Debug, Clone, PartialEq)]
pub enum TableCell {
    /// An integer.
    Int(i64),
    /// A float.
    Double(f64),
    /// Text (also `str()` of any other object).
    Text(String),
}

/// Bold and italic, for a table's cells or a column's header or data (`NvRules.TableStyle`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CellStyle {
    /// Bold text.
    pub bold: bool,
    /// Italic text.
    pub italic: bool,
}

/// The column a table is sorted by (`config["sort_by"]`, `NvRules.TableSortInfo`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableSort {
    /// Column index.
    pub column: usize,
    /// Ascending (`"order": "ascending"`, the default) or descending.
    pub ascending: bool,
}

/// One column's settings (`config["per_column_configs"]`, `NvRules.TableColumnConfig`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ColumnConfig {
    /// Tooltip of the column header.
    pub tooltip: Option<String>,
    /// Share of the table's width, 0 to 1.
    pub relative_width: Option<f64>,
    /// Style of the header cell.
    pub header_style: Option<CellStyle>,
    /// Style of the data cells.
    pub data_style: Option<CellStyle>,
}

/// A table a rule attached to a message (`IFrontend.generate_table`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RuleTable {
    /// Column labels.
    pub header: Vec<String>,
    /// Rows, in the order the rule gave them.
    pub rows: Vec<Vec<TableCell>>,
    /// `config["title"]`, if given.
    pub title: Option<String>,
    /// `config["description"]`, if given.
    pub description: Option<String>,
    /// `config["sort_by"]`, if given.
    pub sort: Option<TableSort>,
    /// `config["style"]`: the style of every cell, if given.
    pub style: Option<CellStyle>,
    /// `config["per_column_configs"]`, one entry per column (default when not given).
    pub columns: Vec<ColumnConfig>,
}

impl RuleTable {
    /// The rows in display order: sorted by `sort` (stable, see [`TableCell::compare`];
    /// descending reverses it), else as given.
    pub fn display_rows(&self) -> Vec<&[TableCell]> {
        let mut rows: Vec<&[TableCell]> = self.rows.iter().map(Vec::as_slice).collect();
        if let Some(sort) = self.sort {
            rows.sort_by(|a, b| {
                let order = match (a.get(sort.column), b.get(sort.column)) {
                    (Some(x), Some(y)) => x.compare(y),
                    _ => std::cmp::Ordering::Equal,
                };
                if sort.ascending {
                    order
                } else {
                    order.reverse()
                }
            });
        }
        rows
    }

    /// The settings of column `index` (defaults when the rule gave none).
    pub fn column(&self, index: usize) -> ColumnConfig {
        self.columns.get(index).cloned().unwrap_or_default()
    }
}

impl TableCell {
    /// Orders two cells of one column: numbers by value (NaN after every number), text by
    /// characters, numbers before text.
    pub fn compare(&self, other: &TableCell) -> std::cmp::Ordering {
        use std::cmp::Ordering;
        let number = |cell: &TableCell| match cell {
            TableCell::Int(i) => Some(*i as f64),
            TableCell::Double(f) => Some(*f),
            TableCell::Text(_) => None,
        };
        match (self, other) {
            (TableCell::Int(a), TableCell::Int(b)) => a.cmp(b),
            (TableCell::Text(a), TableCell::Text(b)) => a.cmp(b),
            _ => match (number(self), number(other)) {
                (Some(a), Some(b)) => match (a.is_nan(), b.is_nan()) {
                    (false, false) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
                    (true, true) => Ordering::Equal,
                    (true, false) => Ordering::Greater,
                    (false, true) => Ordering::Less,
                },
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            },
        }
    }
}

/// A message of a rule, with what is attached to it.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleMessage {
    /// Optional title (`name` argument of `IFrontend.message`, `RuleResultMessage.Name`).
    pub title: String,
    /// Text with link markup.
    pub message: String,
    /// The message type.
    pub msg_type: MsgType,
    /// Speedup estimate, if the rule gave one.
    pub speedup: Option<Speedup>,
    /// Focus metrics, in the order given.
    pub focus_metrics: Vec<FocusMetric>,
    /// Tables attached to the message.
    pub tables: Vec<RuleTable>,
}

/// The rule a message belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleOrigin<'a> {
    /// The rule's identifier (`RuleResult.Identifier`, `get_identifier()`).
    pub identifier: &'a str,
    /// The rule's display name.
    pub name: &'a str,
    /// The section the rule belongs to, if any.
    pub section_identifier: Option<&'a str>,
}

/// One message stored in a report, with its rule.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredMessage<'a> {
    /// The rule that wrote it.
    pub rule: RuleOrigin<'a>,
    /// The message.
    pub message: RuleMessage,
    /// Whether the body item stores a message (`IRuleResult.has_rule_message()`); an item
    /// without one is listed with an empty message of type [`MsgType::None`].
    pub has_message: bool,
}

/// Flattens stored rule results into one entry per body item, as NVIDIA's reader lists them:
/// each entry has its item's message, speedup and focus metrics.
///
/// An item without a message (a table, a chart, a proposal, a speedup, focus metrics, or
/// nothing: e.g. `UncoalescedGlobalAccess` of 2023.2 and 2024.1 reports, whose output is
/// source markers) is listed with an empty title and message and type [`MsgType::None`]. A
/// result without body items is not listed, whatever source markers it has. Focus metrics
/// stay with the item that stores them, whatever their `MessageId` (checked with NVIDIA's
/// reader on `fixtures/rule_markers.ncu-rep`). Stored tables are not decoded (`tables` is
/// empty).
pub fn rule_messages(results: &[RuleResult]) -> Vec<StoredMessage<'_>> {
    let mut out = Vec::new();
    for result in results {
        let Some(body) = &result.body else { continue };
        let rule = RuleOrigin {
            identifier: &result.identifier,
            name: &result.display_name,
            section_identifier: result.section_identifier.as_deref(),
        };
        for item in &body.items {
            let (title, text, msg_type) = match &item.message {
                Some(message) => (
                    message.name.clone().unwrap_or_default(),
                    message.message.clone(),
                    MsgType::from_file(message.r#type),
                ),
                None => (String::new(), String::new(), MsgType::None),
            };
            let message = RuleMessage {
                title,
                message: text,
                msg_type,
                speedup: item.speedup.as_ref().map(|s| Speedup {
                    kind: i64::from(s.speedup_type.unwrap_or(0)),
                    value: s.value.unwrap_or(0.0),
                }),
                focus_metrics: item
                    .focus_metrics
                    .iter()
                    .map(|f| FocusMetric {
                        name: f.metric_name.clone().unwrap_or_default(),
                        value: f.metric_value,
                        severity: i64::from(f.severity.unwrap_or(0)),
                        info: f.info.clone().unwrap_or_default(),
                    })
                    .collect(),
                tables: Vec::new(),
            };
            out.push(StoredMessage {
                rule,
                message,
                has_message: item.message.is_some(),
            });
        }
    }
    out
}

/// Writes one message as an element of a `rule_results` list, in the shape of NVIDIA's
/// `IAction.rule_results_as_dicts()` (keys sorted; a missing focus value is written as 0).
pub fn write_json<W: Write>(
    w: &mut PyJsonWriter<W>,
    rule: RuleOrigin<'_>,
    message: &RuleMessage,
) -> io::Result<()> {
    w.begin_object()?;
    if !message.focus_metrics.is_empty() {
        w.key("focus_metrics")?;
        w.begin_array()?;
        for focus in &message.focus_metrics {
            w.begin_object()?;
            w.key_string("info", &focus.info)?;
            w.key_string("name", &focus.name)?;
            w.key_int("severity", focus.severity)?;
            w.key_float("value", focus.value.unwrap_or(0.0))?;
            w.end_object()?;
        }
        w.end_array()?;
    }
    w.key_string("name", rule.name)?;
    w.key_string("rule_identifier", rule.identifier)?;
    w.key("rule_message")?;
    w.begin_object()?;
    w.key_string("message", &message.message)?;
    w.key_string("title", &message.title)?;
    w.key_int("type", message.msg_type.code())?;
    w.end_object()?;
    if let Some(section) = rule.section_identifier {
        w.key_string("section_identifier", section)?;
    }
    if let Some(speedup) = &message.speedup {
        w.key("speedup_estimation")?;
        w.begin_object()?;
        w.key_float("speedup", speedup.value)?;
        w.key_int("type", speedup.kind)?;
        w.end_object()?;
    }
    w.end_object()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(rows: Vec<Vec<TableCell>>, sort: Option<TableSort>) -> RuleTable {
        RuleTable {
            header: vec!["k".into(), "v".into()],
            rows,
            sort,
            ..RuleTable::default()
        }
    }

    fn keys(table: &RuleTable) -> Vec<String> {
        table
            .display_rows()
            .iter()
            .map(|r| match &r[0] {
                TableCell::Text(t) => t.clone(),
                other => format!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn rows_sort_by_value_and_keep_ties_in_order() {
        let rows = vec![
            vec![TableCell::Text("a".into()), TableCell::Double(2.0)],
            vec![TableCell::Text("b".into()), TableCell::Double(f64::NAN)],
            vec![TableCell::Text("c".into()), TableCell::Double(10.0)],
            vec![TableCell::Text("d".into()), TableCell::Double(2.0)],
        ];
        let ascending = TableSort {
            column: 1,
            ascending: true,
        };
        assert_eq!(
            keys(&table(rows.clone(), Some(ascending))),
            ["a", "d", "c", "b"]
        );
        let descending = TableSort {
            ascending: false,
            ..ascending
        };
        assert_eq!(
            keys(&table(rows.clone(), Some(descending))),
            ["b", "c", "a", "d"]
        );
        assert_eq!(keys(&table(rows, None)), ["a", "b", "c", "d"]);
    }

    #[test]
    fn integers_compare_exactly_and_text_by_characters() {
        let big = TableCell::Int(i64::MAX);
        let smaller = TableCell::Int(i64::MAX - 1);
        assert_eq!(big.compare(&smaller), std::cmp::Ordering::Greater);
        let a = TableCell::Text("FADD".into());
        let b = TableCell::Text("FMUL".into());
        assert_eq!(a.compare(&b), std::cmp::Ordering::Less);
        assert_eq!(
            TableCell::Int(3).compare(&TableCell::Double(2.5)),
            std::cmp::Ordering::Greater
        );
        assert_eq!(
            TableCell::Int(3).compare(&TableCell::Text("3".into())),
            std::cmp::Ordering::Less
        );
    }

    #[test]
    fn a_sort_column_past_a_short_row_keeps_the_order() {
        let rows = vec![
            vec![TableCell::Text("x".into())],
            vec![TableCell::Text("y".into())],
        ];
        let sort = TableSort {
            column: 5,
            ascending: false,
        };
        assert_eq!(keys(&table(rows, Some(sort))), ["x", "y"]);
    }
}
