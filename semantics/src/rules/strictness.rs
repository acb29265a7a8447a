//! The heating and cooling rules K generates from strictness attributes and `context`
//! declarations (docs/semantics.md §1.1): 14 heating rules `C[HOLE] => HOLE ~> C[□]` (when the
//! hole is not a value) and 14 cooling rules `HOLE ~> C[□] => C[HOLE]` (when it is).
//!
//! Heating rules are in the default priority class and, having variables everywhere but the
//! hole, are tried before the hand-written rules that overlap them; cooling rules are in class
//! 150, tried only when nothing else applies (§2.9).

use super::{Class, Head, Rewrite, Rule, RuleKind, Section};
use crate::config::{Context, Freezer, KItem};
use crate::term::{Act, Node, Term};

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
fn heat(r: &mut Rewrite<'_>, split: fn(&Node) -> Option<(Term, Context)>) -> bool {
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
fn cool(r: &mut Rewrite<'_>, accepts: fn(&Context) -> bool) -> bool {
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

/// `Exp "[" Ints "]" [strict(1)]` (L62)
pub static HEAT_INDEX_1: Rule = Rule::heat(
    "heat-index-1",
    "L62",
    "rule <k> HOLE [ Is ] => HOLE ~> □ [ Is ] ...</k> requires notBool isKResult(HOLE) [heat]",
    &[Head::Index],
    |r| {
        heat(r, |n| match n {
            Node::Index { base, ints } => Some((base.clone(), Context::IndexBase { ints: ints.clone() })),
            _ => None,
        })
    },
);

pub static COOL_INDEX_1: Rule = Rule::cool(
    "cool-index-1",
    "L62",
    "rule <k> HOLE ~> □ [ Is ] => HOLE [ Is ] ...</k> requires isKResult(HOLE) [cool]",
    |r| cool(r, |c| matches!(c, Context::IndexBase { .. })),
);

/// `"max" "(" Exp "," Exp ")" [strict]` (L64)
pub static HEAT_MAX_1: Rule = Rule::heat(
    "heat-max-1",
    "L64",
    "rule <k> max(HOLE, K1) => HOLE ~> max(□, K1) ...</k> requires notBool isKResult(HOLE) [heat]",
    &[Head::Max],
    |r| {
        heat(r, |n| match n {
            Node::Max(a, b) => Some((a.clone(), Context::MaxLeft(b.clone()))),
            _ => None,
        })
    },
);

pub static HEAT_MAX_2: Rule = Rule::heat(
    "heat-max-2",
    "L64",
    "rule <k> max(K0, HOLE) => HOLE ~> max(K0, □) ...</k> requires notBool isKResult(HOLE) [heat]",
    &[Head::Max],
    |r| {
        heat(r, |n| match n {
            Node::Max(a, b) => Some((b.clone(), Context::MaxRight(a.clone()))),
            _ => None,
        })
    },
);

pub static COOL_MAX_1: Rule = Rule::cool(
    "cool-max-1",
    "L64",
    "rule <k> HOLE ~> max(□, K1) => max(HOLE, K1) ...</k> requires isKResult(HOLE) [cool]",
    |r| cool(r, |c| matches!(c, Context::MaxLeft(_))),
);

pub static COOL_MAX_2: Rule = Rule::cool(
    "cool-max-2",
    "L64",
    "rule <k> HOLE ~> max(K0, □) => max(K0, HOLE) ...</k> requires isKResult(HOLE) [cool]",
    |r| cool(r, |c| matches!(c, Context::MaxRight(_))),
);

/// `"min" "(" Exp "," Exp ")" [strict]` (L65)
pub static HEAT_MIN_1: Rule = Rule::heat(
    "heat-min-1",
    "L65",
    "rule <k> min(HOLE, K1) => HOLE ~> min(□, K1) ...</k> requires notBool isKResult(HOLE) [heat]",
    &[Head::Min],
    |r| {
        heat(r, |n| match n {
            Node::Min(a, b) => Some((a.clone(), Context::MinLeft(b.clone()))),
            _ => None,
        })
    },
);

pub static HEAT_MIN_2: Rule = Rule::heat(
    "heat-min-2",
    "L65",
    "rule <k> min(K0, HOLE) => HOLE ~> min(K0, □) ...</k> requires notBool isKResult(HOLE) [heat]",
    &[Head::Min],
    |r| {
        heat(r, |n| match n {
            Node::Min(a, b) => Some((b.clone(), Context::MinRight(a.clone()))),
            _ => None,
        })
    },
);

pub static COOL_MIN_1: Rule = Rule::cool(
    "cool-min-1",
    "L65",
    "rule <k> HOLE ~> min(□, K1) => min(HOLE, K1) ...</k> requires isKResult(HOLE) [cool]",
    |r| cool(r, |c| matches!(c, Context::MinLeft(_))),
);

pub static COOL_MIN_2: Rule = Rule::cool(
    "cool-min-2",
    "L65",
    "rule <k> HOLE ~> min(K0, □) => min(K0, HOLE) ...</k> requires isKResult(HOLE) [cool]",
    |r| cool(r, |c| matches!(c, Context::MinRight(_))),
);

/// `Exp "*" Exp [strict, left]` (L67)
pub static HEAT_MUL_1: Rule = Rule::heat(
    "heat-mul-1",
    "L67",
    "rule <k> HOLE * K1 => HOLE ~> □ * K1 ...</k> requires notBool isKResult(HOLE) [heat]",
    &[Head::Mul],
    |r| {
        heat(r, |n| match n {
            Node::Mul(a, b) => Some((a.clone(), Context::MulLeft(b.clone()))),
            _ => None,
        })
    },
);

pub static HEAT_MUL_2: Rule = Rule::heat(
    "heat-mul-2",
    "L67",
    "rule <k> K0 * HOLE => HOLE ~> K0 * □ ...</k> requires notBool isKResult(HOLE) [heat]",
    &[Head::Mul],
    |r| {
        heat(r, |n| match n {
            Node::Mul(a, b) => Some((b.clone(), Context::MulRight(a.clone()))),
            _ => None,
        })
    },
);

pub static COOL_MUL_1: Rule = Rule::cool(
    "cool-mul-1",
    "L67",
    "rule <k> HOLE ~> □ * K1 => HOLE * K1 ...</k> requires isKResult(HOLE) [cool]",
    |r| cool(r, |c| matches!(c, Context::MulLeft(_))),
);

pub static COOL_MUL_2: Rule = Rule::cool(
    "cool-mul-2",
    "L67",
    "rule <k> HOLE ~> K0 * □ => K0 * HOLE ...</k> requires isKResult(HOLE) [cool]",
    |r| cool(r, |c| matches!(c, Context::MulRight(_))),
);

/// `Exp "+" Exp [strict, left]` (L68)
pub static HEAT_ADD_1: Rule = Rule::heat(
    "heat-add-1",
    "L68",
    "rule <k> HOLE + K1 => HOLE ~> □ + K1 ...</k> requires notBool isKResult(HOLE) [heat]",
    &[Head::Add],
    |r| {
        heat(r, |n| match n {
            Node::Add(a, b) => Some((a.clone(), Context::AddLeft(b.clone()))),
            _ => None,
        })
    },
);

pub static HEAT_ADD_2: Rule = Rule::heat(
    "heat-add-2",
    "L68",
    "rule <k> K0 + HOLE => HOLE ~> K0 + □ ...</k> requires notBool isKResult(HOLE) [heat]",
    &[Head::Add],
    |r| {
        heat(r, |n| match n {
            Node::Add(a, b) => Some((b.clone(), Context::AddRight(a.clone()))),
            _ => None,
        })
    },
);

pub static COOL_ADD_1: Rule = Rule::cool(
    "cool-add-1",
    "L68",
    "rule <k> HOLE ~> □ + K1 => HOLE + K1 ...</k> requires isKResult(HOLE) [cool]",
    |r| cool(r, |c| matches!(c, Context::AddLeft(_))),
);

pub static COOL_ADD_2: Rule = Rule::cool(
    "cool-add-2",
    "L68",
    "rule <k> HOLE ~> K0 + □ => K0 + HOLE ...</k> requires isKResult(HOLE) [cool]",
    |r| cool(r, |c| matches!(c, Context::AddRight(_))),
);

/// `"let" Exp "=" Exp "in" Exp [strict(2)]` (L69): only the value is evaluated.
pub static HEAT_LET_2: Rule = Rule::heat(
    "heat-let-2",
    "L69",
    "rule <k> let K0 = HOLE in K2 => HOLE ~> let K0 = □ in K2 ...</k> requires notBool isKResult(HOLE) [heat]",
    &[Head::Let],
    |r| {
        heat(r, |n| match n {
            Node::Let { target, value, body } => {
                Some((value.clone(), Context::LetValue { target: target.clone(), body: body.clone() }))
            }
            _ => None,
        })
    },
);

pub static COOL_LET_2: Rule = Rule::cool(
    "cool-let-2",
    "L69",
    "rule <k> HOLE ~> let K0 = □ in K2 => let K0 = HOLE in K2 ...</k> requires isKResult(HOLE) [cool]",
    |r| cool(r, |c| matches!(c, Context::LetValue { .. })),
);

/// `context storeVal(_, HOLE)` (L195)
pub static HEAT_STOREVAL_VALUE: Rule = Rule::heat(
    "heat-storeval-value",
    "L195",
    "rule <k> storeVal(K0, HOLE) => HOLE ~> storeVal(K0, □) ...</k> requires notBool isKResult(HOLE) [heat]",
    &[Head::StoreVal],
    |r| {
        heat(r, |n| match n {
            Node::StoreVal { target, value } => {
                Some((value.clone(), Context::StoreValValue { target: target.clone() }))
            }
            _ => None,
        })
    },
);

pub static COOL_STOREVAL_VALUE: Rule = Rule::cool(
    "cool-storeval-value",
    "L195",
    "rule <k> HOLE ~> storeVal(K0, □) => storeVal(K0, HOLE) ...</k> requires isKResult(HOLE) [cool]",
    |r| cool(r, |c| matches!(c, Context::StoreValValue { .. })),
);

/// `context storeVal(HOLE[_:Int, _:Ints],_)` (L196): the base of a target with ≥ 2 indices.
pub static HEAT_STOREVAL_BASE: Rule = Rule::heat(
    "heat-storeval-base",
    "L196",
    "rule <k> storeVal(HOLE [ K1 , K2 ], K3) => HOLE ~> storeVal(□ [ K1 , K2 ], K3) ...</k> requires notBool isKResult(HOLE) [heat]",
    &[Head::StoreVal],
    |r| {
        heat(r, |n| {
            let Node::StoreVal { target, value } = n else {
                return None;
            };
            let Node::Index { base, ints } = target.node() else {
                return None;
            };
            ints.split_first()?;
            Some((base.clone(), Context::StoreValBase { ints: ints.clone(), value: value.clone() }))
        })
    },
);

pub static COOL_STOREVAL_BASE: Rule = Rule::cool(
    "cool-storeval-base",
    "L196",
    "rule <k> HOLE ~> storeVal(□ [ K1 , K2 ], K3) => storeVal(HOLE [ K1 , K2 ], K3) ...</k> requires isKResult(HOLE) [cool]",
    |r| cool(r, |c| matches!(c, Context::StoreValBase { .. })),
);

/// `tanhItem(HOLE)` / `sigmoidItem(HOLE)` split for the given activation.
fn split_item(n: &Node, act: Act) -> Option<(Term, Context)> {
    match n {
        Node::ActItem { act: a, arg } if *a == act => Some((arg.clone(), Context::ActItem(act))),
        _ => None,
    }
}

/// `context tanhItem(HOLE)` (L329)
pub static HEAT_TANH_ITEM: Rule = Rule::heat(
    "heat-tanh-item",
    "L329",
    "rule <k> tanhItem(HOLE) => HOLE ~> tanhItem(□) ...</k> requires notBool isKResult(HOLE) [heat]",
    &[Head::ActItem],
    |r| heat(r, |n| split_item(n, Act::Tanh)),
);

pub static COOL_TANH_ITEM: Rule = Rule::cool(
    "cool-tanh-item",
    "L329",
    "rule <k> HOLE ~> tanhItem(□) => tanhItem(HOLE) ...</k> requires isKResult(HOLE) [cool]",
    |r| cool(r, |c| matches!(c, Context::ActItem(Act::Tanh))),
);

/// `context sigmoidItem(HOLE)` (L364)
pub static HEAT_SIGMOID_ITEM: Rule = Rule::heat(
    "heat-sigmoid-item",
    "L364",
    "rule <k> sigmoidItem(HOLE) => HOLE ~> sigmoidItem(□) ...</k> requires notBool isKResult(HOLE) [heat]",
    &[Head::ActItem],
    |r| heat(r, |n| split_item(n, Act::Sigmoid)),
);

pub static COOL_SIGMOID_ITEM: Rule = Rule::cool(
    "cool-sigmoid-item",
    "L364",
    "rule <k> HOLE ~> sigmoidItem(□) => sigmoidItem(HOLE) ...</k> requires isKResult(HOLE) [cool]",
    |r| cool(r, |c| matches!(c, Context::ActItem(Act::Sigmoid))),
);

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
