//! NVTX extended payloads decoded from generated exports, one schema per part of NVTX's
//! payload extension (`nvToolsExtPayload.h`): every predefined entry type, strings, arrays,
//! nested schemas, enums (values and flags), unions (external and internal selector), explicit
//! offsets, hidden entries, pointers and offsets, and payloads whose schema id is a predefined
//! type. Every decoded value is compared.

use sightline::timeline::nsys::payload::{Field, Value};
use sightline::timeline::{EventId, Timeline};
use sightline_test_support::nsys_payload::{
    Bytes, EntrySpec, EnumSpec, PayloadExport, PayloadRow, SchemaSpec, blob, entry,
    write_payload_export,
};

const S: u64 = 1 << 24;
const FIXED: u64 = 1 << 4;
const ZERO_TERMINATED: u64 = 2 << 4;
const LENGTH_INDEX: u64 = 3 << 4;

pub(crate) fn load(spec: &PayloadExport) -> (tempfile::TempDir, Timeline) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("payloads.sqlite");
    write_payload_export(&path, spec).unwrap();
    let tl = sightline::timeline::nsys::load(&path).unwrap();
    (dir, tl)
}

pub(crate) fn event_named(tl: &Timeline, name: &str) -> EventId {
    (0..tl.event_count() as u32)
        .map(EventId)
        .find(|&id| tl.event(id).is_some_and(|e| tl.name(e.name) == name))
        .unwrap_or_else(|| panic!("no event {name}"))
}

fn fields_of(tl: &Timeline, name: &str) -> Vec<Field> {
    let d = tl.payload_fields(event_named(tl, name)).unwrap();
    assert_eq!(d.problem, None, "{name}: {:?}", d.fields);
    d.fields
}

fn row(name: &str, start: i64, schema: u64, payload: &Bytes) -> PayloadRow {
    PayloadRow {
        name: name.into(),
        start,
        end: start + 100,
        domain: 0,
        binary: blob(0, schema, &payload.0),
        as_text: false,
    }
}

fn schema(id: u64, kind: u64, entries: Vec<EntrySpec>) -> SchemaSpec {
    SchemaSpec {
        domain: 0,
        id,
        name: Some(format!("schema {}", id - S)),
        kind,
        entries,
        ..SchemaSpec::default()
    }
}

fn assert_fields(got: &[Field], want: &[(&str, Value)]) {
    let got: Vec<(&str, &Value)> = got.iter().map(|f| (f.name.as_str(), &f.value)).collect();
    let want: Vec<(&str, &Value)> = want.iter().map(|(n, v)| (*n, v)).collect();
    assert_eq!(got, want);
}

type Put = fn(Bytes) -> Bytes;

/// Every predefined type of the extension: (type, name, how it is written, what it reads).
fn scalar_cases() -> Vec<(u64, &'static str, Put, Value)> {
    let mut cases = integer_cases();
    cases.extend(other_cases());
    cases
}

/// The C and fixed-width integer types.
fn integer_cases() -> Vec<(u64, &'static str, Put, Value)> {
    use Value::{Signed, Unsigned};
    vec![
        (1, "char", |b| b.int(1, -5), Signed(-5)),
        (2, "uchar", |b| b.uint(1, 250), Unsigned(250)),
        (3, "short", |b| b.int(2, -300), Signed(-300)),
        (4, "ushort", |b| b.uint(2, 60_000), Unsigned(60_000)),
        (5, "int", |b| b.int(4, -70_000), Signed(-70_000)),
        (
            6,
            "uint",
            |b| b.uint(4, 4_000_000_000),
            Unsigned(4_000_000_000),
        ),
        (
            7,
            "long",
            |b| b.int(8, -5_000_000_000),
            Signed(-5_000_000_000),
        ),
        (
            8,
            "ulong",
            |b| b.uint(8, 10_000_000_000_000_000_000),
            Unsigned(10_000_000_000_000_000_000),
        ),
        (
            9,
            "longlong",
            |b| b.int(8, -9_000_000_000_000_000_000),
            Signed(-9_000_000_000_000_000_000),
        ),
        (
            10,
            "ulonglong",
            |b| b.uint(8, u128::from(u64::MAX)),
            Unsigned(u128::from(u64::MAX)),
        ),
        (11, "int8", |b| b.int(1, -128), Signed(-128)),
        (12, "uint8", |b| b.uint(1, 255), Unsigned(255)),
        (13, "int16", |b| b.int(2, -32_768), Signed(-32_768)),
        (14, "uint16", |b| b.uint(2, 65_535), Unsigned(65_535)),
        (
            15,
            "int32",
            |b| b.int(4, i128::from(i32::MIN)),
            Signed(i128::from(i32::MIN)),
        ),
        (
            16,
            "uint32",
            |b| b.uint(4, u128::from(u32::MAX)),
            Unsigned(u128::from(u32::MAX)),
        ),
        (
            17,
            "int64",
            |b| b.int(8, i128::from(i64::MIN)),
            Signed(i128::from(i64::MIN)),
        ),
        (
            18,
            "uint64",
            |b| b.uint(8, 12_345_678_901_234_567_890),
            Unsigned(12_345_678_901_234_567_890),
        ),
    ]
}

