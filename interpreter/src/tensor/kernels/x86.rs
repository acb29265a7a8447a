//! Register-tiled kernels with explicit vector instructions. A tile of output rows × one or
//! two vectors of lanes stays in registers while `j` runs over the columns in order. Exact mode
//! multiplies then adds (`acc + w * x`, the reference's operation); fast mode fuses them.
//!
//! Callers guarantee the CPU features each function is compiled for and the operand sizes
//! (`kernels::matvec_on` and `matmul_lanes_on` assert them).

use std::arch::x86_64::*;

use super::super::{COLUMN_ALIGN, Matrix, PANEL_ROWS};
use super::{Epilogue, Precision};

/// One input on AVX-512, vectorised across output rows.
#[target_feature(enable = "avx512f,fma")]
pub unsafe fn matvec_avx512(w: &Matrix, x: &[f64], out: &mut [f64], precision: Precision) {
    // SAFETY: the caller's guarantees.
    unsafe {
        match precision {
            Precision::Exact => matvec_rows::<false>(w, x, out),
            Precision::Fast => matvec_rows::<true>(w, x, out),
        }
    }
}

/// One input on AVX2: the portable loop, compiled with wider vectors.
#[target_feature(enable = "avx2,fma")]
pub unsafe fn matvec_avx2(w: &Matrix, x: &[f64], out: &mut [f64], precision: Precision) {
    super::matvec_portable(w, x, out, precision);
}

/// Up to 8 zmm (64 rows) of accumulators stay in registers while `j` runs over the columns.
#[target_feature(enable = "avx512f,fma")]
unsafe fn matvec_rows<const FUSED: bool>(w: &Matrix, x: &[f64], out: &mut [f64]) {
    let mut first = 0;
    while first < w.rows {
        let vectors = ((w.rows - first).div_ceil(COLUMN_ALIGN)).min(8);
        let mut tile = [0.0f64; 64];
        // SAFETY: columns are padded to whole vectors, so every load of the tile stays inside
        // `w.columns`; `x` holds `w.cols` elements.
        unsafe {
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
        }
        let here = (w.rows - first).min(vectors * COLUMN_ALIGN);
        out[first..first + here].copy_from_slice(&tile[..here]);
        first += vectors * COLUMN_ALIGN;
    }
}

/// Rows `first .. first + 8N` of `W x` into `tile`.
#[target_feature(enable = "avx512f,fma")]
unsafe fn matvec_tile<const N: usize, const FUSED: bool>(w: &Matrix, x: &[f64], first: usize, tile: &mut [f64; 64]) {
    // SAFETY: as in `matvec_rows`.
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

/// Columns per block: a block of one lane group's inputs (`J_BLOCK × 16` Floats, 16 KiB)
/// stays in L1 while the panels of a row block pass over it. A sum runs over its blocks in
/// order, the partial sum stored and reloaded between them (exactly, as an f64).
const J_BLOCK: usize = 128;

/// The bytes of weights a row block holds: it stays in L2 while every lane group passes
/// through it, so the weights come from farther away once per group of rows, not per lane group.
const WEIGHT_BLOCK: usize = 128 * 1024;

/// A batch on AVX-512: tiles of up to 8 rows × 16 lanes (16 zmm accumulators), the epilogue
/// applied in registers after a sum's last column block. Returns whether relu met a NaN.
#[target_feature(enable = "avx512f,fma")]
pub unsafe fn matmul_avx512(
    w: &Matrix,
    x: &[f64],
    out: &mut [f64],
    lanes: usize,
    precision: Precision,
    epilogue: Epilogue,
) -> bool {
    let tiles = Tiles {
        w,
        x: x.as_ptr(),
        out: out.as_mut_ptr(),
        lanes,
        bias: epilogue.bias,
        relu: epilogue.relu.map(|r| r.as_mut_ptr()),
    };
    let panels = w.rows.div_ceil(PANEL_ROWS);
    let panels_per_block = (WEIGHT_BLOCK / (w.cols.max(1) * PANEL_ROWS * size_of::<f64>())).max(1);
    // Empty rows (`cols == 0`) still get their 0.0 and epilogue: one empty column block.
    let column_blocks: Vec<(usize, usize)> = if w.cols == 0 {
        vec![(0, 0)]
    } else {
        (0..w.cols).step_by(J_BLOCK).map(|j| (j, (j + J_BLOCK).min(w.cols))).collect()
    };
    let mut nan = 0;
    for first_panel in (0..panels).step_by(panels_per_block) {
        for (k, &columns) in column_blocks.iter().enumerate() {
            let part = Part { columns, first: k == 0, last: k + 1 == column_blocks.len() };
            for b0 in (0..lanes).step_by(16) {
                for p in first_panel..panels.min(first_panel + panels_per_block) {
                    // SAFETY: the caller's guarantees; `Tiles::tile` stays inside the operands.
                    nan |= unsafe { tiles.dispatch(precision, p, b0, part) };
                }
            }
        }
    }
    nan != 0
}

/// The columns `columns.0 .. columns.1` of a sum; the first part starts from 0.0, the last
/// applies the epilogue.
#[derive(Clone, Copy)]
struct Part {
    columns: (usize, usize),
    first: bool,
    last: bool,
}

/// The operands of one batched product, as raw pointers for the tile loops.
struct Tiles<'a> {
    w: &'a Matrix,
    x: *const f64,
    out: *mut f64,
    lanes: usize,
    bias: Option<&'a [Option<f64>]>,
    relu: Option<*mut f64>,
}

