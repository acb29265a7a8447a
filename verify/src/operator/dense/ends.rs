//! The ends of a dense layer's outputs over a box, as the engine computes its sums: one row
//! at a time ([`row_interval`], NaN-aware), or every row at once along the transposed weights
//! ([`all_row_ends`], vectorised across the rows).

use knn_engine::tensor::Matrix;

use crate::float::{Interval, engine_sum};

/// The enclosure of one output `((0.0 + fl(w₀·x₀)) + fl(w₁·x₁) + …) (+ b)` for `x` in the
/// intervals of `terms` (weight, input range) as the engine computes it, or `None` when it may
/// be NaN somewhere in the box.
pub(in crate::operator) fn row_interval(
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
pub(super) fn row_ends(terms: impl Iterator<Item = (f64, Interval)>, bias: Option<f64>) -> Interval {
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
pub(in crate::operator) fn product(w: f64, x: Interval) -> Option<Interval> {
    let holds_zero = x.lo <= 0.0 && 0.0 <= x.hi;
    let reaches_infinity = x.lo == f64::NEG_INFINITY || x.hi == f64::INFINITY;
    if w.is_nan() || (w.is_infinite() && holds_zero) || (w == 0.0 && reaches_infinity) {
        return None;
    }
    let (a, b) = (w * x.lo, w * x.hi);
    Some(if w >= 0.0 { Interval::new(a, b) } else { Interval::new(b, a) })
}

/// [`row_ends`] of every row at once, given `wt = Wᵀ`: each row's sums in the same order, with
/// the same operations (so the same bits), vectorised across the rows (with AVX-512 where the
/// CPU has it: a fifth of the refinement's time went here). With `skip_zeros` (every weight
/// finite) an input of `[±0, ±0]` is skipped: its products are ±0, and a partial sum that
/// starts from 0.0 and adds products without fusing is never -0.0, so adding them changes
/// nothing.
pub(super) fn all_row_ends(wt: &Matrix, v: &[Interval], bias: &[Option<f64>], skip_zeros: bool) -> Vec<Interval> {
    // The engine's choice of instruction set, so that the verifier and the kernels agree.
    #[cfg(target_arch = "x86_64")]
    if knn_engine::tensor::Isa::detect() == knn_engine::tensor::Isa::Avx512 {
        // SAFETY: the CPU has AVX-512F (`Isa::detect` checked it).
        return unsafe { all_row_ends_avx512(wt, v, bias, skip_zeros) };
    }
    row_ends_across_rows(wt, v, bias, skip_zeros)
}

/// [`row_ends_across_rows`] compiled for AVX-512.
///
/// # Safety
/// The CPU has AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn all_row_ends_avx512(wt: &Matrix, v: &[Interval], bias: &[Option<f64>], skip_zeros: bool) -> Vec<Interval> {
    row_ends_across_rows(wt, v, bias, skip_zeros)
}

#[inline(always)]
fn row_ends_across_rows(wt: &Matrix, v: &[Interval], bias: &[Option<f64>], skip_zeros: bool) -> Vec<Interval> {
    let m = wt.cols();
    let (mut lo, mut hi) = (vec![0.0; m], vec![0.0; m]);
    for (j, x) in v.iter().enumerate() {
        if skip_zeros && x.lo == 0.0 && x.hi == 0.0 {
            continue;
        }
        for ((l, h), &w) in lo.iter_mut().zip(hi.iter_mut()).zip(wt.row(j)) {
            // fl(w·x) is monotone in x: increasing for w ≥ 0, decreasing otherwise.
            let (a, b) = (w * x.lo, w * x.hi);
            let positive = w >= 0.0;
            *l += if positive { a } else { b };
            *h += if positive { b } else { a };
        }
    }
    (0..m)
        .map(|i| match bias[i] {
            Some(b) => Interval::new(lo[i] + b, hi[i] + b),
            None => Interval::new(lo[i], hi[i]),
        })
        .collect()
}
