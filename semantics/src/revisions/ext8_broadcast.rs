//! Ext-8: element-wise tensor arithmetic with NumPy's broadcasting. `subTensor(Y, Z)`,
//! `mulTensor(Y, Z)` and `divTensor(Y, Z)` join `addTensor(Y, Z)` (Ext-1), and all four accept
//! operands whose shapes broadcast: the shapes are aligned at their last dimensions, each
//! aligned pair is equal or holds a 1, which repeats, and the result has the larger rank (a
//! bias `(C, 1, 1)` added to an image `(C, H, W)`, a row `(3)` scaling each row of a `(2, 3)`
//! matrix). NumPy's rule, ONNX's "multidirectional broadcasting" for `Add`, `Sub`, `Mul`,
//! `Div`; BrainScript's element-wise operators repeat dimensions of 1 too.
//!
//! ```k
//! syntax Func  ::= "subTensor" "(" Exp "," Exp ")" | "mulTensor" "(" Exp "," Exp ")"
//!                | "divTensor" "(" Exp "," Exp ")"
//! syntax KItem ::= broadcastHelper(Op, Id, Id, Id, Int, Int, Ints, Ints, Ints)
//!                  // printed `Op , Y , Z , X , K ... N , ( Is ) , ( Js ) , ( Os )`
//! syntax Ints  ::= broadcast(Ints, Ints) [function]        // NumPy's result shape
//! syntax Bool  ::= broadcastable(Ints, Ints) [function]    // whether it exists
//! syntax Ints  ::= operandIndex(Ints, Ints) [function]
//! // operandIndex(I, Is): I's last |Is| indices, 0 where Is has a 1
//! // op(addTensor) = +, op(subTensor) = -, op(mulTensor) = *, op(divTensor) = /
//! ```
//!
//! The choices:
//! * **Same-shape `addTensor` is Ext-1, rule for rule.** `ext-let-add-tensor` still takes two
//!   equal shapes, so its programs run exactly as before; `ext-let-elementwise` takes
//!   `addTensor` only when the shapes differ. Ext-1's `ext-add-tensor-shape-mismatch` now
//!   requires `notBool broadcastable(SH[Y], SH[Z])` (it required `SH[Y] =/=K SH[Z]`), and its
//!   detail names the rule: "needs two tensors whose shapes broadcast".
//! * **Operands**: names of tensors with a recorded shape, diagnosed left to right by
//!   `rev-let-func-error` as for `addTensor`; shapes that do not broadcast are
//!   `knnError("shape mismatch")`, its detail naming both shapes.
//! * **Elements in the result's row-major order, each by the scalar operator**: element `I` of
//!   `X` is `Y[operandIndex(I, SH[Y])] op Z[operandIndex(I, SH[Z])]`, written by an element
//!   `let` through the existing rules: indexing with bounds checks, the operator `seqstrict`
//!   (`Y`'s element read before `Z`'s), Floats in IEEE binary64, Ints and mixed pairs as Rev-10
//!   and Ext-7 say (`divTensor` of Ints by an Int 0 is `division-by-zero`), an element that is
//!   not a number `invalid-operands`.
//! * **A fresh result** of shape `broadcast(SH[Y], SH[Z])`, allocated by `defineTensor` and
//!   recorded in `<shape>`, out of scope after the body, as every function result.

use super::Patch;
use super::rev01_unit_marker::skip;
use super::rev07_shapes::scope_of;
use crate::broadcast::{broadcast, mismatch_detail, operand_index};
use crate::config::{KItem, MapKey};
use crate::errors::ErrorKind;
use crate::rules::{Head, Rewrite, Rule, Section, lt};
use crate::syntax::Span;
use crate::term::{BroadcastHelper, ElementOp, FuncTerm, Ints, Node, Sym, Term};

use super::ext1_add_tensor::row_major;

const SECTION: Section = Section::Extensions;

/// The left-hand side `let X:Id = F(Y:Id, Z:Id) in E` of an element-wise tensor function with
/// `X =/=K Y andBool X =/=K Z` and both shapes known: `(op, x, y, z, SH[Y], SH[Z], e)`.
type Redex = (ElementOp, Sym, Sym, Sym, Ints, Ints, Term);

