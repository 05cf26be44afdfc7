//! The PTX a cubin carries in `.nv_debug_ptx_txt` (built with `-lineinfo` or `-G`): the
//! module's PTX, one NUL-terminated line each, as nvcc stored it (comments already emptied,
//! indentation removed). `.nv_debug_line_sass` numbers these lines.

/// The module's PTX lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PtxText {
    lines: Vec<String>,
}

impl PtxText {
    /// No lines.
    pub const EMPTY: PtxText = PtxText { lines: Vec::new() };

    /// Splits the section at NUL bytes; the terminator of the last line adds no line.
    /// Invalid UTF-8 is replaced, never fatal.
    pub fn parse(bytes: &[u8]) -> PtxText {
        let mut parts: Vec<&[u8]> = bytes.split(|b| *b == 0).collect();
        if parts.last().is_some_and(|p| p.is_empty()) {
            parts.pop();
        }
        PtxText {
            lines: parts
                .into_iter()
                .map(|p| String::from_utf8_lossy(p).into_owned())
                .collect(),
        }
    }

    /// All lines (line 1 first).
    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    /// The text of 1-based line `line`.
    pub fn line(&self, line: u32) -> Option<&str> {
        let index = usize::try_from(line).ok()?.checked_sub(1)?;
        self.lines.get(index).map(String::as_str)
    }

    /// Whether the module stored no PTX.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }
}
