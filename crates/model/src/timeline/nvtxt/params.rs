//! The 12 parameters of NVTXT, their types and range checks, and the values in force.

use super::colors::{DEFAULT_COLOR_ARGB, color_by_name};
use super::model::{ColorSpec, StrId, StringTable, TimeBase};
use crate::core::num::{clamp_u32, low_u32_of_i64};

/// A parameter: a variable with a meaning for events (the only names a format may list).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Param {
    Time,
    Start,
    End,
    TimeBase,
    ProcessId,
    ThreadId,
    CategoryId,
    ParentCategoryId,
    Color,
    Message,
    Payload,
    Name,
}

impl Param {
    /// Every parameter.
    pub const ALL: [Param; 12] = [
        Param::Time,
        Param::Start,
        Param::End,
        Param::TimeBase,
        Param::ProcessId,
        Param::ThreadId,
        Param::CategoryId,
        Param::ParentCategoryId,
        Param::Color,
        Param::Message,
        Param::Payload,
        Param::Name,
    ];

    /// The parameter's name as written.
    pub fn name(self) -> &'static str {
        match self {
            Param::Time => "Time",
            Param::Start => "Start",
            Param::End => "End",
            Param::TimeBase => "TimeBase",
            Param::ProcessId => "ProcessId",
            Param::ThreadId => "ThreadId",
            Param::CategoryId => "CategoryId",
            Param::ParentCategoryId => "ParentCategoryId",
            Param::Color => "Color",
            Param::Message => "Message",
            Param::Payload => "Payload",
            Param::Name => "Name",
        }
    }

    /// The parameter named `name` (case-sensitive).
    pub fn from_name(name: &[u8]) -> Option<Param> {
        Some(match name {
            b"Time" => Param::Time,
            b"Start" => Param::Start,
            b"End" => Param::End,
            b"TimeBase" => Param::TimeBase,
            b"ProcessId" => Param::ProcessId,
            b"ThreadId" => Param::ThreadId,
            b"CategoryId" => Param::CategoryId,
            b"ParentCategoryId" => Param::ParentCategoryId,
            b"Color" => Param::Color,
            b"Message" => Param::Message,
            b"Payload" => Param::Payload,
            b"Name" => Param::Name,
            _ => return None,
        })
    }

    fn bit(self) -> u16 {
        1 << (self as u16)
    }
}

/// A value read from a line, before it is checked against a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Value {
    /// An integer.
    Int(i64),
    /// Text at this byte range of the current line (a Name or a quoted string).
    Span(usize, usize),
    /// Text already in the document's string table (an expanded variable).
    Text(StrId),
}

/// A value that passed its parameter's checks, ready to be assigned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Checked {
    /// Time, Start, End, ProcessId, ThreadId, CategoryId, ParentCategoryId, Payload.
    Int(i64),
    /// TimeBase.
    TimeBase(TimeBase),
    /// Color: the value as written, its ARGB, and whether a name was unknown.
    Color {
        value: Value,
        argb: u32,
        unknown_name: bool,
    },
    /// Message, Name.
    Text(Value),
}

/// The bytes of a textual value.
pub(crate) fn text_of<'a>(value: &Value, line: &'a [u8], strings: &'a StringTable) -> &'a [u8] {
    match *value {
        Value::Span(start, end) => &line[start..end],
        Value::Text(id) => strings.get(id).as_bytes(),
        Value::Int(_) => &[],
    }
}

/// Why a value does not fit its parameter (type or range).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ParamError {
    /// A string where the parameter takes an integer.
    #[error("{param} takes an integer, not a string")]
    NotInteger {
        /// The parameter's name.
        param: &'static str,
    },
    /// An integer where the parameter takes a string.
    #[error("{param} takes a string, not an integer (quote it: \"{value}\")")]
    NotString {
        /// The parameter's name.
        param: &'static str,
        /// The integer given.
        value: i64,
    },
    /// A negative value for a parameter without upper bound.
    #[error("{param} cannot be negative, got {value}")]
    Negative {
        /// The parameter's name.
        param: &'static str,
        /// The value given.
        value: i64,
    },
    /// A value outside `0..=max`.
    #[error("{param} must be between 0 and {max}, got {value}")]
    OutOfRange {
        /// The parameter's name.
        param: &'static str,
        /// The largest value allowed.
        max: i64,
        /// The value given.
        value: i64,
    },
    /// `TimeBase` given an integer.
    #[error("TimeBase must be one of {}, got an integer", time_base_names())]
    TimeBaseInteger,
    /// `TimeBase` given a name it does not know.
    #[error("TimeBase must be one of {}, got `{written}`", time_base_names())]
    UnknownTimeBase {
        /// The name as written (lossy UTF-8).
        written: String,
    },
}

