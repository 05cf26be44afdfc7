//! The kernel binary of a source entry: an NVIDIA cubin (ELF64, little endian). Reads its
//! functions (`STT_FUNC` symbols in `.text.*` sections), the raw 16-byte instruction words,
//! and the debug sections the Source page needs (`.debug_line`, `.nv_debug_line_sass`,
//! `.nv_debug_ptx_txt`), with the relocations of the two line programs applied when the
//! report stores an unrelocated cubin (Nsight Compute 2022.3 and later).
//!
//! Nothing here panics on bad input: a section or symbol that does not read is skipped with a
//! warning naming it; only a file that is not an ELF64 at all is an error.

use std::collections::HashMap;

use object::elf::{self, SectionHeader64};
use object::read::elf::{FileHeader, Rel, Rela, SectionHeader, SectionTable, Sym, SymbolTable};
use object::{Endianness, SectionIndex};

use crate::core::num::{index_u32, low_u32, saturating_usize};
use crate::problem::{Location, Problem};

/// Size of one SASS instruction word (Volta and later).
pub const INSTRUCTION_SIZE: u64 = 16;

/// Why a cubin could not be read at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CubinError {
    /// The bytes are not an ELF file object can read.
    #[error("not a readable ELF file ({0})")]
    NotElf(String),
    /// An ELF file, but not the 64-bit little-endian kind cubins are.
    #[error("not a 64-bit little-endian ELF file (a cubin is one)")]
    WrongClass,
}

/// One kernel or device function of the cubin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CubinFunction {
    /// The symbol name (mangled).
    pub name: String,
    /// The symbol's index in `.symtab` (what `RelocationData.Functions[].SymbolIndex` names).
    pub symbol_index: u32,
    /// The index of the section holding its code.
    pub section_index: u32,
    /// The symbol value as stored (absolute in cubins the driver relocated, else 0-based).
    pub value: u64,
    /// The byte offset of the function in its section.
    pub offset: u64,
    /// Size in bytes (the symbol size, else the rest of the section).
    pub size: u64,
    /// Whether the symbol is `STB_WEAK` (device runtime stubs such as
    /// `__cuda_sm70_barrier_sync`).
    pub weak: bool,
}

/// The debug sections of a cubin, with the relocations of the line programs applied.
#[derive(Debug, Clone, Default)]
pub struct DebugSections {
    /// `.debug_line`: SASS offsets to CUDA-C file:line.
    pub debug_line: Option<Vec<u8>>,
    /// `.nv_debug_line_sass`: SASS offsets to PTX lines.
    pub line_sass: Option<Vec<u8>>,
    /// Every `.nv_debug_ptx_txt` section with its name: the PTX of each compilation unit, one
    /// NUL-terminated line each. A cubin linked from several units (`-rdc`) has one per unit,
    /// named `.nv_debug_ptx_txt.<N>`; the file table of `.nv_debug_line_sass` names them.
    pub ptx_texts: Vec<(String, Vec<u8>)>,
}

/// A parsed cubin: its functions and debug sections.
#[derive(Debug, Clone)]
pub struct Cubin {
    data: Vec<u8>,
    abi_version: u8,
    flags: u32,
    functions: Vec<CubinFunction>,
    /// (file offset, size) of each section's bytes, by section index (empty for NOBITS).
    section_ranges: Vec<(usize, usize)>,
    /// Stored value of each symbol and its section index and type, by symbol index.
    symbols: Vec<(u64, u32, u8, String)>,
    /// Relocation sections: (target section index, entries (offset, symbol index, type, addend)).
    relocations: Vec<(u32, Vec<RelocationEntry>)>,
    section_names: Vec<String>,
    problems: Vec<Problem>,
}

type Header = elf::FileHeader64<Endianness>;

/// One relocation: (offset in the target section, symbol index, type, addend for RELA).
type RelocationEntry = (u64, u32, u32, Option<i64>);

impl Cubin {
    /// Reads the ELF structure of `data`. Damaged parts are warnings in
    /// [`Cubin::problems`]; an error only when `data` is no ELF64 file.
    pub fn parse(data: &[u8]) -> Result<Cubin, CubinError> {
        if data.len() >= 5 && &data[..4] == b"\x7fELF" && data[4] != elf::ELFCLASS64 {
            return Err(CubinError::WrongClass);
        }
        let header = Header::parse(data).map_err(|e| CubinError::NotElf(e.to_string()))?;
        let endian = header
            .endian()
            .map_err(|e| CubinError::NotElf(e.to_string()))?;
        if !header.is_little_endian() {
            return Err(CubinError::WrongClass);
        }
        let mut cubin = Cubin {
            data: data.to_vec(),
            abi_version: header.e_ident().abi_version,
            flags: header.e_flags(endian),
            functions: Vec::new(),
            section_ranges: Vec::new(),
            symbols: Vec::new(),
            relocations: Vec::new(),
            section_names: Vec::new(),
            problems: Vec::new(),
        };
        let sections = match header.sections(endian, data) {
            Ok(s) => s,
            Err(e) => {
                cubin.warn(format!(
                    "the section table does not read ({e}): no functions"
                ));
                return Ok(cubin);
            }
        };
        for (index, section) in sections.enumerate() {
            cubin.read_section(&sections, index, section, endian, data);
        }
        match sections.symbols(endian, data, elf::SHT_SYMTAB) {
            Ok(symbols) => {
                cubin.read_symbols(&symbols, endian);
                cubin.read_functions(&symbols, endian);
            }
            Err(e) => cubin.warn(format!(
                "the symbol table does not read ({e}): no functions"
            )),
        }
        Ok(cubin)
    }

