//! `sightline source`: the Source page of one kernel — CUDA-C lines with their SASS rows, SASS
//! only, or the module's PTX — as an aligned table, as CSV in the shape of
//! `ncu --import R --page source --csv --print-source cuda,sass|sass|ptx`, or as JSON.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::ncu::NameBase;
use crate::ncu::source::demangle::demangle;
use crate::ncu::source::nvdisasm::{self, NvdisasmOptions};
use crate::ncu::source::{Cell, PageView, SassRow, SourcePage};

use super::common::open_report;

/// Which rows to print.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// CUDA-C lines, each followed by its instructions (ncu's `cuda,sass`).
    Cuda,
    /// Instructions only.
    Sass,
    /// The module's PTX.
    Ptx,
}

/// Arguments of `sightline source`.
#[derive(clap::Args, Debug, Clone)]
pub struct SourceArgs {
    /// The report (.ncu-rep or .ncu-repz).
    pub report: PathBuf,
    /// The kernel result, 0-based in report order.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub kernel: usize,
    /// The view.
    #[arg(long, value_enum, default_value_t = View::Cuda)]
    pub view: View,
    /// CSV as `ncu --import R --page source --csv` prints it.
    #[arg(long, conflicts_with = "json")]
    pub csv: bool,
    /// JSON: the columns and the rows.
    #[arg(long)]
    pub json: bool,
    /// NVIDIA's disassembler, for the SASS text (a path that is no file: none). Without it, or
    /// when it cannot read the cubin's architecture, the first that can among those in
    /// $SIGHTLINE_NVDISASM_PATH, on PATH, in $CUDA_HOME/bin (on Windows also the CUDA toolkits in
    /// Program Files) and in nvidia-cuda-nvdisasm wheels.
    #[arg(long, value_name = "PATH")]
    pub nvdisasm: Option<PathBuf>,
    /// Where nvdisasm's output is cached (default: the user's cache folder,
    /// `$XDG_CACHE_HOME/sightline/nvdisasm`; `%LOCALAPPDATA%\Sightline\nvdisasm` on Windows).
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
}

