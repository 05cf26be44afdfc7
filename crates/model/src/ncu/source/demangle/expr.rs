//! Template arguments' expressions and literals.

use super::Parser;
use super::style::{Style, gnu_literal};
use super::tables::operator;

/// The binary operators printed in expressions.
const BINARY: [&[u8]; 18] = [
    b"aa", b"oo", b"eq", b"ne", b"lt", b"gt", b"le", b"ge", b"pl", b"mi", b"ml", b"dv", b"rm",
    b"an", b"or", b"eo", b"ls", b"rs",
];

impl Parser<'_> {
    /// The expressions a template argument may hold that this demangler prints: template
    /// parameters, literals, `&` of a name and binary operators (`(a || b)`).
    pub(super) fn expression(&mut self) -> Option<String> {
        self.enter()?;
        let result = self.expression_inner();
        self.leave();
        result
    }

    fn expression_inner(&mut self) -> Option<String> {
        match self.peek()? {
            b'T' => self.template_param(),
            b'L' => self.literal(),
            b'a' if self.peek_at(1) == Some(b'd') => {
                self.pos += 2;
                let operand = self.expression()?;
                self.produce(format!("&{operand}"))
            }
            _ => {
                let code = self.input.get(self.pos..self.pos + 2)?;
                if !BINARY.contains(&code) {
                    return None;
                }
                let symbol = operator(code)?;
                self.pos += 2;
                let left = self.expression()?;
                let right = self.expression()?;
                self.produce(format!("({left} {symbol} {right})"))
            }
        }
    }

    /// `L <type> <value> E` as `(type)value` (GNU style: `4u`, `true`; [`gnu_literal`]),
    /// `L_Z <encoding> E` as the name.
    pub(super) fn literal(&mut self) -> Option<String> {
        if !self.eat(b'L') {
            return None;
        }
        if self.eat_str(b"_Z") || self.eat(b'Z') {
            let name = self.encoding()?;
            return self.eat(b'E').then_some(name);
        }
        if self.eat_str(b"DnE") {
            return Some("nullptr".to_owned());
        }
        let ty = self.ty()?;
        let ty = self.render(&ty)?;
        let start = self.pos;
        while self.peek().is_some_and(|b| b != b'E') {
            self.pos += 1;
        }
        let value = std::str::from_utf8(&self.input[start..self.pos]).ok()?;
        if !self.eat(b'E') || value.is_empty() {
            return None;
        }
        let value = match value.strip_prefix('n') {
            Some(v) => format!("-{v}"),
            None => value.to_owned(),
        };
        let text = match self.style {
            Style::Nvidia => format!("({ty}){value}"),
            Style::Gnu => gnu_literal(&ty, &value),
        };
        self.produce(text)
    }
}
