//! Ext-14: `batchNorm(X, S, B, M, V, epsilon = E)`, batch normalisation in inference form as
//! ONNX's `BatchNormalization` defines it: `Y = (X - mean) / sqrt(var + epsilon) * scale + B`,
//! per channel. A fresh tensor of `X`'s shape; `X`'s first axis is the channel axis (K-NN's
//! images are C×H×W; a vector of C elements is C channels of one element), and `S` (scale),
//! `B` (bias), `M` (mean), `V` (variance) are tensors of shape `(C)`. ONNX's operator, PyTorch's
//! `BatchNorm2d` in `eval()` mode, CNTK's `BatchNormalization` with its running statistics.
//!
//! ```k
//! syntax Func  ::= "batchNorm" "(" Exp "," Exp "," Exp "," Exp "," Exp "," "epsilon" "=" Float ")"
//!                  // `, epsilon = F` may be left out: the parser writes ONNX's default 1e-05
//! syntax KItem ::= batchNormHelper(Id, Id, Id, Id, Id, Id, Float, Int, Int, Ints)
//!                  // printed `X , S , B , M , V , Y , E , K ... N , Is`
//! syntax Exp   ::= sqrtItem(Exp) [strict]          // Ext-9's fItem: ext-heat-math-item, …
//! syntax Int   ::= head(Ints) [function]           // head(I:Int) => I, head(I, _) => I
//! syntax Bool  ::= perChannel(Ints, Ints) [function] // perChannel(Is, Ps) = Ps ==K head(Is)
//! ```
//!
//! The choices:
//!
//! * **A function bound by `let`, its five operands names** of tensors with a recorded shape,
//!   diagnosed left to right by `rev-let-func-error` (`unknown-tensor`, `unbound-identifier`,
//!   `aliased-output`); `epsilon` a Float literal written `epsilon = F` as `conv2d`'s attributes
//!   are written (`epsilon = 1` is a parse error: the value is a Float, as `pad`'s border is).
//! * **Each parameter of shape `(C)`**, `C` the first extent of `X`; else `shape-mismatch`
//!   (`ext-batch-norm-shape-mismatch`), the detail naming the first parameter (in the order
//!   `S`, `B`, `M`, `V`) that is not. K-NN has no rank-0 tensor, so `X` always has a channel
//!   axis (a scalar name is `unknown-tensor`).
//! * **The order of the elements and of the operations, stated once.** Element `K` of `Y`, at
//!   `I = rowMajor(K, SH[X])` in row-major order with channel `c = head(I)`, is written by one
//!   element `let`: `Y[I] = ((X[I] - M[c]) / sqrtItem(V[c] + E)) * S[c] + B[c]`, ONNX's formula
//!   left to right, every operation rounded on its own (no fused multiply-add). The operators are
//!   `seqstrict`, so the reads are `X[I]`, `M[c]`, `V[c]`, `S[c]`, `B[c]`, each through the
//!   indexing rules (Rev-5).
//! * **Numbers through the scalar rules** (Rev-10, Ext-7), as Ext-8's element-wise functions
//!   compute: two Floats by `-Float`, `/Float`, `*Float`, `+Float`; an Int meeting a Float is
//!   widened (`Int2Float`). `V[c] + E` is always a Float (`E` is one), so the divisor and every
//!   result are Floats; `X[I] - M[c]` of two Ints is an Int subtraction (exact,
//!   `integer-overflow` beyond 64 bits) that the division then widens. An element that is not a
//!   number is `invalid-operands`, as every scalar operator says.
//! * **`sqrtItem(F:Float) => sqrtFloat(F)`** (`ext-sqrt-item`), IEEE's correctly rounded square
//!   root: a negative variance (below `-E`) gives NaN, and the result is NaN, no error. It is one
//!   more of Ext-9's scalar items (`fItem`: heated and cooled by `ext-heat-math-item`,
//!   `ext-cool-math-item`; `ext-math-item-invalid` would take a non-Float, which `V[c] + E`
//!   never is).
//! * **A fresh result** of `X`'s shape, allocated by `defineTensor` and recorded in `<shape>`,
//!   out of scope after the body; the operands are not changed.
//! * **The revised profile only**: `batchNorm` is an identifier under the K grammar.

