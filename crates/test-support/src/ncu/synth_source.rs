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
use object::write::elf::{FileHeader, Rel, SectionHeader, Sym, Writer as ElfWriter};

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

/// The bytes of the cubin `spec` describes.
pub fn cubin(spec: &CubinSpec) -> Vec<u8> {
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
            let ptx_file = vec![("/build".to_owned(), "module.ptx".to_owned())];
            let (bytes, relocs) = line_program(&ptx_file, rows, spec.absolute.as_deref(), &sizes);
            let mut text = Vec::new();
            for l in lines {
                text.extend_from_slice(l.as_bytes());
                text.push(0);
            }
            (bytes, relocs, text)
        }
        None => (Vec::new(), Vec::new(), Vec::new()),
    };
    let codes: Vec<Vec<u8>> = spec
        .functions
        .iter()
        .enumerate()
        .map(|(i, f)| code(i, f.instructions))
        .collect();
    let text_names: Vec<Vec<u8>> = spec
        .functions
        .iter()
        .map(|f| format!(".text.{}", f.name).into_bytes())
        .collect();
    let rel_text_names: Vec<Vec<u8>> = spec
        .functions
        .iter()
        .map(|f| format!(".rel.text.{}", f.name).into_bytes())
        .collect();

    let mut buffer = Vec::new();
    let mut w = ElfWriter::new(Endianness::Little, true, &mut buffer);
    w.reserve_file_header();
    w.reserve_null_section_index();
    w.reserve_shstrtab_section_index();
    w.reserve_strtab_section_index();
    let symtab = w.reserve_symtab_section_index();
    let with_lines = !debug_line.is_empty();
    let with_ptx = spec.ptx.is_some();
    let debug_line_name = w.add_section_name(b".debug_line");
    let line_sass_name = w.add_section_name(b".nv_debug_line_sass");
    let ptx_name = w.add_section_name(b".nv_debug_ptx_txt");
    let debug_line_index = with_lines.then(|| w.reserve_section_index());
    let line_sass_index = with_ptx.then(|| w.reserve_section_index());
    let ptx_index = with_ptx.then(|| w.reserve_section_index());
    let text_ids: Vec<_> = text_names.iter().map(|n| w.add_section_name(n)).collect();
    let text_index: Vec<_> = codes.iter().map(|_| w.reserve_section_index()).collect();
    let relocate = spec.absolute.is_none();
    let rel_line_name = w.add_section_name(b".rel.debug_line");
    let rel_sass_name = w.add_section_name(b".rel.nv_debug_line_sass");
    let rel_line_index = (relocate && with_lines).then(|| w.reserve_section_index());
    let rel_sass_index = (relocate && with_ptx).then(|| w.reserve_section_index());
    let callers: Vec<usize> = {
        let mut c: Vec<usize> = spec.calls.iter().map(|c| c.0).collect();
        c.sort_unstable();
        c.dedup();
        c
    };
    let rel_text: Vec<_> = callers
        .iter()
        .map(|&c| {
            (
                c,
                w.add_section_name(&rel_text_names[c]),
                w.reserve_section_index(),
            )
        })
        .collect();

    // Symbols: null, one section symbol per text section (local), one function symbol each.
    w.reserve_null_symbol_index();
    let names: Vec<_> = spec
        .functions
        .iter()
        .map(|f| w.add_string(f.name.as_bytes()))
        .collect();
    for &index in &text_index {
        w.reserve_symbol_index(Some(index));
    }
    let function_symbol: Vec<u32> = text_index
        .iter()
        .map(|&index| w.reserve_symbol_index(Some(index)).0)
        .collect();
    let num_local = 1 + text_index.len() as u32;

    let debug_line_offset = w.reserve(debug_line.len(), 1);
    let line_sass_offset = w.reserve(line_sass.len(), 1);
    let ptx_offset = w.reserve(ptx_text.len(), 1);
    let text_offsets: Vec<usize> = codes.iter().map(|c| w.reserve(c.len(), 128)).collect();
    w.reserve_symtab();
    w.reserve_strtab();
    let count = |relocs: &[(u64, usize, i64)]| if relocate { relocs.len() } else { 0 };
    let rel_line_offset = w.reserve_relocations(count(&line_relocs), false);
    let rel_sass_offset = w.reserve_relocations(count(&sass_relocs), false);
    let rel_text_offsets: Vec<usize> = callers
        .iter()
        .map(|&c| w.reserve_relocations(spec.calls.iter().filter(|x| x.0 == c).count(), false))
        .collect();
    w.reserve_shstrtab();
    w.reserve_section_headers();

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
    w.write(&debug_line);
    w.write(&line_sass);
    w.write(&ptx_text);
    for c in &codes {
        w.write_align(128);
        w.write(c);
    }
    w.write_null_symbol();
    for (i, &index) in text_index.iter().enumerate() {
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
            name: Some(names[i]),
            section: Some(text_index[i]),
            st_info: (bind << 4) | elf::STT_FUNC,
            st_other: 0,
            st_shndx: 0,
            st_value: spec.absolute.as_ref().map_or(0, |a| a[i]),
            st_size: codes[i].len() as u64,
        });
    }
    w.write_strtab();
    // R_CUDA_64 (2) against the function symbol, as nvcc writes them.
    // Each reservation aligned to 8, whatever its length: align the writes the same way.
    for relocs in [&line_relocs, &sass_relocs] {
        w.write_align_relocation();
        for &(offset, function, _) in relocs {
            if relocate {
                w.write_relocation(
                    false,
                    &Rel {
                        r_offset: offset,
                        r_sym: function_symbol[function],
                        r_type: 2,
                        r_addend: 0,
                    },
                );
            }
        }
    }
    for &caller in &callers {
        w.write_align_relocation();
        for (k, &(_, callee)) in spec.calls.iter().filter(|x| x.0 == caller).enumerate() {
            // 0x3a: the relocation type of a call in the corpus cubins.
            w.write_relocation(
                false,
                &Rel {
                    r_offset: 16 * (k as u64 + 1),
                    r_sym: function_symbol[callee],
                    r_type: 0x3a,
                    r_addend: 0,
                },
            );
        }
    }
    w.write_shstrtab();
    w.write_null_section_header();
    w.write_shstrtab_section_header();
    w.write_strtab_section_header();
    w.write_symtab_section_header(num_local);
    let progbits = |w: &mut ElfWriter<'_>, name, offset: usize, len: usize, flags: u64, align| {
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
    };
    if with_lines {
        progbits(
            &mut w,
            debug_line_name,
            debug_line_offset,
            debug_line.len(),
            0,
            1,
        );
    }
    if with_ptx {
        progbits(
            &mut w,
            line_sass_name,
            line_sass_offset,
            line_sass.len(),
            0,
            1,
        );
        progbits(&mut w, ptx_name, ptx_offset, ptx_text.len(), 0, 1);
    }
    for (i, c) in codes.iter().enumerate() {
        let flags = u64::from(elf::SHF_ALLOC | elf::SHF_EXECINSTR);
        progbits(&mut w, text_ids[i], text_offsets[i], c.len(), flags, 128);
    }
    if let (Some(_), Some(target)) = (rel_line_index, debug_line_index) {
        w.write_relocation_section_header(
            rel_line_name,
            target,
            symtab,
            rel_line_offset,
            line_relocs.len(),
            false,
        );
    }
    if let (Some(_), Some(target)) = (rel_sass_index, line_sass_index) {
        w.write_relocation_section_header(
            rel_sass_name,
            target,
            symtab,
            rel_sass_offset,
            sass_relocs.len(),
            false,
        );
    }
    for (k, &(caller, name, _)) in rel_text.iter().enumerate() {
        w.write_relocation_section_header(
            name,
            text_index[caller],
            symtab,
            rel_text_offsets[k],
            spec.calls.iter().filter(|x| x.0 == caller).count(),
            false,
        );
    }
    let _ = ptx_index;
    buffer
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
    let mut writer = ReportWriter::new(out)?;
    writer.session(session_details());
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
