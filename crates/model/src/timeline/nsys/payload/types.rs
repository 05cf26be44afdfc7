//! The numbers of NVTX's payload extension (`nvToolsExtPayload.h`, NVIDIA/NVTX, Apache-2.0):
//! entry types, entry flags and schema types, with the size and alignment each predefined type
//! has on the 64-bit Linux ABI the exports come from (LP64: `long` and `size_t` are 8 bytes,
//! `wchar_t` 4). Notes and sources: `notes/nvtx-payload.md`.

/// Entry flag: the value is an absolute pointer (not followed: shown as an address).
pub const FLAG_POINTER: u64 = 1 << 1;
/// Entry flag: the value is an offset from the start of the payload to the data.
pub const FLAG_OFFSET_FROM_BASE: u64 = 1 << 2;
/// Entry flag: the value is an offset from the end of this entry to the data.
pub const FLAG_OFFSET_FROM_HERE: u64 = 1 << 3;
/// Entry flags 4–6: the array kind (`(flags >> 4) & 7`).
pub const ARRAY_MASK: u64 = 7 << 4;
/// Array kind: fixed length `arrayOrUnionDetail`.
pub const ARRAY_FIXED_SIZE: u64 = 1;
/// Array kind: ends with a zero element.
pub const ARRAY_ZERO_TERMINATED: u64 = 2;
/// Array kind: the length is the value of the entry whose index is `arrayOrUnionDetail`.
pub const ARRAY_LENGTH_INDEX: u64 = 3;
/// Array kind: the length is in another payload of the event (not in an export's blob).
pub const ARRAY_LENGTH_PAYLOAD_INDEX: u64 = 4;
/// Entry flag: hide the entry when visualizing.
pub const FLAG_HIDE: u64 = 1 << 9;

/// Schema type: a C struct of fixed size.
pub const SCHEMA_STATIC: u64 = 1;
/// Schema type: a union whose member is chosen by an entry of the enclosing schema.
pub const SCHEMA_UNION: u64 = 3;
/// Schema type: a union whose selector is one of its own entries (type `UNION_SELECTOR`).
pub const SCHEMA_UNION_WITH_INTERNAL_SELECTOR: u64 = 4;

/// Entry type of a union's internal selector.
pub const TYPE_UNION_SELECTOR: u64 = 100;
/// First custom (static) schema id: smaller `schemaId`s of a payload are predefined types.
pub const SCHEMA_ID_STATIC_START: u64 = 1 << 24;
/// The schema id of a payload other payloads point into (not shown on its own).
pub const SCHEMA_REFERENCED: u64 = 1022;
/// The schema id of a raw payload (shown as bytes).
pub const SCHEMA_RAW: u64 = 1023;

/// How a predefined entry type is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A signed integer.
    Signed,
    /// An unsigned integer.
    Unsigned,
    /// An IEEE binary floating-point number (2, 4, 8 or 16 bytes).
    Float,
    /// bfloat16: the high half of a binary32.
    Bf16,
    /// x87 80-bit extended precision in 16 bytes (`long double`).
    LongDouble,
    /// A normalized number in a signed integer (-1.0 to 1.0).
    Snorm,
    /// A normalized number in an unsigned integer (0.0 to 1.0).
    Unorm,
    /// A raw byte (shown in hex).
    Byte,
    /// An address (shown in hex).
    Address,
    /// A character of a string type (`char8_t`, `char16_t`, `char32_t`, `wchar_t`).
    Char,
    /// An ARGB colour (shown as `#AARRGGBB`).
    Color,
    /// A string type: the size is that of one code unit.
    String,
    /// The union selector.
    Selector,
}

/// A predefined type: its name, how it is read, its size and its alignment (bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Predefined {
    /// The name without `NVTX_PAYLOAD_ENTRY_TYPE_`.
    pub name: &'static str,
    /// How it is read.
    pub kind: Kind,
    /// Size in bytes (of one code unit for strings).
    pub size: u64,
    /// Alignment in bytes.
    pub align: u64,
}

const fn p(name: &'static str, kind: Kind, size: u64, align: u64) -> Option<Predefined> {
    Some(Predefined {
        name,
        kind,
        size,
        align,
    })
}