/// Floats, characters, bytes and the other predefined types.
fn other_cases() -> Vec<(u64, &'static str, Put, Value)> {
    use Value::{Address, Bytes as B, Color, Float, Signed, Text, Unsigned};
    vec![
        (19, "float", |b| b.f32(0.1), Float(0.1)),
        (20, "double", |b| b.f64(2.5), Float(2.5)),
        (
            21,
            "long double",
            |b| b.uint(16, (0x3FFF << 64) | 0xC000_0000_0000_0000),
            Float(1.5),
        ),
        (22, "size", |b| b.uint(8, 1 << 40), Unsigned(1 << 40)),
        (
            23,
            "address",
            |b| b.uint(8, 0xDEAD_BEEF),
            Address(0xDEAD_BEEF),
        ),
        (24, "wchar", |b| b.uint(4, 'é' as u128), Text("é".into())),
        (25, "char8", |b| b.uint(1, 'A' as u128), Text("A".into())),
        (26, "char16", |b| b.uint(2, 'Ω' as u128), Text("Ω".into())),
        (27, "char32", |b| b.uint(4, 0x1F600), Text("😀".into())),
        (32, "byte", |b| b.uint(1, 0xAB), B(vec![0xAB])),
        (
            33,
            "int128",
            |b| b.int(16, -(1 << 100)),
            Signed(-(1 << 100)),
        ),
        (34, "uint128", |b| b.uint(16, 1 << 120), Unsigned(1 << 120)),
        (42, "float16", |b| b.uint(2, 0x3E00), Float(1.5)),
        (43, "float32", |b| b.f32(-2.25), Float(-2.25)),
        (44, "float64", |b| b.f64(1e300), Float(1e300)),
        (
            45,
            "float128",
            |b| b.uint(16, (0x3FFF << 112) | (1 << 111)),
            Float(1.5),
        ),
        (50, "bf16", |b| b.uint(2, 0x3FC0), Float(1.5)),
        (52, "tf32", |b| b.f32(0.5), Float(0.5)),
        (61, "snorm8", |b| b.int(1, -127), Float(-1.0)),
        (62, "unorm8", |b| b.uint(1, 255), Float(1.0)),
        (63, "snorm16", |b| b.int(2, 32_767), Float(1.0)),
        (64, "unorm16", |b| b.uint(2, 0), Float(0.0)),
        (65, "snorm32", |b| b.int(4, 0), Float(0.0)),
        (
            66,
            "unorm32",
            |b| b.uint(4, u128::from(u32::MAX)),
            Float(1.0),
        ),
        (
            67,
            "snorm64",
            |b| b.int(8, -i128::from(i64::MAX)),
            Float(-1.0),
        ),
        (68, "category", |b| b.uint(4, 7), Unsigned(7)),
        (69, "colour", |b| b.uint(4, 0xFF00_FF00), Color(0xFF00_FF00)),
        (70, "scope", |b| b.uint(8, 3), Unsigned(3)),
        (71, "pid32", |b| b.uint(4, 4242), Unsigned(4242)),
        (72, "pid64", |b| b.uint(8, 1 << 40), Unsigned(1 << 40)),
        (73, "tid32", |b| b.uint(4, 99), Unsigned(99)),
        (74, "tid64", |b| b.uint(8, 1 << 41), Unsigned(1 << 41)),
        (80, "registered string", |b| b.uint(8, 9), Unsigned(9)),
        (90, "nvtx category", |b| b.uint(4, 2), Unsigned(2)),
        (91, "colour type", |b| b.int(4, 1), Signed(1)),
        (
            92,
            "nvtx colour",
            |b| b.uint(4, 0xFFFF_0000),
            Color(0xFFFF_0000),
        ),
        (100, "selector", |b| b.uint(1, 1), Unsigned(1)),
        (
            128,
            "timestamp",
            |b| b.uint(8, 123_456_789),
            Unsigned(123_456_789),
        ),
        (200, "timestamp 200", |b| b.uint(8, 5), Unsigned(5)),
    ]
}

