//! Rev-8: `linear(W, X)` checks that `W: (I, J)` and `X: (J)`, and records `Y: (I)`. The
//! published rule reads only `W`'s shape: a shorter `X` reads a neighbour's header, a longer
//! one is silently truncated (§3(h)).

use super::Patch;
use super::rev07_shapes::scope_of;
use crate::config::{KItem, MapKey};
use crate::errors::{ErrorKind, linear_mismatch_detail};
use crate::rules::{Class, Head, Rewrite, Rule, Section, linear};
use crate::term::{FuncTerm, Ints, Node, Term};

const SECTION: Section = Section::Linear;

/// `rule <k> let Y:Id = linear(W, X) in E => linearChecked(Y, W, X, {SH[W]}:>Ints, {SH[X]}:>Ints, E) ...</k>
///       <shape> SH </shape> requires W in_keys(SH) andBool X in_keys(SH)` — replaces `let-linear` (R31).
pub static LET_LINEAR: Rule = Rule::top(
    SECTION,
    "rev-let-linear",
    "Rev-8",
    "§4 Rev-8",
    "rule <k> let Y:Id = linear(W, X) in E => linearChecked(Y, W, X, {SH[W]}:>Ints, {SH[X]}:>Ints, E) ...</k> <shape> SH </shape> requires W in_keys(SH) andBool X in_keys(SH)",
    &[Head::LetFunc],
    let_linear,
);

fn let_linear(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::LetFunc { target, func: FuncTerm::Linear(w, x), func_span, body: e } = top.node() else { return false };
    let (Some(y), Some(w), Some(x)) = (target.as_id(), w.as_id(), x.as_id()) else { return false };
    let (Some(w_shape), Some(x_shape)) = (r.cfg.shape_of(w), r.cfg.shape_of(x)) else { return false };
    let checked = Node::LinearChecked {
        y: y.clone(),
        w: w.clone(),
        x: x.clone(),
        w_shape: w_shape.clone(),
        x_shape: x_shape.clone(),
        body: e.clone(),
    };
    // The call's span, not the `let`'s: a mismatch reported from here points at `linear(W, x)`.
    let checked = Term::new(checked, *func_span);
    r.cfg.replace_top_term(checked);
    true
}

/// `rule <k> linearChecked(Y, W, X, (I:Int, J:Int), J, E) => defineTensor(Y, I) ~> linearHelper(Y, I, J, W, X) ~> E ~> restoreScope(Env, SH) ...</k>
///       <env> Env </env> <shape> SH => SH[Y <- I] </shape> requires Y =/=K W andBool Y =/=K X`
pub static LINEAR_CHECKED: Rule = Rule::top(
    SECTION,
    "rev-linear-checked",
    "Rev-8",
    "§4 Rev-8, Rev-12",
    "rule <k> linearChecked(Y, W, X, (I:Int, J:Int), J, E) => defineTensor(Y, I) ~> linearHelper(Y, I, J, W, X) ~> E ~> restoreScope(Env, SH) ...</k> <env> Env </env> <shape> SH => SH[Y <- I] </shape> requires Y =/=K W andBool Y =/=K X",
    &[Head::LinearChecked],
    linear_checked,
);

fn linear_checked(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::LinearChecked { y, w, x, w_shape, x_shape, body: e } = top.node() else { return false };
    let (&[i, j], &[j2]) = (w_shape.as_slice(), x_shape.as_slice()) else { return false };
    if j != j2 || y == w || y == x {
        return false;
    }
    let span = top.span();
    let define = Term::new(Node::DefineTensor { x: Term::id(y, span), ints: Ints::one(i) }, span);
    let helper = Term::new(Node::LinearHelper { y: y.clone(), i, j, w: w.clone(), x: x.clone() }, span);
    let (key, e) = (MapKey::id(y), e.clone());
    let scope = scope_of(r);
    r.cfg.shape.insert(key, Ints::one(i));
    r.cfg.replace_top([KItem::Term(define), KItem::Term(helper), KItem::Term(e), scope]);
    true
}

/// `rule <k> linearChecked(Y, W, X, _, _, _) => knnError("output aliases input") ...</k>
///       requires Y ==K W orBool Y ==K X [owise]` and
/// `rule <k> linearChecked(_, _, _, _, _, _) => knnError("shape mismatch") ...</k> [owise]`
/// (§4 has the second only; an output that names an operand is reported as aliasing). §4's
/// string is `"linear: shape mismatch"`: since Ext-1's `addTensor` raises the same kind, the
/// string names the kind, as every other `knnError` string does, and the detail the function.
pub static LINEAR_SHAPE_MISMATCH: Rule = Rule::top(
    SECTION,
    "rev-linear-shape-mismatch",
    "Rev-8",
    "§4 Rev-8",
    "rule <k> linearChecked(Y, W, X, _, _, _) => knnError(\"output aliases input\") ...</k> requires Y ==K W orBool Y ==K X [owise]  rule <k> linearChecked(_, _, _, _, _, _) => knnError(\"shape mismatch\") ...</k> [owise]",
    &[Head::LinearChecked],
    linear_shape_mismatch,
)
.with_class(Class::Owise);

fn linear_shape_mismatch(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::LinearChecked { y, w, x, w_shape, x_shape, .. } = top.node() else { return false };
    let error = if y == w || y == x {
        Term::error(
            ErrorKind::AliasedOutput,
            format!("`{y}` cannot be both an operand and the output of `linear`"),
            top.span(),
        )
    } else {
        let detail = linear_mismatch_detail(w.as_str(), x.as_str(), w_shape.as_slice(), x_shape.as_slice());
        Term::error(ErrorKind::ShapeMismatch, detail, top.span())
    };
    r.cfg.replace_top_term(error);
    true
}

pub static PATCH: Patch = Patch {
    name: "Rev-8",
    title: "linear checks W: (I, J) against X: (J) and records Y: (I)",
    reason: "the input's length was never checked, and the output had no shape for the next layer",
    removes: &[&linear::LET_LINEAR],
    adds: &[&LET_LINEAR, &LINEAR_CHECKED, &LINEAR_SHAPE_MISMATCH],
};