/// Checks `value` for `param`: its type and range. The error says what is wrong.
pub(crate) fn check(
    param: Param,
    value: Value,
    line: &[u8],
    strings: &StringTable,
) -> Result<Checked, ParamError> {
    let name = param.name();
    let int = |value: Value| match value {
        Value::Int(v) => Ok(v),
        _ => Err(ParamError::NotInteger { param: name }),
    };
    let text = |value: Value| match value {
        Value::Int(v) => Err(ParamError::NotString {
            param: name,
            value: v,
        }),
        _ => Ok(Checked::Text(value)),
    };
    let ranged = |value: Value, max: i64| {
        let v = int(value)?;
        if (0..=max).contains(&v) {
            Ok(Checked::Int(v))
        } else if max == i64::MAX {
            Err(ParamError::Negative {
                param: name,
                value: v,
            })
        } else {
            Err(ParamError::OutOfRange {
                param: name,
                max,
                value: v,
            })
        }
    };
    match param {
        Param::Time | Param::Start | Param::End => ranged(value, i64::MAX),
        Param::ProcessId | Param::ThreadId => ranged(value, 0xFF_FFFF),
        Param::CategoryId | Param::ParentCategoryId => ranged(value, i64::from(u32::MAX)),
        Param::Payload => int(value).map(Checked::Int),
        Param::Message | Param::Name => text(value),
        Param::TimeBase => {
            if let Value::Int(_) = value {
                return Err(ParamError::TimeBaseInteger);
            }
            let written = text_of(&value, line, strings);
            TimeBase::from_name(written)
                .map(Checked::TimeBase)
                .ok_or_else(|| ParamError::UnknownTimeBase {
                    written: String::from_utf8_lossy(written).into_owned(),
                })
        }
        Param::Color => Ok(match value {
            // An integer is ARGB as is: its low 32 bits, no alpha added.
            Value::Int(v) => Checked::Color {
                value,
                argb: low_u32_of_i64(v),
                unknown_name: false,
            },
            _ => {
                let written = text_of(&value, line, strings);
                let known = std::str::from_utf8(written).ok().and_then(color_by_name);
                Checked::Color {
                    value,
                    argb: known.unwrap_or(DEFAULT_COLOR_ARGB),
                    unknown_name: known.is_none(),
                }
            }
        }),
    }
}

/// The names of the time bases, comma-separated, for [`ParamError`]'s messages.
fn time_base_names() -> String {
    let names: Vec<&str> = TimeBase::ALL.iter().map(|base| base.name()).collect();
    names.join(", ")
}

/// The message for an unknown colour name, with a hint when only the case differs.
pub(crate) fn unknown_color_message(written: &[u8]) -> String {
    let written = String::from_utf8_lossy(written);
    let hint = super::colors::COLOR_NAMES
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(&written))
        .map(|(name, _)| format!(" (names are case-sensitive: `{name}`?)"))
        .unwrap_or_default();
    format!("unknown colour `{written}`: the default 0xFF000000 is used{hint}")
}

/// The values of the parameters in force (what an event is built from).
#[derive(Debug, Clone)]
pub(crate) struct ParamValues {
    /// Which parameters have been assigned (bit `1 << param`).
    assigned: u16,
    pub time: i64,
    pub start: i64,
    pub end: i64,
    pub time_base: Option<TimeBase>,
    pub pid: u32,
    pub tid: u32,
    pub category: u32,
    pub parent_category: u32,
    pub color: ColorSpec,
    pub color_int: i64,
    pub color_argb: u32,
    pub message: StrId,
    pub payload: Option<i64>,
    pub name: StrId,
}

