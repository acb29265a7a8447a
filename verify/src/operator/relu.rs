//! `reluTensor`: `rev-relu-helper-elem` takes `max(x, 0.0)` by the `max` rules, which refuse a
//! NaN (`invalid-operands`) (docs/verification.md, "Relu").

use knn_semantics::errors::ErrorKind;
use knn_semantics::numeric::k_max;
use knn_semantics::syntax::Span;

use super::{ChosenLines, LowerChoice, Operator, Pass, Prepared, activation};
use crate::float::{Interval, mul_down, mul_up, sub_up};
use crate::judge::RunError;
use crate::relax::{Line, LowerSlope};

#[derive(Clone, Copy, Debug)]
pub struct Relu;

/// `max(x, 0.0)` by the `max` rules; NaN for NaN (no bound).
fn relu(x: f64) -> f64 {
    k_max(x, 0.0).unwrap_or(f64::NAN)
}

impl Operator for Relu {
    fn keeps_non_negative(&self) -> bool {
        true
    }

    fn describe(&self) -> String {
        "Relu".into()
    }

    fn apply(&self, v: &[f64]) -> Vec<f64> {
        v.iter().map(|&x| relu(x)).collect()
    }

    fn failure(&self, v: &[f64]) -> Option<RunError> {
        v.iter().any(|z| z.is_nan()).then(|| RunError {
            kind: ErrorKind::InvalidOperands,
            detail: "a NaN reaches reluTensor".into(),
            span: Span::default(),
        })
    }

    fn interval(&self, v: &[Interval]) -> Option<Vec<Interval>> {
        Some(activation::monotone_interval(relu, v))
    }

    fn is_activation(&self) -> bool {
        true
    }

    fn splits_at_zero(&self) -> bool {
        true
    }

    /// Exact where the sign is known; else `α·z` below (as `slope` says) and the chord above,
    /// its intercept rounded up so that the line is above relu at both ends, hence everywhere
    /// on the range (relu is convex).
    fn relaxation(&self, z: Interval, lower_slope: LowerSlope) -> Option<(Line, Line)> {
        if z.hi <= 0.0 {
            return Some((Line::ZERO, Line::ZERO));
        }
        if z.lo >= 0.0 {
            return Some((Line::IDENTITY, Line::IDENTITY));
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
        Some((lower, Line { slope, intercept }))
    }

    fn prepare(&self, input: &[Interval]) -> Prepared {
        activation::prepare(self, input)
    }

    fn substitute(&self, prepared: &Prepared, pass: &mut Pass, lower: LowerChoice<'_>) {
        activation::substitute(prepared, pass, lower);
    }

    fn backpropagate(&self, g: Vec<f64>, input: &[f64], _output: &[f64]) -> Vec<f64> {
        g.iter().zip(input).map(|(gi, z)| if *z > 0.0 { *gi } else { 0.0 }).collect()
    }

    /// Element by element: the layout does not matter.
    fn apply_lanes(&self, v: &[f64], _lanes: usize) -> Vec<f64> {
        self.apply(v)
    }

    fn backpropagate_lanes(&self, g: Vec<f64>, input: &[f64], output: &[f64], _lanes: usize) -> Vec<f64> {
        self.backpropagate(g, input, output)
    }

    fn relaxed_forward(&self, d: Vec<f64>, lines: &ChosenLines<'_>) -> Vec<f64> {
        activation::relaxed_forward(d, lines)
    }
}
