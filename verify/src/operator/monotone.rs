//! The non-decreasing element-wise functions, as the engine computes them: Rev-13's
//! `tanhTensor` and `sigmoidTensor`, and Ext-9's `expTensor` and `logTensor` of one run of a
//! buffer (the plan's `Activate`: `ext-exp-item`, `ext-log-item` on every element). Each is
//! non-decreasing on binary64 (docs/verification.md, "Monotone activations", "Exponential and
//! logarithm"): interval ends map to ends, and the band of two parallel lines of
//! [`activation::monotone_band`] holds. `exp` is never NaN on a non-NaN input; `log` is NaN
//! below 0 (`log(−0) = −∞`): a range reaching below 0 bounds nothing.

use knn_semantics::numeric::{exp_float, log_float, revised_tanh, sigmoid};

use super::{ChosenLines, LowerChoice, Operator, Pass, Prepared, activation};
use crate::float::Interval;
use crate::relax::{Line, LowerSlope};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Monotone {
    Tanh,
    Sigmoid,
    Exp,
    Log,
}

impl Monotone {
    fn f(self) -> fn(f64) -> f64 {
        match self {
            Monotone::Tanh => revised_tanh,
            Monotone::Sigmoid => sigmoid,
            Monotone::Exp => exp_float,
            Monotone::Log => log_float,
        }
    }

    /// The derivative at input `x` with output `y`: the falsifier's steepest direction only,
    /// never a bound.
    fn slope(self, x: f64, y: f64) -> f64 {
        match self {
            Monotone::Tanh => 1.0 - y * y,
            Monotone::Sigmoid => y * (1.0 - y),
            Monotone::Exp => y,
            Monotone::Log => 1.0 / x,
        }
    }
}

impl Operator for Monotone {
    fn describe(&self) -> String {
        format!("{self:?}")
    }

    fn apply(&self, v: &[f64]) -> Vec<f64> {
        v.iter().map(|&x| self.f()(x)).collect()
    }

    fn interval(&self, v: &[Interval]) -> Option<Vec<Interval>> {
        // `log` of a negative number is NaN, at an end or inside.
        if *self == Monotone::Log && v.iter().any(|x| x.lo < 0.0) {
            return None;
        }
        Some(activation::monotone_interval(self.f(), v))
    }

    fn is_activation(&self) -> bool {
        true
    }

    fn relaxation(&self, z: Interval, _slope: LowerSlope) -> Option<(Line, Line)> {
        Some(activation::monotone_band(self.f(), z))
    }

    fn prepare(&self, input: &[Interval]) -> Prepared {
        activation::prepare(self, input)
    }

    fn substitute(&self, prepared: &Prepared, pass: &mut Pass, lower: LowerChoice<'_>) {
        activation::substitute(prepared, pass, lower);
    }

    fn backpropagate(&self, g: Vec<f64>, input: &[f64], output: &[f64]) -> Vec<f64> {
        g.iter().zip(input.iter().zip(output)).map(|(g, (&x, &y))| g * self.slope(x, y)).collect()
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
