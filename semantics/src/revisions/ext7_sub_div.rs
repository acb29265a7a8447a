//! Ext-7: scalar subtraction and division, `E - E` and `E / E`. K-NN has `+` and `*` only, so a
//! centred input `x - m` or a scaled one `x / s` had to be written `x + -1.0 * m` and
//! `x * (1/s)` (CNTK's BrainScript has `-` and `/` beside `+` and `*`, "BrainScript
//! Expressions"; ONNX has `Sub` and `Div`).
//!
//! ```k
//! syntax Exp ::= Exp "-" Exp [seqstrict, left]   // in the priority group of "+"
//!              | Exp "/" Exp [seqstrict, left]   // in the priority group of "*"
//! rule F1:Float - F2:Float => F1 -Float F2
//! rule I1:Int - I2:Int => I1 -Int I2
//! rule I:Int - F:Float => Int2Float(I, 53, 11) -Float F
//! rule F:Float - I:Int => F -Float Int2Float(I, 53, 11)
//! rule F1:Float / F2:Float => F1 /Float F2
//! rule I1:Int / I2:Int => I1 /Int I2 requires I2 =/=Int 0
//! rule <k> _:Int / 0 => knnError("division by zero") ...</k>
//! rule I:Int / F:Float => Int2Float(I, 53, 11) /Float F
//! rule F:Float / I:Int => F /Float Int2Float(I, 53, 11)
//! rule <k> V1:Val - V2:Val => knnError("invalid operands") ...</k> [owise]   // likewise /
//! ```
//!
//! The choices, each as `+` and `*` make it in the revised profile:
//! * **Syntax**: the relaxed grammar only; `-` has the priority and left associativity of `+`,
//!   `/` those of `*`. The published grammar has neither symbol: K's scanner reads `-` only as
//!   the sign of a Float (`-1.0`), and a lone `-` or `/` stays its lexical error. A Float
//!   written with its sign right after an operand is split, as `1.0+2.0` already is:
//!   `x-1.0` is `x - 1.0`, `2.0-1.0` is `2.0 - 1.0`, and `x-1` is `x - 1.0` (the scanner
//!   reads `-1` as a Float); `x - -1.0` subtracts `-1.0`. There is no unary minus.
//! * **Evaluation**: `seqstrict`, the left operand first, as Rev-11 makes `+` and `*`; the
//!   heating and cooling rules K generates from the attribute are written out (`ext-heat-…`,
//!   `ext-cool-…`).
//! * **Floats**: IEEE binary64, round to nearest (`-Float`, `/Float`): a Float divided by zero is
//!   `±Infinity`, `0.0 / 0.0` is `NaN`, no error.
//! * **Ints**: 64 bits, as Rev-10's: a difference beyond them is `integer-overflow`;
//!   division truncates toward zero (K's `/Int`: `-7 / 2` is `-3`), `-2^63 / -1` is
//!   `integer-overflow`, and an Int divided by the Int `0` is the new error kind
//!   `division-by-zero` (K's `/Int` is undefined there: the state would be stuck).
//! * **Mixed**: the Int is widened by `Int2Float(I, 53, 11)` and the Float rule applies, as
//!   Rev-10's mixed `+` and `*`: `1.0 / 0` is `Infinity`, not an error.
//! * **Anything else** (a tensor header as an operand) is `invalid-operands`, as
//!   `rev-arith-invalid` says for `+` and `*`.

use super::Patch;
use crate::config::Context;
use crate::errors::ErrorKind;
use crate::numeric::int_to_float;
use crate::rules::{Apply, Class, Head, Rewrite, Rule, RuleKind, Section, strictness};
use crate::term::{ArithHole, ElementOp, Node, Term};

const SECTION: Section = Section::Extensions;

/// `-` or `/`.
#[derive(Clone, Copy, PartialEq)]
enum Op {
    Sub,
    Div,
}

/// The sorts of the two operands a rule takes.
#[derive(Clone, Copy, PartialEq)]
enum Sorts {
    Floats,
    Ints,
    IntFloat,
    FloatInt,
}

