//! Rev-5: bounds-checked indexing and assignment, with a clear error.
//!
//! Published indexing has no bounds check: an out-of-range read returns a neighbour's element
//! or header, an out-of-range write clobbers another tensor (§3(e), §3(k)). Here indices are
//! checked against the header `tensor(T, N)` they go through, and a violation becomes the term
//! `knnError(S)`, which then discards the rest of `<k>` (`rev-error-abort`): the final
//! configuration is `<k> knnError("index out of bounds") </k>`.
//!
//! Our additions, where §4 leaves states without a rule: indexing an Int (not only a Float),
//! writing through a name bound to a scalar, and writing through an unbound name are errors too.

use super::{Patch, header_at, in_bounds};
use crate::errors::ErrorKind;
use crate::rules::{Class, Head, Rewrite, Rule, RuleKind, Section, tensor};
use crate::syntax::Span;
use crate::term::{Ints, Node, Term};

const SECTION: Section = Section::Tensor;

/// `knnError` for index `i` against a dimension of length `n`.
pub fn element_error(kind: ErrorKind, i: i64, n: i64, span: Span) -> Term {
    Term::error(kind, format!("index {i} is out of bounds for a dimension of length {n}"), span)
}

/// `rule <k> knnError(S) ~> _:KItem => knnError(S) ...</k>` — an error discards the rest.
pub static ERROR_ABORT: Rule = Rule::top(
    SECTION,
    "rev-error-abort",
    "Rev-5",
    "§4 Rev-5",
    "rule <k> knnError(S) ~> _:KItem => knnError(S) ...</k>",
    &[Head::Error],
    error_abort,
);

fn error_abort(r: &mut Rewrite<'_>) -> bool {
    if !matches!(r.top_node(), Some(Node::Error { .. })) || r.cfg.second().is_none() {
        return false;
    }
    let below = r.cfg.k.len() - 2;
    r.cfg.k.remove(below);
    true
}

/// `rule tensor(L, N)[I:Int] => lookup(L +Int I) requires 0 <=Int I andBool I <Int N [anywhere]`
/// — replaces `index-tensor-anywhere` (R11).
pub static INDEX_ANYWHERE: Rule = Rule::passive(
    SECTION,
    RuleKind::Anywhere,
    "rev-index-anywhere",
    "Rev-5",
    "§4 Rev-5",
    "rule tensor(L, N)[I:Int] => lookup(L +Int I) requires 0 <=Int I andBool I <Int N [anywhere]",
);

/// `rule tensor(_, N)[I:Int] => knnError("index out of bounds") requires I <Int 0 orBool I >=Int N [anywhere]`
pub static INDEX_OUT_OF_BOUNDS: Rule = Rule::passive(
    SECTION,
    RuleKind::Anywhere,
    "rev-index-out-of-bounds-anywhere",
    "Rev-5",
    "§4 Rev-5",
    "rule tensor(_, N)[I:Int] => knnError(\"index out of bounds\") requires I <Int 0 orBool I >=Int N [anywhere]",
);

/// Builds `base [ ints ]` with the revised `[anywhere]` rules: `index-tensor-split-anywhere`
/// (R12, kept) splits the indices, and each level is checked against its header.
pub fn build_index_revised(r: &mut Rewrite<'_>, base: Term, ints: Ints, span: Span) -> Term {
    let Node::Tensor { loc, len } = *base.node() else {
        return Term::new(Node::Index { base, ints }, span);
    };
    match ints.split_first() {
        None => {
            let i = ints.first();
            if in_bounds(i, len) {
                r.fired(&INDEX_ANYWHERE, 1);
                Term::new(Node::Lookup(loc + i), span)
            } else {
                r.fired(&INDEX_OUT_OF_BOUNDS, 1);
                element_error(ErrorKind::IndexOutOfBounds, i, len, span)
            }
        }
        Some((n, rest)) => {
            r.fired(&tensor::INDEX_TENSOR_SPLIT_ANYWHERE, 1);
            let inner = r.index1(base, n, span);
            r.index(inner, rest, span)
        }
    }
}

/// `rule <k> _:Float [ _:Ints ] => knnError("too many indices") ...</k>` (and, ours, an Int).
pub static INDEX_SCALAR: Rule = Rule::top(
    SECTION,
    "rev-index-scalar",
    "Rev-5",
    "§4 Rev-5",
    "rule <k> _:Float [ _:Ints ] => knnError(\"too many indices\") ...</k>",
    &[Head::Index],
    index_scalar,
);

