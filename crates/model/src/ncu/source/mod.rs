//! The Source page's model: a kernel's cubin, its line tables, PTX, per-PC metrics and the
//! page's rows.
//!
//! - [`SourceModule::for_action`] merges the `SourceData` entries of the action's reference
//!   (the binary, the imported source files, the relocation entries spread over several
//!   entries), parses the cubin (`cubin`) and its line programs (`lines`, `ptx`).
//! - [`SourceModule::function_for`] finds the launched function and its load PC.
//! - [`SourceModule::source_info`], [`SourceModule::ptx_by_pc`] answer per PC as NVIDIA's
//!   reader does; [`SourceModule::lines_at`] gives every file:line of a PC for aggregates.
//! - `metrics` reads the page's columns (the embedded `SourceCounters` section) and
//!   `values` the per-PC values (stored, derived from the embedded definitions, `group:`
//!   sums); `page` builds the SASS, CUDA-C and PTX rows with line aggregates;
//!   `hotspots` ranks a metric's instructions for the Details page's source metric tables.
//! - [`nvdisasm`] runs NVIDIA's disassembler, when installed, for the SASS text.
//!
//! Every corner case (no cubin, no line info, an unreadable or newer ELF, a function without
//! metrics) is a [`Problem`] or a [`SourceError`] with a message, never a panic.

mod cubin;
pub mod demangle;
mod hotspots;
mod lines;
mod metrics;
pub mod nvdisasm;
mod page;
mod ptx;
mod values;
pub use hotspots::top_pcs;

use std::collections::HashMap;

use crate::ncu::{Action, NameBase, Report, ResultInfo};
use crate::problem::{Location, Problem};
use crate::proto::nv::profiler::messages as pb;

pub use cubin::{Cubin, CubinError, CubinFunction, INSTRUCTION_SIZE};
pub use lines::{FileLine, LineTable, MAX_LINES_PER_ADDRESS};
pub use metrics::{Column, ColumnKind, SourceColumns};
pub use page::{Cell, FunctionBlock, LineBlock, PageView, SassRow, SourcePage};
pub use ptx::PtxText;
pub use values::{PcMetrics, PcValues};

/// Why there is no Source page for an action.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    /// Ranges, command lists and graphs have no single kernel binary.
    #[error("result {0} is not a kernel launch: the Source page shows kernels only")]
    NotAKernel(usize),
}

/// A source file of the module: imported into the report (`--import-source yes`) or only named
/// by the line table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// The path as recorded.
    pub name: String,
    /// The text, when imported into the report.
    pub content: Option<String>,
}

impl SourceFile {
    /// The file's lines as NVIDIA's page numbers them (`--print-source cuda`): split at `\n`,
    /// a `\r` before it dropped, and no empty line after a final `\n`. Empty when the file is
    /// not imported.
    pub fn lines(&self) -> Vec<&str> {
        let Some(content) = self.content.as_deref() else {
            return Vec::new();
        };
        let content = content.strip_suffix('\n').unwrap_or(content);
        content
            .split('\n')
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
            .collect()
    }

    /// The 1-based line's text, when the file is imported and has that line.
    pub fn line(&self, line: u32) -> Option<&str> {
        let content = self.content.as_deref()?;
        content
            .split('\n')
            .nth(usize::try_from(line).ok()?.checked_sub(1)?)
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
    }
}

/// One entry of `RelocationData.Functions`: where the driver loaded a function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relocation {
    /// The function's symbol name.
    pub name: String,
    /// Its load address (the absolute PC of its first instruction).
    pub address: u64,
    /// Its index in the cubin's `.symtab`, when stored.
    pub symbol_index: Option<u32>,
}

/// A function of the module with its load address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    /// The cubin's view of it (symbol, section, size).
    pub cubin: CubinFunction,
    /// The absolute PC of its first instruction, when known.
    pub load_pc: Option<u64>,
}

