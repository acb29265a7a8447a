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

/// Columns per block: a block of one tile's inputs (`J_BLOCK` columns × the tile's lanes)
/// stays in L1 while the panels of a row block pass over it. A sum runs over its blocks in
/// order, the partial sum stored and reloaded between them (exactly, as an f64).
const J_BLOCK: usize = 128;

/// The bytes of weights a row block holds: it stays in L2 while every lane group passes
/// through it, so the weights come from farther away once per group of rows, not per lane group.
const WEIGHT_BLOCK: usize = 128 * 1024;

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

impl<'a> Tiles<'a> {
    fn new(w: &'a Matrix, x: &[f64], out: &mut [f64], lanes: usize, epilogue: Epilogue<'a>) -> Tiles<'a> {
        Tiles {
            w,
            x: x.as_ptr(),
            out: out.as_mut_ptr(),
            lanes,
            bias: epilogue.bias,
            relu: epilogue.relu.map(|r| r.as_mut_ptr()),
        }
    }

    /// The bias of `row` when `part` is a sum's last.
    fn bias(&self, row: usize, part: Part) -> Option<f64> {
        match self.bias {
            Some(bias) if part.last => bias[row],
            _ => None,
        }
    }
}

/// A register tile of the batched product on one instruction set: `ROWS` output rows (a
/// divisor of [`PANEL_ROWS`], so a tile lies in one panel) × `LANES` batch lanes.
trait TileShape {
    const ROWS: usize;
    const LANES: usize;

    /// The tile whose first row is `first_row` and first lane `b0`, over one part of the
    /// columns: a mask of the lanes where relu met a NaN (any bit set: at least one).
    ///
    /// # Safety
    /// The CPU has the instruction set; the operands hold what [`Tiles`] says.
    unsafe fn tile(tiles: &Tiles, precision: Precision, first_row: usize, b0: usize, part: Part) -> u8;
}

/// The batched product in blocks: weights by row blocks of [`WEIGHT_BLOCK`] bytes, inputs by
/// column blocks of [`J_BLOCK`], every tile of a row block over one lane group's column block
/// while it is in L1. Returns whether relu met a NaN.
///
/// # Safety
/// As [`TileShape::tile`]; inlined into callers compiled for the tile's instruction set.
#[inline(always)]
unsafe fn blocked<T: TileShape>(tiles: &Tiles, precision: Precision) -> bool {
    let w = tiles.w;
    let units = w.rows.div_ceil(T::ROWS);
    let units_per_block = (WEIGHT_BLOCK / (w.cols.max(1) * T::ROWS * size_of::<f64>())).max(1);
    // Empty rows (`cols == 0`) still get their 0.0 and epilogue: one empty column block.
    let column_blocks: Vec<(usize, usize)> = if w.cols == 0 {
        vec![(0, 0)]
    } else {
        (0..w.cols).step_by(J_BLOCK).map(|j| (j, (j + J_BLOCK).min(w.cols))).collect()
    };
    let mut nan = 0;
    for first_unit in (0..units).step_by(units_per_block) {
        for (k, &columns) in column_blocks.iter().enumerate() {
            let part = Part { columns, first: k == 0, last: k + 1 == column_blocks.len() };
            for b0 in (0..tiles.lanes).step_by(T::LANES) {
                for unit in first_unit..units.min(first_unit + units_per_block) {
                    // SAFETY: the caller's guarantees; a tile stays inside the operands.
                    nan |= unsafe { T::tile(tiles, precision, unit * T::ROWS, b0, part) };
                }
            }
        }
    }
    nan != 0
}

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
    // SAFETY: the caller's guarantees.
    unsafe { blocked::<Avx512Tile>(&Tiles::new(w, x, out, lanes, epilogue), precision) }
}

/// 8 rows × 16 lanes in 16 zmm.
struct Avx512Tile;

impl TileShape for Avx512Tile {
    const ROWS: usize = PANEL_ROWS;
    const LANES: usize = 16;

