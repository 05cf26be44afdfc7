//! The decoder: a payload's bytes read entry by entry after its schema (offsets given or by
//! natural alignment, arrays, strings, nested schemas, enums, unions), bounds-checked at every
//! read so that no input panics; a problem stops the decoding with what was read so far.

use super::error::DecodeError;
use super::types::{
    ARRAY_FIXED_SIZE, ARRAY_LENGTH_INDEX, ARRAY_LENGTH_PAYLOAD_INDEX, ARRAY_MASK,
    ARRAY_ZERO_TERMINATED, FLAG_HIDE, FLAG_OFFSET_FROM_BASE, FLAG_OFFSET_FROM_HERE, FLAG_POINTER,
    Kind, Predefined, SCHEMA_ID_STATIC_START, SCHEMA_RAW, SCHEMA_REFERENCED, SCHEMA_STATIC,
    SCHEMA_UNION, SCHEMA_UNION_WITH_INTERNAL_SELECTOR, TYPE_UNION_SELECTOR, predefined,
};
use super::value::{Field, Value};
use super::{Decoded, EnumDef, HEADER_LEN, PayloadSchemas, Schema, SchemaEntry};
use crate::core::num::saturating_usize;

/// Nested schemas deeper than this are not followed (a schema that contains itself).
const MAX_DEPTH: usize = 16;
/// Arrays longer than this are not read (a corrupt length).
const MAX_ITEMS: usize = 1 << 16;
/// Values read per payload at most: offsets that lead back into arrays of nested schemas could
/// otherwise make the work grow exponentially with the nesting.
const MAX_VALUES: u32 = 1 << 20;

pub(super) type R<T> = Result<T, DecodeError>;

/// Values of the entries read so far, by entry index (array lengths, union selectors).
type Seen = Vec<(u64, Option<u64>)>;