impl Function {
    /// The (mangled) name.
    pub fn name(&self) -> &str {
        &self.cubin.name
    }

    /// The absolute PCs of its instructions (16-byte grid), empty without a load PC.
    pub fn pcs(&self) -> impl Iterator<Item = u64> + '_ {
        let count = self.cubin.size / INSTRUCTION_SIZE;
        let base = self.load_pc;
        (0..if base.is_some() { count } else { 0 })
            .map(move |i| base.unwrap_or(0).wrapping_add(i * INSTRUCTION_SIZE))
    }

    /// Whether `pc` lies inside the function.
    pub fn contains(&self, pc: u64) -> bool {
        self.load_pc
            .is_some_and(|base| pc >= base && pc - base < self.cubin.size)
    }
}

/// The merged source data of one module (one `SourceData.Reference`).
#[derive(Debug, Clone, Default)]
pub struct SourceModule {
    reference: Option<u64>,
    sm: Option<(u32, u32)>,
    cubin: Option<Cubin>,
    relocations: Vec<Relocation>,
    files: Vec<SourceFile>,
    functions: Vec<Function>,
    /// `(load PC, end, index into functions)` sorted by load PC, for [`SourceModule::function_at`].
    by_pc: Vec<(u64, u64, usize)>,
    lines: LineTable,
    ptx_lines: LineTable,
    /// The PTX of each compilation unit, by section name (see [`SourceModule::ptx_file_at`]).
    ptx: Vec<(String, PtxText)>,
    problems: Vec<Problem>,
}

impl SourceModule {
    /// The module of a kernel result: its own `Source` merged with every report source entry
    /// of the same reference.
    pub fn for_action(report: &Report, action: &Action) -> Result<SourceModule, SourceError> {
        let ResultInfo::Kernel(kernel) = action.info() else {
            return Err(SourceError::NotAKernel(action.index()));
        };
        let reference = kernel.source.reference;
        let mut entries = vec![kernel.source.clone()];
        let mut problems = Vec::new();
        for entry in report.sources() {
            if Some(entry.reference) != reference {
                continue;
            }
            match entry.decode() {
                Ok(data) => entries.push(data),
                Err(e) => problems.push(Problem::warning(
                    Location::Part("source data".into()),
                    format!(
                        "a source entry of reference {} does not decode ({e}); it was skipped",
                        entry.reference
                    ),
                )),
            }
        }
        let mut module = SourceModule::from_entries(&entries);
        problems.append(&mut module.problems);
        module.problems = problems;
        Ok(module)
    }

    /// Merges source entries (in order: the first binary, SM revision wins; source files are
    /// joined by name, the first with content winning; relocation entries are joined) and
    /// parses the cubin.
    pub fn from_entries(entries: &[pb::SourceData]) -> SourceModule {
        let mut module = SourceModule::default();
        let mut binary: Option<&[u8]> = None;
        for entry in entries {
            module.reference = module.reference.or(entry.reference);
            if let Some(b) = entry.binary.as_deref().filter(|b| !b.is_empty()) {
                binary = binary.or(Some(b));
            }
            if module.sm.is_none() {
                module.sm = entry
                    .sm_revision
                    .filter(|r| *r != 0)
                    .map(|r| (r >> 16, r & 0xffff));
            }
            for file in entry.source_files.iter().flat_map(|f| &f.files) {
                match module.files.iter_mut().find(|f| f.name == file.file_name) {
                    Some(known) if known.content.is_none() => known.content = file.content.clone(),
                    Some(_) => {}
                    None => module.files.push(SourceFile {
                        name: file.file_name.clone(),
                        content: file.content.clone(),
                    }),
                }
            }
            for f in entry.relocation_data.iter().flat_map(|r| &r.functions) {
                let relocation = Relocation {
                    name: f.symbol_name.clone().unwrap_or_default(),
                    address: f.address.unwrap_or(0),
                    symbol_index: f.symbol_index,
                };
                if !module.relocations.contains(&relocation) {
                    module.relocations.push(relocation);
                }
            }
        }
        let Some(binary) = binary else {
            module.problems.push(Problem::warning(
                Location::Part("source data".into()),
                "the report stores no kernel binary (cubin) for this module: no SASS, no \
                 source lines",
            ));
            return module;
        };
        match Cubin::parse(binary) {
            Ok(cubin) => module.attach(cubin),
            Err(e) => module.problems.push(Problem::error(
                Location::Part("cubin".into()),
                format!("the kernel binary is not readable: {e}"),
            )),
        }
        module
    }

