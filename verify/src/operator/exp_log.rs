//! Ext-9's `expTensor` and `logTensor` of one run of a buffer (the plan's `Activate` with
//! `Exp` or `Log`: `ext-exp-item`, `ext-log-item` on every element). The engine's `expFloat`
//! and `logFloat` are correctly rounded (CORE-MATH), and the correct rounding of a
//! non-decreasing function is non-decreasing: interval ends map to ends, and the band of two
//! parallel lines of [`activation::monotone_band`] holds (docs/verification.md, "Exponential
//! and logarithm"). `exp` is never NaN on a non-NaN input (`exp(−∞) = 0`, `exp(+∞) = +∞`, and
//! past 709.78 it is `+∞`); `log` is NaN below 0 (`log(−0) = −∞`): a range reaching below 0
//! bounds nothing.

use knn_semantics::numeric::{exp_float, log_float};

use super::{ChosenLines, LowerChoice, Operator, Pass, Prepared, activation};
use crate::float::Interval;
use crate::relax::{Line, LowerSlope};

/// `expTensor` (`log: false`) or `logTensor` (`log: true`).
#[derive(Clone, Copy, Debug)]
pub struct ExpLog {
    log: bool,
}

impl ExpLog {
    pub fn exp() -> ExpLog {
        ExpLog { log: false }
    }

    pub fn log() -> ExpLog {
        ExpLog { log: true }
    }

    fn f(&self) -> fn(f64) -> f64 {
        if self.log { log_float } else { exp_float }
    }
}

impl Operator for ExpLog {
    fn describe(&self) -> String {
        if self.log { "Log" } else { "Exp" }.into()
    }

    fn apply(&self, v: &[f64]) -> Vec<f64> {
        v.iter().map(|&x| self.f()(x)).collect()
    }

    fn interval(&self, v: &[Interval]) -> Option<Vec<Interval>> {
        // `log` of a negative number is NaN, at an end or inside.
        if self.log && v.iter().any(|x| x.lo < 0.0) {
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

    /// `exp′ = exp`, `log′(x) = 1/x`: the falsifier's steepest direction only, never a bound.
    fn backpropagate(&self, g: Vec<f64>, input: &[f64], output: &[f64]) -> Vec<f64> {
        let slope = |(x, y): (&f64, &f64)| if self.log { 1.0 / x } else { *y };
        g.iter().zip(input.iter().zip(output).map(slope)).map(|(g, s)| g * s).collect()
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
