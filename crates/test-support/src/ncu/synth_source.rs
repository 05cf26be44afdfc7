//! Synthetic kernel binaries and reports for the Source page: a small hand-built cubin (ELF64,
//! `EM_CUDA`) with `.text.<function>` sections, a `.debug_line` program written with
//! `gimli::write` (rows to CUDA-C file:line, several rows at one address where asked), an
//! optional `.nv_debug_line_sass` + `.nv_debug_ptx_txt`, call relocations between functions,
//! and — for the unrelocated layout of Nsight Compute 2022.3 and later — `.rel.debug_line`
//! entries against the function symbols. [`write_source_report`] wraps it in a report with
//! imported source files, relocation data and per-PC metrics.

use std::io::{self, Write};

use gimli::write::{
    Address, DebugLine, DebugLineStrOffsets, DebugStrOffsets, EndianVec, LineProgram, LineString,
};
use gimli::{Encoding, Format, LineEncoding, LittleEndian};
use object::Endianness;
use object::elf;
use object::write::StringId;
use object::write::elf::{FileHeader, Rel, SectionHeader, SectionIndex, Sym, Writer as ElfWriter};

use super::synth::{KernelSpec, instanced, kernel_message, session_details};
use super::writer::ReportWriter;
use sightline_model::ncu::MetricValue;
use sightline_model::proto::nv::profiler::messages as pb;
use sightline_model::proto::nv::profiler::{
    ProfilerSection, ProfilerSectionMetric, ProfilerSectionMetrics,
};

/// One function of a synthetic cubin.
#[derive(Debug, Clone)]
pub struct FunctionSpec {
    /// Symbol name.
    pub name: String,
    /// Number of 16-byte instructions (filled with a recognizable pattern).
    pub instructions: u32,
    /// `STB_WEAK` instead of `STB_GLOBAL`.
    pub weak: bool,
}

/// One line-table row: function index, byte offset in it, file index, line.
pub type RowSpec = (usize, u64, usize, u64);

/// A synthetic cubin.
#[derive(Debug, Clone)]
pub struct CubinSpec {
    /// `(major, minor)`: ELF flags carry `major * 10 + minor` (ABI 7).
    pub sm: (u32, u32),
    /// `e_ident[EI_ABIVERSION]` (7 up to sm_90, 8 from sm_100).
    pub abi_version: u8,
    /// The functions, one `.text.<name>` section each.
    pub functions: Vec<FunctionSpec>,
    /// Load addresses: `Some` writes a relocated cubin (absolute symbol values and line
    /// addresses, as before 2022.3); `None` an unrelocated one with `.rel.debug_line`.
    pub absolute: Option<Vec<u64>>,
    /// `(directory, file name)` of the line table's files.
    pub files: Vec<(String, String)>,
    /// `.debug_line` rows (in program order per function); none: no `.debug_line`.
    pub rows: Vec<RowSpec>,
    /// PTX lines and `.nv_debug_line_sass` rows (file index ignored); `None`: no PTX.
    pub ptx: Option<(Vec<String>, Vec<RowSpec>)>,
    /// As a cubin linked from several compilation units (`-rdc`): another unit's PTX lines,
    /// written first as `.nv_debug_ptx_txt.1111`, while [`CubinSpec::ptx`] becomes
    /// `.nv_debug_ptx_txt.2222`, the file `.nv_debug_line_sass` names. `None`: one unit
    /// (`.nv_debug_ptx_txt`, the line program naming `/build/module.ptx`).
    pub other_unit_ptx: Option<Vec<String>>,
    /// `(caller, callee)` function indices: a call relocation in the caller's text.
    pub calls: Vec<(usize, usize)>,
}

/// A writer for gimli that records `Address::Symbol` operands as relocations.
struct RelocWriter {
    out: EndianVec<LittleEndian>,
    relocations: Vec<(u64, usize, i64)>,
}

