//! Interned strings: every event name is a 4-byte [`StrId`] into one [`StringTable`] (the
//! model's one interner, [`crate::core::intern`]).

pub use crate::core::intern::{StrId, StringTable};

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