    fn attach(&mut self, cubin: Cubin) {
        self.problems.extend_from_slice(cubin.problems());
        let relocated = !self.relocations.is_empty();
        let mut by_index: HashMap<u32, Vec<&Relocation>> = HashMap::new();
        let mut by_name: HashMap<&str, &Relocation> = HashMap::new();
        for r in &self.relocations {
            if let Some(i) = r.symbol_index {
                by_index.entry(i).or_default().push(r);
            }
            by_name.entry(r.name.as_str()).or_insert(r);
        }
        // A relocation entry names a function by symbol index and name, else by name.
        let relocation_of = |f: &CubinFunction| {
            by_index
                .get(&f.symbol_index)
                .and_then(|rs| rs.iter().find(|r| r.name == f.name))
                .copied()
                .or_else(|| by_name.get(f.name.as_str()).copied())
                .map(|r| r.address)
        };
        let functions: Vec<Function> = cubin
            .functions()
            .iter()
            .map(|f| Function {
                cubin: f.clone(),
                load_pc: if relocated {
                    relocation_of(f)
                } else {
                    Some(f.value)
                },
            })
            .collect();
        self.functions = functions;
        self.by_pc = self
            .functions
            .iter()
            .enumerate()
            .filter_map(|(i, f)| {
                let start = f.load_pc?;
                Some((start, start.saturating_add(f.cubin.size), i))
            })
            .collect();
        self.by_pc.sort_unstable();
        let load: HashMap<u32, u64> = self
            .functions
            .iter()
            .filter_map(|f| Some((f.cubin.symbol_index, f.load_pc?)))
            .collect();
        let address = move |symbol: u32| load.get(&symbol).copied();
        let mut problems = Vec::new();
        let debug = cubin.debug_sections(relocated, &address, &mut problems);
        self.problems.append(&mut problems);
        self.read_debug_sections(&debug);
        // Files named by the line table but not imported.
        for name in self.lines.files() {
            if !name.is_empty()
                && !self
                    .files
                    .iter()
                    .any(|f| lines::resolve_dots(&f.name) == *name)
            {
                self.files.push(SourceFile {
                    name: name.clone(),
                    content: None,
                });
            }
        }
        self.cubin = Some(cubin);
    }

    /// Parses the line programs and PTX texts of `debug`, with a warning for each damaged one.
    fn read_debug_sections(&mut self, debug: &cubin::DebugSections) {
        if let Some(bytes) = &debug.debug_line {
            let (table, error) = LineTable::parse(".debug_line", bytes);
            if table.dropped_lines() > 0 {
                self.problems.push(Problem::warning(
                    Location::Part(".debug_line".into()),
                    format!(
                        "{} file:line pairs were left out at addresses with more than {} \
                         distinct lines",
                        table.dropped_lines(),
                        lines::MAX_LINES_PER_ADDRESS
                    ),
                ));
            }
            self.lines = table;
            if let Some(e) = error {
                self.problems.push(Problem::warning(
                    Location::Part(".debug_line".into()),
                    format!("{e}; the rows before it are used"),
                ));
            }
        }
        if let Some(bytes) = &debug.line_sass {
            let (table, error) = LineTable::parse(".nv_debug_line_sass", bytes);
            self.ptx_lines = table;
            if let Some(e) = error {
                self.problems.push(Problem::warning(
                    Location::Part(".nv_debug_line_sass".into()),
                    format!("{e}; the rows before it are used"),
                ));
            }
        }
        self.ptx = debug
            .ptx_texts
            .iter()
            .map(|(name, bytes)| (name.clone(), PtxText::parse(bytes)))
            .collect();
    }

