//! Products that skip the terms whose input is ±0.0, which a relu layer produces for about
//! half of its outputs (and real ACAS Xu networks for two thirds to nine tenths). Skipping
//! keeps the reference's bits when every weight is finite ([`Matrix::skips_zero_inputs`]).
//!
//! A batch skips them lane by lane when enough of its inputs are zeros ([`worth_skipping`]):
//! each lane's sums are computed as for one input (vectorised across output rows) over its
//! nonzero inputs only.

use super::Matrix;

/// The share of zero inputs from which a batch skips them, lane by lane: with fewer, the dense
/// kernel's shared loads win. Measured on Zen 3 (`docs/performance.md`): for 50 rows, whose
/// sums stay in registers in one pass, the lane-by-lane kernel alone is 0.87× the dense one
/// with no zeros, about even with half, 1.6× with three quarters, 3× with nine tenths; in
/// whole ACAS Xu networks, whose layers' inputs come from a relu, skipping from a quarter was
/// faster than from a half or never.
pub const SKIP_FROM: f64 = 0.25;

/// [`SKIP_FROM`] for products of more than [`ONE_PASS_ROWS`] rows, which take several passes
/// with the weights streaming from L2: 0.48× the dense kernel with no zeros, 0.93× with half,
/// 1.9× with three quarters on 256 rows.
pub const SKIP_TALL_FROM: f64 = 0.6;

/// The most rows whose sums a lane keeps in registers in one pass.
pub const ONE_PASS_ROWS: usize = 52;

/// The lanes whose inputs are sampled to choose.
const SAMPLE_LANES: usize = 16;

/// The columns one input's sum runs over, in order: every column, or when the matrix allows
/// it only those whose input is not ±0.0.
pub fn terms(w: &Matrix, x: &[f64], columns: &mut Vec<u32>) {
    columns.clear();
    if w.skips_zero_inputs() {
        columns.extend((0..w.cols as u32).filter(|&j| x[j as usize] != 0.0));
    } else {
        columns.extend(0..w.cols as u32);
    }
}

/// Whether a batch (`x`: `cols × lanes`, feature-major, `lanes` at least 16) should skip its
/// zero inputs, judged by the share of zeros in its first 16 lanes ([`SKIP_FROM`],
/// [`SKIP_TALL_FROM`]).
pub fn worth_skipping(w: &Matrix, x: &[f64], lanes: usize) -> bool {
    if !w.skips_zero_inputs() || w.cols == 0 {
        return false;
    }
    let zeros: usize =
        (0..w.cols).map(|j| x[j * lanes..j * lanes + SAMPLE_LANES].iter().filter(|v| **v == 0.0).count()).sum();
    let from = if w.rows() <= ONE_PASS_ROWS { SKIP_FROM } else { SKIP_TALL_FROM };
    zeros as f64 >= from * (w.cols * SAMPLE_LANES) as f64
}
