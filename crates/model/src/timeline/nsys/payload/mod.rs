//! NVTX extended payloads (`NVTX_EVENTS.binaryData`) decoded with the payload schemas and
//! enums an export holds (`NVTX_PAYLOAD_SCHEMAS`, `NVTX_PAYLOAD_SCHEMA_ENTRIES`,
//! `NVTX_PAYLOAD_ENUMS`, `NVTX_PAYLOAD_ENUM_ENTRIES`), after NVTX's payload extension
//! (`nvToolsExtPayload.h`): every predefined entry type, arrays (fixed, zero-terminated, length
//! from another entry), embedded and variable strings, nested schemas, enums and unions.
//!
//! [`read_schemas`] reads the tables (columns by name, each optional); [`PayloadSchemas::decode`]
//! turns one `binaryData` value into fields, never panicking: a payload that cannot be decoded
//! (no schema, a malformed schema, too few bytes) gives its bytes in hex with the reason.
//! [`NvtxPayloads`] keeps the bytes of a timeline's payloads, decoded when asked.

mod decode;
mod error;
mod layout;
mod read;
pub(crate) mod store;
mod types;
mod value;

use std::collections::BTreeMap;

pub use read::read_schemas;
pub use store::NvtxPayloads;
pub use value::{Field, Value, write_fields_json};

/// One entry of a payload schema (a row of `NVTX_PAYLOAD_SCHEMA_ENTRIES`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SchemaEntry {
    /// Index of the entry in its schema.
    pub idx: u64,
    /// `NVTX_PAYLOAD_ENTRY_FLAG_*`.
    pub flags: u64,
    /// A predefined type, or the id of a schema or enum of the same domain.
    pub ty: u64,
    /// Its name (label).
    pub name: Option<String>,
    /// Its description.
    pub description: Option<String>,
    /// String or array length, the index of the length entry, or the union selector's index.
    pub detail: u64,
    /// Byte offset in the payload; `None` or 0 (past the first entry): natural alignment.
    pub offset: Option<u64>,
}

/// A payload schema (a row of `NVTX_PAYLOAD_SCHEMAS` with its entries).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Schema {
    /// Its name.
    pub name: Option<String>,
    /// `NVTX_PAYLOAD_SCHEMA_TYPE_*` (static when not given).
    pub kind: u64,
    /// `NVTX_PAYLOAD_SCHEMA_FLAG_*`.
    pub flags: u64,
    /// The static payload size in bytes, when given.
    pub size: Option<u64>,
    /// The alignment of packed structs, when given.
    pub align: Option<u64>,
    /// Its entries, by index.
    pub entries: Vec<SchemaEntry>,
}

/// A payload enum (a row of `NVTX_PAYLOAD_ENUMS` with its entries).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EnumDef {
    /// Its name.
    pub name: Option<String>,
    /// Its size in bytes (4, a C enum's, when not given).
    pub size: u64,
    /// `(name, value, is_flag)` by index.
    pub entries: Vec<(String, u64, bool)>,
}

/// The schemas and enums of an export, by (domain, id).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PayloadSchemas {
    /// Schemas by (domain, schema id).
    pub schemas: BTreeMap<(u64, u64), Schema>,
    /// Enums by (domain, schema id).
    pub enums: BTreeMap<(u64, u64), EnumDef>,
}

/// A decoded `binaryData` value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Decoded {
    /// The schema's name (or `schema N`).
    pub schema: String,
    /// The fields, in schema order (hidden entries left out); a payload that could not be
    /// decoded is one field, `payload`, with its bytes.
    pub fields: Vec<Field>,
    /// What went wrong, if anything (the fields then hold what could be read, and raw bytes).
    pub problem: Option<String>,
}

/// The size of the header nsys writes before each payload: u32 domain id, u32 reserved,
/// u32 schema id, u32 reserved, u64 payload size, u64 total size (little-endian).
pub const HEADER_LEN: usize = 32;

impl PayloadSchemas {
    /// Whether there is no schema and no enum.
    pub fn is_empty(&self) -> bool {
        self.schemas.is_empty() && self.enums.is_empty()
    }

    /// The schema `id` of `domain`, else the only schema of that id in any domain.
    pub fn schema(&self, domain: u64, id: u64) -> Option<&Schema> {
        self.schemas
            .get(&(domain, id))
            .or_else(|| unique(self.schemas.iter().filter(|((_, s), _)| *s == id)))
    }

    /// The enum `id` of `domain`, else the only enum of that id in any domain.
    pub fn enum_def(&self, domain: u64, id: u64) -> Option<&EnumDef> {
        self.enums
            .get(&(domain, id))
            .or_else(|| unique(self.enums.iter().filter(|((_, s), _)| *s == id)))
    }

    /// Decodes one `binaryData` value (the 32-byte header, then the payload).
    pub fn decode(&self, binary: &[u8]) -> Decoded {
        decode::decode_binary(self, binary)
    }

    /// Decodes a payload without header, of schema `id` in `domain`.
    pub fn decode_payload(&self, domain: u64, id: u64, payload: &[u8]) -> Decoded {
        decode::decode_body(self, domain, id, payload)
    }
}

fn unique<'a, K: 'a, V: 'a>(mut it: impl Iterator<Item = (&'a K, &'a V)>) -> Option<&'a V> {
    let (_, first) = it.next()?;
    match it.next() {
        None => Some(first),
        Some(_) => None,
    }
}

/// `fields` flattened for display and search: nested fields as `outer.inner`, arrays and raw
/// bytes as their text.
pub fn flatten(fields: &[Field]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    flatten_into("", fields, &mut out);
    out
}

fn flatten_into(prefix: &str, fields: &[Field], out: &mut Vec<(String, String)>) {
    for f in fields {
        let name = if prefix.is_empty() {
            f.name.clone()
        } else {
            format!("{prefix}.{}", f.name)
        };
        match &f.value {
            Value::Struct(inner) => flatten_into(&name, inner, out),
            v => out.push((name, v.to_string())),
        }
    }
}
