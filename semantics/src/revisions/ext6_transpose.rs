//! Ext-6: `transpose(X, p0, …, pn-1)`, a fresh tensor with `X`'s axes in the order `Ps`: axis
//! `i` of the result is axis `Ps[i]` of `X` (NumPy's and ONNX's `Transpose(perm)`). What a
//! network trained on channels-last images needs before its convolutions (channels first) and
//! after them, before its dense layers read the features in the trainer's order. CNTK's
//! BrainScript has `TransposeDimensions`; ONNX `Transpose`.
//!
//! ```k
//! syntax Func  ::= "transpose" "(" Exp "," Ints ")"
//! syntax KItem ::= transposeHelper(Id, Id, Int, Int, Ints)   // printed `K ... N, Ps`
//! ```
//!
//! The choices:
//!
//! * **A function bound by `let`, its operand a name** diagnosed by `rev-let-func-error`
//!   (`unknown-tensor`, `unbound-identifier`, `aliased-output`), its axes Int literals as
//!   `initTensor`'s dimensions, every axis written: there is no default order (NumPy's and
//!   ONNX's default, the axes reversed, is written out by the importer).
//! * **The axes must be a permutation of `0 … rank(X) - 1`**, else `invalid-attribute`
//!   (`ext-transpose-invalid-permutation`): an axis repeated, out of range, or too few or too
//!   many of them.
//! * **A copy, not a view, in the result's row-major order**: the result is allocated by
//!   `defineTensor` as every function result; element `K` of it in row-major order, at index
//!   `I = rowMajor(K, Os)`, is written by an element `let` from `X`'s element at the index `J`
//!   with `J[Ps[i]] = I[i]`, read through the indexing rules (Rev-5) as `reshape`'s copies are.
//!   Writing `Y` later leaves `X` unchanged.
//! * **The revised profile only**: `transpose` is an identifier under the K grammar.

use super::Patch;
use super::ext1_add_tensor::row_major;
use super::ext5_reshape::size;
use super::rev01_unit_marker::skip;
use super::rev07_shapes::scope_of;
use crate::config::{KItem, MapKey};
use crate::errors::{ErrorKind, shape_text};
use crate::rules::{Head, Rewrite, Rule, Section, lt};
use crate::syntax::Span;
use crate::term::{FuncTerm, Ints, Node, Sym, Term};

const SECTION: Section = Section::Extensions;

/// Whether `perm` lists every axis `0 … rank - 1` once.
pub fn is_permutation(perm: &[i64], rank: usize) -> bool {
    let mut seen = vec![false; rank];
    perm.len() == rank
        && perm.iter().all(|&p| match usize::try_from(p).ok().and_then(|p| seen.get_mut(p)) {
            Some(slot) if !*slot => {
                *slot = true;
                true
            }
            _ => false,
        })
}

/// `permute(Is, Ps)`: the dimensions (or an index) `Is` in the order `Ps`, `Os[i] = Is[Ps[i]]`.
/// `perm` is a permutation of `is`'s axes.
pub fn permute(is: &[i64], perm: &[i64]) -> Vec<i64> {
    perm.iter().map(|&p| is[p as usize]).collect()
}

/// `unpermute(Is, Ps)`: the index `J` of `X` whose element lands at `Is` in the result,
/// `J[Ps[i]] = Is[i]`.
pub fn unpermute(is: &[i64], perm: &[i64]) -> Vec<i64> {
    let mut j = vec![0; is.len()];
    for (&i, &p) in is.iter().zip(perm) {
        j[p as usize] = i;
    }
    j
}

/// The left-hand side `let Y:Id = transpose(X:Id, Ps) in E`, `X` a name with a shape, not `Y`.
struct Redex {
    y: Sym,
    x: Sym,
    perm: Ints,
    shape: Ints,
    body: Term,
    call: Span,
}

fn transpose_redex(r: &Rewrite<'_>) -> Option<Redex> {
    let top = r.top()?;
    let Node::LetFunc { target, func: FuncTerm::Transpose { x, perm }, body, func_span } = top.node() else {
        return None;
    };
    let (y, x) = (target.as_id()?, x.as_id()?);
    if y == x {
        return None;
    }
    let shape = r.cfg.shape_of(x)?.clone();
    Some(Redex { y: y.clone(), x: x.clone(), perm: perm.clone(), shape, body: body.clone(), call: *func_span })
}

