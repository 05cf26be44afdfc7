//! Sizes, alignments and the reading of scalars and strings, for the decoder.

use super::decode::{Ctx, R, align_up, array_mode, length_of};
use super::error::DecodeError;
use super::types::{
    ARRAY_FIXED_SIZE, ARRAY_LENGTH_INDEX, ARRAY_ZERO_TERMINATED, FLAG_OFFSET_FROM_BASE,
    FLAG_OFFSET_FROM_HERE, FLAG_POINTER, Kind, Predefined, SCHEMA_UNION,
    SCHEMA_UNION_WITH_INTERNAL_SELECTOR, predefined,
};
use super::value::Value;
use super::{Schema, SchemaEntry};

/// Nested schemas deeper than this have no computed size.
const MAX_DEPTH: usize = 16;

impl Ctx<'_> {
    /// One value of a predefined (non-string) type at `at`.
    #[expect(
        clippy::cast_possible_truncation,
        reason = "a raw value read at its own width (the entry's size) keeps all its bits in the narrower type"
    )]
    pub(super) fn scalar(&self, p: Predefined, at: usize) -> R<Value> {
        let v = self.uint(at, p.size)?;
        let bits = (p.size * 8) as u32;
        let signed = || {
            let shift = 128 - bits;
            ((v << shift) as i128) >> shift
        };
        Ok(match p.kind {
            Kind::Signed => Value::Signed(signed()),
            Kind::Unsigned | Kind::Selector => Value::Unsigned(v),
            Kind::Float => Value::Float(float_of(v, p.size)),
            Kind::Bf16 => Value::Float(short_f32(f32::from_bits((v as u32) << 16))),
            Kind::LongDouble => Value::Float(x87(v)),
            Kind::Snorm => {
                let max = ((1u128 << (bits - 1)) - 1) as f64;
                Value::Float((signed() as f64 / max).max(-1.0))
            }
            Kind::Unorm => Value::Float(v as f64 / (u128::MAX >> (128 - bits)) as f64),
            Kind::Byte => Value::Bytes(vec![v as u8]),
            Kind::Address => Value::Address(v as u64),
            Kind::Char => match char::from_u32(v as u32) {
                Some(c) => Value::Text(c.to_string()),
                None => Value::Unsigned(v),
            },
            Kind::Color => Value::Color(v as u32),
            Kind::String => Value::Text(super::decode::units_text(self.bytes(at, p.size)?, p.size)),
        })
    }

    /// A string entry: embedded of fixed length, zero-terminated, of the length another entry
    /// gives, an array of fixed-length strings, or a pointer (shown as an address).
    #[expect(
        clippy::cast_possible_truncation,
        reason = "a raw value read at its own width (a code unit of 1, 2 or 4 bytes) keeps all its bits in the narrower type"
    )]
    pub(super) fn string(
        &self,
        e: &SchemaEntry,
        p: Predefined,
        off: usize,
        seen: &[(u64, Option<u64>)],
    ) -> R<(Value, usize)> {
        self.tick()?;
        let unit = p.size;
        let text = |n: u64| -> R<(Value, usize)> {
            let len = n
                .checked_mul(unit)
                .ok_or(DecodeError::StringLengthOverflow)?;
            let b = self.bytes(off, len)?;
            Ok((Value::Text(super::decode::units_text(b, unit)), b.len()))
        };
        match array_mode(e) {
            ARRAY_LENGTH_INDEX => text(length_of(seen, e.detail)?),
            ARRAY_ZERO_TERMINATED if e.detail > 0 => self.string_list(e.detail, unit, off),
            ARRAY_ZERO_TERMINATED => {
                let rest = self.base.get(off..).unwrap_or(&[]);
                let step = unit as usize;
                let Some(k) = rest
                    .chunks_exact(step)
                    .position(|c| c.iter().all(|&b| b == 0))
                else {
                    return Err(DecodeError::Unterminated);
                };
                let (v, _) = text(k as u64)?;
                Ok((v, (k + 1) * step))
            }
            0 | ARRAY_FIXED_SIZE if e.detail > 0 => text(e.detail),
            0 => Ok((Value::Address(self.uint(off, 8)? as u64), 8)),
            m => Err(DecodeError::StringArrayKind(m)),
        }
    }

    /// A zero-terminated list of strings of `len` units each (ends at an empty one).
    #[expect(
        clippy::cast_possible_truncation,
        reason = "a raw value read at its own width (a code unit of 1, 2 or 4 bytes) keeps all its bits in the narrower type"
    )]
    fn string_list(&self, len: u64, unit: u64, off: usize) -> R<(Value, usize)> {
        let step = len
            .checked_mul(unit)
            .ok_or(DecodeError::StringLengthOverflow)?;
        let mut items = Vec::new();
        let mut pos = off;
        loop {
            let b = self.bytes(pos, step)?;
            pos = pos.saturating_add(b.len());
            if b.iter().take(unit as usize).all(|&c| c == 0) {
                break;
            }
            self.tick()?;
            if items.len() >= 1 << 16 {
                return Err(DecodeError::TooManyStrings);
            }
            items.push(Value::Text(super::decode::units_text(b, unit)));
        }
        Ok((Value::Array(items), pos - off))
    }

    /// The alignment of entry `e` where it sits in its schema.
    pub(super) fn align_of(&self, e: &SchemaEntry, depth: usize) -> R<u64> {
        if e.flags & (FLAG_POINTER | FLAG_OFFSET_FROM_BASE | FLAG_OFFSET_FROM_HERE) != 0 {
            return Ok(8);
        }
        if let Some(p) = predefined(e.ty)
            && p.kind == Kind::String
            && e.detail == 0
            && array_mode(e) == 0
        {
            return Ok(8);
        }
        self.align_of_type(e.ty, depth)
    }

    /// The alignment of a value of type `ty`.
    pub(super) fn align_of_type(&self, ty: u64, depth: usize) -> R<u64> {
        if let Some(p) = predefined(ty) {
            return Ok(p.align);
        }
        if let Some(en) = self.enum_of(ty) {
            return Ok(if en.size == 0 { 4 } else { en.size.min(16) });
        }
        if let Some(s) = self.schema_of(ty) {
            return self.align_of_schema(s, depth + 1);
        }
        Err(DecodeError::UnknownType {
            ty,
            domain: self.domain,
        })
    }

    /// A schema's alignment: the one it gives, else its largest entry's.
    pub(super) fn align_of_schema(&self, s: &Schema, depth: usize) -> R<u64> {
        if let Some(a) = s.align.filter(|&a| a > 0) {
            return Ok(a);
        }
        if depth > MAX_DEPTH {
            return Err(DecodeError::TooDeepForAlignment);
        }
        let mut align = 1;
        for e in &s.entries {
            align = align.max(self.align_of(e, depth + 1)?);
        }
        Ok(align)
    }

    /// The size of an entry that has a fixed size (`None` for variable-length ones).
    fn static_size(&self, e: &SchemaEntry, depth: usize) -> Option<u64> {
        if e.flags & (FLAG_POINTER | FLAG_OFFSET_FROM_BASE | FLAG_OFFSET_FROM_HERE) != 0 {
            return Some(8);
        }
        let mode = array_mode(e);
        if let Some(p) = predefined(e.ty)
            && p.kind == Kind::String
        {
            return match (mode, e.detail) {
                (0, 0) => Some(8),
                (0 | ARRAY_FIXED_SIZE, n) => n.checked_mul(p.size),
                _ => None,
            };
        }
        let one = if let Some(p) = predefined(e.ty) {
            p.size
        } else if let Some(en) = self.enum_of(e.ty) {
            if en.size == 0 { 4 } else { en.size }
        } else {
            self.static_size_of_schema(self.schema_of(e.ty)?, depth + 1)?
        };
        match mode {
            0 => Some(one),
            ARRAY_FIXED_SIZE => one.checked_mul(e.detail),
            _ => None,
        }
    }

    /// The size of a schema whose entries all have a fixed size: the one it gives, else its
    /// laid-out entries rounded up to its alignment (a union: its largest member).
    #[expect(
        clippy::cast_possible_truncation,
        reason = "a raw value read at its own width (sizes are bounded by the payload's length) keeps all its bits in the narrower type"
    )]
    pub(super) fn static_size_of_schema(&self, s: &Schema, depth: usize) -> Option<u64> {
        if let Some(n) = s.size.filter(|&n| n > 0) {
            return Some(n);
        }
        if depth > MAX_DEPTH {
            return None;
        }
        let align = self.align_of_schema(s, depth).ok()?;
        if matches!(s.kind, SCHEMA_UNION | SCHEMA_UNION_WITH_INTERNAL_SELECTOR) {
            let mut size = 0;
            for e in &s.entries {
                size = size.max(self.static_size(e, depth)?);
            }
            return align_up(size as usize, align).ok().map(|n| n as u64);
        }
        let mut cursor = 0usize;
        for (i, e) in s.entries.iter().enumerate() {
            let off = match e.offset {
                Some(o) if o > 0 || i == 0 => usize::try_from(o).ok()?,
                _ => align_up(cursor, self.align_of(e, depth).ok()?).ok()?,
            };
            cursor = off.checked_add(usize::try_from(self.static_size(e, depth)?).ok()?)?;
        }
        align_up(cursor, align).ok().map(|n| n as u64)
    }
}

