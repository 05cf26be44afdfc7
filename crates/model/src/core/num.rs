//! Number conversions that could lose bits, each said once with why it is right.
//!
//! The model crate denies `clippy::cast_possible_truncation`: an `as` that could drop bits is
//! written as one of these instead (or, for a value read from a file, as a `try_from` whose
//! failure becomes the reader's error or a recorded problem). Three kinds:
//! - **saturating** (`index_u32`, `saturating_*`): a value that fits in every real case
//!   (an index into an in-memory table, a depth, an offset already bounded by a buffer); a value
//!   past the end becomes the type's maximum, never a wrapped small number;
//! - **low bits on purpose** (`low_u32`, `low_u16`, `low_u8`): the file format or the wire format itself
//!   keeps the low bits (protobuf's `uint32` read from a varint, a 32-bit relocation slot, a
//!   varint's 7-bit groups, an ARGB colour given as an integer, a compact column's narrow words);
//! - **from a float** (`exact_*`, `float_to_*`): an integral value in range, or Rust's `as`
//!   semantics (toward zero, NaN → 0, saturating at the ends) where rounding a real to an
//!   integer is the intent. Each gives exactly what `as` gave for every value it accepts, so
//!   the byte-identical outputs (CSV pages, `nsys stats` reports) do not move.

/// Position `i` in one of the model's in-memory tables (events, tracks, strings, frames, rows of
/// a report) as the `u32` id the model stores. Those tables are addressed by `u32` ids: one of
/// 2³² entries would hold tens of GB of columns, beyond what a report loads. Saturates at
/// `u32::MAX` (which no table reaches) instead of wrapping to a small, valid-looking id.
pub fn index_u32(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// `n` as a `u16`, `u16::MAX` past it (a row or depth shown on a track: deeper ones share the
/// last row, as drawn).
pub fn saturating_u16(n: usize) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}

/// `v` as a `u32`, `u32::MAX` past it.
pub fn saturating_u32(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

/// `v` clamped to `0..=u32::MAX` (a row id or count that a `u32` column keeps).
pub fn clamp_u32(v: i64) -> u32 {
    u32::try_from(v.max(0)).unwrap_or(u32::MAX)
}

/// `v` as a `usize`, `usize::MAX` past it (a file offset or size on a 32-bit target, used
/// only where the result is then bounded by a buffer's length).
pub fn saturating_usize(v: u64) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

/// `n` as an `i32` (an exponent for `powi`, a digit position), `i32::MAX` past it.
pub fn saturating_i32(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// The low 32 bits of `v`, on purpose: what the format itself keeps (protobuf reads a `uint32`
/// field from a varint so, C++ and Python alike; a 32-bit relocation slot holds so much of an
/// address; an integer ARGB colour is its low 32 bits).
#[expect(
    clippy::cast_possible_truncation,
    reason = "the low 32 bits are the value the format means"
)]
pub fn low_u32(v: u64) -> u32 {
    v as u32
}

/// The low 32 bits of a signed `v` (two's complement), on purpose, as [`low_u32`]: a colour or
/// id that a database stores as a signed integer.
pub fn low_u32_of_i64(v: i64) -> u32 {
    low_u32(u64::from_ne_bytes(v.to_ne_bytes()))
}

/// The low 16 bits of `v`, on purpose (the narrow word of a compact column).
#[expect(
    clippy::cast_possible_truncation,
    reason = "the low 16 bits are the value the caller means"
)]
pub fn low_u16(v: u64) -> u16 {
    v as u16
}

/// The low 8 bits of `v`, on purpose (a varint's 7-bit group, a byte of a table).
#[expect(
    clippy::cast_possible_truncation,
    reason = "the low byte is the value the caller means"
)]
pub fn low_u8(v: u64) -> u8 {
    v as u8
}

/// `v` when it is a whole number in `0..2⁶⁴` (`None` for a fraction, a negative, NaN, ±∞).
pub fn exact_u64(v: f64) -> Option<u64> {
    const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;
    (v.fract() == 0.0 && (0.0..TWO_POW_64).contains(&v)).then(|| float_to_u64(v))
}

/// `v` when it is a whole number in `−2⁶³..2⁶³` (`None` for a fraction, NaN, ±∞ or out of
/// range).
pub fn exact_i64(v: f64) -> Option<i64> {
    const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;
    (v.fract() == 0.0 && (-TWO_POW_63..TWO_POW_63).contains(&v)).then(|| float_to_i64(v))
}

/// `v` as a `u64` by Rust's `as`: toward zero, NaN and negatives → 0, `u64::MAX` past it. For
/// a real rounded (or floored) to an integer on purpose, or an integral value in range.
#[expect(
    clippy::cast_possible_truncation,
    reason = "`as` from a float saturates (never wraps): the integer part is the intent"
)]
pub fn float_to_u64(v: f64) -> u64 {
    v as u64
}

/// `v` as an `i64` by Rust's `as`: toward zero, NaN → 0, saturating at both ends. For a real
/// rounded (or floored) to an integer on purpose, or an integral value in range.
#[expect(
    clippy::cast_possible_truncation,
    reason = "`as` from a float saturates (never wraps): the integer part is the intent"
)]
pub fn float_to_i64(v: f64) -> i64 {
    v as i64
}

/// `v` as an `f32`, the nearest one (±∞ past `f32::MAX`): for a fraction of a job or a value a
/// format stores in 32 bits.
#[expect(
    clippy::cast_possible_truncation,
    reason = "narrowing to the nearest f32 is the intent"
)]
pub fn to_f32(v: f64) -> f32 {
    v as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saturate_instead_of_wrapping() {
        assert_eq!(saturating_u32(u64::from(u32::MAX) + 1), u32::MAX);
        assert_eq!(saturating_u32(7), 7);
        assert_eq!(saturating_u16(70_000), u16::MAX);
        assert_eq!(clamp_u32(-5), 0);
        assert_eq!(clamp_u32(i64::MAX), u32::MAX);
        assert_eq!(clamp_u32(42), 42);
        assert_eq!(saturating_i32(3), 3);
    }

    #[test]
    fn low_bits_on_purpose() {
        assert_eq!(low_u32(0x1_2345_6789), 0x2345_6789);
        assert_eq!(low_u32_of_i64(-1), u32::MAX);
        assert_eq!(low_u32_of_i64(-16_711_936), 0xFF00_FF00);
        assert_eq!(low_u16(0x1_0002), 2);
        assert_eq!(low_u8(0x1FF), 0xFF);
    }

    #[test]
    fn floats_convert_as_as_does() {
        assert_eq!(exact_u64(3.0), Some(3));
        assert_eq!(exact_u64(3.5), None);
        assert_eq!(exact_u64(-1.0), None);
        assert_eq!(exact_u64(f64::NAN), None);
        assert_eq!(exact_u64(18_446_744_073_709_551_616.0), None);
        assert_eq!(exact_i64(-4.0), Some(-4));
        assert_eq!(exact_i64(9.3e18), None);
        assert_eq!(float_to_u64(-2.5), 0);
        assert_eq!(float_to_u64(2.9), 2);
        assert_eq!(float_to_u64(f64::NAN), 0);
        assert_eq!(float_to_u64(1e30), u64::MAX);
        assert_eq!(float_to_i64(-2.9), -2);
        assert_eq!(to_f32(0.5), 0.5);
    }
}
