//! Products that skip the terms whose input is ±0.0, which a relu layer produces for about
//! half of its outputs (and real ACAS Xu networks for two thirds to nine tenths). Skipping
//! keeps the reference's bits when every weight is finite ([`Matrix::skips_zero_inputs`]).
//!
//! A batch skips them lane by lane when enough of its inputs are zeros ([`worth_skipping`]):
//! each lane's sums are computed as for one input (vectorised across output rows) over its
//! nonzero inputs only.

use super::{Isa, Matrix};

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

/// [`SKIP_FROM`] on AVX-512, for any number of rows: there the dense kernel's tiles do twice
/// the work per instruction, and the lane-by-lane one (vectors of 8 rows, up to 128 rows a
/// pass) catches up later. Measured on Zen 5 (`docs/performance.md`, 64 lanes): 0.30× the
/// dense kernel with no zeros, 0.58× with half, 1.5× with three quarters on 256 rows; 0.48×,
/// 0.76×, 1.05× on 50. In mnist_fc's search, 0.7 examined more boxes than 0.6 or 0.8.
pub const SKIP_FROM_AVX512: f64 = 0.7;

/// The most rows whose sums a lane keeps in registers in one pass.
pub const ONE_PASS_ROWS: usize = 52;

/// The lanes whose inputs are sampled to choose.
const SAMPLE_LANES: usize = 16;

/// The columns one input's sum runs over, in order: every column, or when the matrix allows
/// it only those whose input is not ±0.0.
pub fn terms(w: &Matrix, x: &[f64], columns: &mut Vec<u32>) {
    columns.clear();
    if w.skips_zero_inputs() {
        // Without a branch per column (a relu's zeros fall at random): every column is
        // written at the end of those kept so far, and counted as kept when its input is not
        // ±0.0. A NaN input is kept, as `!= 0.0` says.
        columns.resize(w.cols, 0);
        let mut kept = 0;
        for (j, &input) in x[..w.cols].iter().enumerate() {
            columns[kept] = j as u32;
            kept += usize::from(input != 0.0);
        }
        columns.truncate(kept);
    } else {
        columns.extend(0..w.cols as u32);
    }
}

/// Whether a batch (`x`: `cols × lanes`, feature-major) should skip its zero inputs, judged by
/// the share of zeros in its first 16 lanes ([`SKIP_FROM`], [`SKIP_TALL_FROM`] and, for the
/// kernels of `isa` AVX-512, [`SKIP_FROM_AVX512`]). Operands the kernels will refuse (fewer
/// than 16 lanes, a short `x`) are not skipped: the dense kernel's checks report them.
pub fn worth_skipping(isa: Isa, w: &Matrix, x: &[f64], lanes: usize) -> bool {
    if !w.skips_zero_inputs() || w.cols == 0 || lanes < SAMPLE_LANES || x.len() < w.cols * lanes {
        return false;
    }
    let zeros: usize =
        (0..w.cols).map(|j| x[j * lanes..j * lanes + SAMPLE_LANES].iter().filter(|v| **v == 0.0).count()).sum();
    let from = match isa {
        Isa::Avx512 => SKIP_FROM_AVX512,
        _ if w.rows() <= ONE_PASS_ROWS => SKIP_FROM,
        _ => SKIP_TALL_FROM,
    };
    zeros as f64 >= from * (w.cols * SAMPLE_LANES) as f64
}

#[cfg(test)]
mod tests {
    use super::{
        Isa, Matrix, ONE_PASS_ROWS, SAMPLE_LANES, SKIP_FROM, SKIP_FROM_AVX512, SKIP_TALL_FROM, terms, worth_skipping,
    };

