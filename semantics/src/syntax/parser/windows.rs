//! The parser's reading of the window operators (Ext-3 `conv2d`, Ext-4 `maxPool2d` and
//! `avgPool2d`): the tensor operands, then the attributes `name = [Int, …]` or `name = Int`,
//! recognised by the `=` after the name. A pool's `kernel` is required.

use smallvec::SmallVec;

use super::super::ast::{Attr, AttrName, Attrs, BATCH_NORM_EPSILON, Exp, Func, FuncKind, Pool, Span};
use super::super::diagnostic::SyntaxError;
use super::super::lexer::{Keyword, TokenKind};
use super::super::tensor_math::{Axes, TensorMath};
use super::{Frame, Level, Mode, Parser};

impl<'s> Parser<'s> {
    /// After a tensor operand of a window operator: `)`, the next operand, or the attributes
    /// (a name followed by `=`). `conv2d` takes two operands and an optional bias (Ext-3), a
    /// pool one operand (Ext-4).
    pub(super) fn window_operand(
        &mut self,
        start: u32,
        target: Exp,
        keyword: Keyword,
        operands: Vec<Exp>,
        func_start: u32,
    ) -> Result<Mode, SyntaxError> {
        if matches!(keyword, Keyword::Reshape | Keyword::Transpose) {
            // `reshape(E, Is)` (Ext-5), `transpose(E, Ps)` (Ext-6): the operand, then the
            // dimensions or the axes as `initTensor`'s dimensions.
            self.eat(&TokenKind::Comma, "`,`")?;
            let ints = self.ints()?;
            let close = self.eat(&TokenKind::RParen, "`,` or `)`")?;
            let x = Box::new(operands.into_iter().next().expect("an operand was parsed"));
            let span = Span { start: func_start, end: close.span.end };
            let kind = if keyword == Keyword::Reshape {
                FuncKind::Reshape(x, Some(ints))
            } else {
                FuncKind::Transpose(x, ints)
            };
            return self.let_func_body(start, target, Func { kind, span });
        }
        if let Keyword::TensorMath(f) = keyword {
            return self.tensor_math(start, target, f, operands, func_start);
        }
        if keyword == Keyword::Concat {
            return self.concat_operand(start, target, operands, func_start);
        }
        if keyword == Keyword::Slice {
            // `slice(E, A, B, E)` or `slice(E, A, B, E, S)` (Ext-12): the axis, the start, the
            // end and the optional step, unsigned Int literals.
            self.eat(&TokenKind::Comma, "`,`")?;
            let at = self.peek().span;
            let ints = self.ints()?;
            if !(3..=4).contains(&ints.len()) {
                let message = format!("`slice` takes 3 or 4 Ints after its operand, not {}", ints.len());
                return Err(SyntaxError::new(at, message)
                    .hint("write `slice(X, axis, start, end)` or `slice(X, axis, start, end, step)`"));
            }
            let close = self.eat(&TokenKind::RParen, "`,` or `)`")?;
            let x = Box::new(operands.into_iter().next().expect("an operand was parsed"));
            let span = Span { start: func_start, end: close.span.end };
            return self.let_func_body(start, target, Func { kind: FuncKind::Slice(x, ints), span });
        }
        if keyword == Keyword::Pad {
            return self.pad(start, target, operands, func_start);
        }
        if keyword == Keyword::BatchNorm {
            return self.batch_norm_operand(start, target, operands, func_start);
        }
        let (least, most) = if keyword == Keyword::Conv2d { (2, 3) } else { (1, 1) };
        let mut attrs = Attrs::default();
        if operands.len() < least {
            self.eat(&TokenKind::Comma, "`,`")?;
            self.frames.push(Frame::WindowOperand { start, target, keyword, operands, func_start });
            return Ok(Mode::Expect(Level::Any));
        }
        if self.peek().kind == TokenKind::Comma {
            self.advance();
            if self.at_attribute() {
                attrs = self.attrs(keyword)?;
            } else if operands.len() < most {
                self.frames.push(Frame::WindowOperand { start, target, keyword, operands, func_start });
                return Ok(Mode::Expect(Level::Any));
            } else {
                return Err(self.unexpected(&["an attribute"]).hint(attribute_hint(keyword)));
            }
        }
        let close = self.eat(&TokenKind::RParen, "`,` or `)`")?;
        let mut operands = operands.into_iter().map(Box::new);
        let Some(x) = operands.next() else { unreachable!("an operand was parsed") };
        let kind = match keyword {
            Keyword::MaxPool2d | Keyword::AvgPool2d => {
                if attrs.get(AttrName::Kernel).is_none() {
                    let message = format!("`{}` needs its window: `kernel = [KH, KW]`", keyword.text());
                    return Err(SyntaxError::new(close.span, message).hint(attribute_hint(keyword)));
                }
                FuncKind::Pool2d(if keyword == Keyword::MaxPool2d { Pool::Max } else { Pool::Avg }, x, attrs)
            }
            _ => {
                let Some(w) = operands.next() else { unreachable!("two operands were parsed") };
                FuncKind::Conv2d(x, w, operands.next(), attrs)
            }
        };
        let func = Func { kind, span: Span { start: func_start, end: close.span.end } };
        self.let_func_body(start, target, func)
    }

