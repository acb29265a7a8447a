//! A sparse affine layer: each output a sum from `0.0` of `fl(w·x)` over its own few inputs, in
//! the engine's order, then `+ b` where a bias is given. The plan's `Conv2d` is one (the taps of
//! `ext-conv2d-helper-step`: the channels of the group, the kernel rows, the kernel columns),
//! and so is the sum of `avgPool2d`'s window (`ext-avg-pool2d-helper-step`, weights 1: `1·x` is
//! `x` exactly, so `acc + x` and `acc + fl(1·x)` are the same bits) before its division
//! ([`super::Divide`]). Bounds are those of a dense layer (docs/verification.md, "Dense"), with
//! each output's own number of terms.
//!
//! A padding tap of `conv2d` reads the Float `0.0`: with a finite weight its product is `±0`,
//! and adding `±0` to a partial sum leaves it unchanged (a sum from `+0.0` is never `−0` when
//! rounding to nearest), so the tap is left out; with an infinite or NaN weight the product is
//! NaN and so is the output, for every input: such an output is marked and never bounded.

use knn_engine::bigstep::window_ops::ConvKernel;

use super::dense::{row_charge, row_interval};
use super::{ChosenLines, LowerChoice, Operator, Pass, Prepared};
use crate::float::{ETA, Interval, NonNegativeSum, add_down, add_up, gamma, mul_up, sub_down, sum_up};

/// Output `i`'s terms are `index[starts[i]..starts[i + 1]]` with their weights, in order.
#[derive(Clone, Debug)]
pub struct Sparse {
    what: &'static str,
    input_len: usize,
    starts: Vec<usize>,
    index: Vec<usize>,
    weight: Vec<f64>,
    bias: Vec<Option<f64>>,
    /// Outputs that are NaN at every input (a padding tap with an infinite or NaN weight).
    nan: Vec<bool>,
    /// Each sum starts from its first term rather than from `0.0` ([`Sparse::exact_rows`]).
    /// The two differ only in the sign of a zero sum, which ranges and lines do not see: the
    /// bounds below hold for both, and one addition fewer is charged for nothing.
    from_first: bool,
}

impl Sparse {
    /// The layer of a `conv2d` with a constant kernel.
    pub fn conv2d(conv: &ConvKernel) -> Sparse {
        let m = conv.output_len();
        let mut layer = Sparse::empty("Conv2d", conv.input_len(), m);
        for k in 0..m {
            let mut nan = false;
            for tap in conv.taps(k) {
                match tap.input {
                    Some(j) => layer.push(j, tap.weight),
                    None => nan |= !tap.weight.is_finite(),
                }
            }
            layer.end_row(conv.bias_of(k), nan);
        }
        layer
    }

    /// The sums of a pool's windows (`windows[i]`: output `i`'s inputs in order), weights 1.
    pub fn window_sums(input_len: usize, windows: impl ExactSizeIterator<Item = Vec<usize>>) -> Sparse {
        let mut layer = Sparse::empty("AvgPool2d sums", input_len, windows.len());
        for window in windows {
            window.into_iter().for_each(|j| layer.push(j, 1.0));
            layer.end_row(None, false);
        }
        layer
    }

    /// A layer whose output `i` is the sum from `0.0` of `fl(w·x[j])` over `rows[i]`'s terms
    /// `(j, w)` in order, with no bias, as the engine sums `matmul` by a constant and
    /// `reduceSum`.
    pub fn from_rows(what: &'static str, input_len: usize, rows: Vec<Vec<(usize, f64)>>) -> Sparse {
        let mut layer = Sparse::empty(what, input_len, rows.len());
        for row in rows {
            row.into_iter().for_each(|(j, w)| layer.push(j, w));
            layer.end_row(None, false);
        }
        layer
    }

    /// [`Sparse::from_rows`] with each sum from its first term, `fl(w₁·x₁) + fl(w₂·x₂) + …`,
    /// not from `0.0`: the copies, sign splits and sums of tensors that branch
    /// (`crate::branches`), whose weights are `±1`. `fl(±1·x)` is `±x` exactly, so one term is
    /// the element or its negation, and two are the engine's `fl(a ± b)`, bit for bit, signed
    /// zeros included (`0.0 + (−0)` would be `+0`: a quotient by the result tells them apart).
    pub fn exact_rows(what: &'static str, input_len: usize, rows: Vec<Vec<(usize, f64)>>) -> Sparse {
        Sparse { from_first: true, ..Sparse::from_rows(what, input_len, rows) }
    }

    fn empty(what: &'static str, input_len: usize, rows: usize) -> Sparse {
        let mut starts = Vec::with_capacity(rows + 1);
        starts.push(0);
        Sparse {
            what,
            input_len,
            starts,
            index: Vec::new(),
            weight: Vec::new(),
            bias: Vec::new(),
            nan: Vec::new(),
            from_first: false,
        }
    }

    fn push(&mut self, j: usize, w: f64) {
        self.index.push(j);
        self.weight.push(w);
    }

    fn end_row(&mut self, bias: Option<f64>, nan: bool) {
        self.starts.push(self.index.len());
        self.bias.push(bias);
        self.nan.push(nan);
    }

    fn rows(&self) -> usize {
        self.bias.len()
    }

