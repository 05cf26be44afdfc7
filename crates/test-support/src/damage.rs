//! Damaged copies of SQLite files, for the tolerant readers' tests: the leaf pages of a table's
//! b-tree (found by walking the b-tree as SQLite's documented file format lays it out), and the
//! ways a file gets damaged — a page overwritten with zeros or garbage, a file cut short.
//!
//! File format facts used (<https://www.sqlite.org/fileformat2.html>): the page size is the
//! big-endian `u16` at byte 16 of the header (1 means 65,536); page 1 starts with the 100-byte
//! header; a b-tree page starts with its type (`0x05` table interior, `0x0D` table leaf), the cell
//! count at bytes 3–4, the right-most child at bytes 8–11 (interior pages only, whose header is 12
//! bytes; a leaf's is 8), then one big-endian `u16` offset per cell. An interior cell is a `u32`
//! left child then the varint key; a leaf cell is the varint payload size then the varint rowid.

use std::fs::OpenOptions;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// One leaf page of a table b-tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeafPage {
    /// Its page number (1-based).
    pub page: u32,
    /// The rowids of its rows, in order.
    pub rowids: Vec<i64>,
}

/// The page size of the SQLite file `bytes`.
pub fn page_size(bytes: &[u8]) -> io::Result<usize> {
    let raw = bytes
        .get(16..18)
        .map(|b| u16::from_be_bytes([b[0], b[1]]))
        .ok_or_else(|| invalid("shorter than the SQLite header"))?;
    Ok(if raw == 1 { 65_536 } else { usize::from(raw) })
}

/// The leaf pages of the table whose b-tree starts at page `root`, in rowid order.
pub fn table_leaves(bytes: &[u8], root: u32) -> io::Result<Vec<LeafPage>> {
    let size = page_size(bytes)?;
    let mut leaves = Vec::new();
    walk(bytes, size, root, &mut leaves, 0)?;
    Ok(leaves)
}

/// The root page of `table` in the (undamaged) SQLite file at `path`.
pub fn root_page(path: &Path, table: &str) -> rusqlite::Result<u32> {
    let conn =
        rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    conn.query_row(
        "SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = ?1",
        [table],
        |row| row.get(0),
    )
}

/// Overwrites page `page` (1-based) of the file at `path` with `fill` bytes.
pub fn overwrite_page(path: &Path, page: u32, fill: u8) -> io::Result<()> {
    let mut file = OpenOptions::new().read(true).write(true).open(path)?;
    let mut header = [0u8; 18];
    file.read_exact(&mut header)?;
    let size = page_size(&header)?;
    file.seek(SeekFrom::Start((u64::from(page) - 1) * size as u64))?;
    file.write_all(&vec![fill; size])?;
    file.flush()
}

/// Cuts the file at `path` to `fraction` of its length (a copy interrupted).
pub fn truncate(path: &Path, fraction: f64) -> io::Result<()> {
    let file = OpenOptions::new().write(true).open(path)?;
    let len = file.metadata()?.len();
    file.set_len((len as f64 * fraction.clamp(0.0, 1.0)) as u64)
}

fn walk(
    bytes: &[u8],
    size: usize,
    page: u32,
    leaves: &mut Vec<LeafPage>,
    depth: u32,
) -> io::Result<()> {
    if depth > 64 || page == 0 {
        return Err(invalid("b-tree deeper than 64 levels or a null child"));
    }
    let start = (page as usize - 1) * size;
    let data = bytes
        .get(start..start + size)
        .ok_or_else(|| invalid("a page beyond the end of the file"))?;
    let header = if page == 1 { 100 } else { 0 };
    let kind = data[header];
    let cells = usize::from(be16(data, header + 3)?);
    let pointers = header + if kind == 0x05 { 12 } else { 8 };
    let cell_at =
        |i: usize| -> io::Result<usize> { Ok(usize::from(be16(data, pointers + 2 * i)?)) };
    match kind {
        0x05 => {
            for i in 0..cells {
                let at = cell_at(i)?;
                walk(bytes, size, be32(data, at)?, leaves, depth + 1)?;
            }
            walk(bytes, size, be32(data, header + 8)?, leaves, depth + 1)
        }
        0x0D => {
            let mut rowids = Vec::with_capacity(cells);
            for i in 0..cells {
                let at = cell_at(i)?;
                let (_, n) = varint(data, at)?;
                let (rowid, _) = varint(data, at + n)?;
                rowids.push(rowid as i64);
            }
            leaves.push(LeafPage { page, rowids });
            Ok(())
        }
        other => Err(invalid(&format!(
            "page {page} is of type {other:#04x}, not a table b-tree page"
        ))),
    }
}

