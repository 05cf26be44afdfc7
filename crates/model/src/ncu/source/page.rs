//! The rows of the Source page for one kernel result: SASS rows (one per instruction of the
//! launched function and of the device functions it calls, with its file:line, PTX line and
//! per-PC values), the functions those rows belong to ([`FunctionBlock`]: demangled name and
//! address range, in address order as NVIDIA lists them), CUDA-C line blocks (every file:line
//! any PC maps to, with the sums over its distinct PCs, for the whole kernel or per function)
//! and the PTX lines.

use std::collections::BTreeMap;

use super::demangle::source_page_name;
use super::metrics::SourceColumns;
use super::nvdisasm::Disassembly;
use super::{FileLine, Function, PtxText, SourceError, SourceModule};
use crate::ncu::{Action, Report};
use crate::problem::{Location, Problem};

/// Which view of the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageView {
    /// CUDA-C lines, each followed by its SASS rows (`--print-source cuda,sass`).
    CudaSass,
    /// SASS only.
    Sass,
    /// The module's PTX.
    Ptx,
}

/// One cell of a row.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// Does not apply (no value for this PC or line): NVIDIA prints `-`.
    Empty,
    /// A number.
    Number(f64),
    /// A label (memory access kinds); may be empty.
    Text(String),
}

impl Cell {
    /// The text NVIDIA's CSV prints: `-`, integers plain, other numbers with 2 decimals.
    pub fn csv_text(&self) -> String {
        match self {
            Cell::Empty => "-".into(),
            Cell::Number(v) if v.fract() == 0.0 && v.abs() < 1e18 => {
                format!("{}", crate::core::num::float_to_i64(*v))
            }
            Cell::Number(v) => format!("{v:.2}"),
            Cell::Text(t) => t.clone(),
        }
    }
}

/// One instruction.
#[derive(Debug, Clone, PartialEq)]
pub struct SassRow {
    /// Absolute PC.
    pub address: u64,
    /// The 16 instruction bytes, when the cubin holds them.
    pub encoding: Option<Vec<u8>>,
    /// The disassembled text (from nvdisasm) in NVIDIA's layout, when available.
    pub text: Option<String>,
    /// The same as `ncu --page source --csv` (2024.1) prints it (no branch labels, nvdisasm's
    /// space before the `;` kept as a trailing space).
    pub csv_text: Option<String>,
    /// NVIDIA's file:line of the PC (the first row at its address).
    pub source: Option<FileLine>,
    /// Every distinct file:line with a row at its address.
    pub lines: Vec<FileLine>,
    /// Its line in the page's PTX ([`SourcePage::ptx`]; `None` when its PTX row names another
    /// compilation unit's text).
    pub ptx_line: Option<u32>,
    /// One cell per column of [`SourcePage::columns`].
    pub cells: Vec<Cell>,
    /// Index into [`SourcePage::functions`] of the function holding the instruction.
    pub function: Option<usize>,
}

/// One function of the page: the launched kernel or a device function it calls. NVIDIA's
/// Source page prints each as its own block (`"Kernel Name"` in the SASS view, a new
/// `"Function Name"` in the CUDA-C view), in address order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionBlock {
    /// The symbol (mangled) name.
    pub mangled: String,
    /// The demangled name in NVIDIA's style (see [`super::demangle`]); the symbol itself when
    /// it does not demangle (C names), for the kernel the report's demangled name.
    pub name: String,
    /// The absolute PC of its first instruction.
    pub start: u64,
    /// One past its last byte.
    pub end: u64,
    /// Whether it is the launched kernel (else a device function it calls).
    pub kernel: bool,
    /// Indices into [`SourcePage::sass`] of its instructions (contiguous, by address).
    pub rows: std::ops::Range<usize>,
}

