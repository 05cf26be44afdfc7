//! Instructions: assignments, command formats and calls, interpreted line by line.
//!
//! A call assigns each value to the parameter its format names at that position; the event is
//! then built from all parameters in force (NVIDIA's importer's "static arguments": parameters the
//! format leaves out keep the value they have at the call, and values passed by a call persist).
//! `$Name` reads a parameter as last *assigned* (`Name = value`), not as last passed by a call.
//! A line with an error is skipped as a whole: nothing it would assign is assigned.

use std::collections::BTreeMap;
use std::mem;

use rustc_hash::FxHashMap;

use super::diagnostic::{Diagnostic, ErrorClass, Severity};
use super::lexer::{Token, TokenKind, column_of, lex_line};
use super::loader::{LoadProblem, Loader};
use super::model::{Event, EventKind, StrId, StringTable, TimeBase};
use super::params::{Checked, Param, ParamValues, Value, check, text_of, unknown_color_message};

/// The commands that make events and need a format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EventCommand {
    Marker,
    RangePush,
    RangePop,
    RangeStartEnd,
}

impl EventCommand {
    fn from_name(name: &[u8]) -> Option<EventCommand> {
        Some(match name {
            b"Marker" => EventCommand::Marker,
            b"RangePush" => EventCommand::RangePush,
            b"RangePop" => EventCommand::RangePop,
            b"RangeStartEnd" => EventCommand::RangeStartEnd,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            EventCommand::Marker => "Marker",
            EventCommand::RangePush => "RangePush",
            EventCommand::RangePop => "RangePop",
            EventCommand::RangeStartEnd => "RangeStartEnd",
        }
    }
}

/// The built-in commands: positional values, no format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BuiltIn {
    SetFileDisplayName,
    NameProcess,
    NameOsThread,
}

impl BuiltIn {
    fn from_name(name: &[u8]) -> Option<BuiltIn> {
        Some(match name {
            b"SetFileDisplayName" => BuiltIn::SetFileDisplayName,
            b"NameProcess" => BuiltIn::NameProcess,
            b"NameOsThread" => BuiltIn::NameOsThread,
            _ => return None,
        })
    }

    /// The parameters its positional values are checked as.
    fn params(self) -> &'static [Param] {
        match self {
            BuiltIn::SetFileDisplayName => &[Param::Name],
            BuiltIn::NameProcess => &[Param::ProcessId, Param::Name],
            BuiltIn::NameOsThread => &[Param::ProcessId, Param::ThreadId, Param::Name],
        }
    }

    fn name(self) -> &'static str {
        match self {
            BuiltIn::SetFileDisplayName => "SetFileDisplayName",
            BuiltIn::NameProcess => "NameProcess",
            BuiltIn::NameOsThread => "NameOsThread",
        }
    }
}

const COMMANDS: &str = "Marker, RangePush, RangePop, RangeStartEnd, SetFileDisplayName, \
                        NameProcess, NameOsThread";

/// A command format: the parameters a call's values go to, in order.
#[derive(Debug, Clone)]
struct Format {
    params: Vec<Param>,
    line: u32,
    /// The definition had errors: calls are skipped until the command is redefined.
    broken: bool,
}

/// The value of a user variable (a Name that is not a parameter).
#[derive(Debug, Clone, Copy)]
enum UserValue {
    Int(i64),
    Text(StrId),
}

/// A problem that skips the line.
struct Problem {
    at: usize,
    class: ErrorClass,
    severity: Severity,
    message: String,
}

fn parsing(at: usize, message: String) -> Problem {
    Problem {
        at,
        class: ErrorClass::Parsing,
        severity: Severity::Error,
        message,
    }
}

/// A token as written (with its quotes or `$`).
fn written<'a>(line: &'a [u8], token: &Token) -> &'a [u8] {
    let end = match token.kind {
        TokenKind::Str => token.end + 1,
        _ => token.end,
    };
    &line[token.at..end.min(line.len())]
}