/// Prints the page of `--kernel` to `out`; problems and the hint about nvdisasm go to stderr.
pub fn run(args: &SourceArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let report = open_report(&args.report)?;
    if args.kernel >= report.num_actions() {
        anyhow::bail!(
            "{}: no kernel {} (the report has {} results)",
            args.report.display(),
            args.kernel,
            report.num_actions()
        );
    }
    let action = report.action(args.kernel)?;
    let view = match args.view {
        View::Cuda => PageView::CudaSass,
        View::Sass => PageView::Sass,
        View::Ptx => PageView::Ptx,
    };
    let mut page = SourcePage::build(&report, &action, None)?;
    if view != PageView::Ptx {
        let options = NvdisasmOptions {
            explicit: args.nvdisasm.clone(),
            cache_dir: Some(
                args.cache_dir
                    .clone()
                    .unwrap_or_else(nvdisasm::default_cache_dir),
            ),
            ..NvdisasmOptions::default()
        };
        match nvdisasm::disassemble_page(&page, &options) {
            Ok(Some(disassembly)) => page = page.with_disassembly(&disassembly),
            Ok(None) => eprintln!("{}", nvdisasm::MISSING_HINT),
            Err(e) => eprintln!("warning: {e}"),
        }
    }
    for problem in page.problems() {
        eprintln!("{}: {problem}", args.report.display());
    }
    // The kernel's name as ncu's Source page prints it: the symbol demangled in NVIDIA's
    // current style (reports of 2020.x store another), else the report's demangled name.
    let name = demangle(action.name(NameBase::Mangled))
        .unwrap_or_else(|| action.name(NameBase::Demangled).to_owned());
    if args.json {
        write_json(&page, view, &name, out)?;
    } else if args.csv {
        write_csv(&page, view, &name, out)?;
    } else {
        write_table(&page, view, &name, out)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn quoted(fields: &[String]) -> String {
    // ncu does not double embedded quotes in the source views.
    fields
        .iter()
        .map(|f| format!("\"{f}\""))
        .collect::<Vec<_>>()
        .join(",")
}

fn cells(cells: &[Cell]) -> Vec<String> {
    cells.iter().map(Cell::csv_text).collect()
}

fn labels(page: &SourcePage) -> Vec<String> {
    page.columns()
        .columns()
        .iter()
        .map(|c| c.label.clone())
        .collect()
}

fn write_csv(
    page: &SourcePage,
    view: PageView,
    name: &str,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let trailing = if page.columns().columns().is_empty() {
        ""
    } else {
        ","
    };
    match view {
        PageView::Ptx => {
            writeln!(out, "\"Line No\",\"Source\"")?;
            for (i, line) in page.ptx().lines().iter().enumerate() {
                writeln!(out, "\"{}\",\"{line}\"", i + 1)?;
            }
        }
        PageView::Sass => {
            let mut header = vec!["Address".to_owned(), "Source".to_owned()];
            header.extend(labels(page));
            // One block per function (the kernel and its callees, by address), as ncu prints
            // them; a single block named by the kernel without function blocks.
            let mut block: Option<Option<usize>> = None;
            for row in page.sass() {
                let function = row.function.filter(|_| !page.functions().is_empty());
                if block != Some(function) {
                    block = Some(function);
                    let title = page.function_of(row).map_or(name, |f| f.name.as_str());
                    writeln!(out, "\"Kernel Name\",\"{title}\"{trailing}")?;
                    writeln!(out, "{}", quoted(&header))?;
                }
                let text = row.csv_text.clone().unwrap_or_default();
                let mut f = vec![format!("{:#x}", row.address), text];
                f.extend(cells(&row.cells));
                writeln!(out, "{}", quoted(&f))?;
            }
            if block.is_none() {
                writeln!(out, "\"Kernel Name\",\"{name}\"{trailing}")?;
                writeln!(out, "{}", quoted(&header))?;
            }
        }
        PageView::CudaSass => {
            let lines = page.cuda_lines_by_function();
            let mut at: Option<(&str, Option<usize>)> = None;
            for block in &lines {
                let file = block.location.file.as_str();
                if at.is_none_or(|(f, _)| f != file) {
                    writeln!(out, "\"File Path\",\"{file}\"")?;
                }
                if at != Some((file, block.function)) {
                    at = Some((file, block.function));
                    let title = block
                        .function
                        .and_then(|f| page.functions().get(f))
                        .map_or(name, |f| f.name.as_str());
                    writeln!(out, "\"Function Name\",\"{title}\"")?;
                    let mut header: Vec<String> = ["Line No", "Source", "Address", "Source"]
                        .map(str::to_owned)
                        .to_vec();
                    header.extend(labels(page));
                    writeln!(out, "{}", quoted(&header))?;
                }
                let mut f = vec![
                    block.location.line.to_string(),
                    block
                        .text
                        .clone()
                        .unwrap_or_else(|| "<Unable to open source file>".into()),
                    "-".into(),
                    "-".into(),
                ];
                f.extend(cells(&block.cells));
                writeln!(out, "{}", quoted(&f))?;
                let mut previous: Option<u64> = None;
                for &r in &block.rows {
                    let row = &page.sass()[r];
                    // ncu marks a gap between the line's instructions with a `...` row.
                    if previous.is_some_and(|p| p.wrapping_add(16) != row.address) {
                        let mut gap: Vec<String> =
                            ["", "", "...", "..."].map(str::to_owned).to_vec();
                        gap.extend(block.cells.iter().map(|_| "-".to_owned()));
                        writeln!(out, "{}", quoted(&gap))?;
                    }
                    previous = Some(row.address);
                    let mut f = vec![
                        String::new(),
                        String::new(),
                        format!("{:#x}", row.address),
                        row.csv_text.clone().unwrap_or_default(),
                    ];
                    f.extend(cells(&row.cells));
                    writeln!(out, "{}", quoted(&f))?;
                }
            }
        }
    }
    Ok(())
}

/// A readable table: one header, right-aligned numbers, SASS rows indented under their line.
fn write_table(
    page: &SourcePage,
    view: PageView,
    name: &str,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    writeln!(out, "Kernel: {name}")?;
    if view == PageView::Ptx {
        return write_ptx(page, out);
    }
    let mut header = vec!["Location".to_owned(), "Source".to_owned()];
    header.extend(labels(page));
    let table = table_rows(page, view, out)?;
    write_aligned_table(&header, &table.rows, &table.headings, out)?;
    Ok(())
}

/// The module's PTX with line numbers (or why there is none).
fn write_ptx(page: &SourcePage, out: &mut dyn Write) -> anyhow::Result<()> {
    let lines = page.ptx().lines();
    if lines.is_empty() {
        writeln!(
            out,
            "(the cubin holds no PTX: built without -lineinfo or -G)"
        )?;
    }
    let width = lines.len().to_string().len();
    for (i, line) in lines.iter().enumerate() {
        writeln!(out, "{:>width$}  {line}", i + 1)?;
    }
    Ok(())
}

/// The fields of an instruction's row: its address (indented), its text (nvdisasm's, else
/// the encoding and the memory operation) and its cells.
fn sass_fields(page: &SourcePage, row: &SassRow) -> Vec<String> {
    let text = match &row.text {
        Some(t) => t.clone(),
        None => {
            let encoding = row
                .encoding
                .as_ref()
                .map(|e| {
                    e.iter()
                        .rev()
                        .map(|b| format!("{b:02x}"))
                        .collect::<String>()
                })
                .unwrap_or_default();
            let memory = row.memory_operation(page);
            if memory.is_empty() {
                encoding
            } else {
                format!("{encoding}  {memory}")
            }
        }
    };
    let mut f = vec![format!("  {:#x}", row.address), text];
    f.extend(cells(&row.cells));
    f
}

/// The table's rows: with line info, each CUDA-C line followed by its instructions; else
/// the instructions (after a note when CUDA-C was asked for), each function of several under
/// a heading of its own.
fn table_rows(page: &SourcePage, view: PageView, out: &mut dyn Write) -> anyhow::Result<TableRows> {
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut headings: Vec<(usize, String)> = Vec::new();
    if view == PageView::CudaSass && page.module().has_line_info() {
        for block in page.cuda_lines() {
            let mut f = vec![
                format!("{}:{}", block.location.file, block.location.line),
                block.text.clone().unwrap_or_default().trim().to_owned(),
            ];
            f.extend(cells(&block.cells));
            rows.push(f);
            for &r in &block.rows {
                rows.push(sass_fields(page, &page.sass()[r]));
            }
        }
    } else {
        if view == PageView::CudaSass {
            writeln!(
                out,
                "(no line information: built without -lineinfo or -G; showing SASS only)"
            )?;
        }
        let mut function = None;
        for row in page.sass() {
            if page.functions().len() > 1 && row.function != function {
                function = row.function;
                if let Some(f) = page.function_of(row) {
                    headings.push((rows.len(), format!("Function: {}", f.name)));
                }
            }
            rows.push(sass_fields(page, row));
        }
    }
    Ok(TableRows { rows, headings })
}

/// The rows of the readable table, with headings between them.
struct TableRows {
    /// The rows' fields.
    rows: Vec<Vec<String>>,
    /// Lines printed as they are before the row of their index.
    headings: Vec<(usize, String)>,
}

/// Writes `header` and `rows` in aligned columns (the location and the text left-aligned,
/// the text cut at 60 characters with `…`, the numbers right-aligned), each heading before
/// the row of its index.
fn write_aligned_table(
    header: &[String],
    rows: &[Vec<String>],
    headings: &[(usize, String)],
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, f) in row.iter().enumerate() {
            if let Some(w) = widths.get_mut(i) {
                *w = (*w).max(f.chars().count().min(if i == 1 { 60 } else { 200 }));
            }
        }
    }
    let line = |fields: &[String], out: &mut dyn Write| -> std::io::Result<()> {
        let mut text = String::new();
        for (i, f) in fields.iter().enumerate() {
            let w = widths.get(i).copied().unwrap_or(0);
            let f: String = if i == 1 && f.chars().count() > w {
                f.chars().take(w.saturating_sub(1)).chain(['…']).collect()
            } else {
                f.clone()
            };
            if i < 2 {
                text.push_str(&format!("{f:<w$}  "));
            } else {
                text.push_str(&format!("{f:>w$}  "));
            }
        }
        writeln!(out, "{}", text.trim_end())
    };
    line(header, out)?;
    let mut headings = headings.iter().peekable();
    for (i, row) in rows.iter().enumerate() {
        while let Some((_, heading)) = headings.next_if(|(at, _)| *at == i) {
            writeln!(out, "{heading}")?;
        }
        line(row, out)?;
    }
    Ok(())
}

