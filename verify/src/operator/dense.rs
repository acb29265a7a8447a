//! A dense layer: a `MatVec` of the plan with the bias `let`s the optimiser fused into it.
//! `out[i] = (((0.0 + w[i][0]·x[0]) + w[i][1]·x[1]) + …)`, then `out[i] + bias[i]` where a
//! bias is given: `linear-rows-step` and `linear-cols-step` walk the rows and columns in order,
//! `rev-linear-mac` multiplies then adds (docs/verification.md, "Dense").

use std::sync::{Arc, OnceLock};

use knn_engine::bigstep::ops::Op;
use knn_engine::tensor::{Epilogue, Matrix, Precision, matmul_lanes};

use super::{Chain, ChosenLines, Layer, LowerChoice, Operator, Pass, Prepared};
use crate::float::{ETA, Interval, NonNegativeSum, add_down, add_up, engine_sum, gamma, mul_up, sub_down, sum_up};
use crate::unsupported::{Unsupported, unsupported};

#[derive(Clone, Debug)]
pub struct Dense {
    w: Arc<Matrix>,
    bias: Vec<Option<f64>>,
    /// `wᵀ`, for the attack's gradients of many points at once: made on first use.
    transposed: OnceLock<Matrix>,
}

impl Dense {
    pub fn new(w: Arc<Matrix>, bias: Vec<Option<f64>>) -> Dense {
        Dense { w, bias, transposed: OnceLock::new() }
    }

    fn transposed(&self) -> &Matrix {
        self.transposed.get_or_init(|| {
            let (m, n) = (self.w.rows(), self.w.cols());
            let mut t = vec![0.0; m * n];
            for i in 0..m {
                for (j, wij) in self.w.row(i).iter().enumerate() {
                    t[j * m + i] = *wij;
                }
            }
            Matrix::new(n, m, t)
        })
    }

    /// Reads a `MatVec` of the plan onto `chain`: a dense layer on the whole of the last
    /// vector, then the relu the optimiser fused into it, if any.
    pub fn read(op: &Op, chain: &mut Chain) -> Result<(), Unsupported> {
        let Op::MatVec { out, w, x, x_at, bias, relu } = op else { unreachable!("a MatVec") };
        if *x != chain.current || *x_at != 0 || w.cols() != chain.len {
            return Err(unsupported(
                "a linear layer on part of a vector, or on a vector other than the last one computed",
                None,
            ));
        }
        let bias = bias.as_deref().map_or_else(|| vec![None; w.rows()], <[Option<f64>]>::to_vec);
        chain.layers.push(Layer::dense(w.clone(), bias));
        chain.current = *out;
        chain.len = w.rows();
        if let Some(relu) = relu {
            chain.layers.push(Layer::relu());
            chain.current = relu.out;
        }
        Ok(())
    }
}

/// What back-substitution through a dense layer needs on one box: the weight per output of
/// the charges (1) and (2) of [`crate::linear`], the underflow charge of a row, and the weights
/// restricted to the inputs that are not exactly zero on the box (`live`): a coefficient of an
/// input that is 0 contributes exactly 0, and so does its rounding error, so it need not be
/// computed.
struct Charges {
    charge: Vec<f64>,
    underflow: f64,
    sums: NonNegativeSum,
    live: Vec<usize>,
    live_weights: Vec<f64>,
}

impl Operator for Dense {
    fn describe(&self) -> String {
        format!("Dense {}x{} {:?}", self.w.rows(), self.w.cols(), self.bias)
    }

    fn output_len(&self, _len: usize) -> usize {
        self.w.rows()
    }

    fn weights(&self) -> usize {
        self.w.rows() * self.w.cols()
    }

    fn apply(&self, v: &[f64]) -> Vec<f64> {
        (0..self.w.rows())
            .map(|i| {
                let sum = self.w.row(i).iter().zip(v).fold(0.0, |s, (wij, xj)| s + wij * xj);
                self.bias[i].map_or(sum, |b| sum + b)
            })
            .collect()
    }

    fn interval(&self, v: &[Interval]) -> Option<Vec<Interval>> {
        (0..self.w.rows())
            .map(|i| row_interval(self.w.row(i).iter().copied().zip(v.iter().copied()), self.bias[i]))
            .collect()
    }

