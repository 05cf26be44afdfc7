//! Loading sections: search paths, the bundled set and its deployment, duplicate identifiers.
//!
//! Like Nsight Compute, Sightline ships its sections inside the binary and deploys them on first
//! use to a user-writable folder (`$XDG_DATA_HOME/sightline/<version>/sections`, or
//! `~/.local/share/...`; `%APPDATA%` on Windows), where they can be edited; files already there
//! are never overwritten. Setting `SIGHTLINE_DISABLE_DEPLOYMENT=1` disables deployment and the
//! bundled copies are used from memory. `--section-folder DIR` / `--section-folder-recursive DIR`
//! replace the default path.
//!
//! **Duplicate identifiers:** folders are searched in the order given, the files of a folder in
//! byte order of their paths (sub-folders depth first when recursive); the first section with an
//! identifier wins, and every later file with the same identifier is ignored with a warning
//! naming both files.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::parse::{Severity, parse_section, parse_section_file};
use crate::problem::FileProblem;
use crate::proto::nv::profiler::ProfilerSection;

include!(concat!(env!("OUT_DIR"), "/bundled_sections.rs"));
// Sightline's own rules (`rules/*.py`) as text: deployed with the sections; the rules crate runs
// them.
include!(concat!(env!("OUT_DIR"), "/bundled_rules.rs"));

/// Environment variable that disables deploying the bundled sections.
pub const DISABLE_DEPLOYMENT_ENV: &str = "SIGHTLINE_DISABLE_DEPLOYMENT";

/// A folder on the section search path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionFolder {
    /// The folder.
    pub path: PathBuf,
    /// Whether sub-folders are searched too.
    pub recursive: bool,
}

/// Where a loaded section came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SectionOrigin {
    /// A file on the search path.
    File(PathBuf),
    /// The copy built into the binary (deployment disabled).
    Bundled(&'static str),
    /// The report's embedded sections.
    Embedded,
}

impl std::fmt::Display for SectionOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SectionOrigin::File(path) => write!(f, "{}", path.display()),
            SectionOrigin::Bundled(name) => write!(f, "<bundled>/{name}"),
            SectionOrigin::Embedded => write!(f, "<embedded in report>"),
        }
    }
}

/// A section that loaded, with the warnings its file produced.
#[derive(Debug, Clone)]
pub struct LoadedSection {
    /// The section.
    pub section: ProfilerSection,
    /// Where it came from.
    pub origin: SectionOrigin,
    /// Tolerated problems (unknown fields, unknown enum values).
    pub warnings: Vec<FileProblem>,
    /// Set when the file now fails to load and this is its last good version (live reload keeps
    /// it on screen); holds the file's first error.
    pub stale: Option<String>,
}

/// A file that failed to load.
#[derive(Debug, Clone)]
pub struct FailedFile {
    /// The file.
    pub path: PathBuf,
    /// Its diagnostics (at least one error).
    pub diagnostics: Vec<FileProblem>,
}

/// The sections of a search path (or of a report), sorted by `Order`, then identifier.
#[derive(Debug, Clone, Default)]
pub struct SectionSet {
    /// The loaded sections.
    pub sections: Vec<LoadedSection>,
    /// Files that failed to load.
    pub failures: Vec<FailedFile>,
    /// Set-level warnings (duplicate identifiers, unreadable folders).
    pub warnings: Vec<String>,
}

impl SectionSet {
    /// Loads every `.section` file of `folders`.
    pub fn load_folders(folders: &[SectionFolder]) -> SectionSet {
        let mut set = SectionSet::default();
        for folder in folders {
            let mut files = Vec::new();
            if let Err(error) = collect_files(&folder.path, folder.recursive, &mut files) {
                set.warnings.push(format!(
                    "{}: cannot read section folder: {error}",
                    folder.path.display()
                ));
            }
            for file in files {
                let parsed = parse_section_file(&file);
                set.add(parsed.value, SectionOrigin::File(file), parsed.diagnostics);
            }
        }
        set.sort();
        set
    }

    /// The sections built into the binary.
    pub fn bundled() -> SectionSet {
        let mut set = SectionSet::default();
        for (name, text) in BUNDLED_SECTIONS {
            let parsed = parse_section(Path::new(&format!("<bundled>/{name}")), text);
            set.add(
                parsed.value,
                SectionOrigin::Bundled(name),
                parsed.diagnostics,
            );
        }
        set.sort();
        set
    }

    /// The default search path: the deployed bundled sections, or the bundled copies in memory
    /// when deployment is disabled or impossible.
    pub fn default_path() -> SectionSet {
        SectionSet::load_search_path(&search_path(&[]))
    }

    /// The sections of a search path made by [`search_path`]: its folders, or the bundled
    /// copies in memory when it has none.
    pub fn load_search_path(folders: &[SectionFolder]) -> SectionSet {
        if folders.is_empty() {
            SectionSet::bundled()
        } else {
            SectionSet::load_folders(folders)
        }
    }

    /// Sections embedded in a report.
    pub fn from_embedded(sections: Vec<ProfilerSection>) -> SectionSet {
        let mut set = SectionSet::default();
        for section in sections {
            set.add(Some(section), SectionOrigin::Embedded, Vec::new());
        }
        set.sort();
        set
    }

