//! Fuzzes the Source page's binary readers: the cubin (ELF64 sections, symbols, relocations)
//! merged into a module with its line programs and PTX, every per-PC question of every
//! function, and a DWARF line program or nvdisasm's output on its own. The first byte picks
//! the mode (even: the input after it is a cubin, with relocation data naming each function
//! when bit 1 is set; odd: a `.debug_line` section, or nvdisasm's text when bit 2 is set too).
//! Errors and warnings are expected; panics, hangs and runaway allocations are bugs.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sightline_model::ncu::source::nvdisasm::Disassembly;
use sightline_model::ncu::source::{LineTable, SourceModule};
use sightline_model::proto::nv::profiler::messages as pb;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode & 5 == 5 {
        let disassembly = Disassembly::parse(&String::from_utf8_lossy(rest));
        for pc in 0..64u64 {
            let _ = (disassembly.text(pc), disassembly.csv_text(pc));
        }
        return;
    }
    if mode & 1 == 1 {
        let (table, _) = LineTable::parse(".debug_line", rest);
        for row in table.rows().iter().take(4096) {
            let _ = (table.first_at(row.address), table.all_at(row.address));
            let _ = table.file_line(row.address.wrapping_add(8));
        }
        return;
    }
    let data = pb::SourceData {
        reference: Some(1),
        binary: Some(rest.to_vec()),
        sm_revision: Some(0x8_0006),
        ..Default::default()
    };
    let mut entries = vec![data];
    if mode & 2 == 2 {
        // Relocation data naming each function at a fixed address: the unrelocated layout.
        let probe = SourceModule::from_entries(&entries);
        let functions = probe
            .functions()
            .iter()
            .enumerate()
            .map(|(i, f)| pb::RelocationSymbolEntry {
                symbol_name: Some(f.name().to_owned()),
                address: Some(0x7f00_0000_0000 + 0x10_0000 * i as u64),
                symbol_index: Some(f.cubin.symbol_index),
            })
            .collect();
        entries.push(pb::SourceData {
            reference: Some(1),
            relocation_data: Some(pb::RelocationData {
                functions,
                objects: Vec::new(),
            }),
            ..Default::default()
        });
    }
    let module = SourceModule::from_entries(&entries);
    let _ = (module.problems().len(), module.sm(), module.ptx_files().len());
    for f in module.functions() {
        let _ = module.callees(f);
        let _ = module.ptx_of(f).map(|t| t.lines().len());
        for pc in f.pcs().take(4096) {
            let _ = module.source_info(pc);
            let _ = module.lines_at(pc);
            let _ = (module.ptx_by_pc(pc), module.ptx_file_at(pc));
            let _ = module.instruction(pc);
        }
    }
});
