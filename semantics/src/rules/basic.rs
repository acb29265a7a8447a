//! "Basic operations" (k-nn.md L126–141): scalar `let` by substitution, Float arithmetic.

use super::{Head, Rewrite, Rule, Section};
use crate::term::subst::substitute;
use crate::term::{Node, Term};

const SECTION: Section = Section::Basic;

/// R01 `let-scalar-float` (L134): `rule let X:Id = E1:Float in E2:Exp => E2[E1 / X]`
pub static LET_SCALAR_FLOAT: Rule = Rule::top(
    SECTION,
    "let-scalar-float",
    "R01",
    "L134",
    "rule let X:Id = E1:Float in E2:Exp => E2[E1 / X]",
    &[Head::Let],
    |r| let_scalar(r, Term::is_float),
);

/// R02 `let-scalar-int` (L135): `rule let X:Id = E1:Int in E2:Exp => E2[E1 / X]`
pub static LET_SCALAR_INT: Rule = Rule::top(
    SECTION,
    "let-scalar-int",
    "R02",
    "L135",
    "rule let X:Id = E1:Int in E2:Exp => E2[E1 / X]",
    &[Head::Let],
    |r| let_scalar(r, Term::is_int),
);

/// `let X:Id = E1 in E2 => E2[E1 / X]` where `E1` has the sort `is_sort` checks.
fn let_scalar(r: &mut Rewrite<'_>, is_sort: fn(&Term) -> bool) -> bool {
    let Some(Node::Let { target, value: e1, body: e2 }) = r.top_node() else {
        return false;
    };
    let Some(x) = target.as_id() else {
        return false;
    };
    if !is_sort(e1) {
        return false;
    }
    let result = substitute(e2, x, e1);
    r.cfg.replace_top_term(result);
    true
}

/// R03 `mul-float` (L138): `rule I1 * I2 => I1 *Float I2` (sort inference makes I1, I2 Floats)
pub static MUL_FLOAT: Rule =
    Rule::top(SECTION, "mul-float", "R03", "L138", "rule I1 * I2 => I1 *Float I2", &[Head::Mul], |r| {
        float_op(r, |n| matches!(n, Node::Mul(..)), |a, b| a * b)
    });

/// R04 `add-float` (L139): `rule I1 + I2 => I1 +Float I2`
pub static ADD_FLOAT: Rule =
    Rule::top(SECTION, "add-float", "R04", "L139", "rule I1 + I2 => I1 +Float I2", &[Head::Add], |r| {
        float_op(r, |n| matches!(n, Node::Add(..)), |a, b| a + b)
    });

/// `I1 op I2 => I1 opFloat I2` for the binary node `is_op` recognises. IEEE binary64, round to
/// nearest, as MPFR computes `*Float` and `+Float` at precision 53.
fn float_op(r: &mut Rewrite<'_>, is_op: fn(&Node) -> bool, op: fn(f64, f64) -> f64) -> bool {
    let Some(top) = r.top() else { return false };
    let node = top.node();
    let (Node::Mul(a, b) | Node::Add(a, b)) = node else {
        return false;
    };
    if !is_op(node) {
        return false;
    }
    let (Some(i1), Some(i2)) = (a.as_float(), b.as_float()) else {
        return false;
    };
    let result = Term::float(op(i1, i2), top.span());
    r.cfg.replace_top_term(result);
    true
}

/// The rules of this section, in file order.
pub static RULES: &[&Rule] = &[&LET_SCALAR_FLOAT, &LET_SCALAR_INT, &MUL_FLOAT, &ADD_FLOAT];