/// The state of one file being read.
#[derive(Default)]
pub(crate) struct Parser {
    tokens: Vec<Token>,
    values: Vec<(Value, usize)>,
    checked: Vec<Checked>,
    call_params: Vec<Param>,
    /// The parameters events are built from: set by assignments and by calls.
    params: ParamValues,
    /// The parameters as variables, what `$Name` reads: set by assignments only (a value passed
    /// by a call changes the next events, not `$Name`; NVIDIA's importer does the same).
    param_vars: ParamValues,
    user: FxHashMap<Box<[u8]>, UserValue>,
    formats: [Option<Format>; 4],
    other_formats: FxHashMap<Box<[u8]>, Format>,
    loader: Loader,
    line_no: u32,
    /// The last column computed on this line: (byte offset, column), so that many diagnostics on
    /// one long line cost one pass over it.
    column_cache: (usize, u32),
    /// Every distinct string of the file.
    pub strings: StringTable,
    /// Problems so far.
    pub diagnostics: Vec<Diagnostic>,
    /// The last `SetFileDisplayName`.
    pub display_name: Option<String>,
    /// `NameProcess` names by pid.
    pub process_names: BTreeMap<u32, String>,
    /// `NameOsThread` names by (pid, tid).
    pub thread_names: BTreeMap<(u32, u32), String>,
}

impl Parser {
    /// Reads one line (1-based number, without its line break).
    pub fn line(&mut self, line_no: u32, line: &[u8]) {
        self.line_no = line_no;
        self.column_cache = (0, 1);
        let mut tokens = mem::take(&mut self.tokens);
        let result = self.lex_and_run(line, &mut tokens);
        self.tokens = tokens;
        if let Err(problem) = result {
            self.report(line, problem);
        }
    }

    /// Ends the file: closes what is open and sorts the diagnostics by position.
    pub fn finish(mut self) -> Finished {
        let (events, last_timestamp) = self.loader.finish(&mut self.diagnostics);
        let mut diagnostics = self.diagnostics;
        diagnostics.sort_by_key(|d| (d.line(), d.column()));
        Finished {
            events,
            last_timestamp,
            strings: self.strings,
            diagnostics,
            display_name: self.display_name,
            process_names: self.process_names,
            thread_names: self.thread_names,
        }
    }

    /// The column of byte offset `at` of the current line.
    fn column(&mut self, line: &[u8], at: usize) -> u32 {
        let (cached_at, cached_column) = self.column_cache;
        let column = if at >= cached_at && at <= line.len() {
            let more = column_of(&line[cached_at..], at - cached_at) - 1;
            cached_column.saturating_add(more)
        } else {
            column_of(line, at)
        };
        self.column_cache = (at.min(line.len()), column);
        column
    }

    fn report(&mut self, line: &[u8], problem: Problem) {
        let column = self.column(line, problem.at);
        self.diagnostics.push(Diagnostic::new(
            self.line_no,
            column,
            problem.severity,
            problem.class,
            problem.message,
        ));
    }

    fn warn(&mut self, line: &[u8], at: usize, class: ErrorClass, message: String) {
        self.report(
            line,
            Problem {
                at,
                class,
                severity: Severity::Warning,
                message,
            },
        );
    }