/// The operands of the top of `<k>` when it is `op`.
fn operands(node: &Node, op: Op) -> Option<(&Term, &Term)> {
    match (node, op) {
        (Node::Sub(a, b), Op::Sub) | (Node::Div(a, b), Op::Div) => Some((a, b)),
        _ => None,
    }
}

/// `V1 op V2 => …` for the operands of the sorts `sorts`; the Int rules' failures (overflow,
/// division by zero) are errors, `ext-div-int-zero`'s case left to that rule.
fn compute(r: &mut Rewrite<'_>, op: Op, sorts: Sorts) -> bool {
    let Some(top) = r.top() else { return false };
    let Some((a, b)) = operands(top.node(), op) else { return false };
    let span = top.span();
    let float = |x: f64, y: f64| match op {
        Op::Sub => x - y,
        Op::Div => x / y,
    };
    let result = match sorts {
        Sorts::Floats => match (a.as_float(), b.as_float()) {
            (Some(x), Some(y)) => Term::float(float(x, y), span),
            _ => return false,
        },
        Sorts::IntFloat => match (a.as_int(), b.as_float()) {
            (Some(i), Some(y)) => Term::float(float(int_to_float(i), y), span),
            _ => return false,
        },
        Sorts::FloatInt => match (a.as_float(), b.as_int()) {
            (Some(x), Some(i)) => Term::float(float(x, int_to_float(i)), span),
            _ => return false,
        },
        Sorts::Ints => {
            let (Some(i1), Some(i2)) = (a.as_int(), b.as_int()) else { return false };
            if op == Op::Div && i2 == 0 {
                return false;
            }
            // `checked_div` truncates toward zero, as K's `/Int` does.
            let exact = if op == Op::Sub { i1.checked_sub(i2) } else { i1.checked_div(i2) };
            match exact {
                Some(n) => Term::int(n, span),
                None => Term::error(
                    ErrorKind::IntegerOverflow,
                    format!("{i1} and {i2}: the result does not fit in 64 bits"),
                    span,
                ),
            }
        }
    };
    r.cfg.replace_top_term(result);
    true
}

macro_rules! compute_rule {
    ($name:ident, $id:literal, $k:literal, $head:expr, $op:expr, $sorts:expr) => {
        #[doc = concat!("`", $k, "`")]
        pub static $name: Rule = Rule::top(SECTION, $id, "Ext-7", "Ext-7", $k, &[$head], |r| compute(r, $op, $sorts));
    };
}

compute_rule!(
    SUB_FLOAT,
    "ext-sub-float",
    "rule F1:Float - F2:Float => F1 -Float F2",
    Head::Sub,
    Op::Sub,
    Sorts::Floats
);
compute_rule!(SUB_INT, "ext-sub-int", "rule I1:Int - I2:Int => I1 -Int I2", Head::Sub, Op::Sub, Sorts::Ints);
compute_rule!(
    SUB_INT_FLOAT,
    "ext-sub-int-float",
    "rule I:Int - F:Float => Int2Float(I, 53, 11) -Float F",
    Head::Sub,
    Op::Sub,
    Sorts::IntFloat
);
compute_rule!(
    SUB_FLOAT_INT,
    "ext-sub-float-int",
    "rule F:Float - I:Int => F -Float Int2Float(I, 53, 11)",
    Head::Sub,
    Op::Sub,
    Sorts::FloatInt
);
compute_rule!(
    DIV_FLOAT,
    "ext-div-float",
    "rule F1:Float / F2:Float => F1 /Float F2",
    Head::Div,
    Op::Div,
    Sorts::Floats
);
compute_rule!(
    DIV_INT,
    "ext-div-int",
    "rule I1:Int / I2:Int => I1 /Int I2 requires I2 =/=Int 0",
    Head::Div,
    Op::Div,
    Sorts::Ints
);
compute_rule!(
    DIV_INT_FLOAT,
    "ext-div-int-float",
    "rule I:Int / F:Float => Int2Float(I, 53, 11) /Float F",
    Head::Div,
    Op::Div,
    Sorts::IntFloat
);
compute_rule!(
    DIV_FLOAT_INT,
    "ext-div-float-int",
    "rule F:Float / I:Int => F /Float Int2Float(I, 53, 11)",
    Head::Div,
    Op::Div,
    Sorts::FloatInt
);

