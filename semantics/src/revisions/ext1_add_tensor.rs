//! Ext-1: `addTensor(Y, Z)`, the element-wise sum of two tensors of the same shape, at every
//! rank: the bias of a layer (`let z = addTensor(h, b) in …`) without one `let z[i] = z[i] + …`
//! per element. The sister languages have it: CNTK's configuration language builds a layer as
//! `T = Times(W1, X1) ; P = Plus(T, B1)` (its `ComputeNode` class `"Plus"`), and BrainScript
//! writes the same `W1 * r + b1`, its `+` an element-wise operation (F. Seide's notes on the
//! CNTK configuration language, 2015; the Cognitive Toolkit page "BrainScript Expressions").
//!
//! Not a revision of a published rule (K-NN has no tensor sum) but an extension, written the
//! way the patches are: the syntax, the rules with their K text, the reason. Only the revised
//! profile has it, and only the relaxed grammar reads `addTensor`; under the K grammar it stays
//! an identifier, so `let z = addTensor(a, b) in z` is a parse error there, as in K.
//!
//! ```k
//! syntax Func  ::= "addTensor" "(" Exp "," Exp ")"
//! syntax KItem ::= addTensorHelper(Id, Id, Id, Int, Int, Ints)   // printed `K ... N, Is`
//! syntax Ints  ::= rowMajor(Int, Ints) [function]
//! rule rowMajor(K, I:Int) => K
//! rule rowMajor(K, (Is:Ints, I:Int)) => (rowMajor(K /Int I, Is), K modInt I)
//! syntax Int   ::= size(Ints) [function]
//! rule size(I:Int) => I
//! rule size(I:Int, Is:Ints) => I *Int size(Is)
//! ```
//!
//! The choices, as a language designer makes them:
//!
//! * **Names, like every tensor function.** `addTensor` is a `Func`: it appears on the right of
//!   a `let` only and its operands name tensors with a recorded shape, as `reluTensor(Y)` and
//!   `linear(W, X)` do (Rev-7). An operand that is not such a name (`1.0`, `t[0]`, a scalar or
//!   an alias) is `unknown-tensor`, an unbound one `unbound-identifier`, an output that names an
//!   operand `aliased-output`: `rev-let-func-error` diagnoses them, operands left to right.
//! * **Same shape, here.** No broadcasting in Ext-1 (BrainScript's element-wise operations
//!   repeat dimensions of 1): `ext-let-add-tensor` takes equal `<shape>` entries, rank and
//!   extents. Ext-8 (`ext8_broadcast.rs`) adds broadcasting with rules of its own and narrows
//!   `ext-add-tensor-shape-mismatch` (the kind of Rev-8's `linear` mismatch) to shapes that do
//!   not broadcast.
//! * **Elements in row-major order, each by the scalar `+`.** The helper writes
//!   `X[idx] = Y[idx] + Z[idx]` for every index in C order, through the rules that already
//!   exist: `let` assignment (Rev-3), indexing with bounds checks (Rev-5), and `+` with its
//!   `seqstrict` order (Rev-11), so `Y[idx]` is read before `Z[idx]`, Floats add in IEEE binary64,
//!   Ints and mixed pairs add as Rev-10 says (an Int sum that overflows is `integer-overflow`),
//!   and an element that is not a number is `invalid-operands`.
//! * **A fresh result.** `X` is allocated by `defineTensor` (Rev-4) like every function result
//!   and its shape recorded by update (Rev-7); the operands are left untouched, and `X` goes
//!   out of scope after the body (Rev-12).

use super::Patch;
use super::rev01_unit_marker::skip;
use super::rev07_shapes::scope_of;
use crate::broadcast::{broadcast, mismatch_detail};
use crate::config::{KItem, MapKey};
use crate::errors::ErrorKind;
use crate::rules::{Head, Rewrite, Rule, Section, lt};
use crate::syntax::Span;
use crate::term::{FuncTerm, Ints, Node, Sym, Term};

const SECTION: Section = Section::Extensions;