    fn lex_and_run(&mut self, line: &[u8], tokens: &mut Vec<Token>) -> Result<(), Problem> {
        lex_line(line, tokens).map_err(|e| Problem {
            at: e.at,
            class: ErrorClass::Lexing,
            severity: Severity::Error,
            message: e.message,
        })?;
        if tokens.is_empty() {
            return Ok(());
        }
        // Expansion belongs to lexing: an undefined variable is a lexing error.
        for token in tokens.iter().filter(|t| t.kind == TokenKind::Var) {
            let name = &line[token.start..token.end];
            if self.variable(name).is_none() {
                return Err(Problem {
                    at: token.at,
                    class: ErrorClass::Lexing,
                    severity: Severity::Error,
                    message: format!(
                        "undefined variable `${}`: assign it first (`{} = value`)",
                        String::from_utf8_lossy(name),
                        String::from_utf8_lossy(name)
                    ),
                });
            }
        }
        let first = tokens[0];
        match first.kind {
            TokenKind::At => self.format(line, tokens),
            TokenKind::Name if tokens.get(1).is_some_and(|t| t.kind == TokenKind::Equals) => {
                self.assignment(line, tokens)
            }
            TokenKind::Name => self.call(line, tokens),
            _ => Err(parsing(
                first.at,
                "a line holds an assignment (`Name = value`), a format (`@Command, Param, ...`) \
                 or a call (`Command, value, ...`)"
                    .to_string(),
            )),
        }
    }

    /// The current value of variable `name` (a parameter or a user variable).
    fn variable(&mut self, name: &[u8]) -> Option<Value> {
        match Param::from_name(name) {
            Some(param) => self.param_vars.expand(param, &mut self.strings),
            None => self.user.get(name).map(|value| match *value {
                UserValue::Int(v) => Value::Int(v),
                UserValue::Text(id) => Value::Text(id),
            }),
        }
    }

    /// The value a token stands for.
    fn value_of(&mut self, line: &[u8], token: &Token) -> Result<Value, Problem> {
        match token.kind {
            TokenKind::Int(v) => Ok(Value::Int(v)),
            TokenKind::Name | TokenKind::Str => Ok(Value::Span(token.start, token.end)),
            TokenKind::Var => self
                .variable(&line[token.start..token.end])
                .ok_or_else(|| parsing(token.at, "undefined variable".to_string())),
            TokenKind::Comma => Err(parsing(token.at, "missing value before `,`".to_string())),
            TokenKind::Equals | TokenKind::At => Err(parsing(
                token.at,
                format!("expected a value, found `{}`", char::from(line[token.at])),
            )),
        }
    }

    fn assignment(&mut self, line: &[u8], tokens: &[Token]) -> Result<(), Problem> {
        let Some(value_token) = tokens.get(2) else {
            return Err(parsing(
                tokens[1].at,
                "expected a value after `=`".to_string(),
            ));
        };
        if let Some(extra) = tokens.get(3) {
            return Err(parsing(
                extra.at,
                "an assignment takes one value (quote text that holds spaces or commas)"
                    .to_string(),
            ));
        }
        let value = self.value_of(line, value_token)?;
        let name = &line[tokens[0].start..tokens[0].end];
        match Param::from_name(name) {
            Some(param) => {
                let checked = check(param, value, line, &self.strings)
                    .map_err(|error| parsing(value_token.at, error.to_string()))?;
                self.assign(line, param, checked, value_token.at);
                self.param_vars
                    .assign(param, checked, line, &mut self.strings);
            }
            None => {
                let stored = match value {
                    Value::Int(v) => UserValue::Int(v),
                    Value::Text(id) => UserValue::Text(id),
                    Value::Span(start, end) => UserValue::Text(
                        self.strings
                            .intern(&String::from_utf8_lossy(&line[start..end])),
                    ),
                };
                self.user.insert(name.into(), stored);
            }
        }
        Ok(())
    }

    /// Assigns a checked value, warning about an unknown colour name.
    fn assign(&mut self, line: &[u8], param: Param, checked: Checked, at: usize) {
        if let Checked::Color {
            value,
            unknown_name: true,
            ..
        } = checked
        {
            let message = unknown_color_message(text_of(&value, line, &self.strings));
            self.warn(line, at, ErrorClass::Parsing, message);
        }
        self.params.assign(param, checked, line, &mut self.strings);
    }

