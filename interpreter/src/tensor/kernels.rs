//! Matrix-vector kernels: one input (vectorised across output rows) and a batch of inputs
//! (vectorised across batch lanes), exact or fused, for AVX-512, AVX2 and portable targets.

use super::{COLUMN_ALIGN, LANE_GROUP, Matrix, PANEL_ROWS};

/// Exact: the reference's operations in its order. Fast: fused multiply-adds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Precision {
    #[default]
    Exact,
    Fast,
}

/// `out = W x` for one input: `out[i] = ((0.0 + w[i][0]*x[0]) + w[i][1]*x[1]) + …`.
pub fn matvec(w: &Matrix, x: &[f64], out: &mut [f64], precision: Precision) {
    assert!(x.len() >= w.cols && out.len() >= w.rows, "matvec operands");
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the features the function is compiled for were just detected.
            return unsafe { matvec_avx512(w, x, out, precision) };
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: as above.
            return unsafe { matvec_avx2(w, x, out, precision) };
        }
    }
    matvec_dispatch(w, x, out, precision);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,fma")]
unsafe fn matvec_avx512(w: &Matrix, x: &[f64], out: &mut [f64], precision: Precision) {
    // SAFETY: the caller checked the features; `matvec` checked the operand sizes.
    unsafe {
        match precision {
            Precision::Exact => simd::matvec_avx512::<false>(w, x, out),
            Precision::Fast => simd::matvec_avx512::<true>(w, x, out),
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn matvec_avx2(w: &Matrix, x: &[f64], out: &mut [f64], precision: Precision) {
    matvec_dispatch(w, x, out, precision);
}

#[inline(always)]
fn matvec_dispatch(w: &Matrix, x: &[f64], out: &mut [f64], precision: Precision) {
    match precision {
        Precision::Exact => matvec_body::<false>(w, x, out),
        Precision::Fast => matvec_body::<true>(w, x, out),
    }
}

#[inline(always)]
fn matvec_body<const FUSED: bool>(w: &Matrix, x: &[f64], out: &mut [f64]) {
    let rows = w.rows;
    let out = &mut out[..rows];
    out.fill(0.0);
    for (j, &xj) in x[..w.cols].iter().enumerate() {
        let column = &w.columns[j * w.column_stride..j * w.column_stride + rows];
        for (o, &wij) in out.iter_mut().zip(column) {
            *o = if FUSED { wij.mul_add(xj, *o) } else { *o + wij * xj };
        }
    }
}

/// `out = W x` for `lanes` inputs at once, feature-major: element `j` of lane `l` is
/// `x[j * lanes + l]`, and `out[i * lanes + l]`. `lanes` is a multiple of [`LANE_GROUP`].
pub fn matmul_lanes(w: &Matrix, x: &[f64], out: &mut [f64], lanes: usize, precision: Precision) {
    assert!(lanes.is_multiple_of(LANE_GROUP), "lanes are padded to a multiple of {LANE_GROUP}");
    assert!(x.len() >= w.cols * lanes && out.len() >= w.rows * lanes, "matmul operands");
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the features the function is compiled for were just detected.
            return unsafe { matmul_avx512(w, x, out, lanes, precision) };
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: as above.
            return unsafe { matmul_avx2(w, x, out, lanes, precision) };
        }
    }
    match precision {
        Precision::Exact => matmul_body::<2, false>(w, x, out, lanes),
        Precision::Fast => matmul_body::<2, true>(w, x, out, lanes),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,fma")]
unsafe fn matmul_avx512(w: &Matrix, x: &[f64], out: &mut [f64], lanes: usize, precision: Precision) {
    // SAFETY: the caller checked the features; `matmul_lanes` checked the operand sizes.
    unsafe {
        match precision {
            Precision::Exact => simd::matmul_avx512::<false>(w, x, out, lanes),
            Precision::Fast => simd::matmul_avx512::<true>(w, x, out, lanes),
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn matmul_avx2(w: &Matrix, x: &[f64], out: &mut [f64], lanes: usize, precision: Precision) {
    // SAFETY: as above.
    unsafe {
        match precision {
            Precision::Exact => simd::matmul_avx2::<false>(w, x, out, lanes),
            Precision::Fast => simd::matmul_avx2::<true>(w, x, out, lanes),
        }
    }
}

/// Register-tiled kernels with explicit vector instructions: a tile of [`PANEL_ROWS`] output
/// rows × one or two vectors of lanes stays in registers while `j` runs over the columns in
/// order. Exact mode multiplies then adds (`acc + w * x`, the reference's operation); fast
/// mode fuses them.
#[cfg(target_arch = "x86_64")]
mod simd {
    use std::arch::x86_64::*;

    use super::{COLUMN_ALIGN, Matrix, PANEL_ROWS};

    /// One input, vectorised across output rows: up to 8 zmm (64 rows) of accumulators stay in
    /// registers while `j` runs over the columns in order.
    #[target_feature(enable = "avx512f,fma")]
    pub unsafe fn matvec_avx512<const FUSED: bool>(w: &Matrix, x: &[f64], out: &mut [f64]) {
        // SAFETY: the caller checked the features and the sizes; columns are padded to whole
        // vectors, so every load stays inside `w.columns`.
        unsafe {
            let stride = w.column_stride;
            let mut first = 0;
            while first < w.rows {
                let vectors = ((w.rows - first).div_ceil(COLUMN_ALIGN)).min(8);
                let mut tile = [0.0f64; 64];
                match vectors {
                    1 => matvec_tile::<1, FUSED>(w, x, first, &mut tile),
                    2 => matvec_tile::<2, FUSED>(w, x, first, &mut tile),
                    3 => matvec_tile::<3, FUSED>(w, x, first, &mut tile),
                    4 => matvec_tile::<4, FUSED>(w, x, first, &mut tile),
                    5 => matvec_tile::<5, FUSED>(w, x, first, &mut tile),
                    6 => matvec_tile::<6, FUSED>(w, x, first, &mut tile),
                    7 => matvec_tile::<7, FUSED>(w, x, first, &mut tile),
                    _ => matvec_tile::<8, FUSED>(w, x, first, &mut tile),
                }
                let here = (w.rows - first).min(vectors * COLUMN_ALIGN);
                out[first..first + here].copy_from_slice(&tile[..here]);
                first += vectors * COLUMN_ALIGN;
                debug_assert!(first <= stride);
            }
        }
    }

    /// Rows `first .. first + 8N` of `W x` into `tile`.
    #[target_feature(enable = "avx512f,fma")]
    unsafe fn matvec_tile<const N: usize, const FUSED: bool>(
        w: &Matrix,
        x: &[f64],
        first: usize,
        tile: &mut [f64; 64],
    ) {
        // SAFETY: as in `matvec_avx512`.
        unsafe {
            let mut acc = [_mm512_setzero_pd(); N];
            let base = w.columns.as_ptr().add(first);
            for (j, &xj) in x[..w.cols].iter().enumerate() {
                let xv = _mm512_set1_pd(xj);
                let column = base.add(j * w.column_stride);
                for (v, a) in acc.iter_mut().enumerate() {
                    let wv = _mm512_loadu_pd(column.add(v * COLUMN_ALIGN));
                    *a = if FUSED { _mm512_fmadd_pd(wv, xv, *a) } else { _mm512_add_pd(*a, _mm512_mul_pd(wv, xv)) };
                }
            }
            for (v, a) in acc.iter().enumerate() {
                _mm512_storeu_pd(tile.as_mut_ptr().add(v * COLUMN_ALIGN), *a);
            }
        }
    }

    /// 8 rows × 16 lanes: 16 zmm accumulators.
    #[target_feature(enable = "avx512f,fma")]
    pub unsafe fn matmul_avx512<const FUSED: bool>(w: &Matrix, x: &[f64], out: &mut [f64], lanes: usize) {
        // SAFETY: the caller guarantees the target features and the operand sizes
        // (`matmul_lanes` asserts them); every pointer stays inside its slice.
        unsafe {
            let (rows, cols) = (w.rows, w.cols);
            let (xp, op) = (x.as_ptr(), out.as_mut_ptr());
            for p in 0..rows.div_ceil(PANEL_ROWS) {
                let panel = w.panels.as_ptr().add(p * cols * PANEL_ROWS);
                let first_row = p * PANEL_ROWS;
                let rows_here = PANEL_ROWS.min(rows - first_row);
                for b0 in (0..lanes).step_by(16) {
                    let mut acc = [_mm512_setzero_pd(); 2 * PANEL_ROWS];
                    for j in 0..cols {
                        let column = xp.add(j * lanes + b0);
                        let (x0, x1) = (_mm512_loadu_pd(column), _mm512_loadu_pd(column.add(8)));
                        let wp = panel.add(j * PANEL_ROWS);
                        for r in 0..PANEL_ROWS {
                            let wv = _mm512_set1_pd(*wp.add(r));
                            if FUSED {
                                acc[2 * r] = _mm512_fmadd_pd(wv, x0, acc[2 * r]);
                                acc[2 * r + 1] = _mm512_fmadd_pd(wv, x1, acc[2 * r + 1]);
                            } else {
                                acc[2 * r] = _mm512_add_pd(acc[2 * r], _mm512_mul_pd(wv, x0));
                                acc[2 * r + 1] = _mm512_add_pd(acc[2 * r + 1], _mm512_mul_pd(wv, x1));
                            }
                        }
                    }
                    for r in 0..rows_here {
                        let dst = op.add((first_row + r) * lanes + b0);
                        _mm512_storeu_pd(dst, acc[2 * r]);
                        _mm512_storeu_pd(dst.add(8), acc[2 * r + 1]);
                    }
                }
            }
        }
    }

    /// 8 rows × 4 lanes: 8 ymm accumulators.
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn matmul_avx2<const FUSED: bool>(w: &Matrix, x: &[f64], out: &mut [f64], lanes: usize) {
        // SAFETY: the caller guarantees the target features and the operand sizes
        // (`matmul_lanes` asserts them); every pointer stays inside its slice.
        unsafe {
            let (rows, cols) = (w.rows, w.cols);
            let (xp, op) = (x.as_ptr(), out.as_mut_ptr());
            for p in 0..rows.div_ceil(PANEL_ROWS) {
                let panel = w.panels.as_ptr().add(p * cols * PANEL_ROWS);
                let first_row = p * PANEL_ROWS;
                let rows_here = PANEL_ROWS.min(rows - first_row);
                for b0 in (0..lanes).step_by(4) {
                    let mut acc = [_mm256_setzero_pd(); PANEL_ROWS];
                    for j in 0..cols {
                        let x0 = _mm256_loadu_pd(xp.add(j * lanes + b0));
                        let wp = panel.add(j * PANEL_ROWS);
                        for (r, a) in acc.iter_mut().enumerate() {
                            let wv = _mm256_set1_pd(*wp.add(r));
                            *a = if FUSED {
                                _mm256_fmadd_pd(wv, x0, *a)
                            } else {
                                _mm256_add_pd(*a, _mm256_mul_pd(wv, x0))
                            };
                        }
                    }
                    for (r, a) in acc.iter().enumerate().take(rows_here) {
                        _mm256_storeu_pd(op.add((first_row + r) * lanes + b0), *a);
                    }
                }
            }
        }
    }
}

/// The portable tile: [`PANEL_ROWS`] output rows × `NR` lanes, accumulated column by column
/// (`j` in order), so each output element sees exactly the reference's operations.
#[inline(always)]
fn matmul_body<const NR: usize, const FUSED: bool>(w: &Matrix, x: &[f64], out: &mut [f64], lanes: usize) {
    let (rows, cols) = (w.rows, w.cols);
    for p in 0..rows.div_ceil(PANEL_ROWS) {
        let panel = &w.panels[p * cols * PANEL_ROWS..(p + 1) * cols * PANEL_ROWS];
        let first_row = p * PANEL_ROWS;
        let rows_here = PANEL_ROWS.min(rows - first_row);
        for b0 in (0..lanes).step_by(NR) {
            let mut acc = [[0.0f64; NR]; PANEL_ROWS];
            for j in 0..cols {
                let xr: &[f64; NR] = x[j * lanes + b0..j * lanes + b0 + NR].try_into().expect("NR lanes");
                let wp: &[f64; PANEL_ROWS] =
                    panel[j * PANEL_ROWS..(j + 1) * PANEL_ROWS].try_into().expect("a panel column");
                for r in 0..PANEL_ROWS {
                    let wv = wp[r];
                    for l in 0..NR {
                        acc[r][l] = if FUSED { wv.mul_add(xr[l], acc[r][l]) } else { acc[r][l] + wv * xr[l] };
                    }
                }
            }
            for (r, row) in acc.iter().enumerate().take(rows_here) {
                let at = (first_row + r) * lanes + b0;
                out[at..at + NR].copy_from_slice(row);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference's order, written plainly.
    fn reference(w: &Matrix, x: &[f64]) -> Vec<f64> {
        (0..w.rows())
            .map(|i| {
                // `((0.0 + w0*x0) + w1*x1) + …`: a left fold, multiply then add.
                x.iter().enumerate().fold(0.0, |acc, (j, xj)| acc + w.get(i, j) * xj)
            })
            .collect()
    }

    fn pseudo_random(n: usize, seed: u64) -> Vec<f64> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
            })
            .collect()
    }

    #[test]
    fn exact_kernels_give_the_reference_bits() {
        for (rows, cols) in [(1, 1), (5, 3), (13, 50), (50, 50), (9, 1)] {
            let w = Matrix::new(rows, cols, pseudo_random(rows * cols, 1));
            let lanes = 2 * LANE_GROUP;
            let xs: Vec<Vec<f64>> = (0..lanes).map(|l| pseudo_random(cols, 100 + l as u64)).collect();
            let mut one = vec![0.0; rows];
            let mut feature_major = vec![0.0; cols * lanes];
            for (l, x) in xs.iter().enumerate() {
                for j in 0..cols {
                    feature_major[j * lanes + l] = x[j];
                }
            }
            let mut batch = vec![0.0; rows * lanes];
            matmul_lanes(&w, &feature_major, &mut batch, lanes, Precision::Exact);
            for (l, x) in xs.iter().enumerate() {
                let expected = reference(&w, x);
                matvec(&w, x, &mut one, Precision::Exact);
                for i in 0..rows {
                    assert_eq!(one[i].to_bits(), expected[i].to_bits(), "matvec {rows}x{cols} [{i}]");
                    assert_eq!(
                        batch[i * lanes + l].to_bits(),
                        expected[i].to_bits(),
                        "matmul {rows}x{cols} [{i}][{l}]"
                    );
                }
            }
        }
    }

    #[test]
    fn negative_zero_products_start_from_positive_zero() {
        // The reference adds every product to 0.0: 0.0 + (-0.0) is 0.0, not -0.0.
        let w = Matrix::new(1, 1, vec![-1.0]);
        let mut out = [f64::NAN];
        matvec(&w, &[0.0], &mut out, Precision::Exact);
        assert_eq!(out[0].to_bits(), 0.0f64.to_bits());
    }

    #[test]
    fn fast_kernels_stay_close() {
        let (rows, cols) = (20, 300);
        let w = Matrix::new(rows, cols, pseudo_random(rows * cols, 7));
        let x = pseudo_random(cols, 8);
        let (mut exact, mut fast) = (vec![0.0; rows], vec![0.0; rows]);
        matvec(&w, &x, &mut exact, Precision::Exact);
        matvec(&w, &x, &mut fast, Precision::Fast);
        for i in 0..rows {
            approx::assert_relative_eq!(exact[i], fast[i], epsilon = 1e-12, max_relative = 1e-9);
        }
    }
}
