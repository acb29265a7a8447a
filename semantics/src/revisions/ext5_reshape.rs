//! Ext-5: `reshape(X, d1, …, dn)` and `flatten(X)`, a fresh tensor with `X`'s elements in
//! row-major order under another shape: what sits between a convolutional network's last pool
//! and its dense layers. CNTK's BrainScript has `Reshape(x, shape)` and `Flatten`; ONNX
//! `Reshape` and `Flatten`.
//!
//! ```k
//! syntax Func  ::= "reshape" "(" Exp "," Ints ")" | "flatten" "(" Exp ")"
//! syntax KItem ::= reshapeHelper(Id, Id, Int, Int, Ints)   // printed `K ... N, Os`
//! ```
//!
//! The choices:
//!
//! * **A function bound by `let`, its operand a name** diagnosed by `rev-let-func-error`
//!   (`unknown-tensor`, `unbound-identifier`, `aliased-output`), its dimensions Int literals as
//!   `initTensor`'s. `flatten(X)` is `reshape(X, size(SH[X]))`: rank 1.
//! * **Equal element counts**, else `shape-mismatch` (`ext-reshape-shape-mismatch`); a zero
//!   dimension is allowed on both sides (no element to copy).
//! * **A copy, not a view**: the result is allocated by `defineTensor` as every function result,
//!   and each element is written by an element `let`, `Y[rowMajor(K, Os)] = X[rowMajor(K,
//!   SH[X])]`, in row-major order, so reading `X`'s element goes through the indexing rules
//!   (Rev-5): a row overwritten by a scalar is `too-many-indices`, an element that is a tensor
//!   header is copied as the header, as `let y[i] = x[j]` copies it. Writing `Y` later leaves
//!   `X` unchanged.
//! * **The revised profile only**: `reshape` and `flatten` are identifiers under the K grammar.

use super::Patch;
use super::ext1_add_tensor::row_major;
use super::rev01_unit_marker::skip;
use super::rev07_shapes::scope_of;
use crate::config::{KItem, MapKey};
use crate::errors::{ErrorKind, shape_text};
use crate::rules::{Head, Rewrite, Rule, Section, lt};
use crate::syntax::Span;
use crate::term::{FuncTerm, Ints, Node, Sym, Term};

const SECTION: Section = Section::Extensions;

/// `size(Is)`, in 128 bits: the dimensions are literals, their product may exceed 64 bits.
pub fn size(dims: &[i64]) -> i128 {
    dims.iter().map(|&d| i128::from(d)).product()
}

/// The left-hand side `let Y:Id = reshape(X:Id, Os) in E` (`Os` is `None` for `flatten`), `X` a
/// name with a shape, not `Y`.
struct Redex {
    y: Sym,
    x: Sym,
    dims: Option<Ints>,
    shape: Ints,
    body: Term,
    call: Span,
}

fn reshape_redex(r: &Rewrite<'_>) -> Option<Redex> {
    let top = r.top()?;
    let Node::LetFunc { target, func: FuncTerm::Reshape { x, dims }, body, func_span } = top.node() else {
        return None;
    };
    let (y, x) = (target.as_id()?, x.as_id()?);
    if y == x {
        return None;
    }
    let shape = r.cfg.shape_of(x)?.clone();
    Some(Redex { y: y.clone(), x: x.clone(), dims: dims.clone(), shape, body: body.clone(), call: *func_span })
}

/// `let Y = … in E => defineTensor(Y, Os) ~> reshapeHelper(X, Y, 0 ... size(Os), Os) ~> E ~>
/// restoreScope(Env, SH)`, `<shape>` updated.
fn define(r: &mut Rewrite<'_>, redex: Redex, os: Ints) {
    let span = r.top().map(Term::span).unwrap_or_default();
    let Redex { y, x, body, .. } = redex;
    let to = i64::try_from(size(os.as_slice())).unwrap_or(i64::MAX);
    let define = Term::new(Node::DefineTensor { x: Term::id(&y, span), ints: os.clone() }, span);
    let helper = Term::new(Node::ReshapeHelper { x, y: y.clone(), from: 0, to, dims: os.clone() }, span);
    let scope = scope_of(r);
    r.cfg.shape.insert(MapKey::id(&y), os);
    r.cfg.replace_top([KItem::Term(define), KItem::Term(helper), KItem::Term(body), scope]);
}