/// `rule <k> let Y:Id = transpose(X:Id, Ps) in E => defineTensor(Y, permute(SH[X], Ps)) ~> transposeHelper(X, Y, 0 ... size(SH[X]), Ps) ~> E ~> restoreScope(Env, SH) ...</k>
///       <env> Env </env> <shape> SH => SH[Y <- permute(SH[X], Ps)] </shape>
///       requires X in_keys(SH) andBool X =/=K Y andBool isPermutation(Ps, size(SH[X]))`
pub static LET_TRANSPOSE: Rule = Rule::top(
    SECTION,
    "ext-let-transpose",
    "Ext-6",
    "Ext-6",
    "rule <k> let Y:Id = transpose(X:Id, Ps) in E => defineTensor(Y, permute(SH[X], Ps)) ~> transposeHelper(X, Y, 0 ... size(SH[X]), Ps) ~> E ~> restoreScope(Env, SH) ...</k> <env> Env </env> <shape> SH => SH[Y <- permute(SH[X], Ps)] </shape> requires X in_keys(SH) andBool X =/=K Y andBool isPermutation(Ps, size(SH[X]))",
    &[Head::LetFunc],
    let_transpose,
);

fn let_transpose(r: &mut Rewrite<'_>) -> bool {
    let Some(redex) = transpose_redex(r) else { return false };
    let Redex { y, x, perm, shape, body, .. } = redex;
    if !is_permutation(perm.as_slice(), shape.len()) {
        return false;
    }
    let span = r.top().map(Term::span).unwrap_or_default();
    let os = Ints::new(&permute(shape.as_slice(), perm.as_slice())).expect("a permutation of a shape's axes");
    // The shape of a tensor that was allocated: its size fits in 64 bits.
    let to = i64::try_from(size(shape.as_slice())).unwrap_or(i64::MAX);
    let define = Term::new(Node::DefineTensor { x: Term::id(&y, span), ints: os.clone() }, span);
    let helper = Term::new(Node::TransposeHelper { x, y: y.clone(), from: 0, to, perm }, span);
    let scope = scope_of(r);
    r.cfg.shape.insert(MapKey::id(&y), os);
    r.cfg.replace_top([KItem::Term(define), KItem::Term(helper), KItem::Term(body), scope]);
    true
}

/// `rule <k> let Y:Id = transpose(X:Id, Ps) in _ => knnError("invalid attribute") ...</k> <shape> SH </shape>
///       requires X in_keys(SH) andBool X =/=K Y andBool notBool isPermutation(Ps, size(SH[X]))`
pub static TRANSPOSE_INVALID_PERMUTATION: Rule = Rule::top(
    SECTION,
    "ext-transpose-invalid-permutation",
    "Ext-6",
    "Ext-6",
    "rule <k> let Y:Id = transpose(X:Id, Ps) in _ => knnError(\"invalid attribute\") ...</k> <shape> SH </shape> requires X in_keys(SH) andBool X =/=K Y andBool notBool isPermutation(Ps, size(SH[X]))",
    &[Head::LetFunc],
    transpose_invalid_permutation,
);

fn transpose_invalid_permutation(r: &mut Rewrite<'_>) -> bool {
    let Some(redex) = transpose_redex(r) else { return false };
    if is_permutation(redex.perm.as_slice(), redex.shape.len()) {
        return false;
    }
    let detail = permutation_detail(redex.x.as_str(), redex.shape.as_slice(), redex.perm.as_slice());
    r.cfg.replace_top_term(Term::error(ErrorKind::InvalidAttribute, detail, redex.call));
    true
}

/// The detail of `ext-transpose-invalid-permutation`, shared with the big-step engine.
pub fn permutation_detail(x: &str, shape: &[i64], perm: &[i64]) -> String {
    let axes: Vec<String> = perm.iter().map(i64::to_string).collect();
    format!(
        "transpose({x}, {}): {x} has shape {} and {} axes; the axes must list each of 0 … {} once",
        axes.join(", "),
        shape_text(shape),
        shape.len(),
        shape.len() - 1
    )
}