#[test]
fn every_predefined_type_decodes_at_its_natural_alignment() {
    let cases = scalar_cases();
    let entries = cases
        .iter()
        .map(|(ty, name, _, _)| entry(*ty, name))
        .collect();
    let payload = cases
        .iter()
        .fold(Bytes::default(), |b, (_, _, put, _)| put(b))
        .align(16);
    let spec = PayloadExport {
        schemas: vec![schema(S + 1, 1, entries)],
        rows: vec![row("scalars", 1_000, S + 1, &payload)],
        ..PayloadExport::default()
    };
    let (_dir, tl) = load(&spec);
    let want: Vec<(&str, Value)> = cases.into_iter().map(|(_, n, _, v)| (n, v)).collect();
    assert_fields(&fields_of(&tl, "scalars"), &want);
    assert!(tl.warnings.is_empty(), "{:?}", tl.warnings);
}

#[test]
fn strings_embedded_zero_terminated_by_length_listed_and_pointers() {
    let entries = vec![
        entry(75, "fixed").detail(8),
        entry(76, "zero-terminated").flags(ZERO_TERMINATED),
        entry(16, "len"),
        entry(77, "utf-16").flags(LENGTH_INDEX).detail(2),
        entry(78, "utf-32").detail(2),
        entry(75, "list").flags(ZERO_TERMINATED).detail(4),
        entry(75, "pointer"),
        entry(76, "fixed flag").flags(FIXED).detail(3),
    ];
    let utf16: Vec<u8> = "abc".encode_utf16().flat_map(u16::to_le_bytes).collect();
    let utf32: Vec<u8> = "ok"
        .chars()
        .flat_map(|c| (c as u32).to_le_bytes())
        .collect();
    let payload = Bytes::default()
        .raw(b"hello\0\0\0")
        .raw("héllo\0".as_bytes())
        .uint(4, 3)
        .put(2, &utf16)
        .put(4, &utf32)
        .raw(b"ab\0\0cd\0\0\0\0\0\0")
        .uint(8, 0x1000)
        .raw(b"xyz");
    let spec = PayloadExport {
        schemas: vec![schema(S + 2, 2, entries)],
        rows: vec![row("strings", 1_000, S + 2, &payload)],
        ..PayloadExport::default()
    };
    let (_dir, tl) = load(&spec);
    let text = |s: &str| Value::Text(s.into());
    assert_fields(
        &fields_of(&tl, "strings"),
        &[
            ("fixed", text("hello")),
            ("zero-terminated", text("héllo")),
            ("len", Value::Unsigned(3)),
            ("utf-16", text("abc")),
            ("utf-32", text("ok")),
            ("list", Value::Array(vec![text("ab"), text("cd")])),
            ("pointer", Value::Address(0x1000)),
            ("fixed flag", text("xyz")),
        ],
    );
}

fn pair_schema() -> SchemaSpec {
    schema(S + 4, 1, vec![entry(12, "a"), entry(16, "b")])
}

