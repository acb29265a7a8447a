//! Ext-15: `matmul(Y, Z)`, the matrix product of two tensors with NumPy's rules (ONNX's
//! `MatMul`): `(M, K)` by `(K, N)` is `(M, N)`; axes before the last two are batch axes that
//! broadcast (Ext-8's rule); a 1-D left operand is a row, a 1-D right operand a column, and the
//! axis it gained is removed from the result. `linear(W, X)` multiplies a matrix by a vector
//! the program names; `matmul` multiplies any two tensors, either computed from the input
//! (attention's `Q Kᵀ`, a bilinear layer). NumPy's `matmul`, ONNX's `MatMul`, BrainScript's
//! `Times`.
//!
//! ```k
//! syntax Func  ::= "matmul" "(" Exp "," Exp ")"
//! syntax KItem ::= matmulHelper(Id, Id, Id, Int, Int, Int, Ints, Ints, Ints)
//!                  // printed `Y , Z , X , K ... N , P , ( Is ) , ( Js ) , ( Os )`
//! syntax Ints  ::= matmulShape(Ints, Ints) [function]     // NumPy's result shape
//! syntax Bool  ::= matmulable(Ints, Ints) [function]      // whether it exists
//! syntax Int   ::= inner(Ints) [function]                 // the last extent: K
//! syntax Ints  ::= leftIndex(Ints, Int, Ints, Ints) [function]
//! syntax Ints  ::= rightIndex(Ints, Int, Ints, Ints) [function]
//! // leftIndex(O, P, Is, Js): Y's element in the P-th product of X[O]: O's batch indices read
//! // as operandIndex does for Y's batch axes, then (i, P), or (P) when Y is a vector;
//! // rightIndex: Z's batch indices, then (P, j), or (P) when Z is a vector.
//! // semantics/src/matmul.rs
//! ```
//!
//! The choices:
//! * **The order of summation is the semantics, and it is `linear`'s.** Each element of the
//!   result starts at `defineTensor`'s `0.0` and takes its products in increasing `P`, one
//!   element let each: `X[O] = X[O] + (Y[…, i, P] * Z[…, P, j])`, exactly `linear-mac`'s
//!   `Y[i] = Y[i] + (W[i][j] * X[j])` (the product rounded, then the sum; no fused
//!   multiply-add). The elements are taken in the result's row-major order, each finished
//!   before the next, as `linear` finishes a row before the next. So
//!   `matmul(W, x)` of a `(I, J)` matrix and a `(J)` vector has `linear(W, x)`'s bits.
//! * **Numbers through the scalar rules**: the element let goes through indexing with bounds
//!   checks, `+` and `*` `seqstrict` (`X[O]` read first, then `Y`'s element, then `Z`'s), so
//!   Int elements follow Rev-10 as in `linear`: an Int product is an Int (`integer-overflow`
//!   beyond 64 bits), added to the Float accumulator it is widened, and the result is Floats;
//!   an element that is not a number is `invalid-operands`.
//! * **Operands**: names of tensors with a recorded shape, diagnosed left to right by
//!   `rev-let-func-error` (a scalar is `unknown-tensor`: K-NN has no rank-0 tensor);
//!   inner extents that differ, or batch axes that do not broadcast, are
//!   `knnError("shape mismatch")` (`ext-matmul-shape-mismatch`), its detail naming both
//!   shapes.
//! * **A fresh result** of shape `matmulShape(SH[Y], SH[Z])`, allocated by `defineTensor` and
//!   recorded in `<shape>`, out of scope after the body. Two vectors give the shape `(1)`, not
//!   NumPy's rank 0 (as Ext-10's reduction over every axis). An inner extent of 0 takes no
//!   step: every element is `0.0`, NumPy's value.

use super::Patch;
use super::ext1_add_tensor::row_major;
use super::rev01_unit_marker::skip;
use super::rev07_shapes::scope_of;
use crate::config::{KItem, MapKey};
use crate::errors::ErrorKind;
use crate::matmul::{inner_extent, left_index, matmul_mismatch_detail, matmul_shape, right_index};
use crate::rules::{Head, Rewrite, Rule, Section, lt};
use crate::syntax::Span;
use crate::term::{FuncTerm, Ints, MatmulHelper, Node, Sym, Term};

const SECTION: Section = Section::Extensions;

/// The left-hand side `let X:Id = matmul(Y:Id, Z:Id) in E` with `X =/=K Y andBool X =/=K Z`
/// and both shapes known: `(x, y, z, SH[Y], SH[Z], e)`.
type Redex = (Sym, Sym, Sym, Ints, Ints, Term);

