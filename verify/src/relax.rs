//! Linear relaxations of the activations: for an input known to lie in `[lo, hi]`, two lines
//! with `lower(z) ≤ f̂(z) ≤ upper(z)` for every `z` there, where `f̂` is the function *as the
//! engine computes it* and the lines are evaluated in exact arithmetic. The slopes may carry
//! rounding error (back-substitution charges it); the intercepts are rounded outward.

use knn_semantics::numeric::{revised_tanh, sigmoid};

use super::float::{Interval, mul_down, mul_up, sub_down, sub_up};
use super::network::Layer;

/// `slope·z + intercept`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Line {
    pub slope: f64,
    pub intercept: f64,
}

impl Line {
    const ZERO: Line = Line { slope: 0.0, intercept: 0.0 };
    const IDENTITY: Line = Line { slope: 1.0, intercept: 0.0 };
}

/// Pieces of the input range for the monotone-function band below.
const PIECES: usize = 32;

/// Which line bounds an unstable relu from below: every `α·z` with `α ∈ [0, 1]` does, and
/// which is best depends on the bound being computed, so back-substitution tries both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LowerSlope {
    /// `α ∈ {0, 1}`, the end that loses less area (CROWN's default).
    Adaptive,
    /// `α = hi / (hi − lo)`, parallel to the upper line (as Neurify and DeepPoly's variant).
    Chord,
}

/// The lower and upper lines of `layer`'s activation on `[z.lo, z.hi]`.
pub fn relaxation(layer: &Layer, z: Interval, slope: LowerSlope) -> (Line, Line) {
    match layer {
        Layer::Relu => relu(z, slope),
        Layer::Tanh => monotone_band(revised_tanh, z),
        Layer::Sigmoid => monotone_band(sigmoid, z),
        Layer::Dense { .. } | Layer::Bias(_) => unreachable!("relaxations are of activations"),
    }
}

/// relu: exact where the sign is known; else `α·z` below (as `slope` says) and the chord
/// above, its intercept rounded up so that the line is above relu at both ends, hence
/// everywhere on the range (relu is convex).
fn relu(z: Interval, lower_slope: LowerSlope) -> (Line, Line) {
    if z.hi <= 0.0 {
        return (Line::ZERO, Line::ZERO);
    }
    if z.lo >= 0.0 {
        return (Line::IDENTITY, Line::IDENTITY);
    }
    let slope = z.hi / (z.hi - z.lo);
    let lower = match lower_slope {
        LowerSlope::Adaptive if z.hi >= -z.lo => Line::IDENTITY,
        LowerSlope::Adaptive => Line::ZERO,
        // Any slope in [0, 1] is below relu: clamp the rounded quotient into it.
        LowerSlope::Chord => Line { slope: slope.clamp(0.0, 1.0), intercept: 0.0 },
    };
    // Above (lo, 0): slope·lo + c ≥ 0. Above (hi, hi): slope·hi + c ≥ hi.
    let intercept = mul_up(-slope, z.lo).max(sub_up(z.hi, mul_down(slope, z.hi)));
    (lower, Line { slope, intercept })
}

