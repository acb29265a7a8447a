//! The K-NN parser: `KNN-SYNTAX` with K's priorities and priority filter (docs/semantics.md §2.2).
//!
//! Priority groups, tightest first:
//! `{Float, Int, Id, E[Is], (E), max, min, ArgMax} > * > + > let-Exp > let-Func`.
//! K applies priorities only at the left-most and right-most non-terminal of a production, so
//! * `+` and `*` are left-associative and cannot take a `let` operand without parentheses;
//!   the relaxed grammar's `-` and `/` (Ext-7) have the priority and associativity of `+` and
//!   `*` respectively;
//! * the base of `E[Is]` is an atom (`(a + b)[0]` needs its parentheses);
//! * the body of a `let … = Exp in …` cannot be a `let … = Func in …` (under [`Grammar::K`]);
//! * the target and value of a `let` and the arguments of `max`, `min`, `ArgMax` and the
//!   functions are free.
//!
//! The parser is a loop over an explicit stack of frames, so a program nested 100,000 levels
//! deep parses without deep recursion. This file holds the grammar (the levels and the frames);
//! `operators.rs` reads the binary operators; `tokens.rs` reads the tokens and reports an
//! unexpected one; `windows.rs` reads the operands and attributes of `conv2d`.

mod operators;
mod tokens;
mod windows;

use super::ast::{Exp, ExpKind, Func, FuncKind, Span};
use super::diagnostic::SyntaxError;
use super::elements::Elements;
use super::grammar::Grammar;
use super::lexer::{Keyword, Token, TokenKind, tokenize_in};
use super::tensor_op::TensorOp;

/// Parses a whole program.
pub fn parse_program(source: &str, grammar: Grammar) -> Result<Exp, SyntaxError> {
    parse_program_with_elements(source, grammar, Vec::new())
}

/// Parses a program whose tensor literals are written `initTensor(Is)[…]`, their elements
/// given here, in the order of the literals in the text: a network built in memory, whose
/// weights never become text (the text names every place an error can point to). Each
/// `[…]` takes the next `elements`, which must have the shape's size; every one must be used.
pub fn parse_program_with_elements(
    source: &str,
    grammar: Grammar,
    elements: Vec<Elements>,
) -> Result<Exp, SyntaxError> {
    let mut tokens = tokenize_in(source, grammar)?;
    for token in &mut tokens {
        if let TokenKind::Keyword(keyword) = token.kind
            && !keyword.in_grammar(grammar)
        {
            // Its name is its text, the keyword's.
            token.kind = TokenKind::Id;
        }
    }
    let mut parser =
        Parser { source, tokens, pos: 0, grammar, frames: Vec::new(), held: elements.into_iter(), used: 0 };
    let program = parser.run()?;
    if parser.held.len() > 0 {
        let end = Span::new(source.len(), source.len());
        return Err(SyntaxError::new(
            end,
            format!(
                "{} tensor literals are given for {} `[…]` in the text",
                parser.used + parser.held.len(),
                parser.used
            ),
        ));
    }
    Ok(program)
}

/// What the expression being parsed may be, loosest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    Any,
    /// The body of a let-Exp: anything but a let-Func.
    NoLetFunc,
    Sum,
    Product,
    Atom,
}

#[derive(Clone, Copy, Debug)]
enum BinOp {
    Mul,
    Add,
    /// Ext-7, relaxed grammar only (the K grammar's tokens have no `-` or `/`).
    Sub,
    Div,
}

enum LetRhs {
    Exp(Exp),
    Func(Func),
}

/// What to do with the expression that is being parsed once it is complete.
enum Frame {
    Binary { op: BinOp, lhs: Exp, level: Level },
    LetTarget { start: u32, level: Level },
    LetValue { start: u32, target: Exp },
    FuncArg { start: u32, target: Exp, keyword: Keyword, func_start: u32 },
    // `addTensor(E, □)` (Ext-1), `subTensor`, `mulTensor`, `divTensor` (Ext-8), `matmul`
    // (Ext-15): the first operand is parsed.
    FuncSecondArg { start: u32, target: Exp, first: Exp, func_start: u32, keyword: Keyword },
    // `conv2d(E, …, □` (Ext-3): the tensor operands parsed so far.
    WindowOperand { start: u32, target: Exp, keyword: Keyword, operands: Vec<Exp>, func_start: u32 },
    LetBody { start: u32, target: Exp, rhs: LetRhs },
    Paren { start: u32, level: Level },
    CallFirst { start: u32, keyword: Keyword, level: Level },
    CallSecond { start: u32, keyword: Keyword, first: Exp, level: Level },
    ArgMaxArg { start: u32, level: Level },
}