impl gimli::write::Writer for RelocWriter {
    type Endian = LittleEndian;
    fn endian(&self) -> LittleEndian {
        LittleEndian
    }
    fn len(&self) -> usize {
        self.out.len()
    }
    fn write(&mut self, bytes: &[u8]) -> gimli::write::Result<()> {
        self.out.write(bytes)
    }
    fn write_at(&mut self, offset: usize, bytes: &[u8]) -> gimli::write::Result<()> {
        self.out.write_at(offset, bytes)
    }
    fn write_address(&mut self, address: Address, size: u8) -> gimli::write::Result<()> {
        match address {
            Address::Constant(value) => self.write_udata(value, size),
            Address::Symbol { symbol, addend } => {
                self.relocations
                    .push((self.out.len() as u64, symbol, addend));
                self.write_udata(0, size)
            }
        }
    }
}

/// Writes a line program of `rows` for `functions`; addresses are absolute when `absolute`,
/// else symbol-relative (recorded as relocations against function `symbol` = index).
fn line_program(
    files: &[(String, String)],
    rows: &[RowSpec],
    absolute: Option<&[u64]>,
    sizes: &[u64],
) -> (Vec<u8>, Vec<(u64, usize, i64)>) {
    let encoding = Encoding {
        format: Format::Dwarf32,
        version: 2,
        address_size: 8,
    };
    let line_encoding = LineEncoding {
        minimum_instruction_length: 1,
        maximum_operations_per_instruction: 1,
        default_is_stmt: true,
        line_base: -5,
        line_range: 14,
    };
    let first = files
        .first()
        .map_or("unknown.cu".to_owned(), |f| f.1.clone());
    let mut program = LineProgram::new(
        encoding,
        line_encoding,
        LineString::String(b"/build".to_vec()),
        None,
        LineString::String(first.into_bytes()),
        None,
    );
    let ids: Vec<_> = files
        .iter()
        .map(|(dir, name)| {
            let dir = program.add_directory(LineString::String(dir.clone().into_bytes()));
            program.add_file(LineString::String(name.clone().into_bytes()), dir, None)
        })
        .collect();
    for (function, &size) in sizes.iter().enumerate() {
        let mine: Vec<&RowSpec> = rows.iter().filter(|r| r.0 == function).collect();
        if mine.is_empty() {
            continue;
        }
        let start = match absolute {
            Some(addresses) => Address::Constant(addresses[function]),
            None => Address::Symbol {
                symbol: function,
                addend: 0,
            },
        };
        program.begin_sequence(Some(start));
        for &&(_, offset, file, line) in &mine {
            let row = program.row();
            row.address_offset = offset;
            row.file = ids[file.min(ids.len() - 1)];
            row.line = line;
            program.generate_row();
        }
        // The sequence ends after the function's last instruction, as nvcc writes it.
        program.end_sequence(size);
    }
    let mut debug_line = DebugLine(RelocWriter {
        out: EndianVec::new(LittleEndian),
        relocations: Vec::new(),
    });
    // A program that cannot be written is a bug in the spec: an empty section shows it.
    let _ = program.write(
        &mut debug_line,
        encoding,
        &DebugLineStrOffsets::none(),
        &DebugStrOffsets::none(),
    );
    let writer = debug_line.0;
    (writer.out.into_vec(), writer.relocations)
}

/// The code of function `index`: `instructions` 16-byte words with a recognizable pattern.
fn code(index: usize, instructions: u32) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..instructions {
        let mut word = [0u8; 16];
        word[0] = 0x18; // NOP-like opcode bits; the content is never executed.
        word[1] = 0x79;
        word[8] = index as u8;
        word[9] = i as u8;
        out.extend_from_slice(&word);
    }
    out
}

/// A line-program relocation: (offset in the section, function index, addend).
type LineRelocation = (u64, usize, i64);

/// The contents of a cubin's sections, before layout.
struct Payloads {
    debug_line: Vec<u8>,
    line_relocs: Vec<LineRelocation>,
    line_sass: Vec<u8>,
    sass_relocs: Vec<LineRelocation>,
    ptx_text: Vec<u8>,
    /// The other unit's PTX ([`CubinSpec::other_unit_ptx`]; empty: none).
    other_ptx_text: Vec<u8>,
    /// The code of each function.
    codes: Vec<Vec<u8>>,
    /// `.text.<name>` of each function.
    text_names: Vec<Vec<u8>>,
    /// `.rel.text.<name>` of each function.
    rel_text_names: Vec<Vec<u8>>,
}

