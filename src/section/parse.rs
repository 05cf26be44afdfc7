//! A tolerant protobuf **text-format** parser for section files, with precise diagnostics.
//!
//! A `.section` file is the text format of `NV.Profiler.ProfilerSection`, a `.chart` file the
//! text format of one `NV.Profiler.ProfilerSectionBodyItem`. This module has its own lexer and
//! parser, guided by the descriptors of Sightline's schema (`proto/`, reflected through
//! [`crate::proto::FILE_DESCRIPTOR_SET`]). The parser writes protobuf wire bytes in one pass,
//! which are then decoded by prost (typed API) or into a [`DynamicMessage`]
//! ([`parse_text_format`]). Everything is linear in the input: the text-to-wire pass runs at
//! roughly 400 MB/s in release builds, and prost's decode costs about as much again (the
//! 1.46 MB 2025.3 `SpeedOfLight_HierarchicalTensorRooflineChart.section` takes ≈8 ms in
//! all; every other stock file takes well under 1 ms).
//!
//! # Syntax
//!
//! Everything section files use of the protobuf text format: `#` comments; `Field: value`;
//! `Field { ... }`, `Field: { ... }` and `Field < ... >`; repeated fields by repetition or by
//! list syntax (`Field: [1, 2]`, `Field [ {..}, {..} ]`); optional `,` / `;` after a field;
//! strings in double or single quotes with C escapes (`\n \t \r \a \b \f \v \\ \' \" \?`, octal
//! `\NNN`, hex `\xNN`, `\uXXXX`, `\UXXXXXXXX`), adjacent string literals concatenated; integers
//! in decimal, hex (`0x`) and octal (`0NN`), negative with `-`; floats (`1.5`, `1e-3`, `.5`,
//! `5.`, `inf`, `nan`, optional `f` suffix; integers are accepted too); booleans
//! (`true false True False t f 1 0`); enum values by name or by number. `[ext.name]` field
//! names (extensions, `Any`) are skipped with a warning: the schema has none.
//!
//! # Tolerance rules
//!
//! Warnings (the file still loads):
//! - **Unknown field name**: reported at the field name token; the whole field is skipped, be
//!   it a scalar, a list or a nested block (its contents are still checked for syntax, but not
//!   against any schema, and produce no diagnostics of their own). Message:
//!   ``unknown field `NAME` in `FULL.MESSAGE.NAME` (skipped)``.
//! - **Unknown enum value** (name or number): reported at the value token; the field is left
//!   unset (a list element is dropped). Message:
//!   ``unknown value `NAME` for enum `FULL.ENUM` of field `FIELD` (left unset)``. A *required*
//!   field written with an unknown enum value is not reported as missing: the prost value then
//!   holds the type's default.
//! - **Singular field given more than once**, or two members of one `oneof`: reported at the
//!   second value; protobuf semantics apply (a scalar's last value wins, message blocks are
//!   merged, the last `oneof` member wins). Messages:
//!   ``field `NAME` is given more than once; the last value is used`` (or `the blocks are
//!   merged`), ``field `NAME` replaces `OTHER` (both are in oneof `ONEOF`)``.
//! - `[ext.name]` field names: ``unsupported extension field `[NAME]` in `MESSAGE` (skipped)``.
//!
//! Accepted silently, as documented short forms:
//! - `Name` when the enum has no value `Name` but has `<EnumName>_Name`
//!   (`Importance: Required` → `CollectionImportance_Required`,
//!   `CollectionScopes: Launch` → `CollectionScope_Launch`).
//! - `Prefix_Name` whose prefix differs from the schema's value prefix only in ASCII case or
//!   a trailing `s` (`CollectionScopes_Launch`, `collectionimportance_Required`,
//!   `ValueAxisAlignment_Both` → `ValueAxisAlignments_Both`), and `<EnumName>_Name` when the
//!   schema's value is plain `Name` (`SortKeys_ByValue`, `SortKey_ByValue` → `ByValue`). No
//!   stock file (2022.3, 2024.1, 2025.3) needs these; they cover hand-written files.
//!
//! Errors (the file does not load, [`Parsed::value`] is `None`): syntax errors, invalid
//! tokens, unterminated strings, unclosed `{`/`<`/`[` (reported at the end of input), type
//! mismatches (reported at the value token), integers out of range, list syntax on a
//! non-repeated field, strings that are not UTF-8 after unescaping, nesting deeper than
//! [`MAX_DEPTH`], and missing **required** fields. A missing required field is reported at the
//! start of the message that lacks it: `1:1` for the top-level message, the opening `{` (or
//! `<`) of a nested message (message: ``missing required field `NAME` in `MESSAGE` ``).
//! After a syntax error the parser stops (messages still open are not checked for required
//! fields); after a type mismatch it skips the value and goes on, so one file can report
//! several errors.
//!
//! Diagnostics are sorted by position. Lines and columns are 1-based; columns count
//! characters (a tab is one column). The end-of-input position is just past the last
//! character: after a final newline that is column 1 of the line after it.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use prost_reflect::{DescriptorPool, DynamicMessage, Kind};

use crate::proto::FILE_DESCRIPTOR_SET;
use crate::proto::nv::profiler::{ProfilerSection, ProfilerSectionBodyItem};

/// Full name of the message of a derived-metric definition (`MetricDefinitions`).
const METRIC_DEFINITION_MESSAGE: &str = "NV.Profiler.ProfilerSectionMetricDefinition";

/// Full name of the message a `.section` file holds.
pub const SECTION_MESSAGE: &str = "NV.Profiler.ProfilerSection";
/// Full name of the message a `.chart` file holds.
pub const CHART_MESSAGE: &str = "NV.Profiler.ProfilerSectionBodyItem";
/// Deepest nesting of `{`/`<`/`[` accepted; deeper input is an error.
pub const MAX_DEPTH: usize = 100;

/// How bad a [`Diagnostic`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// The file does not load.
    Error,
    /// Something was ignored; the file still loads.
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

/// One message about a position in a file.
///
/// Displays as `PATH:LINE:COL: error: message` or `PATH:LINE:COL: warning: message`.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    /// The file the diagnostic is about (as given by the caller).
    pub path: PathBuf,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, counted in characters.
    pub column: usize,
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong, without position or severity.
    pub message: String,
}

impl Diagnostic {
    /// Whether this is an error (rather than a warning).
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}: {}",
            self.path.display(),
            self.line,
            self.column,
            self.severity,
            self.message
        )
    }
}

/// The result of parsing one file: the value (`None` iff there is an error diagnostic) and
/// every diagnostic, sorted by position.
#[derive(Debug, Clone)]
pub struct Parsed<T> {
    /// The parsed value; `None` exactly when `diagnostics` holds an error.
    pub value: Option<T>,
    /// Errors and warnings, sorted by line and column.
    pub diagnostics: Vec<Diagnostic>,
}

impl<T> Parsed<T> {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The error diagnostics.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.is_error())
    }

    /// The warning diagnostics.
    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| !d.is_error())
    }
}

/// Sightline's schema as a reflection pool, decoded once.
pub fn descriptor_pool() -> Result<&'static DescriptorPool, &'static str> {
    Ok(&schema()?.pool)
}

/// Parses the text of a `.section` file (`NV.Profiler.ProfilerSection`).
pub fn parse_section(path: &Path, text: &str) -> Parsed<ProfilerSection> {
    parse_typed(path, text, SECTION_MESSAGE)
}

/// Parses the text of a `.chart` file (one `NV.Profiler.ProfilerSectionBodyItem`).
pub fn parse_chart(path: &Path, text: &str) -> Parsed<ProfilerSectionBodyItem> {
    parse_typed(path, text, CHART_MESSAGE)
}

/// Reads and parses a `.section` file. An unreadable or non-UTF-8 file gives one error at 1:1.
pub fn parse_section_file(path: &Path) -> Parsed<ProfilerSection> {
    match read_text(path) {
        Ok(text) => parse_section(path, &text),
        Err(d) => failed(d),
    }
}