fn enums() -> Vec<EnumSpec> {
    let e = |id, size, entries: &[(&str, u64, bool)]| EnumSpec {
        domain: 0,
        id,
        name: None,
        size,
        entries: entries
            .iter()
            .map(|(n, v, f)| ((*n).into(), *v, *f))
            .collect(),
    };
    vec![
        e(
            S + 9,
            4,
            &[("Sum", 0, false), ("Prod", 1, false), ("Max", 2, false)],
        ),
        e(
            S + 10,
            1,
            &[("Read", 1, true), ("Write", 2, true), ("Exec", 4, true)],
        ),
    ]
}

fn pair(a: u128, b: u128) -> Value {
    Value::Struct(vec![
        Field {
            name: "a".into(),
            value: Value::Unsigned(a),
        },
        Field {
            name: "b".into(),
            value: Value::Unsigned(b),
        },
    ])
}

fn op(value: u64, name: Option<&str>) -> Value {
    Value::Enum {
        value,
        name: name.map(String::from),
    }
}

#[test]
fn arrays_fixed_by_length_zero_terminated_of_chars_structs_and_enums() {
    let entries = vec![
        entry(14, "n"),
        entry(15, "fixed").flags(FIXED).detail(4),
        entry(20, "by length").flags(LENGTH_INDEX),
        entry(12, "zero-terminated").flags(ZERO_TERMINATED),
        entry(1, "chars").flags(FIXED).detail(6),
        entry(S + 4, "structs").flags(FIXED).detail(2),
        entry(S + 9, "ops").flags(FIXED).detail(2),
        entry(24, "wide").flags(FIXED).detail(3),
    ];
    let wide: Vec<u8> = ['h', 'é', '\0']
        .iter()
        .flat_map(|&c| (c as u32).to_le_bytes())
        .collect();
    let payload = Bytes::default()
        .uint(2, 3)
        .int(4, 1)
        .int(4, -2)
        .int(4, 3)
        .int(4, -4)
        .f64(0.5)
        .f64(1.5)
        .f64(2.5)
        .raw(&[5, 6, 7, 0])
        .raw(b"abc\0\0\0")
        .align(4)
        .uint(1, 1)
        .uint(4, 2)
        .uint(1, 3)
        .uint(4, 4)
        .uint(4, 0)
        .uint(4, 2)
        .put(4, &wide);
    let spec = PayloadExport {
        schemas: vec![schema(S + 3, 2, entries), pair_schema()],
        enums: enums(),
        rows: vec![row("arrays", 1_000, S + 3, &payload)],
        ..PayloadExport::default()
    };
    let (_dir, tl) = load(&spec);
    let u = Value::Unsigned;
    assert_fields(
        &fields_of(&tl, "arrays"),
        &[
            ("n", u(3)),
            (
                "fixed",
                Value::Array([1, -2, 3, -4].map(Value::Signed).to_vec()),
            ),
            (
                "by length",
                Value::Array([0.5, 1.5, 2.5].map(Value::Float).to_vec()),
            ),
            ("zero-terminated", Value::Array(vec![u(5), u(6), u(7)])),
            ("chars", Value::Text("abc".into())),
            ("structs", Value::Array(vec![pair(1, 2), pair(3, 4)])),
            (
                "ops",
                Value::Array(vec![op(0, Some("Sum")), op(2, Some("Max"))]),
            ),
            ("wide", Value::Text("hé".into())),
        ],
    );
}

#[test]
fn nested_schemas_enums_flags_unions_offsets_hidden_entries_and_pointers() {
    let union = SchemaSpec {
        name: Some("number".into()),
        ..schema(
            S + 6,
            3,
            vec![entry(17, "as integer"), entry(20, "as double")],
        )
    };
    let entries = vec![
        entry(16, "kind"),
        entry(S + 6, "value").detail(0),
        entry(S + 9, "op"),
        entry(S + 10, "mode"),
        entry(S + 4, "nested"),
        entry(18, "hidden").flags(1 << 9),
        entry(16, "at 44").offset(44),
        entry(15, "pointer").flags(1 << 1),
        entry(S + 9, "unknown op"),
    ];
    let payload = Bytes::default()
        .uint(4, 1)
        .f64(6.25)
        .uint(4, 2)
        .uint(1, 3)
        .align(4)
        .uint(1, 9)
        .uint(4, 10)
        .uint(8, 0xFFFF)
        .uint(4, 0)
        .uint(4, 77)
        .uint(8, 0xABC)
        .uint(4, 9)
        .align(8);
    let spec = PayloadExport {
        schemas: vec![schema(S + 5, 1, entries), union, pair_schema()],
        enums: enums(),
        rows: vec![row("misc", 1_000, S + 5, &payload)],
        ..PayloadExport::default()
    };
    let (_dir, tl) = load(&spec);
    let member = Field {
        name: "as double".into(),
        value: Value::Float(6.25),
    };
    assert_fields(
        &fields_of(&tl, "misc"),
        &[
            ("kind", Value::Unsigned(1)),
            ("value", Value::Struct(vec![member])),
            ("op", op(2, Some("Max"))),
            ("mode", op(3, Some("Read | Write"))),
            ("nested", pair(9, 10)),
            ("at 44", Value::Unsigned(77)),
            ("pointer", Value::Address(0xABC)),
            ("unknown op", op(9, None)),
        ],
    );
}