/// A Float or an Int: a value that is not a tensor header.
fn is_scalar(t: &Term) -> bool {
    matches!(t.node(), Node::Float(_) | Node::Int(_))
}

/// Worded as the big-step engine words it, which may hold the scalar in a register.
fn too_many_indices(span: Span) -> Term {
    Term::error(ErrorKind::TooManyIndices, "a scalar: it cannot be indexed", span)
}

fn index_scalar(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::Index { base, .. } = top.node() else { return false };
    if !is_scalar(base) {
        return false;
    }
    let error = too_many_indices(top.span());
    r.cfg.replace_top_term(error);
    true
}

/// `rule <k> storeVal(knnError(S)[_:Ints], _) => knnError(S) ...</k>`
pub static STOREVAL_ERROR: Rule = Rule::top(
    SECTION,
    "rev-storeval-error",
    "Rev-5",
    "§4 Rev-5",
    "rule <k> storeVal(knnError(S)[_:Ints], _) => knnError(S) ...</k>",
    &[Head::StoreVal],
    storeval_error,
);

fn storeval_error(r: &mut Rewrite<'_>) -> bool {
    let Some(Node::StoreVal { target, .. }) = r.top_node() else { return false };
    let Node::Index { base, .. } = target.node() else { return false };
    if !matches!(base.node(), Node::Error { .. }) {
        return false;
    }
    let error = base.clone();
    r.cfg.replace_top_term(error);
    true
}

/// The pieces of `storeVal(X:Id[I:Int], V:Val)`: the identifier, the index, the value.
fn store_through_id(r: &Rewrite<'_>) -> Option<(crate::term::Sym, i64, Term)> {
    let Node::StoreVal { target, value } = r.top_node()? else { return None };
    let (x, i) = target.as_single_index()?;
    let x = x.as_id()?;
    value.is_value().then(|| (x.clone(), i, value.clone()))
}

/// `rule <k> storeVal(X:Id[I:Int], V:Val) => .K ...</k> <env>... X |-> L ...</env>
///       <store>... L |-> tensor(T, N) (T +Int I) |-> (_ => V) ...</store> requires 0 <=Int I andBool I <Int N`
/// — replaces `storeval-id-1d` (R18): elements are addressed through the header (so aliases
/// write through), values only, bounds checked.
pub static STOREVAL_ID: Rule = Rule::top(
    SECTION,
    "rev-storeval-id",
    "Rev-5",
    "§4 Rev-5",
    "rule <k> storeVal(X:Id[I:Int], V:Val) => .K ...</k> <env>... X |-> L ...</env> <store>... L |-> tensor(T, N) (T +Int I) |-> (_ => V) ...</store> requires 0 <=Int I andBool I <Int N",
    &[Head::StoreVal],
    storeval_id,
);

fn storeval_id(r: &mut Rewrite<'_>) -> bool {
    let Some((x, i, v)) = store_through_id(r) else { return false };
    let Some(&l) = r.cfg.env.get(&x) else { return false };
    let Some((t, n)) = header_at(r.cfg, l) else { return false };
    if !in_bounds(i, n) {
        return false;
    }
    r.cfg.store.set(t + i, v);
    r.cfg.pop_top();
    true
}

/// `rule <k> storeVal(X:Id[I:Int], _:Val) => knnError("index out of bounds") ...</k>
///       <env>... X |-> L ...</env> <store>... L |-> tensor(_, N) ...</store> requires I <Int 0 orBool I >=Int N`
pub static STOREVAL_ID_OUT_OF_BOUNDS: Rule = Rule::top(
    SECTION,
    "rev-storeval-id-out-of-bounds",
    "Rev-5",
    "§4 Rev-5",
    "rule <k> storeVal(X:Id[I:Int], _:Val) => knnError(\"index out of bounds\") ...</k> <env>... X |-> L ...</env> <store>... L |-> tensor(_, N) ...</store> requires I <Int 0 orBool I >=Int N",
    &[Head::StoreVal],
    storeval_id_out_of_bounds,
);

fn storeval_id_out_of_bounds(r: &mut Rewrite<'_>) -> bool {
    let Some((x, i, _)) = store_through_id(r) else { return false };
    let Some(&l) = r.cfg.env.get(&x) else { return false };
    let Some((_, n)) = header_at(r.cfg, l) else { return false };
    if in_bounds(i, n) {
        return false;
    }
    let span = r.top().map(Term::span).unwrap_or_default();
    r.cfg.replace_top_term(element_error(ErrorKind::IndexOutOfBounds, i, n, span));
    true
}