impl SassRow {
    /// A one-line description of the memory access from the label cells, e.g.
    /// `Global Load 32` (empty for other instructions).
    pub fn memory_operation(&self, page: &SourcePage) -> String {
        let mut parts = Vec::new();
        for (column, cell) in page.columns().columns().iter().zip(&self.cells) {
            if let (false, Cell::Text(t)) = (column.is_numeric(), cell)
                && !t.is_empty()
            {
                parts.push(t.clone());
            }
        }
        parts.join(" ")
    }
}

/// One CUDA-C line with its aggregates and instructions.
#[derive(Debug, Clone, PartialEq)]
pub struct LineBlock {
    /// File and line.
    pub location: FileLine,
    /// The line's text, when the file is imported into the report.
    pub text: Option<String>,
    /// Sums over the line's distinct PCs; for label columns the distinct labels with their
    /// counts (`Load(81),Store(24)`, see `label_summary`).
    pub cells: Vec<Cell>,
    /// Indices into [`SourcePage::sass`] of the line's instructions, by address.
    pub rows: Vec<usize>,
    /// The function (index into [`SourcePage::functions`]) the block is limited to, for
    /// [`SourcePage::cuda_lines_by_function`]; `None` for [`SourcePage::cuda_lines`].
    pub function: Option<usize>,
}

/// The Source page of one kernel result.
#[derive(Debug, Clone)]
pub struct SourcePage {
    module: SourceModule,
    function: Option<Function>,
    columns: SourceColumns,
    sass: Vec<SassRow>,
    functions: Vec<FunctionBlock>,
    problems: Vec<Problem>,
}

impl SourcePage {
    /// Builds the page of `action`. `disassembly` supplies SASS text (see
    /// [`super::nvdisasm`]); without it rows have no text.
    pub fn build(
        report: &Report,
        action: &Action,
        disassembly: Option<&Disassembly>,
    ) -> Result<SourcePage, SourceError> {
        let module = SourceModule::for_action(report, action)?;
        Ok(SourcePage::from_module(module, action, disassembly))
    }

    /// Builds the page from an already merged module.
    pub fn from_module(
        module: SourceModule,
        action: &Action,
        disassembly: Option<&Disassembly>,
    ) -> SourcePage {
        let mut problems = module.problems().to_vec();
        let columns = SourceColumns::of(action);
        let function = module.function_for(action).cloned();
        let mut functions: Vec<FunctionBlock> = Vec::new();
        let pcs: Vec<u64> = match &function {
            Some(f) if f.load_pc.is_some() => {
                let mut pcs: Vec<u64> = f.pcs().collect();
                functions.extend(block(f, kernel_name(f.name(), action), true));
                for callee in module.callees(f) {
                    pcs.extend(callee.pcs());
                    let name =
                        source_page_name(callee.name()).unwrap_or_else(|| callee.name().to_owned());
                    functions.extend(block(callee, name, false));
                }
                functions.sort_by_key(|b| (b.start, b.end));
                pcs.sort_unstable();
                pcs.dedup();
                pcs
            }
            Some(f) => {
                problems.push(Problem::warning(
                    Location::Part("cubin".into()),
                    format!(
                        "the report stores no load address for {}: rows are the PCs with \
                         metrics",
                        f.name()
                    ),
                ));
                columns.pcs()
            }
            None => {
                if module.cubin().is_some() {
                    problems.push(Problem::warning(
                        Location::Part("cubin".into()),
                        format!(
                            "the kernel binary has no function named {}: rows are the PCs with \
                             metrics",
                            action.name(crate::ncu::NameBase::Mangled)
                        ),
                    ));
                }
                columns.pcs()
            }
        };
        if columns.columns().is_empty() {
            problems.push(Problem::warning(
                Location::None,
                "the result holds no per-PC metrics (collected without the SourceCounters \
                 section): the page shows instructions without values",
            ));
        }
        // The function of each PC: the one starting last at or before it (functions do not
        // overlap in a cubin; in a damaged one the one starting closest wins).
        let function_of = |pc: u64| {
            let i = functions
                .partition_point(|b| b.start <= pc)
                .checked_sub(1)?;
            (pc < functions[i].end).then_some(i)
        };
        let cells = columns.cells(&pcs);
        let ptx_file = function.as_ref().map_or(0, |f| module.ptx_file_of(f));
        let sass: Vec<SassRow> = pcs
            .iter()
            .zip(cells)
            .map(|(&pc, cells)| SassRow {
                function: function_of(pc),
                address: pc,
                encoding: module.instruction(pc).map(<[u8]>::to_vec),
                text: disassembly.and_then(|d| d.text(pc)).map(str::to_owned),
                csv_text: disassembly.and_then(|d| d.csv_text(pc)),
                source: module.source_info(pc),
                lines: module.lines_at(pc),
                ptx_line: module
                    .ptx_file_at(pc)
                    .and_then(|(file, line)| (file == ptx_file).then_some(line)),
                cells,
            })
            .collect();
        for (i, b) in functions.iter_mut().enumerate() {
            let first = sass.partition_point(|r| r.function.is_none_or(|f| f < i));
            let last = sass.partition_point(|r| r.function.is_none_or(|f| f <= i));
            b.rows = first..last.max(first);
        }
        SourcePage {
            module,
            function,
            columns,
            sass,
            functions,
            problems,
        }
    }