/// Reads and parses a `.chart` file. An unreadable or non-UTF-8 file gives one error at 1:1.
pub fn parse_chart_file(path: &Path) -> Parsed<ProfilerSectionBodyItem> {
    match read_text(path) {
        Ok(text) => parse_chart(path, &text),
        Err(d) => failed(d),
    }
}

/// Parses `text` as the text format of the message `message_full_name` of Sightline's schema
/// (e.g. `NV.Profiler.ProfilerSection`), with the tolerance rules of this module.
pub fn parse_text_format(
    path: &Path,
    text: &str,
    message_full_name: &str,
) -> Parsed<DynamicMessage> {
    let Parsed {
        value,
        mut diagnostics,
    } = parse_to_wire(path, text, message_full_name);
    let value = value.and_then(|bytes| {
        let desc = schema()
            .ok()
            .and_then(|s| s.pool.get_message_by_name(message_full_name));
        let decoded = match desc {
            Some(d) => DynamicMessage::decode(d, bytes.as_slice()).map_err(|e| e.to_string()),
            None => Err("no descriptor".to_owned()),
        };
        decoded
            .map_err(|e| diagnostics.insert(0, internal(path, message_full_name, &e)))
            .ok()
    });
    Parsed { value, diagnostics }
}

/// Parses `text` as the text format of `message_full_name` and returns the protobuf wire
/// encoding of the result (what [`parse_section`] and friends decode).
pub fn parse_to_wire(path: &Path, text: &str, message_full_name: &str) -> Parsed<Vec<u8>> {
    let schema = match schema() {
        Ok(s) => s,
        Err(e) => {
            return failed(diag_at_start(
                path,
                format!("internal error: cannot load the schema: {e}"),
            ));
        }
    };
    if u32::try_from(text.len()).is_err() {
        return failed(diag_at_start(
            path,
            "the file is too large (4 GiB or more)".to_owned(),
        ));
    }
    let Some(&root) = schema.message_index.get(message_full_name) else {
        return failed(diag_at_start(
            path,
            format!("internal error: no message `{message_full_name}` in the schema"),
        ));
    };
    let mut parser = Parser {
        schema,
        lexer: Lexer::new(text),
        peeked: None,
        diagnostics: Vec::new(),
        has_error: false,
    };
    let mut buf = Vec::with_capacity(text.len() / 2);
    let start = parser.lexer.pos_at(parser.lexer.i);
    let ok = parser.parse_fields(root, &mut buf, None, start, 0).is_ok();
    let value = (ok && !parser.has_error).then_some(buf);
    let diagnostics = resolve_columns(path, text, parser.diagnostics);
    Parsed { value, diagnostics }
}

/// A diagnostic with a byte position; columns are computed at the end, in one pass.
struct RawDiagnostic {
    pos: Pos,
    severity: Severity,
    message: String,
}

/// Sorts diagnostics by position and computes their columns, walking each line once (a
/// per-diagnostic count from the line start would be quadratic on a long single-line file).
fn resolve_columns(path: &Path, text: &str, mut raw: Vec<RawDiagnostic>) -> Vec<Diagnostic> {
    raw.sort_by_key(|d| d.pos.at);
    let mut cursor: Option<(u32, u32, usize)> = None; // (line_start, at, column)
    raw.into_iter()
        .map(|d| {
            let (from, base) = match cursor {
                Some((line_start, at, column))
                    if line_start == d.pos.line_start && at <= d.pos.at =>
                {
                    (at, column)
                }
                _ => (d.pos.line_start, 1),
            };
            let column = base
                + text
                    .get(from as usize..d.pos.at as usize)
                    .map_or(0, |s| s.chars().count());
            cursor = Some((d.pos.line_start, d.pos.at, column));
            Diagnostic {
                path: path.to_path_buf(),
                line: d.pos.line as usize,
                column,
                severity: d.severity,
                message: d.message,
            }
        })
        .collect()
}

fn parse_typed<T: prost::Message + Default>(path: &Path, text: &str, name: &str) -> Parsed<T> {
    let Parsed {
        value,
        mut diagnostics,
    } = parse_to_wire(path, text, name);
    let value = value.and_then(|bytes| match T::decode(bytes.as_slice()) {
        Ok(v) => Some(v),
        Err(e) => {
            diagnostics.insert(0, internal(path, name, &e.to_string()));
            None
        }
    });
    Parsed { value, diagnostics }
}

fn internal(path: &Path, name: &str, e: &str) -> Diagnostic {
    diag_at_start(path, format!("internal error: cannot decode `{name}`: {e}"))
}

fn failed<T>(d: Diagnostic) -> Parsed<T> {
    Parsed {
        value: None,
        diagnostics: vec![d],
    }
}

fn diag_at_start(path: &Path, message: String) -> Diagnostic {
    Diagnostic {
        path: path.to_path_buf(),
        line: 1,
        column: 1,
        severity: Severity::Error,
        message,
    }
}