impl Tiles<'_> {
    /// The tile of panel `p` for its number of real rows.
    #[target_feature(enable = "avx512f,fma")]
    unsafe fn dispatch(&self, precision: Precision, p: usize, b0: usize, part: Part) -> u8 {
        let rows_here = PANEL_ROWS.min(self.w.rows - p * PANEL_ROWS);
        // SAFETY: the caller's guarantees.
        unsafe {
            match (precision, rows_here) {
                (Precision::Exact, 8) => self.tile::<8, false>(p, b0, part),
                (Precision::Exact, 7) => self.tile::<7, false>(p, b0, part),
                (Precision::Exact, 6) => self.tile::<6, false>(p, b0, part),
                (Precision::Exact, 5) => self.tile::<5, false>(p, b0, part),
                (Precision::Exact, 4) => self.tile::<4, false>(p, b0, part),
                (Precision::Exact, 3) => self.tile::<3, false>(p, b0, part),
                (Precision::Exact, 2) => self.tile::<2, false>(p, b0, part),
                (Precision::Exact, _) => self.tile::<1, false>(p, b0, part),
                (Precision::Fast, 8) => self.tile::<8, true>(p, b0, part),
                (Precision::Fast, 7) => self.tile::<7, true>(p, b0, part),
                (Precision::Fast, 6) => self.tile::<6, true>(p, b0, part),
                (Precision::Fast, 5) => self.tile::<5, true>(p, b0, part),
                (Precision::Fast, 4) => self.tile::<4, true>(p, b0, part),
                (Precision::Fast, 3) => self.tile::<3, true>(p, b0, part),
                (Precision::Fast, 2) => self.tile::<2, true>(p, b0, part),
                (Precision::Fast, _) => self.tile::<1, true>(p, b0, part),
            }
        }
    }

    /// Panel `p` (its first `R` rows are real) × lanes `b0 .. b0 + 16` over one part of the
    /// columns: returns a mask of the lanes where relu met a NaN (any bit set: at least one).
    #[target_feature(enable = "avx512f,fma")]
    unsafe fn tile<const R: usize, const FUSED: bool>(&self, p: usize, b0: usize, part: Part) -> u8 {
        let (cols, lanes) = (self.w.cols, self.lanes);
        let first_row = p * PANEL_ROWS;
        let mut nan = 0u8;
        // SAFETY: `x` holds `cols × lanes` and `out` (and `relu`) `rows × lanes` elements;
        // panel `p` holds `cols × PANEL_ROWS` weights; `b0 + 16 <= lanes`.
        unsafe {
            let panel = self.w.panels.as_ptr().add(p * cols * PANEL_ROWS);
            let mut acc = [[_mm512_setzero_pd(); 2]; R];
            if !part.first {
                for (r, a) in acc.iter_mut().enumerate() {
                    let at = (first_row + r) * lanes + b0;
                    *a = [_mm512_loadu_pd(self.out.add(at)), _mm512_loadu_pd(self.out.add(at + 8))];
                }
            }
            for j in part.columns.0..part.columns.1 {
                let column = self.x.add(j * lanes + b0);
                let (x0, x1) = (_mm512_loadu_pd(column), _mm512_loadu_pd(column.add(8)));
                let wp = panel.add(j * PANEL_ROWS);
                for (r, a) in acc.iter_mut().enumerate() {
                    let wv = _mm512_set1_pd(*wp.add(r));
                    if FUSED {
                        a[0] = _mm512_fmadd_pd(wv, x0, a[0]);
                        a[1] = _mm512_fmadd_pd(wv, x1, a[1]);
                    } else {
                        a[0] = _mm512_add_pd(a[0], _mm512_mul_pd(wv, x0));
                        a[1] = _mm512_add_pd(a[1], _mm512_mul_pd(wv, x1));
                    }
                }
            }
            // No closures here: they would not inherit this function's target features and
            // would not be inlined.
            for (r, a) in acc.iter_mut().enumerate() {
                let at = (first_row + r) * lanes + b0;
                let bias = match self.bias {
                    Some(bias) if part.last => bias[first_row + r],
                    _ => None,
                };
                if let Some(b) = bias {
                    let bv = _mm512_set1_pd(b);
                    a[0] = _mm512_add_pd(a[0], bv);
                    a[1] = _mm512_add_pd(a[1], bv);
                }
                _mm512_storeu_pd(self.out.add(at), a[0]);
                _mm512_storeu_pd(self.out.add(at + 8), a[1]);
                if let Some(relu) = self.relu
                    && part.last
                {
                    // `max(x, 0.0)`: 0.0 where x < 0.0, x otherwise (so -0.0 and NaN stay).
                    let zero = _mm512_setzero_pd();
                    for (half, v) in a.iter().enumerate() {
                        let below = _mm512_cmp_pd_mask::<_CMP_LT_OQ>(*v, zero);
                        nan |= _mm512_cmp_pd_mask::<_CMP_UNORD_Q>(*v, *v);
                        _mm512_storeu_pd(relu.add(at + 8 * half), _mm512_mask_blend_pd(below, *v, zero));
                    }
                }
            }
        }
        nan
    }
}

