//! The expression parser of derived metrics (the grammar is in the module documentation of
//! [`super`]).

use super::{DerivedError, Expression, Function, MAX_DEPTH, Operand, Operator};

/// Parses a derived-metric expression (see the module doc for the grammar).
pub fn parse_expression(text: &str) -> Result<Expression, DerivedError> {
    let mut parser = Parser {
        chars: text.chars().collect(),
        pos: 0,
    };
    let (operand, _) = parser.sum(0)?;
    parser.skip_whitespace();
    if let Some(c) = parser.peek() {
        return Err(parser.error(format!("unexpected `{c}` (expected an operator: + - * /)")));
    }
    Ok(match operand {
        Operand::Expression(expression) => *expression,
        lone => Expression {
            lhs: lone,
            op: Operator::Mul,
            rhs: Operand::Uint64(1),
        },
    })
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
}

/// An operand parsed, with the height of its tree (0 for a leaf).
type Parsed = Result<(Operand, usize), DerivedError>;

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn skip_whitespace(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }

    fn error(&self, message: String) -> DerivedError {
        DerivedError::Parse {
            position: self.pos + 1,
            message,
        }
    }

    fn check_depth(&self, depth: usize) -> Result<(), DerivedError> {
        if depth > MAX_DEPTH {
            Err(self.error(format!("expression nested deeper than {MAX_DEPTH} levels")))
        } else {
            Ok(())
        }
    }

    /// `term (('+' | '-') term)*`. `depth` is the parenthesis/call nesting of the parser; the
    /// returned height is the height of the operand's tree (0 for a leaf).
    fn sum(&mut self, depth: usize) -> Parsed {
        self.left_assoc(
            depth,
            [('+', Operator::Add), ('-', Operator::Sub)],
            Self::product,
        )
    }

    /// `factor (('*' | '/') factor)*`.
    fn product(&mut self, depth: usize) -> Parsed {
        self.left_assoc(
            depth,
            [('*', Operator::Mul), ('/', Operator::Div)],
            Self::factor,
        )
    }

    /// `operand (op operand)*` for the two operators `ops` of one precedence level, grouped
    /// from the left.
    fn left_assoc(
        &mut self,
        depth: usize,
        ops: [(char, Operator); 2],
        operand: fn(&mut Self, usize) -> Parsed,
    ) -> Parsed {
        let (mut lhs, mut lhs_depth) = operand(self, depth)?;
        loop {
            self.skip_whitespace();
            let next = self.peek();
            let Some(&(_, op)) = ops.iter().find(|(c, _)| Some(*c) == next) else {
                return Ok((lhs, lhs_depth));
            };
            self.pos += 1;
            let (rhs, rhs_depth) = operand(self, depth)?;
            (lhs, lhs_depth) = self.binary(lhs, op, rhs, lhs_depth.max(rhs_depth))?;
        }
    }

    fn binary(
        &self,
        lhs: Operand,
        op: Operator,
        rhs: Operand,
        depth: usize,
    ) -> Result<(Operand, usize), DerivedError> {
        self.check_depth(depth + 1)?;
        Ok((
            Operand::Expression(Box::new(Expression { lhs, op, rhs })),
            depth + 1,
        ))
    }

    /// `metric | constant | '(' expr ')' | function '(' expr ')'`.
    fn factor(&mut self, depth: usize) -> Result<(Operand, usize), DerivedError> {
        self.check_depth(depth + 1)?;
        self.skip_whitespace();
        match self.peek() {
            None => {
                Err(self
                    .error("unexpected end (expected a metric name, a number or `(`)".to_owned()))
            }
            Some('(') => {
                self.pos += 1;
                let (inner, inner_depth) = self.sum(depth + 1)?;
                self.close_paren()?;
                Ok((inner, inner_depth))
            }
            Some(c) if c.is_ascii_digit() => self.number(),
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                let start = self.pos;
                while self
                    .peek()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':'))
                {
                    self.pos += 1;
                }
                let name: String = self.chars[start..self.pos].iter().collect();
                let after_name = self.pos;
                self.skip_whitespace();
                if self.peek() != Some('(') {
                    self.pos = after_name;
                    return Ok((Operand::Metric(name), 0));
                }
                let Some(function) = Function::from_name(&name) else {
                    self.pos = start;
                    return Err(self.error(format!(
                        "unknown function `{name}` (known: simplify, nan_as_zero)"
                    )));
                };
                self.pos += 1;
                let (argument, argument_depth) = self.sum(depth + 1)?;
                self.close_paren()?;
                Ok((
                    Operand::Call(function, Box::new(argument)),
                    argument_depth + 1,
                ))
            }
            Some(c) => Err(self.error(format!(
                "unexpected `{c}` (expected a metric name, a number or `(`)"
            ))),
        }
    }

    fn close_paren(&mut self) -> Result<(), DerivedError> {
        self.skip_whitespace();
        match self.peek() {
            Some(')') => {
                self.pos += 1;
                Ok(())
            }
            Some(c) => Err(self.error(format!("unexpected `{c}` (expected `)`)"))),
            None => Err(self.error("unexpected end (expected `)`)".to_owned())),
        }
    }

    /// `N` (uint64) or `N.` / `N.M` (double).
    fn number(&mut self) -> Result<(Operand, usize), DerivedError> {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        let is_double = self.peek() == Some('.');
        if is_double {
            self.pos += 1;
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.pos += 1;
            }
        }
        if self
            .peek()
            .is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, '_' | '.'))
        {
            return Err(self.error("malformed number".to_owned()));
        }
        let text: String = self.chars[start..self.pos].iter().collect();
        let operand = if is_double {
            text.parse::<f64>().map(Operand::Double).ok()
        } else {
            text.parse::<u64>().map(Operand::Uint64).ok()
        };
        match operand {
            Some(operand) => Ok((operand, 0)),
            None => {
                self.pos = start;
                Err(self.error(format!(
                    "number `{text}` does not fit an unsigned 64-bit integer"
                )))
            }
        }
    }
}
