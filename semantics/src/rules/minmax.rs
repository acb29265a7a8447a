//! "Min and Max" (k-nn.md L397–419): `min`/`max` on Floats and the scalar `tanhItem` and
//! `sigmoidItem`. `expFloat` is MPFR's correctly rounded exponential; `core_math::exp` is
//! correctly rounded too, so both give the same bits.

use super::{Head, Rewrite, Rule, Section};
use crate::numeric;
use crate::term::{Act, Node, Term};

const SECTION: Section = Section::MinMax;

/// R60 `min-left` (L403-404): `rule min(A:Float, B:Float) => A when A <Float B`
pub static MIN_LEFT: Rule = Rule::top(
    SECTION,
    "min-left",
    "R60",
    "L403-404",
    "rule min(A:Float, B:Float) => A when A <Float B",
    &[Head::Min],
    |r| choose(r, Extremum::Min, |a, b| a < b, Pick::Left),
);

/// R61 `min-right` (L406-407): `rule min(A:Float, B:Float) => B when A >=Float B`
///
/// With a NaN neither `min` rule applies: the term is stuck.
pub static MIN_RIGHT: Rule = Rule::top(
    SECTION,
    "min-right",
    "R61",
    "L406-407",
    "rule min(A:Float, B:Float) => B when A >=Float B",
    &[Head::Min],
    |r| choose(r, Extremum::Min, |a, b| a >= b, Pick::Right),
);

/// R62 `max-right` (L409-410): `rule max(A:Float, B:Float) => B when A <Float B`
pub static MAX_RIGHT: Rule = Rule::top(
    SECTION,
    "max-right",
    "R62",
    "L409-410",
    "rule max(A:Float, B:Float) => B when A <Float B",
    &[Head::Max],
    |r| choose(r, Extremum::Max, |a, b| a < b, Pick::Right),
);

/// R63 `max-left` (L412-413): `rule max(A:Float, B:Float) => A when A >=Float B`
pub static MAX_LEFT: Rule = Rule::top(
    SECTION,
    "max-left",
    "R63",
    "L412-413",
    "rule max(A:Float, B:Float) => A when A >=Float B",
    &[Head::Max],
    |r| choose(r, Extremum::Max, |a, b| a >= b, Pick::Left),
);

#[derive(PartialEq)]
enum Extremum {
    Min,
    Max,
}

enum Pick {
    Left,
    Right,
}

/// `op(A:Float, B:Float) => A or B when condition(A, B)`.
fn choose(r: &mut Rewrite<'_>, extremum: Extremum, condition: fn(f64, f64) -> bool, pick: Pick) -> bool {
    let Some(top) = r.top() else { return false };
    let (a, b) = match (top.node(), &extremum) {
        (Node::Min(a, b), Extremum::Min) | (Node::Max(a, b), Extremum::Max) => (a, b),
        _ => return false,
    };
    let (Some(fa), Some(fb)) = (a.as_float(), b.as_float()) else {
        return false;
    };
    if !condition(fa, fb) {
        return false;
    }
    let chosen = match pick {
        Pick::Left => a.clone(),
        Pick::Right => b.clone(),
    };
    r.cfg.replace_top_term(chosen);
    true
}

/// R64 `tanh-item-float` (L415)
/// `rule tanhItem(X:Float) => (expFloat(2.0 *Float X) -Float 1.0) /Float (expFloat(2.0 *Float X) +Float 1.0)`
///
/// Overflows to NaN for `X > 354.891356446692` (∞/∞), §3(j).
pub static TANH_ITEM_FLOAT: Rule = Rule::top(
    SECTION,
    "tanh-item-float",
    "R64",
    "L415",
    "rule tanhItem(X:Float) => (expFloat(2.0 *Float X) -Float 1.0) /Float (expFloat(2.0 *Float X) +Float 1.0)",
    &[Head::ActItem],
    |r| item_float(r, Act::Tanh, numeric::published_tanh),
);

/// R65 `sigmoid-item-float` (L417): `rule sigmoidItem(X:Float) => (1.0 /Float (1.0 +Float expFloat(0.0 -Float X)))`
pub static SIGMOID_ITEM_FLOAT: Rule = Rule::top(
    SECTION,
    "sigmoid-item-float",
    "R65",
    "L417",
    "rule sigmoidItem(X:Float) => (1.0 /Float (1.0 +Float expFloat(0.0 -Float X)))",
    &[Head::ActItem],
    |r| item_float(r, Act::Sigmoid, numeric::sigmoid),
);

fn item_float(r: &mut Rewrite<'_>, act: Act, f: fn(f64) -> f64) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::ActItem { act: a, arg } = top.node() else {
        return false;
    };
    let Some(x) = arg.as_float().filter(|_| *a == act) else {
        return false;
    };
    let result = Term::float(f(x), top.span());
    r.cfg.replace_top_term(result);
    true
}

/// The rules of this section, in file order.
pub static RULES: &[&Rule] = &[&MIN_LEFT, &MIN_RIGHT, &MAX_RIGHT, &MAX_LEFT, &TANH_ITEM_FLOAT, &SIGMOID_ITEM_FLOAT];