/// Ours: `rule <k> storeVal(X:Id[_:Int], _:Val) => knnError("too many indices") ...</k>
///       <env>... X |-> L ...</env> <store>... L |-> S ...</store> requires notBool isTensor(S)`
/// — a write through a name bound to a scalar.
pub static STOREVAL_ID_SCALAR: Rule = Rule::top(
    SECTION,
    "rev-storeval-id-scalar",
    "Rev-5",
    "§4 Rev-5 (ours)",
    "rule <k> storeVal(X:Id[_:Int], _:Val) => knnError(\"too many indices\") ...</k> <env>... X |-> L ...</env> <store>... L |-> S ...</store> requires notBool isTensor(S)",
    &[Head::StoreVal],
    storeval_id_scalar,
);

fn storeval_id_scalar(r: &mut Rewrite<'_>) -> bool {
    let Some((x, _, _)) = store_through_id(r) else { return false };
    let Some(&l) = r.cfg.env.get(&x) else { return false };
    if !r.cfg.store.get(l).is_some_and(is_scalar) {
        return false;
    }
    let span = r.top().map(Term::span).unwrap_or_default();
    let error = Term::error(ErrorKind::TooManyIndices, format!("`{x}` holds a scalar: it cannot be indexed"), span);
    r.cfg.replace_top_term(error);
    true
}

/// Ours: `rule <k> storeVal(X:Id[_:Int], _:Val) => knnError("unbound identifier") ...</k>
///       <env> Env </env> requires notBool X in_keys(Env)`
pub static STOREVAL_ID_UNBOUND: Rule = Rule::top(
    SECTION,
    "rev-storeval-id-unbound",
    "Rev-5",
    "§4 Rev-5 (ours)",
    "rule <k> storeVal(X:Id[_:Int], _:Val) => knnError(\"unbound identifier\") ...</k> <env> Env </env> requires notBool X in_keys(Env)",
    &[Head::StoreVal],
    storeval_id_unbound,
);

fn storeval_id_unbound(r: &mut Rewrite<'_>) -> bool {
    let Some((x, _, _)) = store_through_id(r) else { return false };
    if r.cfg.env.contains_key(&x) {
        return false;
    }
    let span = r.top().map(Term::span).unwrap_or_default();
    let error = Term::error(ErrorKind::UnboundIdentifier, format!("`{x}` is not bound here"), span);
    r.cfg.replace_top_term(error);
    true
}

/// The pieces of `storeVal(lookup(L)[Is], V:Val)`: `L`, the indices, the value.
fn store_through_lookup(r: &Rewrite<'_>) -> Option<(i64, Ints, Term)> {
    let Node::StoreVal { target, value } = r.top_node()? else { return None };
    let Node::Index { base, ints } = target.node() else { return None };
    let Node::Lookup(l) = base.node() else { return None };
    value.is_value().then(|| (*l, ints.clone(), value.clone()))
}

/// `rule <k> storeVal(lookup(L)[I:Int], V:Val) => storeAtVal(T +Int I, V) ...</k>
///       <store>... L |-> tensor(T, N) ...</store> requires 0 <=Int I andBool I <Int N`
/// — replaces `storeval-lookup` (R19).
pub static STOREVAL_LOOKUP: Rule = Rule::top(
    SECTION,
    "rev-storeval-lookup",
    "Rev-5",
    "§4 Rev-5",
    "rule <k> storeVal(lookup(L)[I:Int], V:Val) => storeAtVal(T +Int I, V) ...</k> <store>... L |-> tensor(T, N) ...</store> requires 0 <=Int I andBool I <Int N",
    &[Head::StoreVal],
    storeval_lookup,
);

fn storeval_lookup(r: &mut Rewrite<'_>) -> bool {
    let Some((l, ints, v)) = store_through_lookup(r) else { return false };
    let Some(i) = ints.single() else { return false };
    let Some((t, n)) = header_at(r.cfg, l) else { return false };
    if !in_bounds(i, n) {
        return false;
    }
    let span = r.top().map(Term::span).unwrap_or_default();
    r.cfg.replace_top_term(Term::new(Node::StoreAtVal { loc: t + i, value: v }, span));
    true
}

