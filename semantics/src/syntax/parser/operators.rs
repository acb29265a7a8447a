//! The binary operators after an operand: `*` and `+`, and the relaxed grammar's `/` and `-`
//! (Ext-7) and its splitting of a signed Float (`1.0+2.0`, `x-1.0`), each at its priority.

use super::super::ast::{Exp, ExpKind, Span};
use super::super::grammar::Grammar;
use super::super::lexer::TokenKind;
use super::{BinOp, Frame, Level, Mode, Parser};

impl Parser<'_> {
    pub(super) fn operators(&mut self, exp: Exp, level: Level) -> Mode {
        match &self.peek().kind {
            TokenKind::Star if level <= Level::Product => {
                self.advance();
                self.frames.push(Frame::Binary { op: BinOp::Mul, lhs: exp, level });
                Mode::Expect(Level::Atom)
            }
            TokenKind::Plus if level <= Level::Sum => {
                self.advance();
                self.frames.push(Frame::Binary { op: BinOp::Add, lhs: exp, level });
                Mode::Expect(Level::Product)
            }
            TokenKind::Slash if level <= Level::Product => {
                self.advance();
                self.frames.push(Frame::Binary { op: BinOp::Div, lhs: exp, level });
                Mode::Expect(Level::Atom)
            }
            TokenKind::Minus if level <= Level::Sum => {
                self.advance();
                self.frames.push(Frame::Binary { op: BinOp::Sub, lhs: exp, level });
                Mode::Expect(Level::Product)
            }
            TokenKind::Float(x) if level <= Level::Sum && self.splits_signed_float() => {
                // Relaxed grammar: `1.0+2.0` is `1.0 + 2.0`, not two adjacent floats; likewise
                // `1.0-2.0` is `1.0 - 2.0` (Ext-7). The operand is the Float the scanner read
                // without its sign: `x-1` is `x - 1.0`, as `x+1` is `x + 1.0`.
                let token = *self.peek();
                let op = if self.text(&token).starts_with('-') { BinOp::Sub } else { BinOp::Add };
                let operand = Exp::new(
                    ExpKind::Float(x.abs()),
                    Span::new(token.span.start as usize + 1, token.span.end as usize),
                );
                self.advance();
                self.frames.push(Frame::Binary { op, lhs: exp, level });
                Mode::Primary(operand, Level::Product)
            }
            _ => Mode::Reduce(exp),
        }
    }

    fn splits_signed_float(&self) -> bool {
        self.grammar == Grammar::Relaxed && self.text(self.peek()).starts_with(['+', '-'])
    }
}
