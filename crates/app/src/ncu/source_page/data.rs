//! What the Source page draws, built once per kernel on a background job from the model's
//! [`SourcePage`]: the rows of the three views (CUDA-C source per file, SASS, PTX) with their
//! cells, the columns with their launch totals, the functions and files with their aggregates,
//! and the plain messages about what the report cannot give.

use std::path::{Path, PathBuf};

use sightline_model::ncu::infer_unit;
use sightline_model::ncu::source::{Cell, ColumnKind, PageView, SourcePage};
use sightline_model::problem::Problem;

/// A view of the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum View {
    /// CUDA-C (or any high-level) source, one file at a time.
    Source,
    /// The instructions of the kernel and the device functions it calls.
    Sass,
    /// The module's PTX.
    Ptx,
}

impl View {
    /// Every view, in the toolbar's order.
    pub const ALL: [View; 3] = [View::Source, View::Sass, View::Ptx];

    /// The name on the toolbar.
    pub fn name(self) -> &'static str {
        match self {
            View::Source => "Source",
            View::Sass => "SASS",
            View::Ptx => "PTX",
        }
    }

    /// The model's view of the same rows (for the CLI's words in messages).
    pub fn model(self) -> PageView {
        match self {
            View::Source => PageView::CudaSass,
            View::Sass => PageView::Sass,
            View::Ptx => PageView::Ptx,
        }
    }
}

/// One column of the page.
#[derive(Debug, Clone)]
pub struct ColumnInfo {
    /// The header (the section's label).
    pub label: String,
    /// The unit the values are formatted with (as on the Details page).
    pub unit: String,
    /// Whether values are numbers (else memory access labels).
    pub numeric: bool,
    /// The sum over the launch's instructions (the 100 % of the percentages).
    pub total: f64,
}

/// One row of a view.
#[derive(Debug, Clone)]
pub struct Row {
    /// The location column: a line number or an address.
    pub location: String,
    /// The text column (source line, SASS instruction, PTX line).
    pub text: String,
    /// One cell per column; none for a row without instructions (every cell empty).
    pub cells: Vec<Cell>,
    /// Indices into the SASS rows of the instructions this row stands for (the correlation).
    pub pcs: Vec<u32>,
}

impl Row {
    /// The row's name for screen readers and tests (`Source kernel.cu:4`, `SASS 0x7f…10`,
    /// `PTX 12`) as a row of `view` (of the file named `file` in the Source view); made when
    /// asked for, not for every row of a page.
    pub fn name(&self, view: View, file: Option<&str>) -> String {
        match view {
            View::Source => format!(
                "Source {}:{}",
                short_name(file.unwrap_or_default()),
                self.location
            ),
            View::Sass => format!("SASS {}", self.location),
            View::Ptx => format!("PTX {}", self.location),
        }
    }

    /// The value of numeric column `column`, if any.
    pub fn number(&self, column: usize) -> Option<f64> {
        match self.cells.get(column) {
            Some(Cell::Number(v)) => Some(*v),
            _ => None,
        }
    }
}

/// Where a source file's text came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileText {
    /// Imported into the report (`--import-source yes`).
    Imported,
    /// Read from the path on this machine.
    Local(PathBuf),
    /// Chosen by the user with Resolve….
    Resolved(PathBuf),
    /// Not in the report and not on this machine: line numbers only.
    Missing,
}

/// One source file of the module with its rows.
#[derive(Debug, Clone)]
pub struct SourceFileRows {
    /// The path the line table names.
    pub name: String,
    /// Where the text comes from.
    pub text: FileText,
    /// Every line of the file when its text is known, else only the lines with instructions.
    pub rows: Vec<Row>,
    /// The sums over the file's instructions, per column.
    pub cells: Vec<Cell>,
}