impl Payloads {
    /// The line programs, PTX text, code and section names `spec` describes.
    fn of(spec: &CubinSpec) -> Payloads {
        let sizes: Vec<u64> = spec
            .functions
            .iter()
            .map(|f| 16 * u64::from(f.instructions))
            .collect();
        let (debug_line, line_relocs) = if spec.rows.is_empty() {
            (Vec::new(), Vec::new())
        } else {
            line_program(&spec.files, &spec.rows, spec.absolute.as_deref(), &sizes)
        };
        let (line_sass, sass_relocs, ptx_text) = match &spec.ptx {
            Some((lines, rows)) => {
                let ptx_file = if spec.other_unit_ptx.is_some() {
                    vec![(".".to_owned(), ".nv_debug_ptx_txt.2222".to_owned())]
                } else {
                    vec![("/build".to_owned(), "module.ptx".to_owned())]
                };
                let (bytes, relocs) =
                    line_program(&ptx_file, rows, spec.absolute.as_deref(), &sizes);
                (bytes, relocs, nul_terminated(lines))
            }
            None => (Vec::new(), Vec::new(), Vec::new()),
        };
        let names = |prefix: &str| {
            spec.functions
                .iter()
                .map(|f| format!("{prefix}{}", f.name).into_bytes())
                .collect()
        };
        Payloads {
            debug_line,
            line_relocs,
            line_sass,
            sass_relocs,
            ptx_text,
            other_ptx_text: spec
                .other_unit_ptx
                .as_deref()
                .map(nul_terminated)
                .unwrap_or_default(),
            codes: spec
                .functions
                .iter()
                .enumerate()
                .map(|(i, f)| code(i, f.instructions))
                .collect(),
            text_names: names(".text."),
            rel_text_names: names(".rel.text."),
        }
    }
}

/// The names and indices of a cubin's sections and symbols and the offsets of their
/// contents, as reserved in the writer.
struct Layout {
    symtab: SectionIndex,
    with_lines: bool,
    with_ptx: bool,
    /// Whether the line programs get `.rel.*` sections (an unrelocated cubin).
    relocate: bool,
    debug_line_name: StringId,
    line_sass_name: StringId,
    ptx_name: StringId,
    other_ptx_name: Option<StringId>,
    debug_line_index: Option<SectionIndex>,
    line_sass_index: Option<SectionIndex>,
    text_ids: Vec<StringId>,
    text_index: Vec<SectionIndex>,
    rel_line_name: StringId,
    rel_sass_name: StringId,
    rel_line_index: Option<SectionIndex>,
    rel_sass_index: Option<SectionIndex>,
    /// The functions that call others, in index order.
    callers: Vec<usize>,
    /// `(caller, name, index)` of each caller's `.rel.text.*` section.
    rel_text: Vec<(usize, StringId, SectionIndex)>,
    /// The name of each function symbol.
    names: Vec<StringId>,
    /// The symbol index of each function.
    function_symbol: Vec<u32>,
    /// The number of local symbols (null and section symbols).
    num_local: u32,
    debug_line_offset: usize,
    line_sass_offset: usize,
    ptx_offset: usize,
    other_ptx_offset: usize,
    text_offsets: Vec<usize>,
    rel_line_offset: usize,
    rel_sass_offset: usize,
    rel_text_offsets: Vec<usize>,
}

/// The bytes of the cubin `spec` describes.
pub fn cubin(spec: &CubinSpec) -> Vec<u8> {
    let payloads = Payloads::of(spec);
    let mut buffer = Vec::new();
    let mut w = ElfWriter::new(Endianness::Little, true, &mut buffer);
    let layout = reserve(&mut w, spec, &payloads);
    write_header(&mut w, spec);
    write_contents(&mut w, spec, &payloads, &layout);
    write_relocations(&mut w, spec, &payloads, &layout);
    write_section_headers(&mut w, spec, &payloads, &layout);
    buffer
}