/// Moves the rowid of cell `cell` of leaf page `page` (not page 1) forward to `rowid`, as a
/// bit flip can, and points the next cell outside the page: a scan of the table returns the
/// moved row after its neighbours and then fails, while seeks past the page's keys are routed
/// to the next pages. `rowid` must take as many varint bytes as the cell's own rowid.
pub fn move_rowid_forward(path: &Path, page: u32, cell: usize, rowid: i64) -> io::Result<()> {
    let mut bytes = std::fs::read(path)?;
    let size = page_size(&bytes)?;
    let start = (page as usize - 1) * size;
    let data = bytes
        .get_mut(start..start + size)
        .ok_or_else(|| invalid("a page beyond the end of the file"))?;
    if data[0] != 0x0D || cell + 1 >= usize::from(be16(data, 3)?) {
        return Err(invalid(
            "not a table leaf page with a cell after the one asked for",
        ));
    }
    let at = usize::from(be16(data, 8 + 2 * cell)?);
    let (_, n) = varint(data, at)?;
    let (_, len) = varint(data, at + n)?;
    let encoded = encode_varint(rowid as u64);
    if encoded.len() != len {
        return Err(invalid(
            "the new rowid's varint is not as long as the old one's",
        ));
    }
    data[at + n..at + n + len].copy_from_slice(&encoded);
    let next = 8 + 2 * (cell + 1);
    data[next..next + 2].copy_from_slice(&0xFFFFu16.to_be_bytes());
    std::fs::write(path, bytes)
}

/// SQLite's varint of `value` (values below 2^56: 7 bits a byte).
fn encode_varint(value: u64) -> Vec<u8> {
    let mut groups = vec![(value & 0x7F) as u8];
    let mut rest = value >> 7;
    while rest > 0 {
        groups.push((rest & 0x7F) as u8 | 0x80);
        rest >>= 7;
    }
    groups.reverse();
    groups
}

fn be16(data: &[u8], at: usize) -> io::Result<u16> {
    data.get(at..at + 2)
        .map(|b| u16::from_be_bytes([b[0], b[1]]))
        .ok_or_else(|| invalid("a field beyond its page"))
}

fn be32(data: &[u8], at: usize) -> io::Result<u32> {
    data.get(at..at + 4)
        .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| invalid("a field beyond its page"))
}

/// SQLite's varint: up to 8 bytes of 7 bits (high bit set = more), a 9th of 8 bits.
fn varint(data: &[u8], at: usize) -> io::Result<(u64, usize)> {
    let mut value: u64 = 0;
    for i in 0..9 {
        let byte = *data
            .get(at + i)
            .ok_or_else(|| invalid("a varint beyond its page"))?;
        if i == 8 {
            return Ok(((value << 8) | u64::from(byte), 9));
        }
        value = (value << 7) | u64::from(byte & 0x7F);
        if byte & 0x80 == 0 {
            return Ok((value, i + 1));
        }
    }
    Ok((value, 9))
}

fn invalid(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_owned())
}

/// A damaged copy of an export and what was done to it.
#[derive(Debug, Clone)]
pub struct DamagedCopy {
    /// The copy.
    pub path: std::path::PathBuf,
    /// What was damaged, for messages (`"CUPTI_ACTIVITY_KIND_KERNEL: leaf page 12 zeroed"`).
    pub what: String,
}

