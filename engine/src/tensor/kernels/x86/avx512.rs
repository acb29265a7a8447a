//! The AVX-512 kernels: one input vectorised across output rows (vectors of 8 rows), and a
//! batch in tiles of up to 8 rows × 16 lanes.

use std::arch::x86_64::*;
use std::ops::Range;

use super::super::super::{COLUMN_ALIGN, Matrix, PANEL_ROWS};
use super::super::Precision;
use super::{Part, TileShape, Tiles, blocked};

/// One input on AVX-512, vectorised across output rows: `out = Σ W[:, j] x[j]` over
/// `columns` (in order).
#[target_feature(enable = "avx512f,fma")]
pub unsafe fn matvec_avx512(w: &Matrix, x: &[f64], columns: &[u32], out: &mut [f64], precision: Precision) {
    let mut first = 0;
    while first < w.rows {
        let vectors = ((w.rows - first).div_ceil(COLUMN_ALIGN)).min(8);
        let mut tile = [0.0f64; 64];
        let terms = columns.iter().map(|&j| j as usize);
        // SAFETY: columns are padded to whole vectors of 8, so every load of the tile stays
        // inside `w.columns`; `x` holds `w.cols` elements and `columns` are below `w.cols`.
        unsafe { rows_of_sums(precision, vectors, w, first, x, 1, terms, &mut tile) }
        let here = (w.rows - first).min(vectors * COLUMN_ALIGN);
        out[first..first + here].copy_from_slice(&tile[..here]);
        first += vectors * COLUMN_ALIGN;
    }
}

/// The most vectors of 8 rows whose sums [`rows_of_sums`] keeps in registers.
pub const MOST_ROW_VECTORS: usize = 16;

/// Rows `first .. first + 8 vectors` (`vectors` from 1 to [`MOST_ROW_VECTORS`]) of one
/// input's sums into `tile`: for each term `j` in order, `W[:, j]` times `x[j * stride]`.
///
/// # Safety
/// The CPU has AVX-512F and FMA; every term `j` is a column of `w` with `j * stride <
/// x.len()`; the rows are whole vectors of 8 from a multiple of 8, inside the columns'
/// padding; `tile` holds `8 vectors` elements.
#[target_feature(enable = "avx512f,fma")]
#[allow(clippy::too_many_arguments)]
pub unsafe fn rows_of_sums(
    precision: Precision,
    vectors: usize,
    w: &Matrix,
    first: usize,
    x: &[f64],
    stride: usize,
    terms: impl Iterator<Item = usize>,
    tile: &mut [f64],
) {
    // SAFETY: the caller's guarantees.
    unsafe {
        by_count!(
            precision,
            vectors,
            [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16],
            row_sums_avx512(w, x, stride, terms, first, tile)
        )
    }
}

/// [`rows_of_sums`] for `N` vectors.
#[target_feature(enable = "avx512f,fma")]
unsafe fn row_sums_avx512<const N: usize, const FUSED: bool>(
    w: &Matrix,
    x: &[f64],
    stride: usize,
    terms: impl Iterator<Item = usize>,
    first: usize,
    tile: &mut [f64],
) {
    debug_assert!(tile.len() >= N * COLUMN_ALIGN && first.is_multiple_of(COLUMN_ALIGN), "a tile of {N} vectors");
    // SAFETY: as [`rows_of_sums`] says.
    unsafe {
        let mut acc = [_mm512_setzero_pd(); N];
        let base = w.columns().as_ptr().add(first);
        for j in terms {
            debug_assert!(j < w.cols && j * stride < x.len(), "term {j} of {} inputs", x.len());
            let xv = _mm512_set1_pd(*x.get_unchecked(j * stride));
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

/// A batch on AVX-512: tiles of up to 8 rows × 16 lanes (16 zmm accumulators), the epilogue
/// applied in registers after a sum's last column block. Returns whether relu met a NaN.
#[target_feature(enable = "avx512f,fma")]
pub fn matmul_avx512(tiles: &mut Tiles, precision: Precision) -> bool {
    // SAFETY: the CPU has the tile's instruction set (this function's); `Tiles::new` checked
    // the operands.
    unsafe { blocked::<Avx512Tile>(tiles, precision) }
}

/// 8 rows × 16 lanes in 16 zmm.
struct Avx512Tile;

impl TileShape for Avx512Tile {
    const ROWS: usize = PANEL_ROWS;
    const LANES: usize = 16;
    const SPANS_PANELS: bool = false;

    #[target_feature(enable = "avx512f,fma")]
    unsafe fn tile(tiles: &mut Tiles, precision: Precision, rows: Range<usize>, b0: usize, part: Part) -> u8 {
        let (first_row, rows_here) = (rows.start, rows.len());
        // SAFETY: the caller's guarantees.
        unsafe { by_count!(precision, rows_here, [1, 2, 3, 4, 5, 6, 7, 8], avx512_tile(tiles, first_row, b0, part)) }
    }
}

/// Rows `first_row .. first_row + R` (one panel's real rows) × lanes `b0 .. b0 + 16`.
#[target_feature(enable = "avx512f,fma")]
unsafe fn avx512_tile<const R: usize, const FUSED: bool>(t: &mut Tiles, first_row: usize, b0: usize, part: Part) -> u8 {
    let (cols, lanes) = (t.w().cols, t.lanes());
    let mut nan = 0u8;
    // SAFETY: `x` holds `cols × lanes` and `out` (and `relu`) `rows × lanes` elements
    // ([`Tiles::new`] checked them); the panel of `first_row` holds `cols × PANEL_ROWS`
    // weights; `b0 + 16 <= lanes` (lanes are a multiple of 16), so every vector of lanes
    // `b0 .. b0 + 16` of a row `< rows` or a column `< cols` is inside its operand.
    unsafe {
        let panel = t.w().panels().as_ptr().add(first_row * cols);
        let mut acc = [[_mm512_setzero_pd(); 2]; R];
        if !part.first {
            let out = t.outputs().0.as_ptr();
            for (r, a) in acc.iter_mut().enumerate() {
                let at = (first_row + r) * lanes + b0;
                *a = [_mm512_loadu_pd(out.add(at)), _mm512_loadu_pd(out.add(at + 8))];
            }
        }
        let x = t.x().as_ptr();
        for j in part.columns.0..part.columns.1 {
            let column = x.add(j * lanes + b0);
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
            if let Some(b) = t.biases().of(first_row + r, part) {
                let bv = _mm512_set1_pd(b);
                a[0] = _mm512_add_pd(a[0], bv);
                a[1] = _mm512_add_pd(a[1], bv);
            }
            let (out, relu) = t.outputs();
            let out = out.as_mut_ptr();
            _mm512_storeu_pd(out.add(at), a[0]);
            _mm512_storeu_pd(out.add(at + 8), a[1]);
            if let Some(relu) = relu
                && part.last
            {
                let relu = relu.as_mut_ptr();
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
