//! NVIDIA's CSV dialect of `ncu --import --csv` (2024.1): every field is wrapped in `"`,
//! embedded quotes are written as they are (never doubled), fields are separated by `,`, and
//! lines end with `\n`. A row shorter than its header is written as it is, followed by a
//! trailing `,` when the page says so (the details page's rows without rule columns).

use std::io::{self, Write};

use super::Table;

/// Writes one CSV line of `fields`, each wrapped in `"`; `trailing_comma` appends a `,`.
pub fn write_row<S: AsRef<str>>(
    out: &mut dyn Write,
    fields: &[S],
    trailing_comma: bool,
) -> io::Result<()> {
    let mut line = String::new();
    for (i, field) in fields.iter().enumerate() {
        if i > 0 {
            line.push(',');
        }
        line.push('"');
        line.push_str(field.as_ref());
        line.push('"');
    }
    if trailing_comma {
        line.push(',');
    }
    line.push('\n');
    out.write_all(line.as_bytes())
}

/// Writes titled tables as the session page does: each table's title unquoted on its own
/// line, the header, the rows, and a blank line between two tables.
pub fn write_titled_tables(out: &mut dyn Write, tables: &[Table]) -> io::Result<()> {
    for (i, table) in tables.iter().enumerate() {
        if i > 0 {
            out.write_all(b"\n")?;
        }
        writeln!(out, "{}", table.title)?;
        write_row(out, &table.header, false)?;
        for row in &table.rows {
            write_row(out, row, false)?;
        }
    }
    Ok(())
}