/// Reserves the file layout: section indices and names, symbols, then the contents' offsets.
fn reserve<'a>(w: &mut ElfWriter<'a>, spec: &'a CubinSpec, payloads: &'a Payloads) -> Layout {
    w.reserve_file_header();
    w.reserve_null_section_index();
    w.reserve_shstrtab_section_index();
    w.reserve_strtab_section_index();
    let symtab = w.reserve_symtab_section_index();
    let with_lines = !payloads.debug_line.is_empty();
    let with_ptx = spec.ptx.is_some();
    let debug_line_name = w.add_section_name(b".debug_line");
    let line_sass_name = w.add_section_name(b".nv_debug_line_sass");
    let other_unit = spec.other_unit_ptx.is_some() && with_ptx;
    let other_ptx_name = other_unit.then(|| w.add_section_name(b".nv_debug_ptx_txt.1111"));
    let ptx_name = w.add_section_name(if other_unit {
        b".nv_debug_ptx_txt.2222".as_slice()
    } else {
        b".nv_debug_ptx_txt".as_slice()
    });
    let debug_line_index = with_lines.then(|| w.reserve_section_index());
    let line_sass_index = with_ptx.then(|| w.reserve_section_index());
    // `.nv_debug_ptx_txt` has no relocations: its index is only reserved.
    let _other_ptx_index = other_unit.then(|| w.reserve_section_index());
    let _ptx_index = with_ptx.then(|| w.reserve_section_index());
    let text_ids: Vec<_> = payloads
        .text_names
        .iter()
        .map(|n| w.add_section_name(n))
        .collect();
    let text_index: Vec<_> = payloads
        .codes
        .iter()
        .map(|_| w.reserve_section_index())
        .collect();
    let relocate = spec.absolute.is_none();
    let rel_line_name = w.add_section_name(b".rel.debug_line");
    let rel_sass_name = w.add_section_name(b".rel.nv_debug_line_sass");
    let rel_line_index = (relocate && with_lines).then(|| w.reserve_section_index());
    let rel_sass_index = (relocate && with_ptx).then(|| w.reserve_section_index());
    let mut callers: Vec<usize> = spec.calls.iter().map(|c| c.0).collect();
    callers.sort_unstable();
    callers.dedup();
    let rel_text = callers
        .iter()
        .map(|&c| {
            (
                c,
                w.add_section_name(&payloads.rel_text_names[c]),
                w.reserve_section_index(),
            )
        })
        .collect();
    let mut layout = Layout {
        symtab,
        with_lines,
        with_ptx,
        relocate,
        debug_line_name,
        line_sass_name,
        ptx_name,
        other_ptx_name,
        debug_line_index,
        line_sass_index,
        text_ids,
        text_index,
        rel_line_name,
        rel_sass_name,
        rel_line_index,
        rel_sass_index,
        callers,
        rel_text,
        names: Vec::new(),
        function_symbol: Vec::new(),
        num_local: 0,
        debug_line_offset: 0,
        line_sass_offset: 0,
        ptx_offset: 0,
        other_ptx_offset: 0,
        text_offsets: Vec::new(),
        rel_line_offset: 0,
        rel_sass_offset: 0,
        rel_text_offsets: Vec::new(),
    };
    reserve_symbols(w, spec, &mut layout);
    reserve_offsets(w, spec, payloads, &mut layout);
    layout
}

/// Symbols: null, one section symbol per text section (local), one function symbol each.
fn reserve_symbols<'a>(w: &mut ElfWriter<'a>, spec: &'a CubinSpec, layout: &mut Layout) {
    w.reserve_null_symbol_index();
    layout.names = spec
        .functions
        .iter()
        .map(|f| w.add_string(f.name.as_bytes()))
        .collect();
    for &index in &layout.text_index {
        w.reserve_symbol_index(Some(index));
    }
    layout.function_symbol = layout
        .text_index
        .iter()
        .map(|&index| w.reserve_symbol_index(Some(index)).0)
        .collect();
    layout.num_local = 1 + layout.text_index.len() as u32;
}