    fn format(&mut self, line: &[u8], tokens: &[Token]) -> Result<(), Problem> {
        let at = tokens[0];
        let name_token = match tokens.get(1) {
            Some(t) if t.kind == TokenKind::Name && t.at == at.end => *t,
            _ => {
                return Err(Problem {
                    at: at.end,
                    class: ErrorClass::Lexing,
                    severity: Severity::Error,
                    message: "`@` must be followed directly by a command name (`@Marker, Time, \
                              Message`)"
                        .to_string(),
                });
            }
        };
        let name = &line[name_token.start..name_token.end];
        let command = EventCommand::from_name(name);
        let result = self.format_params(line, tokens);
        let params = match result {
            Ok(params) => params,
            Err(problem) => {
                if let Some(command) = command {
                    self.formats[command as usize] = Some(Format {
                        params: Vec::new(),
                        line: self.line_no,
                        broken: true,
                    });
                }
                return Err(problem);
            }
        };
        let format = Format {
            params,
            line: self.line_no,
            broken: false,
        };
        if let Some(command) = command {
            self.formats[command as usize] = Some(format);
        } else if let Some(builtin) = BuiltIn::from_name(name) {
            let message = format!(
                "{} is built in and takes its values by position: this format is ignored",
                builtin.name()
            );
            self.warn(line, name_token.at, ErrorClass::Parsing, message);
        } else {
            let message = format!(
                "unknown command `{}`: its calls will make no event (commands: {COMMANDS})",
                String::from_utf8_lossy(name)
            );
            self.warn(line, name_token.at, ErrorClass::Parsing, message);
            self.other_formats.insert(name.into(), format);
        }
        Ok(())
    }

    /// The parameters of a format line (`@Cmd, P1, P2, ...`, trailing comma allowed).
    fn format_params(&mut self, line: &[u8], tokens: &[Token]) -> Result<Vec<Param>, Problem> {
        let mut params = Vec::new();
        let mut i = 2;
        while i < tokens.len() {
            if tokens[i].kind != TokenKind::Comma {
                return Err(parsing(
                    tokens[i].at,
                    "the parameters of a format are separated by commas".to_string(),
                ));
            }
            i += 1;
            let Some(token) = tokens.get(i) else { break };
            let text = &line[token.start..token.end];
            let param = match token.kind {
                TokenKind::Name => Param::from_name(text),
                _ => None,
            };
            let Some(param) = param else {
                let names: Vec<&str> = Param::ALL.iter().map(|p| p.name()).collect();
                return Err(parsing(
                    token.at,
                    format!(
                        "`{}` is not a parameter; a format lists parameters: {}",
                        String::from_utf8_lossy(written(line, token)),
                        names.join(", ")
                    ),
                ));
            };
            if params.contains(&param) {
                let message = format!(
                    "`{}` appears twice in this format: the later value of a call is kept",
                    param.name()
                );
                self.warn(line, token.at, ErrorClass::Parsing, message);
            }
            params.push(param);
            i += 1;
        }
        if params.is_empty() {
            return Err(parsing(
                tokens[0].at,
                "a format needs at least one parameter (`@Marker, Time, Message`)".to_string(),
            ));
        }
        Ok(params)
    }

    /// Reads the values of a call into `self.values` (trailing comma allowed).
    fn call_values(&mut self, line: &[u8], tokens: &[Token]) -> Result<(), Problem> {
        self.values.clear();
        let mut i = 1;
        while i < tokens.len() {
            if tokens[i].kind != TokenKind::Comma {
                let message = if i == 1 {
                    "expected `,` or `=` after the name"
                } else {
                    "the values of a call are separated by commas (quote text that holds spaces)"
                };
                return Err(parsing(tokens[i].at, message.to_string()));
            }
            i += 1;
            let Some(token) = tokens.get(i) else { break };
            let value = self.value_of(line, token)?;
            self.values.push((value, token.at));
            i += 1;
        }
        Ok(())
    }

