//! Interned strings: every event name is a 4-byte [`StrId`] into one [`StringTable`].

use std::collections::HashMap;

/// An interned string's index in its [`StringTable`]. `StrId(0)` is always the empty string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct StrId(pub u32);

/// A deduplicating string store: each distinct string is held once and named by a [`StrId`].
#[derive(Debug, Clone)]
pub struct StringTable {
    strings: Vec<Box<str>>,
    index: HashMap<Box<str>, u32>,
}

impl Default for StringTable {
    fn default() -> Self {
        Self::new()
    }
}

impl StringTable {
    /// A table holding only the empty string (as `StrId(0)`).
    pub fn new() -> Self {
        let mut table = StringTable {
            strings: Vec::new(),
            index: HashMap::new(),
        };
        table.intern("");
        table
    }

    /// The id of `text`, adding it when it is new.
    pub fn intern(&mut self, text: &str) -> StrId {
        if let Some(&id) = self.index.get(text) {
            return StrId(id);
        }
        let id = u32::try_from(self.strings.len()).unwrap_or(u32::MAX);
        let boxed: Box<str> = text.into();
        self.strings.push(boxed.clone());
        self.index.insert(boxed, id);
        StrId(id)
    }

    /// The id of `text` when it is already interned.
    pub fn lookup(&self, text: &str) -> Option<StrId> {
        self.index.get(text).map(|&id| StrId(id))
    }

    /// The text of `id` (the empty string for an id this table never handed out).
    pub fn get(&self, id: StrId) -> &str {
        self.strings.get(id.0 as usize).map_or("", |s| s)
    }

    /// Number of distinct strings (including the empty string).
    pub fn len(&self) -> usize {
        self.strings.len()
    }

    /// Whether only the empty string is held.
    pub fn is_empty(&self) -> bool {
        self.strings.len() <= 1
    }

    /// Every `(id, text)` pair in id order.
    pub fn iter(&self) -> impl Iterator<Item = (StrId, &str)> {
        self.strings
            .iter()
            .enumerate()
            .map(|(i, s)| (StrId(i as u32), &**s))
    }

    /// Bytes held by the table (text, index entries and their boxes), for memory accounting.
    pub fn heap_bytes(&self) -> usize {
        let text: usize = self.strings.iter().map(|s| s.len()).sum();
        // Each string is stored twice (list + index key) plus the map's slot.
        2 * text + self.strings.capacity() * 16 + self.index.capacity() * 24
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_deduplicates() {
        let mut t = StringTable::new();
        let a = t.intern("kernel");
        let b = t.intern("memcpy");
        assert_eq!(t.intern("kernel"), a);
        assert_ne!(a, b);
        assert_eq!(t.get(b), "memcpy");
        assert_eq!(t.get(StrId(0)), "");
        assert_eq!(t.get(StrId(999)), "");
        assert_eq!(t.lookup("memcpy"), Some(b));
        assert_eq!(t.lookup("nope"), None);
    }
}