pub(super) fn decode_binary(s: &PayloadSchemas, b: &[u8]) -> Decoded {
    let (Some(head), Some(body)) = (b.get(..HEADER_LEN), b.get(HEADER_LEN..)) else {
        let why = format!(
            "{} bytes, shorter than the {HEADER_LEN}-byte payload header",
            b.len()
        );
        return raw("?".into(), b, why);
    };
    let word = |i: usize| {
        head.get(i..i + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
            .map_or(0, u64::from_le_bytes)
    };
    let domain = word(0) & 0xFFFF_FFFF;
    let mut id = word(8);
    if s.schema(domain, id).is_none() && s.enum_def(domain, id).is_none() {
        id &= 0xFFFF_FFFF;
    }
    let size = word(16);
    let (body, short) = match usize::try_from(size) {
        Ok(n) if n <= body.len() => (&body[..n], None),
        _ => (
            body,
            Some(format!(
                "the header gives {size} payload bytes, {} follow it",
                body.len()
            )),
        ),
    };
    let mut d = decode_body(s, domain, id, body);
    if let Some(short) = short {
        // A payload that did not decode always shows its bytes (a referenced schema reads none).
        if d.fields.is_empty() {
            d.fields.push(field(
                "payload",
                Value::Raw {
                    bytes: body.to_vec(),
                    why: short.clone(),
                },
            ));
        }
        d.problem = Some(match d.problem.take() {
            Some(p) => format!("{short}; {p}"),
            None => short,
        });
    }
    d
}

pub(super) fn decode_body(s: &PayloadSchemas, domain: u64, id: u64, body: &[u8]) -> Decoded {
    if id == SCHEMA_RAW {
        return Decoded {
            schema: "raw".into(),
            fields: vec![field("payload", Value::Bytes(body.to_vec()))],
            problem: None,
        };
    }
    if id == SCHEMA_REFERENCED {
        return Decoded {
            schema: "referenced".into(),
            ..Decoded::default()
        };
    }
    let ctx = Ctx {
        s,
        domain,
        base: body,
        values: std::cell::Cell::new(0),
    };
    if id < SCHEMA_ID_STATIC_START
        && let Some(p) = predefined(id)
    {
        return ctx.predefined_payload(p);
    }
    let Some(schema) = s.schema(domain, id) else {
        let why = format!("no payload schema {id} in domain {domain}");
        return raw(format!("schema {id}"), body, why);
    };
    let name = schema
        .name
        .clone()
        .unwrap_or_else(|| format!("schema {id}"));
    let mut fields = Vec::new();
    match ctx.schema_into(schema, 0, 0, &mut fields) {
        Ok(_) => Decoded {
            schema: name,
            fields,
            problem: None,
        },
        Err(error) => {
            let why = error.to_string();
            fields.push(field(
                "payload",
                Value::Raw {
                    bytes: body.to_vec(),
                    why: why.clone(),
                },
            ));
            Decoded {
                schema: name,
                fields,
                problem: Some(why),
            }
        }
    }
}

fn raw(schema: String, bytes: &[u8], why: String) -> Decoded {
    Decoded {
        schema,
        fields: vec![field(
            "payload",
            Value::Raw {
                bytes: bytes.to_vec(),
                why: why.clone(),
            },
        )],
        problem: Some(why),
    }
}

fn field(name: &str, value: Value) -> Field {
    Field {
        name: name.into(),
        value,
    }
}

pub(super) fn entry_name(e: &SchemaEntry) -> String {
    match &e.name {
        Some(n) if !n.is_empty() => n.clone(),
        _ => format!("entry {}", e.idx),
    }
}

pub(super) fn align_up(at: usize, align: u64) -> R<usize> {
    let a = usize::try_from(align.max(1)).map_err(|_| DecodeError::Alignment(align))?;
    at.checked_next_multiple_of(a)
        .ok_or(DecodeError::OffsetOverflow(at as u64))
}

pub(super) fn array_mode(e: &SchemaEntry) -> u64 {
    (e.flags & ARRAY_MASK) >> 4
}

fn is_char_type(ty: u64) -> bool {
    matches!(ty, 1 | 24..=27)
}

/// What a decoding reads: the schemas, the payload's domain and its bytes.
pub(super) struct Ctx<'a> {
    pub(super) s: &'a PayloadSchemas,
    pub(super) domain: u64,
    pub(super) base: &'a [u8],
    /// Values read so far (see [`MAX_VALUES`]).
    pub(super) values: std::cell::Cell<u32>,
}

