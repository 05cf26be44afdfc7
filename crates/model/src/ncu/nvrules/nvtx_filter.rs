//! NVTX include/exclude filters (`IRange.actions_by_nvtx`, like Nsight Compute's
//! `--nvtx-include` / `--nvtx-exclude`).
//!
//! A filter is `[domain@]ranges`. Push/pop filters contain `/`, `[` (bottom of the stack) or `]`
//! (top of the stack); between two range names `*` matches zero or more ranges and `+` exactly
//! one; a single push/pop range is written with a trailing `/`. Anything else is a start/end
//! filter: range names separated by `,`, all of which must be open. A `regex:` prefix makes every
//! range name a regular expression; `\` escapes a delimiter. Without a domain the default domain
//! is meant.

use regex::Regex;

use crate::ncu::{DEFAULT_DOMAIN_NAME, NvtxView};
use crate::proto::nv::nvtx::NvtxState;

/// The NVTX ranges of one domain at an action's launch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DomainRanges {
    /// Domain name (`<default domain>` for the default domain).
    pub name: String,
    /// Whether this is the default domain.
    pub is_default: bool,
    /// Push/pop stack, bottom first.
    pub push_pop: Vec<String>,
    /// Open start/end ranges.
    pub start_end: Vec<String>,
}

/// Collects the ranges of every domain of an action's NVTX state.
pub fn domains_of(state: &NvtxState, thread_id: Option<u32>) -> Vec<DomainRanges> {
    let view = NvtxView::new(state, thread_id);
    view.domain_ids()
        .map(|id| {
            let name = view.domain_name(id);
            DomainRanges {
                name: name.to_owned(),
                is_default: name == DEFAULT_DOMAIN_NAME || state.default_domain == Some(id),
                push_pop: view
                    .push_pop_ranges(id)
                    .iter()
                    .map(|s| (*s).to_owned())
                    .collect(),
                start_end: view
                    .start_end_ranges(id)
                    .iter()
                    .map(|s| (*s).to_owned())
                    .collect(),
            }
        })
        .collect()
}

/// A malformed filter.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid NVTX filter {filter:?}: {reason}")]
pub struct FilterError {
    /// The filter text.
    pub filter: String,
    /// What is wrong.
    pub reason: String,
}

#[derive(Debug)]
enum Name {
    Exact(String),
    Pattern(Regex),
}

impl Name {
    fn matches(&self, range: &str) -> bool {
        match self {
            Name::Exact(name) => name == range,
            Name::Pattern(re) => re.is_match(range),
        }
    }
}

#[derive(Debug)]
enum Token {
    Range(Name),
    AnyNumber,
    ExactlyOne,
}

#[derive(Debug)]
enum Ranges {
    PushPop {
        bottom: bool,
        top: bool,
        tokens: Vec<Token>,
    },
    StartEnd(Vec<Name>),
    /// No range named (`""`, `"domain@"`): as NVIDIA's reader treats it, an include matches no
    /// result; an exclude matches none without a domain, every result with one.
    Nothing,
}

/// A parsed filter.
#[derive(Debug)]
pub struct NvtxFilter {
    domain: Option<String>,
    ranges: Ranges,
}

/// Splits `text` at unescaped `sep`, keeping escapes in the parts.
fn split_unescaped(text: &str, sep: char) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            current.push(c);
            if let Some(next) = chars.next() {
                current.push(next);
            }
        } else if c == sep {
            parts.push(std::mem::take(&mut current));
        } else {
            current.push(c);
        }
    }
    parts.push(current);
    parts
}

fn has_unescaped(text: &str, wanted: &[char]) -> bool {
    let mut escaped = false;
    for c in text.chars() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if wanted.contains(&c) {
            return true;
        }
    }
    false
}