#[test]
fn internal_selector_unions_offsets_and_predefined_schema_ids() {
    let internal = schema(
        S + 7,
        4,
        vec![entry(100, "which"), entry(14, "small"), entry(16, "large")],
    );
    let offsets = schema(
        S + 8,
        2,
        vec![
            entry(16, "from base").flags(1 << 2),
            entry(76, "from here").flags((1 << 3) | ZERO_TERMINATED),
        ],
    );
    let by_offset = Bytes::default()
        .uint(8, 16)
        .uint(8, 4)
        .uint(4, 77)
        .raw(b"hi\0");
    let numbers = Bytes::default().uint(4, 1).uint(4, 2).uint(4, 3);
    let spec = PayloadExport {
        schemas: vec![internal, offsets],
        rows: vec![
            row(
                "internal",
                1_000,
                S + 7,
                &Bytes::default().uint(1, 2).uint(4, 0xAB_CDEF),
            ),
            row("offsets", 2_000, S + 8, &by_offset),
            row("uint32s", 3_000, 16, &numbers),
            row("text", 4_000, 76, &Bytes::default().raw(b"plain text")),
            row("raw", 5_000, 1023, &Bytes::default().raw(&[1, 2, 0xFF])),
        ],
        ..PayloadExport::default()
    };
    let (_dir, tl) = load(&spec);
    let u = Value::Unsigned;
    assert_fields(
        &fields_of(&tl, "internal"),
        &[("which", u(2)), ("large", u(0xAB_CDEF))],
    );
    assert_fields(
        &fields_of(&tl, "offsets"),
        &[
            ("from base", u(77)),
            ("from here", Value::Text("hi".into())),
        ],
    );
    assert_fields(
        &fields_of(&tl, "uint32s"),
        &[("value", Value::Array(vec![u(1), u(2), u(3)]))],
    );
    assert_fields(
        &fields_of(&tl, "text"),
        &[("value", Value::Text("plain text".into()))],
    );
    assert_fields(
        &fields_of(&tl, "raw"),
        &[("payload", Value::Bytes(vec![1, 2, 0xFF]))],
    );
}

/// A `binaryData` whose header gives more bytes than follow it, for a schema that reads none
/// (1022, referenced), still shows the bytes there are, with the reason (found by fuzzing:
/// `fuzz/fuzz_targets/nvtx_payload.rs`).
#[test]
fn a_short_payload_of_a_referenced_schema_shows_its_bytes() {
    let mut binary = Vec::new();
    for word in [0u64, 1022, 100, 0] {
        binary.extend_from_slice(&word.to_le_bytes());
    }
    binary.extend_from_slice(&[0xde, 0xad, 0xbe, 0xef]);
    let decoded = sightline::timeline::nsys::payload::PayloadSchemas::default().decode(&binary);
    let why = decoded.problem.expect("a problem");
    assert!(why.contains("100 payload bytes, 4 follow"), "{why}");
    assert_eq!(decoded.fields.len(), 1, "{:?}", decoded.fields);
    assert!(
        matches!(&decoded.fields[0].value, Value::Raw { bytes, .. } if bytes == &[0xde, 0xad, 0xbe, 0xef]),
        "{:?}",
        decoded.fields
    );
}
