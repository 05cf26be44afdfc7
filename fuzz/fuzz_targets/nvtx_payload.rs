//! Fuzzes the NVTX payload decoder (`timeline::nsys::payload`): the input's first bytes make a
//! schema (entry types among the predefined ones, a nested schema, a union, an enum and the
//! schema itself; any flags, array lengths and offsets), the rest is decoded as a `binaryData`
//! value (header and payload) and as a bare payload of that schema. Problems are expected
//! (they become raw bytes with a reason); panics, stack overflows, hangs and runaway
//! allocations are bugs.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sightline_model::timeline::nsys::payload::write_fields_json;
use sightline_model::timeline::nsys::payload::{
    EnumDef, PayloadSchemas, Schema, SchemaEntry, flatten,
};

const S: u64 = 1 << 24;

/// Entry types the schema bytes choose from.
const TYPES: &[u64] = &[
    1,
    2,
    5,
    7,
    12,
    16,
    18,
    19,
    20,
    21,
    22,
    23,
    24,
    26,
    27,
    32,
    33,
    34,
    42,
    45,
    50,
    52,
    61,
    62,
    67,
    69,
    75,
    76,
    77,
    78,
    80,
    100,
    128,
    S + 1,
    S + 2,
    S + 3,
    S + 4,
    999,
];

fn schemas(data: &[u8]) -> (PayloadSchemas, &[u8]) {
    let mut out = PayloadSchemas::default();
    let n = usize::from(data.first().copied().unwrap_or(0) % 8);
    let kind = u64::from(data.get(1).copied().unwrap_or(1) % 5);
    let mut entries = Vec::new();
    let mut rest = data.get(2..).unwrap_or(&[]);
    for idx in 0..n {
        let Some((e, tail)) = rest.split_first_chunk::<4>() else {
            break;
        };
        rest = tail;
        entries.push(SchemaEntry {
            idx: idx as u64,
            flags: u64::from(e[1]) << 1 | u64::from(e[1] >> 7) << 9,
            ty: TYPES[usize::from(e[0]) % TYPES.len()],
            name: Some(format!("e{idx}")),
            description: None,
            detail: u64::from(e[2] % 16),
            offset: (e[3] != 0xFF).then_some(u64::from(e[3])),
        });
    }
    let pair = |ty_a, ty_b| {
        vec![
            SchemaEntry {
                idx: 0,
                ty: ty_a,
                ..SchemaEntry::default()
            },
            SchemaEntry {
                idx: 1,
                ty: ty_b,
                ..SchemaEntry::default()
            },
        ]
    };
    out.schemas.insert(
        (0, S + 1),
        Schema {
            kind,
            entries,
            ..Schema::default()
        },
    );
    out.schemas.insert(
        (0, S + 2),
        Schema {
            kind: 1,
            entries: pair(12, 16),
            ..Schema::default()
        },
    );
    out.schemas.insert(
        (0, S + 4),
        Schema {
            kind: 3,
            entries: pair(18, 20),
            ..Schema::default()
        },
    );
    out.enums.insert(
        (0, S + 3),
        EnumDef {
            name: None,
            size: u64::from(data.get(1).copied().unwrap_or(4) % 9),
            entries: vec![("A".into(), 1, true), ("B".into(), 2, true)],
        },
    );
    (out, rest)
}

fuzz_target!(|data: &[u8]| {
    let (schemas, rest) = schemas(data);
    for decoded in [schemas.decode(rest), schemas.decode_payload(0, S + 1, rest)] {
        assert!(!decoded.fields.is_empty() || decoded.problem.is_none() || rest.is_empty());
        let _ = flatten(&decoded.fields);
        let mut json = String::new();
        write_fields_json(&decoded.fields, &mut json);
    }
});