    fn exact_on_box(&self) -> bool {
        true
    }

    fn prepare(&self, input: &[Interval]) -> Prepared {
        let (w, bias) = (&self.w, &self.bias);
        let magnitude: Vec<f64> = input.iter().map(Interval::magnitude).collect();
        let (m, n) = (w.rows(), w.cols());
        let (g_engine, g_ours) = (gamma(n + 1), gamma(m));
        let row_sums = NonNegativeSum::new(n);
        let engine_underflow = mul_up((n + 1) as f64, ETA);
        let charge = (0..m)
            .map(|i| {
                // a_i ≥ Σ_j |W_ij|·|u_j|.
                let a = row_sums.bound(w.row(i).iter().zip(&magnitude).map(|(x, u)| x.abs() * u).sum());
                row_charge(a, bias[i], (g_engine, engine_underflow), g_ours)
            })
            .collect();
        // (2)'s underflow: m·η per coefficient of G·W times |u_j|, and m·η for G·b.
        let underflow = mul_up(m as f64, mul_up(ETA, add_up(sum_up(magnitude.iter().copied()), 1.0)));
        let live: Vec<usize> = (0..n).filter(|&j| magnitude[j] != 0.0).collect();
        let mut live_weights = Vec::with_capacity(m * live.len());
        for i in 0..m {
            let row = w.row(i);
            live_weights.extend(live.iter().map(|&j| row[j]));
        }
        Box::new(Charges { charge, underflow, sums: NonNegativeSum::new(m), live, live_weights })
    }

    fn substitute(&self, prepared: &Prepared, pass: &mut Pass, _lower: LowerChoice<'_>) {
        let Charges { charge, underflow, sums, live, live_weights } =
            prepared.downcast_ref().expect("prepared by Dense::prepare");
        let (m, n, width) = (self.w.rows(), self.w.cols(), live.len());
        let add_rows = row_kernel();
        let mut next = vec![0.0; pass.count * n];
        let mut sums_live = vec![0.0; width];
        for r in 0..pass.count {
            let gr = &pass.g[r * m..(r + 1) * m];
            sums_live.fill(0.0);
            let (mut through_bias, mut charged) = (0.0, 0.0);
            for (i, &gi) in gr.iter().enumerate() {
                if gi == 0.0 {
                    continue;
                }
                add_rows(&mut sums_live, gi, &live_weights[i * width..(i + 1) * width]);
                if let Some(b) = self.bias[i] {
                    through_bias += gi * b;
                }
                charged += gi.abs() * charge[i];
            }
            let out = &mut next[r * n..(r + 1) * n];
            for (&j, v) in live.iter().zip(&sums_live) {
                out[j] = *v;
            }
            let charged = add_up(sums.bound(charged), *underflow);
            pass.acc[r] = sub_down(add_down(pass.acc[r], through_bias), charged);
        }
        pass.g = next;
        pass.width = n;
    }

    fn backpropagate(&self, g: Vec<f64>, _input: &[f64], _output: &[f64]) -> Vec<f64> {
        let mut back = vec![0.0; self.w.cols()];
        for (i, gi) in g.iter().enumerate() {
            for (b, wij) in back.iter_mut().zip(self.w.row(i)) {
                *b += gi * wij;
            }
        }
        back
    }

    /// The engine's batched product in exact mode, the bias in its epilogue: `apply`'s bits.
    fn apply_lanes(&self, v: &[f64], lanes: usize) -> Vec<f64> {
        let mut out = vec![0.0; self.w.rows() * lanes];
        matmul_lanes(&self.w, v, &mut out, lanes, Precision::Exact, Epilogue { bias: Some(&self.bias), relu: None });
        out
    }

    /// `wᵀ·g` for every lane, with fused multiply-adds (it only steers).
    fn backpropagate_lanes(&self, g: Vec<f64>, _input: &[f64], _output: &[f64], lanes: usize) -> Vec<f64> {
        let mut back = vec![0.0; self.w.cols() * lanes];
        matmul_lanes(self.transposed(), &g, &mut back, lanes, Precision::Fast, Epilogue::default());
        back
    }