    /// Records one section: its name, its byte range (empty for NOBITS or when it lies outside
    /// the file) and, for a relocation section, its entries.
    fn read_section(
        &mut self,
        sections: &SectionTable<'_, Header>,
        index: SectionIndex,
        section: &SectionHeader64<Endianness>,
        endian: Endianness,
        data: &[u8],
    ) {
        let name = sections
            .section_name(endian, section)
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .unwrap_or_default();
        let range = if section.sh_type(endian) == elf::SHT_NOBITS {
            (0, 0)
        } else {
            let offset = section.sh_offset(endian);
            let size = section.sh_size(endian);
            match (usize::try_from(offset), usize::try_from(size)) {
                (Ok(o), Ok(s)) if o.checked_add(s).is_some_and(|end| end <= data.len()) => (o, s),
                _ => {
                    self.warn(format!(
                        "section {} ({name}) lies outside the file (offset {offset}, size \
                         {size}); it was skipped",
                        index.0
                    ));
                    (0, 0)
                }
            }
        };
        self.section_ranges.push(range);
        self.section_names.push(name.clone());
        if let Some(entries) = self.relocation_entries(&name, section, endian, data) {
            self.relocations.push((section.sh_info(endian), entries));
        }
    }

    /// The entries of a REL or RELA section (`None` for other sections, or with a warning
    /// when they do not read).
    fn relocation_entries(
        &mut self,
        name: &str,
        section: &SectionHeader64<Endianness>,
        endian: Endianness,
        data: &[u8],
    ) -> Option<Vec<RelocationEntry>> {
        let rels = match section.rel(endian, data) {
            Ok(Some((rels, _))) => Some(
                rels.iter()
                    .map(|r| (r.r_offset(endian), r.r_sym(endian), r.r_type(endian), None))
                    .collect::<Vec<_>>(),
            ),
            Ok(None) => None,
            Err(e) => {
                self.warn(format!("relocation section {name} does not read ({e})"));
                None
            }
        };
        let relas = match section.rela(endian, data) {
            Ok(Some((relas, _))) => Some(
                relas
                    .iter()
                    .map(|r| {
                        (
                            r.r_offset(endian),
                            r.r_sym(endian, false),
                            r.r_type(endian, false),
                            Some(r.r_addend(endian)),
                        )
                    })
                    .collect::<Vec<_>>(),
            ),
            Ok(None) => None,
            Err(e) => {
                self.warn(format!("relocation section {name} does not read ({e})"));
                None
            }
        };
        rels.or(relas)
    }

    /// Records the value, section index, type and name of every symbol.
    fn read_symbols(&mut self, symbols: &SymbolTable<'_, Header>, endian: Endianness) {
        for symbol in symbols.symbols() {
            let name = symbols
                .symbol_name(endian, symbol)
                .map(|n| String::from_utf8_lossy(n).into_owned())
                .unwrap_or_default();
            self.symbols.push((
                symbol.st_value(endian),
                u32::from(symbol.st_shndx(endian)),
                symbol.st_type(),
                name,
            ));
        }
    }

    /// Records the functions (`STT_FUNC` symbols), with their offset and size in their
    /// section; a function whose section does not exist is skipped with a warning.
    fn read_functions(&mut self, symbols: &SymbolTable<'_, Header>, endian: Endianness) {
        // The first STT_SECTION symbol of each section: its load address in cubins the
        // driver relocated.
        let mut section_values: HashMap<u32, u64> = HashMap::new();
        for (value, shndx, ty, _) in &self.symbols {
            if *ty == elf::STT_SECTION {
                section_values.entry(*shndx).or_insert(*value);
            }
        }
        for (index, symbol) in symbols.symbols().iter().enumerate() {
            if symbol.st_type() != elf::STT_FUNC {
                continue;
            }
            let (value, shndx, _, name) = &self.symbols[index];
            let shndx = *shndx;
            let Some(&(_, section_size)) = self.section_ranges.get(shndx as usize) else {
                let message = format!(
                    "function {name} names section {shndx}, which does not exist; it was skipped"
                );
                self.warn(message);
                continue;
            };
            let base = section_values.get(&shndx).copied().unwrap_or(0);
            let offset = value.wrapping_sub(base);
            let offset = if offset <= section_size as u64 {
                offset
            } else {
                0
            };
            let mut size = symbol.st_size(endian);
            if size == 0 || offset.saturating_add(size) > section_size as u64 {
                size = section_size as u64 - offset;
            }
            self.functions.push(CubinFunction {
                name: name.clone(),
                // ELF symbol indices are 32-bit (a relocation's `r_sym`).
                symbol_index: index_u32(index),
                section_index: shndx,
                value: *value,
                offset,
                size,
                weak: symbol.st_bind() == elf::STB_WEAK,
            });
        }
    }