/// A function whose instructions the SASS view lists.
#[derive(Debug, Clone)]
pub struct FunctionRows {
    /// Its demangled name, as Nsight Compute's Source page names its blocks
    /// (`getPoint(float &, float &, curandStateXORWOW &)`); the symbol when it does not
    /// demangle.
    pub name: String,
    /// Its symbol (mangled) name.
    pub mangled: String,
    /// Whether it is the launched kernel (else a device function it calls).
    pub kernel: bool,
    /// Its first SASS row.
    pub first_row: usize,
    /// The sums over its instructions, per column.
    pub cells: Vec<Cell>,
}

/// Everything the page draws for one kernel.
#[derive(Debug, Clone)]
pub struct PageData {
    /// The kernel's demangled name.
    pub kernel: String,
    /// The columns.
    pub columns: Vec<ColumnInfo>,
    /// One row per instruction.
    pub sass: Vec<Row>,
    /// The instructions' absolute PCs (same order as `sass`).
    pub pcs: Vec<u64>,
    /// The source files with line info, in the line table's order by path.
    pub files: Vec<SourceFileRows>,
    /// The PTX lines (with the aggregates of the instructions mapped to them).
    pub ptx: Vec<Row>,
    /// The functions: the kernel first, then its callees by address.
    pub functions: Vec<FunctionRows>,
    /// Plain messages: what the report cannot give, and the model's problems.
    pub messages: Vec<String>,
    /// Whether the binary carries CUDA-C line info.
    pub has_line_info: bool,
    /// Whether the SASS rows have nvdisasm's text.
    pub has_sass_text: bool,
}

/// The message of a report without line info.
pub const NO_LINE_INFO: &str = "built without -lineinfo: SASS addresses only (no CUDA-C or PTX \
     lines; rebuild with nvcc -lineinfo to see them)";

impl PageData {
    /// Builds the rows of every view from the model's page. `read_local` reads a source file
    /// from this machine (`None` when it is not there).
    pub fn build(
        page: &SourcePage,
        kernel: String,
        read_local: &dyn Fn(&Path) -> Option<String>,
        extra_messages: Vec<String>,
    ) -> PageData {
        let columns = column_infos(page);
        let sass = sass_rows(page);
        let pcs: Vec<u64> = page.sass().iter().map(|r| r.address).collect();
        let sums = Sums {
            sass: &sass,
            width: columns.len(),
        };
        let files = source_files(page, &sums, read_local);
        let ptx = ptx_rows(page, &sums);
        let functions = function_rows(page, &sums);
        let has_line_info = page.module().has_line_info();
        let messages = page_messages(page, !sass.is_empty(), extra_messages);
        PageData {
            kernel,
            columns,
            has_sass_text: page.has_sass_text(),
            sass,
            pcs,
            files,
            ptx,
            functions,
            messages,
            has_line_info,
        }
    }

    /// Gives file `index` the text of `content` (a file the user resolved).
    pub fn resolve_file(&mut self, index: usize, path: PathBuf, content: &str) {
        if let Some(file) = self.files.get_mut(index) {
            // Back to the lines with code, then every line of the chosen file.
            file.rows.retain(|r| !r.pcs.is_empty());
            fill_text(file, content);
            file.text = FileText::Resolved(path);
        }
    }

    /// The rows of `view` (of file `file` for the Source view).
    pub fn rows(&self, view: View, file: usize) -> &[Row] {
        match view {
            View::Source => self.files.get(file).map_or(&[], |f| &f.rows),
            View::Sass => &self.sass,
            View::Ptx => &self.ptx,
        }
    }

    /// The SASS row of absolute PC `pc`.
    pub fn sass_row_of(&self, pc: u64) -> Option<usize> {
        self.pcs.binary_search(&pc).ok()
    }
}

