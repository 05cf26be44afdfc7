//! The binary payloads of a timeline's NVTX events, kept as bytes and decoded when asked
//! (details, tooltips, search, `timeline --events`): one arena of bytes and two `u32`s per
//! payload, no decoded text held per event.

use super::{Decoded, PayloadSchemas};

/// The payloads of one export's `NVTX_EVENTS` rows, by rowid, with the schemas that decode
/// them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NvtxPayloads {
    /// The export's payload schemas and enums.
    pub schemas: PayloadSchemas,
    /// Rowids of the rows with a payload, ascending.
    rowids: Vec<u32>,
    /// End of each payload in `bytes` (its start is the previous one's end).
    ends: Vec<u32>,
    /// The `binaryData` values, one after the other.
    bytes: Vec<u8>,
}

impl NvtxPayloads {
    /// An empty store decoding with `schemas`.
    pub fn new(schemas: PayloadSchemas) -> NvtxPayloads {
        NvtxPayloads {
            schemas,
            ..NvtxPayloads::default()
        }
    }

    /// Keeps the payload of row `rowid` (rows in any order; false when the arena is full at
    /// 4 GiB and the payload is not kept).
    pub fn push(&mut self, rowid: u32, binary: &[u8]) -> bool {
        let Some(end) = u32::try_from(self.bytes.len() + binary.len()).ok() else {
            return false;
        };
        if self.rowids.last().is_some_and(|&last| last >= rowid) {
            self.insert_sorted(rowid, binary);
            return true;
        }
        self.bytes.extend_from_slice(binary);
        self.rowids.push(rowid);
        self.ends.push(end);
        true
    }

    /// A payload of a row before the last one kept (exports list NVTX rows by rowid, so this is
    /// rare): the arena is rebuilt in order.
    fn insert_sorted(&mut self, rowid: u32, binary: &[u8]) {
        let mut all: Vec<(u32, Vec<u8>)> = (0..self.rowids.len())
            .filter_map(|i| Some((self.rowids[i], self.at(i)?.to_vec())))
            .filter(|(r, _)| *r != rowid)
            .collect();
        all.push((rowid, binary.to_vec()));
        all.sort_by_key(|(r, _)| *r);
        let schemas = std::mem::take(&mut self.schemas);
        *self = NvtxPayloads::new(schemas);
        for (r, b) in all {
            self.push(r, &b);
        }
    }

    /// Frees the spare capacity once every payload is in.
    pub fn shrink_to_fit(&mut self) {
        self.rowids.shrink_to_fit();
        self.ends.shrink_to_fit();
        self.bytes.shrink_to_fit();
    }

    fn at(&self, i: usize) -> Option<&[u8]> {
        let start = if i == 0 {
            0
        } else {
            *self.ends.get(i - 1)? as usize
        };
        let end = *self.ends.get(i)? as usize;
        self.bytes.get(start..end)
    }

    /// The `binaryData` of row `rowid`, if it has one.
    pub fn binary(&self, rowid: u32) -> Option<&[u8]> {
        let i = self.rowids.binary_search(&rowid).ok()?;
        self.at(i)
    }

    /// The decoded payload of row `rowid`, if it has one.
    pub fn decode(&self, rowid: u32) -> Option<Decoded> {
        self.binary(rowid).map(|b| self.schemas.decode(b))
    }

    /// Number of payloads kept.
    pub fn len(&self) -> usize {
        self.rowids.len()
    }

    /// Whether no payload is kept.
    pub fn is_empty(&self) -> bool {
        self.rowids.is_empty()
    }

    /// Rowids of the rows with a payload, ascending.
    pub fn rowids(&self) -> &[u32] {
        &self.rowids
    }

    /// Bytes held (payloads and index), for the memory accounting.
    pub fn heap_bytes(&self) -> usize {
        self.bytes.capacity() + 4 * (self.rowids.capacity() + self.ends.capacity())
    }
}
