//! Ext-9's scalar functions, strict in their operand (`context fItem(HOLE, …)`): `expItem`,
//! `logItem`, and the softmax's `expShiftItem`, `softmaxItem`, `logSoftmaxItem`, each computing
//! with K's Float functions on the Float it receives; any other value is `invalid-operands`, as
//! `tanhItem`'s is (`rev-item-invalid`). `expFloat` and `logFloat` are correctly rounded
//! (`numeric::exp_float`, `numeric::log_float`).

use crate::config::Context;
use crate::errors::ErrorKind;
use crate::rules::{Class, Head, Rewrite, Rule, RuleKind, Section, strictness};
use crate::term::{MathFn, Node, Term};

const SECTION: Section = Section::Extensions;

/// `rule <k> fItem(HOLE, …) => HOLE ~> fItem(□, …) ...</k> requires notBool isKResult(HOLE) [heat]`
/// for every `fItem` of Ext-9.
pub static HEAT_MATH_ITEM: Rule = Rule::top(
    Section::Strictness,
    "ext-heat-math-item",
    "Ext-9",
    "Ext-9",
    "rule <k> fItem(HOLE, …) => HOLE ~> fItem(□, …) ...</k> requires notBool isKResult(HOLE) [heat]   // fItem in expItem, logItem, expShiftItem, softmaxItem, logSoftmaxItem",
    &[Head::MathItem],
    |r| {
        strictness::heat(r, |n| match n {
            Node::MathItem { f, arg } => Some((arg.clone(), Context::MathItem(*f))),
            _ => None,
        })
    },
)
.with_kind(RuleKind::Heat);

/// `rule <k> HOLE ~> fItem(□, …) => fItem(HOLE, …) ...</k> requires isKResult(HOLE) [cool]`
pub static COOL_MATH_ITEM: Rule = Rule::top(
    Section::Strictness,
    "ext-cool-math-item",
    "Ext-9",
    "Ext-9",
    "rule <k> HOLE ~> fItem(□, …) => fItem(HOLE, …) ...</k> requires isKResult(HOLE) [cool]   // fItem in expItem, logItem, expShiftItem, softmaxItem, logSoftmaxItem",
    Head::VALUES,
    |r| strictness::cool(r, |c| matches!(c, Context::MathItem(_))),
)
.with_kind(RuleKind::Cool)
.with_class(Class::Cool);

/// The item on top, when it is `which`'s kind applied to a Float: its value.
fn float_item(r: &mut Rewrite<'_>, which: fn(MathFn) -> bool) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::MathItem { f, arg } = top.node() else { return false };
    let Some(x) = arg.as_float() else { return false };
    if !which(*f) {
        return false;
    }
    let value = Term::float(f.apply(x), top.span());
    r.cfg.replace_top_term(value);
    true
}

/// `rule expItem(F:Float) => expFloat(F)`
pub static EXP_ITEM: Rule = Rule::top(
    SECTION,
    "ext-exp-item",
    "Ext-9",
    "Ext-9",
    "rule expItem(F:Float) => expFloat(F)",
    &[Head::MathItem],
    |r| float_item(r, |f| matches!(f, MathFn::Exp)),
);

/// `rule logItem(F:Float) => logFloat(F)`
pub static LOG_ITEM: Rule = Rule::top(
    SECTION,
    "ext-log-item",
    "Ext-9",
    "Ext-9",
    "rule logItem(F:Float) => logFloat(F)",
    &[Head::MathItem],
    |r| float_item(r, |f| matches!(f, MathFn::Log)),
);

/// `rule expShiftItem(F:Float, M:Float) => expFloat(F -Float M)`
pub static EXP_SHIFT_ITEM: Rule = Rule::top(
    SECTION,
    "ext-exp-shift-item",
    "Ext-9",
    "Ext-9",
    "rule expShiftItem(F:Float, M:Float) => expFloat(F -Float M)",
    &[Head::MathItem],
    |r| float_item(r, |f| matches!(f, MathFn::ExpShift { .. })),
);

/// `rule softmaxItem(F:Float, M:Float, S:Float) => expFloat(F -Float M) /Float S`
pub static SOFTMAX_ITEM: Rule = Rule::top(
    SECTION,
    "ext-softmax-item",
    "Ext-9",
    "Ext-9",
    "rule softmaxItem(F:Float, M:Float, S:Float) => expFloat(F -Float M) /Float S",
    &[Head::MathItem],
    |r| float_item(r, |f| matches!(f, MathFn::Softmax { .. })),
);

/// `rule logSoftmaxItem(F:Float, M:Float, S:Float) => (F -Float M) -Float logFloat(S)`
pub static LOG_SOFTMAX_ITEM: Rule = Rule::top(
    SECTION,
    "ext-log-softmax-item",
    "Ext-9",
    "Ext-9",
    "rule logSoftmaxItem(F:Float, M:Float, S:Float) => (F -Float M) -Float logFloat(S)",
    &[Head::MathItem],
    |r| float_item(r, |f| matches!(f, MathFn::LogSoftmax { .. })),
);

/// `rule <k> fItem(V:Val, …) => knnError("invalid operands") ...</k> [owise]` for every `fItem`
/// of Ext-9: an Int, or a tensor header, has no rule.
pub static MATH_ITEM_INVALID: Rule = Rule::top(
    SECTION,
    "ext-math-item-invalid",
    "Ext-9",
    "Ext-9",
    "rule <k> fItem(V:Val, …) => knnError(\"invalid operands\") ...</k> [owise]   // fItem in expItem, logItem, expShiftItem, softmaxItem, logSoftmaxItem",
    &[Head::MathItem],
    math_item_invalid,
)
.with_class(Class::Owise);

fn math_item_invalid(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::MathItem { f, arg } = top.node() else { return false };
    if !arg.is_value() || arg.as_float().is_some() {
        return false;
    }
    let detail = format!("`{}` takes a Float, not {}", f.item_name(), arg.operand_words());
    let error = Term::error(ErrorKind::InvalidOperands, detail, top.span());
    r.cfg.replace_top_term(error);
    true
}
