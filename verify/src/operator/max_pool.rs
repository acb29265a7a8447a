//! `maxPool2d` (Ext-4): each output the `max` of its window's inputs from `-Infinity`
//! (`ext-max-pool2d-helper-step`), a NaN being `invalid-operands`. `max` is exact (no
//! rounding) and monotone in every argument, so interval ends map to ends.
//!
//! Back-substitution (DeepPoly's relaxation): `y ≥ x_j` for every tap `j`, here the tap `j*`
//! with the greatest lower bound; `y ≤ max_j hi_j`; and `y = x_{j*}` when `lo_{j*} ≥ hi_k` for
//! every other tap (the window's maximum is always `x_{j*}`'s value). A positive coefficient
//! `g` of `y` moves to `x_{j*}`; a negative one moves there when `y = x_{j*}`, else adds
//! `g·max hi` (rounded down) to the constant. Coefficients moved to one input from several
//! windows (overlapping windows) are summed in floating point: with at most `K` windows per
//! input, that sum's error is at most `γ_K·Σ|g|`, charged as `γ_K·U_{j*}` per unit of `|g|`.

use knn_engine::bigstep::window_ops::{pool_apply, pool_lanes, pool_taps};
use knn_semantics::errors::ErrorKind;
use knn_semantics::syntax::{Pool, Span};
use knn_semantics::window::Pool2dGeometry;

use super::{ChosenLines, LowerChoice, Operator, Pass, Prepared};
use crate::float::{Interval, NonNegativeSum, add_down, gamma, mul_down, mul_up, sub_down};
use crate::judge::RunError;

#[derive(Clone, Debug)]
pub struct MaxPool {
    geometry: Pool2dGeometry,
    /// Output `i`'s taps, in the window's order.
    windows: Vec<Vec<usize>>,
    input_len: usize,
    /// The most windows any input is in.
    overlap: usize,
    span: Span,
}

impl MaxPool {
    /// The layer of a plan's `Pool2d` of `maxPool2d`, or `None` when a window lies wholly in
    /// the padding (its output is `-Infinity` at every input: not bounded here).
    pub fn new(geometry: Pool2dGeometry, span: Span) -> Option<MaxPool> {
        let input_len = geometry.input.iter().product::<i64>() as usize;
        let outputs = geometry.output.iter().product::<i64>() as usize;
        let windows: Vec<Vec<usize>> = (0..outputs).map(|k| pool_taps(&geometry, k).collect()).collect();
        if windows.iter().any(Vec::is_empty) {
            return None;
        }
        let mut count = vec![0usize; input_len];
        windows.iter().flatten().for_each(|&j| count[j] += 1);
        let overlap = count.into_iter().max().unwrap_or(1);
        Some(MaxPool { geometry, windows, input_len, overlap, span })
    }

    /// The tap of window `i` where the maximum of `v` is (the first of equal ones: `max` keeps
    /// the earlier on ties).
    fn argmax(&self, i: usize, v: impl Fn(usize) -> f64) -> usize {
        let window = &self.windows[i];
        let mut best = window[0];
        for &j in &window[1..] {
            if v(j) > v(best) {
                best = j;
            }
        }
        best
    }
}

/// Per window: the tap `j*` of greatest lower bound, whether it is always the maximum, the
/// largest upper bound, and the charge per unit of `|g|` of summing coefficients at `j*`.
struct Relaxation {
    tap: Vec<usize>,
    exact: Vec<bool>,
    upper: Vec<f64>,
    charge: Vec<f64>,
    sums: NonNegativeSum,
}

impl Operator for MaxPool {
    fn keeps_non_negative(&self) -> bool {
        true
    }

    fn describe(&self) -> String {
        format!("MaxPool {:?} → {:?}", self.geometry.input, self.geometry.output)
    }

    fn output_len(&self, _len: usize) -> usize {
        self.windows.len()
    }

    fn apply(&self, v: &[f64]) -> Vec<f64> {
        let mut out = vec![f64::NAN; self.windows.len()];
        // A NaN is the engine's error (`failure`): the output is never read then.
        let _ = pool_apply(Pool::Max, &self.geometry, v, &mut out);
        out
    }

