//! "Tensor", element assignment (k-nn.md L191–210): `let X[Is] = E in E1` through `storeVal`,
//! its two contexts, and the writes `storeVal` and `storeAtVal` make in `<store>`.

use super::SECTION;
use crate::config::KItem;
use crate::rules::{Head, Rewrite, Rule, RuleKind, element_location};
use crate::term::{Node, Term};

/// R14 `let-index-assign` (L193)
/// `rule <k> let X:Id [Is:Ints] = E:Exp in E1:Exp => storeVal(X[Is], E) ~> E1...</k>`
pub static LET_INDEX_ASSIGN: Rule = Rule::top(
    SECTION,
    "let-index-assign",
    "R14",
    "L193",
    "rule <k> let X:Id [Is:Ints] = E:Exp in E1:Exp => storeVal(X[Is], E) ~> E1...</k>",
    &[Head::Let],
    let_index_assign,
);

fn let_index_assign(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::Let { target, value: e, body: e1 } = top.node() else {
        return false;
    };
    let Node::Index { base, .. } = target.node() else {
        return false;
    };
    if base.as_id().is_none() {
        return false;
    }
    // `X[Is]` with an identifier base is built as is: no `[anywhere]` rule applies.
    let store = Term::new(Node::StoreVal { target: target.clone(), value: e.clone() }, top.span());
    let e1 = e1.clone();
    r.cfg.replace_top([KItem::Term(store), KItem::Term(e1)]);
    true
}

/// R15 `ctx-storeval-value` (L195): `context storeVal(_, HOLE)`
pub static CTX_STOREVAL_VALUE: Rule =
    Rule::passive(SECTION, RuleKind::Context, "ctx-storeval-value", "R15", "L195", "context storeVal(_, HOLE)");

/// R16 `ctx-storeval-base` (L196): `context storeVal(HOLE[_:Int, _:Ints],_)`
pub static CTX_STOREVAL_BASE: Rule = Rule::passive(
    SECTION,
    RuleKind::Context,
    "ctx-storeval-base",
    "R16",
    "L196",
    "context storeVal(HOLE[_:Int, _:Ints],_)",
);

/// R17 `storeval-split` (L198): `rule storeVal(X[I:Int, Rest:Ints], V:Val) => storeVal(X[I][Rest], V)`
pub static STOREVAL_SPLIT: Rule = Rule::top(
    SECTION,
    "storeval-split",
    "R17",
    "L198",
    "rule storeVal(X[I:Int, Rest:Ints], V:Val) => storeVal(X[I][Rest], V)",
    &[Head::StoreVal],
    storeval_split,
);

fn storeval_split(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::StoreVal { target, value: v } = top.node() else {
        return false;
    };
    let Node::Index { base: x, ints } = target.node() else {
        return false;
    };
    let Some((i, rest)) = ints.split_first() else {
        return false;
    };
    if !v.is_value() {
        return false;
    }
    let (x, v, span) = (x.clone(), v.clone(), top.span());
    let x_i = r.index1(x, i, span);
    let target = r.index(x_i, rest, span);
    r.cfg.replace_top_term(Term::new(Node::StoreVal { target, value: v }, span));
    true
}

/// R18 `storeval-id-1d` (L200-202)
/// `rule <k> storeVal(X[I:Int], V) => . ...</k> <env>... X |-> L ...</env>
///       <store>... (L +Int I +Int 1) |-> (_ => V) ...</store>`
///
/// `V` is not restricted to values, and there is no bounds check.
pub static STOREVAL_ID_1D: Rule = Rule::top(
    SECTION,
    "storeval-id-1d",
    "R18",
    "L200-202",
    "rule <k> storeVal(X[I:Int], V) => . ...</k> <env>... X |-> L ...</env> <store>... (L +Int I +Int 1) |-> (_ => V) ...</store>",
    &[Head::StoreVal],
    storeval_id_1d,
);

fn storeval_id_1d(r: &mut Rewrite<'_>) -> bool {
    let Some(Node::StoreVal { target, value: v }) = r.top_node() else {
        return false;
    };
    let Some((x, i)) = target.as_single_index() else {
        return false;
    };
    let Some(x) = x.as_id() else { return false };
    let Some(&l) = r.cfg.env.get(x) else {
        return false;
    };
    let location = element_location(l, i);
    if r.cfg.store.get(location).is_none() {
        return false;
    }
    let v = v.clone();
    r.cfg.store.set(location, v);
    r.cfg.pop_top();
    true
}

/// R19 `storeval-lookup` (L204-205)
/// `rule <k> storeVal(lookup(L)[I:Int], V) => storeAtVal(T +Int I, V) ...</k>
///       <store>... L |-> tensor(T,_) ...</store>`
pub static STOREVAL_LOOKUP: Rule = Rule::top(
    SECTION,
    "storeval-lookup",
    "R19",
    "L204-205",
    "rule <k> storeVal(lookup(L)[I:Int], V) => storeAtVal(T +Int I, V) ...</k> <store>... L |-> tensor(T,_) ...</store>",
    &[Head::StoreVal],
    storeval_lookup,
);

fn storeval_lookup(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::StoreVal { target, value: v } = top.node() else {
        return false;
    };
    let Some((base, i)) = target.as_single_index() else {
        return false;
    };
    let Node::Lookup(l) = base.node() else {
        return false;
    };
    // `V` has sort Val: it is the second argument of `storeAtVal(Int, Val)`.
    if !v.is_value() {
        return false;
    }
    let Some(Node::Tensor { loc: t, .. }) = r.cfg.store.get(*l).map(Term::node) else {
        return false;
    };
    let store_at = Term::new(Node::StoreAtVal { loc: t + i, value: v.clone() }, top.span());
    r.cfg.replace_top_term(store_at);
    true
}

/// R20 `store-at-val` (L209-210): `rule <k> storeAtVal(L:Int, V:Val) => . ...</k> <store>... L |-> (_ => V) ...</store>`
pub static STORE_AT_VAL: Rule = Rule::top(
    SECTION,
    "store-at-val",
    "R20",
    "L209-210",
    "rule <k> storeAtVal(L:Int, V:Val) => . ...</k> <store>... L |-> (_ => V) ...</store>",
    &[Head::StoreAtVal],
    store_at_val,
);

fn store_at_val(r: &mut Rewrite<'_>) -> bool {
    let Some(Node::StoreAtVal { loc: l, value: v }) = r.top_node() else {
        return false;
    };
    if !v.is_value() || r.cfg.store.get(*l).is_none() {
        return false;
    }
    let (l, v) = (*l, v.clone());
    r.cfg.store.set(l, v);
    r.cfg.pop_top();
    true
}