    /// The page with SASS text from `disassembly` (see [`super::nvdisasm::disassemble_page`]).
    pub fn with_disassembly(mut self, disassembly: &Disassembly) -> SourcePage {
        for row in &mut self.sass {
            if let Some(text) = disassembly.text(row.address) {
                row.text = Some(text.to_owned());
                row.csv_text = disassembly.csv_text(row.address);
            }
        }
        self
    }

    /// The merged module (cubin, files, PTX).
    pub fn module(&self) -> &SourceModule {
        &self.module
    }

    /// The PTX of the launched function's compilation unit (see [`SourceModule::ptx_of`]);
    /// empty when the cubin holds none.
    pub fn ptx(&self) -> &PtxText {
        static EMPTY: PtxText = PtxText::EMPTY;
        match &self.function {
            Some(f) => self.module.ptx_of(f),
            None => self.module.ptx_files().first().map(|(_, t)| t),
        }
        .unwrap_or(&EMPTY)
    }

    /// The launched function, when the cubin has it.
    pub fn function(&self) -> Option<&Function> {
        self.function.as_ref()
    }

    /// The columns and per-PC values.
    pub fn columns(&self) -> &SourceColumns {
        &self.columns
    }

    /// One row per instruction of the kernel and the device functions it calls, by address.
    pub fn sass(&self) -> &[SassRow] {
        &self.sass
    }

    /// The functions of the rows (the kernel and the device functions it calls) in address
    /// order; empty when the cubin has no load address for the kernel.
    pub fn functions(&self) -> &[FunctionBlock] {
        &self.functions
    }

    /// The function block of a row.
    pub fn function_of(&self, row: &SassRow) -> Option<&FunctionBlock> {
        self.functions.get(row.function?)
    }

    /// Whether any row has SASS text.
    pub fn has_sass_text(&self) -> bool {
        self.sass.iter().any(|r| r.text.is_some())
    }

    /// The CUDA-C lines any instruction maps to, by file path then line, each with the sums
    /// over its distinct PCs. Empty without line info.
    pub fn cuda_lines(&self) -> Vec<LineBlock> {
        let mut by_line: BTreeMap<FileLine, Vec<usize>> = BTreeMap::new();
        for (index, row) in self.sass.iter().enumerate() {
            for location in &row.lines {
                by_line.entry(location.clone()).or_default().push(index);
            }
        }
        by_line
            .into_iter()
            .map(|(location, rows)| self.line_block(location, rows, None))
            .collect()
    }