/// A batch on AVX2: tiles of 8 rows × 4 lanes (8 ymm accumulators).
#[target_feature(enable = "avx2,fma")]
pub unsafe fn matmul_avx2(w: &Matrix, x: &[f64], out: &mut [f64], lanes: usize, precision: Precision) {
    match precision {
        // SAFETY: the caller's guarantees.
        Precision::Exact => unsafe { matmul_avx2_tiles::<false>(w, x, out, lanes) },
        // SAFETY: the caller's guarantees.
        Precision::Fast => unsafe { matmul_avx2_tiles::<true>(w, x, out, lanes) },
    }
}

#[target_feature(enable = "avx2,fma")]
unsafe fn matmul_avx2_tiles<const FUSED: bool>(w: &Matrix, x: &[f64], out: &mut [f64], lanes: usize) {
    let (rows, cols) = (w.rows, w.cols);
    let (xp, op) = (x.as_ptr(), out.as_mut_ptr());
    // SAFETY: `x` holds `cols × lanes` and `out` `rows × lanes` elements; each panel holds
    // `cols × PANEL_ROWS` weights; `b0 + 4 <= lanes`.
    unsafe {
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
                        *a = if FUSED { _mm256_fmadd_pd(wv, x0, *a) } else { _mm256_add_pd(*a, _mm256_mul_pd(wv, x0)) };
                    }
                }
                for (r, a) in acc.iter().enumerate().take(rows_here) {
                    _mm256_storeu_pd(op.add((first_row + r) * lanes + b0), *a);
                }
            }
        }
    }
}
