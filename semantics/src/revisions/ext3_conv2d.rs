//! Ext-3: `conv2d(X, W, B, …attributes)`, the 2-D convolution of a `C×H×Wd` input `X` with an
//! `M×C/G×KH×KW` kernel `W` and an optional bias `B` of `M` elements, into an `M×OH×OW` result:
//! the layer convolutional networks are made of. CNTK's BrainScript has it as
//! `Convolution(W, x, kernelShape, stride=…, autoPadding=…)`; ONNX as `Conv`, whose attribute
//! names (`strides`, `pads`, `dilations`, `group`) K-NN takes, so an importer maps one to one.
//!
//! ```k
//! syntax Func  ::= "conv2d" "(" Exp "," Exp Bias Attrs ")"
//! syntax Bias  ::= "" | "," Exp                   // `.` in the helper when absent
//! syntax Attrs ::= "" | "," Attr Attrs
//! syntax Attr  ::= "strides" "=" "[" Int "," Int "]"  | "pads" "=" "[" Int "," Int "," Int "," Int "]"
//!                | "dilations" "=" "[" Int "," Int "]" | "group" "=" Int
//! syntax KItem ::= conv2dHelper(Id, Id, Bias, Id, Attrs, Int, Int, Ints)   // printed `K ... N, Os`
//! syntax Exp   ::= convSum(Id, Id, Bias, Attrs, Ints, Ints, Ints) [function]
//! // convSum(X, W, B, As, SH[X], SH[W], (O, I, J)): the element (O, I, J) as an expression,
//! //   0.0 + T(c1, 0, 0) + T(c1, 0, 1) + … + T(cN, KH - 1, KW - 1) [+ B[O]]
//! // over the input channels c of O's group (c' = 0 … C/G - 1), then the kernel rows KI, then
//! // the kernel columns KJ; T(c, KI, KJ) = X[c, r, s] * W[O, c', KI, KJ] with
//! // r = I *Int SH -Int TOP +Int KI *Int DH, s = J *Int SW -Int LEFT +Int KJ *Int DW, and
//! // T = 0.0 * W[O, c', KI, KJ] where (r, s) is a padding position (outside 0 .. H, 0 .. Wd).
//! // convShape and validAttrs: `window.rs`.
//! ```
//!
//! The choices:
//!
//! * **A function bound by `let`, operands names, attributes literals.** As for `addTensor`
//!   (Ext-1), `rev-let-func-error` diagnoses the operands left to right (`X`, `W`, then `B`):
//!   `unknown-tensor`, `unbound-identifier`, `aliased-output`. The attributes are Int literals
//!   with ONNX's names and defaults (strides and dilations 1, pads 0, group 1), after the
//!   operands, in any order, each at most once.
//! * **The order of summation is the semantics.** For output `(O, I, J)`: from the Float `0.0`,
//!   add each product `X[c, r, s] * W[O, c', KI, KJ]` over the channels of `O`'s group, then the
//!   kernel rows, then the kernel columns (row-major over `W[O]`), and `B[O]` last. Each `+` and
//!   `*` is the scalar rule's (Rev-10, Rev-11): Floats in IEEE binary64, Ints and mixed pairs
//!   as Rev-10 says, `X`'s element read before `W`'s.
//! * **Zero padding is a Float `0.0` times the weight**, as ONNX pads with zeros: the product
//!   is computed, so a weight `±Infinity` or `NaN` at a padding position makes the sum `NaN`
//!   (`0.0 * Infinity` is `NaN` in IEEE arithmetic), exactly as the product with a real `0.0`
//!   element would.
//! * **Errors, in order**: the operands (`rev-let-func-error`); an attribute no value of which
//!   makes sense, a stride, dilation or group of 0 (`invalid-attribute`, a new kind:
//!   `ext-conv2d-invalid-attribute`); then the shapes (`shape-mismatch`,
//!   `ext-conv2d-shape-mismatch`): ranks 3, 4 and 1, `C = C/G · G`, `G` divides `M`, `B` has `M`
//!   elements, the kernel has a tap, and the dilated kernel fits in the padded input.
//! * **A fresh result, written in row-major order** by the helper, one element `let` per output
//!   (`let Y[O, I, J] = convSum(…) in #skip`, Rev-3's assignment), allocated by `defineTensor`
//!   and recorded in `<shape>` like every function result.
//! * **The revised profile only**: `conv2d` is an identifier under the K grammar.