    /// The CUDA-C lines as NVIDIA's `cuda,sass` view lists them: by file path, then by
    /// function (by symbol name), then by line, each with the sums over that function's
    /// distinct PCs of the line. A line two functions share is a block in each. Without
    /// function blocks (no load address) the same as [`SourcePage::cuda_lines`].
    pub fn cuda_lines_by_function(&self) -> Vec<LineBlock> {
        if self.functions.is_empty() {
            return self.cuda_lines();
        }
        let mut by_line: BTreeMap<(&str, &str, usize, u32), Vec<usize>> = BTreeMap::new();
        for (index, row) in self.sass.iter().enumerate() {
            let Some(function) = row.function else {
                continue;
            };
            let mangled = self.functions[function].mangled.as_str();
            for location in &row.lines {
                by_line
                    .entry((location.file.as_str(), mangled, function, location.line))
                    .or_default()
                    .push(index);
            }
        }
        by_line
            .into_iter()
            .map(|((file, _, function, line), rows)| {
                let location = FileLine {
                    file: file.to_owned(),
                    line,
                };
                self.line_block(location, rows, Some(function))
            })
            .collect()
    }

    fn line_block(
        &self,
        location: FileLine,
        rows: Vec<usize>,
        function: Option<usize>,
    ) -> LineBlock {
        let cells = self
            .columns
            .columns()
            .iter()
            .enumerate()
            .map(|(c, column)| {
                if !column.is_numeric() {
                    return label_summary(rows.iter().map(|&r| &self.sass[r].cells[c]));
                }
                let mut sum = None;
                for &r in &rows {
                    if let Cell::Number(v) = self.sass[r].cells[c] {
                        sum = Some(sum.unwrap_or(0.0) + v);
                    }
                }
                sum.map_or(Cell::Empty, Cell::Number)
            })
            .collect();
        let text = self
            .module
            .source_file(&location.file)
            .and_then(|f| f.line(location.line))
            .map(str::to_owned);
        LineBlock {
            location,
            text,
            cells,
            rows,
            function,
        }
    }

    /// What is missing or was worked around, for a one-line notice each.
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }
}

/// The block of `function` (none without a load address).
/// The launched kernel's name on the page ([`source_page_name`]): for an Itanium symbol
/// this demangler does not read, the name the report stores; for another symbol, the symbol.
fn kernel_name(symbol: &str, action: &Action) -> String {
    match source_page_name(symbol) {
        Some(name) => name,
        None if symbol.starts_with("_Z") => action.name(crate::ncu::NameBase::Demangled).to_owned(),
        None => symbol.to_owned(),
    }
}

fn block(function: &Function, name: String, kernel: bool) -> Option<FunctionBlock> {
    let start = function.load_pc?;
    Some(FunctionBlock {
        mangled: function.name().to_owned(),
        name,
        start,
        end: start.saturating_add(function.cubin.size),
        kernel,
        rows: 0..0,
    })
}

/// NVIDIA's summary of label cells (memory access kinds) over a line's instructions: the
/// distinct non-empty labels in alphabetical order, each followed by `(count)` when more than
/// one instruction has it (`Global,Shared(104)`); `""` when the instructions only have empty
/// labels; [`Cell::Empty`] when none has a label at all (checked on every line of the corpus'
/// `ncu --page source` CSVs).
pub fn label_summary<'a>(cells: impl Iterator<Item = &'a Cell>) -> Cell {
    let mut any = false;
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for cell in cells {
        if let Cell::Text(t) = cell {
            any = true;
            if !t.is_empty() {
                *counts.entry(t.as_str()).or_default() += 1;
            }
        }
    }
    if !any {
        return Cell::Empty;
    }
    Cell::Text(
        counts
            .into_iter()
            .map(|(label, n)| {
                if n > 1 {
                    format!("{label}({n})")
                } else {
                    label.to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join(","),
    )
}
