//! The two styles of demangled names in Nsight Compute's files.
//!
//! - [`Style::Nvidia`]: what every Nsight Compute from 2021.2 stores in its reports and what
//!   the 2024.1 command line prints on its Source page for every report (`const float *`,
//!   `(unsigned int)4`, `[lambda(float) (instance 1)]`; see the parent module).
//! - [`Style::Gnu`]: what reports written by Nsight Compute 2021.1 and earlier store, and
//!   reports without a tool version (written before the session kept one): the GNU
//!   (`c++filt`) style, `float const*`, `rtracer::MeshConfig*`, `4u`, `true`, `> >`,
//!   `{lambda(float)#1}`, `(anonymous namespace)`, a function template's parameters printed
//!   as their arguments, constructors without ` [subobject]`.
//!
//! [`Style::stored_by`] tells which style a report's stored names have.

use super::types::{CONST, Kind, RESTRICT, Ty, VOLATILE};
use crate::ncu::ToolVersion;

/// A style of demangled names (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Style {
    /// Nsight Compute 2021.2 and later (and the 2024.1 command line's Source page).
    #[default]
    Nvidia,
    /// Nsight Compute 2021.1 and earlier, and reports without a version: GNU `c++filt`'s.
    Gnu,
}

impl Style {
    /// The style of the demangled names a report stores, by the version of the tool that
    /// wrote it: GNU before 2021.2 and without a version, NVIDIA's from 2021.2 (the corpus:
    /// 2020.2.1, 2020.3.1, 2021.1.0 and a report without a version store `float const*`;
    /// 2021.2.0 and every later one `const float *`).
    pub fn stored_by(version: Option<ToolVersion>) -> Style {
        match version {
            Some(v) if (v.year, v.minor) >= (2021, 2) => Style::Nvidia,
            _ => Style::Gnu,
        }
    }
}

/// `ty` alone in GNU style.
pub(super) fn gnu_render(ty: &Ty) -> String {
    gnu_declare(ty, "")
}

/// `ty` declaring `inner` in GNU style: qualifiers after what they qualify, `*` and `&`
/// attached to the type (`char* const*`), `void (*)(int)`, `int (*) [4]`.
fn gnu_declare(ty: &Ty, inner: &str) -> String {
    match &ty.kind {
        Kind::Plain(text) => glue(text, inner),
        Kind::Cv(cv, t) => gnu_declare(t, &format!(" {}{inner}", gnu_cv(*cv))),
        Kind::Pointer(t) => gnu_declare(t, &format!("*{inner}")),
        Kind::LRef(t) => gnu_declare(t, &format!("&{inner}")),
        Kind::RRef(t) => gnu_declare(t, &format!("&&{inner}")),
        Kind::Member(class, t) => gnu_declare(t, &format!("{class}::*{inner}")),
        Kind::Function {
            ret,
            params,
            trailing,
        } => {
            let params: Vec<String> = params.iter().map(|p| gnu_render(p)).collect();
            let declarator = if inner.is_empty() {
                String::new()
            } else {
                format!("({})", inner.trim_start())
            };
            let ret = ret.as_deref().map(gnu_render).unwrap_or_default();
            format!("{ret} {declarator}({}){trailing}", params.join(", "))
        }
        Kind::Array(dim, element) => {
            let declarator = if inner.is_empty() {
                String::new()
            } else {
                format!("({}) ", inner.trim_start())
            };
            format!("{} {declarator}[{dim}]", gnu_render(element))
        }
        Kind::Pack(t) => glue(&format!("{}...", gnu_render(t)), inner),
    }
}

/// `text` then `inner`, a space between when `inner` starts with a name (`int Foo::*`).
fn glue(text: &str, inner: &str) -> String {
    if inner
        .chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '_')
    {
        format!("{text} {inner}")
    } else {
        format!("{text}{inner}")
    }
}

/// The qualifiers as GNU prints them (`const volatile __restrict`).
fn gnu_cv(cv: u8) -> String {
    [
        (CONST, "const"),
        (VOLATILE, "volatile"),
        (RESTRICT, "__restrict"),
    ]
    .iter()
    .filter(|(bit, _)| cv & bit != 0)
    .map(|(_, text)| *text)
    .collect::<Vec<_>>()
    .join(" ")
}

/// A template argument's literal of type `ty` in GNU style: `4`, `4u`, `4l`, `4ul`, `4ll`,
/// `4ull`, `true`/`false`, else `(type)value`.
pub(super) fn gnu_literal(ty: &str, value: &str) -> String {
    let suffix = match ty {
        "int" => "",
        "unsigned int" => "u",
        "long" => "l",
        "unsigned long" => "ul",
        "long long" => "ll",
        "unsigned long long" => "ull",
        "bool" if value == "0" => return "false".to_owned(),
        "bool" if value == "1" => return "true".to_owned(),
        _ => return format!("({ty}){value}"),
    };
    format!("{value}{suffix}")
}

/// A lambda's name: `[lambda(float) (instance 1)]` or `{lambda(float)#1}`.
pub(super) fn lambda(style: Style, params: &str, instance: i64) -> String {
    match style {
        Style::Nvidia => format!("[lambda({params}) (instance {instance})]"),
        Style::Gnu => format!("{{lambda({params})#{instance}}}"),
    }
}

/// An unnamed type's name: `[unnamed type (instance 1)]` or `{unnamed type#1}`.
pub(super) fn unnamed_type(style: Style, instance: i64) -> String {
    match style {
        Style::Nvidia => format!("[unnamed type (instance {instance})]"),
        Style::Gnu => format!("{{unnamed type#{instance}}}"),
    }
}

/// An anonymous namespace: `<unnamed>` or `(anonymous namespace)`.
pub(super) fn anonymous_namespace(style: Style) -> &'static str {
    match style {
        Style::Nvidia => "<unnamed>",
        Style::Gnu => "(anonymous namespace)",
    }
}

/// `operator` and its symbol: `operator ()` (NVIDIA) or `operator()` (GNU; `operator new`
/// keeps its space in both).
pub(super) fn operator_name(style: Style, symbol: &str) -> String {
    let word = symbol.starts_with(|c: char| c.is_alphabetic());
    match style {
        Style::Gnu if !word => format!("operator{symbol}"),
        _ => format!("operator {symbol}"),
    }
}