use super::Patch;
use super::rev01_unit_marker::skip;
use super::rev07_shapes::scope_of;
use crate::config::{KItem, MapKey};
use crate::errors::ErrorKind;
use crate::rules::{Head, Rewrite, Rule, Section, lt};
use crate::syntax::{Attrs, Span};
use crate::term::{Conv2dHelper, FuncTerm, Ints, Node, Sym, Term};
use crate::window::{Conv2dGeometry, WindowAttrs};

use super::ext1_add_tensor::row_major;

const SECTION: Section = Section::Extensions;

/// The left-hand side `let Y:Id = conv2d(X:Id, W:Id, B, As) in E`, every operand a name with a
/// shape and none of them `Y`.
struct Redex {
    y: Sym,
    x: Sym,
    w: Sym,
    b: Option<Sym>,
    attrs: Attrs,
    shapes: (Ints, Ints, Option<Ints>),
    body: Term,
    call: Span,
}

fn conv2d_redex(r: &Rewrite<'_>) -> Option<Redex> {
    let top = r.top()?;
    let Node::LetFunc { target, func: FuncTerm::Conv2d { x, w, b, attrs }, body, func_span } = top.node() else {
        return None;
    };
    let (y, x, w) = (target.as_id()?, x.as_id()?, w.as_id()?);
    let b = match b {
        Some(b) => Some(b.as_id()?),
        None => None,
    };
    if y == x || y == w || b == Some(y) {
        return None;
    }
    let shape = |z: &Sym| r.cfg.shape_of(z).cloned();
    let b_shape = match b {
        Some(b) => Some(shape(b)?),
        None => None,
    };
    Some(Redex {
        y: y.clone(),
        x: x.clone(),
        w: w.clone(),
        b: b.cloned(),
        attrs: attrs.clone(),
        shapes: (shape(x)?, shape(w)?, b_shape),
        body: body.clone(),
        call: *func_span,
    })
}

impl Redex {
    fn geometry(&self) -> Result<Conv2dGeometry, String> {
        let (xs, ws, bs) = &self.shapes;
        let names = (self.x.as_str(), self.w.as_str(), self.b.as_ref().map(Sym::as_str));
        let bs = bs.as_ref().map(Ints::as_slice);
        Conv2dGeometry::check(names, xs.as_slice(), ws.as_slice(), bs, WindowAttrs::of(&self.attrs))
    }
}

/// `rule <k> let Y:Id = conv2d(X:Id, W:Id, B, As) in E => defineTensor(Y, convShape(SH[X], SH[W], As)) ~> conv2dHelper(X, W, B, Y, As, 0 ... size(convShape(SH[X], SH[W], As)), convShape(SH[X], SH[W], As)) ~> E ~> restoreScope(Env, SH) ...</k>
///       <env> Env </env> <shape> SH => SH[Y <- convShape(SH[X], SH[W], As)] </shape>
///       requires operands(X, W, B) in_keys(SH) andBool notBool Y in operands(X, W, B) andBool validAttrs(As) andBool convShapesOk(SH, X, W, B, As)`
pub static LET_CONV2D: Rule = Rule::top(
    SECTION,
    "ext-let-conv2d",
    "Ext-3",
    "Ext-3",
    "rule <k> let Y:Id = conv2d(X:Id, W:Id, B, As) in E => defineTensor(Y, convShape(SH[X], SH[W], As)) ~> conv2dHelper(X, W, B, Y, As, 0 ... size(convShape(SH[X], SH[W], As)), convShape(SH[X], SH[W], As)) ~> E ~> restoreScope(Env, SH) ...</k> <env> Env </env> <shape> SH => SH[Y <- convShape(SH[X], SH[W], As)] </shape> requires operands(X, W, B) in_keys(SH) andBool notBool Y in operands(X, W, B) andBool validAttrs(As) andBool convShapesOk(SH, X, W, B, As)",
    &[Head::LetFunc],
    let_conv2d,
);