/// The page's columns with their units and their totals over the launch's instructions.
fn column_infos(page: &SourcePage) -> Vec<ColumnInfo> {
    page.columns()
        .columns()
        .iter()
        .enumerate()
        .map(|(c, column)| {
            let unit = match &column.kind {
                ColumnKind::Metric(name) => infer_unit(name).into_owned(),
                ColumnKind::Sum(names) => names
                    .first()
                    .map(|n| infer_unit(n).into_owned())
                    .unwrap_or_default(),
                ColumnKind::MemoryLabel(_) => String::new(),
            };
            let total = page
                .sass()
                .iter()
                .filter_map(|r| match r.cells.get(c) {
                    Some(Cell::Number(v)) if v.is_finite() => Some(*v),
                    _ => None,
                })
                .sum();
            ColumnInfo {
                label: column.label.clone(),
                unit,
                numeric: column.is_numeric(),
                total,
            }
        })
        .collect()
}

/// One row per instruction: its address, its text (nvdisasm's, else the encoding and the
/// memory operation) and its cells.
fn sass_rows(page: &SourcePage) -> Vec<Row> {
    page.sass()
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let text = match &r.text {
                Some(t) => t.clone(),
                None => {
                    let encoding = r.encoding.as_deref().map(hex).unwrap_or_default();
                    let memory = r.memory_operation(page);
                    if memory.is_empty() {
                        encoding
                    } else {
                        format!("{encoding}  {memory}")
                    }
                }
            };
            Row {
                location: format!("{:#x}", r.address),
                text,
                cells: r.cells.clone(),
                pcs: vec![i as u32],
            }
        })
        .collect()
}

/// Sums of SASS rows' cells per column (the aggregates of files, PTX lines and functions).
struct Sums<'a> {
    /// The SASS rows.
    sass: &'a [Row],
    /// The number of columns.
    width: usize,
}

impl Sums<'_> {
    /// The sums over the SASS rows `rows`, per column (empty where no row has a number).
    fn of(&self, rows: &mut dyn Iterator<Item = usize>) -> Vec<Cell> {
        let mut sums: Vec<Option<f64>> = vec![None; self.width];
        for r in rows {
            let Some(row) = self.sass.get(r) else {
                continue;
            };
            for (c, sum) in sums.iter_mut().enumerate() {
                if let Some(v) = row.number(c) {
                    *sum = Some(sum.unwrap_or(0.0) + v);
                }
            }
        }
        sums.into_iter()
            .map(|s| s.map_or(Cell::Empty, Cell::Number))
            .collect()
    }
}

/// The source files: every line of a file whose text is known (imported, else read from this
/// machine), else its lines with code; each with the sums over its distinct instructions.
fn source_files(
    page: &SourcePage,
    sums: &Sums,
    read_local: &dyn Fn(&Path) -> Option<String>,
) -> Vec<SourceFileRows> {
    let module = page.module();
    let mut files: Vec<SourceFileRows> = Vec::new();
    for block in page.cuda_lines() {
        let index = match files.iter().position(|f| f.name == block.location.file) {
            Some(i) => i,
            None => {
                files.push(SourceFileRows {
                    name: block.location.file.clone(),
                    text: FileText::Missing,
                    rows: Vec::new(),
                    cells: Vec::new(),
                });
                files.len() - 1
            }
        };
        let file = &mut files[index];
        file.rows.push(Row {
            location: block.location.line.to_string(),
            text: String::new(),
            cells: block.cells.clone(),
            pcs: block.rows.iter().map(|&r| r as u32).collect(),
        });
    }
    for file in &mut files {
        let imported = module
            .source_file(&file.name)
            .and_then(|f| f.content.clone());
        let (text, content) = match imported {
            Some(content) => (FileText::Imported, Some(content)),
            None => match read_local(Path::new(&file.name)) {
                Some(content) => (FileText::Local(PathBuf::from(&file.name)), Some(content)),
                None => (FileText::Missing, None),
            },
        };
        file.text = text;
        if let Some(content) = content {
            fill_text(file, &content);
        }
        let mut all = file
            .rows
            .iter()
            .flat_map(|r| r.pcs.iter().map(|&p| p as usize));
        let mut distinct: Vec<usize> = all.by_ref().collect();
        distinct.sort_unstable();
        distinct.dedup();
        file.cells = sums.of(&mut distinct.into_iter());
    }
    files
}

