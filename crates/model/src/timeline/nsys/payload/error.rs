//! Why a payload stopped decoding: the reason shown beside its raw bytes and in the warning.

/// Why a payload (or one of its entries) could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum DecodeError {
    /// An alignment that does not fit in memory.
    #[error("alignment {0}")]
    Alignment(u64),
    /// An offset past what memory can address.
    #[error("offset {0} overflows")]
    OffsetOverflow(u64),
    /// An offset that does not fit in memory.
    #[error("offset {0}")]
    Offset(u64),
    /// A pointer's target past what memory can address.
    #[error("offset overflows")]
    PointerOverflow,
    /// A pointer's relative offset that does not fit in memory.
    #[error("offset too large")]
    PointerTooLarge,
    /// A length that does not fit in memory.
    #[error("length {0}")]
    Length(u64),
    /// Bytes past the end of the payload.
    #[error("{len} bytes at offset {at} are past the payload's {size} bytes")]
    PastEnd {
        /// Bytes asked for.
        len: u64,
        /// Where.
        at: usize,
        /// The payload's size.
        size: usize,
    },
    /// An integer wider than 16 bytes.
    #[error("a {0}-byte integer")]
    IntSize(u64),
    /// More values than one payload may hold (see the decoder's `MAX_VALUES`).
    #[error("more than {0} values in one payload")]
    TooManyValues(u32),
    /// Schemas nested deeper than the decoder follows.
    #[error("schemas nested deeper than {0}")]
    TooDeep(usize),
    /// The same, found while computing an alignment.
    #[error("schemas nested too deeply")]
    TooDeepForAlignment,
    /// A problem inside one entry.
    #[error("{entry}: {source}")]
    InEntry {
        /// The entry's name.
        entry: String,
        /// What went wrong there.
        source: Box<DecodeError>,
    },
    /// A union with an internal selector that lists none.
    #[error("a union with an internal selector has no selector entry")]
    NoSelector,
    /// A union selector that names no entry.
    #[error("the union selector names entry {0}, which is none")]
    SelectorNamesNone(u128),
    /// A union selector with no member of that index.
    #[error("the union selector is {0}, no member has that index")]
    NoUnionMember(u64),
    /// An array whose length is in another payload of the event.
    #[error("the array's length is in another payload of the event")]
    LengthInOtherPayload,
    /// An array kind the extension does not define.
    #[error("array kind {0} is not defined")]
    ArrayKind(u64),
    /// An array kind that does not apply to a string.
    #[error("array kind {0} for a string")]
    StringArrayKind(u64),
    /// An array longer than the decoder reads.
    #[error("an array longer than {0} items")]
    ArrayTooLong(usize),
    /// An array of items that take no bytes.
    #[error("an array of zero-sized items")]
    ZeroSizedItems,
    /// A type that is neither predefined nor a schema or enum of the domain.
    #[error("type {ty} is not a predefined type, nor a schema or enum of domain {domain}")]
    UnknownType {
        /// The type.
        ty: u64,
        /// The payload's domain.
        domain: u64,
    },
    /// A length or selector entry that holds no integer.
    #[error("entry {0} does not hold an integer")]
    NotInteger(u64),
    /// A length or selector entry not read before the entry that needs it.
    #[error("entry {0} is not read before this one")]
    NotReadYet(u64),
    /// A string length past what memory can address.
    #[error("string length overflows")]
    StringLengthOverflow,
    /// A zero-terminated string without its terminator.
    #[error("a zero-terminated string without its terminator")]
    Unterminated,
    /// A list of strings longer than the decoder reads.
    #[error("a list of more than 65536 strings")]
    TooManyStrings,
}
