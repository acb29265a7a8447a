//! Rev-11: determinism. `+`, `*`, `max` and `min` become `seqstrict` (the right operand is
//! evaluated only once the left one is a value), and the `…-item-merge-index` rules go: the
//! contexts `tanhItem(HOLE)`/`sigmoidItem(HOLE)` already evaluate the argument. With Rev-1, -2,
//! -3 and -5, no redex is matched by two rules: `search` finds exactly `run`'s result.

use super::Patch;
use crate::config::{Context, Freezer, KItem};
use crate::rules::{Head, Rewrite, Rule, RuleKind, Section, sigmoid, strictness, tanh};
use crate::term::{Node, Term};

/// The operands of a binary node and the context for its right operand.
type Operands<'n> = Option<(&'n Term, &'n Term, fn(Term) -> Context)>;

/// `op(K0:Val, HOLE) => HOLE ~> op(K0, □)` when `HOLE` is not a value.
fn heat_right(r: &mut Rewrite<'_>, split: for<'n> fn(&'n Node) -> Operands<'n>) -> bool {
    let Some(top) = r.top() else { return false };
    let Some((left, right, context)) = split(top.node()) else { return false };
    if !left.is_value() || right.is_value() {
        return false;
    }
    let frozen = KItem::Frozen(Freezer { context: context(left.clone()), span: top.span() });
    let right = right.clone();
    r.cfg.replace_top([KItem::Term(right), frozen]);
    true
}

macro_rules! seqstrict_heat_rule {
    ($name:ident, $id:literal, $k:literal, $head:expr, $node:path, $context:path) => {
        #[doc = concat!("`", $k, "` — replaces the `strict` rule it is named after.")]
        pub static $name: Rule = Rule::top(Section::Strictness, $id, "Rev-11", "§4 Rev-11", $k, &[$head], |r| {
            heat_right(r, |n| match n {
                $node(a, b) => Some((a, b, $context)),
                _ => None,
            })
        })
        .with_kind(RuleKind::Heat);
    };
}

seqstrict_heat_rule!(
    HEAT_MAX_2,
    "rev-heat-max-2",
    "rule <k> max(K0:Val, HOLE) => HOLE ~> max(K0, □) ...</k> requires notBool isKResult(HOLE) [heat]",
    Head::Max,
    Node::Max,
    Context::MaxRight
);
seqstrict_heat_rule!(
    HEAT_MIN_2,
    "rev-heat-min-2",
    "rule <k> min(K0:Val, HOLE) => HOLE ~> min(K0, □) ...</k> requires notBool isKResult(HOLE) [heat]",
    Head::Min,
    Node::Min,
    Context::MinRight
);
seqstrict_heat_rule!(
    HEAT_MUL_2,
    "rev-heat-mul-2",
    "rule <k> K0:Val * HOLE => HOLE ~> K0 * □ ...</k> requires notBool isKResult(HOLE) [heat]",
    Head::Mul,
    Node::Mul,
    Context::MulRight
);
seqstrict_heat_rule!(
    HEAT_ADD_2,
    "rev-heat-add-2",
    "rule <k> K0:Val + HOLE => HOLE ~> K0 + □ ...</k> requires notBool isKResult(HOLE) [heat]",
    Head::Add,
    Node::Add,
    Context::AddRight
);

pub static PATCH: Patch = Patch {
    name: "Rev-11",
    title: "determinism: left-to-right evaluation, no redundant index merging",
    reason: "strict operators and the merge-index rules let several rules match one redex",
    removes: &[
        &strictness::HEAT_MAX_2,
        &strictness::HEAT_MIN_2,
        &strictness::HEAT_MUL_2,
        &strictness::HEAT_ADD_2,
        &tanh::TANH_ITEM_MERGE_INDEX,
        &sigmoid::SIGMOID_ITEM_MERGE_INDEX,
    ],
    adds: &[&HEAT_MAX_2, &HEAT_MIN_2, &HEAT_MUL_2, &HEAT_ADD_2],
};
