//! Finding rule files and reading their bindings without running them.
//!
//! A rule file is a `.py` file beside the sections whose `get_identifier()` returns a string
//! literal; `get_section_identifier()` binds it to a section (otherwise it is an independent
//! rule). Files that are not rules (helper modules) are skipped; rule files that cannot be read
//! are reported with their error.

use std::path::{Path, PathBuf};

use sightline_model::section::SectionFolder;

/// A rule file and the bindings read from its source text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleFile {
    /// The `.py` file.
    pub path: PathBuf,
    /// `get_identifier()`.
    pub identifier: String,
    /// `get_section_identifier()`, when the rule is bound to a section.
    pub section: Option<String>,
    /// `get_name()`, when it returns a literal.
    pub name: Option<String>,
    /// `get_description()`, when it returns a literal.
    pub description: Option<String>,
}

/// A `.py` file on the search path that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnreadableRule {
    /// The file.
    pub path: PathBuf,
    /// Why it could not be read.
    pub error: String,
}

/// The rules of a search path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleScan {
    /// Rule files, in search order.
    pub rules: Vec<RuleFile>,
    /// Files that could not be read.
    pub unreadable: Vec<UnreadableRule>,
}

/// Scans `folders` for rule files (recursively where the folder is recursive).
pub fn scan_rules(folders: &[SectionFolder]) -> RuleScan {
    let mut files = Vec::new();
    for folder in folders {
        collect_py(&folder.path, folder.recursive, &mut files);
    }
    let mut scan = RuleScan::default();
    for path in files {
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                if let Some(identifier) = returned_string(&text, "get_identifier") {
                    scan.rules.push(RuleFile {
                        identifier,
                        section: returned_string(&text, "get_section_identifier"),
                        name: returned_string(&text, "get_name"),
                        description: returned_string(&text, "get_description"),
                        path,
                    });
                }
            }
            Err(error) => scan.unreadable.push(UnreadableRule {
                error: format!("{}: cannot read rule file: {error}", path.display()),
                path,
            }),
        }
    }
    scan
}

/// The bundled rules (run from memory when they are not deployed), as a scan would list them;
/// their paths are `bundled:rules/NAME.py`.
pub fn scan_bundled() -> RuleScan {
    let rules = super::bundled::BUNDLED_RULES
        .iter()
        .filter_map(|(name, text)| {
            Some(RuleFile {
                identifier: returned_string(text, "get_identifier")?,
                section: returned_string(text, "get_section_identifier"),
                name: returned_string(text, "get_name"),
                description: returned_string(text, "get_description"),
                path: PathBuf::from(format!("bundled:rules/{name}")),
            })
        })
        .collect();
    RuleScan {
        rules,
        unreadable: Vec::new(),
    }
}

fn collect_py(dir: &Path, recursive: bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            if recursive {
                collect_py(&path, true, out);
            }
        } else if path.extension().is_some_and(|e| e == "py") {
            out.push(path);
        }
    }
}

/// The string literal returned by `def NAME():` in a rule file's source, if it is a literal.
pub fn returned_string(text: &str, function: &str) -> Option<String> {
    let start = text.find(&format!("def {function}("))?;
    let body = &text[start..];
    let ret = body.find("return")?;
    let rest = body[ret + "return".len()..].trim_start();
    let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let end = rest[1..].find(quote)?;
    Some(rest[1..1 + end].to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_literal_bindings() {
        let text = "def get_identifier():\n    return \"Occ\"\n\ndef get_section_identifier():\n    return 'Occupancy'\n";
        assert_eq!(
            returned_string(text, "get_identifier").as_deref(),
            Some("Occ")
        );
        assert_eq!(
            returned_string(text, "get_section_identifier").as_deref(),
            Some("Occupancy")
        );
        assert_eq!(returned_string(text, "get_name"), None);
    }

    #[test]
    fn skips_helpers_and_reports_bindings() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("helper.py"), "X = 1\n").unwrap();
        std::fs::write(
            dir.path().join("rule.py"),
            "def get_identifier():\n    return \"R\"\ndef get_name():\n    return \"Rule R\"\n",
        )
        .unwrap();
        let scan = scan_rules(&[SectionFolder {
            path: dir.path().to_path_buf(),
            recursive: false,
        }]);
        assert_eq!(scan.rules.len(), 1);
        assert_eq!(scan.rules[0].identifier, "R");
        assert_eq!(scan.rules[0].name.as_deref(), Some("Rule R"));
        assert_eq!(scan.rules[0].section, None);
    }
}
