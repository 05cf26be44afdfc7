//! `sightline sections`: the loaded sections and the rules bound to them.

use std::io::{self, Write};
use std::process::ExitCode;

use crate::rules::scan::scan_rules;
use crate::section::{SectionFolder, SectionSet, search_path};

use super::common::{SectionFolders, write_table};

/// Arguments of `sightline sections`.
#[derive(clap::Args, Debug, Clone)]
pub struct SectionsArgs {
    /// The section folders (`--section-folder`, `--section-folder-recursive`).
    #[command(flatten)]
    pub folders: SectionFolders,
    /// Exit with code 1 if any section file failed to load.
    #[arg(long)]
    pub check: bool,
}

/// Loads the search path (the folders given, else the default path), writes the table to
/// `out` (flushed) and the load diagnostics to stderr; exit code 1 with `--check` when a file
/// failed to load.
pub fn run(args: &SectionsArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let folders = args.folders.folders();
    let set = SectionSet::load_search_path(&search_path(&folders));
    write_sections(&set, &folders, out)?;
    out.flush()?;
    for line in set.diagnostics() {
        eprintln!("{line}");
    }
    if args.check && !set.failures.is_empty() {
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes the section table, then the rules of the same folders grouped by section.
pub fn write_sections(
    set: &SectionSet,
    folders: &[SectionFolder],
    out: &mut dyn Write,
) -> io::Result<()> {
    let rows: Vec<[String; 5]> = set
        .sections
        .iter()
        .map(|s| {
            let sets: Vec<&str> = s
                .section
                .sets
                .iter()
                .map(|x| x.identifier.as_str())
                .collect();
            let mut name = s.section.display_name.clone();
            if let Some(parent) = &s.section.extends {
                name.push_str(&format!(" (extends {parent})"));
            }
            [
                s.section.identifier.clone(),
                name,
                s.section.order.map_or("-".to_owned(), |o| o.to_string()),
                if sets.is_empty() {
                    "-".to_owned()
                } else {
                    sets.join(",")
                },
                s.origin.to_string(),
            ]
        })
        .collect();
    write_table(
        out,
        &["identifier", "display name", "order", "sets", "file"],
        &rows,
    )?;
    writeln!(
        out,
        "{} section(s) loaded, {} file(s) failed",
        set.sections.len(),
        set.failures.len()
    )?;
    for failure in &set.failures {
        writeln!(out, "failed: {}", failure.path.display())?;
    }
    let rules = scan_rules(folders).rules;
    if !rules.is_empty() {
        writeln!(
            out,
            "\nrules (bindings read from get_identifier / get_section_identifier):"
        )?;
        let mut rows = Vec::new();
        for rule in &rules {
            let section = match &rule.section {
                Some(id) if set.get(id).is_some() => id.clone(),
                Some(id) => format!("{id} (section not loaded)"),
                None => "[Independent Rules]".to_owned(),
            };
            rows.push([
                rule.identifier.clone(),
                section,
                rule.path.display().to_string(),
            ]);
        }
        rows.sort();
        write_table(out, &["rule", "section", "file"], &rows)?;
    }
    Ok(())
}