/// `rule <k> _:Int / 0 => knnError("division by zero") ...</k>`: K's `/Int` is undefined for a
/// zero divisor; the state would be stuck.
pub static DIV_INT_ZERO: Rule = Rule::top(
    SECTION,
    "ext-div-int-zero",
    "Ext-7",
    "Ext-7",
    "rule <k> _:Int / 0 => knnError(\"division by zero\") ...</k>",
    &[Head::Div],
    div_int_zero,
);

fn div_int_zero(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Some((a, b)) = operands(top.node(), Op::Div) else { return false };
    let (Some(i), Some(0)) = (a.as_int(), b.as_int()) else { return false };
    let error = Term::error(ErrorKind::DivisionByZero, format!("{i} / 0: an Int divided by the Int 0"), top.span());
    r.cfg.replace_top_term(error);
    true
}

/// `rule <k> V1:Val - V2:Val => knnError("invalid operands") ...</k> [owise]` (likewise `/`):
/// both operands are values, but no rule computes with them (a tensor header).
pub static SUB_DIV_INVALID: Rule = Rule::top(
    SECTION,
    "ext-sub-div-invalid",
    "Ext-7",
    "Ext-7",
    "rule <k> V1:Val - V2:Val => knnError(\"invalid operands\") ...</k> [owise] (likewise /)",
    &[Head::Sub, Head::Div],
    sub_div_invalid,
)
.with_class(Class::Owise);

fn sub_div_invalid(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let (a, b, op) = match top.node() {
        Node::Sub(a, b) => (a, b, "-"),
        Node::Div(a, b) => (a, b, "/"),
        _ => return false,
    };
    if !(a.is_value() && b.is_value()) {
        return false;
    }
    let detail = format!("`{op}` cannot compute with {} and {}", a.operand_words(), b.operand_words());
    r.cfg.replace_top_term(Term::error(ErrorKind::InvalidOperands, detail, top.span()));
    true
}

/// The four rules K generates from `seqstrict` on one operator: heat the left operand when it
/// is not a value, the right one when the left one is a value, and cool each back.
macro_rules! seqstrict_rules {
    (
        $head:expr, $node:path, $op:expr;
        $heat1:ident, $id1:literal, $k1:literal;
        $heat2:ident, $id2:literal, $k2:literal;
        $cool1:ident, $id3:literal, $k3:literal;
        $cool2:ident, $id4:literal, $k4:literal
    ) => {
        #[doc = concat!("`", $k1, "`")]
        pub static $heat1: Rule = strict_rule($id1, $k1, &[$head], |r| {
            strictness::heat(r, |n| match n {
                $node(a, b) => Some((a.clone(), hole($op, true, b))),
                _ => None,
            })
        })
        .with_kind(RuleKind::Heat);

        #[doc = concat!("`", $k2, "`")]
        pub static $heat2: Rule = strict_rule($id2, $k2, &[$head], |r| {
            strictness::heat(r, |n| match n {
                $node(a, b) if a.is_value() => Some((b.clone(), hole($op, false, a))),
                _ => None,
            })
        })
        .with_kind(RuleKind::Heat);

        #[doc = concat!("`", $k3, "`")]
        pub static $cool1: Rule = strict_rule($id3, $k3, Head::VALUES, |r| cool(r, $op, true))
            .with_kind(RuleKind::Cool)
            .with_class(Class::Cool);

        #[doc = concat!("`", $k4, "`")]
        pub static $cool2: Rule = strict_rule($id4, $k4, Head::VALUES, |r| cool(r, $op, false))
            .with_kind(RuleKind::Cool)
            .with_class(Class::Cool);
    };
}