enum Mode {
    Expect(Level),
    Primary(Exp, Level),
    Operators(Exp, Level),
    Reduce(Exp),
}

struct Parser<'s> {
    source: &'s str,
    tokens: Vec<Token>,
    pos: usize,
    grammar: Grammar,
    frames: Vec<Frame>,
    /// The elements of the `[…]` literals still to come, and how many were taken.
    held: std::vec::IntoIter<Elements>,
    used: usize,
}

impl<'s> Parser<'s> {
    fn run(&mut self) -> Result<Exp, SyntaxError> {
        let mut mode = Mode::Expect(Level::Any);
        loop {
            mode = match mode {
                Mode::Expect(level) => self.expect_expression(level)?,
                Mode::Primary(exp, level) => self.postfix(exp, level)?,
                Mode::Operators(exp, level) => self.operators(exp, level),
                Mode::Reduce(exp) => match self.frames.pop() {
                    Some(frame) => self.reduce(frame, exp)?,
                    None => return self.finish(exp),
                },
            };
        }
    }

    fn expect_expression(&mut self, level: Level) -> Result<Mode, SyntaxError> {
        let token = self.advance();
        let start = token.span.start;
        let span = token.span;
        Ok(match token.kind {
            TokenKind::Float(x) => Mode::Primary(Exp::new(ExpKind::Float(x), span), level),
            TokenKind::Int(n) => Mode::Primary(Exp::new(ExpKind::Int(n), span), level),
            TokenKind::Id => Mode::Primary(Exp::new(ExpKind::Id(self.text(&token).to_string()), span), level),
            TokenKind::LParen => {
                self.frames.push(Frame::Paren { start, level });
                Mode::Expect(Level::Any)
            }
            TokenKind::Keyword(Keyword::Let) => {
                if level > Level::NoLetFunc {
                    return Err(SyntaxError::new(span, "a `let` cannot be an operand here")
                        .hint("`+`, `*` and indexing bind tighter than `let`: put the `let` in parentheses"));
                }
                self.frames.push(Frame::LetTarget { start, level });
                Mode::Expect(Level::Any)
            }
            TokenKind::Keyword(keyword @ (Keyword::Max | Keyword::Min)) => {
                self.eat(&TokenKind::LParen, "`(`")?;
                self.frames.push(Frame::CallFirst { start, keyword, level });
                Mode::Expect(Level::Any)
            }
            TokenKind::Keyword(Keyword::ArgMax) => {
                self.eat(&TokenKind::LParen, "`(`")?;
                self.frames.push(Frame::ArgMaxArg { start, level });
                Mode::Expect(Level::Any)
            }
            TokenKind::Keyword(keyword) if keyword.is_func() => {
                return Err(SyntaxError::new(span, format!("`{}` is a function, not an expression", keyword.text()))
                    .hint(format!(
                        "functions only appear on the right of a let: `let y = {}(…) in …`",
                        keyword.text()
                    )));
            }
            _ => {
                self.pos -= usize::from(token.kind != TokenKind::Eof);
                return Err(self.unexpected(&["an expression"]));
            }
        })
    }

    /// `E [ Is ] [ Is ] …` directly after an atom.
    fn postfix(&mut self, mut exp: Exp, level: Level) -> Result<Mode, SyntaxError> {
        while self.peek().kind == TokenKind::LBracket {
            self.advance();
            let ints = self.ints()?;
            let close = self.eat(&TokenKind::RBracket, "`]`")?;
            let span = exp.span.to(close.span);
            exp = Exp::new(ExpKind::Index(Box::new(exp), ints), span);
        }
        Ok(Mode::Operators(exp, level))
    }