/// `rule <k> let Y:Id = reshape(X:Id, Os) in E => defineTensor(Y, Os) ~> reshapeHelper(X, Y, 0 ... size(Os), Os) ~> E ~> restoreScope(Env, SH) ...</k>
///       <env> Env </env> <shape> SH => SH[Y <- Os] </shape>
///       requires X in_keys(SH) andBool X =/=K Y andBool size(SH[X]) ==Int size(Os)`
pub static LET_RESHAPE: Rule = Rule::top(
    SECTION,
    "ext-let-reshape",
    "Ext-5",
    "Ext-5",
    "rule <k> let Y:Id = reshape(X:Id, Os) in E => defineTensor(Y, Os) ~> reshapeHelper(X, Y, 0 ... size(Os), Os) ~> E ~> restoreScope(Env, SH) ...</k> <env> Env </env> <shape> SH => SH[Y <- Os] </shape> requires X in_keys(SH) andBool X =/=K Y andBool size(SH[X]) ==Int size(Os)",
    &[Head::LetFunc],
    let_reshape,
);

fn let_reshape(r: &mut Rewrite<'_>) -> bool {
    let Some(redex) = reshape_redex(r) else { return false };
    let Some(os) = redex.dims.clone() else { return false };
    if size(redex.shape.as_slice()) != size(os.as_slice()) {
        return false;
    }
    define(r, redex, os);
    true
}

/// `rule <k> let Y:Id = flatten(X:Id) in E => defineTensor(Y, size(SH[X])) ~> reshapeHelper(X, Y, 0 ... size(SH[X]), size(SH[X])) ~> E ~> restoreScope(Env, SH) ...</k>
///       <env> Env </env> <shape> SH => SH[Y <- size(SH[X])] </shape> requires X in_keys(SH) andBool X =/=K Y`
pub static LET_FLATTEN: Rule = Rule::top(
    SECTION,
    "ext-let-flatten",
    "Ext-5",
    "Ext-5",
    "rule <k> let Y:Id = flatten(X:Id) in E => defineTensor(Y, size(SH[X])) ~> reshapeHelper(X, Y, 0 ... size(SH[X]), size(SH[X])) ~> E ~> restoreScope(Env, SH) ...</k> <env> Env </env> <shape> SH => SH[Y <- size(SH[X])] </shape> requires X in_keys(SH) andBool X =/=K Y",
    &[Head::LetFunc],
    let_flatten,
);

fn let_flatten(r: &mut Rewrite<'_>) -> bool {
    let Some(redex) = reshape_redex(r) else { return false };
    if redex.dims.is_some() {
        return false;
    }
    // The shape of a tensor that was allocated: its size fits in 64 bits.
    let n = i64::try_from(size(redex.shape.as_slice())).unwrap_or(i64::MAX);
    define(r, redex, Ints::one(n));
    true
}

/// `rule <k> let Y:Id = reshape(X:Id, Os) in _ => knnError("shape mismatch") ...</k> <shape> SH </shape>
///       requires X in_keys(SH) andBool X =/=K Y andBool size(SH[X]) =/=Int size(Os)`
pub static RESHAPE_SHAPE_MISMATCH: Rule = Rule::top(
    SECTION,
    "ext-reshape-shape-mismatch",
    "Ext-5",
    "Ext-5",
    "rule <k> let Y:Id = reshape(X:Id, Os) in _ => knnError(\"shape mismatch\") ...</k> <shape> SH </shape> requires X in_keys(SH) andBool X =/=K Y andBool size(SH[X]) =/=Int size(Os)",
    &[Head::LetFunc],
    reshape_shape_mismatch,
);