/// Reserves the contents: debug sections, code, symbol and string tables, relocations, the
/// section name table and the section headers.
fn reserve_offsets(w: &mut ElfWriter<'_>, spec: &CubinSpec, p: &Payloads, layout: &mut Layout) {
    layout.debug_line_offset = w.reserve(p.debug_line.len(), 1);
    layout.line_sass_offset = w.reserve(p.line_sass.len(), 1);
    layout.other_ptx_offset = w.reserve(p.other_ptx_text.len(), 1);
    layout.ptx_offset = w.reserve(p.ptx_text.len(), 1);
    layout.text_offsets = p.codes.iter().map(|c| w.reserve(c.len(), 128)).collect();
    w.reserve_symtab();
    w.reserve_strtab();
    let relocate = layout.relocate;
    let count = |relocs: &[LineRelocation]| if relocate { relocs.len() } else { 0 };
    layout.rel_line_offset = w.reserve_relocations(count(&p.line_relocs), false);
    layout.rel_sass_offset = w.reserve_relocations(count(&p.sass_relocs), false);
    layout.rel_text_offsets = layout
        .callers
        .iter()
        .map(|&c| w.reserve_relocations(calls_of(spec, c), false))
        .collect();
    w.reserve_shstrtab();
    w.reserve_section_headers();
}

/// The number of calls `caller` makes.
fn calls_of(spec: &CubinSpec, caller: usize) -> usize {
    spec.calls.iter().filter(|x| x.0 == caller).count()
}

/// The ELF header: CUDA machine and OS ABI, the SM revision in the flags as the ABI version
/// encodes it.
fn write_header(w: &mut ElfWriter<'_>, spec: &CubinSpec) {
    let flags = if spec.abi_version == 7 {
        0x0050_0000 | (spec.sm.0 * 10 + spec.sm.1)
    } else {
        0x0600_0000 | ((spec.sm.0 * 10 + spec.sm.1) << 8)
    };
    let _ = w.write_file_header(&FileHeader {
        os_abi: 0x33,
        abi_version: spec.abi_version,
        e_type: elf::ET_EXEC,
        e_machine: elf::EM_CUDA,
        e_entry: 0,
        e_flags: flags,
    });
}

/// The debug sections, the code (aligned to 128), the symbols and the string table.
fn write_contents(w: &mut ElfWriter<'_>, spec: &CubinSpec, p: &Payloads, layout: &Layout) {
    w.write(&p.debug_line);
    w.write(&p.line_sass);
    w.write(&p.other_ptx_text);
    w.write(&p.ptx_text);
    for c in &p.codes {
        w.write_align(128);
        w.write(c);
    }
    w.write_null_symbol();
    for (i, &index) in layout.text_index.iter().enumerate() {
        w.write_symbol(&Sym {
            name: None,
            section: Some(index),
            st_info: (elf::STB_LOCAL << 4) | elf::STT_SECTION,
            st_other: 0,
            st_shndx: 0,
            st_value: spec.absolute.as_ref().map_or(0, |a| a[i]),
            st_size: 0,
        });
    }
    for (i, f) in spec.functions.iter().enumerate() {
        let bind = if f.weak {
            elf::STB_WEAK
        } else {
            elf::STB_GLOBAL
        };
        w.write_symbol(&Sym {
            name: Some(layout.names[i]),
            section: Some(layout.text_index[i]),
            st_info: (bind << 4) | elf::STT_FUNC,
            st_other: 0,
            st_shndx: 0,
            st_value: spec.absolute.as_ref().map_or(0, |a| a[i]),
            st_size: p.codes[i].len() as u64,
        });
    }
    w.write_strtab();
}