    /// After the operand of an Ext-9 or Ext-10 function: `)` for `expTensor` and `logTensor`,
    /// `, A)` for `softmax` and `logSoftmax`, `, A0, …)` for the reductions; the axes are
    /// `initTensor`'s unsigned Int literals.
    fn tensor_math(
        &mut self,
        start: u32,
        target: Exp,
        f: TensorMath,
        operands: Vec<Exp>,
        func_start: u32,
    ) -> Result<Mode, SyntaxError> {
        let axes = if f.axes() == Axes::None {
            Vec::new()
        } else {
            self.eat(&TokenKind::Comma, "`,`")?;
            let at = self.peek().span;
            let axes = self.ints()?;
            if f.axes() == Axes::One && axes.len() != 1 {
                let message = format!("`{}` takes one axis", f.keyword());
                return Err(SyntaxError::new(at, message).hint("write `softmax(Y, A)` with one Int axis A"));
            }
            axes
        };
        let close = self.eat(&TokenKind::RParen, if f.axes() == Axes::Some { "`,` or `)`" } else { "`)`" })?;
        let x = Box::new(operands.into_iter().next().expect("an operand was parsed"));
        let span = Span { start: func_start, end: close.span.end };
        self.let_func_body(start, target, Func { kind: FuncKind::TensorMath(f, x, axes), span })
    }

    /// After an operand of `concat` (Ext-11): `, A)` with `A` an Int literal ends the call,
    /// any other `, E` is one more operand. So `concat(x, 1, 0)` has the operands `x` and `1`
    /// (the latter `unknown-tensor` when it runs), and the axis `0`.
    fn concat_operand(
        &mut self,
        start: u32,
        target: Exp,
        operands: Vec<Exp>,
        func_start: u32,
    ) -> Result<Mode, SyntaxError> {
        self.eat(&TokenKind::Comma, "`,`")?;
        let axis = match self.peek().kind {
            TokenKind::Int(n) if self.tokens.get(self.pos + 1).is_some_and(|t| t.kind == TokenKind::RParen) => n,
            _ => {
                let keyword = Keyword::Concat;
                self.frames.push(Frame::WindowOperand { start, target, keyword, operands, func_start });
                return Ok(Mode::Expect(Level::Any));
            }
        };
        self.advance();
        let close = self.advance();
        let span = Span { start: func_start, end: close.span.end };
        self.let_func_body(start, target, Func { kind: FuncKind::Concat(operands, axis), span })
    }

    /// After the operand of `pad` (Ext-13): `, V, B0, …, A0, …)`, the border's value a Float
    /// literal (K's floats carry their sign), the pads `initTensor`'s unsigned Int literals.
    fn pad(&mut self, start: u32, target: Exp, operands: Vec<Exp>, func_start: u32) -> Result<Mode, SyntaxError> {
        self.eat(&TokenKind::Comma, "`,`")?;
        let TokenKind::Float(value) = self.peek().kind else {
            return Err(self
                .unexpected(&["a float literal"])
                .hint("`pad(X, V, B0, …, A0, …)` takes the border's value as a Float literal such as `0.0`"));
        };
        self.advance();
        self.eat(&TokenKind::Comma, "`,`")?;
        let pads = self.ints()?;
        let close = self.eat(&TokenKind::RParen, "`,` or `)`")?;
        let x = Box::new(operands.into_iter().next().expect("an operand was parsed"));
        let span = Span { start: func_start, end: close.span.end };
        self.let_func_body(start, target, Func { kind: FuncKind::Pad(x, value, pads), span })
    }

