//! Bounds-checked protobuf wire-format scanning.
//!
//! The hot paths of the reader (indexing a container, decoding metrics) walk the wire format
//! directly instead of materialising generic messages. Every length is checked against the
//! bytes that remain before it is used, so hostile input can neither over-read nor make the
//! reader allocate more than the input holds.

use std::fmt;

/// A malformed wire encoding at `offset` bytes into the scanned buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireError {
    /// Offset of the offending byte, relative to the start of the scanned buffer.
    pub offset: usize,
    /// What was wrong.
    pub what: &'static str,
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.what, self.offset)
    }
}

/// The payload of one field.
#[derive(Debug, Clone, Copy)]
pub enum WireValue<'a> {
    /// Wire type 0.
    Varint(u64),
    /// Wire type 1.
    Fixed64(u64),
    /// Wire type 2, with the payload's offset in the scanned buffer.
    Bytes(&'a [u8], usize),
    /// Wire type 5.
    Fixed32(u32),
}

/// Iterates over the fields of one encoded message.
pub struct FieldReader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> FieldReader<'a> {
    /// Scans `buf`, a complete encoded message.
    pub fn new(buf: &'a [u8]) -> Self {
        FieldReader { buf, pos: 0 }
    }

    /// Current position in the buffer.
    pub fn position(&self) -> usize {
        self.pos
    }

    fn varint(&mut self) -> Result<u64, WireError> {
        let start = self.pos;
        let mut value: u64 = 0;
        for shift in 0..10u32 {
            let Some(&byte) = self.buf.get(self.pos) else {
                return Err(WireError {
                    offset: start,
                    what: "truncated varint",
                });
            };
            self.pos += 1;
            if shift == 9 && byte > 1 {
                return Err(WireError {
                    offset: start,
                    what: "varint longer than 64 bits",
                });
            }
            value |= u64::from(byte & 0x7f) << (7 * shift);
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(WireError {
            offset: start,
            what: "varint longer than 10 bytes",
        })
    }

    fn take(&mut self, len: usize, what: &'static str) -> Result<&'a [u8], WireError> {
        let start = self.pos;
        let end = start
            .checked_add(len)
            .filter(|&end| end <= self.buf.len())
            .ok_or(WireError {
                offset: start,
                what,
            })?;
        self.pos = end;
        Ok(&self.buf[start..end])
    }

    /// The next field as `(number, value)`, or `None` at the end of the message.
    pub fn next_field(&mut self) -> Result<Option<(u32, WireValue<'a>)>, WireError> {
        if self.pos >= self.buf.len() {
            return Ok(None);
        }
        let key_offset = self.pos;
        let key = self.varint()?;
        let Some(number) = u32::try_from(key >> 3)
            .ok()
            .filter(|&n| n != 0 && n <= u32::MAX >> 3)
        else {
            return Err(WireError {
                offset: key_offset,
                what: "invalid field number",
            });
        };
        let value = match key & 7 {
            0 => WireValue::Varint(self.varint()?),
            1 => {
                let bytes = self.take(8, "truncated fixed64 field")?;
                WireValue::Fixed64(u64::from_le_bytes(bytes.try_into().unwrap_or([0; 8])))
            }
            2 => {
                let len_offset = self.pos;
                let len = self.varint()?;
                let len = usize::try_from(len)
                    .ok()
                    .filter(|&len| len <= self.buf.len() - self.pos)
                    .ok_or(WireError {
                        offset: len_offset,
                        what: "length-delimited field longer than its message",
                    })?;
                let start = self.pos;
                WireValue::Bytes(self.take(len, "truncated length-delimited field")?, start)
            }
            5 => {
                let bytes = self.take(4, "truncated fixed32 field")?;
                WireValue::Fixed32(u32::from_le_bytes(bytes.try_into().unwrap_or([0; 4])))
            }
            _ => {
                return Err(WireError {
                    offset: key_offset,
                    what: "unsupported wire type",
                });
            }
        };
        Ok(Some((number, value)))
    }
}

/// Reads the first string field `number` of a message without decoding the rest.
pub fn first_string_field(buf: &[u8], number: u32) -> Result<Option<&str>, WireError> {
    let mut reader = FieldReader::new(buf);
    while let Some((field, value)) = reader.next_field()? {
        if let (true, WireValue::Bytes(bytes, offset)) = (field == number, value) {
            return std::str::from_utf8(bytes).map(Some).map_err(|_| WireError {
                offset,
                what: "string is not valid UTF-8",
            });
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_all_wire_types() {
        // field 1 varint 150, field 2 bytes "hi", field 3 fixed32 1, field 4 fixed64 2
        let buf = [
            0x08, 0x96, 0x01, 0x12, 0x02, b'h', b'i', 0x1d, 1, 0, 0, 0, 0x21, 2, 0, 0, 0, 0, 0, 0,
            0,
        ];
        let mut reader = FieldReader::new(&buf);
        assert!(matches!(
            reader.next_field(),
            Ok(Some((1, WireValue::Varint(150))))
        ));
        assert!(matches!(
            reader.next_field(),
            Ok(Some((2, WireValue::Bytes(b"hi", 5))))
        ));
        assert!(matches!(
            reader.next_field(),
            Ok(Some((3, WireValue::Fixed32(1))))
        ));
        assert!(matches!(
            reader.next_field(),
            Ok(Some((4, WireValue::Fixed64(2))))
        ));
        assert!(matches!(reader.next_field(), Ok(None)));
    }

    #[test]
    fn rejects_lengths_past_the_end() {
        let buf = [0x12, 0x7f, b'a'];
        let err = FieldReader::new(&buf).next_field().unwrap_err();
        assert_eq!(err.offset, 1);
    }

    #[test]
    fn rejects_overlong_varints_and_bad_wire_types() {
        let buf = [
            0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,
        ];
        assert!(FieldReader::new(&buf).next_field().is_err());
        let buf = [0x0b];
        assert_eq!(
            FieldReader::new(&buf).next_field().unwrap_err().what,
            "unsupported wire type"
        );
    }
}
