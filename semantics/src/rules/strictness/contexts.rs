//! Strictness, the `context` declarations: `storeVal`'s value and base in "Tensor" (k-nn.md
//! L195–196), `tanhItem` in "Tanh" (L329) and `sigmoidItem` in "Sigmoid" (L364), each through a
//! heating and a cooling rule.

use super::{cool, heat};
use crate::config::Context;
use crate::rules::{Head, Rule};
use crate::term::{Act, Node, Term};

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