/// A strictness rule of Ext-7.
const fn strict_rule(id: &'static str, k: &'static str, heads: &'static [Head], apply: Apply) -> Rule {
    Rule::top(Section::Strictness, id, "Ext-7", "Ext-7", k, heads, apply)
}

/// `HOLE ~> C[□] => C[HOLE]` for the context of `op` with its hole on the left or the right.
fn cool(r: &mut Rewrite<'_>, op: ElementOp, hole_left: bool) -> bool {
    let accepts: fn(&Context) -> bool = match (op, hole_left) {
        (ElementOp::Div, true) => |c| matches!(c, Context::SubDiv(h) if h.op == ElementOp::Div && h.hole_left),
        (ElementOp::Div, false) => |c| matches!(c, Context::SubDiv(h) if h.op == ElementOp::Div && !h.hole_left),
        (_, true) => |c| matches!(c, Context::SubDiv(h) if h.op == ElementOp::Sub && h.hole_left),
        (_, false) => |c| matches!(c, Context::SubDiv(h) if h.op == ElementOp::Sub && !h.hole_left),
    };
    strictness::cool(r, accepts)
}

/// The frozen context of `op` with its hole on the left or the right of `other`.
fn hole(op: ElementOp, hole_left: bool, other: &Term) -> Context {
    Context::SubDiv(ArithHole { op, hole_left, other: other.clone() })
}

seqstrict_rules!(
    Head::Sub, Node::Sub, ElementOp::Sub;
    HEAT_SUB_1, "ext-heat-sub-1",
    "rule <k> HOLE - K1 => HOLE ~> □ - K1 ...</k> requires notBool isKResult(HOLE) [heat]";
    HEAT_SUB_2, "ext-heat-sub-2",
    "rule <k> K0:Val - HOLE => HOLE ~> K0 - □ ...</k> requires notBool isKResult(HOLE) [heat]";
    COOL_SUB_1, "ext-cool-sub-1", "rule <k> HOLE ~> □ - K1 => HOLE - K1 ...</k> requires isKResult(HOLE) [cool]";
    COOL_SUB_2, "ext-cool-sub-2", "rule <k> HOLE ~> K0 - □ => K0 - HOLE ...</k> requires isKResult(HOLE) [cool]"
);

seqstrict_rules!(
    Head::Div, Node::Div, ElementOp::Div;
    HEAT_DIV_1, "ext-heat-div-1",
    "rule <k> HOLE / K1 => HOLE ~> □ / K1 ...</k> requires notBool isKResult(HOLE) [heat]";
    HEAT_DIV_2, "ext-heat-div-2",
    "rule <k> K0:Val / HOLE => HOLE ~> K0 / □ ...</k> requires notBool isKResult(HOLE) [heat]";
    COOL_DIV_1, "ext-cool-div-1", "rule <k> HOLE ~> □ / K1 => HOLE / K1 ...</k> requires isKResult(HOLE) [cool]";
    COOL_DIV_2, "ext-cool-div-2", "rule <k> HOLE ~> K0 / □ => K0 / HOLE ...</k> requires isKResult(HOLE) [cool]"
);

pub static PATCH: Patch = Patch {
    name: "Ext-7",
    title: "scalar subtraction and division: E - E, E / E",
    reason: "K-NN had `+` and `*` only: `x - m` was written `x + -1.0 * m`; BrainScript and ONNX have `-` and `/`",
    removes: &[],
    adds: &[
        &HEAT_SUB_1,
        &HEAT_SUB_2,
        &COOL_SUB_1,
        &COOL_SUB_2,
        &HEAT_DIV_1,
        &HEAT_DIV_2,
        &COOL_DIV_1,
        &COOL_DIV_2,
        &SUB_FLOAT,
        &SUB_INT,
        &SUB_INT_FLOAT,
        &SUB_FLOAT_INT,
        &DIV_FLOAT,
        &DIV_INT,
        &DIV_INT_ZERO,
        &DIV_INT_FLOAT,
        &DIV_FLOAT_INT,
        &SUB_DIV_INVALID,
    ],
};