    fn terms(&self, i: usize) -> impl Iterator<Item = (usize, f64)> + Clone + '_ {
        let range = self.starts[i]..self.starts[i + 1];
        self.index[range.clone()].iter().copied().zip(self.weight[range].iter().copied())
    }

    /// Output `i` at `x` as the engine computes it.
    fn output(&self, i: usize, x: impl Fn(usize) -> f64) -> f64 {
        if self.nan[i] {
            return f64::NAN;
        }
        let mut terms = self.terms(i).map(|(j, w)| x(j) * w);
        let first = if self.from_first { terms.next().unwrap_or(0.0) } else { 0.0 };
        let sum = terms.fold(first, |s, p| s + p);
        self.bias[i].map_or(sum, |b| sum + b)
    }
}

/// What back-substitution through the layer needs on one box (as [`super::Dense`]'s).
struct Charges {
    charge: Vec<f64>,
    underflow: f64,
    sums: NonNegativeSum,
}

impl Operator for Sparse {
    fn describe(&self) -> String {
        format!("{} {}x{} ({} terms)", self.what, self.rows(), self.input_len, self.index.len())
    }

    fn output_len(&self, _len: usize) -> usize {
        self.rows()
    }

    fn weights(&self) -> usize {
        self.index.len()
    }

    fn apply(&self, v: &[f64]) -> Vec<f64> {
        (0..self.rows()).map(|i| self.output(i, |j| v[j])).collect()
    }

    fn interval(&self, v: &[Interval]) -> Option<Vec<Interval>> {
        (0..self.rows())
            .map(|i| {
                if self.nan[i] {
                    return None;
                }
                row_interval(self.terms(i).map(|(j, w)| (w, v[j])), self.bias[i])
            })
            .collect()
    }

    fn exact_on_box(&self) -> bool {
        true
    }

    fn prepare(&self, input: &[Interval]) -> Prepared {
        let magnitude: Vec<f64> = input.iter().map(Interval::magnitude).collect();
        let m = self.rows();
        let g_ours = gamma(m);
        let charge = (0..m)
            .map(|i| {
                let n = self.starts[i + 1] - self.starts[i];
                let a = NonNegativeSum::new(n).bound(self.terms(i).map(|(j, w)| w.abs() * magnitude[j]).sum());
                row_charge(a, self.bias[i], (gamma(n + 1), mul_up((n + 1) as f64, ETA)), g_ours)
            })
            .collect();
        let underflow = mul_up(m as f64, mul_up(ETA, add_up(sum_up(magnitude.iter().copied()), 1.0)));
        Box::new(Charges { charge, underflow, sums: NonNegativeSum::new(m) })
    }

    fn substitute(&self, prepared: &Prepared, pass: &mut Pass, _lower: LowerChoice<'_>) {
        let Charges { charge, underflow, sums } = prepared.downcast_ref().expect("prepared by Sparse::prepare");
        let (m, n) = (self.rows(), self.input_len);
        let mut next = vec![0.0; pass.count * n];
        for r in 0..pass.count {
            let gr = &pass.g[r * m..(r + 1) * m];
            let out = &mut next[r * n..(r + 1) * n];
            let (mut through_bias, mut charged) = (0.0, 0.0);
            for (i, &gi) in gr.iter().enumerate() {
                if gi == 0.0 {
                    continue;
                }
                for (j, w) in self.terms(i) {
                    out[j] += gi * w;
                }
                if let Some(b) = self.bias[i] {
                    through_bias += gi * b;
                }
                charged += gi.abs() * charge[i];
            }
            let charged = add_up(sums.bound(charged), *underflow);
            pass.acc[r] = sub_down(add_down(pass.acc[r], through_bias), charged);
        }
        pass.g = next;
        pass.width = n;
    }

    fn backpropagate(&self, g: Vec<f64>, _input: &[f64], _output: &[f64]) -> Vec<f64> {
        let mut back = vec![0.0; self.input_len];
        for (i, gi) in g.iter().enumerate() {
            for (j, w) in self.terms(i) {
                back[j] += gi * w;
            }
        }
        back
    }

    /// Every lane's [`Operator::apply`], the lanes side by side: each output from `0.0`, its
    /// terms in order, then the bias, as one vector alone.
    fn apply_lanes(&self, v: &[f64], lanes: usize) -> Vec<f64> {
        let mut out = vec![0.0; self.rows() * lanes];
        for (i, row) in out.chunks_exact_mut(lanes).enumerate() {
            if self.nan[i] {
                row.fill(f64::NAN);
                continue;
            }
            for (k, (j, w)) in self.terms(i).enumerate() {
                let from = &v[j * lanes..(j + 1) * lanes];
                if k == 0 && self.from_first {
                    row.iter_mut().zip(from).for_each(|(s, x)| *s = x * w);
                    continue;
                }
                for (s, x) in row.iter_mut().zip(from) {
                    *s += x * w;
                }
            }
            if let Some(b) = self.bias[i] {
                row.iter_mut().for_each(|s| *s += b);
            }
        }
        out
    }

    fn backpropagate_lanes(&self, g: Vec<f64>, _input: &[f64], _output: &[f64], lanes: usize) -> Vec<f64> {
        let mut back = vec![0.0; self.input_len * lanes];
        for (i, gi) in g.chunks_exact(lanes).enumerate() {
            for (j, w) in self.terms(i) {
                for (b, g) in back[j * lanes..(j + 1) * lanes].iter_mut().zip(gi) {
                    *b += g * w;
                }
            }
        }
        back
    }

    /// Each output's terms summed in order (it only steers the slope optimiser), with no
    /// allocation per output: a convolution has tens of thousands of them.
    fn relaxed_forward(&self, d: Vec<f64>, _lines: &ChosenLines<'_>) -> Vec<f64> {
        (0..self.rows())
            .map(|i| self.terms(i).fold(0.0, |s, (j, w)| s + w * d[j]) + self.bias[i].unwrap_or(0.0))
            .collect()
    }
}