/// `rule <k> let X:Id = addTensor(Y:Id, Z:Id) in E => defineTensor(X, {SH[Y]}:>Ints) ~> addTensorHelper(Y, Z, X, 0 ... size({SH[Y]}:>Ints), {SH[Y]}:>Ints) ~> E ~> restoreScope(Env, SH) ...</k>
///       <env> Env </env> <shape> SH => SH[X <- SH[Y]] </shape>
///       requires Y in_keys(SH) andBool Z in_keys(SH) andBool SH[Y] ==K SH[Z] andBool X =/=K Y andBool X =/=K Z`
pub static LET_ADD_TENSOR: Rule = Rule::top(
    SECTION,
    "ext-let-add-tensor",
    "Ext-1",
    "Ext-1",
    "rule <k> let X:Id = addTensor(Y:Id, Z:Id) in E => defineTensor(X, {SH[Y]}:>Ints) ~> addTensorHelper(Y, Z, X, 0 ... size({SH[Y]}:>Ints), {SH[Y]}:>Ints) ~> E ~> restoreScope(Env, SH) ...</k> <env> Env </env> <shape> SH => SH[X <- SH[Y]] </shape> requires Y in_keys(SH) andBool Z in_keys(SH) andBool SH[Y] ==K SH[Z] andBool X =/=K Y andBool X =/=K Z",
    &[Head::LetFunc],
    let_add_tensor,
);

/// The left-hand side `let X:Id = addTensor(Y:Id, Z:Id) in E` with `X =/=K Y andBool X =/=K Z`
/// and both shapes known: `(x, y, z, SH[Y], SH[Z], e)`.
fn add_tensor_redex(r: &Rewrite<'_>) -> Option<(Sym, Sym, Sym, Ints, Ints, Term)> {
    let top = r.top()?;
    let Node::LetFunc { target, func: FuncTerm::AddTensor(y, z), body: e, .. } = top.node() else { return None };
    let (x, y, z) = (target.as_id()?, y.as_id()?, z.as_id()?);
    if x == y || x == z {
        return None;
    }
    let (y_shape, z_shape) = (r.cfg.shape_of(y)?.clone(), r.cfg.shape_of(z)?.clone());
    Some((x.clone(), y.clone(), z.clone(), y_shape, z_shape, e.clone()))
}

fn let_add_tensor(r: &mut Rewrite<'_>) -> bool {
    let Some((x, y, z, is, js, e)) = add_tensor_redex(r) else { return false };
    if is != js {
        return false;
    }
    let span = r.top().map(Term::span).unwrap_or_default();
    let define = Term::new(Node::DefineTensor { x: Term::id(&x, span), ints: is.clone() }, span);
    let helper = Node::AddTensorHelper { y, z, x: x.clone(), from: 0, to: size(&is), dims: is.clone() };
    let scope = scope_of(r);
    r.cfg.shape.insert(MapKey::id(&x), is);
    r.cfg.replace_top([KItem::Term(define), KItem::Term(Term::new(helper, span)), KItem::Term(e), scope]);
    true
}

/// `size(Is)`: the number of elements of a tensor of shape `Is`.
fn size(is: &Ints) -> i64 {
    is.as_slice().iter().fold(1i64, |n, &d| n.saturating_mul(d))
}

/// `rule <k> let X:Id = addTensor(Y:Id, Z:Id) in _ => knnError("shape mismatch") ...</k> <shape> SH </shape>
///       requires Y in_keys(SH) andBool Z in_keys(SH) andBool notBool broadcastable(SH[Y], SH[Z]) andBool X =/=K Y andBool X =/=K Z`
///
/// Ext-8 changed the side condition from `SH[Y] =/=K SH[Z]`: shapes that differ but broadcast
/// are Ext-8's `ext-let-elementwise`; the detail names both shapes (and, in the call's span,
/// not the `let`'s, which runs to the end of its body).
pub static ADD_TENSOR_SHAPE_MISMATCH: Rule = Rule::top(
    SECTION,
    "ext-add-tensor-shape-mismatch",
    "Ext-1",
    "Ext-1, Ext-8",
    "rule <k> let X:Id = addTensor(Y:Id, Z:Id) in _ => knnError(\"shape mismatch\") ...</k> <shape> SH </shape> requires Y in_keys(SH) andBool Z in_keys(SH) andBool notBool broadcastable(SH[Y], SH[Z]) andBool X =/=K Y andBool X =/=K Z",
    &[Head::LetFunc],
    add_tensor_shape_mismatch,
);

fn add_tensor_shape_mismatch(r: &mut Rewrite<'_>) -> bool {
    let Some((_, y, z, is, js, _)) = add_tensor_redex(r) else { return false };
    if broadcast(is.as_slice(), js.as_slice()).is_some() {
        return false;
    }
    let detail = mismatch_detail("addTensor", y.as_str(), z.as_str(), is.as_slice(), js.as_slice());
    // The call's span, not the `let`'s (which runs to the end of its body).
    let span = match r.top().map(Term::node) {
        Some(Node::LetFunc { func_span, .. }) => *func_span,
        _ => Span::default(),
    };
    r.cfg.replace_top_term(Term::error(ErrorKind::ShapeMismatch, detail, span));
    true
}