fn unescape(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

impl NvtxFilter {
    /// Parses one filter.
    pub fn parse(filter: &str) -> Result<NvtxFilter, FilterError> {
        let error = |reason: String| FilterError {
            filter: filter.to_owned(),
            reason,
        };
        let (regex, body) = match filter.strip_prefix("regex:") {
            Some(rest) => (true, rest),
            None => (false, filter),
        };
        let at = split_unescaped(body, '@');
        let (domain, body) = match at.len() {
            1 => (None, at[0].clone()),
            2 => (Some(unescape(&at[0])), at[1].clone()),
            _ => return Err(error("more than one '@'".into())),
        };
        let name = |raw: &str| -> Result<Name, FilterError> {
            if regex {
                Regex::new(raw)
                    .map(Name::Pattern)
                    .map_err(|e| error(format!("bad regular expression {raw:?}: {e}")))
            } else {
                Ok(Name::Exact(unescape(raw)))
            }
        };
        let ranges = if has_unescaped(&body, &['/', '[', ']']) {
            let mut text = body.as_str();
            let bottom = text.starts_with('[');
            if bottom {
                text = &text[1..];
            }
            let top = text.ends_with(']') && !text.ends_with("\\]");
            if top {
                text = &text[..text.len() - 1];
            }
            let mut parts = split_unescaped(text, '/');
            if parts.len() > 1 && parts.last().is_some_and(String::is_empty) {
                parts.pop();
            }
            if parts.iter().any(String::is_empty) {
                return Err(error("empty range name".into()));
            }
            let count = parts.len();
            let mut tokens = Vec::with_capacity(count);
            for (i, part) in parts.iter().enumerate() {
                let inner = i > 0 && i + 1 < count;
                tokens.push(match part.as_str() {
                    "*" if inner => Token::AnyNumber,
                    "+" if inner => Token::ExactlyOne,
                    raw => Token::Range(name(raw)?),
                });
            }
            Ranges::PushPop {
                bottom,
                top,
                tokens,
            }
        } else {
            let names = split_unescaped(&body, ',')
                .iter()
                .map(|raw| name(raw))
                .collect::<Result<Vec<_>, _>>()?;
            if body.is_empty() {
                Ranges::Nothing
            } else {
                Ranges::StartEnd(names)
            }
        };
        Ok(NvtxFilter { domain, ranges })
    }

    /// Whether an action with these domains passes the filter.
    pub fn matches(&self, domains: &[DomainRanges]) -> bool {
        if matches!(self.ranges, Ranges::Nothing) {
            return false;
        }
        domains
            .iter()
            .filter(|d| match &self.domain {
                None => d.is_default,
                Some(name) => d.name == *name || (d.is_default && name == DEFAULT_DOMAIN_NAME),
            })
            .any(|d| match &self.ranges {
                Ranges::StartEnd(names) => names
                    .iter()
                    .all(|n| d.start_end.iter().any(|r| n.matches(r))),
                Ranges::PushPop {
                    bottom,
                    top,
                    tokens,
                } => match_push_pop(tokens, &d.push_pop, *bottom, *top),
                Ranges::Nothing => false,
            })
    }

    /// Whether, as an exclude, the filter leaves out an action with these domains: as
    /// [`NvtxFilter::matches`], except that a domain without a range (`"domain@"`) leaves out
    /// every action, as NVIDIA's reader does.
    pub fn excludes(&self, domains: &[DomainRanges]) -> bool {
        match self.ranges {
            Ranges::Nothing => self.domain.is_some(),
            _ => self.matches(domains),
        }
    }
}

/// Whether `tokens` match the push/pop `stack` (bottom first): anchored at the bottom and/or the
/// top as asked. Dynamic programming over (token, stack position), so `*` runs cost
/// O(tokens × stack) rather than exponential backtracking (a rule's filter must not be able to
/// hang the engine in native code, where the time budget cannot interrupt it).
fn match_push_pop(tokens: &[Token], stack: &[String], bottom: bool, top: bool) -> bool {
    let len = stack.len();
    // `rest[j]`: the tokens after the current one match from stack position `j`.
    let mut rest: Vec<bool> = (0..=len).map(|j| !top || j == len).collect();
    for token in tokens.iter().rev() {
        let mut here = vec![false; len + 1];
        match token {
            Token::Range(name) => {
                for j in 0..len {
                    here[j] = rest[j + 1] && name.matches(&stack[j]);
                }
            }
            Token::ExactlyOne => here[..len].copy_from_slice(&rest[1..]),
            Token::AnyNumber => {
                let mut any = false;
                for j in (0..=len).rev() {
                    any |= rest[j];
                    here[j] = any;
                }
            }
        }
        rest = here;
    }
    if bottom {
        rest[0]
    } else {
        rest.iter().any(|&ok| ok)
    }
}

/// The filter vectors FORMATS.md records from NVIDIA's reader on the `manual_nvtx` report, whose
/// three kernels run under the push/pop stacks `run_test/init_data`, `run_test/daxpy` and
/// `run_test/check_results`: `(includes, excludes, indices of the kernels selected)`. The unit
/// tests check them on those stacks, the corpus tests through `IRange.actions_by_nvtx`.
pub const REFERENCE_VECTORS: &[(&[&str], &[&str], &[usize])] = &[
    (&["run_test/"], &[], &[0, 1, 2]),
    (&["run_test/"], &["check_results/"], &[0, 1]),
    (&["daxpy/"], &[], &[1]),
    (&["[run_test"], &[], &[0, 1, 2]),
    (&["[daxpy"], &[], &[]),
    (&["daxpy]"], &[], &[1]),
    (&["run_test]"], &[], &[]),
    (&["run_test/daxpy"], &[], &[1]),
    (&["[run_test/daxpy]"], &[], &[1]),
    (&["run_test/*/daxpy"], &[], &[1]),
    (&["run_test/+/daxpy"], &[], &[]),
    (&["daxpy/run_test"], &[], &[]),
    (&["*/daxpy"], &[], &[]),
    (&["daxpy/", "init_data/"], &[], &[0, 1]),
    (&["<default domain>@daxpy/"], &[], &[1]),
    (&["Foo@daxpy/"], &[], &[]),
    (&["regex:dax.*/"], &[], &[1]),
    (&["regex:^d.*y]"], &[], &[1]),
    (&[], &[], &[]),
];

/// Applies include and exclude filters: an action passes when some include matches and no
/// exclude does. No includes selects nothing.
pub fn select(
    includes: &[String],
    excludes: &[String],
    domains: &[DomainRanges],
) -> Result<bool, FilterError> {
    let includes = includes
        .iter()
        .map(|f| NvtxFilter::parse(f))
        .collect::<Result<Vec<_>, _>>()?;
    let excludes = excludes
        .iter()
        .map(|f| NvtxFilter::parse(f))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(
        includes.iter().any(|f| f.matches(domains))
            && !excludes.iter().any(|f| f.excludes(domains)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filter_naming_no_range_behaves_as_nvidias_reader() {
        // NVIDIA's module on a held-out report: includes "", "@" and "app@" select nothing;
        // as excludes, "" leaves out nothing and "app@" everything.
        let domains = vec![DomainRanges {
            name: DEFAULT_DOMAIN_NAME.into(),
            is_default: true,
            push_pop: vec!["train".into()],
            start_end: Vec::new(),
        }];
        let s = |v: &[&str]| v.iter().map(|f| (*f).to_owned()).collect::<Vec<_>>();
        for f in ["", "@", "app@"] {
            assert!(!select(&s(&[f]), &[], &domains).unwrap(), "{f:?}");
        }
        assert!(select(&s(&["train/"]), &s(&[""]), &domains).unwrap());
        assert!(!select(&s(&["train/"]), &s(&["app@"]), &domains).unwrap());
        assert!(!select(&s(&["train/"]), &s(&["@"]), &domains).unwrap());
    }

    #[test]
    fn many_wildcards_match_in_polynomial_time() {
        // Exponential backtracking would take ages here.
        let stack: Vec<String> = (0..200).map(|i| format!("r{i}")).collect();
        let domains = vec![DomainRanges {
            name: DEFAULT_DOMAIN_NAME.into(),
            is_default: true,
            push_pop: stack,
            start_end: Vec::new(),
        }];
        let filter = format!("r0/{}missing]", "*/".repeat(40));
        assert!(!NvtxFilter::parse(&filter).unwrap().matches(&domains));
        let filter = format!("r0/{}r199]", "*/".repeat(40));
        assert!(NvtxFilter::parse(&filter).unwrap().matches(&domains));
    }

    fn action(stack: &[&str]) -> Vec<DomainRanges> {
        vec![DomainRanges {
            name: DEFAULT_DOMAIN_NAME.into(),
            is_default: true,
            push_pop: stack.iter().map(|s| (*s).to_owned()).collect(),
            start_end: Vec::new(),
        }]
    }

    /// The vectors FORMATS.md records from NVIDIA's reader on `manual_nvtx`.
    #[test]
    fn vectors_from_nvidias_reader() {
        let actions = [
            action(&["run_test", "init_data"]),
            action(&["run_test", "daxpy"]),
            action(&["run_test", "check_results"]),
        ];
        let cases = REFERENCE_VECTORS;
        for &(includes, excludes, expected) in cases {
            let includes: Vec<String> = includes.iter().map(|s| (*s).to_owned()).collect();
            let excludes: Vec<String> = excludes.iter().map(|s| (*s).to_owned()).collect();
            let got: Vec<usize> = actions
                .iter()
                .enumerate()
                .filter(|(_, a)| select(&includes, &excludes, a).unwrap())
                .map(|(i, _)| i)
                .collect();
            assert_eq!(
                &got, expected,
                "includes {includes:?} excludes {excludes:?}"
            );
        }
    }

    #[test]
    fn start_end_and_escapes() {
        let domains = vec![DomainRanges {
            name: "D".into(),
            is_default: false,
            push_pop: vec!["a/b".into(), "c".into()],
            start_end: vec!["x".into(), "y".into()],
        }];
        let sel = |f: &str| select(&[f.to_owned()], &[], &domains).unwrap();
        assert!(sel("D@x,y"));
        assert!(!sel("D@x,z"));
        assert!(!sel("x"));
        assert!(sel("D@a\\/b/c"));
        assert!(sel("D@[a\\/b/c]"));
        assert!(!sel("D@[a\\/b/+]"));
        assert!(NvtxFilter::parse("regex:(/").is_err());
        assert!(NvtxFilter::parse("a@b@c").is_err());
    }
}
