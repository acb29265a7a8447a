//! `maxPool2d` (Ext-4): each output the `max` of its window's inputs from `-Infinity`
//! (`ext-max-pool2d-helper-step`), a NaN being `invalid-operands`. `max` is exact (no
//! rounding) and monotone in every argument, so interval ends map to ends. Ext-10's
//! `reduceMax` and `reduceMin` of one vector are the same over their groups (`max` from
//! `-Infinity`, `min` from `Infinity`, `ext-reduce-helper-step`); a minimum is bounded as the
//! maximum of the negated inputs, negated (for bounds only: its bits are `min`'s own).
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
use knn_semantics::numeric::{float_words, k_max, k_min};
use knn_semantics::syntax::{Pool, Span};
use knn_semantics::window::Pool2dGeometry;

use super::{ChosenLines, LowerChoice, Operator, Pass, Prepared};
use crate::float::{Interval, NonNegativeSum, add_down, gamma, mul_down, mul_up, sub_down};
use crate::judge::RunError;

/// Where the windows come from, which says how the engine computes them.
#[derive(Clone, Debug)]
enum Source {
    Pool(Pool2dGeometry),
    /// `reduceMax`, or with `min` `reduceMin`, over groups.
    Reduce {
        min: bool,
    },
}

#[derive(Clone, Debug)]
pub struct MaxPool {
    source: Source,
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
        Some(MaxPool::of_windows(Source::Pool(geometry), windows, input_len, span))
    }

    /// The layer of `reduceMax` (or with `min`, `reduceMin`) of a vector of `input_len`
    /// elements over `groups` (each output's elements in the rules' order), none empty.
    pub fn reduce(min: bool, groups: Vec<Vec<usize>>, input_len: usize, span: Span) -> MaxPool {
        assert!(groups.iter().all(|g| !g.is_empty()), "no empty group");
        MaxPool::of_windows(Source::Reduce { min }, groups, input_len, span)
    }

    fn of_windows(source: Source, windows: Vec<Vec<usize>>, input_len: usize, span: Span) -> MaxPool {
        let mut count = vec![0usize; input_len];
        windows.iter().flatten().for_each(|&j| count[j] += 1);
        let overlap = count.into_iter().max().unwrap_or(1);
        MaxPool { source, windows, input_len, overlap, span }
    }

    fn min(&self) -> bool {
        matches!(self.source, Source::Reduce { min: true })
    }

    /// The engine's outputs on `v`, or its error: a pool's own kernel, or a reduction's
    /// `max`/`min` from `∓Infinity` in each group's order (`k_max`/`k_min` of the rules: on
    /// ties `max` keeps what it has, `min` takes the new element).
    fn computed(&self, v: &[f64]) -> Result<Vec<f64>, RunError> {
        let fail = |detail: String| RunError { kind: ErrorKind::InvalidOperands, detail, span: self.span };
        let mut out = vec![0.0; self.windows.len()];
        let min = match &self.source {
            Source::Pool(geometry) => {
                return pool_apply(Pool::Max, geometry, v, &mut out).map(|()| out).map_err(|nan| fail(nan.detail()));
            }
            Source::Reduce { min } => *min,
        };
        type Rule = fn(f64, f64) -> Option<f64>;
        let (start, op, name): (f64, Rule, &str) =
            if min { (f64::INFINITY, k_min, "min") } else { (f64::NEG_INFINITY, k_max, "max") };
        for (o, window) in out.iter_mut().zip(&self.windows) {
            let mut acc = start;
            for &j in window {
                acc = op(acc, v[j]).ok_or_else(|| {
                    fail(format!("`{name}` cannot compute with {} and {}", float_words(acc), float_words(v[j])))
                })?;
            }
            *o = acc;
        }
        Ok(out)
    }

    /// The tap of window `i` where the maximum of `v` is (the first of equal ones: `max` keeps
    /// the earlier on ties).
    fn argmax(&self, i: usize, v: impl Fn(usize) -> f64) -> usize {
        let window = &self.windows[i];
        let sign = if self.min() { -1.0 } else { 1.0 };
        let mut best = window[0];
        for &j in &window[1..] {
            if sign * v(j) > sign * v(best) {
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
        match &self.source {
            Source::Pool(g) => format!("MaxPool {:?} → {:?}", g.input, g.output),
            Source::Reduce { min } => {
                format!("{} of {} groups", if *min { "ReduceMin" } else { "ReduceMax" }, self.windows.len())
            }
        }
    }

    fn output_len(&self, _len: usize) -> usize {
        self.windows.len()
    }

    fn apply(&self, v: &[f64]) -> Vec<f64> {
        // A NaN is the engine's error (`failure`): the output is never read then.
        self.computed(v).unwrap_or_else(|_| vec![f64::NAN; self.windows.len()])
    }

    fn failure(&self, v: &[f64]) -> Option<RunError> {
        self.computed(v).err()
    }

    fn interval(&self, v: &[Interval]) -> Option<Vec<Interval>> {
        let (start, pick): (f64, fn(f64, f64) -> f64) = match self.min() {
            false => (f64::NEG_INFINITY, |a, b| if b > a { b } else { a }),
            true => (f64::INFINITY, |a, b| if b < a { b } else { a }),
        };
        Some(
            self.windows
                .iter()
                .map(|w| {
                    let lo = w.iter().fold(start, |m, &j| pick(m, v[j].lo));
                    let hi = w.iter().fold(start, |m, &j| pick(m, v[j].hi));
                    Interval::new(lo, hi)
                })
                .collect(),
        )
    }

    fn prepare(&self, input: &[Interval]) -> Prepared {
        // One window per input: each coefficient is one `g`, moved exactly.
        let g_sum = (self.overlap > 1).then(|| gamma(self.overlap));
        let (mut tap, mut exact, mut upper, mut charge) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        // A minimum as the maximum of the negated inputs: `near` is the end of each input
        // towards the extreme sought (its lower end for a max), `far` the other.
        let sign = if self.min() { -1.0 } else { 1.0 };
        let (near, far) = (
            |x: &Interval| if sign > 0.0 { x.lo } else { -x.hi },
            |x: &Interval| {
                if sign > 0.0 { x.hi } else { -x.lo }
            },
        );
        for (i, window) in self.windows.iter().enumerate() {
            let best = self.argmax(i, |j| sign * near(&input[j]));
            let top = window.iter().map(|&j| far(&input[j])).fold(f64::NEG_INFINITY, f64::max);
            tap.push(best);
            exact.push(window.iter().all(|&k| k == best || near(&input[best]) >= far(&input[k])));
            // The constant bound of the output: `max hi` for a max, `min lo` for a min.
            upper.push(sign * top);
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
                // For a min, `g·y = (−g)·max(−x)`: the max's rule with `−g`, moved back.
                let toward = if self.min() { -g } else { g };
                if toward > 0.0 || (toward < 0.0 && exact[i]) {
                    out[tap[i]] += g;
                    charged += g.abs() * charge[i];
                } else if toward < 0.0 {
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
        match &self.source {
            Source::Pool(geometry) => {
                let _failed = pool_lanes(Pool::Max, geometry, v, &mut out, lanes);
            }
            Source::Reduce { .. } => {
                for lane in 0..lanes {
                    let x: Vec<f64> = (0..self.input_len).map(|j| v[j * lanes + lane]).collect();
                    self.apply(&x).iter().enumerate().for_each(|(i, y)| out[i * lanes + lane] = *y);
                }
            }
        }
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