fn elementwise_redex(r: &Rewrite<'_>) -> Option<Redex> {
    let top = r.top()?;
    let Node::LetFunc { target, func, body: e, .. } = top.node() else { return None };
    let (op, y, z) = match func {
        FuncTerm::AddTensor(y, z) => (ElementOp::Add, y, z),
        FuncTerm::TensorArith(op, y, z) => (ElementOp::of(*op), y, z),
        _ => return None,
    };
    let (x, y, z) = (target.as_id()?, y.as_id()?, z.as_id()?);
    if x == y || x == z {
        return None;
    }
    let (y_shape, z_shape) = (r.cfg.shape_of(y)?.clone(), r.cfg.shape_of(z)?.clone());
    Some((op, x.clone(), y.clone(), z.clone(), y_shape, z_shape, e.clone()))
}

/// `rule <k> let X:Id = F(Y:Id, Z:Id) in E => defineTensor(X, broadcast(SH[Y], SH[Z])) ~> broadcastHelper(op(F), Y, Z, X, 0 ... size(broadcast(SH[Y], SH[Z])), SH[Y], SH[Z], broadcast(SH[Y], SH[Z])) ~> E ~> restoreScope(Env, SH) ...</k>
///       <env> Env </env> <shape> SH => SH[X <- broadcast(SH[Y], SH[Z])] </shape>
///       requires Y in_keys(SH) andBool Z in_keys(SH) andBool broadcastable(SH[Y], SH[Z]) andBool X =/=K Y andBool X =/=K Z
///        andBool (F =/=K addTensor orBool SH[Y] =/=K SH[Z])`
pub static LET_ELEMENTWISE: Rule = Rule::top(
    SECTION,
    "ext-let-elementwise",
    "Ext-8",
    "Ext-8",
    "rule <k> let X:Id = F(Y:Id, Z:Id) in E => defineTensor(X, broadcast(SH[Y], SH[Z])) ~> broadcastHelper(op(F), Y, Z, X, 0 ... size(broadcast(SH[Y], SH[Z])), SH[Y], SH[Z], broadcast(SH[Y], SH[Z])) ~> E ~> restoreScope(Env, SH) ...</k> <env> Env </env> <shape> SH => SH[X <- broadcast(SH[Y], SH[Z])] </shape> requires Y in_keys(SH) andBool Z in_keys(SH) andBool broadcastable(SH[Y], SH[Z]) andBool X =/=K Y andBool X =/=K Z andBool (F =/=K addTensor orBool SH[Y] =/=K SH[Z])",
    &[Head::LetFunc],
    let_elementwise,
);

fn let_elementwise(r: &mut Rewrite<'_>) -> bool {
    let Some((op, x, y, z, is, js, e)) = elementwise_redex(r) else { return false };
    if op == ElementOp::Add && is == js {
        // Ext-1's `ext-let-add-tensor`.
        return false;
    }
    let Some(os) = broadcast(is.as_slice(), js.as_slice()).and_then(|os| Ints::new(&os)) else { return false };
    let span = r.top().map(Term::span).unwrap_or_default();
    let define = Term::new(Node::DefineTensor { x: Term::id(&x, span), ints: os.clone() }, span);
    let to = os.as_slice().iter().fold(1i64, |n, &d| n.saturating_mul(d));
    let helper = BroadcastHelper { op, y, z, x: x.clone(), from: 0, to, y_dims: is, z_dims: js, dims: os.clone() };
    let scope = scope_of(r);
    r.cfg.shape.insert(MapKey::id(&x), os);
    let helper = Term::new(Node::BroadcastHelper(Box::new(helper)), span);
    r.cfg.replace_top([KItem::Term(define), KItem::Term(helper), KItem::Term(e), scope]);
    true
}

/// `rule <k> let X:Id = F(Y:Id, Z:Id) in _ => knnError("shape mismatch") ...</k> <shape> SH </shape>
///       requires F =/=K addTensor andBool Y in_keys(SH) andBool Z in_keys(SH) andBool notBool broadcastable(SH[Y], SH[Z]) andBool X =/=K Y andBool X =/=K Z`
/// — `addTensor`'s is Ext-1's `ext-add-tensor-shape-mismatch`.
pub static ELEMENTWISE_SHAPE_MISMATCH: Rule = Rule::top(
    SECTION,
    "ext-elementwise-shape-mismatch",
    "Ext-8",
    "Ext-8",
    "rule <k> let X:Id = F(Y:Id, Z:Id) in _ => knnError(\"shape mismatch\") ...</k> <shape> SH </shape> requires F =/=K addTensor andBool Y in_keys(SH) andBool Z in_keys(SH) andBool notBool broadcastable(SH[Y], SH[Z]) andBool X =/=K Y andBool X =/=K Z",
    &[Head::LetFunc],
    shape_mismatch,
);

