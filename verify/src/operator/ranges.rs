//! What the layers bounded by their output's range alone share: the products and quotients of
//! two computed tensors (`pairwise.rs`, `product.rs`) and a softmax that is not right before
//! its `ArgMax` (`softmax.rs`). None of them is monotone or linear in its input, so each is
//! bounded by interval arithmetic through the engine's own operations, one at a time, in the
//! engine's order: every IEEE operation rounded to nearest is monotone in each argument on the
//! region where it is (non-decreasing or non-increasing), so the values it takes over ranges of
//! its arguments lie between its values at the ranges' ends (docs/verification.md, "Products,
//! quotients and softmax of computed values"). Where a NaN may arise inside (`0·∞`, `0/0`,
//! `∞/∞`, `∞ − ∞`), nothing is bounded.
//!
//! Back-substitution stops at such a layer: a row's coefficients over its output are paid at
//! the end of each output's range that makes the term smallest (a rigorous lower bound of the
//! row's sum over the ranges, [`crate::float::min_dot`]), and nothing is carried to the input.

use super::Pass;
use crate::float::{Interval, min_dot};

/// Whether an element in `x` may be `±∞`.
fn may_be_infinite(x: Interval) -> bool {
    x.lo == f64::NEG_INFINITY || x.hi == f64::INFINITY
}

/// Whether an element in `x` may be `±0`.
fn may_be_zero(x: Interval) -> bool {
    x.lo <= 0.0 && 0.0 <= x.hi
}

/// The least and greatest of `f` at the four corners of `a × b` (none NaN).
fn corners(a: Interval, b: Interval, f: impl Fn(f64, f64) -> f64) -> Interval {
    let values = [f(a.lo, b.lo), f(a.lo, b.hi), f(a.hi, b.lo), f(a.hi, b.hi)];
    Interval::new(
        values.into_iter().fold(f64::INFINITY, f64::min),
        values.into_iter().fold(f64::NEG_INFINITY, f64::max),
    )
}

/// The values `fl(a·b)` takes for `a` in `a` and `b` in `b`, as the engine multiplies (rounded
/// to nearest), or `None` when one may be NaN (`0·∞`). The exact product of a box is bilinear:
/// its least and greatest values are at corners, and rounding to nearest is non-decreasing, so
/// `fl` of them are the least and greatest rounded products.
pub fn engine_product(a: Interval, b: Interval) -> Option<Interval> {
    if (may_be_zero(a) && may_be_infinite(b)) || (may_be_infinite(a) && may_be_zero(b)) {
        return None;
    }
    Some(corners(a, b, |x, y| x * y))
}

/// The values `fl(a/b)` takes for `a` in `a` and `b` in `b`, or `None` when one may be NaN
/// (`0/0`, `∞/∞`). A divisor that may be `±0` makes `±∞` of either sign (`±0` are not told
/// apart by ranges): the whole line. Otherwise `b` keeps one sign, `a/b` is monotone in each
/// argument, and the corners rounded bound it as for the product.
pub fn engine_quotient(a: Interval, b: Interval) -> Option<Interval> {
    if (may_be_zero(a) && may_be_zero(b)) || (may_be_infinite(a) && may_be_infinite(b)) {
        return None;
    }
    if may_be_zero(b) {
        return Some(Interval::new(f64::NEG_INFINITY, f64::INFINITY));
    }
    Some(corners(a, b, |x, y| x / y))
}

/// The values `fl(a − b)` takes, or `None` when one may be NaN (`∞ − ∞`): non-decreasing in
/// `a`, non-increasing in `b`.
pub fn engine_difference(a: Interval, b: Interval) -> Option<Interval> {
    let nan =
        (a.hi == f64::INFINITY && b.hi == f64::INFINITY) || (a.lo == f64::NEG_INFINITY && b.lo == f64::NEG_INFINITY);
    (!nan).then(|| Interval::new(a.lo - b.hi, a.hi - b.lo))
}

/// What back-substitution through a layer bounded by ranges needs on one box: its output's
/// ranges there.
pub struct Ranges(pub Vec<Interval>);

impl Ranges {
    /// The ranges of a layer's `len` outputs, or every output anywhere when there are none (a
    /// box is only prepared where its layers have ranges, and ranges of a part of it exist
    /// where the box's do; nothing is assumed of that here).
    pub fn of(ranges: Option<Vec<Interval>>, len: usize) -> Ranges {
        Ranges(ranges.unwrap_or_else(|| vec![Interval::new(f64::NEG_INFINITY, f64::INFINITY); len]))
    }

    /// Carries every row of `pass` through the layer: each row's constant is lowered by the
    /// least its terms can be over the output's ranges, and its coefficients over the layer's
    /// input (of `input_len` elements) are all 0. A term with coefficient 0 costs nothing (its
    /// range may be infinite: `0·∞` is not a term); a row that cannot be bounded below gets
    /// `−∞`.
    pub fn substitute(&self, pass: &mut Pass, input_len: usize) {
        let m = self.0.len();
        let (mut used, mut ranges) = (Vec::with_capacity(m), Vec::with_capacity(m));
        for r in 0..pass.count {
            used.clear();
            ranges.clear();
            for (&g, &range) in pass.g[r * m..(r + 1) * m].iter().zip(&self.0) {
                if g != 0.0 {
                    used.push(g);
                    ranges.push(range);
                }
            }
            let least = min_dot(&used, &ranges);
            pass.acc[r] = if least.is_nan() { f64::NEG_INFINITY } else { crate::float::add_down(pass.acc[r], least) };
        }
        pass.g = vec![0.0; pass.count * input_len];
        pass.width = input_len;
    }
}

/// `v` with every NaN replaced by 0: what a layer bounded by ranges hands the slope optimiser,
/// which only steers.
pub fn steering(mut v: Vec<f64>) -> Vec<f64> {
    v.iter_mut().filter(|x| x.is_nan()).for_each(|x| *x = 0.0);
    v
}

#[cfg(test)]
#[path = "ranges_tests.rs"]
mod tests;
