//! Protobuf wire encoding: the parser writes a message's bytes in one pass (varints, tags,
//! length prefixes patched in place, scalars by field kind).

use super::*;
use crate::core::num::{low_u8, saturating_u32, to_f32};

// ---------------------------------------------------------------------------------------------
// Wire encoding

pub(super) const WT_VARINT: u8 = 0;
pub(super) const WT_FIXED64: u8 = 1;
pub(super) const WT_LEN: u8 = 2;
pub(super) const WT_START_GROUP: u8 = 3;
pub(super) const WT_END_GROUP: u8 = 4;
pub(super) const WT_FIXED32: u8 = 5;

/// Writes `v` as a varint: 7-bit groups, low first, each a byte's low bits.
pub(super) fn put_varint(buf: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        buf.push(low_u8(v) | 0x80);
        v >>= 7;
    }
    buf.push(low_u8(v));
}

pub(super) fn put_tag(buf: &mut Vec<u8>, number: u32, wire_type: u8) {
    put_varint(buf, (u64::from(number) << 3) | u64::from(wire_type));
}

/// Starts a length-delimited value: a one-byte length placeholder, fixed by [`end_len`].
pub(super) fn begin_len(buf: &mut Vec<u8>) -> usize {
    buf.push(0);
    buf.len()
}

/// Writes the length of the value started at `start` (as returned by [`begin_len`]).
pub(super) fn end_len(buf: &mut Vec<u8>, start: usize) {
    let len = buf.len() - start;
    if len < 0x80 {
        if let Some(b) = buf.get_mut(start - 1) {
            *b = low_u8(len as u64);
        }
        return;
    }
    let mut varint = [0u8; 10];
    let mut n = 0;
    let mut v = len as u64;
    while let Some(slot) = varint.get_mut(n) {
        n += 1;
        if v < 0x80 {
            *slot = low_u8(v);
            break;
        }
        *slot = low_u8(v) | 0x80;
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
pub(super) enum Scalar {
    Signed(i64),
    Unsigned(u64),
    Real(f64),
    Bool(bool),
}

pub(super) fn put_scalar(buf: &mut Vec<u8>, number: u32, kind: FieldKind, value: &Scalar) {
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
            // In range: `int_scalar` checked it for a 32-bit field.
            let v = (*v).clamp(i64::from(i32::MIN), i64::from(i32::MAX));
            buf.extend_from_slice(&i32::try_from(v).unwrap_or_default().to_le_bytes());
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
            // In range: `int_scalar` checked it for a 32-bit field.
            buf.extend_from_slice(&saturating_u32(*v).to_le_bytes());
        }
        (FieldKind::Fixed64, Scalar::Unsigned(v)) => {
            put_tag(buf, number, WT_FIXED64);
            buf.extend_from_slice(&v.to_le_bytes());
        }
        (FieldKind::Float, Scalar::Real(v)) => {
            put_tag(buf, number, WT_FIXED32);
            // A `float` field keeps the nearest f32, as protobuf's text format does.
            buf.extend_from_slice(&to_f32(*v).to_le_bytes());
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