    fn relaxed_forward(&self, d: Vec<f64>, _lines: &ChosenLines<'_>) -> Vec<f64> {
        (0..self.w.rows()).map(|i| dot(self.w.row(i), &d) + self.bias[i].unwrap_or(0.0)).collect()
    }
}

/// The charges (1) and (2) of [`crate::linear`] of one output `Σ w·x (+ b)` whose terms have
/// `a ≥ Σ|w|·|u|` on the box: `γ_{n+1}(a + |b|) + (n+1)η` for the engine's sum of `n` products
/// and the bias (`engine`: `(γ_{n+1}, (n+1)η)`), `γ_m(a + |b|)` for our sums `G·W`, `G·b` of at
/// most `m` terms (`ours`: `γ_m`).
pub(super) fn row_charge(a: f64, bias: Option<f64>, (g_engine, engine_underflow): (f64, f64), g_ours: f64) -> f64 {
    let ab = add_up(a, bias.map_or(0.0, f64::abs));
    add_up(add_up(mul_up(g_engine, ab), engine_underflow), mul_up(g_ours, ab))
}

/// The enclosure of one output `((0.0 + fl(w₀·x₀)) + fl(w₁·x₁) + …) (+ b)` for `x` in the
/// intervals of `terms` (weight, input range) as the engine computes it, or `None` when it may
/// be NaN somewhere in the box.
pub(super) fn row_interval(
    terms: impl Iterator<Item = (f64, Interval)> + Clone,
    bias: Option<f64>,
) -> Option<Interval> {
    let ends = row_ends(terms.clone(), bias);
    // Finite ends mean that no product and no partial sum could be infinite (an infinite or
    // NaN end would have reached the last sum), so no NaN either.
    if ends.lo.is_finite() && ends.hi.is_finite() {
        return Some(ends);
    }
    // The engine's sum starts from 0.0 and adds fl(w·x) term by term.
    let mut sum = Interval::point(0.0);
    for (w, x) in terms {
        sum = engine_sum(sum, product(w, x)?)?;
    }
    match bias {
        Some(b) => engine_sum(sum, Interval::point(b)),
        None => Some(sum),
    }
}

/// The ends of one row, each computed as the engine computes a point: the sum from 0.0 of
/// `fl(w·x)` at the end of `x` that makes it smallest (largest), then the bias. An enclosure
/// wherever no NaN can be made (rounding is monotone); the fast path of [`row_interval`],
/// which checks that.
fn row_ends(terms: impl Iterator<Item = (f64, Interval)>, bias: Option<f64>) -> Interval {
    let (mut lo, mut hi) = (0.0, 0.0);
    for (wij, x) in terms {
        // fl(w·x) is monotone in x: increasing for w ≥ 0, decreasing otherwise.
        let (a, b) = (wij * x.lo, wij * x.hi);
        let (tl, th) = if wij >= 0.0 { (a, b) } else { (b, a) };
        lo += tl;
        hi += th;
    }
    match bias {
        Some(b) => Interval::new(lo + b, hi + b),
        None => Interval::new(lo, hi),
    }
}

/// The values `fl(w·x)` takes for `x` in `x` (never NaN), or `None` when one may be NaN: a
/// NaN weight, `±∞·0` (an infinite weight and an input range holding zero), `0·±∞` (a zero
/// weight and an input range reaching infinity). Elsewhere `fl(w·x)` is monotone in `x`
/// (increasing for `w > 0`, decreasing for `w < 0`, `±0` for `w = ±0`), so the ends map to
/// the ends.
pub(super) fn product(w: f64, x: Interval) -> Option<Interval> {
    let holds_zero = x.lo <= 0.0 && 0.0 <= x.hi;
    let reaches_infinity = x.lo == f64::NEG_INFINITY || x.hi == f64::INFINITY;
    if w.is_nan() || (w.is_infinite() && holds_zero) || (w == 0.0 && reaches_infinity) {
        return None;
    }
    let (a, b) = (w * x.lo, w * x.hi);
    Some(if w >= 0.0 { Interval::new(a, b) } else { Interval::new(b, a) })
}

/// `a·b` in eight independent partial sums (the slope optimiser only steers, so the order of
/// the sum is free): a sequential sum waits on each addition's latency.
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut partial = [0.0; 8];
    let (a_chunks, b_chunks) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f64 = a_chunks.remainder().iter().zip(b_chunks.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in a_chunks.zip(b_chunks) {
        for k in 0..8 {
            partial[k] += x[k] * y[k];
        }
    }
    partial.iter().sum::<f64>() + tail
}

