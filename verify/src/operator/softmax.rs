//! Ext-9's `softmax` and `logSoftmax` of a computed tensor anywhere in a network (right before
//! its `ArgMax` the class is read from the scores instead: `ResultKind::SoftmaxArgMax`). Slice
//! by slice along the axis, as `softmax_apply` computes it: `M` the `max` of the slice from
//! `-Infinity` (a NaN is `invalid-operands`), `S` the sum from `0.0` of `expFloat(x −Float M)`
//! in order, then each element `expFloat(x − M) /Float S` (`ext-softmax-item`) or
//! `(x − M) −Float logFloat(S)` (`ext-log-softmax-item`).
//!
//! Bounded on ranges through those operations one at a time (`ranges.rs`), with two facts of
//! the engine's values that ranges alone would lose: `M` is one of the slice's elements, so
//! `x − M ≤ 0` for each (`fl` is monotone and `fl(0) = 0`), and the element equal to `M` adds
//! `expFloat(+0) = 1` to `S`, whose other terms are never negative, so `S ≥ 1` (a sum of
//! non-negative terms rounded to nearest never decreases). A slice whose elements may be `+∞`
//! (`∞ − ∞`), or all `−∞`, may be NaN: nothing is bounded. Back-substitution stops here.

use knn_engine::bigstep::softmax_apply;
use knn_semantics::errors::ErrorKind;
use knn_semantics::numeric::{exp_float, log_float};
use knn_semantics::revisions::axes::{slice_count, slice_indices};
use knn_semantics::syntax::Span;

use knn_engine::bigstep::ops::Op;

use super::ranges::{Ranges, engine_difference, steering};
use super::{Chain, ChosenLines, Layer, LowerChoice, Operator, Pass, Prepared};
use crate::float::Interval;
use crate::judge::RunError;
use crate::unsupported::{Unsupported, unsupported};

/// Reads a `Softmax` of the whole of the last vector (one not right before its `ArgMax`).
pub fn read_softmax(op: &Op, chain: &mut Chain) -> Result<(), Unsupported> {
    let Op::Softmax { log, out, x, x_at, dims, axis, span } = op else { unreachable!("a Softmax") };
    let name = if *log { "logSoftmax" } else { "softmax" };
    if *x != chain.current || *x_at != 0 || dims.iter().product::<usize>() != chain.len {
        return Err(unsupported(
            format!("`{name}` of part of a vector, or of one other than the last computed"),
            Some(*span),
        ));
    }
    chain.layers.push(Layer::softmax(Softmax::new(*log, dims, *axis, *span)));
    chain.current = *out;
    Ok(())
}

#[derive(Clone, Debug)]
pub struct Softmax {
    log: bool,
    dims: Vec<usize>,
    axis: usize,
    /// Each slice's elements, in the order they are read.
    slices: Vec<Vec<usize>>,
    span: Span,
}

impl Softmax {
    /// `softmax` (or with `log`, `logSoftmax`) of a tensor of shape `dims` along `axis`.
    pub fn new(log: bool, dims: &[usize], axis: usize, span: Span) -> Softmax {
        // The rules' own slices (`slice(K, Is, A)`), in the order the engine reads them.
        let shape: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
        let position = |index: &Vec<i64>| index.iter().zip(dims).fold(0usize, |k, (&i, &d)| k * d + i as usize);
        let slices = (0..slice_count(&shape, axis))
            .map(|k| slice_indices(&shape, axis, k).iter().map(position).collect())
            .collect();
        Softmax { log, dims: dims.to_vec(), axis, slices, span }
    }

    fn len(&self) -> usize {
        self.dims.iter().product()
    }

    /// The engine's values, or the slice's `max` of a NaN.
    fn computed(&self, v: &[f64]) -> Result<Vec<f64>, RunError> {
        let mut out = vec![0.0; v.len()];
        softmax_apply(self.log, &self.dims, self.axis, v, &mut out).map_err(|nan| RunError {
            kind: ErrorKind::InvalidOperands,
            detail: nan.detail(),
            span: self.span,
        })?;
        Ok(out)
    }

    /// `f` on each lane of `v` (feature-major), laid out again.
    fn by_lane(&self, v: &[f64], lanes: usize, f: impl Fn(&[f64]) -> Vec<f64>) -> Vec<f64> {
        let n = self.len();
        let mut out = vec![0.0; n * lanes];
        for l in 0..lanes {
            let x: Vec<f64> = (0..n).map(|i| v[i * lanes + l]).collect();
            f(&x).iter().enumerate().for_each(|(i, y)| out[i * lanes + l] = *y);
        }
        out
    }