/// `rule <k> addTensorHelper(Y, Z, X, K ... N, Is) => let X[rowMajor(K, Is)] = Y[rowMajor(K, Is)] + Z[rowMajor(K, Is)] in #skip ~> addTensorHelper(Y, Z, X, (K +Int 1) ... N, Is) ...</k> requires K <Int N`
pub static ADD_HELPER_STEP: Rule = Rule::top(
    SECTION,
    "ext-add-helper-step",
    "Ext-1",
    "Ext-1",
    "rule <k> addTensorHelper(Y, Z, X, K ... N, Is) => let X[rowMajor(K, Is)] = Y[rowMajor(K, Is)] + Z[rowMajor(K, Is)] in #skip ~> addTensorHelper(Y, Z, X, (K +Int 1) ... N, Is) ...</k> requires K <Int N",
    &[Head::AddTensorHelper],
    add_helper_step,
);

fn add_helper_step(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::AddTensorHelper { y, z, x, from: k, to: n, dims: is } = top.node() else { return false };
    if !lt(*k, *n) {
        return false;
    }
    let (y, z, x, k, n, is, span) = (y.clone(), z.clone(), x.clone(), *k, *n, is.clone(), top.span());
    let idx = row_major(k, &is);
    let y_idx = r.index(Term::id(&y, span), idx.clone(), span);
    let z_idx = r.index(Term::id(&z, span), idx.clone(), span);
    let x_idx = r.index(Term::id(&x, span), idx, span);
    let sum = Term::new(Node::Add(y_idx, z_idx), span);
    let write = Term::new(Node::Let { target: x_idx, value: sum, body: skip(span) }, span);
    let next = Node::AddTensorHelper { y, z, x, from: k + 1, to: n, dims: is };
    r.cfg.replace_top([KItem::Term(write), KItem::Term(Term::new(next, span))]);
    true
}

/// `rowMajor(K, Is)`: the `K`-th index of the shape `Is` in row-major (C) order, the last
/// index varying fastest.
pub fn row_major(mut k: i64, is: &Ints) -> Ints {
    let mut index = vec![0i64; is.len()];
    for (slot, &d) in index.iter_mut().zip(is.as_slice()).rev() {
        if d > 0 {
            *slot = k % d;
            k /= d;
        }
    }
    Ints::new(&index).unwrap_or_else(|| Ints::one(0))
}

/// `rule <k> addTensorHelper(_, _, _, N ... N, _) => . ...</k>`
pub static ADD_HELPER_DONE: Rule = Rule::top(
    SECTION,
    "ext-add-helper-done",
    "Ext-1",
    "Ext-1",
    "rule <k> addTensorHelper(_, _, _, N ... N, _) => . ...</k>",
    &[Head::AddTensorHelper],
    add_helper_done,
);

fn add_helper_done(r: &mut Rewrite<'_>) -> bool {
    match r.top_node() {
        Some(Node::AddTensorHelper { from, to, .. }) if from == to => {
            r.cfg.pop_top();
            true
        }
        _ => false,
    }
}

pub static PATCH: Patch = Patch {
    name: "Ext-1",
    title: "element-wise tensor addition: addTensor(Y, Z)",
    reason: "a layer's bias took one element let per output; CNTK's Plus and BrainScript's element-wise + add tensors",
    removes: &[],
    adds: &[&LET_ADD_TENSOR, &ADD_TENSOR_SHAPE_MISMATCH, &ADD_HELPER_STEP, &ADD_HELPER_DONE],
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_major_varies_the_last_index_fastest() {
        let is = Ints::new(&[2, 3]).unwrap();
        let indices: Vec<Vec<i64>> = (0..6).map(|k| row_major(k, &is).as_slice().to_vec()).collect();
        assert_eq!(indices, [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]);
        let is = Ints::new(&[2, 2, 2]).unwrap();
        assert_eq!(row_major(5, &is).as_slice(), [1, 0, 1]);
        assert_eq!(row_major(3, &Ints::one(4)).as_slice(), [3]);
    }

    #[test]
    fn size_is_the_product_of_the_dimensions() {
        assert_eq!(size(&Ints::new(&[2, 3, 4]).unwrap()), 24);
        assert_eq!(size(&Ints::new(&[2, 0]).unwrap()), 0);
    }
}