    /// The `SourceData.Reference` shared by the merged entries.
    pub fn reference(&self) -> Option<u64> {
        self.reference
    }

    /// The SM version `(major, minor)` of the binary (`SourceData.SMRevision`, else the cubin's
    /// ELF flags).
    pub fn sm(&self) -> Option<(u32, u32)> {
        self.sm
            .or_else(|| self.cubin.as_ref().and_then(Cubin::sm_from_flags))
    }

    /// The parsed cubin, when the report stores a readable one.
    pub fn cubin(&self) -> Option<&Cubin> {
        self.cubin.as_ref()
    }

    /// The relocation entries (where the driver loaded each function; 2022.3 and later).
    pub fn relocations(&self) -> &[Relocation] {
        &self.relocations
    }

    /// The module's functions with their load PCs.
    pub fn functions(&self) -> &[Function] {
        &self.functions
    }

    /// The function a kernel result launched (by mangled name, else by function name).
    pub fn function_for(&self, action: &Action) -> Option<&Function> {
        let mangled = action.name(NameBase::Mangled);
        self.functions
            .iter()
            .find(|f| f.name() == mangled)
            .or_else(|| {
                let plain = action.name(NameBase::Function);
                self.functions.iter().find(|f| f.name() == plain)
            })
    }

    /// The device functions `function` calls (transitively), with their load PCs: NVIDIA's
    /// page lists their instructions under the kernel.
    pub fn callees(&self, function: &Function) -> Vec<&Function> {
        let Some(cubin) = &self.cubin else {
            return Vec::new();
        };
        cubin
            .callees(&function.cubin)
            .into_iter()
            .filter_map(|c| {
                let at = self
                    .functions
                    .binary_search_by_key(&c.symbol_index, |f| f.cubin.symbol_index)
                    .ok()?;
                self.functions.get(at)
            })
            .collect()
    }

    /// The function holding `pc`.
    pub fn function_at(&self, pc: u64) -> Option<&Function> {
        // The function starting last at or before `pc` (functions do not overlap in a cubin;
        // in a damaged one the one starting closest wins).
        let end = self.by_pc.partition_point(|f| f.0 <= pc);
        let &(_, stop, index) = self.by_pc.get(end.checked_sub(1)?)?;
        (pc < stop).then(|| &self.functions[index])
    }

    /// The source files: those imported into the report first, then those only the line
    /// table names (without content).
    pub fn source_files(&self) -> &[SourceFile] {
        &self.files
    }

    /// The source file by path.
    pub fn source_file(&self, name: &str) -> Option<&SourceFile> {
        self.files
            .iter()
            .find(|f| f.name == name || lines::resolve_dots(&f.name) == name)
    }

    /// Whether the cubin carries a CUDA-C line table (`-lineinfo` or `-G`).
    pub fn has_line_info(&self) -> bool {
        !self.lines.is_empty()
    }

    /// The `.debug_line` table.
    pub fn line_table(&self) -> &LineTable {
        &self.lines
    }

    /// The `.nv_debug_line_sass` table (PTX lines).
    pub fn ptx_line_table(&self) -> &LineTable {
        &self.ptx_lines
    }

    /// File and line of `pc`, as NVIDIA's `IAction.source_info`: of the rows at the greatest
    /// address ≤ `pc`, the first. `None` outside the module's functions or without line info.
    pub fn source_info(&self, pc: u64) -> Option<FileLine> {
        self.function_at(pc)?;
        self.lines.file_line(pc)
    }