    /// After an operand of `batchNorm` (Ext-14): `, E` for the next of its five operands (the
    /// input, scale, bias, mean, variance), then `)` or `, epsilon = F)`, `F` a Float literal
    /// (ONNX's default `1e-05` when it is not written).
    fn batch_norm_operand(
        &mut self,
        start: u32,
        target: Exp,
        operands: Vec<Exp>,
        func_start: u32,
    ) -> Result<Mode, SyntaxError> {
        if operands.len() < 5 {
            self.eat(&TokenKind::Comma, "`,`")?;
            let keyword = Keyword::BatchNorm;
            self.frames.push(Frame::WindowOperand { start, target, keyword, operands, func_start });
            return Ok(Mode::Expect(Level::Any));
        }
        let hint = "`batchNorm(X, S, B, M, V)` takes its epsilon as `epsilon = F`, F a Float literal such as `1e-05`";
        let mut epsilon = BATCH_NORM_EPSILON;
        if self.peek().kind == TokenKind::Comma {
            self.advance();
            let token = *self.peek();
            if !(token.kind == TokenKind::Id && self.text(&token) == "epsilon") {
                return Err(self.unexpected(&["`epsilon`"]).hint(hint));
            }
            self.advance();
            self.eat(&TokenKind::Equals, "`=`")?;
            let TokenKind::Float(value) = self.peek().kind else {
                return Err(self.unexpected(&["a float literal"]).hint(hint));
            };
            self.advance();
            epsilon = value;
        }
        let close = self.eat(&TokenKind::RParen, "`,` or `)`")?;
        let span = Span { start: func_start, end: close.span.end };
        self.let_func_body(start, target, Func { kind: FuncKind::BatchNorm(operands, epsilon), span })
    }

    /// Whether the next tokens are `name =`: an attribute of a window operator, not an operand.
    pub(super) fn at_attribute(&self) -> bool {
        self.peek().kind == TokenKind::Id && self.tokens.get(self.pos + 1).is_some_and(|t| t.kind == TokenKind::Equals)
    }

    /// `name = [Int, …]` or `name = Int`, `,`-separated, up to the closing `)` (not eaten):
    /// the attributes of `keyword`, each at most once, with as many Ints as it has.
    pub(super) fn attrs(&mut self, keyword: Keyword) -> Result<Attrs, SyntaxError> {
        let mut attrs = Attrs::default();
        loop {
            let token = *self.peek();
            let name = match token.kind {
                TokenKind::Id => AttrName::from_text(self.text(&token)),
                _ => None,
            };
            let Some(name) = name.filter(|name| window_attrs(keyword).contains(name)) else {
                return Err(self.unexpected(&["an attribute"]).hint(attribute_hint(keyword)));
            };
            if attrs.get(name).is_some() {
                return Err(SyntaxError::new(token.span, format!("`{}` is given twice", name.text())));
            }
            self.advance();
            self.eat(&TokenKind::Equals, "`=`")?;
            let values = if name.arity() == 1 {
                match self.peek().kind {
                    TokenKind::Int(n) => {
                        self.advance();
                        vec![n]
                    }
                    _ => return Err(self.unexpected(&["an integer literal"])),
                }
            } else {
                let open = self.eat(&TokenKind::LBracket, "`[`")?;
                let values = self.ints()?;
                let close = self.eat(&TokenKind::RBracket, "`]`")?;
                if values.len() != name.arity() {
                    return Err(SyntaxError::new(
                        open.span.to(close.span),
                        format!("`{}` has {} values, not {}", name.text(), name.arity(), values.len()),
                    )
                    .hint(attribute_hint(keyword)));
                }
                values
            };
            attrs.0.push(Attr { name, values: SmallVec::from_vec(values) });
            if self.peek().kind != TokenKind::Comma {
                return Ok(attrs);
            }
            self.advance();
        }
    }
}

/// The attributes a window operator takes.
fn window_attrs(keyword: Keyword) -> &'static [AttrName] {
    match keyword {
        Keyword::MaxPool2d => &[AttrName::Kernel, AttrName::Strides, AttrName::Pads, AttrName::Dilations],
        Keyword::AvgPool2d => &[AttrName::Kernel, AttrName::Strides, AttrName::Pads, AttrName::CountPad],
        _ => &[AttrName::Strides, AttrName::Pads, AttrName::Dilations, AttrName::Group],
    }
}

/// What a window operator's attributes look like.
fn attribute_hint(keyword: Keyword) -> String {
    let names: Vec<String> = window_attrs(keyword)
        .iter()
        .map(|name| match name.arity() {
            1 => format!("`{} = N`", name.text()),
            n => format!("`{} = [{}]`", name.text(), vec!["N"; n].join(", ")),
        })
        .collect();
    format!("`{}` takes {} after its operands", keyword.text(), names.join(", "))
}
