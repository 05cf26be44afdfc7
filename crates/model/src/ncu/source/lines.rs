//! DWARF line programs of a cubin: `.debug_line` (SASS address → CUDA-C file:line) and
//! `.nv_debug_line_sass` (SASS address → PTX line), read with `gimli`.
//!
//! Lookup follows NVIDIA's reader, not addr2line: of the rows at the greatest address ≤ the
//! PC, the **first** in program order gives the answer ("last row wins" gives other lines on
//! real Julia-compiled cubins, where several rows share an address). For per-line
//! aggregates, [`LineTable::all_at`] gives every distinct file:line with a row at that address.

use gimli::{AttributeValue, DebugLine, DebugLineOffset, EndianSlice, LittleEndian};

use crate::core::num::index_u32;

/// One row of a line program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineRow {
    /// The (relocated) address.
    pub address: u64,
    /// Index into [`LineTable::files`].
    pub file: u32,
    /// 1-based line; 0 when the row names no line.
    pub line: u32,
    /// Whether the row ends a sequence (its address is one past the sequence's code).
    pub end_sequence: bool,
}

/// A file:line answer.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileLine {
    /// The file path as the line program names it (directory joined to the name).
    pub file: String,
    /// 1-based line.
    pub line: u32,
}

/// All rows of all line programs of one section, sorted by address (program order kept
/// among rows of the same address).
#[derive(Debug, Clone, Default)]
pub struct LineTable {
    rows: Vec<LineRow>,
    files: Vec<String>,
    /// One entry per distinct row address: the address and the range of `lines` holding the
    /// distinct (file, line) pairs of its rows in program order (empty when the address only
    /// ends sequences). Built once, so lookups are a binary search.
    groups: Vec<(u64, u32, u32)>,
    lines: Vec<(u32, u32)>,
    /// Distinct lines left out at addresses with more than [`MAX_LINES_PER_ADDRESS`].
    dropped: usize,
}

/// The most distinct file:line pairs kept for one address (real cubins have 1 to 3; a damaged
/// table with thousands would make every lookup slow).
pub const MAX_LINES_PER_ADDRESS: usize = 256;

/// Why a line section did not read; the rows read before the damage are kept.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{section} at byte {offset}: {message}")]
pub struct LineError {
    /// The section (`.debug_line`, `.nv_debug_line_sass`).
    pub section: String,
    /// Byte offset of the line program that failed.
    pub offset: usize,
    /// gimli's message.
    pub message: String,
}

impl LineTable {
    /// Reads every line program of `bytes` (a whole `.debug_line`-format section). Returns the
    /// rows read and the first error, if any (later programs are not read after an error).
    pub fn parse(section: &str, bytes: &[u8]) -> (LineTable, Option<LineError>) {
        let mut table = LineTable::default();
        let debug_line = DebugLine::new(bytes, LittleEndian);
        let mut offset = 0usize;
        let mut error = None;
        while offset < bytes.len() {
            match table.read_program(&debug_line, offset) {
                Ok(next) if next > offset => offset = next,
                Ok(_) => break,
                Err(e) => {
                    error = Some(LineError {
                        section: section.to_owned(),
                        offset,
                        message: e.to_string(),
                    });
                    break;
                }
            }
        }
        // Stable: rows of one address keep their program order.
        table.rows.sort_by_key(|r| r.address);
        table.index();
        (table, error)
    }

    /// Builds `groups` and `lines` from the sorted rows.
    fn index(&mut self) {
        let mut seen = std::collections::HashSet::new();
        let mut start = 0;
        while start < self.rows.len() {
            let address = self.rows[start].address;
            let end = start + self.rows[start..].partition_point(|r| r.address == address);
            seen.clear();
            let first = index_u32(self.lines.len());
            for r in &self.rows[start..end] {
                if r.end_sequence || r.line == 0 || !seen.insert((r.file, r.line)) {
                    continue;
                }
                if seen.len() > MAX_LINES_PER_ADDRESS {
                    self.dropped += 1;
                    continue;
                }
                self.lines.push((r.file, r.line));
            }
            self.groups
                .push((address, first, index_u32(self.lines.len())));
            start = end;
        }
    }