    fn add(
        &mut self,
        section: Option<ProfilerSection>,
        origin: SectionOrigin,
        diagnostics: Vec<FileProblem>,
    ) {
        let Some(section) = section.filter(|_| {
            !diagnostics
                .iter()
                .any(|d| d.problem.severity == Severity::Error)
        }) else {
            let path = match &origin {
                SectionOrigin::File(path) => path.clone(),
                other => PathBuf::from(other.to_string()),
            };
            self.failures.push(FailedFile { path, diagnostics });
            return;
        };
        if let Some(first) = self
            .sections
            .iter()
            .find(|s| s.section.identifier == section.identifier)
        {
            if origin != SectionOrigin::Embedded || first.origin != SectionOrigin::Embedded {
                self.warnings.push(format!(
                    "{origin}: warning: duplicate section identifier \"{}\" (already loaded from {}); this file is ignored",
                    section.identifier, first.origin
                ));
            }
            return;
        }
        self.sections.push(LoadedSection {
            section,
            origin,
            warnings: diagnostics,
            stale: None,
        });
    }

    fn sort(&mut self) {
        self.sections.sort_by(|a, b| {
            (a.section.order.unwrap_or(u32::MAX), &a.section.identifier)
                .cmp(&(b.section.order.unwrap_or(u32::MAX), &b.section.identifier))
        });
    }

    /// The section with `identifier`.
    pub fn get(&self, identifier: &str) -> Option<&LoadedSection> {
        self.sections
            .iter()
            .find(|s| s.section.identifier == identifier)
    }

    /// Identifiers of sections that extend each section (`Extends`), in order.
    pub fn children(&self) -> HashMap<&str, Vec<&LoadedSection>> {
        let mut children: HashMap<&str, Vec<&LoadedSection>> = HashMap::new();
        for loaded in &self.sections {
            if let Some(parent) = loaded
                .section
                .extends
                .as_deref()
                .filter(|p| self.get(p).is_some())
            {
                children.entry(parent).or_default().push(loaded);
            }
        }
        children
    }

    /// After a reload: for every file that failed now but loaded in `previous`, keeps the
    /// previous version (marked [`LoadedSection::stale`] with the new error) unless its
    /// identifier is now loaded from another file. The failure stays listed.
    pub fn keep_last_good(&mut self, previous: &SectionSet) {
        let mut kept = false;
        for failure in &self.failures {
            let Some(old) = previous
                .sections
                .iter()
                .find(|s| s.origin == SectionOrigin::File(failure.path.clone()))
            else {
                continue;
            };
            if self.get(&old.section.identifier).is_some() {
                continue;
            }
            let error = failure
                .diagnostics
                .iter()
                .find(|d| d.problem.severity == Severity::Error)
                .map_or_else(|| "failed to load".to_owned(), ToString::to_string);
            let mut old = old.clone();
            old.stale = Some(error);
            self.sections.push(old);
            kept = true;
        }
        if kept {
            self.sort();
        }
    }

    /// A copy without the sections whose identifiers are in `disabled`.
    pub fn without(&self, disabled: &std::collections::BTreeSet<String>) -> SectionSet {
        let mut set = self.clone();
        set.sections
            .retain(|s| !disabled.contains(&s.section.identifier));
        set
    }

    /// Every warning and failure as one line each, for printing.
    pub fn diagnostics(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .failures
            .iter()
            .flat_map(|f| f.diagnostics.iter().map(ToString::to_string))
            .collect();
        lines.extend(
            self.sections
                .iter()
                .flat_map(|s| s.warnings.iter().map(ToString::to_string)),
        );
        lines.extend(self.warnings.iter().cloned());
        lines
    }
}

fn collect_files(dir: &Path, recursive: bool, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if recursive {
                collect_files(&path, true, out)?;
            }
        } else if path.extension().is_some_and(|e| e == "section") {
            out.push(path);
        }
    }
    Ok(())
}

/// The section search path: `folders` when some are given, else the default path, the folder
/// the bundled sections are deployed to ([`deployed_section_folder`], deploying them if needed;
/// empty when deployment is disabled or fails, meaning the bundled copies in memory).
pub fn search_path(folders: &[SectionFolder]) -> Vec<SectionFolder> {
    if !folders.is_empty() {
        return folders.to_vec();
    }
    deployed_section_folder()
        .map(|path| {
            vec![SectionFolder {
                path,
                recursive: false,
            }]
        })
        .unwrap_or_default()
}

/// The user-writable folder the bundled sections are deployed to, deploying them if needed;
/// `None` when deployment is disabled (`SIGHTLINE_DISABLE_DEPLOYMENT`) or fails.
pub fn deployed_section_folder() -> Option<PathBuf> {
    if std::env::var_os(DISABLE_DEPLOYMENT_ENV).is_some_and(|v| !v.is_empty() && v != "0") {
        return None;
    }
    let folder = crate::dirs::user_data_dir()?
        .join("sightline")
        .join(env!("CARGO_PKG_VERSION"))
        .join("sections");
    deploy_bundled_sections(&folder).ok()?;
    Some(folder)
}

/// Writes the bundled sections and the bundled rules bound to them (`rules/*.py`; like Nsight
/// Compute, rules live beside their sections) into `folder` (created if needed); existing
/// files are kept, so the user's edits survive.
pub fn deploy_bundled_sections(folder: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(folder)?;
    for (name, text) in BUNDLED_SECTIONS.iter().chain(BUNDLED_RULES) {
        let path = folder.join(name);
        if !path.exists() {
            std::fs::write(path, text)?;
        }
    }
    Ok(())
}

/// The folder of the user's timeline rules, `timeline-rules` beside the deployed sections (not
/// created here: the rules found there run beside the bundled ones); `None` when deployment is
/// disabled (`SIGHTLINE_DISABLE_DEPLOYMENT`) or there is no user data folder.
pub fn timeline_rules_folder() -> Option<PathBuf> {
    if std::env::var_os(DISABLE_DEPLOYMENT_ENV).is_some_and(|v| !v.is_empty() && v != "0") {
        return None;
    }
    Some(
        crate::dirs::user_data_dir()?
            .join("sightline")
            .join(env!("CARGO_PKG_VERSION"))
            .join("timeline-rules"),
    )
}