impl Default for ParamValues {
    fn default() -> Self {
        ParamValues {
            assigned: 0,
            time: 0,
            start: 0,
            end: 0,
            time_base: None,
            pid: 0,
            tid: 0,
            category: 0,
            parent_category: 0,
            color: ColorSpec::Unset,
            color_int: 0,
            color_argb: DEFAULT_COLOR_ARGB,
            message: StrId::EMPTY,
            payload: None,
            name: StrId::EMPTY,
        }
    }
}

impl ParamValues {
    /// Assigns a checked value; strings are interned.
    pub fn assign(
        &mut self,
        param: Param,
        checked: Checked,
        line: &[u8],
        strings: &mut StringTable,
    ) {
        self.assigned |= param.bit();
        let intern = |value: Value, strings: &mut StringTable| match value {
            Value::Text(id) => id,
            Value::Span(start, end) => intern_bytes(strings, &line[start..end]),
            Value::Int(_) => StrId::EMPTY,
        };
        // Checked values are narrowed by `check` (ids in `0..=u32::MAX`): `clamp_u32` keeps them.
        match (param, checked) {
            (Param::Time, Checked::Int(v)) => self.time = v,
            (Param::Start, Checked::Int(v)) => self.start = v,
            (Param::End, Checked::Int(v)) => self.end = v,
            (Param::ProcessId, Checked::Int(v)) => self.pid = clamp_u32(v),
            (Param::ThreadId, Checked::Int(v)) => self.tid = clamp_u32(v),
            (Param::CategoryId, Checked::Int(v)) => self.category = clamp_u32(v),
            (Param::ParentCategoryId, Checked::Int(v)) => self.parent_category = clamp_u32(v),
            (Param::Payload, Checked::Int(v)) => self.payload = Some(v),
            (Param::TimeBase, Checked::TimeBase(base)) => self.time_base = Some(base),
            (Param::Message, Checked::Text(value)) => self.message = intern(value, strings),
            (Param::Name, Checked::Text(value)) => self.name = intern(value, strings),
            (Param::Color, Checked::Color { value, argb, .. }) => {
                self.color_argb = argb;
                self.color = match value {
                    Value::Int(v) => {
                        self.color_int = v;
                        ColorSpec::Integer
                    }
                    _ => ColorSpec::Name(intern(value, strings)),
                };
            }
            _ => {}
        }
    }

    /// The current value of an assigned parameter, for `$Name` (`None` when never assigned).
    pub fn expand(&self, param: Param, strings: &mut StringTable) -> Option<Value> {
        if self.assigned & param.bit() == 0 {
            return None;
        }
        Some(match param {
            Param::Time => Value::Int(self.time),
            Param::Start => Value::Int(self.start),
            Param::End => Value::Int(self.end),
            Param::ProcessId => Value::Int(i64::from(self.pid)),
            Param::ThreadId => Value::Int(i64::from(self.tid)),
            Param::CategoryId => Value::Int(i64::from(self.category)),
            Param::ParentCategoryId => Value::Int(i64::from(self.parent_category)),
            Param::Payload => Value::Int(self.payload.unwrap_or(0)),
            Param::TimeBase => {
                Value::Text(strings.intern(self.time_base.map_or("", |base| base.name())))
            }
            Param::Message => Value::Text(self.message),
            Param::Name => Value::Text(self.name),
            Param::Color => match self.color {
                ColorSpec::Name(id) => Value::Text(id),
                ColorSpec::Integer | ColorSpec::Unset => Value::Int(self.color_int),
            },
        })
    }
}

/// Interns text read from a file: UTF-8 as is, anything else with U+FFFD replacements.
pub(crate) fn intern_bytes(strings: &mut StringTable, bytes: &[u8]) -> StrId {
    match std::str::from_utf8(bytes) {
        Ok(text) => strings.intern(text),
        Err(_) => strings.intern(&String::from_utf8_lossy(bytes)),
    }
}
