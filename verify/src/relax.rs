//! Linear relaxations of the activations: for an input known to lie in `[lo, hi]`, two lines
//! with `lower(z) ≤ f̂(z) ≤ upper(z)` for every `z` there, where `f̂` is the function *as the
//! engine computes it* and the lines are evaluated in exact arithmetic. The slopes may carry
//! rounding error (back-substitution charges it); the intercepts are rounded outward. Each
//! activation's lines are in its module ([`crate::operator`]); the tests here check them all
//! against the engine's functions.

/// `slope·z + intercept`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Line {
    pub slope: f64,
    pub intercept: f64,
}

impl Line {
    pub const ZERO: Line = Line { slope: 0.0, intercept: 0.0 };
    pub const IDENTITY: Line = Line { slope: 1.0, intercept: 0.0 };
}

/// Which line bounds an unstable relu from below: every `α·z` with `α ∈ [0, 1]` does, and
/// which is best depends on the bound being computed, so back-substitution tries both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LowerSlope {
    /// `α ∈ {0, 1}`, the end that loses less area (CROWN's default).
    Adaptive,
    /// `α = hi / (hi − lo)`, parallel to the upper line (as Neurify and DeepPoly's variant).
    Chord,
}

#[cfg(test)]
mod tests {
    use knn_semantics::numeric::{revised_tanh, sigmoid};

    use super::*;
    use crate::float::{Interval, mul_down, mul_up};
    use crate::operator::Layer;

    fn relaxation(layer: &Layer, z: Interval, slope: LowerSlope) -> (Line, Line) {
        layer.relaxation(z, slope).expect("an activation has lines")
    }

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
            check_encloses(&Layer::relu(), relu, z, LowerSlope::Adaptive);
            check_encloses(&Layer::relu(), relu, z, LowerSlope::Chord);
        }
        assert_eq!(relaxation(&Layer::relu(), Interval::new(-2.0, -1.0), LowerSlope::Chord), (Line::ZERO, Line::ZERO));
        assert_eq!(
            relaxation(&Layer::relu(), Interval::new(0.0, 5.0), LowerSlope::Adaptive),
            (Line::IDENTITY, Line::IDENTITY)
        );
    }

    #[test]
    fn the_adaptive_slope_keeps_the_end_that_loses_less_area() {
        // On [−1, 3] the line z loses less than 0 (the positive side is longer), on [−3, 1]
        // the line 0 does; at [−2, 2] either, and CROWN takes z.
        let lower = |lo: f64, hi: f64| relaxation(&Layer::relu(), Interval::new(lo, hi), LowerSlope::Adaptive).0;
        assert_eq!(lower(-1.0, 3.0), Line::IDENTITY);
        assert_eq!(lower(-3.0, 1.0), Line::ZERO);
        assert_eq!(lower(-2.0, 2.0), Line::IDENTITY);
    }

    #[test]
    fn the_relu_chord_passes_through_both_ends() {
        let (lower, upper) = relaxation(&Layer::relu(), Interval::new(-1.0, 3.0), LowerSlope::Chord);
        assert_eq!(lower.slope, 0.75);
        assert_eq!(upper.slope, 0.75);
        assert_eq!(upper.intercept, 0.75);
    }

    #[test]
    fn tanh_and_sigmoid_bands_enclose_the_engine_functions() {
        for z in
            [Interval::new(-3.0, 2.0), Interval::new(0.1, 0.2), Interval::new(-40.0, 40.0), Interval::new(-1e-3, 5.0)]
        {
            check_encloses(&Layer::tanh(), revised_tanh, z, LowerSlope::Adaptive);
            check_encloses(&Layer::sigmoid(), sigmoid, z, LowerSlope::Adaptive);
        }
    }

    #[test]
    fn the_band_is_tighter_than_the_interval_on_a_narrow_range() {
        let z = Interval::new(0.1, 0.2);
        let (lower, upper) = relaxation(&Layer::sigmoid(), z, LowerSlope::Adaptive);
        let width_band = upper.intercept - lower.intercept;
        // Each of the 32 pieces loses at most its rise and the chord's rise across it: about
        // 2·Δf/32 in all for a function this close to its chord.
        assert!(lower.slope > 0.24 && lower.slope < 0.25, "the chord's slope: {}", lower.slope);
        assert!(width_band < 3.0 * (sigmoid(0.2) - sigmoid(0.1)) / 32.0, "band width {width_band}");
    }
}
