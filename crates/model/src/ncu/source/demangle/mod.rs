//! An Itanium C++ ABI demangler printing names as Nsight Compute does (the names of its
//! reports' launch records and of its Source page's function blocks):
//!
//! - declarators spaced and qualifiers first: `const float *`, `curandStateXORWOW &`,
//!   `char *const *`, `void (*)(int)`;
//! - template value arguments as casts: `(unsigned int)4`, `(bool)0`; `>>` without a space;
//! - the return type of a function template first: `void computeValue<float>(…)`;
//! - a template parameter of the function's signature by its 1-based position, not by its
//!   argument: `normal_kernel<at::CUDAGeneratorImpl *>(const at::TensorBase &, double, T1)`;
//! - base-object constructors and destructors (`C2`, `D2`) followed by ` [subobject]`,
//!   deleting destructors (`D0`) by ` [deleting]`;
//! - lambdas as `[lambda(float) (instance 1)]`, anonymous namespaces as `<unnamed>`, the
//!   `_INTERNAL_…` namespace nvcc gives a file's internal-linkage functions left out;
//! - `operator ()`: the word `operator`, a space, the symbol.
//!
//! Reports written before 2021.2 store names in GNU's style instead: [`demangle_in`] with
//! [`Style::Gnu`] prints those, [`Style::stored_by`] tells a report's style (`style`).
//!
//! [`demangle`] answers `None` for anything it does not read completely (not a `_Z` name, a
//! grammar feature it does not print, damaged input, a name nested or expanding beyond its
//! limits); [`demangle_or_raw`] then keeps the symbol. Nothing here panics.

mod expr;
mod style;
mod tables;
mod template;
mod types;

pub use style::Style;

use std::rc::Rc;

use tables::{base_name, builtin, operator, std_abbreviation};
use types::{Kind, Ty};

/// The longest output (and the most text produced while demangling one name): substitutions
/// can double the text with each reference, so a short input could otherwise ask for
/// gigabytes.
pub const MAX_OUTPUT: usize = 1 << 20;

/// The deepest nesting of grammar productions followed.
const MAX_RECURSION: usize = 256;

/// The demangled name of an Itanium-mangled symbol (`_Z…`) in NVIDIA's style, or `None` when
/// the symbol is not one this demangler reads completely.
pub fn demangle(symbol: &str) -> Option<String> {
    demangle_in(symbol, Style::Nvidia)
}

/// The demangled name of an Itanium-mangled symbol in `style`, or `None` (see [`demangle`]).
pub fn demangle_in(symbol: &str, style: Style) -> Option<String> {
    let rest = symbol.strip_prefix("_Z")?;
    let mut parser = Parser {
        input: rest.as_bytes(),
        pos: 0,
        subs: Vec::new(),
        produced: 0,
        depth: 0,
        style,
        function_args: Vec::new(),
        last_args: Vec::new(),
    };
    let text = parser.encoding()?;
    (parser.pos == parser.input.len() && !text.is_empty()).then_some(text)
}

/// [`demangle`], or the symbol itself when it does not demangle (C names, `$`-joined device
/// runtime symbols, damaged names).
pub fn demangle_or_raw(symbol: &str) -> String {
    demangle(symbol).unwrap_or_else(|| symbol.to_owned())
}

/// The name NVIDIA's Source page gives a function by its symbol: the demangled name, or — for
/// a symbol that does not demangle — the symbol, less the `_gpu` of the `NAME_LINE_gpu`
/// kernels NVIDIA's HPC compilers generate for OpenACC and CUDA Fortran (`main_24_gpu` →
/// `main_24`; `compute_gpu`, `main_2a_gpu`, `main24__gpu` and `_24_gpu` stay as they are).
/// Found with NVIDIA's 2024.1 CLI on reports whose symbols were renamed (SASS view's
/// "Kernel Name", CUDA-C view's "Function Name"; notes/ncu-import-csv.md). `None` when the
/// symbol neither demangles nor has that suffix.
pub fn source_page_name(symbol: &str) -> Option<String> {
    demangle(symbol).or_else(|| strip_offload_suffix(symbol).map(str::to_owned))
}