use super::Patch;
use super::ext1_add_tensor::row_major;
use super::ext5_reshape::size;
use super::rev01_unit_marker::skip;
use super::rev07_shapes::scope_of;
use crate::config::{KItem, MapKey};
use crate::errors::{ErrorKind, shape_text};
use crate::rules::{Head, Rewrite, Rule, Section, lt};
use crate::syntax::Span;
use crate::term::{BatchNormHelper, FuncTerm, Ints, MathFn, Node, Sym, Term};

const SECTION: Section = Section::Extensions;

/// The parameters' names, in the order of the operands after `X`.
const PARAMETERS: [&str; 4] = ["scale", "bias", "mean", "variance"];

/// `notBool perChannel(SH[X], SH[P])` for the first parameter `P` (of `S`, `B`, `M`, `V`, in
/// that order) that is not of shape `(C)`: the detail of `ext-batch-norm-shape-mismatch`,
/// shared with the big-step engine. `None` when every parameter is.
pub fn parameter_mismatch(x: &str, x_shape: &[i64], parameters: [(&str, &[i64]); 4]) -> Option<String> {
    let channels = *x_shape.first()?;
    let (k, (p, p_shape)) = parameters.iter().enumerate().find(|(_, (_, shape))| *shape != [channels])?;
    Some(format!(
        "batchNorm: {x} is {}, so its {} (operand {}) must be a vector of {channels} elements, one per channel, but {p} is {}",
        shape_text(x_shape),
        PARAMETERS[k],
        k + 2,
        shape_text(p_shape)
    ))
}

/// The left-hand side `let Y:Id = batchNorm(X:Id, S:Id, B:Id, M:Id, V:Id, epsilon = E) in
/// Body` with every operand a name with a shape and `Y` none of them.
struct Redex {
    y: Sym,
    names: [Sym; 5],
    shapes: [Ints; 5],
    epsilon_bits: u64,
    body: Term,
    call: Span,
}

fn batch_norm_redex(r: &Rewrite<'_>) -> Option<Redex> {
    let top = r.top()?;
    let Node::LetFunc { target, func: FuncTerm::BatchNorm { xs, epsilon_bits }, body, func_span } = top.node() else {
        return None;
    };
    let y = target.as_id()?;
    let names: Vec<Sym> = xs.iter().map(|t| t.as_id().cloned()).collect::<Option<_>>()?;
    let names: [Sym; 5] = names.try_into().ok()?;
    if names.contains(y) {
        return None;
    }
    let shapes = names.clone().map(|n| r.cfg.shape_of(&n).cloned());
    if shapes.iter().any(Option::is_none) {
        return None;
    }
    let shapes = shapes.map(|s| s.expect("checked"));
    Some(Redex { y: y.clone(), names, shapes, epsilon_bits: *epsilon_bits, body: body.clone(), call: *func_span })
}

/// `parameter_mismatch` of the redex's shapes.
fn mismatch(redex: &Redex) -> Option<String> {
    let [x, s, b, m, v] = &redex.names;
    let [xs, ss, bs, ms, vs] = &redex.shapes;
    let parameters = [(s, ss), (b, bs), (m, ms), (v, vs)].map(|(p, shape)| (p.as_str(), shape.as_slice()));
    parameter_mismatch(x.as_str(), xs.as_slice(), parameters)
}

/// `rule <k> let Y:Id = batchNorm(X:Id, S:Id, B:Id, M:Id, V:Id, epsilon = E:Float) in Body => defineTensor(Y, SH[X]) ~> batchNormHelper(X, S, B, M, V, Y, E, 0 ... size(SH[X]), SH[X]) ~> Body ~> restoreScope(Env, SH) ...</k>
///       <env> Env </env> <shape> SH => SH[Y <- SH[X]] </shape>
///       requires X, S, B, M, V in_keys(SH) andBool Y =/=K X, S, B, M, V andBool perChannel(SH[X], SH[S]) andBool perChannel(SH[X], SH[B]) andBool perChannel(SH[X], SH[M]) andBool perChannel(SH[X], SH[V])`
pub static LET_BATCH_NORM: Rule = Rule::top(
    SECTION,
    "ext-let-batch-norm",
    "Ext-14",
    "Ext-14",
    "rule <k> let Y:Id = batchNorm(X:Id, S:Id, B:Id, M:Id, V:Id, epsilon = E:Float) in Body => defineTensor(Y, SH[X]) ~> batchNormHelper(X, S, B, M, V, Y, E, 0 ... size(SH[X]), SH[X]) ~> Body ~> restoreScope(Env, SH) ...</k> <env> Env </env> <shape> SH => SH[Y <- SH[X]] </shape> requires X, S, B, M, V in_keys(SH) andBool Y =/=K X, S, B, M, V andBool perChannel(SH[X], SH[S]) andBool perChannel(SH[X], SH[B]) andBool perChannel(SH[X], SH[M]) andBool perChannel(SH[X], SH[V])",
    &[Head::LetFunc],
    let_batch_norm,
);