    fn warn(&mut self, message: String) {
        self.problems
            .push(Problem::warning(Location::Part("cubin".into()), message));
    }

    /// The ELF ABI version (`e_ident[EI_ABIVERSION]`: 7 up to sm_90, 8 for sm_100 and later).
    pub fn abi_version(&self) -> u8 {
        self.abi_version
    }

    /// The ELF header flags (they encode the SM version, differently per ABI version).
    pub fn flags(&self) -> u32 {
        self.flags
    }

    /// The SM version the flags name (`(major, minor)`), for ABI version 7; `None` otherwise.
    pub fn sm_from_flags(&self) -> Option<(u32, u32)> {
        if self.abi_version != 7 {
            return None;
        }
        let sm = self.flags & 0xff;
        (sm >= 30).then_some((sm / 10, sm % 10))
    }

    /// The functions, in symbol-table order.
    pub fn functions(&self) -> &[CubinFunction] {
        &self.functions
    }

    /// The function with this (mangled) symbol name.
    pub fn function(&self, name: &str) -> Option<&CubinFunction> {
        self.functions.iter().find(|f| f.name == name)
    }

    /// The functions `function`'s code references through relocations (calls to
    /// non-inlined device functions), and theirs, transitively; `function` itself and weak
    /// symbols (device runtime stubs, which NVIDIA's page does not list) excluded, and so are
    /// copies whose address is not known: in a cubin the driver relocated (before 2022.3)
    /// several sections may hold a copy of one internal function
    /// (`__cuda_sm20_rcp_rn_f32_slowpath` in nine sections of the 2021.1 raytracer report), every
    /// copy's symbol carrying the first copy's address while the code calling a later copy
    /// jumps elsewhere; NVIDIA's page lists none of the later copies.
    pub fn callees(&self, function: &CubinFunction) -> Vec<&CubinFunction> {
        let mut first_at: HashMap<u64, u32> = HashMap::new();
        for f in self.functions.iter().filter(|f| f.value != 0) {
            let first = first_at.entry(f.value).or_insert(f.section_index);
            *first = (*first).min(f.section_index);
        }
        let by_symbol: HashMap<u32, &CubinFunction> = self
            .functions
            .iter()
            .filter(|f| !f.weak)
            .filter(|f| f.value == 0 || first_at.get(&f.value) == Some(&f.section_index))
            .map(|f| (f.symbol_index, f))
            .collect();
        let mut by_target: HashMap<u32, Vec<&[RelocationEntry]>> = HashMap::new();
        for (target, entries) in &self.relocations {
            by_target.entry(*target).or_default().push(entries);
        }
        let mut seen = std::collections::HashSet::from([function.symbol_index]);
        let mut queue = vec![function];
        let mut out = Vec::new();
        while let Some(f) = queue.pop() {
            for entries in by_target.get(&f.section_index).into_iter().flatten() {
                for &(_, symbol, _, _) in entries.iter() {
                    if let Some(&callee) = by_symbol.get(&symbol)
                        && seen.insert(symbol)
                    {
                        out.push(callee);
                        queue.push(callee);
                    }
                }
            }
        }
        out
    }

    /// What was skipped while reading.
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// The bytes of a section by name.
    pub fn section_data(&self, name: &str) -> Option<&[u8]> {
        let index = self.section_names.iter().position(|n| n == name)?;
        let (offset, size) = self.section_ranges[index];
        self.data.get(offset..offset + size)
    }

    /// The code bytes of a function.
    pub fn code(&self, function: &CubinFunction) -> &[u8] {
        let Some(&(offset, size)) = self.section_ranges.get(function.section_index as usize) else {
            return &[];
        };
        // Saturated, then bounded by the section: an offset past it gives no bytes.
        let start = offset.saturating_add(saturating_usize(function.offset));
        let end = start
            .saturating_add(saturating_usize(function.size))
            .min(offset + size);
        self.data.get(start..end).unwrap_or(&[])
    }