/// The predefined entry type `ty`, `None` for another number (a schema or enum id, or a
/// number the extension does not define).
pub fn predefined(ty: u64) -> Option<Predefined> {
    use Kind::{
        Address, Bf16, Byte, Char, Color, Float, LongDouble, Selector, Signed, Snorm, String,
        Unorm, Unsigned,
    };
    match ty {
        1 => p("CHAR", Signed, 1, 1),
        2 => p("UCHAR", Unsigned, 1, 1),
        3 => p("SHORT", Signed, 2, 2),
        4 => p("USHORT", Unsigned, 2, 2),
        5 => p("INT", Signed, 4, 4),
        6 => p("UINT", Unsigned, 4, 4),
        7 => p("LONG", Signed, 8, 8),
        8 => p("ULONG", Unsigned, 8, 8),
        9 => p("LONGLONG", Signed, 8, 8),
        10 => p("ULONGLONG", Unsigned, 8, 8),
        11 => p("INT8", Signed, 1, 1),
        12 => p("UINT8", Unsigned, 1, 1),
        13 => p("INT16", Signed, 2, 2),
        14 => p("UINT16", Unsigned, 2, 2),
        15 => p("INT32", Signed, 4, 4),
        16 => p("UINT32", Unsigned, 4, 4),
        17 => p("INT64", Signed, 8, 8),
        18 => p("UINT64", Unsigned, 8, 8),
        19 => p("FLOAT", Float, 4, 4),
        20 => p("DOUBLE", Float, 8, 8),
        21 => p("LONGDOUBLE", LongDouble, 16, 16),
        22 => p("SIZE", Unsigned, 8, 8),
        23 => p("ADDRESS", Address, 8, 8),
        24 => p("WCHAR", Char, 4, 4),
        25 => p("CHAR8", Char, 1, 1),
        26 => p("CHAR16", Char, 2, 2),
        27 => p("CHAR32", Char, 4, 4),
        32 => p("BYTE", Byte, 1, 1),
        33 => p("INT128", Signed, 16, 16),
        34 => p("UINT128", Unsigned, 16, 16),
        42 => p("FLOAT16", Float, 2, 2),
        43 => p("FLOAT32", Float, 4, 4),
        44 => p("FLOAT64", Float, 8, 8),
        45 => p("FLOAT128", Float, 16, 16),
        50 => p("BF16", Bf16, 2, 2),
        52 => p("TF32", Float, 4, 4),
        // The 2021 header's normalized integers (68, UNORM64 there, is CATEGORY now).
        61 => p("SNORM8", Snorm, 1, 1),
        62 => p("UNORM8", Unorm, 1, 1),
        63 => p("SNORM16", Snorm, 2, 2),
        64 => p("UNORM16", Unorm, 2, 2),
        65 => p("SNORM32", Snorm, 4, 4),
        66 => p("UNORM32", Unorm, 4, 4),
        67 => p("SNORM64", Snorm, 8, 8),
        68 => p("CATEGORY", Unsigned, 4, 4),
        69 => p("COLOR_ARGB", Color, 4, 4),
        70 => p("SCOPE_ID", Unsigned, 8, 8),
        71 => p("PID_UINT32", Unsigned, 4, 4),
        72 => p("PID_UINT64", Unsigned, 8, 8),
        73 => p("TID_UINT32", Unsigned, 4, 4),
        74 => p("TID_UINT64", Unsigned, 8, 8),
        75 => p("CSTRING", String, 1, 1),
        76 => p("CSTRING_UTF8", String, 1, 1),
        77 => p("CSTRING_UTF16", String, 2, 2),
        78 => p("CSTRING_UTF32", String, 4, 4),
        80 => p("NVTX_REGISTERED_STRING_HANDLE", Unsigned, 8, 8),
        // The 2021 header's deferred-event types: category, colour type, colour.
        90 => p("NVTX_CATEGORY", Unsigned, 4, 4),
        91 => p("NVTX_COLORTYPE", Signed, 4, 4),
        92 => p("NVTX_COLOR", Color, 4, 4),
        TYPE_UNION_SELECTOR => p("UNION_SELECTOR", Selector, 1, 1),
        // The 2021 header's timestamps (128–255), 64-bit.
        128..=255 => p("TIMESTAMP", Unsigned, 8, 8),
        _ => None,
    }
}