    /// The ranges of one slice's outputs, written into `out`; `None` where one may be NaN.
    fn slice_ranges(&self, slice: &[usize], v: &[Interval], out: &mut [Interval]) -> Option<()> {
        if slice.iter().any(|&j| v[j].hi == f64::INFINITY) || slice.iter().all(|&j| v[j].lo == f64::NEG_INFINITY) {
            return None;
        }
        let max = |a: f64, b: f64| if b > a { b } else { a };
        let m = Interval::new(
            slice.iter().fold(f64::NEG_INFINITY, |m, &j| max(m, v[j].lo)),
            slice.iter().fold(f64::NEG_INFINITY, |m, &j| max(m, v[j].hi)),
        );
        let shifted = |j: usize| engine_difference(v[j], m).map(|d| Interval::new(d.lo.min(0.0), d.hi.min(0.0)));
        let (mut lo, mut hi) = (0.0, 0.0);
        for &j in slice {
            let d = shifted(j)?;
            (lo, hi) = (lo + exp_float(d.lo), hi + exp_float(d.hi));
        }
        let sum = Interval::new(f64::max(lo, 1.0), hi);
        for &j in slice {
            let d = shifted(j)?;
            out[j] = if self.log {
                let log_sum = Interval::new(log_float(sum.lo), log_float(sum.hi));
                engine_difference(d, log_sum)?
            } else {
                // A quotient of a non-negative number by one at least 1: non-decreasing in the
                // first, non-increasing in the second.
                Interval::new(exp_float(d.lo) / sum.hi, exp_float(d.hi) / sum.lo)
            };
        }
        Some(())
    }
}

impl Operator for Softmax {
    fn describe(&self) -> String {
        format!("{} {:?} along {}", if self.log { "LogSoftmax" } else { "Softmax" }, self.dims, self.axis)
    }

    fn apply(&self, v: &[f64]) -> Vec<f64> {
        self.computed(v).unwrap_or_else(|_| vec![f64::NAN; v.len()])
    }

    fn failure(&self, v: &[f64]) -> Option<RunError> {
        self.computed(v).err()
    }

    fn interval(&self, v: &[Interval]) -> Option<Vec<Interval>> {
        let mut out = vec![Interval::point(0.0); v.len()];
        for slice in &self.slices {
            self.slice_ranges(slice, v, &mut out)?;
        }
        Some(out)
    }

    fn prepare(&self, input: &[Interval]) -> Prepared {
        Box::new(Ranges::of(self.interval(input), self.len()))
    }

    fn substitute(&self, prepared: &Prepared, pass: &mut Pass, _lower: LowerChoice<'_>) {
        let ranges: &Ranges = prepared.downcast_ref().expect("prepared by Softmax::prepare");
        ranges.substitute(pass, self.len());
    }

    /// The softmax's Jacobian `y_j·(δ_ij − y_i)`, the log-softmax's `δ_ij − softmax_i`: only
    /// steers the attack.
    fn backpropagate(&self, g: Vec<f64>, _input: &[f64], output: &[f64]) -> Vec<f64> {
        let mut back = vec![0.0; g.len()];
        for slice in &self.slices {
            if self.log {
                let total: f64 = slice.iter().map(|&j| g[j]).sum();
                slice.iter().for_each(|&j| back[j] = g[j] - output[j].exp() * total);
            } else {
                let weighted: f64 = slice.iter().map(|&j| g[j] * output[j]).sum();
                slice.iter().for_each(|&j| back[j] = output[j] * (g[j] - weighted));
            }
        }
        steering(back)
    }

    /// Lane by lane: the engine's softmax is computed per vector.
    fn apply_lanes(&self, v: &[f64], lanes: usize) -> Vec<f64> {
        self.by_lane(v, lanes, |x| self.apply(x))
    }

    fn backpropagate_lanes(&self, g: Vec<f64>, _input: &[f64], output: &[f64], lanes: usize) -> Vec<f64> {
        let n = self.len();
        let mut back = vec![0.0; n * lanes];
        for l in 0..lanes {
            let lane = |w: &[f64]| (0..n).map(|i| w[i * lanes + l]).collect::<Vec<f64>>();
            let b = self.backpropagate(lane(&g), &[], &lane(output));
            b.iter().enumerate().for_each(|(i, x)| back[i * lanes + l] = *x);
        }
        back
    }

    fn relaxed_forward(&self, d: Vec<f64>, _lines: &ChosenLines<'_>) -> Vec<f64> {
        steering(self.apply(&d))
    }
}