    /// How many distinct lines were left out at addresses with more than
    /// [`MAX_LINES_PER_ADDRESS`] (0 for real cubins).
    pub fn dropped_lines(&self) -> usize {
        self.dropped
    }

    fn read_program(
        &mut self,
        debug_line: &DebugLine<EndianSlice<'_, LittleEndian>>,
        offset: usize,
    ) -> gimli::Result<usize> {
        let program = debug_line.program(DebugLineOffset(offset), 8, None, None)?;
        let header = program.header();
        let next = offset
            .saturating_add(usize::from(header.format().initial_length_size()))
            .saturating_add(header.unit_length());
        let mut file_ids: Vec<(u64, u32)> = Vec::new();
        let mut rows = program.rows();
        while let Some((header, row)) = rows.next_row()? {
            let index = row.file_index();
            let file = match file_ids.iter().find(|(i, _)| *i == index) {
                Some(&(_, id)) => id,
                None => {
                    let name = file_name(header, row.file(header));
                    let id = match self.files.iter().position(|f| *f == name) {
                        Some(p) => index_u32(p),
                        None => {
                            self.files.push(name);
                            index_u32(self.files.len() - 1)
                        }
                    };
                    file_ids.push((index, id));
                    id
                }
            };
            self.rows.push(LineRow {
                address: row.address(),
                file,
                line: row
                    .line()
                    .map_or(0, |l| u32::try_from(l.get()).unwrap_or(u32::MAX)),
                end_sequence: row.end_sequence(),
            });
        }
        Ok(next)
    }

    /// The rows, sorted by address.
    pub fn rows(&self) -> &[LineRow] {
        &self.rows
    }

    /// The file names rows index.
    pub fn files(&self) -> &[String] {
        &self.files
    }

    /// Whether the table has no rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The distinct (file, line) pairs of the rows at the greatest row address ≤ `pc` (none
    /// when that address only ends sequences, or when `pc` precedes every row).
    fn lines_at(&self, pc: u64) -> &[(u32, u32)] {
        let end = self.groups.partition_point(|g| g.0 <= pc);
        let Some(&(_, first, last)) = end.checked_sub(1).and_then(|i| self.groups.get(i)) else {
            return &[];
        };
        self.lines.get(first as usize..last as usize).unwrap_or(&[])
    }

    /// NVIDIA's answer for `pc`: the first row (in program order) at the greatest address ≤
    /// `pc` that is not an end of sequence and names a line.
    pub fn first_at(&self, pc: u64) -> Option<(u32, u32)> {
        self.lines_at(pc).first().copied()
    }

    /// Every distinct (file, line) with a row at the greatest address ≤ `pc`, in program order.
    /// A row covers the PCs up to the next row's address: with two rows at A and the next at
    /// A+0x40, the PCs A..A+0x30 count toward both lines (as NVIDIA's page lists them: checked
    /// on indexspaces kernel 1 against `ncu --page source`).
    pub fn all_at(&self, pc: u64) -> &[(u32, u32)] {
        self.lines_at(pc)
    }

    /// [`LineTable::first_at`] with the file's name.
    pub fn file_line(&self, pc: u64) -> Option<FileLine> {
        let (file, line) = self.first_at(pc)?;
        Some(FileLine {
            file: self.files.get(file as usize)?.clone(),
            line,
        })
    }
}

type Header<'a> = gimli::LineProgramHeader<EndianSlice<'a, LittleEndian>>;

fn attr_text(value: Option<AttributeValue<EndianSlice<'_, LittleEndian>>>) -> Option<String> {
    match value? {
        AttributeValue::String(s) => Some(String::from_utf8_lossy(s.slice()).into_owned()),
        _ => None,
    }
}