fn json_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn json_cell(cell: &Cell) -> String {
    match cell {
        Cell::Number(v) if v.is_finite() => format!("{v}"),
        Cell::Empty | Cell::Number(_) => "null".into(),
        Cell::Text(t) => json_string(t),
    }
}

fn json_cells(cells: &[Cell]) -> String {
    format!(
        "[{}]",
        cells.iter().map(json_cell).collect::<Vec<_>>().join(",")
    )
}

fn json_sass(row: &SassRow) -> String {
    format!(
        "{{\"address\":{},\"function\":{},\"sass\":{},\"file\":{},\"line\":{},\"ptx_line\":{},\"values\":{}}}",
        row.address,
        row.function.map_or("null".into(), |f| f.to_string()),
        row.text.as_deref().map_or("null".into(), json_string),
        row.source
            .as_ref()
            .map_or("null".into(), |s| json_string(&s.file)),
        row.source
            .as_ref()
            .map_or("null".into(), |s| s.line.to_string()),
        row.ptx_line.map_or("null".into(), |l| l.to_string()),
        json_cells(&row.cells)
    )
}

fn write_json(
    page: &SourcePage,
    view: PageView,
    name: &str,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let columns = labels(page)
        .iter()
        .map(|l| json_string(l))
        .collect::<Vec<_>>()
        .join(",");
    let functions = page
        .functions()
        .iter()
        .map(|f| {
            format!(
                "{{\"name\":{},\"mangled\":{},\"start\":{},\"end\":{},\"kernel\":{}}}",
                json_string(&f.name),
                json_string(&f.mangled),
                f.start,
                f.end,
                f.kernel
            )
        })
        .collect::<Vec<_>>()
        .join(",");
    write!(
        out,
        "{{\"kernel\":{},\"functions\":[{functions}],\"columns\":[{columns}]",
        json_string(name)
    )?;
    match view {
        PageView::Ptx => {
            let lines = page
                .ptx()
                .lines()
                .iter()
                .map(|l| json_string(l))
                .collect::<Vec<_>>()
                .join(",");
            write!(out, ",\"ptx\":[{lines}]")?;
        }
        PageView::Sass => {
            let rows = page
                .sass()
                .iter()
                .map(json_sass)
                .collect::<Vec<_>>()
                .join(",");
            write!(out, ",\"sass\":[{rows}]")?;
        }
        PageView::CudaSass => {
            let blocks = page
                .cuda_lines()
                .iter()
                .map(|b| {
                    format!(
                        "{{\"file\":{},\"line\":{},\"source\":{},\"values\":{},\"sass\":[{}]}}",
                        json_string(&b.location.file),
                        b.location.line,
                        b.text.as_deref().map_or("null".into(), json_string),
                        json_cells(&b.cells),
                        b.rows
                            .iter()
                            .map(|&r| json_sass(&page.sass()[r]))
                            .collect::<Vec<_>>()
                            .join(",")
                    )
                })
                .collect::<Vec<_>>()
                .join(",");
            write!(out, ",\"lines\":[{blocks}]")?;
        }
    }
    let problems = page
        .problems()
        .iter()
        .map(|p| json_string(&p.to_string()))
        .collect::<Vec<_>>()
        .join(",");
    writeln!(out, ",\"problems\":[{problems}]}}")?;
    Ok(())
}