impl Ctx<'_> {
    pub(super) fn bytes(&self, at: usize, len: u64) -> R<&[u8]> {
        let len_us = usize::try_from(len).map_err(|_| DecodeError::Length(len))?;
        at.checked_add(len_us)
            .and_then(|end| self.base.get(at..end))
            .ok_or(DecodeError::PastEnd {
                len,
                at,
                size: self.base.len(),
            })
    }

    pub(super) fn uint(&self, at: usize, size: u64) -> R<u128> {
        let b = self.bytes(at, size)?;
        if b.len() > 16 {
            return Err(DecodeError::IntSize(size));
        }
        Ok(b.iter()
            .rev()
            .fold(0u128, |acc, &x| (acc << 8) | u128::from(x)))
    }

    /// Counts one value read; an error past [`MAX_VALUES`].
    pub(super) fn tick(&self) -> R<()> {
        let read = self.values.get().saturating_add(1);
        if read > MAX_VALUES {
            return Err(DecodeError::TooManyValues(MAX_VALUES));
        }
        self.values.set(read);
        Ok(())
    }

    pub(super) fn schema_of(&self, ty: u64) -> Option<&Schema> {
        self.s.schema(self.domain, ty)
    }

    pub(super) fn enum_of(&self, ty: u64) -> Option<&EnumDef> {
        self.s.enum_def(self.domain, ty)
    }

    /// A payload whose schema id is a predefined type: as many values as fit.
    fn predefined_payload(&self, p: Predefined) -> Decoded {
        let value = if p.kind == Kind::String {
            Value::Text(units_text(self.base, p.size))
        } else {
            let n = self.base.len() / usize::try_from(p.size.max(1)).unwrap_or(1);
            let items: Vec<Value> = (0..n.min(MAX_ITEMS))
                .filter_map(|k| self.scalar(p, k * saturating_usize(p.size)).ok())
                .collect();
            match <[Value; 1]>::try_from(items) {
                Ok([one]) => one,
                Err(items) => Value::Array(items),
            }
        };
        Decoded {
            schema: p.name.to_string(),
            fields: vec![field("value", value)],
            problem: None,
        }
    }

    /// The fields of `schema` at `at` into `out`; returns where it ends.
    fn schema_into(
        &self,
        schema: &Schema,
        at: usize,
        depth: usize,
        out: &mut Vec<Field>,
    ) -> R<usize> {
        if depth > MAX_DEPTH {
            return Err(DecodeError::TooDeep(MAX_DEPTH));
        }
        if schema.kind == SCHEMA_UNION_WITH_INTERNAL_SELECTOR {
            return self.internal_union(schema, at, depth, out);
        }
        let mut cursor = at;
        let mut end = at;
        let mut seen: Seen = Vec::new();
        for (i, e) in schema.entries.iter().enumerate() {
            let (off, value, used) = self
                .place(e, i == 0, at, cursor, depth)
                .and_then(|off| {
                    let (value, used) = self.located(e, off, &seen, depth)?;
                    Ok((off, value, used))
                })
                .map_err(|why| DecodeError::InEntry {
                    entry: entry_name(e),
                    source: Box::new(why),
                })?;
            cursor = off.saturating_add(used);
            end = end.max(cursor);
            seen.push((e.idx, value.as_u64()));
            if e.flags & FLAG_HIDE == 0 {
                out.push(field(&entry_name(e), value));
            }
        }
        let align = self.align_of_schema(schema, depth)?;
        let size = match schema.size {
            Some(n) if n > 0 && schema.kind == SCHEMA_STATIC => {
                at.saturating_add(usize::try_from(n).unwrap_or(usize::MAX))
            }
            _ if schema.kind == SCHEMA_STATIC || schema.kind == 0 => align_up(end, align)?,
            _ => end,
        };
        Ok(end.max(size))
    }

    /// Where entry `e` of a schema at `at` starts: its offset, else (past the first entry, or
    /// without one) the cursor at the entry's natural alignment.
    fn place(
        &self,
        e: &SchemaEntry,
        first: bool,
        at: usize,
        cursor: usize,
        depth: usize,
    ) -> R<usize> {
        match e.offset {
            Some(o) if o > 0 || first => at
                .checked_add(usize::try_from(o).map_err(|_| DecodeError::Offset(o))?)
                .ok_or(DecodeError::OffsetOverflow(o)),
            _ => align_up(cursor, self.align_of(e, depth)?),
        }
    }

    /// A union with its selector among its entries: the selector, then the member it names.
    fn internal_union(
        &self,
        schema: &Schema,
        at: usize,
        depth: usize,
        out: &mut Vec<Field>,
    ) -> R<usize> {
        let Some(sel) = schema.entries.iter().find(|e| e.ty == TYPE_UNION_SELECTOR) else {
            return Err(DecodeError::NoSelector);
        };
        let sel_at = at.saturating_add(saturating_usize(sel.offset.unwrap_or(0)));
        let which = self.uint(sel_at, 1)?;
        out.push(field(&entry_name(sel), Value::Unsigned(which)));
        let member = schema
            .entries
            .iter()
            .find(|e| u128::from(e.idx) == which && e.ty != TYPE_UNION_SELECTOR)
            .ok_or(DecodeError::SelectorNamesNone(which))?;
        let member_at = match member.offset {
            Some(o) if o > 0 => at.saturating_add(saturating_usize(o)),
            _ => align_up(sel_at.saturating_add(1), self.align_of(member, depth)?)?,
        };
        let (value, used) = self.located(member, member_at, &[], depth)?;
        out.push(field(&entry_name(member), value));
        let size = self.static_size_of_schema(schema, depth).unwrap_or(0);
        Ok(member_at
            .saturating_add(used)
            .max(at.saturating_add(saturating_usize(size))))
    }

    /// An entry at `off`: a pointer, the data an offset leads to, or the data itself.
    fn located(
        &self,
        e: &SchemaEntry,
        off: usize,
        seen: &[(u64, Option<u64>)],
        depth: usize,
    ) -> R<(Value, usize)> {
        if e.flags & FLAG_POINTER != 0 {
            let a = u64::try_from(self.uint(off, 8)?).unwrap_or(u64::MAX);
            return Ok((Value::Address(a), 8));
        }
        if e.flags & (FLAG_OFFSET_FROM_BASE | FLAG_OFFSET_FROM_HERE) != 0 {
            let rel =
                usize::try_from(self.uint(off, 8)?).map_err(|_| DecodeError::PointerTooLarge)?;
            let target = if e.flags & FLAG_OFFSET_FROM_BASE != 0 {
                Some(rel)
            } else {
                off.checked_add(8).and_then(|h| h.checked_add(rel))
            };
            let target = target.ok_or(DecodeError::PointerOverflow)?;
            let (v, _) = self.data(e, target, seen, depth)?;
            return Ok((v, 8));
        }
        self.data(e, off, seen, depth)
    }

    /// The data of `e` at `off`: a string, a union member, one value or an array.
    fn data(
        &self,
        e: &SchemaEntry,
        off: usize,
        seen: &[(u64, Option<u64>)],
        depth: usize,
    ) -> R<(Value, usize)> {
        if let Some(p) = predefined(e.ty)
            && p.kind == Kind::String
        {
            return self.string(e, p, off, seen);
        }
        if let Some(u) = self.schema_of(e.ty)
            && u.kind == SCHEMA_UNION
        {
            return self.union(e, u, off, seen, depth);
        }
        let count = match array_mode(e) {
            0 => return self.element(e.ty, off, depth),
            ARRAY_FIXED_SIZE => Some(e.detail),
            ARRAY_LENGTH_INDEX => Some(length_of(seen, e.detail)?),
            ARRAY_ZERO_TERMINATED => None,
            ARRAY_LENGTH_PAYLOAD_INDEX => {
                return Err(DecodeError::LengthInOtherPayload);
            }
            m => return Err(DecodeError::ArrayKind(m)),
        };
        self.array(e.ty, off, count, depth)
    }

    fn array(&self, ty: u64, off: usize, count: Option<u64>, depth: usize) -> R<(Value, usize)> {
        let align = self.align_of_type(ty, depth)?;
        let mut items = Vec::new();
        let mut pos = off;
        loop {
            if count.is_some_and(|n| items.len() as u64 >= n) {
                break;
            }
            if items.len() >= MAX_ITEMS {
                return Err(DecodeError::ArrayTooLong(MAX_ITEMS));
            }
            pos = align_up(pos, align)?;
            let (v, used) = self.element(ty, pos, depth)?;
            if used == 0 {
                return Err(DecodeError::ZeroSizedItems);
            }
            let end = pos.saturating_add(used);
            if count.is_none() && self.bytes(pos, used as u64)?.iter().all(|&b| b == 0) {
                pos = end;
                break;
            }
            items.push(v);
            pos = end;
        }
        let value = if is_char_type(ty) {
            Value::Text(chars_text(&items))
        } else {
            Value::Array(items)
        };
        Ok((value, pos - off))
    }

    /// One value of type `ty` at `off` (a predefined type, an enum or a nested schema).
    fn element(&self, ty: u64, off: usize, depth: usize) -> R<(Value, usize)> {
        self.tick()?;
        if let Some(p) = predefined(ty) {
            if p.kind == Kind::String {
                return Ok((
                    Value::Text(units_text(self.bytes(off, p.size)?, p.size)),
                    saturating_usize(p.size),
                ));
            }
            return Ok((self.scalar(p, off)?, saturating_usize(p.size)));
        }
        if let Some(en) = self.enum_of(ty) {
            let size = if en.size == 0 { 4 } else { en.size };
            let v = u64::try_from(self.uint(off, size)?).unwrap_or(u64::MAX);
            return Ok((enum_value(en, v), saturating_usize(size)));
        }
        if let Some(schema) = self.schema_of(ty) {
            let mut fields = Vec::new();
            let end = self.schema_into(schema, off, depth + 1, &mut fields)?;
            return Ok((Value::Struct(fields), end.saturating_sub(off)));
        }
        Err(DecodeError::UnknownType {
            ty,
            domain: self.domain,
        })
    }

    fn union(
        &self,
        e: &SchemaEntry,
        u: &Schema,
        off: usize,
        seen: &[(u64, Option<u64>)],
        depth: usize,
    ) -> R<(Value, usize)> {
        let which = length_of(seen, e.detail)?;
        let member = u
            .entries
            .iter()
            .find(|m| m.idx == which)
            .ok_or(DecodeError::NoUnionMember(which))?;
        let (value, used) = self.located(member, off, &[], depth + 1)?;
        let size = saturating_usize(self.static_size_of_schema(u, depth).unwrap_or(0));
        Ok((
            Value::Struct(vec![field(&entry_name(member), value)]),
            used.max(size),
        ))
    }
}

