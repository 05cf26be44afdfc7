//! One string interner for every reader: each distinct string held once and named by a 4-byte
//! [`StrId`] (event names of the timeline, NVTXT messages, ATP API and kernel names, the nsys
//! trace's text cells).

use std::sync::Arc;

use rustc_hash::FxHashMap;

/// An interned string's index in its [`StringTable`]. `StrId(0)` ([`StrId::EMPTY`]) is always
/// the empty string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct StrId(pub u32);

impl StrId {
    /// The empty string, present in every table.
    pub const EMPTY: StrId = StrId(0);
}

/// A deduplicating string store: each distinct string is held once (shared by the list and
/// the index) and named by a [`StrId`] in the order strings were first interned.
#[derive(Debug, Clone)]
pub struct StringTable {
    texts: Vec<Arc<str>>,
    index: FxHashMap<Arc<str>, u32>,
}

impl Default for StringTable {
    fn default() -> Self {
        Self::new()
    }
}

impl StringTable {
    /// A table holding only the empty string (as [`StrId::EMPTY`]).
    pub fn new() -> Self {
        let empty: Arc<str> = Arc::from("");
        let mut index = FxHashMap::default();
        index.insert(empty.clone(), 0);
        StringTable {
            texts: vec![empty],
            index,
        }
    }

    /// The id of `text`, adding it when it is new. A table that already holds 2³² − 1 strings
    /// takes no new one: it answers [`StrId::EMPTY`] rather than wrap.
    pub fn intern(&mut self, text: &str) -> StrId {
        if let Some(&id) = self.index.get(text) {
            return StrId(id);
        }
        let Ok(id) = u32::try_from(self.texts.len()) else {
            return StrId::EMPTY;
        };
        if id == u32::MAX {
            return StrId::EMPTY;
        }
        let shared: Arc<str> = Arc::from(text);
        self.texts.push(shared.clone());
        self.index.insert(shared, id);
        StrId(id)
    }

    /// The id of `text` when it is already interned.
    pub fn lookup(&self, text: &str) -> Option<StrId> {
        self.index.get(text).map(|&id| StrId(id))
    }

    /// The text of `id` (the empty string for an id this table never handed out).
    pub fn get(&self, id: StrId) -> &str {
        self.texts.get(id.0 as usize).map_or("", |text| text)
    }

    /// Number of distinct strings (the empty string included).
    pub fn len(&self) -> usize {
        self.texts.len()
    }

    /// Whether only the empty string is held.
    pub fn is_empty(&self) -> bool {
        self.texts.len() <= 1
    }

    /// Every `(id, text)` pair in id order, the empty string first.
    pub fn iter(&self) -> impl Iterator<Item = (StrId, &str)> {
        self.texts
            .iter()
            .enumerate()
            .map(|(i, text)| (StrId(super::num::index_u32(i)), &**text))
    }

    /// Bytes held by the table (the text once, each string's shared header, the list's and
    /// the index's slots), for memory accounting.
    pub fn heap_bytes(&self) -> usize {
        let text: usize = self.texts.iter().map(|s| s.len()).sum();
        // An `Arc<str>` is a 16-byte pointer to 16 bytes of counts before the text; an index
        // slot holds a pointer and a u32 (24 bytes with padding).
        text + self.texts.len() * 16 + self.texts.capacity() * 16 + self.index.capacity() * 24
    }
}

#[cfg(test)]
mod tests {
    use super::{StrId, StringTable};

    #[test]
    fn the_empty_string_is_id_zero_and_ids_follow_first_use() {
        let mut t = StringTable::new();
        assert_eq!(t.intern(""), StrId::EMPTY);
        let a = t.intern("alpha");
        let b = t.intern("beta");
        assert_eq!((a, b), (StrId(1), StrId(2)));
        assert_eq!(t.intern("alpha"), a);
        assert_eq!(t.len(), 3);
        assert!(!t.is_empty());
        assert_eq!(t.get(b), "beta");
        assert_eq!(t.lookup("beta"), Some(b));
        assert_eq!(t.lookup("gamma"), None);
        let all: Vec<(StrId, &str)> = t.iter().collect();
        assert_eq!(all, vec![(StrId(0), ""), (a, "alpha"), (b, "beta")]);
    }

    #[test]
    fn an_unknown_id_reads_as_empty() {
        let t = StringTable::default();
        assert!(t.is_empty());
        assert_eq!(t.get(StrId(7)), "");
        assert!(t.heap_bytes() > 0);
    }
}
