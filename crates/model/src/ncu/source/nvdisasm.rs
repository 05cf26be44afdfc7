//! SASS text from NVIDIA's disassembler (placeholder until wired).

use std::collections::HashMap;

/// Disassembled instructions by absolute PC.
#[derive(Debug, Clone, Default)]
pub struct Disassembly {
    by_pc: HashMap<u64, String>,
}

impl Disassembly {
    /// The text of the instruction at `pc`.
    pub fn text(&self, pc: u64) -> Option<&str> {
        self.by_pc.get(&pc).map(String::as_str)
    }
}
