//! Template parameters, template argument lists and cv-qualifiers.

use super::Parser;
use super::style::Style;
use super::types::{CONST, RESTRICT, VOLATILE};

impl Parser<'_> {
    /// `T_`, `T<n>_`: printed `T1`, `T<n+2>` (the 1-based position).
    pub(super) fn template_param(&mut self) -> Option<String> {
        if !self.eat(b'T') {
            return None;
        }
        let index = self.seq_id()?;
        if let Some(argument) = self.function_args.get(index) {
            return Some(argument.clone());
        }
        Some(format!("T{}", index.checked_add(1)?))
    }

    /// `r`, `V`, `K` in any combination.
    pub(super) fn cv_qualifiers(&mut self) -> u8 {
        let mut cv = 0;
        loop {
            match self.peek() {
                Some(b'r') => cv |= RESTRICT,
                Some(b'V') => cv |= VOLATILE,
                Some(b'K') => cv |= CONST,
                _ => return cv,
            }
            self.pos += 1;
        }
    }

    /// `I <template-arg>+ E`, printed `<a, b>`.
    pub(super) fn template_args(&mut self) -> Option<String> {
        if !self.eat(b'I') {
            return None;
        }
        let mut args = Vec::new();
        while !self.eat(b'E') {
            self.template_arg(&mut args)?;
        }
        let mut text = format!("<{}>", args.join(", "));
        if self.style == Style::Gnu && text.ends_with(">>") {
            // GNU keeps `>` and `>` apart.
            text.insert(text.len() - 1, ' ');
        }
        self.last_args = args;
        self.produce(text)
    }

    fn template_arg(&mut self, args: &mut Vec<String>) -> Option<()> {
        self.enter()?;
        let result = self.template_arg_inner(args);
        self.leave();
        result
    }

    fn template_arg_inner(&mut self, args: &mut Vec<String>) -> Option<()> {
        match self.peek()? {
            b'L' => {
                let literal = self.literal()?;
                args.push(literal);
            }
            b'J' => {
                self.pos += 1;
                while !self.eat(b'E') {
                    self.template_arg(args)?;
                }
            }
            b'X' => {
                self.pos += 1;
                let expression = self.expression()?;
                if !self.eat(b'E') {
                    return None;
                }
                args.push(expression);
            }
            _ => {
                let ty = self.ty()?;
                args.push(self.render(&ty)?);
            }
        }
        Some(())
    }
}