/// `rule <k> storeVal(lookup(L)[I:Int], _:Val) => knnError("index out of bounds") ...</k>
///       <store>... L |-> tensor(_, N) ...</store> requires I <Int 0 orBool I >=Int N`, and the same
/// for `storeVal(lookup(L)[I:Int, _:Ints], _:Val)` (one Rust rule: the first index is checked).
pub static STOREVAL_LOOKUP_OUT_OF_BOUNDS: Rule = Rule::top(
    SECTION,
    "rev-storeval-lookup-out-of-bounds",
    "Rev-5",
    "§4 Rev-5",
    "rule <k> storeVal(lookup(L)[I:Int], _:Val) => knnError(\"index out of bounds\") ...</k> <store>... L |-> tensor(_, N) ...</store> requires I <Int 0 orBool I >=Int N  rule <k> storeVal(lookup(L)[I:Int, _:Ints], _:Val) => knnError(\"index out of bounds\") ...</k> <store>... L |-> tensor(_, N) ...</store> requires I <Int 0 orBool I >=Int N",
    &[Head::StoreVal],
    storeval_lookup_out_of_bounds,
);

fn storeval_lookup_out_of_bounds(r: &mut Rewrite<'_>) -> bool {
    let Some((l, ints, _)) = store_through_lookup(r) else { return false };
    let Some((_, n)) = header_at(r.cfg, l) else { return false };
    let i = ints.first();
    if in_bounds(i, n) {
        return false;
    }
    let span = r.top().map(Term::span).unwrap_or_default();
    r.cfg.replace_top_term(element_error(ErrorKind::IndexOutOfBounds, i, n, span));
    true
}

/// `rule <k> storeVal(lookup(L)[_:Ints], _:Val) => knnError("too many indices") ...</k>
///       <store>... L |-> _:Float ...</store>` (and, ours, an Int there or a scalar base).
pub static STOREVAL_SCALAR: Rule = Rule::top(
    SECTION,
    "rev-storeval-scalar",
    "Rev-5",
    "§4 Rev-5",
    "rule <k> storeVal(lookup(L)[_:Ints], _:Val) => knnError(\"too many indices\") ...</k> <store>... L |-> _:Float ...</store>",
    &[Head::StoreVal],
    storeval_scalar,
);

fn storeval_scalar(r: &mut Rewrite<'_>) -> bool {
    let Some(Node::StoreVal { target, value }) = r.top_node() else { return false };
    let Node::Index { base, .. } = target.node() else { return false };
    let scalar = match base.node() {
        Node::Lookup(l) => r.cfg.store.get(*l).is_some_and(is_scalar),
        _ => is_scalar(base),
    };
    if !scalar || !value.is_value() {
        return false;
    }
    let span = r.top().map(Term::span).unwrap_or_default();
    let error = too_many_indices(span);
    r.cfg.replace_top_term(error);
    true
}

/// `rule <k> X:Id => knnError("unbound identifier") ...</k> [owise]`
pub static UNBOUND_IDENTIFIER: Rule = Rule::top(
    SECTION,
    "rev-unbound-identifier",
    "Rev-5",
    "§4 Rev-5",
    "rule <k> X:Id => knnError(\"unbound identifier\") ...</k> [owise]",
    &[Head::Id],
    unbound_identifier,
)
.with_class(Class::Owise);

fn unbound_identifier(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::Id(x) = top.node() else { return false };
    let error = Term::error(ErrorKind::UnboundIdentifier, format!("`{x}` is not bound here"), top.span());
    r.cfg.replace_top_term(error);
    true
}

pub static PATCH: Patch = Patch {
    name: "Rev-5",
    title: "bounds-checked reads and writes, with a clear error",
    reason: "out-of-range indices read and write neighbouring tensors silently, or get stuck",
    removes: &[&tensor::INDEX_TENSOR_ANYWHERE, &tensor::STOREVAL_ID_1D, &tensor::STOREVAL_LOOKUP],
    adds: &[
        &ERROR_ABORT,
        &INDEX_ANYWHERE,
        &INDEX_OUT_OF_BOUNDS,
        &INDEX_SCALAR,
        &STOREVAL_ERROR,
        &STOREVAL_ID,
        &STOREVAL_ID_OUT_OF_BOUNDS,
        &STOREVAL_ID_SCALAR,
        &STOREVAL_ID_UNBOUND,
        &STOREVAL_LOOKUP,
        &STOREVAL_LOOKUP_OUT_OF_BOUNDS,
        &STOREVAL_SCALAR,
        &UNBOUND_IDENTIFIER,
    ],
};
