//! A dense layer: a `MatVec` of the plan with the bias `let`s the optimiser fused into it.
//! `out[i] = (((0.0 + w[i][0]·x[0]) + w[i][1]·x[1]) + …)`, then `out[i] + bias[i]` where a
//! bias is given: `linear-rows-step` and `linear-cols-step` walk the rows and columns in order,
//! `rev-linear-mac` multiplies then adds (docs/verification.md, "Dense").

use std::sync::{Arc, OnceLock};

use knn_engine::bigstep::ops::Op;
use knn_engine::tensor::{Epilogue, LANE_GROUP, Matrix, Precision, matmul_lanes, matvec, transpose};

mod ends;

use ends::all_row_ends;
pub(super) use ends::{product, row_interval};

use super::{Chain, ChosenLines, Layer, LowerChoice, Operator, Pass, Prepared};
use crate::float::{ETA, Interval, NonNegativeSum, add_down, add_up, gamma, mul_up, sub_down, sum_up};
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
/// the charges (1) and (2) of [`crate::linear`], the underflow charge of a row, and the inputs
/// that are exactly zero on the box (`dead`): a coefficient of such an input contributes exactly
/// 0, and so does its rounding error, so it is set to 0.
struct Charges {
    charge: Vec<f64>,
    underflow: f64,
    sums: NonNegativeSum,
    dead: Vec<usize>,
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
        let ends = all_row_ends(self.transposed(), v, &self.bias, self.w.skips_zero_inputs());
        (0..self.w.rows())
            .map(|i| {
                let end = ends[i];
                // Finite ends: no product and no partial sum was infinite or NaN ([`row_interval`]).
                if end.lo.is_finite() && end.hi.is_finite() {
                    return Some(end);
                }
                row_interval(self.w.row(i).iter().copied().zip(v.iter().copied()), self.bias[i])
            })
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
        // a_i ≥ Σ_j |W_ij|·|u_j|.
        let charge = magnitude_sums(self.transposed(), &magnitude)
            .into_iter()
            .zip(bias)
            .map(|(sum, &b)| row_charge(row_sums.bound(sum), b, (g_engine, engine_underflow), g_ours))
            .collect();
        // (2)'s underflow: m·η per coefficient of G·W times |u_j|, and m·η for G·b.
        let underflow = mul_up(m as f64, mul_up(ETA, add_up(sum_up(magnitude.iter().copied()), 1.0)));
        let dead: Vec<usize> = (0..n).filter(|&j| magnitude[j] == 0.0).collect();
        Box::new(Charges { charge, underflow, sums: NonNegativeSum::new(m), dead })
    }

    fn substitute(&self, prepared: &Prepared, pass: &mut Pass, lower: LowerChoice<'_>) {
        self.substitute_parts(&[prepared], &[pass.count], pass, lower);
    }

    /// `G·W` of every part's rows in one product (each row the bits of its product alone:
    /// every kernel sums a row's terms in the same order), then each row's charges from its
    /// own part's bounds.
    fn substitute_parts(&self, prepared: &[&Prepared], counts: &[usize], pass: &mut Pass, _lower: LowerChoice<'_>) {
        let (m, n) = (self.w.rows(), self.w.cols());
        // G·W as Wᵀ·Gᵀ on the engine's kernels in fast mode (fused multiply-adds, each sum in
        // order): the error bound γ_m of (2) holds for any such sum.
        let mut next = if self.w.skips_zero_inputs() {
            times_rows(self.transposed(), &pass.g, pass.count)
        } else {
            // A weight is infinite or NaN: a zero coefficient must not meet it (0·∞ is NaN).
            rows_times_w(&self.w, &pass.g, pass.count)
        };
        let part_of_row = prepared.iter().zip(counts).flat_map(|(p, &count)| std::iter::repeat_n(*p, count));
        for (r, prepared) in part_of_row.enumerate() {
            let Charges { charge, underflow, sums, dead, .. } =
                prepared.downcast_ref().expect("prepared by Dense::prepare");
            let gr = &pass.g[r * m..(r + 1) * m];
            let (mut through_bias, mut charged) = (0.0, 0.0);
            for (i, &gi) in gr.iter().enumerate() {
                if gi == 0.0 {
                    continue;
                }
                if let Some(b) = self.bias[i] {
                    through_bias += gi * b;
                }
                charged += gi.abs() * charge[i];
            }
            for &j in dead {
                next[r * n + j] = 0.0;
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

    /// Every row's product in one batched product in fast mode.
    fn relaxed_forward_rows(&self, d: Vec<f64>, rows: usize, _lines: &ChosenLines<'_>) -> Vec<f64> {
        let mut out = times_rows(&self.w, &d, rows);
        let n = self.w.rows();
        for row in out.chunks_mut(n) {
            for (o, b) in row.iter_mut().zip(&self.bias) {
                *o += b.unwrap_or(0.0);
            }
        }
        out
    }

    /// The engine's vectorised product in fast mode (it only steers the slopes).
    fn relaxed_forward(&self, d: Vec<f64>, _lines: &ChosenLines<'_>) -> Vec<f64> {
        let mut out = vec![0.0; self.w.rows()];
        matvec(&self.w, &d, &mut out, Precision::Fast, Epilogue { bias: Some(&self.bias), relu: None });
        out
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

/// `M·g_r` for each of the `count` rows `g_r` of `g` (row-major), row-major: with `M = Wᵀ`,
/// the rows times `W`. Many rows go through the batched kernel, feature-major; a few one at a
/// time. Fast mode: fused multiply-adds, each sum in order.
fn times_rows(wt: &Matrix, g: &[f64], count: usize) -> Vec<f64> {
    let (n, m) = (wt.rows(), wt.cols());
    let mut next = vec![0.0; count * n];
    if count < LANE_GROUP / 2 {
        for r in 0..count {
            let out = &mut next[r * n..(r + 1) * n];
            matvec(wt, &g[r * m..(r + 1) * m], out, Precision::Fast, Epilogue::default());
        }
        return next;
    }
    let lanes = unaliased_lanes(count);
    LANES.with_borrow_mut(|(rows, out)| {
        // Buffers kept from call to call: fresh ones of this size cost a page fault per 4 KiB
        // (a tenth of mnist_fc's search). The padding lanes are zeros; the rest is written.
        rows.resize(m * lanes, 0.0);
        out.resize(n * lanes, 0.0);
        let (rows, out) = (&mut rows[..m * lanes], &mut out[..n * lanes]);
        transpose(g, m, rows, lanes, count, m);
        for column in rows.chunks_exact_mut(lanes) {
            column[count..].fill(0.0);
        }
        // The kernel that skips zero inputs where they are many (the coefficients of stable
        // relus are): on mnist_fc 256×4 the dense kernel took twice as long.
        matmul_lanes(wt, rows, out, lanes, Precision::Fast, Epilogue::default());
        transpose(out, lanes, &mut next, n, n, count);
    });
    next
}

/// The lanes for `count` rows: a multiple of the kernel's group, but not of 512 (4 KiB of
/// `f64`). At a stride of 4 KiB every line a transpose tile touches falls in one set of the L1
/// cache, which holds fewer lines than a tile: 512 rows of 256 took four times as long to
/// transpose as 520 (mnist_fc's refinement bounds 2·256 ends of a layer in one pass).
fn unaliased_lanes(count: usize) -> usize {
    let lanes = count.next_multiple_of(LANE_GROUP);
    if lanes.is_multiple_of(512) { lanes + LANE_GROUP } else { lanes }
}

thread_local! {
    /// [`times_rows`]' operands and products in lanes.
    static LANES: std::cell::RefCell<(Vec<f64>, Vec<f64>)> = const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
}

/// The rows `g` times `W` term by term, skipping zero coefficients.
fn rows_times_w(w: &Matrix, g: &[f64], count: usize) -> Vec<f64> {
    let (m, n) = (w.rows(), w.cols());
    let mut next = vec![0.0; count * n];
    for r in 0..count {
        let out = &mut next[r * n..(r + 1) * n];
        for (i, &gi) in g[r * m..(r + 1) * m].iter().enumerate().filter(|(_, gi)| **gi != 0.0) {
            for (o, wij) in out.iter_mut().zip(w.row(i)) {
                *o += gi * wij;
            }
        }
    }
    next
}

/// `Σ_j |W_ij|·u_j` of every row `i` (`u` non-negative), given `wt = Wᵀ`: each row's sum in
/// order of `j`, a product then an addition per term (the bits of the row's own sequential
/// sum), vectorised across the rows.
fn magnitude_sums(wt: &Matrix, u: &[f64]) -> Vec<f64> {
    let mut sums = vec![0.0; wt.cols()];
    for (j, &uj) in u.iter().enumerate() {
        for (s, &w) in sums.iter_mut().zip(wt.row(j)) {
            *s += w.abs() * uj;
        }
    }
    sums
}

#[cfg(test)]
#[path = "dense_tests.rs"]
mod tests;
