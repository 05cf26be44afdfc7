//! The types of the demangler and how NVIDIA's style prints them: C declarator syntax with a
//! space between a type and its declarator (`float *`, `const T1 &`, `void (*)(int)`,
//! `int (&)[4]`), cv-qualifiers before the type they qualify (`const float *`) and after a `*`
//! they qualify (`char *const *`), references collapsed as C++ collapses them.

use std::rc::Rc;

/// The deepest type the demangler builds (a pointer to a pointer … counts one level each);
/// deeper manglings fall back to the mangled name, so that printing never exhausts the stack.
pub const MAX_DEPTH: usize = 192;

/// A type of a mangled name (shared: substitutions refer to earlier ones).
#[derive(Debug)]
pub struct Ty {
    /// What it is.
    pub kind: Kind,
    depth: usize,
    /// An upper bound of the printed length (checked against the output limit before
    /// printing: a type can name a long substitution many times).
    width: usize,
}

/// The kinds of [`Ty`].
#[derive(Debug)]
pub enum Kind {
    /// A builtin, a class or enum name, a template parameter (`T1`), a pack: printed as is.
    Plain(Rc<str>),
    /// `const`, `volatile`, `__restrict__` ([`CONST`], [`VOLATILE`], [`RESTRICT`]) applied to
    /// a plain type, a pointer, a reference or a pointer to member (see [`Ty::qualified`]).
    Cv(u8, Rc<Ty>),
    /// `T *`.
    Pointer(Rc<Ty>),
    /// `T &`.
    LRef(Rc<Ty>),
    /// `T &&`.
    RRef(Rc<Ty>),
    /// A function type: return type (none for constructors and destructors), parameters,
    /// trailing cv and ref qualifiers.
    Function {
        /// The return type.
        ret: Option<Rc<Ty>>,
        /// The parameter types (empty for `()`).
        params: Vec<Rc<Ty>>,
        /// ` const`, ` volatile`, ` &`, ` &&` after the parameter list.
        trailing: Rc<str>,
    },
    /// `T [N]` (the dimension as printed; empty for `T []`).
    Array(Rc<str>, Rc<Ty>),
    /// A pointer to member of the class (first) with the member type (second).
    Member(Rc<str>, Rc<Ty>),
    /// A pack expansion `T...`.
    Pack(Rc<Ty>),
}

/// The `const` bit of [`Kind::Cv`].
pub const CONST: u8 = 1;
/// The `volatile` bit of [`Kind::Cv`].
pub const VOLATILE: u8 = 2;
/// The `__restrict__` bit of [`Kind::Cv`].
pub const RESTRICT: u8 = 4;

/// The qualifiers of `cv` as printed, in C++ order (`const volatile`).
pub fn cv_text(cv: u8) -> String {
    [
        (CONST, "const"),
        (VOLATILE, "volatile"),
        (RESTRICT, "__restrict__"),
    ]
    .iter()
    .filter(|(bit, _)| cv & bit != 0)
    .map(|(_, text)| *text)
    .collect::<Vec<_>>()
    .join(" ")
}

impl Ty {
    /// A new type, `None` when deeper than [`MAX_DEPTH`].
    pub fn new(kind: Kind) -> Option<Rc<Ty>> {
        let child = |t: &Rc<Ty>| t.depth;
        let depth = 1 + match &kind {
            Kind::Plain(_) => 0,
            Kind::Cv(_, t)
            | Kind::Pointer(t)
            | Kind::LRef(t)
            | Kind::RRef(t)
            | Kind::Array(_, t)
            | Kind::Member(_, t)
            | Kind::Pack(t) => child(t),
            Kind::Function { ret, params, .. } => {
                ret.iter().chain(params).map(child).max().unwrap_or(0)
            }
        };
        let width = |t: &Rc<Ty>| t.width;
        let own = match &kind {
            Kind::Plain(text) => text.len(),
            Kind::Cv(_, t) => 32usize.saturating_add(width(t)),
            Kind::Pointer(t) | Kind::LRef(t) | Kind::RRef(t) | Kind::Pack(t) => {
                4usize.saturating_add(width(t))
            }
            Kind::Array(dim, t) | Kind::Member(dim, t) => (dim.len() + 8).saturating_add(width(t)),
            Kind::Function {
                ret,
                params,
                trailing,
            } => ret.iter().chain(params).fold(trailing.len() + 8, |sum, t| {
                sum.saturating_add(width(t)).saturating_add(2)
            }),
        };
        (depth <= MAX_DEPTH).then(|| {
            Rc::new(Ty {
                kind,
                depth,
                width: own,
            })
        })
    }

