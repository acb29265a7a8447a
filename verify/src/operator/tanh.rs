//! `tanhTensor` with Rev-13's formula, non-decreasing as the engine computes it
//! (docs/verification.md, "Monotone activations").

use knn_semantics::numeric::revised_tanh;

use super::{ChosenLines, LowerChoice, Operator, Pass, Prepared, activation};
use crate::float::Interval;
use crate::relax::{Line, LowerSlope};

#[derive(Clone, Copy, Debug)]
pub struct Tanh;

impl Operator for Tanh {
    fn describe(&self) -> String {
        "Tanh".into()
    }

    fn apply(&self, v: &[f64]) -> Vec<f64> {
        v.iter().map(|&x| revised_tanh(x)).collect()
    }

    fn interval(&self, v: &[Interval]) -> Option<Vec<Interval>> {
        Some(activation::monotone_interval(revised_tanh, v))
    }

    fn is_activation(&self) -> bool {
        true
    }

    fn relaxation(&self, z: Interval, _slope: LowerSlope) -> Option<(Line, Line)> {
        Some(activation::monotone_band(revised_tanh, z))
    }

    fn prepare(&self, input: &[Interval]) -> Prepared {
        activation::prepare(self, input)
    }

    fn substitute(&self, prepared: &Prepared, pass: &mut Pass, lower: LowerChoice<'_>) {
        activation::substitute(prepared, pass, lower);
    }

    fn backpropagate(&self, g: Vec<f64>, _input: &[f64], output: &[f64]) -> Vec<f64> {
        g.iter().zip(output).map(|(gi, t)| gi * (1.0 - t * t)).collect()
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
