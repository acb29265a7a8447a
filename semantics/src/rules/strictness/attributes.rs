//! Strictness, the `strict` attributes of "Syntax" (k-nn.md L59–70): `_[_]`, `max`, `min`, `*`
//! and `+` evaluate their operands, `let` its value, each through a heating and a cooling rule.

use super::{cool, heat};
use crate::config::Context;
use crate::rules::{Head, Rule};
use crate::term::Node;

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