    /// An upper bound of the length [`Ty::render`] gives (without an inner declarator).
    pub fn width(&self) -> usize {
        self.width
    }

    /// A plain type printed as `text`.
    pub fn plain(text: impl Into<Rc<str>>) -> Rc<Ty> {
        let text: Rc<str> = text.into();
        Rc::new(Ty {
            width: text.len(),
            kind: Kind::Plain(text),
            depth: 1,
        })
    }

    /// `ty` qualified by `cv`: the qualifiers of an array go to its element, those of a
    /// function type after its parameters, those of a qualified type join its own.
    pub fn qualified(cv: u8, ty: Rc<Ty>) -> Option<Rc<Ty>> {
        if cv == 0 {
            return Some(ty);
        }
        match &ty.kind {
            Kind::Cv(own, inner) => Ty::new(Kind::Cv(own | cv, inner.clone())),
            Kind::Array(dim, element) => Ty::new(Kind::Array(
                dim.clone(),
                Ty::qualified(cv, element.clone())?,
            )),
            Kind::Function {
                ret,
                params,
                trailing,
            } => Ty::new(Kind::Function {
                ret: ret.clone(),
                params: params.clone(),
                trailing: format!(" {}{trailing}", cv_text(cv)).into(),
            }),
            _ => Ty::new(Kind::Cv(cv, ty)),
        }
    }

    /// An lvalue (`rvalue == false`) or rvalue reference to `to`, collapsed as C++ does
    /// (`& &`, `& &&`, `&& &` are `&`; `&& &&` is `&&`).
    pub fn reference(to: Rc<Ty>, rvalue: bool) -> Option<Rc<Ty>> {
        match (&to.kind, rvalue) {
            (Kind::LRef(_), _) | (Kind::RRef(_), true) => Some(to),
            (Kind::RRef(inner), false) => Ty::new(Kind::LRef(inner.clone())),
            (_, false) => Ty::new(Kind::LRef(to)),
            (_, true) => Ty::new(Kind::RRef(to)),
        }
    }

    /// The type as NVIDIA prints it alone (a parameter, a template argument).
    pub fn render(&self) -> String {
        self.declare(String::new(), false)
    }

    /// The type declaring `inner` (a declarator: `*`, `name(params)` …); `pointer` tells that
    /// `inner` starts with a pointer, reference or pointer-to-member operator (an array or
    /// function type around it then needs parentheses).
    pub fn declare(&self, inner: String, pointer: bool) -> String {
        match &self.kind {
            Kind::Plain(text) => join(text, &inner),
            Kind::Cv(cv, ty) => match &ty.kind {
                Kind::Pointer(_) | Kind::LRef(_) | Kind::RRef(_) | Kind::Member(..) => {
                    ty.declare(join(&cv_text(*cv), &inner), pointer)
                }
                _ => join(&format!("{} {}", cv_text(*cv), ty.render()), &inner),
            },
            Kind::Pointer(ty) => ty.declare(format!("*{inner}"), true),
            Kind::LRef(ty) => ty.declare(format!("&{inner}"), true),
            Kind::RRef(ty) => ty.declare(format!("&&{inner}"), true),
            Kind::Member(class, ty) => ty.declare(format!("{class}::*{inner}"), true),
            Kind::Function {
                ret,
                params,
                trailing,
            } => function(ret.as_deref(), params, trailing, inner, pointer),
            Kind::Array(dim, element) => {
                element.declare(format!("{}[{dim}]", parenthesized(inner, pointer)), false)
            }
            Kind::Pack(ty) => join(&format!("{}...", ty.render()), &inner),
        }
    }
}

/// `text` followed by the declarator `inner`, with a space between when there is one.
fn join(text: &str, inner: &str) -> String {
    if inner.is_empty() {
        text.to_owned()
    } else {
        format!("{text} {inner}")
    }
}

fn parenthesized(inner: String, pointer: bool) -> String {
    if pointer { format!("({inner})") } else { inner }
}

fn function(
    ret: Option<&Ty>,
    params: &[Rc<Ty>],
    trailing: &str,
    inner: String,
    pointer: bool,
) -> String {
    let declarator = format!(
        "{}({}){trailing}",
        parenthesized(inner, pointer),
        params
            .iter()
            .map(|p| p.render())
            .collect::<Vec<_>>()
            .join(", ")
    );
    match ret {
        Some(ret) => ret.declare(declarator, false),
        None => declarator,
    }
}