/// `NAME_DIGITS` of a `NAME_DIGITS_gpu` symbol (`NAME` not empty), else `None`.
fn strip_offload_suffix(symbol: &str) -> Option<&str> {
    let stem = symbol.strip_suffix("_gpu")?;
    let (name, digits) = stem.rsplit_once('_')?;
    let ok = !name.is_empty() && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
    ok.then_some(stem)
}

/// [`demangle_in`], or the symbol itself when it does not demangle.
pub fn demangle_or_raw_in(symbol: &str, style: Style) -> String {
    demangle_in(symbol, style).unwrap_or_else(|| symbol.to_owned())
}

/// What a `<name>` tells besides its text.
#[derive(Default)]
struct NameInfo {
    /// It ends with template arguments (a function template: its return type is mangled).
    template: bool,
    /// It names a constructor, destructor or conversion operator (no return type).
    special: bool,
    /// ` const`, ` volatile`, ` &`, ` &&` of a member function.
    trailing: String,
    /// ` [subobject]` / ` [deleting]` after the parameters.
    suffix: &'static str,
}

struct Parser<'a> {
    input: &'a [u8],
    pos: usize,
    subs: Vec<Rc<Ty>>,
    produced: usize,
    depth: usize,
    style: Style,
    /// GNU style: the template arguments of the function whose type is being read (its
    /// template parameters print as them).
    function_args: Vec<String>,
    /// The arguments of the template argument list read last.
    last_args: Vec<String>,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.input.get(self.pos).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<u8> {
        self.input.get(self.pos + offset).copied()
    }

    fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn eat_str(&mut self, s: &[u8]) -> bool {
        if self.input[self.pos..].starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    /// Counts produced text against [`MAX_OUTPUT`].
    fn produce(&mut self, text: String) -> Option<String> {
        self.produced = self.produced.checked_add(text.len())?;
        (self.produced <= MAX_OUTPUT).then_some(text)
    }

    /// Whether `length` more bytes of text stay within [`MAX_OUTPUT`] (checked before
    /// printing a type, whose text is only bounded by its width).
    fn afford(&self, length: usize) -> Option<()> {
        (self.produced.saturating_add(length) <= MAX_OUTPUT).then_some(())
    }

    /// `ty` printed alone, counted against [`MAX_OUTPUT`].
    fn render(&mut self, ty: &Ty) -> Option<String> {
        self.afford(ty.width())?;
        let text = match self.style {
            Style::Nvidia => ty.render(),
            Style::Gnu => style::gnu_render(ty),
        };
        self.produce(text)
    }

    fn enter(&mut self) -> Option<()> {
        self.depth += 1;
        (self.depth <= MAX_RECURSION).then_some(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// `<number>`: decimal, `n` for negative.
    fn number(&mut self) -> Option<i64> {
        let negative = self.eat(b'n');
        let start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        let digits = std::str::from_utf8(&self.input[start..self.pos]).ok()?;
        let value: i64 = digits.parse().ok()?;
        Some(if negative { -value } else { value })
    }

    /// `<seq-id> _` (after `S` or `T`): `_` is 0, `0_` is 1, `A_` is 11 …
    fn seq_id(&mut self) -> Option<usize> {
        if self.eat(b'_') {
            return Some(0);
        }
        let mut value: usize = 0;
        loop {
            let b = self.peek()?;
            self.pos += 1;
            let digit = match b {
                b'0'..=b'9' => b - b'0',
                b'A'..=b'Z' => b - b'A' + 10,
                b'_' => return value.checked_add(1),
                _ => return None,
            };
            value = value.checked_mul(36)?.checked_add(usize::from(digit))?;
        }
    }

    /// A discriminator `_ <digit>` or `__ <number> _` (not printed).
    fn discriminator(&mut self) {
        if self.peek() != Some(b'_') {
            return;
        }
        let save = self.pos;
        self.pos += 1;
        if self.eat(b'_') {
            if self.number().is_some_and(|n| n >= 0) && self.eat(b'_') {
                return;
            }
        } else if self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
            return;
        }
        self.pos = save;
    }

    /// `<source-name>`: a length and an identifier.
    fn source_name(&mut self) -> Option<String> {
        let length = usize::try_from(self.number()?).ok()?;
        let end = self.pos.checked_add(length)?;
        let bytes = self.input.get(self.pos..end)?;
        self.pos = end;
        let text = std::str::from_utf8(bytes).ok()?;
        if text.is_empty() {
            return None;
        }
        Some(if text.starts_with("_GLOBAL__N") {
            style::anonymous_namespace(self.style).to_owned()
        } else {
            text.to_owned()
        })
    }

    /// `<encoding>`: a function (name, return type when a template, parameters) or data name.
    fn encoding(&mut self) -> Option<String> {
        self.enter()?;
        let result = self.encoding_inner();
        self.leave();
        result
    }

    fn encoding_inner(&mut self) -> Option<String> {
        if matches!(self.peek(), Some(b'T' | b'G')) {
            // Special names (virtual tables, guard variables, thunks): not printed.
            return None;
        }
        let mut info = NameInfo::default();
        let outer_args = std::mem::take(&mut self.function_args);
        let result = self.function(&mut info);
        self.function_args = outer_args;
        result
    }

    /// A function's name, return type and parameters (or a data name).
    fn function(&mut self, info: &mut NameInfo) -> Option<String> {
        let name = self.name(info)?;
        if self.pos == self.input.len() || matches!(self.peek(), Some(b'E' | b'.')) {
            return Some(name);
        }
        if info.template && self.style == Style::Gnu {
            self.function_args = self.last_args.clone();
        }
        let ret = if info.template && !info.special {
            Some(self.ty()?)
        } else {
            None
        };
        let params = self.bare_function_params()?;
        let declarator = format!(
            "{name}({}){}{}",
            params
                .iter()
                .map(|p| self.render(p))
                .collect::<Option<Vec<_>>>()?
                .join(", "),
            info.trailing,
            info.suffix
        );
        let text = match ret {
            Some(ret) => {
                self.afford(ret.width().saturating_add(declarator.len()))?;
                match self.style {
                    Style::Nvidia => ret.declare(declarator, false),
                    Style::Gnu => format!("{} {declarator}", style::gnu_render(&ret)),
                }
            }
            None => declarator,
        };
        self.produce(text)
    }

    /// Parameter types up to the end of an encoding (`E`, `.`, the end); a lone `v` is none.
    fn bare_function_params(&mut self) -> Option<Vec<Rc<Ty>>> {
        let at_end = |p: &Self, offset: usize| {
            p.pos + offset >= p.input.len() || matches!(p.peek_at(offset), Some(b'E' | b'.'))
        };
        if self.peek() == Some(b'v') && at_end(self, 1) {
            self.pos += 1;
            return Some(Vec::new());
        }
        let mut params = Vec::new();
        loop {
            params.push(self.ty()?);
            if at_end(self, 0) {
                return Some(params);
            }
        }
    }

    /// `<name>`: nested, local, unscoped (possibly a template).
    fn name(&mut self, info: &mut NameInfo) -> Option<String> {
        self.enter()?;
        let result = self.name_inner(info);
        self.leave();
        result
    }

    fn name_inner(&mut self, info: &mut NameInfo) -> Option<String> {
        match self.peek()? {
            b'N' => self.nested_name(info),
            b'Z' => self.local_name(info),
            _ => {
                let (name, substituted) = self.unscoped_name(info)?;
                if self.peek() == Some(b'I') {
                    if !substituted {
                        self.subs.push(Ty::plain(name.clone()));
                    }
                    let args = self.template_args()?;
                    info.template = true;
                    self.produce(format!("{name}{args}"))
                } else if substituted {
                    None
                } else {
                    Some(name)
                }
            }
        }
    }

    /// `<unscoped-name>` (`St` prefix allowed), or a substitution that must be followed by
    /// template arguments (second: true).
    fn unscoped_name(&mut self, info: &mut NameInfo) -> Option<(String, bool)> {
        if self.eat_str(b"St") {
            let name = self.unqualified_name(info, Some("std"))?;
            return Some((format!("std::{name}"), false));
        }
        if self.peek() == Some(b'S') {
            let sub = self.substitution()?;
            return Some((self.render(&sub)?, true));
        }
        Some((self.unqualified_name(info, None)?, false))
    }

    /// `<substitution>`: `S_`, `S<seq-id>_`, or a `std::` abbreviation.
    fn substitution(&mut self) -> Option<Rc<Ty>> {
        if !self.eat(b'S') {
            return None;
        }
        if let Some(text) = self.peek().and_then(std_abbreviation) {
            self.pos += 1;
            return Some(Ty::plain(text));
        }
        let index = self.seq_id()?;
        self.subs.get(index).cloned()
    }

    /// `<unqualified-name>`: a source name, an operator, a lambda, an unnamed type, an ABI
    /// tag list after it. `prefix` is the printed scope (for constructor names).
    fn unqualified_name(&mut self, info: &mut NameInfo, prefix: Option<&str>) -> Option<String> {
        let mut name = match self.peek()? {
            b'0'..=b'9' => self.source_name()?,
            b'U' if self.peek_at(1) == Some(b'l') => {
                self.pos += 2;
                let params = self.lambda_params()?;
                let instance = self.instance()?;
                style::lambda(self.style, &params, instance)
            }
            b'U' if self.peek_at(1) == Some(b't') => {
                self.pos += 2;
                let instance = self.instance()?;
                style::unnamed_type(self.style, instance)
            }
            b'C' | b'D' if prefix.is_some() && self.is_ctor_dtor() => {
                let prefix = prefix?;
                let destructor = self.peek() == Some(b'D');
                let variant = self.peek_at(1)?;
                self.pos += 2;
                if variant == b'I' {
                    // An inheriting constructor names its base class: skip it.
                    self.ty()?;
                }
                info.special = true;
                info.suffix = match (self.style, destructor, variant) {
                    (Style::Gnu, ..) => "",
                    (_, _, b'2') => " [subobject]",
                    (_, true, b'0') => " [deleting]",
                    _ => "",
                };
                let base = base_name(prefix);
                if destructor {
                    format!("~{base}")
                } else {
                    base.to_owned()
                }
            }
            b'c' if self.peek_at(1) == Some(b'v') => {
                self.pos += 2;
                info.special = true;
                let ty = self.ty()?;
                format!("operator {}", self.render(&ty)?)
            }
            b'l' if self.peek_at(1) == Some(b'i') => {
                self.pos += 2;
                format!("operator \"\" {}", self.source_name()?)
            }
            b'v' if self.peek_at(1).is_some_and(|b| b.is_ascii_digit()) => {
                self.pos += 2;
                format!("operator {}", self.source_name()?)
            }
            _ => {
                let code = self.input.get(self.pos..self.pos + 2)?;
                let symbol = operator(code)?;
                self.pos += 2;
                style::operator_name(self.style, symbol)
            }
        };
        while self.peek() == Some(b'B') {
            self.pos += 1;
            let tag = self.source_name()?;
            name = format!("{name}[abi:{tag}]");
        }
        self.produce(name)
    }

    fn is_ctor_dtor(&self) -> bool {
        matches!(
            (self.peek(), self.peek_at(1)),
            (Some(b'C'), Some(b'1'..=b'5' | b'I')) | (Some(b'D'), Some(b'0'..=b'5'))
        )
    }

    /// A lambda's parameters up to `E` (`v`: none), as printed.
    fn lambda_params(&mut self) -> Option<String> {
        if self.eat_str(b"vE") {
            return Some(String::new());
        }
        let mut params = Vec::new();
        while !self.eat(b'E') {
            let ty = self.ty()?;
            params.push(self.render(&ty)?);
        }
        Some(params.join(", "))
    }

    /// `[<number>] _` after a lambda or unnamed type: the 1-based instance.
    fn instance(&mut self) -> Option<i64> {
        if self.eat(b'_') {
            return Some(1);
        }
        let n = self.number()?;
        if n < 0 || !self.eat(b'_') {
            return None;
        }
        n.checked_add(2)
    }

    /// `N [<cv>] [<ref>] <prefix>… E`: every prefix is a substitution candidate, the whole
    /// name is not.
    fn nested_name(&mut self, info: &mut NameInfo) -> Option<String> {
        if !self.eat(b'N') {
            return None;
        }
        let cv = self.cv_qualifiers();
        let mut trailing = String::new();
        if cv != 0 {
            trailing = format!(" {}", types::cv_text(cv));
        }
        if self.eat(b'R') {
            trailing.push_str(" &");
        } else if self.eat(b'O') {
            trailing.push_str(" &&");
        }
        let mut so_far: Option<String> = None;
        let mut pushed = 0usize;
        while !self.eat(b'E') {
            info.template = false;
            info.special = false;
            info.suffix = "";
            match self.peek()? {
                b'T' => {
                    let param = self.template_param()?;
                    so_far = Some(self.scoped(so_far.as_deref(), &param)?);
                }
                b'I' => {
                    let base = so_far.take()?;
                    let args = self.template_args()?;
                    so_far = Some(self.produce(format!("{base}{args}"))?);
                    info.template = true;
                }
                b'S' if self.peek_at(1) == Some(b't') => {
                    self.pos += 2;
                    so_far = Some(self.scoped(so_far.as_deref(), "std")?);
                    continue;
                }
                b'S' => {
                    let sub = self.substitution()?;
                    let sub = self.render(&sub)?;
                    let is_first = so_far.is_none();
                    so_far = Some(self.scoped(so_far.as_deref(), &sub)?);
                    if is_first {
                        continue;
                    }
                }
                b'D' if matches!(self.peek_at(1), Some(b't' | b'T')) => return None,
                _ => {
                    let internal = self.style == Style::Nvidia
                        && self.peek().is_some_and(|b| b.is_ascii_digit())
                        && self.is_internal_namespace();
                    let component = self.unqualified_name(info, so_far.as_deref())?;
                    if internal && self.peek() != Some(b'E') {
                        // nvcc's namespace of a file's internal-linkage functions: NVIDIA
                        // prints the function without it.
                        self.subs.push(Ty::plain(component));
                        pushed += 1;
                        so_far = Some(String::new());
                        continue;
                    }
                    so_far = Some(self.scoped(so_far.as_deref(), &component)?);
                }
            }
            self.subs.push(Ty::plain(so_far.clone()?));
            pushed += 1;
        }
        if pushed > 0 {
            self.subs.pop();
        }
        info.trailing = trailing;
        so_far.filter(|n| !n.is_empty())
    }

    /// Whether the source name at the cursor starts with `_INTERNAL`.
    fn is_internal_namespace(&self) -> bool {
        let digits = self.input[self.pos..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        self.input[self.pos + digits..].starts_with(b"_INTERNAL")
    }

    fn scoped(&mut self, prefix: Option<&str>, name: &str) -> Option<String> {
        match prefix {
            Some(p) if !p.is_empty() => self.produce(format!("{p}::{name}")),
            _ => Some(name.to_owned()),
        }
    }

    /// `Z <encoding> E <name> [<discriminator>]` (or `s`: a string literal).
    fn local_name(&mut self, info: &mut NameInfo) -> Option<String> {
        if !self.eat(b'Z') {
            return None;
        }
        let function = self.encoding()?;
        if !self.eat(b'E') {
            return None;
        }
        if self.eat(b's') {
            self.discriminator();
            return self.produce(format!("{function}::string literal"));
        }
        if self.eat(b'd') {
            if self.peek() != Some(b'_') {
                self.number()?;
            }
            if !self.eat(b'_') {
                return None;
            }
        }
        let entity = self.name(info)?;
        self.discriminator();
        self.produce(format!("{function}::{entity}"))
    }

    /// `<type>`; every type but builtins and bare substitutions becomes a substitution
    /// candidate.
    fn ty(&mut self) -> Option<Rc<Ty>> {
        self.enter()?;
        let result = self.ty_inner();
        self.leave();
        result
    }

    fn ty_inner(&mut self) -> Option<Rc<Ty>> {
        let first = self.peek()?;
        if let Some(text) = builtin(&[first]) {
            self.pos += 1;
            return Some(Ty::plain(text));
        }
        if first == b'D'
            && let Some(text) = self.input.get(self.pos..self.pos + 2).and_then(builtin)
        {
            self.pos += 2;
            return Some(Ty::plain(text));
        }
        let ty = match first {
            b'r' | b'V' | b'K' => {
                let cv = self.cv_qualifiers();
                let inner = self.ty()?;
                Ty::qualified(cv, inner)?
            }
            b'P' => {
                self.pos += 1;
                let inner = self.ty()?;
                Ty::new(Kind::Pointer(inner))?
            }
            b'R' | b'O' => {
                self.pos += 1;
                let inner = self.ty()?;
                Ty::reference(inner, first == b'O')?
            }
            b'F' => self.function_type()?,
            b'A' => self.array_type()?,
            b'M' => {
                self.pos += 1;
                let class = self.ty()?;
                let class = self.render(&class)?;
                let member = self.ty()?;
                Ty::new(Kind::Member(class.into(), member))?
            }
            b'T' => {
                let param = self.template_param()?;
                if self.peek() == Some(b'I') {
                    self.subs.push(Ty::plain(param.clone()));
                    let args = self.template_args()?;
                    Ty::plain(self.produce(format!("{param}{args}"))?)
                } else {
                    Ty::plain(param)
                }
            }
            b'D' if self.peek_at(1) == Some(b'p') => {
                self.pos += 2;
                let inner = self.ty()?;
                Ty::new(Kind::Pack(inner))?
            }
            b'D' if self.peek_at(1) == Some(b'F') => {
                self.pos += 2;
                let bits = self.number()?;
                if !self.eat(b'_') {
                    return None;
                }
                return Some(Ty::plain(format!("_Float{bits}")));
            }
            b'u' => {
                self.pos += 1;
                Ty::plain(self.source_name()?)
            }
            b'S' if self.peek_at(1) != Some(b't') => {
                let sub = self.substitution()?;
                if self.peek() != Some(b'I') {
                    // A bare substitution is not a new candidate.
                    return Some(sub);
                }
                let args = self.template_args()?;
                let sub = self.render(&sub)?;
                Ty::plain(self.produce(format!("{sub}{args}"))?)
            }
            b'N' | b'Z' | b'S' | b'0'..=b'9' => {
                let mut info = NameInfo::default();
                Ty::plain(self.name(&mut info)?)
            }
            _ => return None,
        };
        self.subs.push(ty.clone());
        Some(ty)
    }

    /// `F [Y] <return> <params> [R|O] E`.
    fn function_type(&mut self) -> Option<Rc<Ty>> {
        if !self.eat(b'F') {
            return None;
        }
        self.eat(b'Y');
        let ret = self.ty()?;
        let mut params = Vec::new();
        let mut trailing = "";
        if !self.eat_str(b"vE") {
            loop {
                if self.eat(b'E') {
                    break;
                }
                if self.eat_str(b"RE") {
                    trailing = " &";
                    break;
                }
                if self.eat_str(b"OE") {
                    trailing = " &&";
                    break;
                }
                params.push(self.ty()?);
            }
        }
        Ty::new(Kind::Function {
            ret: Some(ret),
            params,
            trailing: trailing.into(),
        })
    }

    /// `A <dimension> _ <element>` (the dimension a number, a template parameter or empty).
    fn array_type(&mut self) -> Option<Rc<Ty>> {
        if !self.eat(b'A') {
            return None;
        }
        let dim = if self.peek() == Some(b'_') {
            String::new()
        } else if self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.number()?.to_string()
        } else {
            self.expression()?
        };
        if !self.eat(b'_') {
            return None;
        }
        let element = self.ty()?;
        Ty::new(Kind::Array(dim.into(), element))
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod offload_tests {
    use super::source_page_name;

    /// What NVIDIA's 2024.1 CLI printed for a report's kernel renamed to each symbol.
    #[test]
    fn offload_kernels_lose_their_gpu_suffix_as_the_cli_prints_them() {
        for (symbol, cli) in [
            ("main_24_gpu", Some("main_24")),
            ("main__4_gpu", Some("main__4")),
            ("_Z1fv_2_gpu", Some("_Z1fv_2")),
            (
                "xxxx__pgi_uacc_cuda_fill_42_gpu",
                Some("xxxx__pgi_uacc_cuda_fill_42"),
            ),
            ("compute_gpu", None),
            ("main_2a_gpu", None),
            ("mainx24_gpu", None),
            ("main24__gpu", None),
            ("_245678_gpu", None),
            ("main_24_GPU", None),
            ("main_24_gpX", None),
            ("1_2_gpu_gpu", None),
            // OpenMP offload kernels (clang's, NVIDIA HPC's) print as they are.
            ("__omp_offloading_803_7_main_l24", None),
            ("nvkernel_solve_F1L204_2_1234567", None),
            ("__nv_static_19_main_cpp_F1L24_2", None),
            ("_Z3addiPfS_", Some("add(int, float *, float *)")),
        ] {
            assert_eq!(source_page_name(symbol).as_deref(), cli, "{symbol}");
        }
    }
}
