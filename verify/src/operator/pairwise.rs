//! Ext-8's `mulTensor` and `divTensor` of two tensors computed from the input (the plan's
//! `Combine` of two computed operands): output `i` is `fl(x[a_i] · x[b_i])` or
//! `fl(x[a_i] / x[b_i])`, one IEEE operation on two elements of the vector (never an error:
//! a NaN propagates). Neither is monotone in the pair, so each is bounded by the rounded
//! corners of its operands' ranges (`ranges.rs`), and back-substitution stops here.

use knn_engine::bigstep::ops::Arith;

use super::ranges::{Ranges, engine_product, engine_quotient, steering};
use super::{ChosenLines, LowerChoice, Operator, Pass, Prepared};
use crate::float::Interval;

#[derive(Clone, Debug)]
pub struct Pairwise {
    divide: bool,
    /// Output `i` is `x[pairs[i].0] op x[pairs[i].1]`.
    pairs: Vec<(usize, usize)>,
    input_len: usize,
}

impl Pairwise {
    /// `arith` (`Mul` or `Div`) of the elements `pairs` of a vector of `input_len`.
    pub fn new(arith: Arith, pairs: Vec<(usize, usize)>, input_len: usize) -> Pairwise {
        assert!(matches!(arith, Arith::Mul | Arith::Div), "a product or a quotient");
        Pairwise { divide: arith == Arith::Div, pairs, input_len }
    }

    fn op(&self, x: f64, y: f64) -> f64 {
        if self.divide { x / y } else { x * y }
    }
}

impl Operator for Pairwise {
    fn describe(&self) -> String {
        format!("{} of {} pairs", if self.divide { "Quotients" } else { "Products" }, self.pairs.len())
    }

    fn output_len(&self, _len: usize) -> usize {
        self.pairs.len()
    }

    fn apply(&self, v: &[f64]) -> Vec<f64> {
        self.pairs.iter().map(|&(a, b)| self.op(v[a], v[b])).collect()
    }

    fn interval(&self, v: &[Interval]) -> Option<Vec<Interval>> {
        let bound = if self.divide { engine_quotient } else { engine_product };
        self.pairs.iter().map(|&(a, b)| bound(v[a], v[b])).collect()
    }

    fn prepare(&self, input: &[Interval]) -> Prepared {
        Box::new(Ranges::of(self.interval(input), self.pairs.len()))
    }

    fn substitute(&self, prepared: &Prepared, pass: &mut Pass, _lower: LowerChoice<'_>) {
        let ranges: &Ranges = prepared.downcast_ref().expect("prepared by Pairwise::prepare");
        ranges.substitute(pass, self.input_len);
    }

    /// `∂(x·y) = y·∂x + x·∂y`, `∂(x/y) = ∂x/y − (x/y²)·∂y`: only steers the attack.
    fn backpropagate(&self, g: Vec<f64>, input: &[f64], _output: &[f64]) -> Vec<f64> {
        let mut back = vec![0.0; self.input_len];
        for (&gi, &(a, b)) in g.iter().zip(&self.pairs) {
            let (x, y) = (input[a], input[b]);
            let (da, db) = if self.divide { (1.0 / y, -x / (y * y)) } else { (y, x) };
            back[a] += gi * da;
            back[b] += gi * db;
        }
        steering(back)
    }

    fn apply_lanes(&self, v: &[f64], lanes: usize) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.pairs.len() * lanes);
        for &(a, b) in &self.pairs {
            let (x, y) = (&v[a * lanes..(a + 1) * lanes], &v[b * lanes..(b + 1) * lanes]);
            out.extend(x.iter().zip(y).map(|(&x, &y)| self.op(x, y)));
        }
        out
    }

    fn backpropagate_lanes(&self, g: Vec<f64>, input: &[f64], _output: &[f64], lanes: usize) -> Vec<f64> {
        let mut back = vec![0.0; self.input_len * lanes];
        for (i, &(a, b)) in self.pairs.iter().enumerate() {
            for l in 0..lanes {
                let (x, y, gi) = (input[a * lanes + l], input[b * lanes + l], g[i * lanes + l]);
                let (da, db) = if self.divide { (1.0 / y, -x / (y * y)) } else { (y, x) };
                back[a * lanes + l] += gi * da;
                back[b * lanes + l] += gi * db;
            }
        }
        steering(back)
    }

    fn relaxed_forward(&self, d: Vec<f64>, _lines: &ChosenLines<'_>) -> Vec<f64> {
        steering(self.apply(&d))
    }
}
