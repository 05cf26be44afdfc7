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
use std::path::Path;
use std::sync::OnceLock;

use prost_reflect::{DescriptorError, DescriptorPool, DynamicMessage, Kind};

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

/// How bad a diagnostic is: an error means the file does not load; a warning, that something
/// was ignored and the file still loads.
pub use crate::problem::Severity;
use crate::problem::{FileProblem, Location, Problem};

/// The result of parsing one file: the value (`None` iff there is an error diagnostic) and
/// every diagnostic, sorted by position.
#[derive(Debug, Clone)]
pub struct Parsed<T> {
    /// The parsed value; `None` exactly when `diagnostics` holds an error.
    pub value: Option<T>,
    /// Errors and warnings, sorted by line and column.
    pub diagnostics: Vec<FileProblem>,
}

impl<T> Parsed<T> {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(FileProblem::is_error)
    }

    /// The error diagnostics.
    pub fn errors(&self) -> impl Iterator<Item = &FileProblem> {
        self.diagnostics.iter().filter(|d| d.is_error())
    }

    /// The warning diagnostics.
    pub fn warnings(&self) -> impl Iterator<Item = &FileProblem> {
        self.diagnostics.iter().filter(|d| !d.is_error())
    }
}

/// Sightline's schema as a reflection pool, decoded once.
pub fn descriptor_pool() -> Result<&'static DescriptorPool, &'static DescriptorError> {
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
fn resolve_columns(path: &Path, text: &str, mut raw: Vec<RawDiagnostic>) -> Vec<FileProblem> {
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
            FileProblem::new(
                path,
                Problem {
                    location: Location::line_column(d.pos.line as usize, column),
                    severity: d.severity,
                    message: d.message,
                },
            )
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

fn internal(path: &Path, name: &str, e: &str) -> FileProblem {
    diag_at_start(path, format!("internal error: cannot decode `{name}`: {e}"))
}

fn failed<T>(d: FileProblem) -> Parsed<T> {
    Parsed {
        value: None,
        diagnostics: vec![d],
    }
}

fn diag_at_start(path: &Path, message: String) -> FileProblem {
    FileProblem::new(path, Problem::error(Location::line_column(1, 1), message))
}

fn read_text(path: &Path) -> Result<String, FileProblem> {
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

mod lexer;
mod parser;
mod scalar;
mod schema;
mod skip;
mod wire;

use lexer::*;
use parser::*;
use schema::*;
use wire::*;