    /// Every distinct file:line with a row at `pc`'s address (a PC counts toward each in the
    /// per-line aggregates).
    pub fn lines_at(&self, pc: u64) -> Vec<FileLine> {
        if self.function_at(pc).is_none() {
            return Vec::new();
        }
        self.lines
            .all_at(pc)
            .iter()
            .filter_map(|&(file, line)| {
                Some(FileLine {
                    file: self.lines.files().get(file as usize)?.clone(),
                    line,
                })
            })
            .collect()
    }

    /// The 1-based PTX line of `pc` (same rule as [`SourceModule::source_info`]) and the index
    /// of its PTX text in [`SourceModule::ptx_files`]: the section the line program's file
    /// names, else the only one. `None` outside the functions, without a row, or when the file
    /// names no PTX the cubin holds.
    pub fn ptx_file_at(&self, pc: u64) -> Option<(usize, u32)> {
        self.function_at(pc)?;
        let (file, line) = self.ptx_lines.first_at(pc)?;
        let name = self.ptx_lines.files().get(file as usize)?;
        let index = match self.ptx.iter().position(|(n, _)| n == name) {
            Some(i) => i,
            None if self.ptx.len() == 1 => 0,
            None => return None,
        };
        Some((index, line))
    }

    /// The 1-based PTX line of `pc` in its PTX text (see [`SourceModule::ptx_file_at`]).
    pub fn ptx_line(&self, pc: u64) -> Option<u32> {
        self.ptx_file_at(pc).map(|(_, line)| line)
    }

    /// The PTX text of `pc`'s line, as `IAction.ptx_by_pc` (empty when unknown).
    pub fn ptx_by_pc(&self, pc: u64) -> &str {
        self.ptx_file_at(pc)
            .and_then(|(file, line)| self.ptx.get(file)?.1.line(line))
            .unwrap_or("")
    }

    /// The PTX of every compilation unit, by section name, in the cubin's order (one for a
    /// cubin of one unit; none without `-lineinfo` or `-G`).
    pub fn ptx_files(&self) -> &[(String, PtxText)] {
        &self.ptx
    }

    /// The PTX text holding the code of `function` (the text its first PC with a PTX row
    /// names; the first text when none does), or `None` when the cubin holds no PTX.
    pub fn ptx_of(&self, function: &Function) -> Option<&PtxText> {
        self.ptx
            .get(self.ptx_file_of(function))
            .map(|(_, text)| text)
    }

    /// The index in [`SourceModule::ptx_files`] of the PTX text holding `function`'s code (see
    /// [`SourceModule::ptx_of`]).
    pub fn ptx_file_of(&self, function: &Function) -> usize {
        function
            .pcs()
            .find_map(|pc| self.ptx_file_at(pc))
            .map_or(0, |(i, _)| i)
    }

    /// The 16 bytes of the instruction at `pc`.
    pub fn instruction(&self, pc: u64) -> Option<&[u8]> {
        let function = self.function_at(pc)?;
        let offset = usize::try_from(pc - function.load_pc?).ok()?;
        let code = self.cubin.as_ref()?.code(&function.cubin);
        code.get(offset..offset.checked_add(usize::try_from(INSTRUCTION_SIZE).ok()?)?)
    }

    /// What was worked around or is missing (no binary, damaged sections, unknown relocations).
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }
}

#[cfg(test)]
mod tests {
    use super::SourceFile;
    /// A file's lines as NVIDIA numbers them: no empty line after a final newline.
    #[test]
    fn source_file_lines() {
        let file = |content: Option<&str>| SourceFile {
            name: "a.cu".into(),
            content: content.map(str::to_owned),
        };
        assert_eq!(file(Some("a\r\nb\n")).lines(), ["a", "b"]);
        assert_eq!(file(Some("a\n\n")).lines(), ["a", ""]);
        assert_eq!(file(Some("a")).lines(), ["a"]);
        assert!(file(None).lines().is_empty());
    }
}