/// The PTX lines, each with the instructions mapped to it and their sums (none for a line
/// without instructions, drawn as empty).
fn ptx_rows(page: &SourcePage, sums: &Sums) -> Vec<Row> {
    let ptx_text = page.ptx().lines();
    let mut by_line: Vec<Vec<u32>> = vec![Vec::new(); ptx_text.len()];
    for (i, r) in page.sass().iter().enumerate() {
        if let Some(list) = r
            .ptx_line
            .and_then(|l| (l as usize).checked_sub(1))
            .and_then(|l| by_line.get_mut(l))
        {
            list.push(i as u32);
        }
    }
    ptx_text
        .iter()
        .zip(by_line)
        .enumerate()
        .map(|(i, (text, pcs))| {
            let cells = if pcs.is_empty() {
                Vec::new()
            } else {
                sums.of(&mut pcs.iter().map(|&p| p as usize))
            };
            Row {
                location: (i + 1).to_string(),
                text: text.clone(),
                cells,
                pcs,
            }
        })
        .collect()
}

/// The functions: the kernel first, then its callees by address (the model's blocks, in
/// address order), each with the sums over its instructions.
fn function_rows(page: &SourcePage, sums: &Sums) -> Vec<FunctionRows> {
    let mut functions: Vec<FunctionRows> = page
        .functions()
        .iter()
        .filter(|f| !f.rows.is_empty())
        .map(|f| FunctionRows {
            name: f.name.clone(),
            mangled: f.mangled.clone(),
            kernel: f.kernel,
            first_row: f.rows.start,
            cells: sums.of(&mut f.rows.clone()),
        })
        .collect();
    functions.sort_by_key(|f| !f.kernel);
    functions
}

/// The page's plain messages: what the report cannot give (line info, PTX), the caller's
/// `extra` messages, then the model's problems.
fn page_messages(page: &SourcePage, has_sass: bool, extra: Vec<String>) -> Vec<String> {
    let module = page.module();
    let has_line_info = module.has_line_info();
    let mut messages = Vec::new();
    if !has_line_info && has_sass {
        messages.push(NO_LINE_INFO.to_owned());
    }
    if page.ptx().is_empty() && has_line_info {
        messages.push("the binary holds no PTX text: the PTX view is empty".to_owned());
    }
    messages.extend(extra);
    messages.extend(page.problems().iter().map(Problem::to_string));
    messages
}

/// The instruction bytes as one hexadecimal number (the last byte first).
fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes.iter().rev() {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    out
}

/// A file's name without its folders (for row names).
pub fn short_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// Every line of `content` becomes a row; the lines with code keep their cells and PCs (the
/// others have none: they are drawn empty).
fn fill_text(file: &mut SourceFileRows, content: &str) {
    let mut with_code: std::collections::BTreeMap<u32, Row> = std::mem::take(&mut file.rows)
        .into_iter()
        .filter_map(|r| Some((r.location.parse::<u32>().ok()?, r)))
        .collect();
    let mut rows = Vec::new();
    let content = content.strip_suffix('\n').unwrap_or(content);
    for (i, text) in content.split('\n').enumerate() {
        let line = i as u32 + 1;
        let text = text
            .strip_suffix('\r')
            .unwrap_or(text)
            .replace('\t', "    ");
        let mut row = with_code.remove(&line).unwrap_or_else(|| Row {
            location: line.to_string(),
            text: String::new(),
            cells: Vec::new(),
            pcs: Vec::new(),
        });
        row.text = text;
        rows.push(row);
    }
    // Lines the line table names beyond the end of the file.
    rows.extend(with_code.into_values());
    file.rows = rows;
}