/// The rowid tables of the SQLite file at `path` with their leaf pages, largest first.
pub fn tables_by_size(path: &Path) -> io::Result<Vec<(String, u32, Vec<LeafPage>)>> {
    let bytes = std::fs::read(path)?;
    let conn =
        rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(|e| io::Error::other(e.to_string()))?;
    let mut stmt = conn
        .prepare("SELECT name, rootpage FROM sqlite_master WHERE type = 'table' AND rootpage > 0")
        .map_err(|e| io::Error::other(e.to_string()))?;
    let tables: Vec<(String, u32)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .and_then(Iterator::collect)
        .map_err(|e| io::Error::other(e.to_string()))?;
    let mut out: Vec<(String, u32, Vec<LeafPage>)> = tables
        .into_iter()
        // WITHOUT ROWID tables are index b-trees: not walked.
        .filter_map(|(name, root)| Some((name, root, table_leaves(&bytes, root).ok()?)))
        .collect();
    out.sort_by_key(|(name, _, leaves)| (std::cmp::Reverse(leaves.len()), name.clone()));
    Ok(out)
}

/// Damaged copies of the SQLite file `src` in `dir`: in its largest table a middle leaf page
/// zeroed, the same page overwritten with garbage, 16 bits of it flipped, the table's root
/// page zeroed (when it has interior pages); and the file cut at 90 % and at 50 %.
pub fn damaged_copies(src: &Path, dir: &Path) -> io::Result<Vec<DamagedCopy>> {
    let stem = src
        .file_stem()
        .map_or_else(|| "export".into(), |s| s.to_string_lossy().into_owned());
    let mut out = Vec::new();
    let copy = |what: String, out: &mut Vec<DamagedCopy>| -> io::Result<std::path::PathBuf> {
        let path = dir.join(format!("{stem}-{}.sqlite", out.len()));
        std::fs::copy(src, &path)?;
        out.push(DamagedCopy {
            path: path.clone(),
            what,
        });
        Ok(path)
    };
    let tables = tables_by_size(src)?;
    if let Some((table, root, leaves)) = tables.first() {
        let leaf = &leaves[leaves.len() / 2];
        let page = leaf.page;
        let path = copy(format!("{table}: leaf page {page} zeroed"), &mut out)?;
        overwrite_page(&path, page, 0)?;
        let path = copy(format!("{table}: leaf page {page} garbage"), &mut out)?;
        overwrite_page(&path, page, 0xA5)?;
        let path = copy(
            format!("{table}: 16 bits flipped in leaf page {page}"),
            &mut out,
        )?;
        flip_bits(&path, page, 16, u64::from(page))?;
        if leaves.len() > 1 {
            let path = copy(format!("{table}: root page {root} zeroed"), &mut out)?;
            overwrite_page(&path, *root, 0)?;
        }
    }
    for fraction in [0.9, 0.5] {
        let path = copy(format!("cut at {:.0} %", fraction * 100.0), &mut out)?;
        truncate(&path, fraction)?;
    }
    let path = copy(
        "schema: page 1 garbage after the file header".into(),
        &mut out,
    )?;
    damage_schema(&path)?;
    Ok(out)
}

/// Overwrites page 1 after the 100-byte file header (the root of `sqlite_master`) with
/// garbage: SQLite can no longer read the schema; the other pages are intact.
pub fn damage_schema(path: &Path) -> io::Result<()> {
    let mut file = OpenOptions::new().read(true).write(true).open(path)?;
    let mut header = [0u8; 100];
    file.read_exact(&mut header)?;
    let size = page_size(&header)?;
    file.seek(SeekFrom::Start(100))?;
    file.write_all(&vec![0xA5; size - 100])
}

/// Flips `bits` pseudo-random bits (from `seed`) of page `page` of the file at `path`.
pub fn flip_bits(path: &Path, page: u32, bits: u32, seed: u64) -> io::Result<()> {
    let mut bytes = std::fs::read(path)?;
    let size = page_size(&bytes)?;
    let start = (page as usize - 1) * size;
    let mut rng = crate::rng::Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    for _ in 0..bits {
        let at = start + (rng.next_u64() as usize % size);
        if let Some(b) = bytes.get_mut(at) {
            *b ^= 1 << (rng.next_u64() % 8);
        }
    }
    std::fs::write(path, bytes)
}