    fn call(&mut self, line: &[u8], tokens: &[Token]) -> Result<(), Problem> {
        self.call_values(line, tokens)?;
        let command_token = tokens[0];
        let name = &line[command_token.start..command_token.end];
        if let Some(command) = EventCommand::from_name(name) {
            return self.event_call(line, command, command_token.at);
        }
        if let Some(builtin) = BuiltIn::from_name(name) {
            return self.builtin_call(line, builtin, command_token.at);
        }
        let message = format!(
            "unknown command `{}`: no event (commands: {COMMANDS})",
            String::from_utf8_lossy(name)
        );
        if let Some(format) = self.other_formats.get(name) {
            // NVIDIA's importer assigns the values of a call to an unknown command, then skips it.
            self.call_params.clone_from(&format.params);
            let (format_line, params) = (format.line, mem::take(&mut self.call_params));
            let result = self.check_and_assign(line, name, &params, format_line, command_token.at);
            self.call_params = params;
            result?;
        }
        self.warn(line, command_token.at, ErrorClass::Parsing, message);
        Ok(())
    }

    /// Checks that the call of `command` has one value a parameter; else the error is at the first
    /// value too many (or at the command) and names the parameters and, for a declared command,
    /// the line of its format.
    fn check_value_count(
        &self,
        command: &str,
        params: &[Param],
        format_line: Option<u32>,
        command_at: usize,
    ) -> Result<(), Problem> {
        if self.values.len() == params.len() {
            return Ok(());
        }
        let names: Vec<&str> = params.iter().map(|p| p.name()).collect();
        let at = self
            .values
            .get(params.len())
            .map_or(command_at, |&(_, at)| at);
        let format =
            format_line.map_or(String::new(), |line| format!(": its format at line {line}"));
        Err(parsing(
            at,
            format!(
                "{command} takes {} value(s) ({}{format}), got {}",
                params.len(),
                names.join(", "),
                self.values.len()
            ),
        ))
    }

    /// Checks the call's values against `params` (count, types, ranges), then assigns them all;
    /// on any error nothing is assigned. Also returns the TimeBase in force after the call.
    fn check_and_assign(
        &mut self,
        line: &[u8],
        command: &[u8],
        params: &[Param],
        format_line: u32,
        command_at: usize,
    ) -> Result<Option<TimeBase>, Problem> {
        self.check_value_count(
            &String::from_utf8_lossy(command),
            params,
            Some(format_line),
            command_at,
        )?;
        let mut checked = mem::take(&mut self.checked);
        checked.clear();
        let mut time_base = self.params.time_base;
        for (&param, &(value, at)) in params.iter().zip(&self.values) {
            match check(param, value, line, &self.strings) {
                Ok(ok) => {
                    if let Checked::TimeBase(base) = ok {
                        time_base = Some(base);
                    }
                    checked.push(ok);
                }
                Err(error) => {
                    self.checked = checked;
                    return Err(parsing(at, error.to_string()));
                }
            }
        }
        for (i, (&param, &ok)) in params.iter().zip(&checked).enumerate() {
            let at = self.values[i].1;
            self.assign(line, param, ok, at);
        }
        self.checked = checked;
        Ok(time_base)
    }

    fn event_call(
        &mut self,
        line: &[u8],
        command: EventCommand,
        command_at: usize,
    ) -> Result<(), Problem> {
        let (format_line, mut params) = match &self.formats[command as usize] {
            None => {
                return Err(parsing(
                    command_at,
                    format!(
                        "{0} has no format: define one first (e.g. `@{0}, {1}`)",
                        command.name(),
                        match command {
                            EventCommand::Marker | EventCommand::RangePush => "Time, Message",
                            EventCommand::RangePop => "Time",
                            EventCommand::RangeStartEnd => "Start, End, Message",
                        }
                    ),
                ));
            }
            Some(format) if format.broken => {
                return Err(parsing(
                    command_at,
                    format!(
                        "the format of {} at line {} has errors: its calls are skipped until it \
                         is defined again",
                        command.name(),
                        format.line
                    ),
                ));
            }
            Some(format) => {
                let mut params = mem::take(&mut self.call_params);
                params.clone_from(&format.params);
                (format.line, params)
            }
        };
        // TimeBase is required; check it before assigning anything so the line stays skipped.
        let result =
            self.check_time_base_then_assign(line, command, &params, format_line, command_at);
        params.clear();
        self.call_params = params;
        result?;
        self.make_event(line, command, command_at);
        Ok(())
    }

