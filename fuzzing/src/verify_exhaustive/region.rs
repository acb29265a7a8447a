//! Regions a few ulps to a few hundred ulps wide around the anchor point, with ends written
//! the ways that matter: a binary64 value's exact expansion, its shortest round-trip text
//! (a different real), the midpoint between two neighbours (a rounding tie), and balls whose
//! computed end `c ± eps` is exactly a binary64 value. Also the VNN-LIB constraints on the
//! outputs, with thresholds at the anchor's outputs.

use super::case::{Comparison, Expr, Op, Region};
use super::choices::Choices;
use super::exact::{Rational, count, decimal, decimal_text, exact_text, key, of_f64, of_key};
use super::network::Net;

/// Regions hold at most this many points (the oracle runs the reference on each).
pub const MOST_POINTS: u64 = 4096;

/// Ulps on each side of the anchor, by the number of inputs (so that the product stays small).
fn ulps(c: &mut Choices, inputs: usize) -> i64 {
    match inputs {
        1 => c.pick(&[0, 1, 2, 3, 8, 30, 100, 400, 1500]),
        2 => c.pick(&[0, 1, 2, 4, 10, 25]),
        _ => c.pick(&[0, 1, 2, 3, 6]),
    }
}

/// `x` moved `steps` binary64 values up (down when negative), kept finite.
fn step(x: f64, steps: i64) -> f64 {
    of_key((key(x) + steps).clamp(key(f64::MIN), key(f64::MAX)))
}

/// The distance from `x` to the next binary64 value away from zero (finite).
fn ulp(x: f64) -> f64 {
    let a = x.abs();
    if a == f64::MAX { a - a.next_down() } else { a.next_up() - a }
}

/// A text for the end `v` of a range (`outward`: +1 for an upper end, −1 for a lower), and
/// whether it may be moved inward by half an ulp (the range has room).
fn end_text(c: &mut Choices, v: f64, outward: i64, may_shrink: bool) -> String {
    let midpoint = |n: f64| decimal_text(&((of_f64(v) + of_f64(n)) / Rational::from_integer(2.into())));
    match c.below(6) {
        0 | 1 => exact_text(v),
        2 | 3 => format!("{v:?}"),
        4 if step(v, outward) != v => midpoint(step(v, outward)).expect("dyadic"),
        5 if may_shrink => midpoint(step(v, -outward)).expect("dyadic"),
        _ => exact_text(v),
    }
}

/// A box around `at`: per element, a few ulps below and above, ends written in any of the
/// ways above.
fn boxed(c: &mut Choices, at: &[f64]) -> Region {
    let ranges = at
        .iter()
        .map(|&x| {
            let (below, above) = (ulps(c, at.len()), ulps(c, at.len()));
            let (lo, hi) = (step(x, -below), step(x, above));
            let room = lo != hi;
            let (lo_text, hi_text) = (end_text(c, lo, -1, room), end_text(c, hi, 1, room));
            // A shortest text moves an end by up to half an ulp either way: of a range of one
            // point, it may empty the range, which `knn verify` refuses.
            let empty = decimal(&lo_text) > decimal(&hi_text);
            if empty { (exact_text(lo), exact_text(hi)) } else { (lo_text, hi_text) }
        })
        .collect();
    Region::Box { ranges }
}

/// A ball around `at` whose radius spans a few ulps of one element's anchor; the other
/// elements are moved into that element's binade so that the same radius spans a few ulps of
/// each. The centre is written so that one end is exactly a binary64 value (`c ± eps`
/// computed), or as the anchor's exact or shortest text.
fn ball(c: &mut Choices, at: &[f64]) -> Region {
    let j = c.below(at.len());
    let scale = ulp(at[j]);
    let width = ulps(c, at.len()).max(1) as f64;
    let eps_text = format!("{:.1e}", width * scale);
    let eps = decimal(&eps_text).expect("a decimal");
    let centre = at
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let similar = i == j || (ulp(v) <= 4.0 * scale && scale <= 4.0 * ulp(v));
            let moved = at[j] * c.pick(&[1.0, -1.0, 1.25, -1.5]);
            let v = if similar || !moved.is_finite() { v } else { moved };
            match c.below(4) {
                0 => decimal_text(&(of_f64(v) - &eps)).expect("dyadic minus decimal"),
                1 => decimal_text(&(of_f64(v) + &eps)).expect("dyadic plus decimal"),
                2 => exact_text(v),
                _ => format!("{v:?}"),
            }
        })
        .collect::<Vec<_>>();
    let clip = c.chance(1, 3).then(|| {
        // Cut one side of one element's range, inside it; the other side far away.
        let d = c.below(at.len());
        let cut = step(at[d], c.between(-(width as i64), width as i64));
        // Beyond every binary64 value: a ball at ±MAX is not cut on the far side.
        let far = "1e309";
        if c.chance(1, 2) {
            (format!("-{far}"), end_text(c, cut, 1, true))
        } else {
            (end_text(c, cut, -1, true), far.to_string())
        }
    });
    Region::Around { centre, eps: eps_text, clip }
}

