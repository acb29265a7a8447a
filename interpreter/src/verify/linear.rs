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
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::tensor::Matrix;
    use crate::verify::float::Interval;
    use crate::verify::interval::network_bounds;
    use crate::verify::relax::LowerSlope;
    use crate::verify::tighten::{Slopes, tighten};

    fn dense(w: f64, b: f64) -> Layer {
        Layer::Dense { w: Arc::new(Matrix::new(1, 1, vec![w])), bias: vec![Some(b)] }
    }

    /// Bounds of the single output of `layers` on `[lo, hi]`: intervals, then back-substitution
    /// of `y` (lower) and `−y` (upper).
    fn linear_range(layers: &[Layer], lo: f64, hi: f64) -> (Interval, f64, f64) {
        let input = vec![Interval::new(lo, hi)];
        let mut bounds = Bounds { layers: network_bounds(layers, &input).unwrap(), input };
        let mut prepared = PreparedLayers::new(layers.len());
        tighten(layers, &mut bounds, &mut prepared, Slopes::Fixed).unwrap();
        let last = layers.len() - 1;
        let found = back_substitute(layers, &bounds, &mut prepared, last, vec![1.0, -1.0], 1);
        (bounds.layers[last][0], found[0].value, -found[1].value)
    }

    #[test]
    fn a_sum_that_rounds_up_past_the_real_range_is_bounded_as_computed() {
        // y = (x + 1e17) − 1e17 on [8.1, 8.2]: the spacing of binary64 at 1e17 is 16, so
        // x + 1e17 rounds to 1e17 + 16 and the engine computes y = 16 for every x there. The
        // real range is [8.1, 8.2]: a bound derived in real arithmetic (y ≤ 8.2) is wrong.
        let layers = [dense(1.0, 1e17), dense(1.0, -1e17)];
        assert_eq!(
            crate::verify::network::apply(&layers[1], &crate::verify::network::apply(&layers[0], &[8.15])),
            vec![16.0]
        );
        let (interval, lower, upper) = linear_range(&layers, 8.1, 8.2);
        assert_eq!(interval, Interval::new(16.0, 16.0), "interval bounds follow the engine's rounding");
        assert!(lower <= 16.0 && upper >= 16.0, "linear bounds [{lower}, {upper}] must hold 16");
        // The a-priori charges at magnitude 1e17 are wide (γ·1e17 ≈ 20 per operation); the
        // interval bound is the exact one there, and the search intersects both.
        assert!(upper - lower < 1000.0, "and stay finite and bounded: [{lower}, {upper}]");
    }

    #[test]
    fn relu_chains_with_cancellation_keep_their_rounding_charges() {
        // Through a relu: y = relu(x + 1e17) − 1e17 on [8.1, 8.2] is 16 as computed too.
        let layers = [dense(1.0, 1e17), Layer::Relu, dense(1.0, -1e17)];
        let (_, lower, upper) = linear_range(&layers, 8.1, 8.2);
        assert!(lower <= 16.0 && upper >= 16.0, "[{lower}, {upper}]");
    }

    #[test]
    fn a_bias_layer_after_a_relu_is_carried_through_with_its_charges() {
        // Dense(x) → relu → Bias(+0.5) → Dense(·2): on
        // [−1, 3], y = 2·(relu(x) + 0.5) ∈ [1, 7], at x ≤ 0 exactly 1 and at x = 3 exactly 7.
        let layers = [dense(1.0, 0.0), Layer::Relu, Layer::Bias(vec![Some(0.5)]), dense(2.0, 0.0)];
        let (interval, lower, upper) = linear_range(&layers, -1.0, 3.0);
        assert_eq!(interval, Interval::new(1.0, 7.0));
        assert!(lower <= 1.0 && upper >= 7.0, "[{lower}, {upper}]");
        // CROWN's best line below relu on [−1, 3] is 0.75·x, so the lower bound is 2·(−0.75) + 1
        // = −0.5; a bias subtracted instead would give [−2.5, 5].
        assert!(lower > -1.0 && upper < 8.0, "the bias is added, not subtracted: [{lower}, {upper}]");
        // The chord above relu is 0.75·x + 0.75, so y ≤ 2·(0.75·3 + 0.75 + 0.5) = 7: both bounds
        // are CROWN's, up to charges of a few ulps (the bias enters as 2·0.5, not 2 + 0.5).
        assert!(lower >= -0.5 - 1e-9 && upper <= 7.0 + 1e-9, "[{lower}, {upper}]");
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

    #[test]
    fn the_engines_rounding_in_a_long_dense_row_is_charged() {
        // y = fl(…fl(fl(1e17·1 + x_1) + x_2)… + x_10) − 1e17 with x_j ∈ [8.1, 8.2]: each
        // addition rounds up to the next multiple of 16 (the spacing at 1e17), so the engine
        // computes 160, while the real value is at most 82. Only the charge for the engine's
        // rounding (about γ_11·1e17 ≈ 122) lets the upper bound reach 160.
        let mut w = vec![1e17];
        w.extend([1.0; 10]);
        let layers = [Layer::Dense { w: Arc::new(Matrix::new(1, 11, w)), bias: vec![None] }, dense(1.0, -1e17)];
        let mut input = vec![Interval::point(1.0)];
        input.extend([Interval::new(8.1, 8.2); 10]);
        let mut bounds = Bounds { layers: network_bounds(&layers, &input).unwrap(), input };
        assert_eq!(bounds.layers[1], [Interval::point(160.0)], "the engine's value");
        let mut prepared = PreparedLayers::new(layers.len());
        tighten(&layers, &mut bounds, &mut prepared, Slopes::Fixed).unwrap();
        let found = back_substitute(&layers, &bounds, &mut prepared, 1, vec![1.0, -1.0], 1);
        let (lower, upper) = (found[0].value, -found[1].value);
        assert!(lower <= 160.0 && upper >= 160.0, "[{lower}, {upper}] must hold 160");
    }

    #[test]
    fn bias_layers_of_two_elements_are_carried_row_by_row_with_their_charges() {
        // v = x + (8.1, none) twenty times on x = (1e17, 1e17), then y = v_0 − v_1: each
        // addition rounds up by 16, so the engine computes 320 where the real value is 162.
        // The bias layers' own charges (u·(|v| + |b|) ≈ 11 each) are needed to reach 320;
        // each row must meet its own coefficients (y's lower bound and −y's both).
        let mut layers = vec![Layer::Bias(vec![Some(8.1), None]); 20];
        layers.push(Layer::Dense { w: Arc::new(Matrix::new(1, 2, vec![1.0, -1.0])), bias: vec![None] });
        let input = vec![Interval::point(1e17); 2];
        let mut bounds = Bounds { layers: network_bounds(&layers, &input).unwrap(), input };
        assert_eq!(bounds.layers[20], [Interval::point(320.0)], "the engine's value");
        let mut prepared = PreparedLayers::new(layers.len());
        tighten(&layers, &mut bounds, &mut prepared, Slopes::Fixed).unwrap();
        let found = back_substitute(&layers, &bounds, &mut prepared, 20, vec![1.0, -1.0], 1);
        let (lower, upper) = (found[0].value, -found[1].value);
        assert!(lower <= 320.0 && upper >= 320.0, "[{lower}, {upper}] must hold 320");
        // And the bounds stay finite and of the charges' size (a few hundred).
        assert!(upper - lower < 1000.0, "[{lower}, {upper}]");
    }

    #[test]
    fn relu_lines_charge_their_intercepts_sum_and_fractional_slopes_only() {
        // One relu layer on z ∈ [−1, 3]⁴ × [1, 2], row g = (−1, −1, 1, 2, 1). The chord has
        // slope 3/4 and intercept 3/4 (exact); the lower line is (3/4)·z. So Σ g·c = −1.5
        // exactly, and docs/verification.md charges (2): γ_5·Σ|g·c| = 7.5u for the sum of
        // intercepts, and u·|fl(g·s)|·|z| for each fractional slope: (0.75 + 0.75 + 0.75 + 1.5)
        // ·3·u = 11.25u; the identity line of the stable fifth element is exact, charged
        // nothing (the m·η terms are far below an ulp here).
        let layers = [Layer::Relu];
        let mut input = vec![Interval::new(-1.0, 3.0); 4];
        input.push(Interval::new(1.0, 2.0));
        let bounds = Bounds { layers: network_bounds(&layers, &input).unwrap(), input };
        let mut prepared = PreparedLayers::new(1);
        let row = vec![-1.0, -1.0, 1.0, 2.0, 1.0];
        let found = back_substitute_with(
            &layers,
            &bounds,
            &mut prepared,
            0,
            row,
            5,
            LowerLines::Slope(LowerSlope::Chord),
            None,
        );
        assert_eq!(found[0].coefficients, [-0.75, -0.75, 0.75, 1.5, 1.0]);
        let u = UNIT_ROUNDOFF;
        let charge = 18.75 * u;
        let constant = found[0].constant;
        // At least the documented charge, and at most one ulp of 1.5 (2u) more for rounding down.
        assert!(constant <= -1.5 - charge, "{constant} charges less than {charge}");
        assert!(constant >= -1.5 - charge - 2.0 * u - 1e-3 * charge, "{constant} charges more than {charge}");
    }

    #[test]
    fn bounds_are_exact_enough_on_small_exact_networks() {
        // y = relu(x) − relu(−x) = x on [−1, 2] (relu splits, both unstable): lower ≤ −1, upper ≥ 2.
        let layers = [
            Layer::Dense { w: Arc::new(Matrix::new(2, 1, vec![1.0, -1.0])), bias: vec![None, None] },
            Layer::Relu,
            Layer::Dense { w: Arc::new(Matrix::new(1, 2, vec![1.0, -1.0])), bias: vec![None] },
        ];
        let (_, lower, upper) = linear_range(&layers, -1.0, 2.0);
        assert!(lower <= -1.0 && upper >= 2.0, "[{lower}, {upper}]");
        assert!(lower > -3.0 && upper < 4.0, "[{lower}, {upper}]");
    }
}
