//! A monotone activation (tanh, sigmoid, exp, log) on one segment of the vector, the other
//! segments passing unchanged: how a branch reads such an activation while another tensor
//! computed from the input is kept for later (`crate::branches`). The kept elements' lines
//! are the identity, `z ≤ z ≤ z` (slope 1, intercept 0): exact, so back-substitution charges
//! nothing for them (docs/verification.md, "Branches"). A relu instead carries its kept
//! tensors as sign pairs, which its splitting needs.

use std::ops::Range;

use super::{ChosenLines, Layer, LowerChoice, Operator, Pass, Prepared, activation};
use crate::float::Interval;
use crate::relax::Line;

#[derive(Clone, Debug)]
pub struct Partial {
    inner: Layer,
    acting: Range<usize>,
}

impl Partial {
    /// `inner` (an activation that is not a relu) on `acting`, the identity elsewhere.
    pub fn new(inner: Layer, acting: Range<usize>) -> Partial {
        assert!(inner.is_activation() && !inner.splits_at_zero(), "a monotone activation");
        Partial { inner, acting }
    }

    /// `v` with `f` applied to the acting elements (`lanes` values each).
    fn on_acting(&self, mut v: Vec<f64>, lanes: usize, f: impl FnOnce(&[f64]) -> Vec<f64>) -> Vec<f64> {
        let range = self.acting.start * lanes..self.acting.end * lanes;
        let acted = f(&v[range.clone()]);
        v[range].copy_from_slice(&acted);
        v
    }
}

const IDENTITY: Line = Line { slope: 1.0, intercept: 0.0 };

impl Operator for Partial {
    fn describe(&self) -> String {
        format!("{} on {:?}", self.inner.describe(), self.acting)
    }

    fn apply(&self, v: &[f64]) -> Vec<f64> {
        self.on_acting(v.to_vec(), 1, |x| self.inner.apply(x))
    }

    fn interval(&self, v: &[Interval]) -> Option<Vec<Interval>> {
        let acted = self.inner.interval(&v[self.acting.clone()])?;
        let mut out = v.to_vec();
        out[self.acting.clone()].copy_from_slice(&acted);
        Some(out)
    }

    fn is_activation(&self) -> bool {
        true
    }

    fn prepare(&self, input: &[Interval]) -> Prepared {
        activation::prepare_lines(input, false, |i, z, slope| {
            if self.acting.contains(&i) {
                self.inner.relaxation(*z, slope).expect("an activation has a relaxation")
            } else {
                (IDENTITY, IDENTITY)
            }
        })
    }

    fn substitute(&self, prepared: &Prepared, pass: &mut Pass, lower: LowerChoice<'_>) {
        activation::substitute(prepared, pass, lower);
    }

    fn backpropagate(&self, g: Vec<f64>, input: &[f64], output: &[f64]) -> Vec<f64> {
        let (x, y) = (&input[self.acting.clone()], &output[self.acting.clone()]);
        self.on_acting(g, 1, |g| self.inner.backpropagate(g.to_vec(), x, y))
    }

    fn apply_lanes(&self, v: &[f64], lanes: usize) -> Vec<f64> {
        self.on_acting(v.to_vec(), lanes, |x| self.inner.apply_lanes(x, lanes))
    }

    fn backpropagate_lanes(&self, g: Vec<f64>, input: &[f64], output: &[f64], lanes: usize) -> Vec<f64> {
        let range = self.acting.start * lanes..self.acting.end * lanes;
        let (x, y) = (&input[range.clone()], &output[range]);
        self.on_acting(g, lanes, |g| self.inner.backpropagate_lanes(g.to_vec(), x, y, lanes))
    }

    fn relaxed_forward(&self, d: Vec<f64>, lines: &ChosenLines<'_>) -> Vec<f64> {
        activation::relaxed_forward(d, lines)
    }
}