    /// The debug sections, relocated with `symbol_address` (the load address of a symbol by
    /// index) when `relocate` is set. Relocations of unknown types or symbols leave the stored
    /// value and add a warning to `problems`.
    pub fn debug_sections(
        &self,
        relocate: bool,
        symbol_address: &dyn Fn(u32) -> Option<u64>,
        problems: &mut Vec<Problem>,
    ) -> DebugSections {
        let mut out = DebugSections::default();
        for (name, slot) in [
            (".debug_line", &mut out.debug_line),
            (".nv_debug_line_sass", &mut out.line_sass),
        ] {
            let Some(index) = self.section_names.iter().position(|n| n == name) else {
                continue;
            };
            let Some(bytes) = self.section_data(name) else {
                continue;
            };
            let mut bytes = bytes.to_vec();
            if relocate {
                let mut first_in_section: HashMap<u32, &CubinFunction> = HashMap::new();
                for f in &self.functions {
                    first_in_section.entry(f.section_index).or_insert(f);
                }
                let target_of =
                    |symbol: u32| self.relocation_target(symbol, symbol_address, &first_in_section);
                for (target, entries) in &self.relocations {
                    if *target as usize != index {
                        continue;
                    }
                    self.apply(name, &mut bytes, entries, &target_of, problems);
                }
            }
            *slot = Some(bytes);
        }
        out.ptx_texts = self
            .section_names
            .iter()
            .filter(|n| is_ptx_text(n))
            .filter_map(|n| Some((n.clone(), self.section_data(n)?.to_vec())))
            .collect();
        out
    }

    fn apply(
        &self,
        section: &str,
        bytes: &mut [u8],
        entries: &[RelocationEntry],
        target_of: &dyn Fn(u32) -> Option<u64>,
        problems: &mut Vec<Problem>,
    ) {
        // By type, so the warnings come in the same order every time.
        let mut unknown: std::collections::BTreeMap<u32, usize> = std::collections::BTreeMap::new();
        for &(offset, symbol, kind, addend) in entries {
            // R_CUDA_32 (1) and R_CUDA_64 (2): absolute addresses.
            let width = match kind {
                1 => 4,
                2 => 8,
                _ => {
                    *unknown.entry(kind).or_default() += 1;
                    continue;
                }
            };
            let Some(at) = usize::try_from(offset).ok() else {
                continue;
            };
            let Some(slot) = bytes.get_mut(at..at.saturating_add(width)) else {
                problems.push(Problem::warning(
                    Location::Part(section.into()),
                    format!("a relocation at offset {offset} lies outside {section}; skipped"),
                ));
                continue;
            };
            let stored = if width == 8 {
                let mut b = [0u8; 8];
                b.copy_from_slice(slot);
                u64::from_le_bytes(b)
            } else {
                let mut b = [0u8; 4];
                b.copy_from_slice(slot);
                u64::from(u32::from_le_bytes(b))
            };
            let Some(address) = target_of(symbol) else {
                let name = self
                    .symbols
                    .get(symbol as usize)
                    .map_or("?", |s| s.3.as_str());
                problems.push(Problem::warning(
                    Location::Part(section.into()),
                    format!(
                        "no load address for symbol {symbol} ({name}) named by a relocation of \
                         {section}: its line rows keep their unrelocated addresses"
                    ),
                ));
                continue;
            };
            let value = address.wrapping_add(addend.map_or(stored, |a| a as u64));
            if width == 8 {
                slot.copy_from_slice(&value.to_le_bytes());
            } else {
                // A 32-bit slot holds the address's low 32 bits.
                slot.copy_from_slice(&low_u32(value).to_le_bytes());
            }
        }
        for (kind, count) in unknown {
            problems.push(Problem::warning(
                Location::Part(section.into()),
                format!("{count} relocation(s) of unknown type {kind} in {section} were ignored"),
            ));
        }
    }

    /// The load address of a relocation's symbol: a function's, or a section symbol's (the
    /// load address of the function at the start of that section).
    fn relocation_target(
        &self,
        symbol: u32,
        symbol_address: &dyn Fn(u32) -> Option<u64>,
        first_in_section: &HashMap<u32, &CubinFunction>,
    ) -> Option<u64> {
        if let Some(address) = symbol_address(symbol) {
            return Some(address);
        }
        let (_, shndx, ty, _) = self.symbols.get(symbol as usize)?;
        if *ty != elf::STT_SECTION {
            return None;
        }
        let function = first_in_section.get(shndx)?;
        symbol_address(function.symbol_index).map(|a| a.wrapping_sub(function.offset))
    }
}

/// Whether a section holds PTX text: `.nv_debug_ptx_txt`, or `.nv_debug_ptx_txt.<N>` in a cubin
/// linked from several compilation units.
fn is_ptx_text(name: &str) -> bool {
    name.strip_prefix(".nv_debug_ptx_txt")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}
