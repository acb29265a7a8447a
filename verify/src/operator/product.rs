//! Ext-15's `matmul` of two tensors computed from the input (the plan's `MatMul` with two
//! buffer operands): each element of the result is `0.0`, then `acc + l·r` for each of its
//! products in increasing order (`ext-matmul-helper-step`, no fused multiply-add), `l` and `r`
//! elements of the vector. Bilinear, not monotone: bounded by the engine's operations on ranges
//! one at a time (each product by its rounded corners, each partial sum by its ends:
//! `ranges.rs`, [`crate::float::engine_sum`]), and back-substitution stops here.

use super::ranges::{Ranges, engine_product, steering};
use super::{ChosenLines, LowerChoice, Operator, Pass, Prepared};
use crate::float::{Interval, engine_sum};

#[derive(Clone, Debug)]
pub struct Product {
    /// Output `e`'s products are `terms[e·inner .. (e + 1)·inner]`, each `(l, r)` two
    /// positions of the vector, in the order they are summed.
    terms: Vec<(usize, usize)>,
    inner: usize,
    input_len: usize,
}

impl Product {
    pub fn new(terms: Vec<(usize, usize)>, inner: usize, input_len: usize) -> Product {
        assert!(inner > 0 && terms.len().is_multiple_of(inner), "whole rows of products");
        Product { terms, inner, input_len }
    }

    fn outputs(&self) -> usize {
        self.terms.len() / self.inner
    }

    fn row(&self, e: usize) -> &[(usize, usize)] {
        &self.terms[e * self.inner..(e + 1) * self.inner]
    }
}

impl Operator for Product {
    fn describe(&self) -> String {
        format!("Matmul of computed tensors: {} outputs of {} products", self.outputs(), self.inner)
    }

    fn output_len(&self, _len: usize) -> usize {
        self.outputs()
    }

    fn weights(&self) -> usize {
        self.terms.len()
    }

    fn apply(&self, v: &[f64]) -> Vec<f64> {
        (0..self.outputs()).map(|e| self.row(e).iter().fold(0.0, |acc, &(l, r)| acc + v[l] * v[r])).collect()
    }

    fn interval(&self, v: &[Interval]) -> Option<Vec<Interval>> {
        (0..self.outputs())
            .map(|e| {
                self.row(e)
                    .iter()
                    .try_fold(Interval::point(0.0), |acc, &(l, r)| engine_sum(acc, engine_product(v[l], v[r])?))
            })
            .collect()
    }

    fn prepare(&self, input: &[Interval]) -> Prepared {
        Box::new(Ranges::of(self.interval(input), self.outputs()))
    }

    fn substitute(&self, prepared: &Prepared, pass: &mut Pass, _lower: LowerChoice<'_>) {
        let ranges: &Ranges = prepared.downcast_ref().expect("prepared by Product::prepare");
        ranges.substitute(pass, self.input_len);
    }

    /// `∂(Σ l·r) = Σ r·∂l + l·∂r`: only steers the attack.
    fn backpropagate(&self, g: Vec<f64>, input: &[f64], _output: &[f64]) -> Vec<f64> {
        let mut back = vec![0.0; self.input_len];
        for (e, &ge) in g.iter().enumerate() {
            for &(l, r) in self.row(e) {
                back[l] += ge * input[r];
                back[r] += ge * input[l];
            }
        }
        steering(back)
    }

    /// Each lane as [`Operator::apply`] computes it: from `0.0`, the products in order.
    fn apply_lanes(&self, v: &[f64], lanes: usize) -> Vec<f64> {
        let mut out = vec![0.0; self.outputs() * lanes];
        for (e, acc) in out.chunks_exact_mut(lanes).enumerate() {
            for &(l, r) in self.row(e) {
                let (x, y) = (&v[l * lanes..(l + 1) * lanes], &v[r * lanes..(r + 1) * lanes]);
                for ((a, x), y) in acc.iter_mut().zip(x).zip(y) {
                    *a += x * y;
                }
            }
        }
        out
    }

    fn backpropagate_lanes(&self, g: Vec<f64>, input: &[f64], _output: &[f64], lanes: usize) -> Vec<f64> {
        let mut back = vec![0.0; self.input_len * lanes];
        for e in 0..self.outputs() {
            for &(l, r) in self.row(e) {
                for k in 0..lanes {
                    let ge = g[e * lanes + k];
                    back[l * lanes + k] += ge * input[r * lanes + k];
                    back[r * lanes + k] += ge * input[l * lanes + k];
                }
            }
        }
        steering(back)
    }

    fn relaxed_forward(&self, d: Vec<f64>, _lines: &ChosenLines<'_>) -> Vec<f64> {
        steering(self.apply(&d))
    }
}
