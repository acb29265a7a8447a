//! Rev-13: `tanh` without overflow. The published formula `(e^{2x} − 1)/(e^{2x} + 1)` is ∞/∞ =
//! NaN for `x > 354.89…` (§3(j)); for `x ≥ 0` the revised rule uses `e^{−2x}`, which cannot
//! overflow there.
//!
//! Ours: §4 splits on `X >=Float 0.0` and `X <Float 0.0`, which leaves NaN without a rule; the
//! first rule takes `notBool (X <Float 0.0)` instead, so `tanh(NaN)` is NaN, as published.

use super::Patch;
use crate::errors::ErrorKind;
use crate::numeric::revised_tanh;
use crate::rules::minmax;
use crate::rules::{Class, Head, Rewrite, Rule, Section};
use crate::term::{Act, Node, Term};

fn tanh_item(r: &mut Rewrite<'_>, negative: bool) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::ActItem { act: Act::Tanh, arg } = top.node() else { return false };
    let Some(x) = arg.as_float() else { return false };
    if (x < 0.0) != negative {
        return false;
    }
    r.cfg.replace_top_term(Term::float(revised_tanh(x), top.span()));
    true
}

/// `rule tanhItem(X:Float) => (1.0 -Float expFloat(-2.0 *Float X)) /Float (1.0 +Float expFloat(-2.0 *Float X))
///       requires notBool (X <Float 0.0)` — replaces `tanh-item-float` (R64) for `X ≥ 0` and NaN.
pub static TANH_ITEM_NONNEGATIVE: Rule = Rule::top(
    Section::MinMax,
    "rev-tanh-item-nonnegative",
    "Rev-13",
    "§4 Rev-13",
    "rule tanhItem(X:Float) => (1.0 -Float expFloat(-2.0 *Float X)) /Float (1.0 +Float expFloat(-2.0 *Float X)) requires notBool (X <Float 0.0)",
    &[Head::ActItem],
    |r| tanh_item(r, false),
);

/// `rule tanhItem(X:Float) => (expFloat(2.0 *Float X) -Float 1.0) /Float (expFloat(2.0 *Float X) +Float 1.0)
///       requires X <Float 0.0`
pub static TANH_ITEM_NEGATIVE: Rule = Rule::top(
    Section::MinMax,
    "rev-tanh-item-negative",
    "Rev-13",
    "§4 Rev-13",
    "rule tanhItem(X:Float) => (expFloat(2.0 *Float X) -Float 1.0) /Float (expFloat(2.0 *Float X) +Float 1.0) requires X <Float 0.0",
    &[Head::ActItem],
    |r| tanh_item(r, true),
);

/// Ours: `rule <k> tanhItem(V:Val) => knnError("invalid operands") ...</k> [owise]` (and the
/// same for `sigmoidItem`): `tanh` and `sigmoid` of an Int or a tensor have no rule.
pub static ITEM_INVALID: Rule = Rule::top(
    Section::MinMax,
    "rev-item-invalid",
    "Rev-13",
    "§4 Rev-13 (ours)",
    "rule <k> tanhItem(V:Val) => knnError(\"invalid operands\") ...</k> [owise]  rule <k> sigmoidItem(V:Val) => knnError(\"invalid operands\") ...</k> [owise]",
    &[Head::ActItem],
    item_invalid,
)
.with_class(Class::Owise);

fn item_invalid(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::ActItem { act, arg } = top.node() else { return false };
    if !arg.is_value() {
        return false;
    }
    let detail = format!("`{}` takes a Float, not {}", act.item_name(), arg.operand_words());
    let error = Term::error(ErrorKind::InvalidOperands, detail, top.span());
    r.cfg.replace_top_term(error);
    true
}

pub static PATCH: Patch = Patch {
    name: "Rev-13",
    title: "tanh without overflow",
    reason: "the published formula is inf/inf = NaN for x > 354.89",
    removes: &[&minmax::TANH_ITEM_FLOAT],
    adds: &[&TANH_ITEM_NONNEGATIVE, &TANH_ITEM_NEGATIVE, &ITEM_INVALID],
};