/// `out += g·row`, the inner step of `G·W`: with fused multiply-adds where the CPU has them
/// (one rounding per step instead of two: the error bound `γ_m` of (2) still holds).
type RowKernel = fn(&mut [f64], f64, &[f64]);

fn row_kernel() -> RowKernel {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        return add_row_fma;
    }
    add_row
}

fn add_row(out: &mut [f64], g: f64, row: &[f64]) {
    for (o, w) in out.iter_mut().zip(row) {
        *o += g * w;
    }
}

#[cfg(target_arch = "x86_64")]
fn add_row_fma(out: &mut [f64], g: f64, row: &[f64]) {
    // SAFETY: chosen by `row_kernel` only where the CPU has AVX2 and FMA.
    unsafe { add_row_avx2(out, g, row) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn add_row_avx2(out: &mut [f64], g: f64, row: &[f64]) {
    for (o, w) in out.iter_mut().zip(row) {
        *o = g.mul_add(*w, *o);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::float::UNIT_ROUNDOFF;

    fn charges(layer: &Dense, input: &[Interval]) -> Charges {
        let prepared = layer.prepare(input);
        *prepared.downcast::<Charges>().expect("a dense layer is prepared as one")
    }

    #[test]
    fn a_dense_layers_charge_is_the_documented_bound() {
        // One output, weights (3, 0.5), bias 4, inputs bounded by |u| ≤ (2, 4): a = 3·2 + 0.5·4
        // = 8, a + |b| = 12; n = 2 inputs, m = 1 output. docs/verification.md: the engine's
        // error γ_{n+1}(a + |b|) + (n+1)η = γ_3·12 + 3η, ours γ_m(a + |b|) = γ_1·12, with
        // γ_k = k·u/(1 − k·u): 12·(3u/(1 − 3u) + u/(1 − u)) ≈ 48u, u = 2^-53.
        let layer = Dense::new(Arc::new(Matrix::new(1, 2, vec![3.0, 0.5])), vec![Some(4.0)]);
        let Charges { charge, underflow, live, .. } =
            charges(&layer, &[Interval::new(-2.0, 1.0), Interval::new(0.0, 4.0)]);
        let u = UNIT_ROUNDOFF;
        let expected = 12.0 * (3.0 * u / (1.0 - 3.0 * u) + u / (1.0 - u));
        assert!(charge[0] >= expected && charge[0] <= expected * (1.0 + 1e-12), "{} vs {expected}", charge[0]);
        // The underflow of G·W and G·b: m·η·(Σ|u| + 1) = 7η.
        assert!((7.0 * ETA..=8.0 * ETA).contains(&underflow), "{underflow}");
        assert_eq!(live, vec![0, 1]);
    }

    #[test]
    fn inputs_that_are_exactly_zero_are_left_out_of_the_product() {
        let layer = Dense::new(Arc::new(Matrix::new(2, 3, vec![1.0; 6])), vec![None, None]);
        let Charges { live, live_weights, .. } =
            charges(&layer, &[Interval::new(0.0, 0.0), Interval::new(-1.0, 1.0), Interval::new(0.0, 0.0)]);
        assert_eq!(live, vec![1]);
        assert_eq!(live_weights, vec![1.0, 1.0]);
    }

    #[test]
    fn both_row_kernels_add_a_multiple_of_a_row() {
        // out += g·row, exactly here (small dyadic numbers): the plain kernel is the one used
        // on CPUs without FMA, so it is checked on its own.
        let row = [1.0, -2.0, 0.5, 4.0, 0.0, 3.0, -1.5, 2.0, 8.0];
        let expected: Vec<f64> = row.iter().enumerate().map(|(j, w)| j as f64 + 2.5 * w).collect();
        let mut kernels: Vec<RowKernel> = vec![add_row, row_kernel()];
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
            kernels.push(add_row_fma);
        }
        for kernel in kernels {
            let mut out: Vec<f64> = (0..row.len()).map(|j| j as f64).collect();
            kernel(&mut out, 2.5, &row);
            assert_eq!(out, expected);
        }
    }
}
