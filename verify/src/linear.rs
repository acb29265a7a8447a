//! Linear bounds by back-substitution (CROWN, DeepPoly), sound for the binary64 values the
//! engine computes (docs/verification.md, "Linear bounds in floating point").
//!
//! A lower bound of `Σ_r g_r·v_r` for a vector `v` inside the network is carried backwards
//! as `g·v ≥ G·u + acc` over the vector `u` one layer earlier, down to the input, where the
//! box gives a number. Three things make this sound for the engine's bits and not only for
//! real arithmetic:
//!
//! 1. **The engine's rounding.** A dense layer computes `ẑ = fl(fl(W·u) + b)`, which is
//!    `W·u + b + δ` with `|δ_i| ≤ γ_{n+1}(Σ_j |W_ij|·|u_j| + |b_i|) + (n+1)·η` (`η = 2^-1074`).
//!    The box bounds `|u_j|`, so `δ` is a bounded extra input whose worst case is charged to
//!    `acc` with the weight `|g|`.
//! 2. **Our own rounding.** `G·W` is computed in binary64; the exact product differs by at
//!    most `γ_m·|G|·|W| + m·η` entrywise. Any coefficients are valid if the difference is
//!    charged too: `(G·W)·u ≥ fl(G·W)·u − err·|u|`, and `Σ_j err_j·|u_j|` is again bounded
//!    through `|W|·|u|`, a vector per layer. Likewise for the slopes of relaxations.
//! 3. **Directed rounding** for every number that ends up in `acc` ([`super::float`]).
//!
//! So the computed coefficients may carry any rounding error: only the constant must be, and
//! is, a rigorous bound.

use super::float::{ETA, UNIT_ROUNDOFF, add_down, add_up, mul_down, mul_up, sub_down};
use super::interval::Bounds;
use super::network::Layer;
use super::prepare::{Prepared, PreparedLayers};
use super::relax::{Line, LowerSlope};

/// A linear lower bound over the input box: for every input `x` of the box,
/// `target ≥ coefficients·x + constant` in exact arithmetic, and `value` is a lower bound of
/// the right-hand side's minimum over the box (so of the target).
#[derive(Clone, Debug)]
pub struct LowerBound {
    pub coefficients: Vec<f64>,
    pub constant: f64,
    pub value: f64,
}

/// Lower bounds of `rows[r]·v` for `v` the output of layer `from`, over the box of `bounds`:
/// for each row the better of the bounds with either lower slope of unstable relus (both
/// hold, so the larger does).
pub fn back_substitute(
    layers: &[Layer],
    bounds: &Bounds,
    prepared: &mut PreparedLayers,
    from: usize,
    rows: Vec<f64>,
    width: usize,
) -> Vec<LowerBound> {
    let adaptive = back_substitute_with(
        layers,
        bounds,
        prepared,
        from,
        rows.clone(),
        width,
        LowerLines::Slope(LowerSlope::Adaptive),
        None,
    );
    let chord =
        back_substitute_with(layers, bounds, prepared, from, rows, width, LowerLines::Slope(LowerSlope::Chord), None);
    adaptive.into_iter().zip(chord).map(|(a, c)| if c.value > a.value { c } else { a }).collect()
}

/// Which lower lines bound the activations from below.
#[derive(Clone, Copy)]
pub enum LowerLines<'a> {
    /// The prepared lines of one choice of relu slope.
    Slope(LowerSlope),
    /// Lines given per layer (empty for layers that are not activations); each must be below
    /// the activation on its input's range (`α·z` with `α ∈ [0, 1]` for relu).
    Given(&'a [Vec<Line>]),
    /// Given lines, and multipliers of sign constraints (β-CROWN): on a part of the box where
    /// each element `i` of layer `k`'s output with `shifts[k][i] ≠ 0` has the sign of
    /// `shifts[k][i]`, the coefficient of that element is lowered by `shifts[k][i]` when the
    /// pass reaches layer `k`. The bound is then one of `target − Σ c_i·v_i` with `c_i` the
    /// exact change of the coefficient, which rounding cannot give the wrong sign (`fl` is
    /// monotone: `fl(g − s) ≤ g` for `s > 0`): so `c_i·v_i ≥ 0` on the part, and the bound holds
    /// there (only there).
    Constrained(&'a [Vec<Line>], &'a [Vec<f64>]),
}