    fn reduce(&mut self, frame: Frame, exp: Exp) -> Result<Mode, SyntaxError> {
        Ok(match frame {
            Frame::Binary { op, lhs, level } => {
                let span = lhs.span.to(exp.span);
                let kind = match op {
                    BinOp::Mul => ExpKind::Mul(Box::new(lhs), Box::new(exp)),
                    BinOp::Add => ExpKind::Add(Box::new(lhs), Box::new(exp)),
                    BinOp::Sub => ExpKind::Sub(Box::new(lhs), Box::new(exp)),
                    BinOp::Div => ExpKind::Div(Box::new(lhs), Box::new(exp)),
                };
                Mode::Operators(Exp::new(kind, span), level)
            }
            Frame::LetTarget { start, level } => {
                self.eat(&TokenKind::Equals, "`=`")?;
                match self.peek().kind {
                    TokenKind::Keyword(keyword) if keyword.is_func() => self.let_func(start, level, exp)?,
                    _ => {
                        self.frames.push(Frame::LetValue { start, target: exp });
                        Mode::Expect(Level::Any)
                    }
                }
            }
            Frame::LetValue { start, target } => {
                self.eat(&TokenKind::Keyword(Keyword::In), "`in`")?;
                self.frames.push(Frame::LetBody { start, target, rhs: LetRhs::Exp(exp) });
                Mode::Expect(match self.grammar {
                    Grammar::K => Level::NoLetFunc,
                    Grammar::Relaxed => Level::Any,
                })
            }
            Frame::FuncArg {
                start,
                target,
                keyword:
                    keyword @ (Keyword::AddTensor
                    | Keyword::SubTensor
                    | Keyword::MulTensor
                    | Keyword::DivTensor
                    | Keyword::Matmul),
                func_start,
            } => {
                self.eat(&TokenKind::Comma, "`,`")?;
                self.frames.push(Frame::FuncSecondArg { start, target, first: exp, func_start, keyword });
                Mode::Expect(Level::Any)
            }
            Frame::FuncSecondArg { start, target, first, func_start, keyword } => {
                let close = self.eat(&TokenKind::RParen, "`)`")?;
                let (first, second) = (Box::new(first), Box::new(exp));
                let kind = match keyword {
                    Keyword::SubTensor => FuncKind::TensorArith(TensorOp::Sub, first, second),
                    Keyword::MulTensor => FuncKind::TensorArith(TensorOp::Mul, first, second),
                    Keyword::DivTensor => FuncKind::TensorArith(TensorOp::Div, first, second),
                    Keyword::Matmul => FuncKind::Matmul(first, second),
                    _ => FuncKind::AddTensor(first, second),
                };
                let func = Func { kind, span: Span { start: func_start, end: close.span.end } };
                self.let_func_body(start, target, func)?
            }
            Frame::WindowOperand { start, target, keyword, mut operands, func_start } => {
                operands.push(exp);
                self.window_operand(start, target, keyword, operands, func_start)?
            }
            Frame::FuncArg { start, target, keyword, func_start } => {
                let close = self.eat(&TokenKind::RParen, "`)`")?;
                let arg = Box::new(exp);
                let kind = match keyword {
                    Keyword::Relu => FuncKind::Relu(arg),
                    Keyword::ReluTensor => FuncKind::ReluTensor(arg),
                    Keyword::Tanh => FuncKind::Tanh(arg),
                    Keyword::TanhTensor => FuncKind::TanhTensor(arg),
                    Keyword::Sigmoid => FuncKind::Sigmoid(arg),
                    Keyword::Flatten => FuncKind::Reshape(arg, None),
                    _ => FuncKind::SigmoidTensor(arg),
                };
                let func = Func { kind, span: Span { start: func_start, end: close.span.end } };
                self.let_func_body(start, target, func)?
            }
            Frame::LetBody { start, target, rhs } => {
                let span = Span { start, end: exp.span.end };
                let body = Box::new(exp);
                let target = Box::new(target);
                let kind = match rhs {
                    LetRhs::Exp(value) => ExpKind::Let { target, value: Box::new(value), body },
                    LetRhs::Func(func) => ExpKind::LetFunc { target, func, body },
                };
                // A let's body extends as far as possible: nothing can follow it here.
                Mode::Reduce(Exp::new(kind, span))
            }
            Frame::Paren { start, level } => {
                let close = self.eat(&TokenKind::RParen, "`)`")?;
                let mut inner = exp;
                inner.span = Span { start, end: close.span.end };
                Mode::Primary(inner, level)
            }
            Frame::CallFirst { start, keyword, level } => {
                self.eat(&TokenKind::Comma, "`,`")?;
                self.frames.push(Frame::CallSecond { start, keyword, first: exp, level });
                Mode::Expect(Level::Any)
            }
            Frame::CallSecond { start, keyword, first, level } => {
                let close = self.eat(&TokenKind::RParen, "`)`")?;
                let span = Span { start, end: close.span.end };
                let (a, b) = (Box::new(first), Box::new(exp));
                let kind = if keyword == Keyword::Max { ExpKind::Max(a, b) } else { ExpKind::Min(a, b) };
                Mode::Primary(Exp::new(kind, span), level)
            }
            Frame::ArgMaxArg { start, level } => {
                let close = self.eat(&TokenKind::RParen, "`)`")?;
                let span = Span { start, end: close.span.end };
                Mode::Primary(Exp::new(ExpKind::ArgMax(Box::new(exp)), span), level)
            }
        })
    }