/// The relocations of the line programs (when unrelocated) and of the calls.
fn write_relocations(w: &mut ElfWriter<'_>, spec: &CubinSpec, p: &Payloads, layout: &Layout) {
    // R_CUDA_64 (2) against the function symbol, as nvcc writes them.
    // Each reservation aligned to 8, whatever its length: align the writes the same way.
    for relocs in [&p.line_relocs, &p.sass_relocs] {
        w.write_align_relocation();
        for &(offset, function, _) in relocs {
            if layout.relocate {
                w.write_relocation(
                    false,
                    &Rel {
                        r_offset: offset,
                        r_sym: layout.function_symbol[function],
                        r_type: 2,
                        r_addend: 0,
                    },
                );
            }
        }
    }
    for &caller in &layout.callers {
        w.write_align_relocation();
        for (k, &(_, callee)) in spec.calls.iter().filter(|x| x.0 == caller).enumerate() {
            // 0x3a: the relocation type of a call in the corpus cubins.
            w.write_relocation(
                false,
                &Rel {
                    r_offset: 16 * (k as u64 + 1),
                    r_sym: layout.function_symbol[callee],
                    r_type: 0x3a,
                    r_addend: 0,
                },
            );
        }
    }
}

/// A `PROGBITS` section header.
fn progbits(
    w: &mut ElfWriter<'_>,
    name: StringId,
    offset: usize,
    len: usize,
    flags: u64,
    align: u64,
) {
    w.write_section_header(&SectionHeader {
        name: Some(name),
        sh_type: elf::SHT_PROGBITS,
        sh_flags: flags,
        sh_addr: 0,
        sh_offset: offset as u64,
        sh_size: len as u64,
        sh_link: 0,
        sh_info: 0,
        sh_addralign: align,
        sh_entsize: 0,
    });
}

/// The section name table and every section header, in index order.
fn write_section_headers(w: &mut ElfWriter<'_>, spec: &CubinSpec, p: &Payloads, l: &Layout) {
    w.write_shstrtab();
    w.write_null_section_header();
    w.write_shstrtab_section_header();
    w.write_strtab_section_header();
    w.write_symtab_section_header(l.num_local);
    if l.with_lines {
        let len = p.debug_line.len();
        progbits(w, l.debug_line_name, l.debug_line_offset, len, 0, 1);
    }
    if l.with_ptx {
        let len = p.line_sass.len();
        progbits(w, l.line_sass_name, l.line_sass_offset, len, 0, 1);
        if let Some(name) = l.other_ptx_name {
            progbits(w, name, l.other_ptx_offset, p.other_ptx_text.len(), 0, 1);
        }
        progbits(w, l.ptx_name, l.ptx_offset, p.ptx_text.len(), 0, 1);
    }
    for (i, c) in p.codes.iter().enumerate() {
        let flags = u64::from(elf::SHF_ALLOC | elf::SHF_EXECINSTR);
        progbits(w, l.text_ids[i], l.text_offsets[i], c.len(), flags, 128);
    }
    if let (Some(_), Some(target)) = (l.rel_line_index, l.debug_line_index) {
        let count = p.line_relocs.len();
        w.write_relocation_section_header(
            l.rel_line_name,
            target,
            l.symtab,
            l.rel_line_offset,
            count,
            false,
        );
    }
    if let (Some(_), Some(target)) = (l.rel_sass_index, l.line_sass_index) {
        let count = p.sass_relocs.len();
        w.write_relocation_section_header(
            l.rel_sass_name,
            target,
            l.symtab,
            l.rel_sass_offset,
            count,
            false,
        );
    }
    for (k, &(caller, name, _)) in l.rel_text.iter().enumerate() {
        w.write_relocation_section_header(
            name,
            l.text_index[caller],
            l.symtab,
            l.rel_text_offsets[k],
            calls_of(spec, caller),
            false,
        );
    }
}

/// A report around one synthetic cubin: a `SourceData` entry with the binary, the SM revision,
/// imported `files` (`(path, content)`) and — for an unrelocated cubin — relocation data at
/// `load` addresses (split over two entries, as real reports do); one kernel result per
/// function in `launched` with `inst_executed` per PC (value = 100 + instruction index) and a
/// `SourceCounters` section naming it.
pub fn write_source_report(
    out: impl Write,
    spec: &CubinSpec,
    load: &[u64],
    files: &[(&str, &str)],
    launched: &[usize],
) -> io::Result<()> {
    write_source_report_in(session_details(), out, spec, load, files, launched)
}