/// Lower bounds of `rows[r]·v` with one choice of lower lines. `rows` is row-major, `width`
/// entries a row. One pass per layer carries every row. With `trace`, the coefficients met
/// before each layer are recorded (`trace[k]`: over layer `k`'s output), for gradients.
#[allow(clippy::too_many_arguments, reason = "the pass's inputs, each used once")]
pub(super) fn back_substitute_with(
    layers: &[Layer],
    bounds: &Bounds,
    prepared: &mut PreparedLayers,
    from: usize,
    rows: Vec<f64>,
    width: usize,
    lines: LowerLines<'_>,
    mut trace: Option<&mut Vec<Vec<f64>>>,
) -> Vec<LowerBound> {
    if let Some(trace) = trace.as_deref_mut() {
        trace.clear();
        trace.resize(from + 1, Vec::new());
    }
    let count = rows.len() / width.max(1);
    let mut g = rows;
    let mut g_width = width;
    let mut acc = vec![0.0f64; count];
    let add_rows = row_kernel();
    for k in (0..=from).rev() {
        if let LowerLines::Constrained(_, shifts) = lines
            && let Some(shift) = shifts.get(k).filter(|s| s.len() == g_width)
        {
            for r in 0..count {
                for (gi, s) in g[r * g_width..(r + 1) * g_width].iter_mut().zip(shift) {
                    *gi -= s;
                }
            }
        }
        if let Some(trace) = trace.as_deref_mut() {
            trace[k] = g.clone();
        }
        match (&layers[k], prepared.get(layers, bounds, k)) {
            (Layer::Dense { w, bias }, Prepared::Dense { charge, underflow, sums, live, live_weights }) => {
                let (m, n, width) = (w.rows(), w.cols(), live.len());
                let mut next = vec![0.0; count * n];
                let mut sums_live = vec![0.0; width];
                for r in 0..count {
                    let gr = &g[r * m..(r + 1) * m];
                    sums_live.fill(0.0);
                    let (mut through_bias, mut charged) = (0.0, 0.0);
                    for (i, &gi) in gr.iter().enumerate() {
                        if gi == 0.0 {
                            continue;
                        }
                        add_rows(&mut sums_live, gi, &live_weights[i * width..(i + 1) * width]);
                        if let Some(b) = bias[i] {
                            through_bias += gi * b;
                        }
                        charged += gi.abs() * charge[i];
                    }
                    let out = &mut next[r * n..(r + 1) * n];
                    for (&j, v) in live.iter().zip(&sums_live) {
                        out[j] = *v;
                    }
                    let charged = add_up(sums.bound(charged), *underflow);
                    acc[r] = sub_down(add_down(acc[r], through_bias), charged);
                }
                g = next;
                g_width = n;
            }
            (Layer::Bias(bias), Prepared::Bias { charge, underflow, sums }) => {
                let m = bias.len();
                for r in 0..count {
                    let gr = &g[r * m..(r + 1) * m];
                    let (mut through_bias, mut charged) = (0.0, 0.0);
                    for ((gi, b), c) in gr.iter().zip(bias).zip(charge) {
                        if let Some(b) = b {
                            through_bias += gi * b;
                            charged += gi.abs() * c;
                        }
                    }
                    let charged = add_up(sums.bound(charged), *underflow);
                    acc[r] = sub_down(add_down(acc[r], through_bias), charged);
                }
            }
            (_, Prepared::Activation { lower, upper, magnitude, sums, gamma, underflow }) => {
                let m = magnitude.len();
                let lower: &[Line] = match lines {
                    LowerLines::Slope(slope) => &lower[slope as usize],
                    LowerLines::Given(given) | LowerLines::Constrained(given, _) => &given[k],
                };
                for r in 0..count {
                    let gr = &mut g[r * m..(r + 1) * m];
                    // Σ g·c over the lines' intercepts (fast, its error charged below), and
                    // Σ|fl(g·s)|·|z|, Σ|z| over rounded slope products, for (2).
                    let (mut constant, mut constant_magnitude) = (0.0, 0.0);
                    let (mut rounded, mut rounded_magnitude) = (0.0, 0.0);
                    for (((gi, low), high), z) in gr.iter_mut().zip(lower).zip(upper).zip(magnitude) {
                        let g = *gi;
                        if g == 0.0 {
                            continue;
                        }
                        // g·f(z) ≥ g·(s·z + c) with the lower line for g ≥ 0, the upper one else.
                        let line = if g >= 0.0 { low } else { high };
                        let term = g * line.intercept;
                        constant += term;
                        constant_magnitude += term.abs();
                        let product = g * line.slope;
                        if line.slope != 0.0 && line.slope != 1.0 {
                            rounded += product.abs() * z;
                            rounded_magnitude += z;
                        }
                        *gi = product;
                    }
                    // |fl(Σ g·c) − Σ g·c| ≤ γ_m·Σ|g·c| + m·η; |g·s − fl(g·s)| ≤ u·|fl(g·s)| + η.
                    let mut charged = add_up(mul_up(*gamma, sums.bound(constant_magnitude)), *underflow);
                    if rounded_magnitude != 0.0 {
                        let slopes = add_up(
                            mul_up(UNIT_ROUNDOFF, sums.bound(rounded)),
                            mul_up(ETA, sums.bound(rounded_magnitude)),
                        );
                        charged = add_up(charged, slopes);
                    }
                    acc[r] = sub_down(add_down(acc[r], constant), charged);
                }
            }
            _ => unreachable!("prepare keeps the layer's kind"),
        }
    }
    let input = &bounds.input;
    (0..count)
        .map(|r| {
            let coefficients = g[r * g_width..(r + 1) * g_width].to_vec();
            let value = coefficients
                .iter()
                .zip(input)
                .fold(acc[r], |s, (&c, x)| add_down(s, if c >= 0.0 { mul_down(c, x.lo) } else { mul_down(c, x.hi) }));
            LowerBound { coefficients, constant: acc[r], value }
        })
        .collect()
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
#[path = "linear_tests.rs"]
mod tests;