/// A band of two parallel lines around a non-decreasing function, from its values at the
/// ends of `PIECES` pieces of the range only: on a piece `[t, t']`, `f̂(z) − s·z` lies in
/// `[f̂(t) − s·t', f̂(t') − s·t]` for `s ≥ 0`. Sound for any non-decreasing `f̂`; the engine's
/// tanh and sigmoid are (docs/verification.md, "Monotone activations").
fn monotone_band(f: fn(f64) -> f64, z: Interval) -> (Line, Line) {
    let (flo, fhi) = (f(z.lo), f(z.hi));
    if z.lo == z.hi || !(z.hi - z.lo).is_finite() {
        return (Line { slope: 0.0, intercept: flo }, Line { slope: 0.0, intercept: fhi });
    }
    let slope = ((fhi - flo) / (z.hi - z.lo)).max(0.0);
    let width = z.hi - z.lo;
    let point = |k: usize| if k == PIECES { z.hi } else { (z.lo + width * (k as f64 / PIECES as f64)).min(z.hi) };
    let (mut low, mut high) = (f64::INFINITY, f64::NEG_INFINITY);
    let (mut t, mut ft) = (z.lo, flo);
    for k in 1..=PIECES {
        let t_next = point(k);
        let f_next = f(t_next);
        low = low.min(sub_down(ft, mul_up(slope, t_next)));
        high = high.max(sub_up(f_next, mul_down(slope, t)));
        (t, ft) = (t_next, f_next);
    }
    (Line { slope, intercept: low }, Line { slope, intercept: high })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks the lines against the function on a dense grid of binary64 points, with the
    /// lines evaluated in a way that can only favour the lines being wrong: the line value is
    /// rounded toward the function.
    fn check_encloses(layer: &Layer, f: fn(f64) -> f64, z: Interval, slope: LowerSlope) {
        let (lower, upper) = relaxation(layer, z, slope);
        for k in 0..=1000 {
            let x = if k == 1000 { z.hi } else { z.lo + (z.hi - z.lo) * (k as f64 / 1000.0) };
            let fx = f(x);
            let below = mul_up(lower.slope, x) + lower.intercept;
            let above = mul_down(upper.slope, x) + upper.intercept;
            assert!(below.next_down() <= fx, "{layer:?} on {z:?}: lower line {below} above f({x}) = {fx}");
            assert!(above.next_up() >= fx, "{layer:?} on {z:?}: upper line {above} below f({x}) = {fx}");
        }
    }

    #[test]
    fn relu_lines_enclose_relu() {
        let relu = |x: f64| x.max(0.0);
        for z in
            [Interval::new(-1.0, 3.0), Interval::new(-3.0, 1.0), Interval::new(-0.1, 1e-9), Interval::new(-1e10, 1e10)]
        {
            check_encloses(&Layer::Relu, relu, z, LowerSlope::Adaptive);
            check_encloses(&Layer::Relu, relu, z, LowerSlope::Chord);
        }
        assert_eq!(relaxation(&Layer::Relu, Interval::new(-2.0, -1.0), LowerSlope::Chord), (Line::ZERO, Line::ZERO));
        assert_eq!(
            relaxation(&Layer::Relu, Interval::new(0.0, 5.0), LowerSlope::Adaptive),
            (Line::IDENTITY, Line::IDENTITY)
        );
    }

    #[test]
    fn the_adaptive_slope_keeps_the_end_that_loses_less_area() {
        // On [−1, 3] the line z loses less than 0 (the positive side is longer), on [−3, 1]
        // the line 0 does; at [−2, 2] either, and CROWN takes z.
        let lower = |lo: f64, hi: f64| relaxation(&Layer::Relu, Interval::new(lo, hi), LowerSlope::Adaptive).0;
        assert_eq!(lower(-1.0, 3.0), Line::IDENTITY);
        assert_eq!(lower(-3.0, 1.0), Line::ZERO);
        assert_eq!(lower(-2.0, 2.0), Line::IDENTITY);
    }

    #[test]
    fn the_relu_chord_passes_through_both_ends() {
        let (lower, upper) = relaxation(&Layer::Relu, Interval::new(-1.0, 3.0), LowerSlope::Chord);
        assert_eq!(lower.slope, 0.75);
        assert_eq!(upper.slope, 0.75);
        assert_eq!(upper.intercept, 0.75);
    }

    #[test]
    fn tanh_and_sigmoid_bands_enclose_the_engine_functions() {
        for z in
            [Interval::new(-3.0, 2.0), Interval::new(0.1, 0.2), Interval::new(-40.0, 40.0), Interval::new(-1e-3, 5.0)]
        {
            check_encloses(&Layer::Tanh, revised_tanh, z, LowerSlope::Adaptive);
            check_encloses(&Layer::Sigmoid, sigmoid, z, LowerSlope::Adaptive);
        }
    }

    #[test]
    fn the_band_is_tighter_than_the_interval_on_a_narrow_range() {
        let z = Interval::new(0.1, 0.2);
        let (lower, upper) = relaxation(&Layer::Sigmoid, z, LowerSlope::Adaptive);
        let width_band = upper.intercept - lower.intercept;
        // Each of the 32 pieces loses at most its rise and the chord's rise across it: about
        // 2·Δf/32 in all for a function this close to its chord.
        assert!(lower.slope > 0.24 && lower.slope < 0.25, "the chord's slope: {}", lower.slope);
        assert!(width_band < 3.0 * (sigmoid(0.2) - sigmoid(0.1)) / 32.0, "band width {width_band}");
    }
}