    #[test]
    fn terms_are_the_columns_whose_input_is_not_a_zero() {
        let x = [0.0, 1.5, -0.0, f64::NAN, -2.0, 0.0, f64::INFINITY];
        let w = Matrix::new(2, x.len(), vec![0.5; 2 * x.len()]);
        let mut columns = vec![99; 3];
        terms(&w, &x, &mut columns);
        assert_eq!(columns, [1, 3, 4, 6], "±0.0 skipped; NaN, ∞ and the rest kept; the old list gone");
        terms(&w, &[0.0; 7], &mut columns);
        assert!(columns.is_empty());
        terms(&w, &[1.0; 7], &mut columns);
        assert_eq!(columns, [0, 1, 2, 3, 4, 5, 6]);
        // An infinite weight times a zero input is NaN, not nothing: every column is a term.
        let mut weights = vec![0.5; 2 * x.len()];
        weights[3] = f64::INFINITY;
        terms(&Matrix::new(2, x.len(), weights), &x, &mut columns);
        assert_eq!(columns, [0, 1, 2, 3, 4, 5, 6]);
    }

    /// A batch of `lanes` lanes whose first 16 lanes hold `zeros` zeros in all (the first
    /// ones, column by column), the rest 1.0; the other lanes all zeros.
    fn batch(cols: usize, lanes: usize, zeros: usize) -> Vec<f64> {
        let mut x = vec![0.0; cols * lanes];
        let mut left = zeros;
        for j in 0..cols {
            for lane in 0..SAMPLE_LANES {
                if left > 0 {
                    left -= 1;
                } else {
                    x[j * lanes + lane] = 1.0;
                }
            }
        }
        x
    }

    #[test]
    fn the_share_of_zeros_in_the_first_lanes_decides() {
        let (cols, lanes) = (10, 3 * SAMPLE_LANES);
        let sampled = cols * SAMPLE_LANES;
        let cases = [
            (Isa::Avx2, ONE_PASS_ROWS, SKIP_FROM),
            (Isa::Avx2, ONE_PASS_ROWS + 1, SKIP_TALL_FROM),
            (Isa::Avx512, ONE_PASS_ROWS, SKIP_FROM_AVX512),
            (Isa::Avx512, 256, SKIP_FROM_AVX512),
        ];
        for (isa, rows, from) in cases {
            let w = Matrix::new(rows, cols, vec![0.5; rows * cols]);
            let enough = (from * sampled as f64).ceil() as usize;
            let skips = |zeros: usize| worth_skipping(isa, &w, &batch(cols, lanes, zeros), lanes);
            assert!(skips(enough), "{isa:?}, {rows} rows, {enough} zeros");
            assert!(!skips(enough - 1), "{isa:?}, {rows} rows, one zero fewer");
            assert!(skips(sampled), "{isa:?}, {rows} rows, all zeros");
            assert!(!skips(0), "{isa:?}, {rows} rows, no zero (the other lanes are)");
        }
    }

    #[test]
    fn nothing_is_skipped_past_an_infinite_weight_or_in_an_empty_sum() {
        let lanes = SAMPLE_LANES;
        let mut weights = vec![0.5; 4 * 3];
        weights[5] = f64::NEG_INFINITY;
        assert!(!worth_skipping(Isa::Avx2, &Matrix::new(4, 3, weights), &batch(3, lanes, 3 * lanes), lanes));
        assert!(!worth_skipping(Isa::Avx2, &Matrix::new(4, 0, vec![]), &[], lanes));
    }

    #[test]
    fn operands_the_kernels_refuse_are_left_to_the_dense_kernels_checks() {
        let w = Matrix::new(4, 3, vec![0.5; 12]);
        assert!(worth_skipping(Isa::Avx2, &w, &[0.0; 3 * SAMPLE_LANES], SAMPLE_LANES), "all zeros: skipped");
        assert!(!worth_skipping(Isa::Avx2, &w, &[0.0; 3 * 8], 8), "fewer lanes than the sample");
        assert!(!worth_skipping(Isa::Avx2, &w, &[0.0; 3 * SAMPLE_LANES - 1], SAMPLE_LANES), "a short batch");
    }
}
