//! Rev-3: assignment through any number of index levels, only ever with computed values.
//!
//! `let-index-assign` accepted an unevaluated value, so `krun --search` could store a raw
//! expression; `storeval-split` only ever led to a stuck state; the `storeVal(_, HOLE)` context
//! is no longer needed once values arrive evaluated (and Rev-4 removes the other producer of
//! unevaluated values, `storeVal(X[i], $1)`).
//!
//! Our resolution of an overlap §4 does not mention: the new walk-down rule and the published
//! context `storeVal(HOLE[_:Int, _:Ints], _)` would both match `storeVal(lookup(L)[I, Rest], V)`.
//! The context's hole is restricted to identifiers (`rev-heat-storeval-base`), so every
//! redex matches one rule and the walk reads the sub-tensor headers itself.

use super::{Patch, header_at, in_bounds};
use crate::config::{Context, Freezer, KItem};
use crate::errors::ErrorKind;
use crate::rules::{Class, Head, Rewrite, Rule, RuleKind, Section, strictness, tensor};
use crate::term::{Node, Term};

/// `rule <k> let X:Id [Is:Ints] = V:Val in E1:Exp => storeVal(X[Is], V) ~> E1 ...</k>`
/// — replaces `let-index-assign` (R14).
pub static LET_INDEX_ASSIGN: Rule = Rule::top(
    Section::Tensor,
    "rev-let-index-assign",
    "Rev-3",
    "§4 Rev-3",
    "rule <k> let X:Id [Is:Ints] = V:Val in E1:Exp => storeVal(X[Is], V) ~> E1 ...</k>",
    &[Head::Let],
    let_index_assign,
);

fn let_index_assign(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::Let { target, value: v, body: e1 } = top.node() else { return false };
    let Node::Index { base, .. } = target.node() else { return false };
    if base.as_id().is_none() || !v.is_value() {
        return false;
    }
    let store = Term::new(Node::StoreVal { target: target.clone(), value: v.clone() }, target.span());
    let e1 = e1.clone();
    r.cfg.replace_top([KItem::Term(store), KItem::Term(e1)]);
    true
}

/// `rule <k> storeVal(lookup(L)[I:Int, Rest:Ints], V:Val) => storeVal(lookup(T +Int I)[Rest], V) ...</k>
///       <store>... L |-> tensor(T, N) ...</store> requires 0 <=Int I andBool I <Int N`
/// — new: walks down through sub-tensor headers (rank ≥ 3).
pub static STOREVAL_WALK: Rule = Rule::top(
    Section::Tensor,
    "rev-storeval-walk",
    "Rev-3",
    "§4 Rev-3",
    "rule <k> storeVal(lookup(L)[I:Int, Rest:Ints], V:Val) => storeVal(lookup(T +Int I)[Rest], V) ...</k> <store>... L |-> tensor(T, N) ...</store> requires 0 <=Int I andBool I <Int N",
    &[Head::StoreVal],
    storeval_walk,
);

fn storeval_walk(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::StoreVal { target, value: v } = top.node() else { return false };
    let Node::Index { base, ints } = target.node() else { return false };
    let (Node::Lookup(l), Some((i, rest))) = (base.node(), ints.split_first()) else { return false };
    let Some((t, n)) = header_at(r.cfg, *l) else { return false };
    if !v.is_value() || !in_bounds(i, n) {
        return false;
    }
    let span = top.span();
    let target = Term::new(Node::Index { base: Term::new(Node::Lookup(t + i), span), ints: rest }, span);
    let v = v.clone();
    r.cfg.replace_top_term(Term::new(Node::StoreVal { target, value: v }, span));
    true
}

/// `context storeVal(HOLE:Id[_:Int, _:Ints], _)` — replaces `ctx-storeval-base` (R16): only an
/// identifier base is evaluated; `lookup(L)` bases are walked by `rev-storeval-walk`.
pub static CTX_STOREVAL_BASE_ID: Rule = Rule::passive(
    Section::Tensor,
    RuleKind::Context,
    "rev-ctx-storeval-base-id",
    "Rev-3",
    "§4 Rev-3",
    "context storeVal(HOLE:Id[_:Int, _:Ints],_)",
);

/// `rule <k> storeVal(HOLE:Id [ K1 , K2 ], K3) => HOLE ~> storeVal(□ [ K1 , K2 ], K3) ...</k> [heat]`
/// — generated from `rev-ctx-storeval-base-id`, replaces `heat-storeval-base`. Its cooling rule
/// is the published `cool-storeval-base`.
pub static HEAT_STOREVAL_BASE_ID: Rule = Rule::top(
    Section::Strictness,
    "rev-heat-storeval-base",
    "Rev-3",
    "§4 Rev-3",
    "rule <k> storeVal(HOLE:Id [ K1 , K2 ], K3) => HOLE ~> storeVal(□ [ K1 , K2 ], K3) ...</k> requires notBool isKResult(HOLE) [heat]",
    &[Head::StoreVal],
    heat_storeval_base_id,
)
.with_kind(RuleKind::Heat);

fn heat_storeval_base_id(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::StoreVal { target, value } = top.node() else { return false };
    let Node::Index { base, ints } = target.node() else { return false };
    if base.as_id().is_none() || ints.split_first().is_none() {
        return false;
    }
    let context = Context::StoreValBase { ints: ints.clone(), value: value.clone() };
    let frozen = KItem::Frozen(Freezer { context, span: top.span() });
    let base = base.clone();
    r.cfg.replace_top([KItem::Term(base), frozen]);
    true
}

/// Ours: `rule <k> let E = V:Val in _ => knnError("invalid let target") ...</k> [owise]` — a
/// `let` whose target is neither a name nor an element of one (`let 1.0 = 2.0 in …`,
/// `let (a + b)[0] = … in …`) has no rule: it is an error rather than a stuck state.
pub static LET_TARGET_ERROR: Rule = Rule::top(
    Section::Tensor,
    "rev-let-target-error",
    "Rev-3",
    "§4 Rev-3 (ours)",
    "rule <k> let E = V:Val in _ => knnError(\"invalid let target\") ...</k> [owise]",
    &[Head::Let],
    let_target_error,
)
.with_class(Class::Owise);

fn let_target_error(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::Let { target, value, .. } = top.node() else { return false };
    if !value.is_value() {
        return false;
    }
    let detail = format!("`{target}` cannot be assigned: a `let` binds a name or an element `t[i, …]`");
    let error = Term::error(ErrorKind::InvalidLetTarget, detail, target.span());
    r.cfg.replace_top_term(error);
    true
}

pub static PATCH: Patch = Patch {
    name: "Rev-3",
    title: "assignment through any number of index levels, with computed values only",
    reason: "unevaluated values could be stored (search), storeval-split only led to stuck states, rank-3 writes failed",
    removes: &[
        &tensor::LET_INDEX_ASSIGN,
        &tensor::CTX_STOREVAL_VALUE,
        &strictness::HEAT_STOREVAL_VALUE,
        &strictness::COOL_STOREVAL_VALUE,
        &tensor::STOREVAL_SPLIT,
        &tensor::CTX_STOREVAL_BASE,
        &strictness::HEAT_STOREVAL_BASE,
    ],
    adds: &[&LET_INDEX_ASSIGN, &STOREVAL_WALK, &CTX_STOREVAL_BASE_ID, &HEAT_STOREVAL_BASE_ID, &LET_TARGET_ERROR],
};