fn let_conv2d(r: &mut Rewrite<'_>) -> bool {
    let Some(redex) = conv2d_redex(r) else { return false };
    if WindowAttrs::of(&redex.attrs).invalid("conv2d").is_some() {
        return false;
    }
    let Ok(geometry) = redex.geometry() else { return false };
    let Some(os) = Ints::new(&geometry.output) else { return false };
    let span = r.top().map(Term::span).unwrap_or_default();
    let Redex { y, x, w, b, attrs, body, .. } = redex;
    let define = Term::new(Node::DefineTensor { x: Term::id(&y, span), ints: os.clone() }, span);
    let to = geometry.output.iter().fold(1i64, |n, &d| n.saturating_mul(d));
    let helper = Conv2dHelper { x, w, b, y: y.clone(), attrs, from: 0, to, dims: os.clone() };
    let helper = Term::new(Node::Conv2dHelper(Box::new(helper)), span);
    let scope = scope_of(r);
    r.cfg.shape.insert(MapKey::id(&y), os);
    r.cfg.replace_top([KItem::Term(define), KItem::Term(helper), KItem::Term(body), scope]);
    true
}

/// `rule <k> let Y:Id = conv2d(X:Id, W:Id, B, As) in _ => knnError("invalid attribute") ...</k>
///       requires operands(X, W, B) in_keys(SH) andBool notBool Y in operands(X, W, B) andBool notBool validAttrs(As)`
pub static CONV2D_INVALID_ATTRIBUTE: Rule = Rule::top(
    SECTION,
    "ext-conv2d-invalid-attribute",
    "Ext-3",
    "Ext-3",
    "rule <k> let Y:Id = conv2d(X:Id, W:Id, B, As) in _ => knnError(\"invalid attribute\") ...</k> requires operands(X, W, B) in_keys(SH) andBool notBool Y in operands(X, W, B) andBool notBool validAttrs(As)",
    &[Head::LetFunc],
    conv2d_invalid_attribute,
);

fn conv2d_invalid_attribute(r: &mut Rewrite<'_>) -> bool {
    let Some(redex) = conv2d_redex(r) else { return false };
    let Some(detail) = WindowAttrs::of(&redex.attrs).invalid("conv2d") else { return false };
    r.cfg.replace_top_term(Term::error(ErrorKind::InvalidAttribute, detail, redex.call));
    true
}

/// `rule <k> let Y:Id = conv2d(X:Id, W:Id, B, As) in _ => knnError("shape mismatch") ...</k> <shape> SH </shape>
///       requires operands(X, W, B) in_keys(SH) andBool notBool Y in operands(X, W, B) andBool validAttrs(As) andBool notBool convShapesOk(SH, X, W, B, As)`
pub static CONV2D_SHAPE_MISMATCH: Rule = Rule::top(
    SECTION,
    "ext-conv2d-shape-mismatch",
    "Ext-3",
    "Ext-3",
    "rule <k> let Y:Id = conv2d(X:Id, W:Id, B, As) in _ => knnError(\"shape mismatch\") ...</k> <shape> SH </shape> requires operands(X, W, B) in_keys(SH) andBool notBool Y in operands(X, W, B) andBool validAttrs(As) andBool notBool convShapesOk(SH, X, W, B, As)",
    &[Head::LetFunc],
    conv2d_shape_mismatch,
);

fn conv2d_shape_mismatch(r: &mut Rewrite<'_>) -> bool {
    let Some(redex) = conv2d_redex(r) else { return false };
    if WindowAttrs::of(&redex.attrs).invalid("conv2d").is_some() {
        return false;
    }
    let Err(detail) = redex.geometry() else { return false };
    r.cfg.replace_top_term(Term::error(ErrorKind::ShapeMismatch, detail, redex.call));
    true
}

/// `rule <k> conv2dHelper(X, W, B, Y, As, K ... N, Os) => let Y[rowMajor(K, Os)] = convSum(X, W, B, As, SH[X], SH[W], rowMajor(K, Os)) in #skip ~> conv2dHelper(X, W, B, Y, As, (K +Int 1) ... N, Os) ...</k>
///       <shape> SH </shape> requires K <Int N`
pub static CONV2D_HELPER_STEP: Rule = Rule::top(
    SECTION,
    "ext-conv2d-helper-step",
    "Ext-3",
    "Ext-3",
    "rule <k> conv2dHelper(X, W, B, Y, As, K ... N, Os) => let Y[rowMajor(K, Os)] = convSum(X, W, B, As, SH[X], SH[W], rowMajor(K, Os)) in #skip ~> conv2dHelper(X, W, B, Y, As, (K +Int 1) ... N, Os) ...</k> <shape> SH </shape> requires K <Int N",
    &[Head::Conv2dHelper],
    conv2d_helper_step,
);

