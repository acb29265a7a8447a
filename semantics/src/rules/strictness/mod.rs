//! The heating and cooling rules K generates from strictness attributes and `context`
//! declarations (docs/semantics.md §1.1): 14 heating rules `C[HOLE] => HOLE ~> C[□]` (when the
//! hole is not a value) and 14 cooling rules `HOLE ~> C[□] => C[HOLE]` (when it is).
//!
//! Heating rules are in the default priority class and, having variables everywhere but the
//! hole, are tried before the hand-written rules that overlap them; cooling rules are in class
//! 150, tried only when nothing else applies (§2.9).
//!
//! The rules are in two files, by where K declares the strictness: `attributes.rs` (the `strict`
//! attributes of the syntax) and `contexts.rs` (the `context` declarations of the later sections).

mod attributes;
mod contexts;

pub use attributes::{
    COOL_ADD_1, COOL_ADD_2, COOL_INDEX_1, COOL_LET_2, COOL_MAX_1, COOL_MAX_2, COOL_MIN_1, COOL_MIN_2, COOL_MUL_1,
    COOL_MUL_2, HEAT_ADD_1, HEAT_ADD_2, HEAT_INDEX_1, HEAT_LET_2, HEAT_MAX_1, HEAT_MAX_2, HEAT_MIN_1, HEAT_MIN_2,
    HEAT_MUL_1, HEAT_MUL_2,
};
pub use contexts::{
    COOL_SIGMOID_ITEM, COOL_STOREVAL_BASE, COOL_STOREVAL_VALUE, COOL_TANH_ITEM, HEAT_SIGMOID_ITEM, HEAT_STOREVAL_BASE,
    HEAT_STOREVAL_VALUE, HEAT_TANH_ITEM,
};

use super::{Class, Head, Rewrite, Rule, RuleKind, Section};
use crate::config::{Context, Freezer, KItem};
use crate::term::{Node, Term};

impl Rule {
    const fn heat(
        id: &'static str,
        lines: &'static str,
        k: &'static str,
        heads: &'static [Head],
        apply: super::Apply,
    ) -> Rule {
        Rule {
            id,
            number: "",
            lines,
            k,
            section: Section::Strictness,
            kind: RuleKind::Heat,
            class: Class::Normal,
            heads,
            apply: Some(apply),
        }
    }

    const fn cool(id: &'static str, lines: &'static str, k: &'static str, apply: super::Apply) -> Rule {
        Rule {
            id,
            number: "",
            lines,
            k,
            section: Section::Strictness,
            kind: RuleKind::Cool,
            class: Class::Cool,
            heads: Head::VALUES,
            apply: Some(apply),
        }
    }
}

/// `C[HOLE] => HOLE ~> C[□] requires notBool isKResult(HOLE)`, where `split` finds the hole.
pub(crate) fn heat(r: &mut Rewrite<'_>, split: fn(&Node) -> Option<(Term, Context)>) -> bool {
    let Some(top) = r.top() else { return false };
    let Some((hole, context)) = split(top.node()) else {
        return false;
    };
    if hole.is_value() {
        return false;
    }
    let frozen = KItem::Frozen(Freezer { context, span: top.span() });
    r.cfg.replace_top([KItem::Term(hole), frozen]);
    true
}

/// `HOLE ~> C[□] => C[HOLE] requires isKResult(HOLE)` for the contexts `accepts` recognises.
pub(crate) fn cool(r: &mut Rewrite<'_>, accepts: fn(&Context) -> bool) -> bool {
    let (Some(KItem::Term(value)), Some(KItem::Frozen(freezer))) = (r.cfg.top(), r.cfg.second()) else {
        return false;
    };
    if !value.is_value() || !accepts(&freezer.context) {
        return false;
    }
    let (value, freezer) = (value.clone(), freezer.clone());
    r.cfg.pop_top();
    let plugged = plug(r, &freezer, value);
    r.cfg.replace_top_term(plugged);
    true
}

/// Fills the hole of `freezer` with `value`. Where the hole sits under `_[_]`, the term is built
/// with the profile's `[anywhere]` rules, as the LLVM backend builds it (§2.6): cooling the
/// header `tensor(L, N)` into `□ [ 0 ]` yields `lookup(L +Int 0)` at once.
pub fn plug(r: &mut Rewrite<'_>, freezer: &Freezer, value: Term) -> Term {
    let span = freezer.span;
    match &freezer.context {
        Context::IndexBase { ints } => r.index(value, ints.clone(), span),
        Context::StoreValBase { ints, value: v } => {
            let target = r.index(value, ints.clone(), span);
            Term::new(Node::StoreVal { target, value: v.clone() }, span)
        }
        context => context.plug_raw(value, span),
    }
}

/// The 14 heating rules, in the order krun tries them (left argument first).
pub static HEATING: &[&Rule] = &[
    &HEAT_INDEX_1,
    &HEAT_MAX_1,
    &HEAT_MAX_2,
    &HEAT_MIN_1,
    &HEAT_MIN_2,
    &HEAT_MUL_1,
    &HEAT_MUL_2,
    &HEAT_ADD_1,
    &HEAT_ADD_2,
    &HEAT_LET_2,
    &HEAT_STOREVAL_VALUE,
    &HEAT_STOREVAL_BASE,
    &HEAT_TANH_ITEM,
    &HEAT_SIGMOID_ITEM,
];

/// The 14 cooling rules.
pub static COOLING: &[&Rule] = &[
    &COOL_INDEX_1,
    &COOL_MAX_1,
    &COOL_MAX_2,
    &COOL_MIN_1,
    &COOL_MIN_2,
    &COOL_MUL_1,
    &COOL_MUL_2,
    &COOL_ADD_1,
    &COOL_ADD_2,
    &COOL_LET_2,
    &COOL_STOREVAL_VALUE,
    &COOL_STOREVAL_BASE,
    &COOL_TANH_ITEM,
    &COOL_SIGMOID_ITEM,
];