/// The value of entry `idx` read before (an array length or a union selector).
pub(super) fn length_of(seen: &[(u64, Option<u64>)], idx: u64) -> R<u64> {
    match seen.iter().find(|(i, _)| *i == idx) {
        Some((_, Some(v))) => Ok(*v),
        Some((_, None)) => Err(DecodeError::NotInteger(idx)),
        None => Err(DecodeError::NotReadYet(idx)),
    }
}

fn enum_value(en: &EnumDef, v: u64) -> Value {
    if let Some((name, _, _)) = en.entries.iter().find(|(_, value, _)| *value == v) {
        return Value::Enum {
            value: v,
            name: Some(name.clone()),
        };
    }
    let flags: Vec<&str> = en
        .entries
        .iter()
        .filter(|(_, value, is_flag)| *is_flag && *value != 0 && v & value == *value)
        .map(|(n, _, _)| n.as_str())
        .collect();
    let covered = en
        .entries
        .iter()
        .filter(|(_, value, is_flag)| *is_flag && v & value == *value)
        .fold(0u64, |acc, (_, value, _)| acc | value);
    Value::Enum {
        value: v,
        name: (!flags.is_empty() && covered == v).then(|| flags.join(" | ")),
    }
}

/// Code units of `unit` bytes as text, up to the first zero unit.
pub(super) fn units_text(b: &[u8], unit: u64) -> String {
    match unit {
        2 => {
            let u: Vec<u16> = b
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .take_while(|&c| c != 0)
                .collect();
            String::from_utf16_lossy(&u)
        }
        4 => b
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .take_while(|&c| c != 0)
            .map(|c| char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect(),
        _ => {
            let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
            String::from_utf8_lossy(&b[..end]).into_owned()
        }
    }
}

fn chars_text(items: &[Value]) -> String {
    let mut bytes = Vec::new();
    let mut text = String::new();
    for v in items {
        match v {
            Value::Signed(c) => bytes.push(c.to_le_bytes()[0]),
            Value::Text(t) => text.push_str(t),
            _ => {}
        }
    }
    let end = bytes.iter().position(|&c| c == 0).unwrap_or(bytes.len());
    text.push_str(&String::from_utf8_lossy(&bytes[..end]));
    text.split('\0').next().unwrap_or("").to_string()
}