fn let_batch_norm(r: &mut Rewrite<'_>) -> bool {
    let Some(redex) = batch_norm_redex(r) else { return false };
    if mismatch(&redex).is_some() {
        return false;
    }
    let span = r.top().map(Term::span).unwrap_or_default();
    let Redex { y, names: [x, s, b, m, v], shapes: [is, ..], epsilon_bits, body, .. } = redex;
    // A size beyond 64 bits cannot be allocated: `defineTensor` fails on it first.
    let to = i64::try_from(size(is.as_slice())).unwrap_or(i64::MAX);
    let define = Term::new(Node::DefineTensor { x: Term::id(&y, span), ints: is.clone() }, span);
    let helper = BatchNormHelper { x, s, b, m, v, y: y.clone(), epsilon_bits, from: 0, to, dims: is.clone() };
    let helper = Term::new(Node::BatchNormHelper(Box::new(helper)), span);
    let scope = scope_of(r);
    r.cfg.shape.insert(MapKey::id(&y), is);
    r.cfg.replace_top([KItem::Term(define), KItem::Term(helper), KItem::Term(body), scope]);
    true
}

/// `rule <k> let Y:Id = batchNorm(X:Id, S:Id, B:Id, M:Id, V:Id, epsilon = _) in _ => knnError("shape mismatch") ...</k> <shape> SH </shape>
///       requires X, S, B, M, V in_keys(SH) andBool Y =/=K X, S, B, M, V andBool notBool (perChannel(SH[X], SH[S]) andBool perChannel(SH[X], SH[B]) andBool perChannel(SH[X], SH[M]) andBool perChannel(SH[X], SH[V]))`
pub static BATCH_NORM_SHAPE_MISMATCH: Rule = Rule::top(
    SECTION,
    "ext-batch-norm-shape-mismatch",
    "Ext-14",
    "Ext-14",
    "rule <k> let Y:Id = batchNorm(X:Id, S:Id, B:Id, M:Id, V:Id, epsilon = _) in _ => knnError(\"shape mismatch\") ...</k> <shape> SH </shape> requires X, S, B, M, V in_keys(SH) andBool Y =/=K X, S, B, M, V andBool notBool (perChannel(SH[X], SH[S]) andBool perChannel(SH[X], SH[B]) andBool perChannel(SH[X], SH[M]) andBool perChannel(SH[X], SH[V]))",
    &[Head::LetFunc],
    batch_norm_shape_mismatch,
);

fn batch_norm_shape_mismatch(r: &mut Rewrite<'_>) -> bool {
    let Some(redex) = batch_norm_redex(r) else { return false };
    let Some(detail) = mismatch(&redex) else { return false };
    r.cfg.replace_top_term(Term::error(ErrorKind::ShapeMismatch, detail, redex.call));
    true
}

/// `rule <k> batchNormHelper(X, S, B, M, V, Y, E, K ... N, Is) => let Y[rowMajor(K, Is)] = ((X[rowMajor(K, Is)] - M[head(rowMajor(K, Is))]) / sqrtItem(V[head(rowMajor(K, Is))] + E)) * S[head(rowMajor(K, Is))] + B[head(rowMajor(K, Is))] in #skip ~> batchNormHelper(X, S, B, M, V, Y, E, (K +Int 1) ... N, Is) ...</k>
///       requires K <Int N`
pub static BATCH_NORM_HELPER_STEP: Rule = Rule::top(
    SECTION,
    "ext-batch-norm-helper-step",
    "Ext-14",
    "Ext-14",
    "rule <k> batchNormHelper(X, S, B, M, V, Y, E, K ... N, Is) => let Y[rowMajor(K, Is)] = ((X[rowMajor(K, Is)] - M[head(rowMajor(K, Is))]) / sqrtItem(V[head(rowMajor(K, Is))] + E)) * S[head(rowMajor(K, Is))] + B[head(rowMajor(K, Is))] in #skip ~> batchNormHelper(X, S, B, M, V, Y, E, (K +Int 1) ... N, Is) ...</k> requires K <Int N",
    &[Head::BatchNormHelper],
    batch_norm_helper_step,
);