/// `knnError("shape mismatch")` for `subTensor`, `mulTensor`, `divTensor` (`addTensor`'s is
/// Ext-1's rule) when the shapes do not broadcast; the detail names both shapes, the span is
/// the call's.
fn shape_mismatch(r: &mut Rewrite<'_>) -> bool {
    let Some((op, _, y, z, is, js, _)) = elementwise_redex(r) else { return false };
    if op == ElementOp::Add || broadcast(is.as_slice(), js.as_slice()).is_some() {
        return false;
    }
    let detail = mismatch_detail(op.keyword(), y.as_str(), z.as_str(), is.as_slice(), js.as_slice());
    let span = match r.top().map(Term::node) {
        Some(Node::LetFunc { func_span, .. }) => *func_span,
        _ => Span::default(),
    };
    r.cfg.replace_top_term(Term::error(ErrorKind::ShapeMismatch, detail, span));
    true
}

/// `rule <k> broadcastHelper(Op, Y, Z, X, K ... N, Is, Js, Os) => let X[rowMajor(K, Os)] = Y[operandIndex(rowMajor(K, Os), Is)] Op Z[operandIndex(rowMajor(K, Os), Js)] in #skip ~> broadcastHelper(Op, Y, Z, X, (K +Int 1) ... N, Is, Js, Os) ...</k> requires K <Int N`
pub static BROADCAST_HELPER_STEP: Rule = Rule::top(
    SECTION,
    "ext-broadcast-helper-step",
    "Ext-8",
    "Ext-8",
    "rule <k> broadcastHelper(Op, Y, Z, X, K ... N, Is, Js, Os) => let X[rowMajor(K, Os)] = Y[operandIndex(rowMajor(K, Os), Is)] Op Z[operandIndex(rowMajor(K, Os), Js)] in #skip ~> broadcastHelper(Op, Y, Z, X, (K +Int 1) ... N, Is, Js, Os) ...</k> requires K <Int N",
    &[Head::BroadcastHelper],
    broadcast_helper_step,
);

fn broadcast_helper_step(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::BroadcastHelper(h) = top.node() else { return false };
    if !lt(h.from, h.to) {
        return false;
    }
    let (h, span) = ((**h).clone(), top.span());
    let idx = row_major(h.from, &h.dims);
    let operand =
        |dims: &Ints| Ints::new(&operand_index(idx.as_slice(), dims.as_slice())).unwrap_or_else(|| Ints::one(0));
    let (y_at, z_at) = (operand(&h.y_dims), operand(&h.z_dims));
    let y_idx = r.index(Term::id(&h.y, span), y_at, span);
    let z_idx = r.index(Term::id(&h.z, span), z_at, span);
    let x_idx = r.index(Term::id(&h.x, span), idx, span);
    let value = match h.op {
        ElementOp::Add => Node::Add(y_idx, z_idx),
        ElementOp::Sub => Node::Sub(y_idx, z_idx),
        ElementOp::Mul => Node::Mul(y_idx, z_idx),
        ElementOp::Div => Node::Div(y_idx, z_idx),
    };
    let write = Term::new(Node::Let { target: x_idx, value: Term::new(value, span), body: skip(span) }, span);
    let next = BroadcastHelper { from: h.from + 1, ..h };
    r.cfg.replace_top([KItem::Term(write), KItem::Term(Term::new(Node::BroadcastHelper(Box::new(next)), span))]);
    true
}

/// `rule <k> broadcastHelper(_, _, _, _, N ... N, _, _, _) => . ...</k>`
pub static BROADCAST_HELPER_DONE: Rule = Rule::top(
    SECTION,
    "ext-broadcast-helper-done",
    "Ext-8",
    "Ext-8",
    "rule <k> broadcastHelper(_, _, _, _, N ... N, _, _, _) => . ...</k>",
    &[Head::BroadcastHelper],
    |r| match r.top_node() {
        Some(Node::BroadcastHelper(h)) if h.from == h.to => {
            r.cfg.pop_top();
            true
        }
        _ => false,
    },
);

pub static PATCH: Patch = Patch {
    name: "Ext-8",
    title: "element-wise tensor arithmetic with broadcasting: addTensor, subTensor, mulTensor, divTensor",
    reason: "addTensor took equal shapes only and K-NN had no element-wise -, *, / of tensors; NumPy, ONNX and BrainScript broadcast dimensions of 1",
    removes: &[],
    adds: &[&LET_ELEMENTWISE, &ELEMENTWISE_SHAPE_MISMATCH, &BROADCAST_HELPER_STEP, &BROADCAST_HELPER_DONE],
};