    #[target_feature(enable = "avx512f,fma")]
    unsafe fn tile(tiles: &Tiles, precision: Precision, first_row: usize, b0: usize, part: Part) -> u8 {
        let rows_here = PANEL_ROWS.min(tiles.w.rows - first_row);
        // SAFETY: the caller's guarantees.
        unsafe {
            match (precision, rows_here) {
                (Precision::Exact, 8) => avx512_tile::<8, false>(tiles, first_row, b0, part),
                (Precision::Exact, 7) => avx512_tile::<7, false>(tiles, first_row, b0, part),
                (Precision::Exact, 6) => avx512_tile::<6, false>(tiles, first_row, b0, part),
                (Precision::Exact, 5) => avx512_tile::<5, false>(tiles, first_row, b0, part),
                (Precision::Exact, 4) => avx512_tile::<4, false>(tiles, first_row, b0, part),
                (Precision::Exact, 3) => avx512_tile::<3, false>(tiles, first_row, b0, part),
                (Precision::Exact, 2) => avx512_tile::<2, false>(tiles, first_row, b0, part),
                (Precision::Exact, _) => avx512_tile::<1, false>(tiles, first_row, b0, part),
                (Precision::Fast, 8) => avx512_tile::<8, true>(tiles, first_row, b0, part),
                (Precision::Fast, 7) => avx512_tile::<7, true>(tiles, first_row, b0, part),
                (Precision::Fast, 6) => avx512_tile::<6, true>(tiles, first_row, b0, part),
                (Precision::Fast, 5) => avx512_tile::<5, true>(tiles, first_row, b0, part),
                (Precision::Fast, 4) => avx512_tile::<4, true>(tiles, first_row, b0, part),
                (Precision::Fast, 3) => avx512_tile::<3, true>(tiles, first_row, b0, part),
                (Precision::Fast, 2) => avx512_tile::<2, true>(tiles, first_row, b0, part),
                (Precision::Fast, _) => avx512_tile::<1, true>(tiles, first_row, b0, part),
            }
        }
    }
}