/// `rule <k> transposeHelper(X, Y, K ... N, Ps) => let Y[rowMajor(K, permute(SH[X], Ps))] = X[unpermute(rowMajor(K, permute(SH[X], Ps)), Ps)] in #skip ~> transposeHelper(X, Y, (K +Int 1) ... N, Ps) ...</k>
///       <shape> SH </shape> requires K <Int N`
pub static TRANSPOSE_HELPER_STEP: Rule = Rule::top(
    SECTION,
    "ext-transpose-helper-step",
    "Ext-6",
    "Ext-6",
    "rule <k> transposeHelper(X, Y, K ... N, Ps) => let Y[rowMajor(K, permute(SH[X], Ps))] = X[unpermute(rowMajor(K, permute(SH[X], Ps)), Ps)] in #skip ~> transposeHelper(X, Y, (K +Int 1) ... N, Ps) ...</k> <shape> SH </shape> requires K <Int N",
    &[Head::TransposeHelper],
    transpose_helper_step,
);

fn transpose_helper_step(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::TransposeHelper { x, y, from, to, perm } = top.node() else { return false };
    if !lt(*from, *to) {
        return false;
    }
    let span = top.span();
    let (x, y, from, to, perm) = (x.clone(), y.clone(), *from, *to, perm.clone());
    // `<shape>` still has `X`: the helper runs before the body, and `Y` is not `X`.
    let Some(xs) = r.cfg.shape_of(&x).cloned() else { return false };
    let os = Ints::new(&permute(xs.as_slice(), perm.as_slice())).expect("a permutation of a shape's axes");
    let at = row_major(from, &os);
    let source_index = Ints::new(&unpermute(at.as_slice(), perm.as_slice())).expect("an index of every axis");
    let source = r.index(Term::id(&x, span), source_index, span);
    let target = r.index(Term::id(&y, span), at, span);
    let write = Term::new(Node::Let { target, value: source, body: skip(span) }, span);
    let next = Term::new(Node::TransposeHelper { x, y, from: from + 1, to, perm }, span);
    r.cfg.replace_top([KItem::Term(write), KItem::Term(next)]);
    true
}

/// `rule <k> transposeHelper(_, _, N ... N, _) => . ...</k>`
pub static TRANSPOSE_HELPER_DONE: Rule = Rule::top(
    SECTION,
    "ext-transpose-helper-done",
    "Ext-6",
    "Ext-6",
    "rule <k> transposeHelper(_, _, N ... N, _) => . ...</k>",
    &[Head::TransposeHelper],
    transpose_helper_done,
);

fn transpose_helper_done(r: &mut Rewrite<'_>) -> bool {
    match r.top_node() {
        Some(Node::TransposeHelper { from, to, .. }) if from == to => {
            r.cfg.pop_top();
            true
        }
        _ => false,
    }
}

pub static PATCH: Patch = Patch {
    name: "Ext-6",
    title: "transpose(X, p0, …, pn-1)",
    reason: "a network trained on channels-last images transposes them before its convolutions and back before its dense layers; CNTK's TransposeDimensions and ONNX's Transpose do it",
    removes: &[],
    adds: &[&LET_TRANSPOSE, &TRANSPOSE_INVALID_PERMUTATION, &TRANSPOSE_HELPER_STEP, &TRANSPOSE_HELPER_DONE],
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_list_every_axis_once() {
        assert!(is_permutation(&[2, 0, 1], 3));
        assert!(is_permutation(&[0], 1));
        assert!(!is_permutation(&[0, 0], 2), "an axis repeated");
        assert!(!is_permutation(&[0, 2], 2), "an axis out of range");
        assert!(!is_permutation(&[-1, 0], 2), "a negative axis");
        assert!(!is_permutation(&[1, 0], 3), "too few");
        assert!(!is_permutation(&[1, 0, 2], 2), "too many");
    }

    #[test]
    fn the_result_axis_i_is_the_operand_axis_perm_i() {
        // A (2, 3, 4) tensor with perm (2, 0, 1) has shape (4, 2, 3), and its element (3, 1, 2)
        // is the operand's (1, 2, 3).
        assert_eq!(permute(&[2, 3, 4], &[2, 0, 1]), [4, 2, 3]);
        assert_eq!(unpermute(&[3, 1, 2], &[2, 0, 1]), [1, 2, 3]);
        assert_eq!(permute(&unpermute(&[3, 1, 2], &[2, 0, 1]), &[2, 0, 1]), [3, 1, 2]);
    }
}