    fn failure(&self, v: &[f64]) -> Option<RunError> {
        let mut out = vec![0.0; self.windows.len()];
        pool_apply(Pool::Max, &self.geometry, v, &mut out).err().map(|nan| RunError {
            kind: ErrorKind::InvalidOperands,
            detail: nan.detail(),
            span: self.span,
        })
    }

    fn interval(&self, v: &[Interval]) -> Option<Vec<Interval>> {
        let max = |a: f64, b: f64| if b > a { b } else { a };
        Some(
            self.windows
                .iter()
                .map(|w| {
                    let lo = w.iter().fold(f64::NEG_INFINITY, |m, &j| max(m, v[j].lo));
                    let hi = w.iter().fold(f64::NEG_INFINITY, |m, &j| max(m, v[j].hi));
                    Interval::new(lo, hi)
                })
                .collect(),
        )
    }

    fn prepare(&self, input: &[Interval]) -> Prepared {
        // One window per input: each coefficient is one `g`, moved exactly.
        let g_sum = (self.overlap > 1).then(|| gamma(self.overlap));
        let (mut tap, mut exact, mut upper, mut charge) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (i, window) in self.windows.iter().enumerate() {
            let best = self.argmax(i, |j| input[j].lo);
            let top = window.iter().map(|&j| input[j].hi).fold(f64::NEG_INFINITY, f64::max);
            tap.push(best);
            exact.push(window.iter().all(|&k| k == best || input[best].lo >= input[k].hi));
            upper.push(top);
            charge.push(g_sum.map_or(0.0, |g| mul_up(g, input[best].magnitude())));
        }
        Box::new(Relaxation { tap, exact, upper, charge, sums: NonNegativeSum::new(self.windows.len()) })
    }

    fn substitute(&self, prepared: &Prepared, pass: &mut Pass, _lower: LowerChoice<'_>) {
        let Relaxation { tap, exact, upper, charge, sums } =
            prepared.downcast_ref().expect("prepared by MaxPool::prepare");
        let (m, n) = (self.windows.len(), self.input_len);
        let mut next = vec![0.0; pass.count * n];
        for r in 0..pass.count {
            let out = &mut next[r * n..(r + 1) * n];
            let (mut constant, mut charged) = (0.0, 0.0);
            for (i, &g) in pass.g[r * m..(r + 1) * m].iter().enumerate() {
                if g > 0.0 || (g < 0.0 && exact[i]) {
                    out[tap[i]] += g;
                    charged += g.abs() * charge[i];
                } else if g < 0.0 {
                    constant = add_down(constant, mul_down(g, upper[i]));
                }
            }
            let charged = if charged > 0.0 { sums.bound(charged) } else { 0.0 };
            pass.acc[r] = sub_down(add_down(pass.acc[r], constant), charged);
        }
        pass.g = next;
        pass.width = n;
    }

    fn backpropagate(&self, g: Vec<f64>, input: &[f64], _output: &[f64]) -> Vec<f64> {
        let mut back = vec![0.0; self.input_len];
        for (i, gi) in g.iter().enumerate() {
            back[self.argmax(i, |j| input[j])] += gi;
        }
        back
    }

    /// The engine's batched pool (the plan's), bit for bit `apply` on each lane; a lane that
    /// met a NaN fails (`failure`) and its outputs are never read.
    fn apply_lanes(&self, v: &[f64], lanes: usize) -> Vec<f64> {
        let mut out = vec![0.0; self.windows.len() * lanes];
        let _failed = pool_lanes(Pool::Max, &self.geometry, v, &mut out, lanes);
        out
    }

    fn backpropagate_lanes(&self, g: Vec<f64>, input: &[f64], _output: &[f64], lanes: usize) -> Vec<f64> {
        let mut back = vec![0.0; self.input_len * lanes];
        for lane in 0..lanes {
            for i in 0..self.windows.len() {
                let j = self.argmax(i, |j| input[j * lanes + lane]);
                back[j * lanes + lane] += g[i * lanes + lane];
            }
        }
        back
    }

    fn relaxed_forward(&self, d: Vec<f64>, _lines: &ChosenLines<'_>) -> Vec<f64> {
        (0..self.windows.len()).map(|i| d[self.argmax(i, |j| d[j])]).collect()
    }
}