fn batch_norm_helper_step(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::BatchNormHelper(h) = top.node() else { return false };
    if !lt(h.from, h.to) {
        return false;
    }
    let (h, span) = ((**h).clone(), top.span());
    let at = row_major(h.from, &h.dims);
    let channel = Ints::one(at.as_slice()[0]);
    let element = |r: &mut Rewrite<'_>, name: &Sym, ints: &Ints| r.index(Term::id(name, span), ints.clone(), span);
    let x = element(r, &h.x, &at);
    let mean = element(r, &h.m, &channel);
    let variance = element(r, &h.v, &channel);
    let scale = element(r, &h.s, &channel);
    let bias = element(r, &h.b, &channel);
    let target = element(r, &h.y, &at);
    let node = |n: Node| Term::new(n, span);
    let epsilon = Term::float(f64::from_bits(h.epsilon_bits), span);
    let divisor = node(Node::MathItem { f: MathFn::Sqrt, arg: node(Node::Add(variance, epsilon)) });
    let normalised = node(Node::Div(node(Node::Sub(x, mean)), divisor));
    let value = node(Node::Add(node(Node::Mul(normalised, scale)), bias));
    let write = node(Node::Let { target, value, body: skip(span) });
    let next = node(Node::BatchNormHelper(Box::new(BatchNormHelper { from: h.from + 1, ..h })));
    r.cfg.replace_top([KItem::Term(write), KItem::Term(next)]);
    true
}

/// `rule <k> batchNormHelper(_, _, _, _, _, _, _, N ... N, _) => . ...</k>`
pub static BATCH_NORM_HELPER_DONE: Rule = Rule::top(
    SECTION,
    "ext-batch-norm-helper-done",
    "Ext-14",
    "Ext-14",
    "rule <k> batchNormHelper(_, _, _, _, _, _, _, N ... N, _) => . ...</k>",
    &[Head::BatchNormHelper],
    |r| match r.top_node() {
        Some(Node::BatchNormHelper(h)) if h.from == h.to => {
            r.cfg.pop_top();
            true
        }
        _ => false,
    },
);

/// `rule sqrtItem(F:Float) => sqrtFloat(F)`
pub static SQRT_ITEM: Rule = Rule::top(
    SECTION,
    "ext-sqrt-item",
    "Ext-14",
    "Ext-14",
    "rule sqrtItem(F:Float) => sqrtFloat(F)",
    &[Head::MathItem],
    sqrt_item,
);

fn sqrt_item(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::MathItem { f: f @ MathFn::Sqrt, arg } = top.node() else { return false };
    let Some(x) = arg.as_float() else { return false };
    let value = Term::float(f.apply(x), top.span());
    r.cfg.replace_top_term(value);
    true
}

pub static PATCH: Patch = Patch {
    name: "Ext-14",
    title: "batchNorm(X, S, B, M, V, epsilon = E)",
    reason: "a network's batch normalisation took one element let per element; ONNX's BatchNormalization (inference form) and PyTorch's BatchNorm2d in eval mode compute it per channel",
    removes: &[],
    adds: &[&LET_BATCH_NORM, &BATCH_NORM_SHAPE_MISMATCH, &BATCH_NORM_HELPER_STEP, &BATCH_NORM_HELPER_DONE, &SQRT_ITEM],
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_parameter_not_of_the_channels_shape_is_named() {
        let c3: &[i64] = &[3];
        let ok = [("s", c3), ("b", c3), ("m", c3), ("v", c3)];
        assert_eq!(parameter_mismatch("x", &[3, 2, 2], ok), None);
        assert_eq!(parameter_mismatch("x", &[3], ok), None, "a vector is C channels of one element");
        let wrong = [("s", c3), ("b", &[2][..]), ("m", &[1, 3][..]), ("v", c3)];
        let detail = parameter_mismatch("x", &[3, 2, 2], wrong).unwrap();
        assert!(detail.contains("its bias (operand 3)") && detail.contains("b is a vector of 2 elements"), "{detail}");
        let wrong = [("s", c3), ("b", c3), ("m", &[1, 3][..]), ("v", &[2][..])];
        let detail = parameter_mismatch("x", &[3, 2, 2], wrong).unwrap();
        assert!(detail.contains("its mean (operand 4)") && detail.contains("m is 1×3"), "{detail}");
        // Channels on the first axis, not the last: x of shape (2, 3) has 2 channels.
        assert!(parameter_mismatch("x", &[2, 3], ok).is_some());
    }
}
