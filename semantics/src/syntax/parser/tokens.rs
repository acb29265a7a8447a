//! The parser's reading of tokens: the cursor, identifiers and lists of Int literals, and the
//! error for an unexpected token, with a hint where one helps.

use super::super::ast::{Exp, Ident, IntList};
use super::super::diagnostic::SyntaxError;
use super::super::elements::{Elements, Number};
use super::super::lexer::{Token, TokenKind};
use super::Parser;

impl<'s> Parser<'s> {
    pub(super) fn peek(&self) -> &Token {
        &self.tokens[self.pos]
    }

    pub(super) fn advance(&mut self) -> Token {
        let token = self.tokens[self.pos];
        if self.pos + 1 < self.tokens.len() {
            self.pos += 1;
        }
        token
    }

    pub(super) fn text(&self, token: &Token) -> &'s str {
        &self.source[token.span.range()]
    }

    pub(super) fn unexpected(&self, expected: &[&str]) -> SyntaxError {
        let token = self.peek();
        let found = token.kind.describe(self.text(token));
        let mut err = SyntaxError::new(token.span, format!("unexpected {found}")).expected(expected.iter().copied());
        if let TokenKind::Float(_) = token.kind
            && self.text(token).starts_with('+')
        {
            err = err.hint(format!(
                "`{0}` is read as one float literal (K's floats carry their sign); write `+ {1}`",
                self.text(token),
                &self.text(token)[1..]
            ));
        }
        if token.kind == TokenKind::Minus {
            err = err.hint("K-NN has no unary minus: a negative literal is written `-1.0`, a negated value `-1.0 * e`");
        }
        err
    }

    pub(super) fn eat(&mut self, kind: &TokenKind, expected: &str) -> Result<Token, SyntaxError> {
        if &self.peek().kind == kind { Ok(self.advance()) } else { Err(self.unexpected(&[expected])) }
    }

    pub(super) fn finish(&self, exp: Exp) -> Result<Exp, SyntaxError> {
        match self.peek().kind {
            TokenKind::Eof => Ok(exp),
            _ => Err(self.unexpected(&["an operator", "the end of program"])),
        }
    }

    pub(super) fn ident(&mut self) -> Result<Ident, SyntaxError> {
        match &self.peek().kind {
            TokenKind::Id => {
                let token = self.advance();
                Ok(Ident { name: self.text(&token).to_string(), span: token.span })
            }
            _ => {
                Err(self.unexpected(&["an identifier"]).hint("`linear` takes the names of two tensors: `linear(W, x)`"))
            }
        }
    }

    /// `Int (, Int)*`: shapes and indices are unsigned integer literals.
    pub(super) fn ints(&mut self) -> Result<IntList, SyntaxError> {
        let mut ints = Vec::new();
        loop {
            match self.peek().kind {
                TokenKind::Int(n) => {
                    ints.push(n);
                    self.advance();
                }
                _ => {
                    let hint = match &self.peek().kind {
                        TokenKind::Float(_) if self.text(self.peek()).starts_with('-') => {
                            "indices and dimensions are unsigned integer literals: negative ones cannot be written"
                        }
                        TokenKind::Float(_) => "indices and dimensions are integer literals such as `2`, not floats",
                        TokenKind::Id => "indices and dimensions are integer literals: K-NN has no computed indices",
                        _ => "write integer literals separated by commas",
                    };
                    return Err(self.unexpected(&["an integer literal"]).hint(hint));
                }
            }
            if self.peek().kind != TokenKind::Comma {
                return Ok(ints);
            }
            self.advance();
        }
    }

    /// `[ V, … ]` after `initTensor(Is)` (Ext-2): Int and Float literals, as many as the shape
    /// has elements. Returns the elements and the closing bracket.
    pub(super) fn elements(&mut self, shape: &[i64]) -> Result<(Elements, Token), SyntaxError> {
        let open = self.advance();
        let size = shape.iter().try_fold(1usize, |n, &d| usize::try_from(d).ok().and_then(|d| n.checked_mul(d)));
        if self.peek().kind == TokenKind::Ellipsis {
            return self.held_elements(open, shape, size);
        }
        let mut numbers = Vec::with_capacity(size.unwrap_or(0).min(self.tokens.len()));
        if self.peek().kind != TokenKind::RBracket {
            loop {
                match self.peek().kind {
                    TokenKind::Int(n) => numbers.push(Number::Int(n)),
                    TokenKind::Float(x) => numbers.push(Number::Float(x)),
                    _ => {
                        return Err(self
                            .unexpected(&["a number"])
                            .hint("a tensor literal lists Int and Float literals: `initTensor(2)[0.5, -1.0]`"));
                    }
                }
                self.advance();
                if self.peek().kind != TokenKind::Comma {
                    break;
                }
                self.advance();
            }
        }
        let close = self.eat(&TokenKind::RBracket, "`,` or `]`")?;
        if size != Some(numbers.len()) {
            let shape_text = shape.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
            let expected = size.map_or_else(|| "more than 2^64".to_string(), |n| n.to_string());
            return Err(SyntaxError::new(
                open.span.to(close.span),
                format!("`initTensor({shape_text})` has {expected} elements; the literal lists {}", numbers.len()),
            )
            .hint("list every element in row-major order (the last index fastest)"));
        }
        Ok((Elements::new(numbers), close))
    }

    /// `[ … ]`: the next elements held beside the text.
    fn held_elements(
        &mut self,
        open: Token,
        shape: &[i64],
        size: Option<usize>,
    ) -> Result<(Elements, Token), SyntaxError> {
        let ellipsis = self.advance();
        let close = self.eat(&TokenKind::RBracket, "`]`")?;
        let Some(elements) = self.held.next() else {
            return Err(SyntaxError::new(ellipsis.span, "`…` stands for elements held beside the text, and none are")
                .hint("write the elements: `initTensor(2)[0.5, -1.0]`"));
        };
        self.used += 1;
        if size != Some(elements.len()) {
            let shape_text = shape.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
            return Err(SyntaxError::new(
                open.span.to(close.span),
                format!("`initTensor({shape_text})` is given {} elements", elements.len()),
            ));
        }
        Ok((elements, close))
    }
}