    /// After `let target =` with a function keyword next.
    fn let_func(&mut self, start: u32, level: Level, target: Exp) -> Result<Mode, SyntaxError> {
        let token = self.advance();
        let TokenKind::Keyword(keyword) = token.kind else {
            return Err(self.unexpected(&["a function"]));
        };
        if level == Level::NoLetFunc {
            return Err(SyntaxError::new(
                Span { start, end: token.span.end },
                format!("a `let … = {}(…) in …` cannot be the body of a `let … = expression in …`", keyword.text()),
            )
            .hint("K's priorities put let-Func below let-Exp: put this `let` in parentheses"));
        }
        self.eat(&TokenKind::LParen, "`(`")?;
        let func_start = token.span.start;
        match keyword {
            Keyword::InitTensor => {
                let shape = self.ints()?;
                let mut close = self.eat(&TokenKind::RParen, "`)`")?;
                let kind = if self.grammar == Grammar::Relaxed && self.peek().kind == TokenKind::LBracket {
                    // `initTensor(Is)[V, …]` (Ext-2).
                    let (elements, end) = self.elements(&shape)?;
                    close = end;
                    FuncKind::TensorLiteral(shape, elements)
                } else {
                    FuncKind::InitTensor(shape)
                };
                let func = Func { kind, span: Span { start: func_start, end: close.span.end } };
                self.let_func_body(start, target, func)
            }
            Keyword::Linear => {
                let weights = self.ident()?;
                self.eat(&TokenKind::Comma, "`,`")?;
                let input = self.ident()?;
                let close = self.eat(&TokenKind::RParen, "`)`")?;
                let func = Func {
                    kind: FuncKind::Linear(weights, input),
                    span: Span { start: func_start, end: close.span.end },
                };
                self.let_func_body(start, target, func)
            }
            Keyword::Conv2d
            | Keyword::MaxPool2d
            | Keyword::AvgPool2d
            | Keyword::Reshape
            | Keyword::Transpose
            | Keyword::TensorMath(_)
            | Keyword::Concat
            | Keyword::Slice
            | Keyword::Pad
            | Keyword::BatchNorm => {
                let operands = Vec::new();
                self.frames.push(Frame::WindowOperand { start, target, keyword, operands, func_start });
                Ok(Mode::Expect(Level::Any))
            }
            _ => {
                self.frames.push(Frame::FuncArg { start, target, keyword, func_start });
                Ok(Mode::Expect(Level::Any))
            }
        }
    }

    fn let_func_body(&mut self, start: u32, target: Exp, func: Func) -> Result<Mode, SyntaxError> {
        self.eat(&TokenKind::Keyword(Keyword::In), "`in`")?;
        self.frames.push(Frame::LetBody { start, target, rhs: LetRhs::Func(func) });
        Ok(Mode::Expect(Level::Any))
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_extensions;