/// A region around `at` with at most [`MOST_POINTS`] points: a box, or for class claims
/// sometimes a ball (VNN-LIB properties bound each input in a box).
pub fn region(c: &mut Choices, at: &[f64], box_only: bool) -> Region {
    for _ in 0..8 {
        let region = if box_only || c.chance(1, 2) { boxed(c, at) } else { ball(c, at) };
        let counts: Vec<u64> = region.ends().iter().map(|(lo, hi)| count(lo, hi)).collect();
        // Each element within the limit too: an empty one would hide a huge one.
        let points = counts.iter().fold(1u64, |n, &k| n.saturating_mul(k));
        if points <= MOST_POINTS && counts.iter().all(|&k| k <= MOST_POINTS) {
            return region;
        }
    }
    let ranges = at.iter().map(|&x| (exact_text(x), exact_text(x))).collect();
    Region::Box { ranges }
}

/// A threshold near `v`: at it exactly, at its shortest text, half an ulp off, or a little
/// off (a region then mostly on one side); a short decimal when `v` is not finite.
fn threshold(c: &mut Choices, v: f64) -> String {
    if !v.is_finite() {
        return format!("{:?}", c.between(-300, 300) as f64 / 100.0);
    }
    match c.below(5) {
        0 => exact_text(v),
        1 => format!("{v:?}"),
        2 => decimal_text(&((of_f64(v) + of_f64(step(v, 1))) / Rational::from_integer(2.into()))).expect("dyadic"),
        3 => finite_text(v + v.abs() * 1e-3 + 1e-3, v),
        _ => finite_text(v - v.abs() * 1e-3 - 1e-3, v),
    }
}

/// The shortest text of `x`, or of `otherwise` when `x` overflowed.
fn finite_text(x: f64, otherwise: f64) -> String {
    format!("{:?}", if x.is_finite() { x } else { otherwise })
}

/// One constraint on the outputs, around their values `y` at the anchor.
fn comparison(c: &mut Choices, y: &[f64]) -> Comparison {
    let op = c.pick(&[Op::Le, Op::Lt, Op::Ge, Op::Gt]);
    let i = c.below(y.len());
    let j = (i + 1 + c.below(y.len().max(2) - 1)) % y.len();
    let (left, right) = match c.below(3) {
        0 if i != j => (Expr::Output(i), Expr::Output(j)),
        1 if i != j => {
            let k = c.pick(&["2", "-1", "0.5", "-2.5", "0.1", "3"]);
            let value = y[i] + k.parse::<f64>().expect("a number") * y[j];
            let sum = Expr::Sum(vec![Expr::Output(i), Expr::Scaled(k.to_string(), j)]);
            (sum, Expr::Number(threshold(c, value)))
        }
        _ => (Expr::Output(i), Expr::Number(threshold(c, y[i]))),
    };
    if c.chance(1, 2) { Comparison { op, left, right } } else { Comparison { op, left: right, right: left } }
}

/// The unsafe outputs of a property: one or two conjunctions of one or two constraints.
pub fn property(c: &mut Choices, net: &Net, at: &[f64]) -> Vec<Vec<Comparison>> {
    let y = net.approximate(at).scores;
    (0..1 + c.below(2)).map(|_| (0..1 + c.below(2)).map(|_| comparison(c, &y)).collect()).collect()
}