fn matmul_redex(r: &Rewrite<'_>) -> Option<Redex> {
    let top = r.top()?;
    let Node::LetFunc { target, func: FuncTerm::Matmul(y, z), body: e, .. } = top.node() else { return None };
    let (x, y, z) = (target.as_id()?, y.as_id()?, z.as_id()?);
    if x == y || x == z {
        return None;
    }
    let (y_shape, z_shape) = (r.cfg.shape_of(y)?.clone(), r.cfg.shape_of(z)?.clone());
    Some((x.clone(), y.clone(), z.clone(), y_shape, z_shape, e.clone()))
}

/// `rule <k> let X:Id = matmul(Y:Id, Z:Id) in E => defineTensor(X, matmulShape(SH[Y], SH[Z])) ~> matmulHelper(Y, Z, X, 0 ... size(matmulShape(SH[Y], SH[Z])) *Int inner(SH[Y]), inner(SH[Y]), SH[Y], SH[Z], matmulShape(SH[Y], SH[Z])) ~> E ~> restoreScope(Env, SH) ...</k>
///       <env> Env </env> <shape> SH => SH[X <- matmulShape(SH[Y], SH[Z])] </shape>
///       requires Y in_keys(SH) andBool Z in_keys(SH) andBool matmulable(SH[Y], SH[Z]) andBool X =/=K Y andBool X =/=K Z`
pub static LET_MATMUL: Rule = Rule::top(
    SECTION,
    "ext-let-matmul",
    "Ext-15",
    "Ext-15",
    "rule <k> let X:Id = matmul(Y:Id, Z:Id) in E => defineTensor(X, matmulShape(SH[Y], SH[Z])) ~> matmulHelper(Y, Z, X, 0 ... size(matmulShape(SH[Y], SH[Z])) *Int inner(SH[Y]), inner(SH[Y]), SH[Y], SH[Z], matmulShape(SH[Y], SH[Z])) ~> E ~> restoreScope(Env, SH) ...</k> <env> Env </env> <shape> SH => SH[X <- matmulShape(SH[Y], SH[Z])] </shape> requires Y in_keys(SH) andBool Z in_keys(SH) andBool matmulable(SH[Y], SH[Z]) andBool X =/=K Y andBool X =/=K Z",
    &[Head::LetFunc],
    let_matmul,
);

fn let_matmul(r: &mut Rewrite<'_>) -> bool {
    let Some((x, y, z, is, js, e)) = matmul_redex(r) else { return false };
    let Some(os) = matmul_shape(is.as_slice(), js.as_slice()).and_then(|os| Ints::new(&os)) else { return false };
    let span = r.top().map(Term::span).unwrap_or_default();
    let define = Term::new(Node::DefineTensor { x: Term::id(&x, span), ints: os.clone() }, span);
    let inner = inner_extent(is.as_slice());
    let size = os.as_slice().iter().fold(1i64, |n, &d| n.saturating_mul(d));
    let helper = MatmulHelper {
        y,
        z,
        x: x.clone(),
        from: 0,
        to: size.saturating_mul(inner),
        inner,
        y_dims: is,
        z_dims: js,
        dims: os.clone(),
    };
    let scope = scope_of(r);
    r.cfg.shape.insert(MapKey::id(&x), os);
    let helper = Term::new(Node::MatmulHelper(Box::new(helper)), span);
    r.cfg.replace_top([KItem::Term(define), KItem::Term(helper), KItem::Term(e), scope]);
    true
}

/// `rule <k> let X:Id = matmul(Y:Id, Z:Id) in _ => knnError("shape mismatch") ...</k> <shape> SH </shape>
///       requires Y in_keys(SH) andBool Z in_keys(SH) andBool notBool matmulable(SH[Y], SH[Z]) andBool X =/=K Y andBool X =/=K Z`
pub static MATMUL_SHAPE_MISMATCH: Rule = Rule::top(
    SECTION,
    "ext-matmul-shape-mismatch",
    "Ext-15",
    "Ext-15",
    "rule <k> let X:Id = matmul(Y:Id, Z:Id) in _ => knnError(\"shape mismatch\") ...</k> <shape> SH </shape> requires Y in_keys(SH) andBool Z in_keys(SH) andBool notBool matmulable(SH[Y], SH[Z]) andBool X =/=K Y andBool X =/=K Z",
    &[Head::LetFunc],
    shape_mismatch,
);

