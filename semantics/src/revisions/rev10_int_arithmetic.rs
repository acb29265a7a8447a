//! Rev-10: Int and mixed arithmetic. The published `+` and `*` rules take two Floats only, so
//! `1 + 2`, `1 + 2.0` and any use of an `ArgMax` result in arithmetic are stuck (§3(f)).
//! `Int2Float(I, 53, 11)` rounds to nearest binary64, as Rust's `as f64` does.
//!
//! Ours: K's Ints are unbounded and knn's are 64-bit, so an overflowing `+Int`/`*Int` is the
//! error `integer-overflow`; and an operator applied to values no rule accepts (a tensor
//! header, NaN in `max`/`min`) is the error `invalid-operands` instead of a stuck state.

use super::Patch;
use crate::errors::ErrorKind;
use crate::rules::{Class, Head, Rewrite, Rule, Section};
use crate::term::{Node, Term};

const SECTION: Section = Section::Basic;

#[derive(Clone, Copy, PartialEq)]
enum Op {
    Add,
    Mul,
}

/// `I1:Int op I2:Int => I1 opInt I2`.
fn int_op(r: &mut Rewrite<'_>, op: Op) -> bool {
    let Some(top) = r.top() else { return false };
    let (a, b, this) = match top.node() {
        Node::Add(a, b) => (a, b, Op::Add),
        Node::Mul(a, b) => (a, b, Op::Mul),
        _ => return false,
    };
    let (Some(i1), Some(i2)) = (a.as_int(), b.as_int()) else { return false };
    if this != op {
        return false;
    }
    let result = match op {
        Op::Add => i1.checked_add(i2),
        Op::Mul => i1.checked_mul(i2),
    };
    let span = top.span();
    let term = match result {
        Some(n) => Term::int(n, span),
        None => {
            Term::error(ErrorKind::IntegerOverflow, format!("{i1} and {i2}: the result does not fit in 64 bits"), span)
        }
    };
    r.cfg.replace_top_term(term);
    true
}

/// `I:Int op F:Float` or `F:Float op I:Int` (`int_first` says which) `=> Int2Float(I, 53, 11) opFloat F`.
fn mixed_op(r: &mut Rewrite<'_>, op: Op, int_first: bool) -> bool {
    let Some(top) = r.top() else { return false };
    let (a, b, this) = match top.node() {
        Node::Add(a, b) => (a, b, Op::Add),
        Node::Mul(a, b) => (a, b, Op::Mul),
        _ => return false,
    };
    let (int, float) = if int_first { (a, b) } else { (b, a) };
    let (Some(i), Some(f)) = (int.as_int(), float.as_float()) else { return false };
    if this != op {
        return false;
    }
    let i = crate::numeric::int_to_float(i);
    // Operands in their order: IEEE addition and multiplication are commutative anyway.
    let (x, y) = if int_first { (i, f) } else { (f, i) };
    let result = match op {
        Op::Add => x + y,
        Op::Mul => x * y,
    };
    r.cfg.replace_top_term(Term::float(result, top.span()));
    true
}

/// `rule I1:Int + I2:Int => I1 +Int I2`
pub static ADD_INT: Rule = Rule::top(
    SECTION,
    "rev-add-int",
    "Rev-10",
    "§4 Rev-10",
    "rule I1:Int + I2:Int => I1 +Int I2",
    &[Head::Add],
    |r| int_op(r, Op::Add),
);

/// `rule I1:Int * I2:Int => I1 *Int I2`
pub static MUL_INT: Rule = Rule::top(
    SECTION,
    "rev-mul-int",
    "Rev-10",
    "§4 Rev-10",
    "rule I1:Int * I2:Int => I1 *Int I2",
    &[Head::Mul],
    |r| int_op(r, Op::Mul),
);

/// `rule I:Int + F:Float => Int2Float(I, 53, 11) +Float F`
pub static ADD_INT_FLOAT: Rule = Rule::top(
    SECTION,
    "rev-add-int-float",
    "Rev-10",
    "§4 Rev-10",
    "rule I:Int + F:Float => Int2Float(I, 53, 11) +Float F",
    &[Head::Add],
    |r| mixed_op(r, Op::Add, true),
);

/// `rule F:Float + I:Int => F +Float Int2Float(I, 53, 11)`
pub static ADD_FLOAT_INT: Rule = Rule::top(
    SECTION,
    "rev-add-float-int",
    "Rev-10",
    "§4 Rev-10",
    "rule F:Float + I:Int => F +Float Int2Float(I, 53, 11)",
    &[Head::Add],
    |r| mixed_op(r, Op::Add, false),
);

/// `rule I:Int * F:Float => Int2Float(I, 53, 11) *Float F`
pub static MUL_INT_FLOAT: Rule = Rule::top(
    SECTION,
    "rev-mul-int-float",
    "Rev-10",
    "§4 Rev-10",
    "rule I:Int * F:Float => Int2Float(I, 53, 11) *Float F",
    &[Head::Mul],
    |r| mixed_op(r, Op::Mul, true),
);

/// `rule F:Float * I:Int => F *Float Int2Float(I, 53, 11)`
pub static MUL_FLOAT_INT: Rule = Rule::top(
    SECTION,
    "rev-mul-float-int",
    "Rev-10",
    "§4 Rev-10",
    "rule F:Float * I:Int => F *Float Int2Float(I, 53, 11)",
    &[Head::Mul],
    |r| mixed_op(r, Op::Mul, false),
);

/// Ours: `rule <k> V1:Val op V2:Val => knnError("invalid operands") ...</k> [owise]` for `op` in
/// `+`, `*`, `max`, `min`: both operands are values, but no rule computes with them.
pub static ARITH_INVALID: Rule = Rule::top(
    SECTION,
    "rev-arith-invalid",
    "Rev-10",
    "§4 Rev-10 (ours)",
    "rule <k> V1:Val + V2:Val => knnError(\"invalid operands\") ...</k> [owise] (likewise *, max, min)",
    &[Head::Add, Head::Mul, Head::Max, Head::Min],
    arith_invalid,
)
.with_class(Class::Owise);

fn arith_invalid(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let (a, b, op) = match top.node() {
        Node::Add(a, b) => (a, b, "+"),
        Node::Mul(a, b) => (a, b, "*"),
        Node::Max(a, b) => (a, b, "max"),
        Node::Min(a, b) => (a, b, "min"),
        _ => return false,
    };
    if !(a.is_value() && b.is_value()) {
        return false;
    }
    let detail = format!("`{op}` cannot compute with {} and {}", a.operand_words(), b.operand_words());
    let error = Term::error(ErrorKind::InvalidOperands, detail, top.span());
    r.cfg.replace_top_term(error);
    true
}

pub static PATCH: Patch = Patch {
    name: "Rev-10",
    title: "Int and mixed arithmetic",
    reason: "`+` and `*` take two Floats only: `1 + 2` and arithmetic on an ArgMax result are stuck",
    removes: &[],
    adds: &[&ADD_INT, &MUL_INT, &ADD_INT_FLOAT, &ADD_FLOAT_INT, &MUL_INT_FLOAT, &MUL_FLOAT_INT, &ARITH_INVALID],
};