    fn check_time_base_then_assign(
        &mut self,
        line: &[u8],
        command: EventCommand,
        params: &[Param],
        format_line: u32,
        command_at: usize,
    ) -> Result<(), Problem> {
        let in_call = params.contains(&Param::TimeBase);
        if !in_call && self.params.time_base.is_none() {
            return Err(parsing(
                command_at,
                "TimeBase is not set: assign it before the first event (e.g. `TimeBase = Manual`)"
                    .to_string(),
            ));
        }
        let name = command.name().as_bytes();
        self.check_and_assign(line, name, params, format_line, command_at)
            .map(|_| ())
    }

    fn make_event(&mut self, line: &[u8], command: EventCommand, command_at: usize) {
        let push_column = match command {
            EventCommand::RangePush => self.column(line, command_at),
            _ => 0,
        };
        let p = &self.params;
        let Some(time_base) = p.time_base else {
            return;
        };
        let event = Event {
            kind: EventKind::Marker,
            start: p.time,
            end: p.time,
            time_base,
            pid: p.pid,
            tid: p.tid,
            depth: 0,
            category: p.category,
            color: p.color,
            color_argb: p.color_argb,
            message: p.message,
            payload: p.payload,
            line: self.line_no,
            open: false,
        };
        let problem: Option<LoadProblem> = match command {
            EventCommand::Marker => {
                self.loader.marker(event);
                None
            }
            EventCommand::RangePush => {
                self.loader.push(
                    Event {
                        kind: EventKind::PushPop,
                        ..event
                    },
                    push_column,
                );
                None
            }
            EventCommand::RangePop => self.loader.pop(event.pid, event.tid, event.start).err(),
            EventCommand::RangeStartEnd => {
                let (start, end) = (p.start, p.end);
                self.loader
                    .range(Event {
                        kind: EventKind::Range,
                        start,
                        end,
                        ..event
                    })
                    .err()
            }
        };
        if let Some(problem) = problem {
            self.report(
                line,
                Problem {
                    at: command_at,
                    class: ErrorClass::Loading,
                    severity: problem.severity,
                    message: problem.message,
                },
            );
        }
    }

    fn builtin_call(
        &mut self,
        line: &[u8],
        builtin: BuiltIn,
        command_at: usize,
    ) -> Result<(), Problem> {
        let params = builtin.params();
        self.check_value_count(builtin.name(), params, None, command_at)?;
        let mut ints = [0u32; 2];
        let mut text = String::new();
        for (i, (&param, &(value, at))) in params.iter().zip(&self.values).enumerate() {
            match check(param, value, line, &self.strings)
                .map_err(|e| parsing(at, e.to_string()))?
            {
                Checked::Int(v) => ints[i.min(1)] = u32::try_from(v).unwrap_or(u32::MAX),
                Checked::Text(value) => {
                    text =
                        String::from_utf8_lossy(text_of(&value, line, &self.strings)).into_owned();
                }
                _ => {}
            }
        }
        match builtin {
            BuiltIn::SetFileDisplayName => self.display_name = Some(text),
            BuiltIn::NameProcess => {
                self.process_names.insert(ints[0], text);
            }
            BuiltIn::NameOsThread => {
                self.thread_names.insert((ints[0], ints[1]), text);
            }
        }
        Ok(())
    }
}

/// What a parsed file holds.
pub(crate) struct Finished {
    pub events: Vec<Event>,
    pub last_timestamp: Option<i64>,
    pub strings: StringTable,
    pub diagnostics: Vec<Diagnostic>,
    pub display_name: Option<String>,
    pub process_names: BTreeMap<u32, String>,
    pub thread_names: BTreeMap<(u32, u32), String>,
}