/// `knnError("shape mismatch")` when the inner extents differ or the batch axes do not
/// broadcast; the detail names both shapes, the span is the call's.
fn shape_mismatch(r: &mut Rewrite<'_>) -> bool {
    let Some((_, y, z, is, js, _)) = matmul_redex(r) else { return false };
    if matmul_shape(is.as_slice(), js.as_slice()).is_some() {
        return false;
    }
    let detail = matmul_mismatch_detail(y.as_str(), z.as_str(), is.as_slice(), js.as_slice());
    let span = match r.top().map(Term::node) {
        Some(Node::LetFunc { func_span, .. }) => *func_span,
        _ => Span::default(),
    };
    r.cfg.replace_top_term(Term::error(ErrorKind::ShapeMismatch, detail, span));
    true
}

/// `rule <k> matmulHelper(Y, Z, X, K ... N, P, Is, Js, Os) => let X[rowMajor(K /Int P, Os)] = X[rowMajor(K /Int P, Os)] + (Y[leftIndex(rowMajor(K /Int P, Os), K modInt P, Is, Js)] * Z[rightIndex(rowMajor(K /Int P, Os), K modInt P, Is, Js)]) in #skip ~> matmulHelper(Y, Z, X, (K +Int 1) ... N, P, Is, Js, Os) ...</k> requires K <Int N`
///
/// `P` is not 0 here: with `P = 0`, `N = 0` and no step is taken.
pub static MATMUL_HELPER_STEP: Rule = Rule::top(
    SECTION,
    "ext-matmul-helper-step",
    "Ext-15",
    "Ext-15",
    "rule <k> matmulHelper(Y, Z, X, K ... N, P, Is, Js, Os) => let X[rowMajor(K /Int P, Os)] = X[rowMajor(K /Int P, Os)] + (Y[leftIndex(rowMajor(K /Int P, Os), K modInt P, Is, Js)] * Z[rightIndex(rowMajor(K /Int P, Os), K modInt P, Is, Js)]) in #skip ~> matmulHelper(Y, Z, X, (K +Int 1) ... N, P, Is, Js, Os) ...</k> requires K <Int N",
    &[Head::MatmulHelper],
    matmul_helper_step,
);

fn matmul_helper_step(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::MatmulHelper(h) = top.node() else { return false };
    if !lt(h.from, h.to) || h.inner <= 0 {
        return false;
    }
    let (h, span) = ((**h).clone(), top.span());
    let (element, p) = (h.from / h.inner, h.from % h.inner);
    let o = row_major(element, &h.dims);
    let (is, js) = (h.y_dims.as_slice(), h.z_dims.as_slice());
    let as_ints = |index: Vec<i64>| Ints::new(&index).unwrap_or_else(|| Ints::one(0));
    let y_at = as_ints(left_index(o.as_slice(), p, is, js));
    let z_at = as_ints(right_index(o.as_slice(), p, is, js));
    let x_read = r.index(Term::id(&h.x, span), o.clone(), span);
    let y_idx = r.index(Term::id(&h.y, span), y_at, span);
    let z_idx = r.index(Term::id(&h.z, span), z_at, span);
    let x_idx = r.index(Term::id(&h.x, span), o, span);
    let product = Term::new(Node::Mul(y_idx, z_idx), span);
    let sum = Term::new(Node::Add(x_read, product), span);
    let write = Term::new(Node::Let { target: x_idx, value: sum, body: skip(span) }, span);
    let next = MatmulHelper { from: h.from + 1, ..h };
    r.cfg.replace_top([KItem::Term(write), KItem::Term(Term::new(Node::MatmulHelper(Box::new(next)), span))]);
    true
}

/// `rule <k> matmulHelper(_, _, _, N ... N, _, _, _, _) => . ...</k>`
pub static MATMUL_HELPER_DONE: Rule = Rule::top(
    SECTION,
    "ext-matmul-helper-done",
    "Ext-15",
    "Ext-15",
    "rule <k> matmulHelper(_, _, _, N ... N, _, _, _, _) => . ...</k>",
    &[Head::MatmulHelper],
    |r| match r.top_node() {
        Some(Node::MatmulHelper(h)) if h.from == h.to => {
            r.cfg.pop_top();
            true
        }
        _ => false,
    },
);

pub static PATCH: Patch = Patch {
    name: "Ext-15",
    title: "matrix product of two tensors with NumPy's rules: matmul",
    reason: "linear multiplies a named matrix by a vector only; NumPy's matmul, ONNX's MatMul and BrainScript's Times multiply any two tensors, batched",
    removes: &[],
    adds: &[&LET_MATMUL, &MATMUL_SHAPE_MISMATCH, &MATMUL_HELPER_STEP, &MATMUL_HELPER_DONE],
};