/// Rows `first_row .. first_row + R` (one panel's real rows) × lanes `b0 .. b0 + 16`.
#[target_feature(enable = "avx512f,fma")]
unsafe fn avx512_tile<const R: usize, const FUSED: bool>(t: &Tiles, first_row: usize, b0: usize, part: Part) -> u8 {
    let (cols, lanes) = (t.w.cols, t.lanes);
    let mut nan = 0u8;
    // SAFETY: `x` holds `cols × lanes` and `out` (and `relu`) `rows × lanes` elements;
    // the panel of `first_row` holds `cols × PANEL_ROWS` weights; `b0 + 16 <= lanes`.
    unsafe {
        let panel = t.w.panels.as_ptr().add(first_row * cols);
        let mut acc = [[_mm512_setzero_pd(); 2]; R];
        if !part.first {
            for (r, a) in acc.iter_mut().enumerate() {
                let at = (first_row + r) * lanes + b0;
                *a = [_mm512_loadu_pd(t.out.add(at)), _mm512_loadu_pd(t.out.add(at + 8))];
            }
        }
        for j in part.columns.0..part.columns.1 {
            let column = t.x.add(j * lanes + b0);
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
            if let Some(b) = t.bias(first_row + r, part) {
                let bv = _mm512_set1_pd(b);
                a[0] = _mm512_add_pd(a[0], bv);
                a[1] = _mm512_add_pd(a[1], bv);
            }
            _mm512_storeu_pd(t.out.add(at), a[0]);
            _mm512_storeu_pd(t.out.add(at + 8), a[1]);
            if let Some(relu) = t.relu
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

/// A batch on AVX2: tiles of up to `AVX2_ROWS` rows × `4 V` lanes, the epilogue applied in
/// registers after a sum's last column block. Returns whether relu met a NaN.
#[target_feature(enable = "avx2,fma")]
pub unsafe fn matmul_avx2(
    w: &Matrix,
    x: &[f64],
    out: &mut [f64],
    lanes: usize,
    precision: Precision,
    epilogue: Epilogue,
) -> bool {
    // SAFETY: the caller's guarantees.
    unsafe { blocked::<Avx2Tile>(&Tiles::new(w, x, out, lanes, epilogue), precision) }
}

/// Rows of an AVX2 tile.
const AVX2_ROWS: usize = 4;
/// ymm registers (4 lanes each) of an AVX2 tile's row.
const AVX2_VECTORS: usize = 2;

/// `AVX2_ROWS` rows × `4 AVX2_VECTORS` lanes: 8 ymm accumulators, 2 of inputs, a broadcast
/// weight and a product within the 16 registers.
struct Avx2Tile;

impl TileShape for Avx2Tile {
    const ROWS: usize = AVX2_ROWS;
    const LANES: usize = 4 * AVX2_VECTORS;

    #[target_feature(enable = "avx2,fma")]
    unsafe fn tile(tiles: &Tiles, precision: Precision, first_row: usize, b0: usize, part: Part) -> u8 {
        let rows_here = AVX2_ROWS.min(tiles.w.rows - first_row);
        const V: usize = AVX2_VECTORS;
        // SAFETY: the caller's guarantees.
        unsafe {
            match (precision, rows_here) {
                (Precision::Exact, 8) => avx2_tile::<8, V, false>(tiles, first_row, b0, part),
                (Precision::Exact, 7) => avx2_tile::<7, V, false>(tiles, first_row, b0, part),
                (Precision::Exact, 6) => avx2_tile::<6, V, false>(tiles, first_row, b0, part),
                (Precision::Exact, 5) => avx2_tile::<5, V, false>(tiles, first_row, b0, part),
                (Precision::Exact, 4) => avx2_tile::<4, V, false>(tiles, first_row, b0, part),
                (Precision::Exact, 3) => avx2_tile::<3, V, false>(tiles, first_row, b0, part),
                (Precision::Exact, 2) => avx2_tile::<2, V, false>(tiles, first_row, b0, part),
                (Precision::Exact, _) => avx2_tile::<1, V, false>(tiles, first_row, b0, part),
                (Precision::Fast, 8) => avx2_tile::<8, V, true>(tiles, first_row, b0, part),
                (Precision::Fast, 7) => avx2_tile::<7, V, true>(tiles, first_row, b0, part),
                (Precision::Fast, 6) => avx2_tile::<6, V, true>(tiles, first_row, b0, part),
                (Precision::Fast, 5) => avx2_tile::<5, V, true>(tiles, first_row, b0, part),
                (Precision::Fast, 4) => avx2_tile::<4, V, true>(tiles, first_row, b0, part),
                (Precision::Fast, 3) => avx2_tile::<3, V, true>(tiles, first_row, b0, part),
                (Precision::Fast, 2) => avx2_tile::<2, V, true>(tiles, first_row, b0, part),
                (Precision::Fast, _) => avx2_tile::<1, V, true>(tiles, first_row, b0, part),
            }
        }
    }
}

/// Rows `first_row .. first_row + R` (within one panel) × lanes `b0 .. b0 + 4 V`.
#[target_feature(enable = "avx2,fma")]
unsafe fn avx2_tile<const R: usize, const V: usize, const FUSED: bool>(
    t: &Tiles,
    first_row: usize,
    b0: usize,
    part: Part,
) -> u8 {
    let (cols, lanes) = (t.w.cols, t.lanes);
    let mut nan = 0;
    // SAFETY: `x` holds `cols × lanes` and `out` (and `relu`) `rows × lanes` elements; the
    // panel of `first_row` holds `cols × PANEL_ROWS` weights; `b0 + 4 V <= lanes`.
    unsafe {
        let (p, r0) = (first_row / PANEL_ROWS, first_row % PANEL_ROWS);
        let panel = t.w.panels.as_ptr().add(p * cols * PANEL_ROWS + r0);
        let mut acc = [[_mm256_setzero_pd(); V]; R];
        if !part.first {
            for (r, a) in acc.iter_mut().enumerate() {
                let at = t.out.add((first_row + r) * lanes + b0);
                for (v, lane) in a.iter_mut().enumerate() {
                    *lane = _mm256_loadu_pd(at.add(4 * v));
                }
            }
        }
        for j in part.columns.0..part.columns.1 {
            let column = t.x.add(j * lanes + b0);
            let mut xs = [_mm256_setzero_pd(); V];
            for (v, x) in xs.iter_mut().enumerate() {
                *x = _mm256_loadu_pd(column.add(4 * v));
            }
            let wp = panel.add(j * PANEL_ROWS);
            for (r, a) in acc.iter_mut().enumerate() {
                let wv = _mm256_broadcast_sd(&*wp.add(r));
                for (lane, x) in a.iter_mut().zip(xs) {
                    *lane =
                        if FUSED { _mm256_fmadd_pd(wv, x, *lane) } else { _mm256_add_pd(*lane, _mm256_mul_pd(wv, x)) };
                }
            }
        }
        for (r, a) in acc.iter_mut().enumerate() {
            let at = (first_row + r) * lanes + b0;
            if let Some(b) = t.bias(first_row + r, part) {
                let bv = _mm256_set1_pd(b);
                for lane in a.iter_mut() {
                    *lane = _mm256_add_pd(*lane, bv);
                }
            }
            for (v, lane) in a.iter().enumerate() {
                _mm256_storeu_pd(t.out.add(at + 4 * v), *lane);
            }
            if let Some(relu) = t.relu
                && part.last
            {
                // `max(x, 0.0)`: 0.0 where x < 0.0, x otherwise (so -0.0 and NaN stay).
                let zero = _mm256_setzero_pd();
                for (v, lane) in a.iter().enumerate() {
                    let below = _mm256_cmp_pd::<_CMP_LT_OQ>(*lane, zero);
                    nan |= _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_UNORD_Q>(*lane, *lane));
                    _mm256_storeu_pd(relu.add(at + 4 * v), _mm256_blendv_pd(*lane, zero, below));
                }
            }
        }
    }
    u8::from(nan != 0)
}