fn read_text(path: &Path) -> Result<String, Diagnostic> {
    let bytes = std::fs::read(path)
        .map_err(|e| diag_at_start(path, format!("cannot read the file: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        diag_at_start(
            path,
            format!(
                "the file is not valid UTF-8 (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

// ---------------------------------------------------------------------------------------------
// Schema tables (built once from the descriptor pool)

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FieldKind {
    Double,
    Float,
    Int32,
    Int64,
    Uint32,
    Uint64,
    Sint32,
    Sint64,
    Fixed32,
    Fixed64,
    Sfixed32,
    Sfixed64,
    Bool,
    String,
    Bytes,
    /// Index into [`Schema::messages`].
    Message(usize),
    /// Index into [`Schema::enums`].
    Enum(usize),
}

struct FieldInfo {
    name: String,
    number: u32,
    kind: FieldKind,
    /// Repeated or map (a map is a repeated entry message on the wire).
    repeated: bool,
    required: bool,
    group: bool,
    /// Index of the (non-synthetic) oneof within the message.
    oneof: Option<usize>,
    /// `ProfilerSectionMetricDefinition.Expression`: checked as a derived-metric expression.
    expression: bool,
}

struct MessageInfo {
    full_name: String,
    /// Sorted by name (looked up by a linear scan: messages have few fields).
    fields: Vec<FieldInfo>,
    /// Names of the oneofs, by index.
    oneofs: Vec<String>,
}

struct EnumInfo {
    full_name: String,
    name: String,
    /// `(name, number)` sorted by name.
    by_name: Vec<(String, i32)>,
    /// Sorted, deduplicated.
    numbers: Vec<i32>,
}

struct Schema {
    pool: DescriptorPool,
    messages: Vec<MessageInfo>,
    message_index: HashMap<String, usize>,
    enums: Vec<EnumInfo>,
}

fn schema() -> Result<&'static Schema, &'static str> {
    static SCHEMA: OnceLock<Result<Schema, String>> = OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            DescriptorPool::decode(FILE_DESCRIPTOR_SET)
                .map(Schema::build)
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(String::as_str)
}

impl Schema {
    fn build(pool: DescriptorPool) -> Schema {
        let message_index: HashMap<String, usize> = pool
            .all_messages()
            .enumerate()
            .map(|(i, m)| (m.full_name().to_owned(), i))
            .collect();
        let enum_descs: Vec<_> = pool.all_enums().collect();
        let enum_index: HashMap<String, usize> = enum_descs
            .iter()
            .enumerate()
            .map(|(i, e)| (e.full_name().to_owned(), i))
            .collect();
        let enums = enum_descs
            .iter()
            .map(|e| {
                let mut by_name: Vec<(String, i32)> = e
                    .values()
                    .map(|v| (v.name().to_owned(), v.number()))
                    .collect();
                by_name.sort();
                let mut numbers: Vec<i32> = by_name.iter().map(|(_, n)| *n).collect();
                numbers.sort_unstable();
                numbers.dedup();
                EnumInfo {
                    full_name: e.full_name().to_owned(),
                    name: e.name().to_owned(),
                    by_name,
                    numbers,
                }
            })
            .collect();
        let messages = pool
            .all_messages()
            .map(|m| {
                let oneofs: Vec<_> = m.oneofs().filter(|o| !o.is_synthetic()).collect();
                let mut fields: Vec<FieldInfo> = m
                    .fields()
                    .filter_map(|f| {
                        let kind = match f.kind() {
                            Kind::Double => FieldKind::Double,
                            Kind::Float => FieldKind::Float,
                            Kind::Int32 => FieldKind::Int32,
                            Kind::Int64 => FieldKind::Int64,
                            Kind::Uint32 => FieldKind::Uint32,
                            Kind::Uint64 => FieldKind::Uint64,
                            Kind::Sint32 => FieldKind::Sint32,
                            Kind::Sint64 => FieldKind::Sint64,
                            Kind::Fixed32 => FieldKind::Fixed32,
                            Kind::Fixed64 => FieldKind::Fixed64,
                            Kind::Sfixed32 => FieldKind::Sfixed32,
                            Kind::Sfixed64 => FieldKind::Sfixed64,
                            Kind::Bool => FieldKind::Bool,
                            Kind::String => FieldKind::String,
                            Kind::Bytes => FieldKind::Bytes,
                            Kind::Message(d) => {
                                FieldKind::Message(*message_index.get(d.full_name())?)
                            }
                            Kind::Enum(d) => FieldKind::Enum(*enum_index.get(d.full_name())?),
                        };
                        let oneof = f.containing_oneof().and_then(|o| {
                            oneofs.iter().position(|x| x.full_name() == o.full_name())
                        });
                        Some(FieldInfo {
                            name: f.name().to_owned(),
                            number: f.number(),
                            kind,
                            repeated: f.is_list() || f.is_map(),
                            required: f.is_required(),
                            group: f.is_group(),
                            oneof,
                            expression: m.full_name() == METRIC_DEFINITION_MESSAGE
                                && f.name() == "Expression",
                        })
                    })
                    .collect();
                fields.sort_by(|a, b| a.name.cmp(&b.name));
                MessageInfo {
                    full_name: m.full_name().to_owned(),
                    fields,
                    oneofs: oneofs.iter().map(|o| o.name().to_owned()).collect(),
                }
            })
            .collect();
        Schema {
            pool,
            messages,
            message_index,
            enums,
        }
    }
}

impl MessageInfo {
    fn field(&self, name: &str) -> Option<usize> {
        // Messages have few fields: a linear scan comparing lengths first beats hashing.
        self.fields
            .iter()
            .position(|f| f.name.len() == name.len() && f.name == name)
    }
}

impl EnumInfo {
    fn get(&self, name: &str) -> Option<i32> {
        self.by_name
            .binary_search_by(|(n, _)| n.as_str().cmp(name))
            .ok()
            .and_then(|i| self.by_name.get(i))
            .map(|(_, n)| *n)
    }

    /// Looks a value up by name, accepting the documented short forms.
    fn lookup(&self, name: &str) -> Option<i32> {
        if let Some(n) = self.get(name) {
            return Some(n);
        }
        if let Some(n) = self.get(&format!("{}_{}", self.name, name)) {
            return Some(n);
        }
        let written = name.split_once('_');
        if let Some((wp, wr)) = written
            && prefix_equivalent(wp, &self.name)
            && let Some(n) = self.get(wr)
        {
            // `SortKeys_ByValue` for an enum whose values carry no prefix.
            return Some(n);
        }
        for (value, number) in &self.by_name {
            let Some((prefix, rest)) = value.split_once('_') else {
                continue;
            };
            if rest == name && prefix_equivalent(prefix, &self.name) {
                return Some(*number);
            }
            if let Some((wp, wr)) = written
                && wr == rest
                && prefix_equivalent(wp, prefix)
            {
                return Some(*number);
            }
        }
        None
    }
}

/// Whether two enum-value prefixes differ only in ASCII case or a trailing `s`.
fn prefix_equivalent(a: &str, b: &str) -> bool {
    fn trim(s: &str) -> &str {
        match s.strip_suffix(['s', 'S']) {
            Some(t) if !t.is_empty() => t,
            _ => s,
        }
    }
    a.eq_ignore_ascii_case(b) || trim(a).eq_ignore_ascii_case(trim(b))
}

fn kind_name(schema: &Schema, kind: FieldKind) -> String {
    match kind {
        FieldKind::Double | FieldKind::Float => "a number".to_owned(),
        FieldKind::Int32
        | FieldKind::Sint32
        | FieldKind::Sfixed32
        | FieldKind::Int64
        | FieldKind::Sint64
        | FieldKind::Sfixed64 => "an integer".to_owned(),
        FieldKind::Uint32 | FieldKind::Fixed32 | FieldKind::Uint64 | FieldKind::Fixed64 => {
            "an unsigned integer".to_owned()
        }
        FieldKind::Bool => "a boolean".to_owned(),
        FieldKind::String => "a string".to_owned(),
        FieldKind::Bytes => "a string (bytes)".to_owned(),
        FieldKind::Message(m) => format!(
            "a `{}` message block",
            schema.messages.get(m).map_or("", |m| m.full_name.as_str())
        ),
        FieldKind::Enum(e) => format!(
            "a `{}` enum value",
            schema.enums.get(e).map_or("", |e| e.full_name.as_str())
        ),
    }
}

// ---------------------------------------------------------------------------------------------
// Wire encoding

const WT_VARINT: u8 = 0;
const WT_FIXED64: u8 = 1;
const WT_LEN: u8 = 2;
const WT_START_GROUP: u8 = 3;
const WT_END_GROUP: u8 = 4;
const WT_FIXED32: u8 = 5;

fn put_varint(buf: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        buf.push((v as u8) | 0x80);
        v >>= 7;
    }
    buf.push(v as u8);
}

fn put_tag(buf: &mut Vec<u8>, number: u32, wire_type: u8) {
    put_varint(buf, (u64::from(number) << 3) | u64::from(wire_type));
}

/// Starts a length-delimited value: a one-byte length placeholder, fixed by [`end_len`].
fn begin_len(buf: &mut Vec<u8>) -> usize {
    buf.push(0);
    buf.len()
}

/// Writes the length of the value started at `start` (as returned by [`begin_len`]).
fn end_len(buf: &mut Vec<u8>, start: usize) {
    let len = buf.len() - start;
    if len < 0x80 {
        if let Some(b) = buf.get_mut(start - 1) {
            *b = len as u8;
        }
        return;
    }
    let mut varint = [0u8; 10];
    let mut n = 0;
    let mut v = len as u64;
    while let Some(slot) = varint.get_mut(n) {
        n += 1;
        if v < 0x80 {
            *slot = v as u8;
            break;
        }
        *slot = (v as u8) | 0x80;
        v >>= 7;
    }
    let varint = varint.get(..n).unwrap_or_default();
    let extra = n - 1;
    let old_len = buf.len();
    buf.resize(old_len + extra, 0);
    buf.copy_within(start..old_len, start + extra);
    if let Some(dst) = buf.get_mut(start - 1..start + extra) {
        dst.copy_from_slice(varint);
    }
}

/// A parsed scalar, before encoding for its field kind.
enum Scalar {
    Signed(i64),
    Unsigned(u64),
    Real(f64),
    Bool(bool),
}

fn put_scalar(buf: &mut Vec<u8>, number: u32, kind: FieldKind, value: &Scalar) {
    match (kind, value) {
        (FieldKind::Int32 | FieldKind::Int64 | FieldKind::Enum(_), Scalar::Signed(v)) => {
            put_tag(buf, number, WT_VARINT);
            put_varint(buf, *v as u64);
        }
        (FieldKind::Sint32 | FieldKind::Sint64, Scalar::Signed(v)) => {
            put_tag(buf, number, WT_VARINT);
            put_varint(buf, ((v << 1) ^ (v >> 63)) as u64);
        }
        (FieldKind::Sfixed32, Scalar::Signed(v)) => {
            put_tag(buf, number, WT_FIXED32);
            buf.extend_from_slice(&(*v as i32).to_le_bytes());
        }
        (FieldKind::Sfixed64, Scalar::Signed(v)) => {
            put_tag(buf, number, WT_FIXED64);
            buf.extend_from_slice(&v.to_le_bytes());
        }
        (FieldKind::Uint32 | FieldKind::Uint64, Scalar::Unsigned(v)) => {
            put_tag(buf, number, WT_VARINT);
            put_varint(buf, *v);
        }
        (FieldKind::Fixed32, Scalar::Unsigned(v)) => {
            put_tag(buf, number, WT_FIXED32);
            buf.extend_from_slice(&(*v as u32).to_le_bytes());
        }
        (FieldKind::Fixed64, Scalar::Unsigned(v)) => {
            put_tag(buf, number, WT_FIXED64);
            buf.extend_from_slice(&v.to_le_bytes());
        }
        (FieldKind::Float, Scalar::Real(v)) => {
            put_tag(buf, number, WT_FIXED32);
            buf.extend_from_slice(&(*v as f32).to_le_bytes());
        }
        (FieldKind::Double, Scalar::Real(v)) => {
            put_tag(buf, number, WT_FIXED64);
            buf.extend_from_slice(&v.to_le_bytes());
        }
        (FieldKind::Bool, Scalar::Bool(v)) => {
            put_tag(buf, number, WT_VARINT);
            buf.push(u8::from(*v));
        }
        _ => {}
    }
}

// ---------------------------------------------------------------------------------------------
// Lexer

/// A position: line, byte offset of the line start, byte offset. The column is computed only
/// when a diagnostic needs it. Offsets fit in `u32`: longer texts are rejected up front.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pos {
    line: u32,
    line_start: u32,
    at: u32,
}

/// The kind of a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TokKind {
    Ident,
    /// Integer literal: decimal, `0x` hex or `0` octal (validated by the lexer).
    Int,
    /// Float literal, possibly with an `f`/`F` suffix.
    Float,
    /// String literal (quotes included in the span).
    Str,
    Punct(u8),
    Eof,
}

/// A token: small and `Copy`; its text is a span of the input.
#[derive(Debug, Clone, Copy)]
struct Token {
    kind: TokKind,
    pos: Pos,
    /// Byte offset just past the token.
    end: u32,
    /// For a string with escapes: its unescaped bytes, an index into `Lexer::unescaped`.
    unescaped: Option<u32>,
}

struct LexError {
    pos: Pos,
    message: String,
}

struct Lexer<'a> {
    text: &'a str,
    bytes: &'a [u8],
    i: usize,
    line: u32,
    line_start: usize,
    /// Unescaped contents of string literals that have escapes (rare).
    unescaped: Vec<Vec<u8>>,
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl<'a> Lexer<'a> {
    fn new(text: &'a str) -> Self {
        // A byte-order mark is not a character of the first line.
        let i = if text.starts_with('\u{feff}') { 3 } else { 0 };
        Lexer {
            text,
            bytes: text.as_bytes(),
            i,
            line: 1,
            line_start: i,
            unescaped: Vec::new(),
        }
    }

    fn pos_at(&self, at: usize) -> Pos {
        Pos {
            line: self.line,
            line_start: self.line_start as u32,
            at: at as u32,
        }
    }

    fn at(&self, k: usize) -> Option<u8> {
        self.bytes.get(self.i + k).copied()
    }

    fn bump_while(&mut self, f: impl Fn(u8) -> bool) -> usize {
        let start = self.i;
        while self.bytes.get(self.i).is_some_and(|&b| f(b)) {
            self.i += 1;
        }
        self.i - start
    }

    /// The character at byte offset `at` (for messages).
    fn char_at(&self, at: usize) -> char {
        self.text
            .get(at..)
            .and_then(|s| s.chars().next())
            .unwrap_or(char::REPLACEMENT_CHARACTER)
    }

    /// The source text of a token.
    fn text_of(&self, t: &Token) -> &'a str {
        self.text
            .get(t.pos.at as usize..t.end as usize)
            .unwrap_or("")
    }

    /// The value of a string token (unescaped).
    fn str_bytes(&self, t: &Token) -> &[u8] {
        match t.unescaped {
            Some(i) => self.unescaped.get(i as usize).map_or(&[], Vec::as_slice),
            None => self
                .bytes
                .get(t.pos.at as usize + 1..(t.end as usize).saturating_sub(1))
                .unwrap_or_default(),
        }
    }

    /// A description for messages: "identifier `foo`", "'{'", "end of input"...
    fn describe(&self, t: &Token) -> String {
        match t.kind {
            TokKind::Ident => format!("identifier `{}`", self.text_of(t)),
            TokKind::Int | TokKind::Float => format!("number `{}`", self.text_of(t)),
            TokKind::Str => {
                let s = String::from_utf8_lossy(self.str_bytes(t));
                let short: String = s.chars().take(40).collect();
                let dots = if short.len() < s.len() { "..." } else { "" };
                format!("string \"{}{dots}\"", short.escape_default())
            }
            TokKind::Punct(c) => format!("'{}'", char::from(c)),
            TokKind::Eof => "end of input".to_owned(),
        }
    }

    fn skip_trivia(&mut self) {
        while let Some(&b) = self.bytes.get(self.i) {
            match b {
                b'\n' => {
                    self.i += 1;
                    self.line += 1;
                    self.line_start = self.i;
                }
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => self.i += 1,
                b'#' => {
                    self.bump_while(|c| c != b'\n');
                }
                _ => break,
            }
        }
    }

    fn next_token(&mut self) -> Result<Token, LexError> {
        self.skip_trivia();
        let pos = self.pos_at(self.i);
        let mut unescaped = None;
        let kind = match self.at(0) {
            None => TokKind::Eof,
            Some(b) if is_ident_start(b) => {
                self.bump_while(is_ident_char);
                TokKind::Ident
            }
            Some(b'0'..=b'9') => self.number(pos)?,
            Some(b'.') if self.at(1).is_some_and(|c| c.is_ascii_digit()) => self.number(pos)?,
            Some(q @ (b'"' | b'\'')) => {
                unescaped = self.string(pos, q)?;
                TokKind::Str
            }
            Some(
                b @ (b'{' | b'}' | b'<' | b'>' | b'[' | b']' | b':' | b',' | b';' | b'-' | b'/'
                | b'.'),
            ) => {
                self.i += 1;
                TokKind::Punct(b)
            }
            Some(_) => {
                return Err(LexError {
                    pos,
                    message: format!("unexpected character {:?}", self.char_at(self.i)),
                });
            }
        };
        Ok(Token {
            kind,
            pos,
            end: self.i as u32,
            unescaped,
        })
    }

    fn number(&mut self, pos: Pos) -> Result<TokKind, LexError> {
        let start = self.i;
        let mut is_float = false;
        let mut valid = true;
        if self.at(0) == Some(b'0') && matches!(self.at(1), Some(b'x' | b'X')) {
            self.i += 2;
            valid = self.bump_while(|c| c.is_ascii_hexdigit()) > 0;
        } else {
            self.bump_while(|c| c.is_ascii_digit());
            if self.at(0) == Some(b'.') {
                is_float = true;
                self.i += 1;
                self.bump_while(|c| c.is_ascii_digit());
            }
            if matches!(self.at(0), Some(b'e' | b'E')) {
                is_float = true;
                self.i += 1;
                if matches!(self.at(0), Some(b'+' | b'-')) {
                    self.i += 1;
                }
                valid = self.bump_while(|c| c.is_ascii_digit()) > 0;
            }
            if valid && matches!(self.at(0), Some(b'f' | b'F')) {
                is_float = true;
                self.i += 1;
            }
        }
        if self.at(0).is_some_and(|c| is_ident_char(c) || c == b'.') {
            valid = false;
            self.bump_while(|c| is_ident_char(c) || c == b'.');
        }
        let text = self.text.get(start..self.i).unwrap_or("");
        if !valid {
            return Err(LexError {
                pos,
                message: format!("invalid number `{text}`"),
            });
        }
        if !is_float
            && text.len() > 1
            && text.starts_with('0')
            && !text.starts_with("0x")
            && !text.starts_with("0X")
            && !text.bytes().all(|c| (b'0'..=b'7').contains(&c))
        {
            return Err(LexError {
                pos,
                message: format!("invalid octal number `{text}`"),
            });
        }
        Ok(if is_float {
            TokKind::Float
        } else {
            TokKind::Int
        })
    }

    /// Scans a string literal; returns the index of its unescaped bytes if it has escapes.
    fn string(&mut self, pos: Pos, quote: u8) -> Result<Option<u32>, LexError> {
        let unterminated = |pos| LexError {
            pos,
            message: "unterminated string".to_owned(),
        };
        self.i += 1;
        let start = self.i;
        // Fast path: no escapes, the value is a span of the text.
        self.bump_while(|c| c != quote && c != b'\\' && c != b'\n');
        let mut buf = match self.at(0) {
            Some(b) if b == quote => {
                self.i += 1;
                return Ok(None);
            }
            Some(b'\\') => self.bytes.get(start..self.i).unwrap_or_default().to_vec(),
            _ => return Err(unterminated(pos)),
        };
        loop {
            match self.at(0) {
                None | Some(b'\n') => return Err(unterminated(pos)),
                Some(b) if b == quote => {
                    self.i += 1;
                    let index = self.unescaped.len() as u32;
                    self.unescaped.push(buf);
                    return Ok(Some(index));
                }
                Some(b'\\') => {
                    let esc = self.pos_at(self.i);
                    self.i += 1;
                    self.escape(&mut buf, pos, esc)?;
                }
                Some(_) => {
                    let from = self.i;
                    self.bump_while(|c| c != quote && c != b'\\' && c != b'\n');
                    buf.extend_from_slice(self.bytes.get(from..self.i).unwrap_or_default());
                }
            }
        }
    }

    fn hex_digits(&mut self, max: usize) -> (u32, usize) {
        let mut value = 0u32;
        let mut n = 0;
        while n < max {
            let Some(d) = self.at(0).and_then(|c| char::from(c).to_digit(16)) else {
                break;
            };
            value = value * 16 + d;
            n += 1;
            self.i += 1;
        }
        (value, n)
    }

    /// Reads one escape sequence (the backslash is consumed) and appends its bytes.
    fn escape(&mut self, buf: &mut Vec<u8>, string_pos: Pos, esc: Pos) -> Result<(), LexError> {
        let err = |message: String| LexError { pos: esc, message };
        let Some(c) = self.at(0) else {
            return Err(LexError {
                pos: string_pos,
                message: "unterminated string".to_owned(),
            });
        };
        let simple = match c {
            b'n' => Some(b'\n'),
            b't' => Some(b'\t'),
            b'r' => Some(b'\r'),
            b'a' => Some(0x07),
            b'b' => Some(0x08),
            b'f' => Some(0x0c),
            b'v' => Some(0x0b),
            b'\\' | b'\'' | b'"' | b'?' => Some(c),
            _ => None,
        };
        if let Some(b) = simple {
            self.i += 1;
            buf.push(b);
            return Ok(());
        }
        match c {
            b'0'..=b'7' => {
                let mut value = 0u32;
                let mut n = 0;
                while n < 3 {
                    match self.at(0) {
                        Some(d @ b'0'..=b'7') => {
                            value = value * 8 + u32::from(d - b'0');
                            n += 1;
                            self.i += 1;
                        }
                        _ => break,
                    }
                }
                let b = u8::try_from(value)
                    .map_err(|_| err(format!("octal escape out of range (\\{value:o})")))?;
                buf.push(b);
            }
            b'x' | b'X' => {
                self.i += 1;
                let (value, n) = self.hex_digits(2);
                if n == 0 {
                    return Err(err("`\\x` escape without hex digits".to_owned()));
                }
                buf.push(value as u8);
            }
            b'u' | b'U' => {
                self.i += 1;
                let want = if c == b'u' { 4 } else { 8 };
                let (mut value, n) = self.hex_digits(want);
                if n != want {
                    return Err(err(format!(
                        "`\\{}` escape needs {want} hex digits",
                        char::from(c)
                    )));
                }
                if (0xD800..0xDC00).contains(&value)
                    && self.at(0) == Some(b'\\')
                    && self.at(1) == Some(b'u')
                {
                    // A UTF-16 surrogate pair written as two escapes.
                    self.i += 2;
                    let (low, n) = self.hex_digits(4);
                    if n != 4 || !(0xDC00..0xE000).contains(&low) {
                        return Err(err("invalid unicode surrogate pair".to_owned()));
                    }
                    value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00);
                }
                let ch = char::from_u32(value)
                    .ok_or_else(|| err(format!("invalid unicode escape (U+{value:04X})")))?;
                let mut tmp = [0u8; 4];
                buf.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
            }
            _ => {
                let ch = self.char_at(self.i);
                return Err(err(format!(
                    "invalid escape sequence `\\{}`",
                    ch.escape_default()
                )));
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Parser

/// A syntax error was reported; parsing stops.
struct Fatal;

/// Which fields of one message (by index in [`MessageInfo::fields`]) were seen.
#[derive(Default)]
struct FieldSet {
    bits: u64,
    extra: Vec<usize>,
}

impl FieldSet {
    fn insert(&mut self, i: usize) {
        if i < 64 {
            self.bits |= 1 << i;
        } else if !self.extra.contains(&i) {
            self.extra.push(i);
        }
    }

    fn contains(&self, i: usize) -> bool {
        if i < 64 {
            self.bits & (1 << i) != 0
        } else {
            self.extra.contains(&i)
        }
    }
}

/// Per-message parse state.
#[derive(Default)]
struct MessageState {
    /// Fields with a value written.
    present: FieldSet,
    /// Fields written in the text whose value was diagnosed and dropped.
    attempted: FieldSet,
}

struct Parser<'a> {
    schema: &'static Schema,
    lexer: Lexer<'a>,
    peeked: Option<Token>,
    diagnostics: Vec<RawDiagnostic>,
    has_error: bool,
}

fn closer_of(open: u8) -> u8 {
    match open {
        b'{' => b'}',
        b'<' => b'>',
        _ => b']',
    }
}

fn opener_of(close: u8) -> u8 {
    match close {
        b'}' => b'{',
        b'>' => b'<',
        _ => b'[',
    }
}

/// Parses an unsigned integer literal (decimal, `0x` hex, `0` octal).
fn parse_u64(text: &str) -> Option<u64> {
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).ok()
    } else if let Some(oct) = text.strip_prefix('0').filter(|s| !s.is_empty()) {
        u64::from_str_radix(oct, 8).ok()
    } else {
        text.parse().ok()
    }
}

/// Range-checks an integer for a field kind.
fn int_scalar(kind: FieldKind, negative: bool, magnitude: u64) -> Option<Scalar> {
    let signed = if negative {
        -i128::from(magnitude)
    } else {
        i128::from(magnitude)
    };
    match kind {
        FieldKind::Int32 | FieldKind::Sint32 | FieldKind::Sfixed32 | FieldKind::Enum(_) => {
            i32::try_from(signed)
                .ok()
                .map(|v| Scalar::Signed(i64::from(v)))
        }
        FieldKind::Int64 | FieldKind::Sint64 | FieldKind::Sfixed64 => {
            i64::try_from(signed).ok().map(Scalar::Signed)
        }
        FieldKind::Uint32 | FieldKind::Fixed32 if !negative => u32::try_from(magnitude)
            .ok()
            .map(|v| Scalar::Unsigned(u64::from(v))),
        FieldKind::Uint64 | FieldKind::Fixed64 if !negative => Some(Scalar::Unsigned(magnitude)),
        _ => None,
    }
}

fn float_keyword(name: &str) -> Option<f64> {
    if name.eq_ignore_ascii_case("inf") || name.eq_ignore_ascii_case("infinity") {
        Some(f64::INFINITY)
    } else if name.eq_ignore_ascii_case("nan") {
        Some(f64::NAN)
    } else {
        None
    }
}

impl<'a> Parser<'a> {
    fn column(&self, pos: Pos) -> usize {
        self.lexer
            .text
            .get(pos.line_start as usize..pos.at as usize)
            .map_or(1, |s| s.chars().count() + 1)
    }

    fn push(&mut self, pos: Pos, severity: Severity, message: String) {
        if severity == Severity::Error {
            self.has_error = true;
        }
        self.diagnostics.push(RawDiagnostic {
            pos,
            severity,
            message,
        });
    }

    fn error(&mut self, pos: Pos, message: String) {
        self.push(pos, Severity::Error, message);
    }

    fn warn(&mut self, pos: Pos, message: String) {
        self.push(pos, Severity::Warning, message);
    }

    fn fatal(&mut self, pos: Pos, message: String) -> Fatal {
        self.error(pos, message);
        Fatal
    }

    fn next(&mut self) -> Result<Token, Fatal> {
        match self.peeked.take() {
            Some(t) => Ok(t),
            None => self
                .lexer
                .next_token()
                .map_err(|e| self.fatal(e.pos, e.message)),
        }
    }

    fn peek(&mut self) -> Result<Token, Fatal> {
        match self.peeked {
            Some(t) => Ok(t),
            None => {
                let t = self.next()?;
                self.peeked = Some(t);
                Ok(t)
            }
        }
    }

    fn describe(&self, t: &Token) -> String {
        self.lexer.describe(t)
    }

    fn unexpected_eof(&mut self, pos: Pos, close: u8, open_pos: Pos) -> Fatal {
        let open_col = self.column(open_pos);
        self.fatal(
            pos,
            format!(
                "unexpected end of input: expected '{}' to close '{}' at {}:{open_col}",
                char::from(close),
                char::from(opener_of(close)),
                open_pos.line,
            ),
        )
    }

    fn check_depth(&mut self, depth: usize, pos: Pos) -> Result<(), Fatal> {
        if depth > MAX_DEPTH {
            Err(self.fatal(pos, format!("nesting deeper than {MAX_DEPTH} levels")))
        } else {
            Ok(())
        }
    }

    /// Consumes an optional `,` or `;` after a field.
    fn separator(&mut self) -> Result<(), Fatal> {
        if matches!(self.peek()?.kind, TokKind::Punct(b',' | b';')) {
            self.peeked = None;
        }
        Ok(())
    }

    /// Parses the fields of message `msg` into `buf` up to the closing delimiter `close` (or
    /// the end of input for the top level), then checks required fields, reporting them at
    /// `start`.
    fn parse_fields(
        &mut self,
        msg: usize,
        buf: &mut Vec<u8>,
        close: Option<(u8, Pos)>,
        start: Pos,
        depth: usize,
    ) -> Result<(), Fatal> {
        let schema = self.schema;
        let Some(info) = schema.messages.get(msg) else {
            return Err(self.fatal(start, "internal error: bad message index".to_owned()));
        };
        let mut state = MessageState::default();
        loop {
            let tok = self.next()?;
            match tok.kind {
                TokKind::Eof => match close {
                    Some((c, open_pos)) => return Err(self.unexpected_eof(tok.pos, c, open_pos)),
                    None => break,
                },
                TokKind::Punct(c) if close.is_some_and(|(cl, _)| cl == c) => break,
                TokKind::Ident => {
                    let name = self.lexer.text_of(&tok);
                    match info.field(name) {
                        Some(index) => self.parse_field(info, index, buf, &mut state, depth)?,
                        None => {
                            self.warn(
                                tok.pos,
                                format!("unknown field `{name}` in `{}` (skipped)", info.full_name),
                            );
                            self.skip_field_value(depth)?;
                        }
                    }
                }
                TokKind::Punct(b'[') => {
                    let name = self.extension_name()?;
                    self.warn(
                        tok.pos,
                        format!(
                            "unsupported extension field `[{name}]` in `{}` (skipped)",
                            info.full_name
                        ),
                    );
                    self.skip_field_value(depth)?;
                }
                _ => {
                    let expected = match close {
                        Some((c, _)) => format!("field name or '{}'", char::from(c)),
                        None => "field name".to_owned(),
                    };
                    let found = self.describe(&tok);
                    return Err(self.fatal(tok.pos, format!("expected {expected}, found {found}")));
                }
            }
            self.separator()?;
        }
        for (i, f) in info.fields.iter().enumerate() {
            if f.required && !state.present.contains(i) && !state.attempted.contains(i) {
                self.error(
                    start,
                    format!(
                        "missing required field `{}` in `{}`",
                        f.name, info.full_name
                    ),
                );
            }
        }
        Ok(())
    }

    /// After `[`: an extension or `Any` type name, through the closing `]`.
    fn extension_name(&mut self) -> Result<String, Fatal> {
        let mut name = String::new();
        loop {
            let tok = self.next()?;
            match tok.kind {
                TokKind::Ident => name.push_str(self.lexer.text_of(&tok)),
                TokKind::Punct(c @ (b'.' | b'/')) if !name.is_empty() => name.push(char::from(c)),
                TokKind::Punct(b']') if !name.is_empty() => return Ok(name),
                _ => {
                    let found = self.describe(&tok);
                    return Err(self.fatal(
                        tok.pos,
                        format!("expected extension name or ']', found {found}"),
                    ));
                }
            }
        }
    }

    /// Parses the value(s) of a known field (its name was consumed).
    fn parse_field(
        &mut self,
        info: &'static MessageInfo,
        index: usize,
        buf: &mut Vec<u8>,
        state: &mut MessageState,
        depth: usize,
    ) -> Result<(), Fatal> {
        let Some(field) = info.fields.get(index) else {
            return Ok(());
        };
        let mut next = self.peek()?;
        if next.kind == TokKind::Punct(b':') {
            self.peeked = None;
            next = self.peek()?;
        } else if !matches!(next.kind, TokKind::Punct(b'{' | b'<' | b'[')) {
            let found = self.describe(&next);
            let expected = if matches!(field.kind, FieldKind::Message(_)) {
                "'{' or ':'"
            } else {
                "':'"
            };
            return Err(self.fatal(
                next.pos,
                format!(
                    "expected {expected} after field name `{}`, found {found}",
                    field.name
                ),
            ));
        }
        let stored = if next.kind == TokKind::Punct(b'[') {
            self.parse_list(info, field, buf, depth)?
        } else {
            if !field.repeated {
                self.check_singular(info, field, index, state, next.pos);
            }
            self.parse_value(field, buf, depth)?
        };
        if stored {
            state.present.insert(index);
        } else {
            state.attempted.insert(index);
        }
        Ok(())
    }

    /// Warns when a singular field, or another member of its oneof, already has a value.
    fn check_singular(
        &mut self,
        info: &MessageInfo,
        field: &FieldInfo,
        index: usize,
        state: &MessageState,
        pos: Pos,
    ) {
        if state.present.contains(index) {
            let outcome = if matches!(field.kind, FieldKind::Message(_)) {
                "the blocks are merged"
            } else {
                "the last value is used"
            };
            self.warn(
                pos,
                format!("field `{}` is given more than once; {outcome}", field.name),
            );
            return;
        }
        let Some(oneof) = field.oneof else {
            return;
        };
        let other = info
            .fields
            .iter()
            .enumerate()
            .find(|(i, f)| *i != index && f.oneof == Some(oneof) && state.present.contains(*i));
        if let Some((_, other)) = other {
            let oneof_name = info.oneofs.get(oneof).map_or("", String::as_str);
            self.warn(
                pos,
                format!(
                    "field `{}` replaces `{}` (both are in oneof `{oneof_name}`)",
                    field.name, other.name
                ),
            );
        }
    }

    /// Parses one value of `field` (a message block or a scalar) and encodes it into `buf`.
    /// Returns whether a value was written (`false` when it was diagnosed and dropped).
    fn parse_value(
        &mut self,
        field: &FieldInfo,
        buf: &mut Vec<u8>,
        depth: usize,
    ) -> Result<bool, Fatal> {
        let FieldKind::Message(m) = field.kind else {
            return self.parse_scalar(field, buf, depth);
        };
        let open = self.peek()?;
        let TokKind::Punct(open_char @ (b'{' | b'<')) = open.kind else {
            self.mismatch(field, &open);
            return self.skip_value(depth).map(|()| false);
        };
        self.peeked = None;
        self.check_depth(depth + 1, open.pos)?;
        let close = Some((closer_of(open_char), open.pos));
        if field.group {
            put_tag(buf, field.number, WT_START_GROUP);
            self.parse_fields(m, buf, close, open.pos, depth + 1)?;
            put_tag(buf, field.number, WT_END_GROUP);
        } else {
            put_tag(buf, field.number, WT_LEN);
            let start = begin_len(buf);
            self.parse_fields(m, buf, close, open.pos, depth + 1)?;
            end_len(buf, start);
        }
        Ok(true)
    }

    fn mismatch(&mut self, field: &FieldInfo, found: &Token) {
        let found_text = self.describe(found);
        self.mismatch_found(field, found.pos, &found_text);
    }

    fn mismatch_found(&mut self, field: &FieldInfo, pos: Pos, found: &str) {
        let expected = kind_name(self.schema, field.kind);
        self.error(
            pos,
            format!("field `{}` expects {expected}, found {found}", field.name),
        );
    }

    /// Parses `[ v, v, ... ]` for `field`; the `[` is the next token. Returns whether the list
    /// was accepted.
    fn parse_list(
        &mut self,
        info: &MessageInfo,
        field: &FieldInfo,
        buf: &mut Vec<u8>,
        depth: usize,
    ) -> Result<bool, Fatal> {
        let open = self.next()?;
        if !field.repeated {
            self.error(
                open.pos,
                format!(
                    "field `{}` of `{}` is not repeated: list syntax is not allowed",
                    field.name, info.full_name
                ),
            );
            self.skip_list_rest(open.pos, depth + 1)?;
            return Ok(false);
        }
        self.check_depth(depth + 1, open.pos)?;
        if self.peek()?.kind == TokKind::Punct(b']') {
            self.peeked = None;
            return Ok(true);
        }
        loop {
            let next = self.peek()?;
            if next.kind == TokKind::Eof {
                return Err(self.unexpected_eof(next.pos, b']', open.pos));
            }
            self.parse_value(field, buf, depth + 1)?;
            let tok = self.next()?;
            match tok.kind {
                TokKind::Punct(b',') => {}
                TokKind::Punct(b']') => return Ok(true),
                TokKind::Eof => return Err(self.unexpected_eof(tok.pos, b']', open.pos)),
                _ => {
                    let found = self.describe(&tok);
                    return Err(self.fatal(
                        tok.pos,
                        format!("expected ',' or ']' in list, found {found}"),
                    ));
                }
            }
        }
    }

    /// Consumes the string literals that follow (adjacent literals concatenate).
    fn skip_strings(&mut self) -> Result<(), Fatal> {
        while self.peek()?.kind == TokKind::Str {
            self.peeked = None;
        }
        Ok(())
    }

    /// Parses and writes a string value; `first` (a string token) was consumed.
    fn parse_string(
        &mut self,
        field: &FieldInfo,
        first: &Token,
        buf: &mut Vec<u8>,
    ) -> Result<bool, Fatal> {
        let check_utf8 = field.kind == FieldKind::String;
        if self.peek()?.kind != TokKind::Str {
            // The common case: one literal, written straight from the text.
            let bytes = self.lexer.str_bytes(first);
            if check_utf8 && first.unescaped.is_some() && std::str::from_utf8(bytes).is_err() {
                self.error(
                    first.pos,
                    format!("field `{}`: string is not valid UTF-8", field.name),
                );
                return Ok(false);
            }
            if field.expression {
                // Written all the same (the file fails on the error; no second "missing
                // required field" error).
                let expression = bytes.to_vec();
                self.check_expression(first, &expression, true);
            }
            let bytes = self.lexer.str_bytes(first);
            put_tag(buf, field.number, WT_LEN);
            put_varint(buf, bytes.len() as u64);
            buf.extend_from_slice(bytes);
            return Ok(true);
        }
        let mut joined = self.lexer.str_bytes(first).to_vec();
        let mut escaped = first.unescaped.is_some();
        while self.peek()?.kind == TokKind::Str {
            let t = self.next()?;
            escaped |= t.unescaped.is_some();
            joined.extend_from_slice(self.lexer.str_bytes(&t));
        }
        if check_utf8 && escaped && std::str::from_utf8(&joined).is_err() {
            self.error(
                first.pos,
                format!("field `{}`: string is not valid UTF-8", field.name),
            );
            return Ok(false);
        }
        if field.expression {
            self.check_expression(first, &joined, false);
        }
        put_tag(buf, field.number, WT_LEN);
        put_varint(buf, joined.len() as u64);
        buf.extend_from_slice(&joined);
        Ok(true)
    }

    /// Checks a derived-metric expression (`MetricDefinitions { Expression: "..." }`) with
    /// the evaluator's own parser; a malformed one is an error at the offending character
    /// when the literal maps one to one onto the text (`single`, no escapes), else at the
    /// literal.
    fn check_expression(&mut self, literal: &Token, bytes: &[u8], single: bool) {
        let text = String::from_utf8_lossy(bytes);
        let Err(error) = crate::section::derived::parse_expression(&text) else {
            return;
        };
        let (position, message) = match &error {
            crate::section::derived::DerivedError::Parse { position, message } => {
                (*position, message.clone())
            }
            other => (1, other.to_string()),
        };
        let mut pos = literal.pos;
        if single && literal.unescaped.is_none() {
            // 1-based character position → byte offset after the opening quote.
            let offset: usize = text
                .chars()
                .take(position.saturating_sub(1))
                .map(char::len_utf8)
                .sum();
            pos.at += 1 + offset as u32;
        }
        self.error(
            pos,
            format!("invalid derived-metric expression `{text}`: {message}"),
        );
    }

    /// Parses a scalar value of `field` and writes it. Returns whether it was written
    /// (`false` when it was diagnosed and dropped).
    fn parse_scalar(
        &mut self,
        field: &FieldInfo,
        buf: &mut Vec<u8>,
        depth: usize,
    ) -> Result<bool, Fatal> {
        let first = self.peek()?;
        let pos = first.pos;
        match first.kind {
            TokKind::Punct(b'{' | b'<' | b'[') => {
                self.mismatch(field, &first);
                return self.skip_value(depth).map(|()| false);
            }
            TokKind::Punct(b'-') | TokKind::Ident | TokKind::Int | TokKind::Float => {}
            TokKind::Str => {
                self.peeked = None;
                if matches!(field.kind, FieldKind::String | FieldKind::Bytes) {
                    return self.parse_string(field, &first, buf);
                }
                self.mismatch(field, &first);
                self.skip_strings()?;
                return Ok(false);
            }
            _ => {
                let found = self.describe(&first);
                return Err(self.fatal(pos, format!("expected a value, found {found}")));
            }
        }
        self.peeked = None;
        let (negative, tok) = if first.kind == TokKind::Punct(b'-') {
            let tok = self.next()?;
            if !matches!(tok.kind, TokKind::Int | TokKind::Float | TokKind::Ident) {
                let found = self.describe(&tok);
                return Err(self.fatal(
                    tok.pos,
                    format!("expected a number after '-', found {found}"),
                ));
            }
            (true, tok)
        } else {
            (false, first)
        };
        let text = self.lexer.text_of(&tok);
        let sign = if negative { "-" } else { "" };
        let found = || -> String {
            match (negative, tok.kind) {
                (true, TokKind::Int | TokKind::Float) => format!("number `-{text}`"),
                (true, _) => format!("'-' followed by {}", self.lexer.describe(&tok)),
                (false, _) => self.lexer.describe(&tok),
            }
        };
        let value = match (field.kind, tok.kind) {
            (FieldKind::Bool, TokKind::Ident) if !negative => match text {
                "true" | "True" | "t" => Some(Scalar::Bool(true)),
                "false" | "False" | "f" => Some(Scalar::Bool(false)),
                _ => None,
            },
            (FieldKind::Bool, TokKind::Int) if !negative => match parse_u64(text) {
                Some(0) => Some(Scalar::Bool(false)),
                Some(1) => Some(Scalar::Bool(true)),
                _ => None,
            },
            (FieldKind::Double | FieldKind::Float, kind) => {
                let v = match kind {
                    TokKind::Int if text.len() > 1 && text.starts_with('0') => {
                        parse_u64(text).map(|v| v as f64)
                    }
                    TokKind::Int => text.parse::<f64>().ok(),
                    TokKind::Float => text.trim_end_matches(['f', 'F']).parse::<f64>().ok(),
                    TokKind::Ident => float_keyword(text),
                    _ => None,
                };
                v.map(|v| Scalar::Real(if negative { -v } else { v }))
            }
            (
                FieldKind::Int32
                | FieldKind::Sint32
                | FieldKind::Sfixed32
                | FieldKind::Int64
                | FieldKind::Sint64
                | FieldKind::Sfixed64
                | FieldKind::Uint32
                | FieldKind::Fixed32
                | FieldKind::Uint64
                | FieldKind::Fixed64,
                TokKind::Int,
            ) => {
                let v = parse_u64(text).and_then(|m| int_scalar(field.kind, negative, m));
                if v.is_none() {
                    let kind = kind_name(self.schema, field.kind);
                    self.error(
                        pos,
                        format!(
                            "value {sign}{text} is out of range for field `{}` ({})",
                            field.name,
                            kind.trim_start_matches("an ")
                        ),
                    );
                    return Ok(false);
                }
                v
            }
            (FieldKind::Enum(e), TokKind::Ident) if !negative => {
                let info = self.schema.enums.get(e);
                let v = info.and_then(|info| info.lookup(text));
                if v.is_none() {
                    let enum_name = info.map_or("", |i| i.full_name.as_str());
                    self.warn(
                        pos,
                        format!(
                            "unknown value `{text}` for enum `{enum_name}` of field `{}` (left unset)",
                            field.name
                        ),
                    );
                    return Ok(false);
                }
                v.map(|n| Scalar::Signed(i64::from(n)))
            }
            (FieldKind::Enum(e), TokKind::Int) => {
                let info = self.schema.enums.get(e);
                let Some(Scalar::Signed(n)) =
                    parse_u64(text).and_then(|m| int_scalar(field.kind, negative, m))
                else {
                    self.error(
                        pos,
                        format!(
                            "value {sign}{text} is out of range for enum field `{}`",
                            field.name
                        ),
                    );
                    return Ok(false);
                };
                let known = info.is_some_and(|i| {
                    i32::try_from(n).is_ok_and(|n| i.numbers.binary_search(&n).is_ok())
                });
                if !known {
                    let enum_name = info.map_or("", |i| i.full_name.as_str());
                    self.warn(
                        pos,
                        format!(
                            "unknown value {sign}{text} for enum `{enum_name}` of field `{}` (left unset)",
                            field.name
                        ),
                    );
                    return Ok(false);
                }
                Some(Scalar::Signed(n))
            }
            _ => None,
        };
        match value {
            Some(v) => {
                put_scalar(buf, field.number, field.kind, &v);
                Ok(true)
            }
            None => {
                let found = found();
                self.mismatch_found(field, pos, &found);
                Ok(false)
            }
        }
    }

    // --- skipping (unknown fields, mismatched values) ---

    /// Skips what follows an unknown field name: `: value`, `{...}`, `<...>` or `[...]`.
    fn skip_field_value(&mut self, depth: usize) -> Result<(), Fatal> {
        let next = self.peek()?;
        match next.kind {
            TokKind::Punct(b':') => {
                self.peeked = None;
                self.skip_value(depth)
            }
            TokKind::Punct(b'{' | b'<' | b'[') => self.skip_value(depth),
            _ => {
                let found = self.describe(&next);
                Err(self.fatal(
                    next.pos,
                    format!("expected ':' or '{{' after field name, found {found}"),
                ))
            }
        }
    }

    /// Skips one value: a scalar, adjacent strings, a block or a list.
    fn skip_value(&mut self, depth: usize) -> Result<(), Fatal> {
        let tok = self.next()?;
        match tok.kind {
            TokKind::Punct(c @ (b'{' | b'<')) => {
                self.skip_block_rest(closer_of(c), tok.pos, depth + 1)
            }
            TokKind::Punct(b'[') => self.skip_list_rest(tok.pos, depth + 1),
            TokKind::Punct(b'-') => {
                let t = self.next()?;
                match t.kind {
                    TokKind::Int | TokKind::Float | TokKind::Ident => Ok(()),
                    _ => {
                        let found = self.describe(&t);
                        Err(self
                            .fatal(t.pos, format!("expected a number after '-', found {found}")))
                    }
                }
            }
            TokKind::Ident | TokKind::Int | TokKind::Float => Ok(()),
            TokKind::Str => self.skip_strings(),
            _ => {
                let found = self.describe(&tok);
                Err(self.fatal(tok.pos, format!("expected a value, found {found}")))
            }
        }
    }

    /// Skips the fields of a block whose opening delimiter was consumed.
    fn skip_block_rest(&mut self, close: u8, open_pos: Pos, depth: usize) -> Result<(), Fatal> {
        self.check_depth(depth, open_pos)?;
        loop {
            let tok = self.next()?;
            match tok.kind {
                TokKind::Eof => return Err(self.unexpected_eof(tok.pos, close, open_pos)),
                TokKind::Punct(c) if c == close => return Ok(()),
                TokKind::Ident => self.skip_field_value(depth)?,
                TokKind::Punct(b'[') => {
                    self.extension_name()?;
                    self.skip_field_value(depth)?;
                }
                _ => {
                    let found = self.describe(&tok);
                    return Err(self.fatal(
                        tok.pos,
                        format!(
                            "expected field name or '{}', found {found}",
                            char::from(close)
                        ),
                    ));
                }
            }
            self.separator()?;
        }
    }

    /// Skips the elements of a list whose `[` was consumed.
    fn skip_list_rest(&mut self, open_pos: Pos, depth: usize) -> Result<(), Fatal> {
        self.check_depth(depth, open_pos)?;
        if self.peek()?.kind == TokKind::Punct(b']') {
            self.peeked = None;
            return Ok(());
        }
        loop {
            let next = self.peek()?;
            if next.kind == TokKind::Eof {
                return Err(self.unexpected_eof(next.pos, b']', open_pos));
            }
            self.skip_value(depth)?;
            let tok = self.next()?;
            match tok.kind {
                TokKind::Punct(b',') => {}
                TokKind::Punct(b']') => return Ok(()),
                TokKind::Eof => return Err(self.unexpected_eof(tok.pos, b']', open_pos)),
                _ => {
                    let found = self.describe(&tok);
                    return Err(self.fatal(
                        tok.pos,
                        format!("expected ',' or ']' in list, found {found}"),
                    ));
                }
            }
        }
    }
}