fn reshape_shape_mismatch(r: &mut Rewrite<'_>) -> bool {
    let Some(redex) = reshape_redex(r) else { return false };
    let Some(os) = &redex.dims else { return false };
    let (from, to) = (size(redex.shape.as_slice()), size(os.as_slice()));
    if from == to {
        return false;
    }
    let detail = mismatch_detail(redex.x.as_str(), redex.shape.as_slice(), os.as_slice());
    r.cfg.replace_top_term(Term::error(ErrorKind::ShapeMismatch, detail, redex.call));
    true
}

/// The detail of `ext-reshape-shape-mismatch`, shared with the big-step engine.
pub fn mismatch_detail(x: &str, shape: &[i64], dims: &[i64]) -> String {
    format!(
        "reshape({x}): {x} has shape {} and {} elements, but {} has {}",
        shape_text(shape),
        size(shape),
        shape_text(dims),
        size(dims)
    )
}

/// `rule <k> reshapeHelper(X, Y, K ... N, Os) => let Y[rowMajor(K, Os)] = X[rowMajor(K, SH[X])] in #skip ~> reshapeHelper(X, Y, (K +Int 1) ... N, Os) ...</k>
///       <shape> SH </shape> requires K <Int N`
pub static RESHAPE_HELPER_STEP: Rule = Rule::top(
    SECTION,
    "ext-reshape-helper-step",
    "Ext-5",
    "Ext-5",
    "rule <k> reshapeHelper(X, Y, K ... N, Os) => let Y[rowMajor(K, Os)] = X[rowMajor(K, SH[X])] in #skip ~> reshapeHelper(X, Y, (K +Int 1) ... N, Os) ...</k> <shape> SH </shape> requires K <Int N",
    &[Head::ReshapeHelper],
    reshape_helper_step,
);

fn reshape_helper_step(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::ReshapeHelper { x, y, from, to, dims } = top.node() else { return false };
    if !lt(*from, *to) {
        return false;
    }
    let span = top.span();
    let (x, y, from, to, dims) = (x.clone(), y.clone(), *from, *to, dims.clone());
    // `<shape>` still has `X`: the helper runs before the body, and `Y` is not `X`.
    let Some(xs) = r.cfg.shape_of(&x).cloned() else { return false };
    let source = r.index(Term::id(&x, span), row_major(from, &xs), span);
    let target = r.index(Term::id(&y, span), row_major(from, &dims), span);
    let write = Term::new(Node::Let { target, value: source, body: skip(span) }, span);
    let next = Term::new(Node::ReshapeHelper { x, y, from: from + 1, to, dims }, span);
    r.cfg.replace_top([KItem::Term(write), KItem::Term(next)]);
    true
}

/// `rule <k> reshapeHelper(_, _, N ... N, _) => . ...</k>`
pub static RESHAPE_HELPER_DONE: Rule = Rule::top(
    SECTION,
    "ext-reshape-helper-done",
    "Ext-5",
    "Ext-5",
    "rule <k> reshapeHelper(_, _, N ... N, _) => . ...</k>",
    &[Head::ReshapeHelper],
    reshape_helper_done,
);

fn reshape_helper_done(r: &mut Rewrite<'_>) -> bool {
    match r.top_node() {
        Some(Node::ReshapeHelper { from, to, .. }) if from == to => {
            r.cfg.pop_top();
            true
        }
        _ => false,
    }
}

pub static PATCH: Patch = Patch {
    name: "Ext-5",
    title: "reshape(X, d1, …, dn) and flatten(X)",
    reason: "a convolutional network's feature maps could not reach its dense layers; CNTK's Reshape and ONNX's Reshape and Flatten do it",
    removes: &[],
    adds: &[&LET_RESHAPE, &LET_FLATTEN, &RESHAPE_SHAPE_MISMATCH, &RESHAPE_HELPER_STEP, &RESHAPE_HELPER_DONE],
};