fn conv2d_helper_step(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::Conv2dHelper(helper) = top.node() else { return false };
    if !lt(helper.from, helper.to) {
        return false;
    }
    let (helper, span) = ((**helper).clone(), top.span());
    // `<shape>` still has `X` and `W`: the helper runs before the body, and `Y` is neither.
    let (Some(xs), Some(ws)) = (r.cfg.shape_of(&helper.x), r.cfg.shape_of(&helper.w)) else { return false };
    let names = (helper.x.as_str(), helper.w.as_str(), None);
    let attrs = WindowAttrs::of(&helper.attrs);
    let Ok(geometry) = Conv2dGeometry::check(names, xs.as_slice(), ws.as_slice(), None, attrs) else { return false };
    let index = row_major(helper.from, &helper.dims);
    let sum = conv_sum(r, &helper, &geometry, index.as_slice(), span);
    let target = r.index(Term::id(&helper.y, span), index, span);
    let write = Term::new(Node::Let { target, value: sum, body: skip(span) }, span);
    let next = Conv2dHelper { from: helper.from + 1, ..helper };
    r.cfg.replace_top([KItem::Term(write), KItem::Term(Term::new(Node::Conv2dHelper(Box::new(next)), span))]);
    true
}

/// `convSum(X, W, B, As, SH[X], SH[W], (O, I, J))`: the sum of the module comment, as a term.
fn conv_sum(r: &mut Rewrite<'_>, helper: &Conv2dHelper, g: &Conv2dGeometry, index: &[i64], span: Span) -> Term {
    let &[o, i, j] = index else { return Term::float(0.0, span) };
    let [_, cg, kh, kw] = g.kernel;
    let mut sum = Term::float(0.0, span);
    for c in 0..cg {
        for ki in 0..kh {
            for kj in 0..kw {
                let x = match g.input_position(i, j, ki, kj) {
                    Some((row, col)) => {
                        let at = Ints::new(&[g.input_channel(o, c), row, col]).expect("three indices");
                        r.index(Term::id(&helper.x, span), at, span)
                    }
                    None => Term::float(0.0, span),
                };
                let at = Ints::new(&[o, c, ki, kj]).expect("four indices");
                let w = r.index(Term::id(&helper.w, span), at, span);
                let product = Term::new(Node::Mul(x, w), span);
                sum = Term::new(Node::Add(sum, product), span);
            }
        }
    }
    if let Some(b) = &helper.b {
        let b = r.index1(Term::id(b, span), o, span);
        sum = Term::new(Node::Add(sum, b), span);
    }
    sum
}

/// `rule <k> conv2dHelper(_, _, _, _, _, N ... N, _) => . ...</k>`
pub static CONV2D_HELPER_DONE: Rule = Rule::top(
    SECTION,
    "ext-conv2d-helper-done",
    "Ext-3",
    "Ext-3",
    "rule <k> conv2dHelper(_, _, _, _, _, N ... N, _) => . ...</k>",
    &[Head::Conv2dHelper],
    conv2d_helper_done,
);

fn conv2d_helper_done(r: &mut Rewrite<'_>) -> bool {
    match r.top_node() {
        Some(Node::Conv2dHelper(h)) if h.from == h.to => {
            r.cfg.pop_top();
            true
        }
        _ => false,
    }
}

pub static PATCH: Patch = Patch {
    name: "Ext-3",
    title: "2-D convolution: conv2d(X, W, B, strides, pads, dilations, group)",
    reason: "convolutional networks could not be written; CNTK's Convolution and ONNX's Conv compute it",
    removes: &[],
    adds: &[&LET_CONV2D, &CONV2D_INVALID_ATTRIBUTE, &CONV2D_SHAPE_MISMATCH, &CONV2D_HELPER_STEP, &CONV2D_HELPER_DONE],
};