/// [`write_source_report`] with the session details `session`.
pub fn write_source_report_in(
    session: pb::ReportSessionDetails,
    out: impl Write,
    spec: &CubinSpec,
    load: &[u64],
    files: &[(&str, &str)],
    launched: &[usize],
) -> io::Result<()> {
    let mut writer = ReportWriter::new(out)?;
    writer.session(session);
    let binary = cubin(spec);
    let relocations: Vec<pb::RelocationSymbolEntry> = if spec.absolute.is_none() {
        spec.functions
            .iter()
            .enumerate()
            .map(|(i, f)| pb::RelocationSymbolEntry {
                symbol_name: Some(f.name.clone()),
                address: Some(load[i]),
                // Symbols: null, one section symbol per function, then the functions.
                symbol_index: Some((1 + spec.functions.len() + i) as u32),
            })
            .collect()
    } else {
        Vec::new()
    };
    let half = relocations.len() / 2;
    writer.add_source(pb::SourceData {
        reference: Some(1),
        binary: Some(binary),
        sass_level: Some(pb::SourceSassLevel::Sass8 as i32),
        sm_revision: Some((spec.sm.0 << 16) | spec.sm.1),
        source_files: (!files.is_empty()).then(|| pb::SourceFiles {
            files: files
                .iter()
                .map(|(name, content)| pb::SourceFile {
                    file_name: (*name).to_owned(),
                    content: Some((*content).to_owned()),
                })
                .collect(),
        }),
        relocation_data: Some(pb::RelocationData {
            functions: relocations[half..].to_vec(),
            objects: Vec::new(),
        }),
        ..Default::default()
    });
    if half > 0 {
        writer.add_source(pb::SourceData {
            reference: Some(1),
            relocation_data: Some(pb::RelocationData {
                functions: relocations[..half].to_vec(),
                objects: Vec::new(),
            }),
            ..Default::default()
        });
    }
    let section = ProfilerSection {
        identifier: "SourceCounters".into(),
        display_name: "Source Counters".into(),
        source_metrics: Some(ProfilerSectionMetrics {
            metrics: vec![ProfilerSectionMetric {
                name: "inst_executed".into(),
                label: Some("Instructions Executed".into()),
                ..Default::default()
            }],
            order: None,
        }),
        ..Default::default()
    };
    for (n, &f) in launched.iter().enumerate() {
        let function = &spec.functions[f];
        let base = spec.absolute.as_ref().map_or(load[f], |a| a[f]);
        let pcs: Vec<MetricValue> = (0..function.instructions)
            .map(|i| MetricValue::Uint64(base + 16 * u64::from(i)))
            .collect();
        let values: Vec<MetricValue> = (0..function.instructions)
            .map(|i| MetricValue::Uint64(100 + u64::from(i)))
            .collect();
        let kernel = KernelSpec {
            function: function.name.clone(),
            demangled: function.name.clone(),
            mangled: function.name.clone(),
            grid: [1, 1, 1],
            block: [32, 1, 1],
            metrics: vec![(
                "inst_executed".to_owned(),
                instanced(MetricValue::Uint64(0), values, Some(pcs)),
            )],
            sections: vec![section.clone()],
            rule_results: Vec::new(),
            nvtx: None,
            stream: 7,
        };
        let message = kernel_message(&mut writer, &kernel, n as u64 + 1);
        writer.add_result(&message);
    }
    writer.flush_block()?;
    writer.finish()?;
    Ok(())
}

/// Lines, each NUL-terminated (the layout of `.nv_debug_ptx_txt`).
fn nul_terminated(lines: &[String]) -> Vec<u8> {
    let mut text = Vec::new();
    for l in lines {
        text.extend_from_slice(l.as_bytes());
        text.push(0);
    }
    text
}