/// An IEEE binary float of `size` bytes (2, 4, 8 or 16) as an f64; 4-byte values keep their
/// shortest decimal form (0.1f32 reads 0.1).
#[expect(
    clippy::cast_possible_truncation,
    reason = "a raw value read at its own width (`size` bytes) keeps all its bits in the narrower type"
)]
fn float_of(v: u128, size: u64) -> f64 {
    match size {
        2 => half(v as u16),
        4 => short_f32(f32::from_bits(v as u32)),
        8 => f64::from_bits(v as u64),
        _ => quad(v),
    }
}

/// An f32 as the f64 of its shortest decimal form.
fn short_f32(x: f32) -> f64 {
    if x.is_finite() {
        x.to_string().parse().unwrap_or(f64::from(x))
    } else {
        f64::from(x)
    }
}

/// IEEE binary16.
fn half(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1F);
    let mant = f64::from(h & 0x3FF);
    sign * match exp {
        0 => mant * 2f64.powi(-24),
        31 if mant == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        e => (1024.0 + mant) * 2f64.powi(e - 25),
    }
}

/// IEEE binary128, rounded to f64.
fn quad(v: u128) -> f64 {
    let sign = if v >> 127 != 0 { -1.0 } else { 1.0 };
    let exp = ((v >> 112) & 0x7FFF) as i32;
    let mant = (v & ((1u128 << 112) - 1)) >> 60;
    let frac = mant as f64 / (1u64 << 52) as f64;
    sign * match exp {
        0 => frac * 2f64.powi(-16382),
        0x7FFF if mant == 0 => f64::INFINITY,
        0x7FFF => f64::NAN,
        e => (1.0 + frac) * 2f64.powi(e - 16383),
    }
}

/// x87 80-bit extended precision (in the low 10 of 16 bytes), rounded to f64.
#[expect(
    clippy::cast_possible_truncation,
    reason = "a raw value read at its own width (the 64-bit mantissa of an 80-bit float) keeps all its bits in the narrower type"
)]
fn x87(v: u128) -> f64 {
    let mant = v as u64;
    let exp = ((v >> 64) & 0x7FFF) as i32;
    let sign = if (v >> 79) & 1 != 0 { -1.0 } else { 1.0 };
    if exp == 0x7FFF {
        return if mant << 1 == 0 {
            sign * f64::INFINITY
        } else {
            f64::NAN
        };
    }
    sign * (mant as f64 / 2f64.powi(63)) * 2f64.powi(exp.max(1) - 16383)
}