/// Backslash runs as one `/` (Windows builds store `C:\\Program Files\\...\\include\`;
/// NVIDIA's reader shows `C:/Program Files/.../include/name`).
fn normalize(path: &str) -> String {
    if !path.contains('\\') {
        return path.to_owned();
    }
    let mut out = String::with_capacity(path.len());
    let mut in_run = false;
    for c in path.chars() {
        if c == '\\' {
            if !in_run {
                out.push('/');
            }
            in_run = true;
        } else {
            out.push(c);
            in_run = false;
        }
    }
    out
}

/// The file's path: its directory joined to its name unless the name is absolute, with `.`
/// and `dir/..` steps resolved ([`resolve_dots`]).
fn file_name(
    header: &Header<'_>,
    file: Option<&gimli::FileEntry<EndianSlice<'_, LittleEndian>>>,
) -> String {
    let Some(file) = file else {
        return String::new();
    };
    let name = normalize(&attr_text(Some(file.path_name())).unwrap_or_default());
    if name.starts_with('/') || name.get(1..3) == Some(":/") {
        return resolve_dots(&name);
    }
    match attr_text(file.directory(header)).map(|d| normalize(&d)) {
        // `.` (the compilation folder) is not shown: NVIDIA's reader gives `int.jl`.
        Some(dir) if !dir.is_empty() && dir != "." => {
            if dir.ends_with('/') {
                resolve_dots(&format!("{dir}{name}"))
            } else {
                resolve_dots(&format!("{dir}/{name}"))
            }
        }
        _ => resolve_dots(&name),
    }
}

/// A `/`-separated path with its `.` steps dropped and each `dir/..` pair removed, as NVIDIA's
/// reader names files (`cub/device/dispatch/../../agent/x.cuh` is `cub/agent/x.cuh`; checked
/// against `IAction.source_info` on the cub headers of the corpus). Purely textual: symbolic
/// links are not followed. A `..` with nothing before it to remove stays (`../x.h`), and
/// `/..` is `/` (`c:/..` is `c:`).
pub fn resolve_dots(path: &str) -> String {
    if !path.contains("/.") && !path.starts_with('.') {
        return path.to_owned();
    }
    let absolute = path.starts_with('/');
    let mut steps: Vec<&str> = Vec::new();
    for step in path.split('/') {
        match step {
            "" | "." => {}
            ".." => match steps.last() {
                // A drive (`c:`) is a root, as `/` is.
                Some(&last) if last.ends_with(':') && steps.len() == 1 => {}
                Some(&last) if last != ".." => {
                    steps.pop();
                }
                _ if absolute => {}
                _ => steps.push(".."),
            },
            _ => steps.push(step),
        }
    }
    let joined = steps.join("/");
    if absolute {
        format!("/{joined}")
    } else if joined.is_empty() {
        ".".to_owned()
    } else {
        joined
    }
}

#[cfg(test)]
mod tests {
    use super::resolve_dots;

    #[test]
    fn dot_steps_are_resolved_as_nvidia_names_files() {
        let cub = "/apps/cuda_11.7.0/include/cub/device/dispatch/../../agent/scan.cuh";
        assert_eq!(
            resolve_dots(cub),
            "/apps/cuda_11.7.0/include/cub/agent/scan.cuh"
        );
        assert_eq!(
            resolve_dots("/inc/cub/block/../block/../util_ptx.cuh"),
            "/inc/cub/util_ptx.cuh"
        );
        assert_eq!(resolve_dots("c:/src/./a/../b.cu"), "c:/src/b.cu");
        assert_eq!(resolve_dots("c:/../b.cu"), "c:/b.cu");
        assert_eq!(resolve_dots("../inc/x.h"), "../inc/x.h");
        assert_eq!(resolve_dots("a/../../x.h"), "../x.h");
        assert_eq!(resolve_dots("/../x.h"), "/x.h");
        assert_eq!(resolve_dots("/src/kernel.cu"), "/src/kernel.cu");
        assert_eq!(resolve_dots("kernel.cu"), "kernel.cu");
    }
}
